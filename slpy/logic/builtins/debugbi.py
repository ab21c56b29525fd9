"""The debugger's switches (trace/0, spy/1 and call_with_depth_limit/3 are control
constructs: slpy.logic.tracer) and call_with_time_limit/2, as SWI-Prolog has them."""
from __future__ import annotations

import time

from . import det
from ..tracer import Debugger, pred_spec
from ...terms.args import number_arg
from ...terms.term import PrologError, atom


def _debugger(eng):
    if eng.debugger is None:
        eng.debugger = Debugger(eng)
    return eng.debugger


@det("notrace", 0)
def bi_notrace(eng):
    dbg = _debugger(eng)
    dbg.tracing = False
    dbg.update()
    return True


@det("nodebug", 0)
def bi_nodebug(eng):
    """Trace mode off and every spy point removed (SWI-Prolog's debug mode off)."""
    dbg = _debugger(eng)
    dbg.tracing = False
    dbg.spy.clear()
    dbg.update()
    return True


@det("nospy", 1)
def bi_nospy(eng, spec):
    name, arity = pred_spec(spec)
    dbg = _debugger(eng)
    for k in [k for k in dbg.spy if k[0] == name and (arity is None or k[1] == arity)]:
        dbg.spy.discard(k)
        eng.write_err(f"% Spy point removed from {k[0]}/{k[1]}\n")
    dbg.update()
    return True


@det("debugging", 0)
def bi_debugging(eng):
    dbg = _debugger(eng)
    if not dbg.tracing and not dbg.spy:
        eng.write_err("% Debug mode is off\n")
        return True
    eng.write_err("% Trace mode is on\n" if dbg.tracing else "% Debug mode is on\n")
    if dbg.spy:
        eng.write_err("% Spy points (see spy/1) on:\n")
        for name, arity in sorted(dbg.spy):
            eng.write_err(f"%         {name}/{arity}\n")
    return True


@det("call_with_time_limit", 2)
def bi_call_with_time_limit(eng, t, goal):
    """Goal once, as once/1, or the exception time_limit_exceeded when it runs for more
    than T seconds (checked every few thousand inferences)."""
    secs = number_arg(t)
    if secs <= 0:                 # SWI-Prolog: no time at all
        raise PrologError(atom("time_limit_exceeded"))
    deadline = time.monotonic() + float(secs)
    saved = eng.time_limit
    eng.time_limit = deadline if saved is None else min(saved, deadline)
    run = eng.solve(goal)
    try:
        return next(run, None) is not None
    finally:
        run.close()
        eng.time_limit = saved
