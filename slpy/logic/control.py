"""Goals as terms and the control constructs: :func:`goal_frame` (call/1 semantics;
the engine's ``goal_frame`` method), cut, call/N, (;)/2, (->)/2, (*->)/2, \\+/1, findall/3,4,
forall/2, catch/3, guarded calls and the engine's own continuation markers.

A control predicate's ``fn`` is its opcode (kinds.OP_*); ``CONTROL_OPS[op]`` is the
function the engine runs for it: ``fn(eng, args, nxt, cb, pn)`` returns the frame to
run next (None: fail; kinds.P_DONE: a solution). The choice points they push are
described in kinds.py.
"""
from __future__ import annotations

from ..terms.term import Var, Atom, Struct, deref, NIL, TRUE, list_items
from ..terms.walk import copy_term
from ..terms.errors import type_error, instantiation_error
from ..terms.control import CONNECTIVES, is_connective
from ..lang.clauses import convert_body
from .db import STOCH
from .kinds import (CONTROL_PREDS, P_GUARDED_DYN, CP_ALT, CP_CATCH, CP_DISABLED, CP_FINDALL, CP_ITE, CP_KIND, CP_NOT,
                    CP_SOFT, FAIL_FRAME, OP_CALL, OP_CALLN, OP_CATCH, OP_CATCH_EXIT,
                    OP_CALL_CLEANUP, OP_CLEANUP_EXIT, OP_CUT, OP_DISJ, OP_DONE,
                    OP_FA_COLLECT, OP_FINDALL, OP_FINDALL4, OP_FORALL, OP_GCALL, OP_GUARDED,
                    OP_ITE, OP_ITE_THEN, OP_NOT, OP_NOT_SUCC, OP_SEXIT, OP_SOFT,
                    OP_SOFT_THEN, P_CATCH_EXIT, P_DONE, P_FA_COLLECT, P_ITE_THEN,
                    P_NOT_SUCC, P_SOFT_THEN)
from .tabling import guarded_tabled


def goal_frame(eng, goal, nxt, cb, pn):
    """The frame that proves the goal term (call/1 semantics, cut barrier cb)."""
    goal = deref(goal)
    tg = type(goal)
    if tg is Var:
        raise instantiation_error()
    if tg is Atom:
        name, args = goal.name, ()
    elif tg is Struct:
        name, args = goal.name, goal.args
    else:
        raise type_error("callable", goal)
    arity = len(args)
    if arity == 2 and name in CONNECTIVES:
        _check_callable_body(goal)
        # ISO body conversion at call time: a variable goal becomes call(V), so
        # a cut it is bound to later stays local
        goal = convert_body(goal)
        args = goal.args
        if name == ",":
            # conjunction: frames from the right spine, last first
            goals = []
            g = goal
            while type(g) is Struct and g.name == "," and len(g.args) == 2:
                goals.append(g.args[0])
                g = deref(g.args[1])
            f = goal_frame(eng, g, nxt, cb, pn)
            for x in reversed(goals):
                f = goal_frame(eng, x, f, cb, pn)
            return f
    if name == "!" and arity == 0:
        return (CONTROL_PREDS[("!", 0)], (), nxt, cb, pn)
    if name == "true" and arity == 0:
        return nxt
    if (name, arity) in CONTROL_PREDS and name not in ("::", ","):
        return (CONTROL_PREDS[(name, arity)], args, nxt, cb, pn)
    if name == "::" and arity == 2:
        return (P_GUARDED_DYN, args, nxt, cb, pn)
    pred = eng.db.preds.get((name, arity))
    if pred is None:
        pred = eng.db.get(name, arity)
    return (pred, args, nxt, cb, pn)


def _cut_to(eng, h):
    """Remove the choice points from h on (running cleanups among them)."""
    if eng.cleanups:
        eng._drop_cps(h)
    else:
        del eng.cps[h:]


def _cut(eng, args, nxt, cb, pn):
    if eng.cleanups:
        eng._drop_cps(cb)
    else:
        del eng.cps[cb:]
    return nxt


def _sexit(eng, args, nxt, cb, pn):
    return eng._sexit(args[0], nxt)


def _gcall(eng, args, nxt, cb, pn):
    """A compiled guarded call: the usual stochastic call of a prior."""
    pred, gargs, guard = args
    eng.steps += 1
    if pred.kind == STOCH:
        return eng._stoch(pred, gargs, guard, nxt, cb, pn)
    if pred.tabled is not None:
        return guarded_tabled(eng, pred, gargs, guard, nxt, cb, pn)
    # a guard passed to a plain predicate is ignored
    return (pred, gargs, nxt, cb, pn)


def _call(eng, args, nxt, cb, pn):
    return goal_frame(eng, args[0], nxt, len(eng.cps), pn)


def _disj(eng, args, nxt, cb, pn):
    cps = eng.cps
    left = deref(args[0])
    if type(left) is Struct and len(left.args) == 2 and left.name in ("->", "*->"):
        cond, then = left.args
        h = len(cps)
        else_f = goal_frame(eng, args[1], nxt, cb, pn)
        then_f = goal_frame(eng, then, nxt, cb, pn)
        if left.name == "->":
            cps.append([CP_ITE, len(eng.trail), eng.plog, eng.logp, else_f])
            return goal_frame(eng, cond, (P_ITE_THEN, (h,), then_f, cb, pn), h + 1, pn)
        cp = [CP_SOFT, len(eng.trail), eng.plog, eng.logp, else_f]
        cps.append(cp)
        return goal_frame(eng, cond, (P_SOFT_THEN, (cp,), then_f, cb, pn), h + 1, pn)
    cps.append([CP_ALT, len(eng.trail), eng.plog, eng.logp,
                goal_frame(eng, args[1], nxt, cb, pn)])
    return goal_frame(eng, left, nxt, cb, pn)


def _ite_then(eng, args, nxt, cb, pn):
    _cut_to(eng, args[0])
    return nxt


def _soft_then(eng, args, nxt, cb, pn):
    args[0][CP_KIND] = CP_DISABLED
    return nxt


def _ite(eng, args, nxt, cb, pn):
    h = len(eng.cps)
    eng.cps.append([CP_ITE, len(eng.trail), eng.plog, eng.logp, FAIL_FRAME])
    then_f = goal_frame(eng, args[1], nxt, cb, pn)
    return goal_frame(eng, args[0], (P_ITE_THEN, (h,), then_f, cb, pn), h + 1, pn)


def _soft(eng, args, nxt, cb, pn):
    h = len(eng.cps)
    return goal_frame(eng, args[0], goal_frame(eng, args[1], nxt, cb, pn), h, pn)


def _not(eng, args, nxt, cb, pn):
    h = len(eng.cps)
    eng.cps.append([CP_NOT, len(eng.trail), eng.plog, eng.logp, nxt])
    # $not_succ never continues; its next frame leads the debugger to the goal's depth
    return goal_frame(eng, args[0], (P_NOT_SUCC, (h,), nxt, cb, pn), h + 1, pn)


def _not_succ(eng, args, nxt, cb, pn):
    _cut_to(eng, args[0])
    return None


def _guarded(eng, args, nxt, cb, pn):
    """Guard::Goal called as a term, or Module:Goal."""
    left = deref(args[0])
    goal = deref(args[1])
    if type(left) is Atom:  # Module:Goal
        return goal_frame(eng, goal, nxt, len(eng.cps), pn)
    if type(goal) is Var:
        raise instantiation_error()
    if type(goal) is Atom:
        pred, gargs = eng.db.get(goal.name, 0), ()
    elif type(goal) is Struct:
        pred, gargs = eng.db.get(goal.name, len(goal.args)), goal.args
    else:
        raise type_error("callable", goal)
    if pred.kind == STOCH:
        eng.steps += 1
        return eng._stoch(pred, gargs, left, nxt, cb, pn)
    if pred.tabled is not None:
        return guarded_tabled(eng, pred, gargs, left, nxt, cb, pn)
    return goal_frame(eng, goal, nxt, len(eng.cps), pn)


def _findall(eng, args, nxt, cb, pn, tail=NIL):
    check_partial_list(args[2])
    results: list = []
    cps = eng.cps
    cps.append([CP_FINDALL, len(eng.trail), eng.plog, eng.logp, results, args[2], nxt, tail])
    return goal_frame(eng, args[1], (P_FA_COLLECT, (args[0], results), nxt, cb, pn),
                          len(cps), pn)     # nxt: read by the debugger only


def _findall4(eng, args, nxt, cb, pn):
    return _findall(eng, args, nxt, cb, pn, args[3])


def _fa_collect(eng, args, nxt, cb, pn):
    args[1].append(copy_term(args[0]))
    return None


def _forall(eng, args, nxt, cb, pn):
    cond, action = args
    goal = Struct("\\+", (Struct(",", (cond, Struct("\\+", (action,)))),))
    return goal_frame(eng, goal, nxt, len(eng.cps), pn)


def _catch(eng, args, nxt, cb, pn):
    flag = Var()
    h = len(eng.cps)
    eng.cps.append([CP_CATCH, len(eng.trail), eng.plog, eng.logp, args[1], args[2], nxt, cb,
                    flag, pn])
    return goal_frame(eng, args[0], (P_CATCH_EXIT, (flag,), nxt, cb, pn), h + 1, pn)


def _catch_exit(eng, args, nxt, cb, pn):
    flag = args[0]
    flag.ref = TRUE
    eng.trail.append(flag)
    return nxt


def _calln(eng, args, nxt, cb, pn):
    goal = deref(args[0])
    extra = args[1:]
    if type(goal) is Atom:
        goal = Struct(goal.name, tuple(extra))
    elif type(goal) is Struct:
        goal = Struct(goal.name, goal.args + tuple(extra))
    elif type(goal) is Var:
        raise instantiation_error()
    else:
        raise type_error("callable", goal)
    return goal_frame(eng, goal, nxt, len(eng.cps), pn)


def _done(eng, args, nxt, cb, pn):
    return P_DONE


def _call_cleanup(eng, args, nxt, cb, pn):
    return eng._call_cleanup(args, nxt, pn)


def _cleanup_exit(eng, args, nxt, cb, pn):
    return eng._cleanup_exit(args[0], nxt)


CONTROL_OPS = [None] * 27    # 22 on: the debugger's, registered by tracer.py
for _op, _fn in ((OP_CALL, _call), (OP_CUT, _cut), (OP_DISJ, _disj), (OP_ITE, _ite),
                 (OP_SOFT, _soft), (OP_NOT, _not), (OP_GCALL, _gcall), (OP_SEXIT, _sexit),
                 (OP_ITE_THEN, _ite_then), (OP_SOFT_THEN, _soft_then),
                 (OP_NOT_SUCC, _not_succ), (OP_FA_COLLECT, _fa_collect),
                 (OP_CATCH_EXIT, _catch_exit), (OP_DONE, _done), (OP_FINDALL, _findall),
                 (OP_CATCH, _catch), (OP_CALLN, _calln), (OP_FORALL, _forall),
                 (OP_FINDALL4, _findall4), (OP_GUARDED, _guarded),
                 (OP_CALL_CLEANUP, _call_cleanup), (OP_CLEANUP_EXIT, _cleanup_exit)):
    CONTROL_OPS[_op] = _fn
assert None not in CONTROL_OPS[:22]


def check_partial_list(t):
    """ISO: findall/bagof results must be a list or a partial list."""
    _, tail = list_items(t)
    if type(tail) is not Var and tail is not NIL:
        raise type_error("list", deref(t))


def _check_callable_body(goal):
    stack = [goal]
    while stack:
        g = deref(stack.pop())
        if type(g) is Var:
            continue
        if is_connective(g):
            stack.extend(g.args)
            continue
        if type(g) is not Atom and type(g) is not Struct:
            raise type_error("callable", goal)

