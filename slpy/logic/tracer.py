"""The debugger: a port trace (trace/0, spy/1) and call_with_depth_limit/3.

The plain loop (Engine._run) knows nothing of it: it costs nothing until the
debugger is on. trace/0, spy/1 and call_with_depth_limit/3 raise kinds.TraceFrom,
and from then on (and at the start of every run while it stays on) the engine runs
``_run_traced``: one goal at a time, each call wrapped in ports as in Byrd's box
model, printed on user_error as SWI-Prolog prints them with ``leash(-all)``:

    Call: (1) app([1], [2], _G1)     the goal is called
    Exit: (1) app([1], [2], [1, 2])  it succeeded ($port_exit, after its body)
    Redo: (1) ...                    backtracking goes back into it (a CP_PORT pushed
                                     at a nondeterministic exit)
    Fail: (1) ...                    it has no more answers (a CP_PORT under its
                                     choice points, popped at a deterministic exit)

A goal's depth is one more than that of the goal whose body it is in, found by
walking its continuation to the nearest ``$port_exit`` (or ``$depth_exit``) frame.
Depth is counted from 1 at the query (SWI counts the top level's own frames too: its
first goal is at depth 10 or 11).
"""
from __future__ import annotations

from ..terms.errors import domain_error, existence_error, instantiation_error, type_error
from ..terms.term import Atom, PrologError, Struct, Var, atom, deref
from ..terms.writer import term_to_text
from .db import CONTROL, DET, NONDET, STOCH, SBUILTIN, USER
from .kinds import (CP_CLAUSES, CP_GEN, CP_PORT, CL_NEXT, FR_NEXT, OP_DEPTH_CALL,
                    OP_DEPTH_EXIT, OP_PORT_EXIT, OP_SPY, OP_TRACE, P_DEPTH_EXIT, P_DONE,
                    P_PORT_EXIT, LimitExceeded, TraceFrom)
from .control import CONTROL_OPS
from .coroutining import StartCoroutining
from .plugins import LAST
from ..terms.unify import undo_to

__all__ = ["Debugger", "Tracing", "goal_of", "port_exit", "depth_exit", "op_trace",
           "op_spy", "op_depth_call"]

_EXCEEDED = atom("depth_limit_exceeded")
_HIDDEN = frozenset(("notrace", "nodebug", "nospy", "debugging"))  # the debugger's own


class Debugger:
    """What the debugger does: trace every goal, show the spied predicates, count
    depth for call_with_depth_limit/3 (this query)."""

    def __init__(self, eng):
        self.eng = eng
        self.tracing = False
        self.spy: set = set()      # (name, arity) of the spied predicates
        self.depth = False         # a depth-limited call ran in this query
        self.active = False
        self.redo = None           # (depth, text) of a Redo port to print
        self.current = None        # the frame being run (for StartCoroutining)

    def update(self):
        self.active = bool(self.tracing or self.spy or self.depth)

    def shows(self, pred) -> bool:
        return self.tracing or (pred.name, pred.arity) in self.spy

    def text(self, pred, args) -> str:
        return term_to_text(goal_of(pred, args), quoted=True, spacing=True,
                            ops=self.eng.ops, priority=999, max_depth=10)

    def port(self, port, depth, text):
        self.eng.write_err(f"   {port}: ({depth}) {text}\n")


def goal_of(pred, args):
    """The goal a frame calls, as the program wrote it (compiled arithmetic keeps a
    template of its goal: slpy.logic.compile)."""
    tmpl = pred.trace_goal
    if tmpl is not None:
        goal, params = tmpl
        return _subst(goal, dict(zip(params, args)))
    return Struct(pred.name, tuple(args)) if args else Atom(pred.name)


def _subst(t, m):
    t = deref(t)
    if type(t) is Var:
        return m.get(t, t)
    if type(t) is Struct:
        return Struct(t.name, tuple(_subst(a, m) for a in t.args))
    return t


# -- the ports' choice points --------------------------------------------------------------

class FailPort:
    """Under a traced goal's choice points: backtracking past them all prints Fail
    (with the goal as it was called: its text at the Call port)."""
    answers = False

    def __init__(self, depth, pred, text):
        self.depth, self.pred, self.text = depth, pred, text

    def resume(self, eng, cp):
        dbg = eng.debugger
        if dbg.shows(self.pred):
            dbg.redo = None
            dbg.port("Fail", self.depth, self.text)
        return None


class RedoPort(FailPort):
    """Above a goal that exited with choice points: backtracking into it prints Redo
    when one of its choice points resumes (only the innermost such goal's, as SWI)."""

    def resume(self, eng, cp):
        if eng.debugger.shows(self.pred):
            eng.debugger.redo = (self.depth, self.text)
        return None


class DepthScope:
    """One call_with_depth_limit/3: the limit, the depth of the call, the deepest
    level reached; as a choice point under the goal, it gives Result =
    depth_limit_exceeded when the goal has failed after passing the limit."""

    def __init__(self, limit, base, extra, result, nxt):
        self.limit, self.base, self.result, self.nxt = limit, base, result, nxt
        self.extra = extra       # 1: the goal is a control construct (a clause in SWI)
        self.reached = 1         # SWI-Prolog: the goal's own call is level 1 (true: 1)
        self.exceeded = False

    @property
    def answers(self):
        return self.exceeded

    def resume(self, eng, cp):
        if self.exceeded and eng.unify(self.result, _EXCEEDED):
            return self.nxt
        return None


def _resource(what):
    return Struct("error", (Struct("resource_error", (atom(what),)), Var()))


def _push(eng, way):
    cp = [CP_PORT, len(eng.trail), eng.plog, eng.logp, way]
    eng.cps.append(cp)
    return cp


# -- control operations (CONTROL_OPS) ------------------------------------------------------

def port_exit(eng, args, nxt, cb, pn):
    """After a traced goal's body: Exit; pop its Fail port if it left no choice
    point, else push its Redo port."""
    pred, pargs, depth, fail_cp, show, _ = args
    dbg = eng.debugger
    if show and dbg.shows(pred):
        dbg.port("Exit", depth, dbg.text(pred, pargs))
    if fail_cp is not None:
        cps = eng.cps
        if cps and cps[-1] is fail_cp:
            cps.pop()
        else:
            _push(eng, RedoPort(depth, pred, fail_cp[4].text))
    return nxt


def depth_exit(eng, args, nxt, cb, pn):
    """The goal succeeded: Result is the deepest level reached (a call refused for
    passing the limit counts, as in SWI-Prolog: it can be Limit + 1). As SWI, the
    count starts again for the next answer, and only a limit passed after this
    answer makes the goal's failure give depth_limit_exceeded."""
    scope, result = args
    reached = scope.reached
    scope.reached, scope.exceeded = 1, False
    return nxt if eng.unify(result, reached) else None


def _debugger(eng):
    if eng.debugger is None:
        eng.debugger = Debugger(eng)
    return eng.debugger


def op_trace(eng, args, nxt, cb, pn):
    dbg = _debugger(eng)
    dbg.tracing = True
    dbg.update()
    raise TraceFrom(nxt)


def pred_spec(t):
    """(name, arity or None) of a predicate spec: Name or Name/Arity."""
    t = deref(t)
    if type(t) is Var:
        raise instantiation_error()
    if type(t) is Atom:
        return t.name, None
    if type(t) is Struct and t.name == "/" and len(t.args) == 2:
        n, a = deref(t.args[0]), deref(t.args[1])
        if type(n) is Var or type(a) is Var:
            raise instantiation_error()
        if type(n) is Atom and type(a) is int:
            return n.name, a
    raise type_error("predicate_indicator", t)


def op_spy(eng, args, nxt, cb, pn):
    name, arity = pred_spec(args[0])
    dbg = _debugger(eng)
    keys = [(n, a) for (n, a), p in eng.db.preds.items() if n == name and (
        arity is None or a == arity) and (p.clauses or p.defined or p.dynamic)]
    if not keys:
        raise existence_error("procedure", atom(name) if arity is None
                              else Struct("/", (atom(name), arity)))
    for k in keys:
        dbg.spy.add(k)
        eng.write_err(f"% Spy point on {k[0]}/{k[1]}\n")
    dbg.update()
    raise TraceFrom(nxt)


def op_depth_call(eng, args, nxt, cb, pn):
    """call_with_depth_limit(Goal, Limit, Result)."""
    goal, limit, result = args
    lim = deref(limit)
    if type(lim) is Var:
        raise instantiation_error()
    if type(lim) is not int:
        raise type_error("integer", lim)
    if lim < 0:
        raise domain_error("not_less_than_zero", lim)
    depth, _ = eng._frame_depth(nxt)
    g = deref(goal)
    # SWI-Prolog runs a control construct as a clause of its own: one level more
    extra = int(type(g) is Struct and g.name in (",", ";", "->", "*->", "\\+"))
    scope = DepthScope(lim, depth - 1, extra, result, nxt)
    _push(eng, scope)
    if lim == 0:                  # even the goal's own call is too deep
        scope.exceeded = True
        return None
    dbg = _debugger(eng)
    dbg.depth = True
    dbg.update()
    marker = (P_DEPTH_EXIT, (scope, result), nxt, cb, pn)
    raise TraceFrom(eng.goal_frame(goal, marker, len(eng.cps), pn))


for _op, _fn in ((OP_PORT_EXIT, port_exit), (OP_DEPTH_EXIT, depth_exit),
                 (OP_TRACE, op_trace), (OP_SPY, op_spy), (OP_DEPTH_CALL, op_depth_call)):
    CONTROL_OPS[_op] = _fn


# -- the tracing loop (an Engine part) ------------------------------------------------------

class Tracing:
    """The engine's tracing loop: _run's work, one goal at a time, with ports."""

    def _frame_depth(self, nxt):
        """(depth of a goal whose continuation is nxt, the depth-limited call it is
        in or None)."""
        g = nxt
        while g is not None:
            p = g[0]
            if p is P_PORT_EXIT:
                a = g[1]
                return a[2] + 1, a[5] if len(a) > 5 else None
            if p is P_DEPTH_EXIT:
                scope = g[1][0]
                return scope.base + 1, scope
            g = g[FR_NEXT]
        return 1, None

    def _run_traced(self, f, base):
        dbg = self.debugger
        while True:
            try:
                while True:
                    if not dbg.active:
                        return self._run(f, base)
                    if f is None:
                        f = self._backtrack(base)
                        if f is None:
                            return None
                        if dbg.redo is not None:
                            dbg.port("Redo", *dbg.redo)
                            dbg.redo = None
                        continue
                    pred = f[0]
                    if pred.kind != CONTROL and not pred.name.startswith("$aux") and \
                            pred.name not in _HIDDEN:
                        f = self._call_port(dbg, f)
                    else:
                        f = self._step(f)
                    if f is P_DONE:
                        return True
            except TraceFrom as t:
                f = t.frame
            except StartCoroutining:
                f = dbg.current[FR_NEXT]
            except PrologError as e:
                f = self._handle_error(e, base)
            except RecursionError:
                f = self._handle_error(PrologError(_resource("python_stack")), base)
            except MemoryError:
                f = self._handle_error(LimitExceeded(_resource("memory")), base)

    def _call_port(self, dbg, f):
        """Call a goal through its ports; the frame to run next."""
        pred, args, nxt, cb, pn = f
        depth, scope = self._frame_depth(nxt)
        if scope is not None:
            level = depth - scope.base + scope.extra
            if level > scope.reached:
                scope.reached = level
            if level > scope.limit:
                scope.exceeded = True
                return None
        show = dbg.shows(pred) and pred.name[0] != "$"   # library helpers count, unseen
        if show:
            text = dbg.text(pred, args)
            dbg.port("Call", depth, text)
        if pred.kind == DET:
            r = self._step(f)
            if show:
                dbg.port("Exit" if r is not None else "Fail", depth,
                         dbg.text(pred, args) if r is not None else text)
            return r
        fail_cp = _push(self, FailPort(depth, pred, text)) if show else None
        marker = (P_PORT_EXIT, (pred, args, depth, fail_cp, show, scope), nxt, cb, pn)
        return self._step((pred, args, marker, cb, pn))

    def _step(self, f):
        """Run one frame as _run does; the next frame (None: backtrack)."""
        self.debugger.current = f
        pred, args, nxt, cb, pn = f
        kind = pred.kind
        if kind != CONTROL:
            self.steps += 1
            if self.steps >= self.limit_at:
                self._check_limits()
                self._next_check()
        if self.coroutining and kind in (USER, DET, CONTROL):
            woken = self._wake(f)
            if woken is not f:
                return woken
        if kind == USER:
            return self._clauses(pred, args, nxt, pn, f)
        if kind == DET:
            return nxt if pred.fn(self, *args) else None
        if kind == CONTROL:
            return CONTROL_OPS[pred.fn](self, args, nxt, cb, pn)
        if kind == NONDET:
            trail = self.trail
            mark = len(trail)
            gen = pred.fn(self, *args)
            if type(gen) is bool:
                return nxt if gen else None
            try:
                if next(gen) is LAST:
                    return nxt
            except StopIteration:
                undo_to(trail, mark)
                return None
            self.cps.append([CP_GEN, mark, self.plog, self.logp, gen, nxt])
            return nxt
        if kind == STOCH:
            return self._stoch(pred, args, None, nxt, cb, pn)
        if kind == SBUILTIN:
            return self._sbuiltin(pred, args, nxt, pn)
        raise AssertionError(f"unknown predicate kind {kind}")

    def _clauses(self, pred, args, nxt, pn, f):
        if args:
            cl = pred.select(deref(args[0]))
        else:
            cl = pred.clauses
        n = len(cl)
        if n == 0:
            if not pred.defined and not pred.dynamic and self._unknown(pred):
                return f          # autoloaded: make the call again
            return None
        cps, trail = self.cps, self.trail
        h = len(cps)
        mark = len(trail)
        cp = [CP_CLAUSES, mark, self.plog, self.logp, cl, 1, n, f]
        cps.append(cp)
        for i in range(n):
            r = cl[i].fn(args, nxt, h, pn, trail)
            if r is not None:
                if i + 1 < n:
                    cp[CL_NEXT] = i + 1
                else:
                    del cps[h]
                return r
            undo_to(trail, mark)
        del cps[h]
        return None
