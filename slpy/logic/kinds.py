"""What the engine's frames and choice points are made of: choice-point kinds, control
opcodes, sampling modes, the control predicates and the engine's exceptions (shared by
engine.py and its sampling and replay parts)."""
from __future__ import annotations

from ..errors import PicklableError
from ..terms.term import PrologError
from .db import DET, CONTROL, Pred
from .proof import SNode

# choice point kinds
(CP_BOTTOM, CP_CLAUSES, CP_GEN, CP_ALT, CP_ITE, CP_SOFT, CP_NOT, CP_CATCH, CP_FINDALL,
 CP_STOCH, CP_FENCE, CP_PURE, CP_ENUM, CP_DISABLED, CP_SB, CP_ENUMB, CP_SBU,
 CP_CLEANUP) = range(18)

# control opcodes
(OP_CALL, OP_CUT, OP_DISJ, OP_ITE, OP_SOFT, OP_NOT, OP_GCALL, OP_SEXIT, OP_ITE_THEN,
 OP_SOFT_THEN, OP_NOT_SUCC, OP_FA_COLLECT, OP_CATCH_EXIT, OP_DONE, OP_FINDALL, OP_CATCH,
 OP_CALLN, OP_FORALL, OP_FINDALL4, OP_GUARDED, OP_CALL_CLEANUP, OP_CLEANUP_EXIT) = range(22)

# sampling modes
SAMPLE, PURE, ENUM, REPLAY, PLAIN = range(5)


class Halt(PicklableError):
    def __init__(self, code=0):
        self.code = code


class LimitExceeded(PrologError):
    """A resource limit (steps, time, size): not catchable by catch/3, so a runaway
    query always ends."""


class ReplayReject(Exception):
    """A regrown proof could not keep the recorded choices outside the cut."""


class SampleFailed(Exception):
    """Under pure SLP sampling, the sample failed."""


ROOT = SNode(None, (), None, None)
ROOT.fresh = False
ROOT.path = ()


def _control(name, arity, op):
    p = Pred(name, arity)
    p.kind = CONTROL
    p.fn = op
    p.defined = True
    p.builtin = True
    return p


CONTROL_PREDS = {
    ("call", 1): _control("call", 1, OP_CALL),
    ("!", 0): _control("!", 0, OP_CUT),
    (";", 2): _control(";", 2, OP_DISJ),
    ("|", 2): _control(";", 2, OP_DISJ),
    ("->", 2): _control("->", 2, OP_ITE),
    ("*->", 2): _control("*->", 2, OP_SOFT),
    ("\\+", 1): _control("\\+", 1, OP_NOT),
    ("::", 2): _control("$gcall", 3, OP_GCALL),       # compiled guarded call
    (":", 2): _control(":", 2, OP_GUARDED),           # dynamic guarded/qualified call
    (",", 2): _control(",", 2, OP_CALL),              # only reached through call/1
    ("findall", 3): _control("findall", 3, OP_FINDALL),
    ("findall", 4): _control("findall", 4, OP_FINDALL4),
    ("forall", 2): _control("forall", 2, OP_FORALL),
    ("catch", 3): _control("catch", 3, OP_CATCH),
    ("not", 1): _control("not", 1, OP_NOT),
    ("$call_cleanup", 2): _control("$call_cleanup", 2, OP_CALL_CLEANUP),
}
for _n in range(2, 9):
    CONTROL_PREDS[("call", _n)] = _control("call", _n, OP_CALLN)
P_SEXIT = _control("$sexit", 1, OP_SEXIT)
P_ITE_THEN = _control("$ite_then", 1, OP_ITE_THEN)
P_SOFT_THEN = _control("$soft_then", 1, OP_SOFT_THEN)
P_NOT_SUCC = _control("$not_succ", 1, OP_NOT_SUCC)
P_FA_COLLECT = _control("$fa_collect", 2, OP_FA_COLLECT)
P_CATCH_EXIT = _control("$catch_exit", 1, OP_CATCH_EXIT)
P_DONE = _control("$done", 0, OP_DONE)
P_CLEANUP_EXIT = _control("$cleanup_exit", 1, OP_CLEANUP_EXIT)
P_GUARDED_DYN = CONTROL_PREDS[(":", 2)]
P_FAIL = Pred("fail", 0)
P_FAIL.kind = DET
P_FAIL.fn = lambda eng: False
FAIL_FRAME = (P_FAIL, (), None, 0, ROOT)

_CTRL_TERM_NAMES = {(",", 2), (";", 2), ("->", 2), ("*->", 2), ("|", 2)}
