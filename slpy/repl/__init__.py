"""The interactive top level (`slpy repl`): SWI-Prolog's answers, plus what is
stochastic about an SLP (the probability of a sampled answer, its proof tree, another
draw on ``;``).

    loop.py      `slpy repl`, the terminal and the piped-input front ends, reading
                 queries
    session.py   Session: the program, the generator, the output; one query run to
                 its answers and the keys that act on them
    answers.py   an answer's bindings and probability line, as SWI-Prolog writes them
    commands.py  the top level's own predicates (help, make, consult, set_seed,
                 sampling, prob, sample, proof_tree)
    help.py      the help texts

What the top level shares with the rest of slpy lives with its concept: proof-tree
text in slpy.logic.proof_text, independent samples of a goal in slpy.logic.samples,
error lines in slpy.lang.syntax_errors, variable names in slpy.terms.text.
"""
from __future__ import annotations

from .loop import run, run_stream, run_tty, query_state, split_queries
from .session import Session

__all__ = ["run", "run_stream", "run_tty", "query_state", "split_queries", "Session"]
