"""The top level's own predicates (commands).

The commands are registered on one session's Program only (never in the global builtin
table), as library predicates: a program that defines a predicate of the same name and
arity replaces the command, as a user definition overrides a library predicate in
SWI-Prolog. Being predicates, they also work inside conjunctions
(``set_seed(1), sample(coin(X), 100, F)``).

    help/0, help/1             the top level's keys and commands; one predicate's summary
    make/0                     reconsult the loaded files that changed on disk
    consult/1, [File|Files]    load files; load errors are printed and loading goes on
    set_seed/1                 restart the session's random generator from a seed
    sampling/1                 read or set the sampling mode: backtrackable or pure
    prob/2, prob/3             exhaustive probability of a goal (sum over refutations)
    sample/3                   N independent samples of a goal, as Instance-Count pairs
    proof_tree/0               the proof tree of the last stochastic answer
    mpe/1, mpe/2               the most probable proof of a goal (the K best), printed
"""
from __future__ import annotations

import math
import os

from ..logic.builtins.listing import _spec
from ..logic.db import DET
from ..logic.kinds import ENUM, PURE, SAMPLE
from ..logic.proof_text import format_proof
from ..logic.samples import sample_counts
from ..terms.args import items_arg, nonneg_int_arg, number_arg
from ..terms.errors import type_error, domain_error
from ..terms.term import Atom, Struct, Var, atom, deref, mklist
from ..terms.walk import copy_term
from .help import TOPLEVEL_HELP, help_text

__all__ = ["register"]


def register(session) -> None:
    """Give the session's Program the top-level commands (see the module docstring)."""
    p = session.program

    def add(name, arity, fn, builtin=False):
        pred = p.db.get(name, arity)
        pred.clear()
        pred.kind = DET
        pred.fn = fn
        pred.defined = True
        pred.builtin = builtin
        pred.library = not builtin

    add("help", 0, lambda eng: _help0(session))
    add("help", 1, lambda eng, spec: _help1(session, spec))
    add("make", 0, lambda eng: _make(session))
    # consult/1 stays a (protected) builtin; the session's version reports load errors
    # and goes on, as SWI-Prolog does
    add("consult", 1, lambda eng, files: _consult(session, files), builtin=True)
    add(".", 2, lambda eng, h, t: _consult(session, Struct(".", (h, t))))
    add("[]", 0, lambda eng: True)   # `[].` consults nothing, as in SWI-Prolog
    add("set_seed", 1, lambda eng, s: _set_seed(session, s))
    add("sampling", 1, lambda eng, m: _sampling(session, m))
    add("prob", 2, lambda eng, g, pr: _prob(session, g, 0.0, pr))
    add("prob", 3, lambda eng, g, m, pr: _prob(session, g, m, pr))
    add("sample", 3, lambda eng, g, n, a: _sample(session, g, n, a))
    add("proof_tree", 0, lambda eng: _proof_tree(session))
    add("mpe", 1, lambda eng, g: _mpe(session, g, 1))
    add("mpe", 2, lambda eng, g, k: _mpe(session, g, k))


# -- loading ------------------------------------------------------------------------------

def _file_names(t):
    names = []
    for f in items_arg(t):
        if type(f) is Struct and f.name == "library" and len(f.args) == 1:
            continue  # library(lists) and friends are built in
        if type(f) is Atom:
            names.append(f.name)
        elif type(f) is str:
            names.append(f)
        else:
            raise type_error("atom", f)
    return names


def _consult(session, files) -> bool:
    for name in _file_names(files):
        if session.program._loading_file is not None:
            # a directive of a file asks: what the sandbox allows (slpy.logic.sandbox)
            session.program.load_file(name)
        else:
            session.consult(name)     # the user asks: any file
    return True


def _make(session) -> bool:
    p = session.program
    for path, mtime in list(p.loaded_files.items()):
        if not os.path.exists(path):
            session.message(f"Warning: {path}: file no longer exists")
            continue
        if os.stat(path).st_mtime != mtime:
            session.message(f"% Reloading {path}")
            session.consult(path)
    return True


# -- randomness and sampling -------------------------------------------------------------------

def _set_seed(session, s) -> bool:
    session.set_seed(nonneg_int_arg(s))
    return True


def _sampling(session, m) -> bool:
    p = session.program
    m = deref(m)
    if type(m) is Var:
        return p.engine.unify(m, atom(p.flags["sampling"]))
    if type(m) is not Atom:
        raise type_error("atom", m)
    if m.name not in ("backtrackable", "pure"):
        raise domain_error("sampling_mode", m)
    p.flags["sampling"] = m.name
    eng = p.engine
    if eng.mode in (SAMPLE, PURE):  # the running query samples with the new mode from now on
        eng.mode = PURE if m.name == "pure" else SAMPLE
    return True


def _prob(session, goal, min_prob, out) -> bool:
    """prob(Goal, P): P is the sum over all refutations of Goal of the product of the
    labels chosen (labels normalised over all clauses of their predicate: pure SLP
    semantics). prob(Goal, MinProb, P) leaves out refutations less probable than
    MinProb (a lower bound that terminates on priors with infinitely many proofs)."""
    eng = session.program.engine
    min_prob = float(number_arg(min_prob))
    goal = copy_term(goal)
    total = 0.0
    for s in eng.solutions(goal, ENUM, min_prob=min_prob):
        total += math.exp(s.log_prob)
    return eng.unify(out, total)


def _sample(session, goal, n, answers) -> bool:
    """sample(Goal, N, Answers): draw N independent samples of Goal with the session's
    generator and sampling mode; Answers is a list of Instance-Count pairs, most frequent
    first (ties in standard order). Failed samples are not listed."""
    n = nonneg_int_arg(n)
    eng = session.program.engine
    pure = session.program.flags["sampling"] == "pure"
    items = sample_counts(eng, goal, n, session.rng, pure)
    return eng.unify(answers, mklist([Struct("-", (i, c)) for i, c in items]))


def _proof_tree(session) -> bool:
    if session.last_tree is None:
        session.message("% No stochastic answer yet")
        return True
    session.write(format_proof(session.last_tree, session.last_logp, session.program.ops)
                  + "\n")
    return True


def _mpe(session, goal, k) -> bool:
    """mpe(Goal), mpe(Goal, K): print the K most probable proofs of Goal (probability
    and proof tree; slpy.learning.proofs) and unify Goal with the best one's instance;
    fail when Goal has no proof."""
    from ..learning.proofs import mpe_term
    from ..learning.params import LearnError
    k = nonneg_int_arg(k)
    if k < 1:
        raise domain_error("positive_integer", k)
    p = session.program
    try:
        proofs = mpe_term(p, copy_term(goal), k)
    except LearnError as e:
        raise domain_error("mpe_goal", goal) from e
    for i, (inst, prob, tree) in enumerate(proofs, 1):
        from ..terms.writer import term_to_text
        session.write(f"% proof {i} of {len(proofs)}: "
                      f"{term_to_text(inst, quoted=True, spacing=True, ops=p.ops)}\n")
        if tree is not None:
            session.write(format_proof(tree, math.log(prob), p.ops) + "\n")
        else:
            session.write(f"% p = {prob:.4g} (log p = {math.log(prob):.4g})\n")
    return bool(proofs) and p.engine.unify(goal, proofs[0][0])


# -- help --------------------------------------------------------------------------------

def _help0(session) -> bool:
    session.write(TOPLEVEL_HELP)
    return True


def _help1(session, spec) -> bool:
    name, arity = _spec(spec)
    text = help_text(session.program, name, arity)
    if text is None:
        what = name if arity is None else f"{name}/{arity}"
        session.message(f"Warning: no help for {what}")
    else:
        session.write(text)
    return True
