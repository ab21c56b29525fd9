"""One top-level session: the Program with the top-level commands, the session's
random generator, its output streams, and one query run to its answers.

A query runs with the session's generator in the engine, so every labelled predicate
(and stochastic builtin) it calls draws a clause. An answer whose proof made no
stochastic choice prints exactly as SWI-Prolog prints it; one that did is a sample,
printed after a line with its probability, and ``t`` shows its proof tree. ``;`` asks
for the next answer: ordinary backtracking, which under backtrackable sampling draws
again among the untried choices; under pure sampling it draws a fresh, independent
sample.
"""
from __future__ import annotations

import os
import sys
import traceback

import numpy as np

from ..lang.syntax_errors import format_error, format_load_error
from ..logic.coroutining import residual_goals
from ..logic.kinds import (Halt, SampleFailed, SAMPLE, PURE, CP_BOTTOM, CP_CATCH,
                           CP_DISABLED, CP_PURE, CP_FENCE, CP_KIND, CP_PORT, PORT_WAY)
from ..logic.program import Program, LoadErrors
from ..logic.proof import build_tree
from ..logic.proof_text import format_proof
from ..terms.term import Struct, PrologError
from . import commands
from .answers import answer_bindings, prob_line
from .help import ACTION_HELP

__all__ = ["Session", "ACTION_KEYS"]

# choice point kinds that cannot produce another answer
_NO_ANSWER_CPS = frozenset((CP_BOTTOM, CP_CATCH, CP_DISABLED, CP_PURE, CP_FENCE))

ACTION_KEYS = {";": "next", "n": "next", "r": "next", " ": "next", "\t": "next",
               "\r": "stop", "\n": "stop", ".": "stop", "c": "stop", "a": "stop",
               "\x04": "stop", "t": "tree", "h": "help", "?": "help"}


class Session:
    """One top level: a Program with the top-level commands, the random generator of
    the session, the last stochastic answer's proof tree, and the output streams."""

    def __init__(self, seed=None, pure=False, stdout=None, stderr=None, debug=False,
                 max_steps=None, timeout=None, max_memory=None, **load):
        self.stdout = stdout if stdout is not None else sys.stdout
        self.stderr = stderr if stderr is not None else sys.stderr
        self.debug = debug
        self.interactive = False
        self.at_line_start = True
        # load: Program()'s load_timeout and allow_load (slpy.logic.sandbox)
        self.program = Program(max_steps=max_steps, timeout=timeout, max_memory=max_memory,
                               out=self.write, **load)
        self.program.engine.write_err = self._write_err
        # the user at the top level may open files below the current folder too
        self.program.sandbox.stream_roots.append(os.getcwd())
        if pure:
            self.program.flags["sampling"] = "pure"
        self.rng = np.random.default_rng(seed)
        self.last_tree = None
        self.last_logp = None
        self.errors = 0
        commands.register(self)

    # -- output --
    def write(self, text: str) -> None:
        if text:
            self.stdout.write(text)
            self.at_line_start = text.endswith("\n")

    def _write_err(self, text: str) -> None:
        self.fresh_line()
        self.stdout.flush()
        self.stderr.write(text)
        self.stderr.flush()

    def fresh_line(self) -> None:
        if not self.at_line_start:
            self.write("\n")

    def message(self, text: str) -> None:
        """A line for the user (warnings, errors, information) on standard error."""
        self._write_err(text + "\n")

    def error(self, text: str) -> None:
        self.errors += 1
        self.message("ERROR: " + text)

    def flush(self) -> None:
        self.stdout.flush()
        self.stderr.flush()

    # -- state --
    def set_seed(self, seed) -> None:
        self.rng = np.random.default_rng(seed)
        eng = self.program.engine
        if eng.rng is not None:   # a running query draws from the new generator
            eng.rng = self.rng

    def consult(self, path) -> None:
        """Load a file; load errors are printed (ERROR: file:line: ...), loading goes
        on; a missing file raises PrologError. The user's files may load files below
        their folders (slpy.logic.sandbox)."""
        self.program.sandbox.allow_file(path)
        try:
            self.program.consult(path)
        except LoadErrors as e:
            for err in sorted(e.errors, key=lambda x: getattr(x, "line", 0) or 0):
                self.error(format_load_error(err))

    def load_files(self, files) -> None:
        for f in files:
            try:
                self.consult(f)
            except PrologError as e:
                self.error(format_error(e))

    def reset_engine(self) -> None:
        """After an interrupted query: no choice points, no trail, plain mode."""
        self.program.engine.reset()

    # -- running queries --
    def _has_alternatives(self) -> bool:
        # the debugger's ports give no answer (a depth-limited call may: tracer.py)
        return any(cp[CP_KIND] not in _NO_ANSWER_CPS and (
            cp[CP_KIND] != CP_PORT or cp[PORT_WAY].answers) for cp in self.program.engine.cps)

    def execute(self, text: str, ask) -> None:
        """Run one query and show its answers; ask() gives the user's action after an
        answer that has alternatives ('next', 'stop', 'tree', 'help' or another key).
        Errors are printed; Halt propagates; Ctrl-C aborts the query."""
        try:
            self._execute(text, ask)
        except (Halt, SystemExit):
            raise
        except KeyboardInterrupt:
            self.reset_engine()
            if self.interactive:   # past the ^C the terminal echoed
                self.write("\n")
            self.message("% Execution Aborted")
        except PrologError as e:
            self.error(format_error(e))
        except LoadErrors as e:
            for err in e.errors:
                self.error(format_load_error(err))
        except RecursionError:
            self.reset_engine()
            self.error("Not enough resources: Python stack (term too deep)")
        except Exception as e:  # a bug: say so in one line, go on
            self.reset_engine()
            if self.debug:
                traceback.print_exc(file=self.stderr)
            self.error(f"Internal error: {type(e).__name__}: {e}")
        finally:
            self.flush()

    def _execute(self, text, ask):
        p = self.program
        eng = p.engine
        goal, varnames = p.parse_query(text)
        while True:
            pure = p.flags.get("sampling") == "pure"
            session = eng.session(PURE if pure else SAMPLE, self.rng)
            session.__enter__()
            gen = eng.solve(goal)
            resample = False
            try:
                while True:
                    try:
                        next(gen)
                    except StopIteration:
                        self.fresh_line()
                        self.write("false.\n")
                        return
                    except SampleFailed:
                        self.fresh_line()
                        self.write("% the sample failed (pure sampling)\nfalse.\n")
                        return
                    stochastic = eng.plog is not None
                    pure = eng.mode == PURE
                    lines = []
                    if stochastic:
                        self.last_tree = build_tree(eng.plog)
                        self.last_logp = eng.logp
                        lines.append(prob_line(eng.logp))
                    residual = residual_goals(eng, Struct("$", tuple(varnames.values()))) \
                        if eng.attrs else ()
                    lines.append(answer_bindings(varnames, p.ops, residual))
                    block = "\n".join(lines)
                    self.fresh_line()
                    self.write(block)
                    more = (stochastic and pure) or self._has_alternatives()
                    if not more:
                        self.write(".\n")
                        return
                    action = self._ask(ask, block, stochastic)
                    if action == "stop":
                        self.write(".\n")
                        return
                    self.write(" ;\n")
                    if stochastic and pure:
                        resample = True
                        break
            finally:
                gen.close()
                session.__exit__(None, None, None)
            if resample:
                goal, varnames = p.parse_query(text)

    def _ask(self, ask, block, stochastic):
        while True:
            self.flush()
            key = ask()
            action = ACTION_KEYS.get(key, key) if len(key) == 1 else key
            if action in ("next", "stop"):
                return action
            if action == "\x1b":
                continue
            if action == "tree":
                if stochastic:
                    self.write("\n" + format_proof(
                        self.last_tree, self.last_logp, self.program.ops) + "\n" + block)
                else:
                    self.write("\n% no stochastic choice in this answer\n" + block)
            elif action == "help":
                self.write("\n" + ACTION_HELP + block)
            else:
                self.write(f"\n% Unknown action: {key!r} (h for help)\n" + block)
