"""What the engine's frames and choice points are made of: choice-point kinds, control
opcodes, sampling modes, the control predicates and the engine's exceptions (shared by
engine.py and its sampling and replay parts)."""
from __future__ import annotations

from ..errors import PicklableError
from ..terms.term import PrologError
from .db import DET, CONTROL, Pred
from .proof import SNode

# -- choice points ------------------------------------------------------------------
# A choice point is a plain list on engine.cps (lists are what the hot loop reads
# fastest); its items are read through the index constants below, never by a number.
# Every layout starts with the same four items:
#
#   CP_KIND  the kind (CP_*)          CP_MARK  the trail length to undo to
#   CP_PLOG  the proof log to restore CP_LOGP  the log probability to restore
#
# kind         what it is                          its items from 4 on
# ----------   ---------------------------------   ------------------------------------
# CP_BOTTOM    the bottom of one solve() run       -
# CP_FENCE     replay: backtracking below it       -
#              rejects the move
# CP_PURE      pure sampling: backtracking into    -
#              it fails the sample
# CP_DISABLED  a CP_SOFT or CP_CLEANUP whose work  (those of its former kind, unread)
#              is done
# CP_CLAUSES   the untried clauses of a call       CL_CLAUSES the candidate clauses,
#                                                  CL_NEXT the index of the next one,
#                                                  CL_COUNT their number, CL_FRAME the call
# CP_GEN       a nondeterministic builtin          GEN_ITER its generator,
#                                                  GEN_NEXT the continuation
# CP_ALT       the other branch of (;)/2           ALT_FRAME the frame to resume
# CP_ITE       the else branch of (->)/2           ALT_FRAME
# CP_SOFT      the else branch of (*->)/2          ALT_FRAME
# CP_NOT       \+/1: resumed when its goal fails   ALT_FRAME the continuation
# CP_FINDALL   findall/3,4 collecting              FA_RESULTS the copies so far,
#                                                  FA_TARGET the result argument,
#                                                  FA_NEXT the continuation, FA_TAIL
#                                                  the list's tail (findall/4)
# CP_CATCH     catch/3                             CATCH_CATCHER, CATCH_RECOVERY,
#                                                  CATCH_NEXT the continuation,
#                                                  CATCH_CB its cut barrier, CATCH_FLAG
#                                                  bound once the goal has exited,
#                                                  CATCH_PN its proof parent
# CP_CLEANUP   setup_call_cleanup/3                CLEANUP_GOAL the cleanup goal
# CP_CHOICE    a stochastic choice with untried    CH_WAY how the next one is chosen
#              candidates (sampling.py)            (a sampling.Choice), CH_NODE the
#                                                  proof node, CH_POOL the candidates
#                                                  (untried, all, or a UniformChoice),
#                                                  CH_POS enumeration: the next index;
#                                                  uniform: the set of tried indices,
#                                                  CH_LEFT the untried candidates'
#                                                  weight, CH_TOTAL all candidates'
#                                                  weight, CH_TARGET / CH_NEXT a
#                                                  builtin's output argument and
#                                                  continuation (None for clauses)
# CP_PORT      the debugger (tracer.py): a goal's  PORT_WAY its handler: resume(eng,
#              Fail or Redo port, or the end of a  cp) gives the frame to run or None;
#              depth-limited call                  `answers`: can it give an answer?
(CP_BOTTOM, CP_CLAUSES, CP_GEN, CP_ALT, CP_ITE, CP_SOFT, CP_NOT, CP_CATCH, CP_FINDALL,
 CP_CHOICE, CP_FENCE, CP_PURE, CP_DISABLED, CP_CLEANUP, CP_PORT) = range(15)

CP_KIND, CP_MARK, CP_PLOG, CP_LOGP = range(4)
CL_CLAUSES, CL_NEXT, CL_COUNT, CL_FRAME = range(4, 8)
GEN_ITER, GEN_NEXT = range(4, 6)
ALT_FRAME = 4
FA_RESULTS, FA_TARGET, FA_NEXT, FA_TAIL = range(4, 8)
CATCH_CATCHER, CATCH_RECOVERY, CATCH_NEXT, CATCH_CB, CATCH_FLAG, CATCH_PN = range(4, 10)
CLEANUP_GOAL = 4
CH_WAY, CH_NODE, CH_POOL, CH_POS, CH_LEFT, CH_TOTAL, CH_TARGET, CH_NEXT = range(4, 12)
PORT_WAY = 4

# A frame is a tuple (pred, args, next frame, cut barrier, proof parent).
FR_PRED, FR_ARGS, FR_NEXT, FR_CB, FR_PN = range(5)

# control opcodes
(OP_CALL, OP_CUT, OP_DISJ, OP_ITE, OP_SOFT, OP_NOT, OP_GCALL, OP_SEXIT, OP_ITE_THEN,
 OP_SOFT_THEN, OP_NOT_SUCC, OP_FA_COLLECT, OP_CATCH_EXIT, OP_DONE, OP_FINDALL, OP_CATCH,
 OP_CALLN, OP_FORALL, OP_FINDALL4, OP_GUARDED, OP_CALL_CLEANUP, OP_CLEANUP_EXIT,
 OP_PORT_EXIT, OP_DEPTH_EXIT, OP_TRACE, OP_SPY, OP_DEPTH_CALL) = range(27)

# sampling modes
SAMPLE, PURE, ENUM, REPLAY, PLAIN = range(5)


class Halt(PicklableError):
    def __init__(self, code=0):
        self.code = code


class LimitExceeded(PrologError):
    """A resource limit (steps, time, size): not catchable by catch/3, so a runaway
    query always ends."""


class TraceFrom(Exception):
    """The debugger starts (trace/0, spy/1, call_with_depth_limit/3): the engine
    runs on from `frame` in its tracing loop (tracer.py)."""

    def __init__(self, frame):
        super().__init__(frame)     # args: it pickles as every slpy exception does
        self.frame = frame


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
    ("trace", 0): _control("trace", 0, OP_TRACE),
    ("spy", 1): _control("spy", 1, OP_SPY),
    ("call_with_depth_limit", 3): _control("call_with_depth_limit", 3, OP_DEPTH_CALL),
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
P_PORT_EXIT = _control("$port_exit", 1, OP_PORT_EXIT)
P_DEPTH_EXIT = _control("$depth_exit", 2, OP_DEPTH_EXIT)
P_GUARDED_DYN = CONTROL_PREDS[(":", 2)]
P_FAIL = Pred("fail", 0)
P_FAIL.kind = DET
P_FAIL.fn = lambda eng: False
FAIL_FRAME = (P_FAIL, (), None, 0, ROOT)
