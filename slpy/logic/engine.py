"""The resolution engine: an iterative machine over frames and choice points.

A frame is a tuple ``(pred, args, next, cut_barrier, proof_parent)``; the continuation
is the chain of ``next`` frames, so proving a deep non-tail-recursive predicate grows a
heap-allocated chain, never Python's stack. Choice points are lists on ``self.cps``,
read through the named indices of kinds.py (which has a table of every layout);
bindings are recorded on ``self.trail`` and undone by backtracking. Stochastic
predicates (labelled clauses, stochastic builtins) are choice points that draw a
candidate with probability proportional to its label, record a proof node, and on
backtracking draw again among the untried candidates.

The Engine class is in parts: resolution, backtracking and errors here, goals as
terms and the control constructs in control.py, stochastic choice points in
sampling.py, the replay of a recorded proof (MCMC proposals) in replay.py, the
sampling state of one run in session.py, cleanup handlers and goals run inside a step
in cleanup.py, suspended goals in coroutining.py; kinds.py has the choice-point
layouts, opcodes and modes they share.
"""
from __future__ import annotations

import gc
import os
import sys
import time

from ..terms.term import Var, Struct, PrologError, atom, mklist
from ..terms.unify import unify, undo_to
from ..terms.walk import copy_term
from ..terms.errors import existence_error
from .db import USER, DET, NONDET, CONTROL, STOCH, SBUILTIN
from .kinds import (CP_ALT, CP_BOTTOM, CP_CATCH, CP_CHOICE, CP_CLAUSES, CP_FENCE,
                    CP_FINDALL, CP_GEN, CP_ITE, CP_NOT, CP_PURE, CP_SOFT, CP_CLEANUP,
                    CP_KIND, CP_MARK, CP_PLOG, CP_LOGP, CL_NEXT, CL_COUNT, CL_CLAUSES,
                    CL_FRAME, GEN_ITER, GEN_NEXT, ALT_FRAME, FA_RESULTS, FA_TARGET,
                    FA_NEXT, FA_TAIL, CATCH_CATCHER, CATCH_FLAG, CATCH_RECOVERY,
                    CATCH_NEXT, CATCH_PN, CH_WAY, FR_NEXT, PLAIN, P_DONE, ROOT,
                    CP_PORT, PORT_WAY, LimitExceeded, ReplayReject, SampleFailed, TraceFrom)
from .plugins import LAST
from .sampling import Sampling
from .replay import Replay
from .session import Session, Solution
from .cleanup import Cleanup
from .coroutining import Coroutining, StartCoroutining
from .control import CONTROL_OPS, goal_frame
from .tracer import Tracing
from .arith_checks import DEADLINE


class Engine(Sampling, Cleanup, Coroutining, Tracing):
    """Runs goals against a Database. One Engine per Program."""

    def __init__(self, db, flags, ops, out, max_steps=None, timeout=None,
                 max_term_size=10_000_000, max_memory=None):
        # Resolution allocates millions of small objects that are mostly acyclic;
        # Python's default gen-0 threshold (700) makes the cyclic GC dominate run time.
        g0, g1, g2 = gc.get_threshold()
        if g0 < 100_000:
            gc.set_threshold(100_000, max(g1, 20), max(g2, 50))
        self.db = db
        self.flags = flags
        self.ops = ops
        self.out = out
        self.trail: list = []
        self.cps: list = []
        self.max_steps = max_steps
        self.timeout = timeout
        self.max_term_size = max_term_size
        self.max_memory = max_memory
        self.steps = 0
        self.redos = 0            # choice points of builtins resumed (between/3, repeat)
        self.deadline = None
        self.step_limit = None
        self.limit_hit = False    # a limit has been reported once in this query
        self.mode = PLAIN
        self.rng = None
        self.plog = None
        self.logp = 0.0
        self.record_answers = False
        self.ground_memo: dict = {}
        self.sb_target = None
        self.globals: dict = {}
        self.halted = None
        self.replay_run = None    # the replay.Replay running, if any
        self.all_matched = True   # did every clause match the last _candidates call?
        self.min_prob = 0.0
        self.program = None       # the Program this engine runs (set by the Program)
        # The one place plugins keep state for this program: plugin name -> the
        # plugin's own object (slpy.logic.plugins; e.g. "data": the row sets)
        self.plugin_state: dict[str, object] = {}
        self.autoload = None  # the Program's library loader (undefined predicates)
        self.tables = None    # tabling.Tables, made on the first tabled call
        self.attrs: dict = {}  # variable -> goals suspended on it (coroutining.py)
        self.coroutining = False
        self.started_inside = False   # call_capture: a suspension began in the goal
        self.limit_at = 0
        self.streams = None     # streams.Streams: open files, current input/output
        self.debugger = None    # tracer.Debugger, made by trace/0, spy/1 or depth limits
        self.time_limit = None  # call_with_time_limit/2: its deadline (time.monotonic)
        self.read_line = None   # where user_input's lines come from (None: stdin)

    # -- the builtin interface ---------------------------------------------------
    def unify(self, a, b) -> bool:
        return unify(a, b, self.trail)

    def try_unify(self, a, b) -> bool:
        mark = len(self.trail)
        if unify(a, b, self.trail):
            return True
        undo_to(self.trail, mark)
        return False

    def write(self, text: str) -> None:
        self.out(text)

    def write_err(self, text: str) -> None:
        sys.stderr.write(text)

    # the frame that proves a goal term (call/1 semantics): slpy.logic.control
    goal_frame = goal_frame

    # -- sessions ------------------------------------------------------------------
    def session(self, mode=PLAIN, rng=None, *, min_prob=0.0, record=False, replay=None):
        """A context manager: the sampling fields (mode, generator, proof log, log
        probability, min_prob, recording, replay run) set for one run and restored
        after it (slpy.logic.session)."""
        return Session(self, mode, rng, min_prob, record, replay)

    def solutions(self, goal, mode=PLAIN, rng=None, *, min_prob=0.0, record=False):
        """Yield a session.Solution (log probability, proof log) per answer of goal,
        proved in a session of its own; bindings live in goal's variables."""
        with self.session(mode, rng, min_prob=min_prob, record=record):
            for _ in self.solve(goal):
                yield Solution(self.logp, self.plog)

    def replay(self, goal, tree, rng, forced: dict | None = None, cut: tuple | None = None,
               strict: tuple | None = None):
        """Re-prove `tree`, a recorded proof of goal, with the choices at the paths of
        `forced` set, those at and below the path `cut` drawn afresh, the others kept
        where the new proof still has them: a slpy.logic.replay.Replayed;
        ReplayReject when the move cannot be made."""
        return Replay(forced, cut, strict).run(self, goal, tree, rng)

    def reset(self):
        """After an interrupted query: no choice points, no trail, no session."""
        del self.cps[:]
        del self.trail[:]
        self.mode, self.rng, self.plog, self.logp = PLAIN, None, None, 0.0
        self.min_prob, self.record_answers, self.replay_run = 0.0, False, None

    # -- running -------------------------------------------------------------------
    def solve(self, goal, depth_limit=None):
        """Yield once per solution of goal (bindings live in the goal's variables)."""
        cps = self.cps
        base = len(cps)
        mark = len(self.trail)
        if base == 0:
            self.start_limits()
        cps.append([CP_BOTTOM, mark, self.plog, self.logp])
        f = self.goal_frame(goal, (P_DONE, (), None, base + 1, ROOT), base + 1, ROOT)
        try:
            while True:
                if self._run(f, base) is None:
                    return
                yield True
                f = None  # ask for the next solution: backtrack
        except (Exception, KeyboardInterrupt):
            undo_to(self.trail, mark)
            raise
        finally:
            if self.cleanups:
                self._drop_cps(base, quiet=True)
            del cps[base:]
            if base == 0:
                # a finished top-level run keeps its bindings but not its trail
                del self.trail[mark:]
                DEADLINE[0] = None

    def start_limits(self):
        """Limits count from the start of each top-level query."""
        self.step_limit = None if self.max_steps is None else self.steps + self.max_steps
        self.deadline = None if self.timeout is None else time.monotonic() + self.timeout
        self.limit_hit = False
        self.cleanups = 0
        if self.tables is not None:
            self.tables.reset()
        self.attrs = {}
        self.coroutining = False
        DEADLINE[0] = self.deadline   # long integer arithmetic checks it too
        if self.debugger is not None:
            self.debugger.depth = False
            self.debugger.update()

    def _check_limits(self):
        """A limit passed is a resource error that catch/3 can catch, once: if the
        query is still past a limit at the next check, it ends (LimitExceeded, not
        catchable), so a runaway query always ends."""
        if self.time_limit is not None and time.monotonic() > self.time_limit:
            raise PrologError(atom("time_limit_exceeded"))
        if self.step_limit is not None and self.steps > self.step_limit:
            what, msg = "inferences", f"more than {self.max_steps} inferences"
        elif self.deadline is not None and time.monotonic() > self.deadline:
            what, msg = "time", f"time limit of {self.timeout:g} s exceeded"
        elif len(self.trail) > self.max_term_size or len(self.cps) > self.max_term_size:
            what, msg = "memory", "memory limit (term size) exceeded"
        elif self.max_memory is not None and _rss() > self.max_memory:
            what, msg = "memory", f"more than {self.max_memory >> 20} MiB in use"
        else:
            return
        if self.limit_hit:
            raise LimitExceeded(_resource(what), f"Resource error: {msg}")
        self.limit_hit = True
        raise PrologError(_resource(what), f"Resource error: {msg}")

    def _next_check(self):
        """The step count of the next limit check (every 4096 steps), which _run
        keeps in check_at; while goals may be suspended (coroutining) check_at is
        the current step instead, so that _run looks for woken goals at every step."""
        nxt = self.steps + 4096
        if self.step_limit is not None and self.step_limit + 1 < nxt:
            nxt = self.step_limit + 1
        self.limit_at = nxt
        return self.steps if self.coroutining else nxt

    def _run(self, f, base):
        """Run from frame f until a solution (returns the '$done' frame... None when the
        query has no more solutions)."""
        if self.debugger is not None and self.debugger.active:
            return self._run_traced(f, base)      # tracer.py: not on this path
        trail = self.trail
        cps = self.cps
        steps = self.steps
        check_at = self._next_check()
        while True:
            try:
                while True:
                    if f is None:
                        f = self._backtrack(base)
                        if f is None:
                            self.steps = steps
                            return None
                        continue
                    pred, args, nxt, cb, pn = f
                    kind = pred.kind
                    if kind == USER:
                        steps += 1
                        if steps >= check_at:
                            self.steps = steps
                            if steps >= self.limit_at:
                                self._check_limits()
                                check_at = self._next_check()
                            if self.coroutining:
                                check_at = steps
                                woken = self._wake(f)
                                if woken is not f:
                                    f = woken
                                    continue
                        cl = pred.clauses
                        if args and len(cl) > 1:   # first-argument indexing
                            a0 = args[0]
                            while type(a0) is Var:
                                r = a0.ref
                                if r is None:
                                    break
                                a0 = r
                            cl = pred.select(a0)
                        n = len(cl)
                        if n == 1:
                            f = cl[0].fn(args, nxt, len(cps), pn, trail)
                            continue
                        if n == 0:
                            if not pred.defined and not pred.dynamic:
                                self.steps = steps
                                if self._unknown(pred):
                                    continue      # autoloaded: make the call again
                            f = None
                            continue
                        h = len(cps)
                        mark = len(trail)
                        cp = [CP_CLAUSES, mark, self.plog, self.logp, cl, 1, n, f]
                        cps.append(cp)
                        i = 0
                        while True:
                            r = cl[i].fn(args, nxt, h, pn, trail)
                            i += 1
                            if r is not None:
                                if i < n:
                                    cp[CL_NEXT] = i
                                else:
                                    del cps[h]
                                f = r
                                break
                            undo_to(trail, mark)
                            if i == n:
                                del cps[h]
                                f = None
                                break
                        continue
                    if kind == DET:
                        steps += 1
                        if steps >= check_at and self.coroutining:
                            woken = self._wake(f)
                            if woken is not f:
                                f = woken
                                continue
                        if pred.fn(self, *args):
                            f = nxt
                        else:
                            f = None
                        continue
                    if kind == CONTROL:
                        if steps >= check_at and self.coroutining:
                            woken = self._wake(f)
                            if woken is not f:
                                f = woken
                                continue
                        f = CONTROL_OPS[pred.fn](self, args, nxt, cb, pn)
                        if f is P_DONE:
                            self.steps = steps
                            return True
                        continue
                    steps += 1
                    if kind == NONDET:
                        mark = len(trail)
                        gen = pred.fn(self, *args)
                        if type(gen) is bool:  # a deterministic mode of the builtin
                            f = nxt if gen else None
                            continue
                        try:
                            if next(gen) is LAST:   # its last answer: no choice point
                                f = nxt
                                continue
                        except StopIteration:
                            undo_to(trail, mark)
                            f = None
                            continue
                        cps.append([CP_GEN, mark, self.plog, self.logp, gen, nxt])
                        f = nxt
                        continue
                    if kind == STOCH:
                        f = self._stoch(pred, args, None, nxt, cb, pn)
                        continue
                    if kind == SBUILTIN:
                        f = self._sbuiltin(pred, args, nxt, pn)
                        continue
                    raise AssertionError(f"unknown predicate kind {kind}")
            except TraceFrom as t:
                self.steps = steps
                return self._run_traced(t.frame, base)
            except StartCoroutining:
                # a builtin suspended the query's first goal (its work is done): look
                # for woken goals at every step from now on
                f = f[FR_NEXT]
                check_at = steps
            except PrologError as e:
                self.steps = steps
                f = self._handle_error(e, base)
                steps = self.steps
            except RecursionError:
                self.steps = steps
                f = self._handle_error(PrologError(_resource("python_stack")), base)
            except MemoryError:
                self.steps = steps
                f = self._handle_error(LimitExceeded(_resource("memory")), base)

    def _unknown(self, pred) -> bool:
        """An undefined predicate: True when a library defining it was loaded, else
        what the `unknown` flag says (error, or a warning, or silent failure)."""
        if self.autoload is not None and self.autoload(pred):
            return True
        flag = self.flags.get("unknown", "error")
        if flag == "fail":
            return False
        if flag == "warning":
            self.write_err(f"Warning: Unknown procedure: {pred.indicator_text}\n")
            return False
        raise existence_error("procedure", Struct("/", (atom(pred.name), pred.arity)))

    # -- backtracking ----------------------------------------------------------------
    def _backtrack(self, base):
        """Resume the most recent choice point; the frame to run, or None when none is
        left above base."""
        cps = self.cps
        trail = self.trail
        while True:
            cp = cps[-1]
            kind = cp[CP_KIND]
            mark = cp[CP_MARK]
            undo_to(trail, mark)
            self.plog = cp[CP_PLOG]
            self.logp = cp[CP_LOGP]
            if kind == CP_CLAUSES:
                cl = cp[CL_CLAUSES]
                i = cp[CL_NEXT]
                n = cp[CL_COUNT]
                pred, args, nxt, _, pn = cp[CL_FRAME]
                h = len(cps) - 1
                while i < n:
                    c = cl[i]
                    i += 1
                    if i == n:
                        cps.pop()
                    r = c.fn(args, nxt, h, pn, trail)
                    if r is not None:
                        cp[CL_NEXT] = i
                        return r
                    undo_to(trail, mark)
                continue
            if kind == CP_GEN:
                self.redos += 1
                if not self.redos & 4095:   # between(1, inf, X), fail: no calls, only redos
                    self._check_limits()
                try:
                    if next(cp[GEN_ITER]) is LAST:
                        cps.pop()
                    return cp[GEN_NEXT]
                except StopIteration:
                    undo_to(trail, mark)
                    cps.pop()
                    continue
            if kind == CP_BOTTOM:
                if len(cps) - 1 == base:
                    return None
                cps.pop()
                continue
            cps.pop()
            if kind == CP_CHOICE:
                f = cp[CH_WAY].resume(self, cp)
                if f is not None:
                    return f
                continue
            if kind == CP_ALT or kind == CP_ITE or kind == CP_SOFT or kind == CP_NOT:
                return cp[ALT_FRAME]
            if kind == CP_FINDALL:
                if unify(cp[FA_TARGET], mklist(cp[FA_RESULTS], cp[FA_TAIL]), trail):
                    return cp[FA_NEXT]
                continue
            if kind == CP_FENCE:
                raise ReplayReject()
            if kind == CP_PURE:
                raise SampleFailed()
            if kind == CP_CLEANUP:
                self._fire_cleanup(cp)
            elif kind == CP_PORT:
                f = cp[PORT_WAY].resume(self, cp)
                if f is not None:
                    return f
            # CP_CATCH, CP_DISABLED: nothing to resume

    # -- errors ------------------------------------------------------------------------
    def _handle_error(self, e, base):
        ball = copy_term(e.term)
        cps = self.cps
        trail = self.trail
        catchable = not isinstance(e, LimitExceeded)
        while len(cps) > base + 1:
            cp = cps.pop()
            kind = cp[CP_KIND]
            if kind == CP_CLEANUP:
                undo_to(trail, cp[CP_MARK])
                self._fire_cleanup(cp, quiet=True)
            if kind == CP_CATCH and catchable and cp[CATCH_FLAG].ref is None:
                undo_to(trail, cp[CP_MARK])
                self.plog = cp[CP_PLOG]
                self.logp = cp[CP_LOGP]
                mark = len(trail)
                if unify(cp[CATCH_CATCHER], ball, trail):
                    return self.goal_frame(cp[CATCH_RECOVERY], cp[CATCH_NEXT], len(cps),
                                           cp[CATCH_PN])
                undo_to(trail, mark)
        undo_to(trail, cps[base][CP_MARK])
        if e.term is not ball and not isinstance(e, LimitExceeded):
            raise PrologError(ball, e.args[0] if e.args else None) from None
        raise e


_PAGE = os.sysconf("SC_PAGE_SIZE") if hasattr(os, "sysconf") else 4096


def _rss() -> int:
    """Resident memory of this process in bytes (0 where /proc is not available)."""
    try:
        with open("/proc/self/statm") as f:
            return int(f.read().split()[1]) * _PAGE
    except OSError:
        return 0


def _resource(what):
    return Struct("error", (Struct("resource_error", (atom(what),)), Var()))
