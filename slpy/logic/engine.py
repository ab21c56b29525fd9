"""The resolution engine: an iterative machine over frames and choice points.

A frame is a tuple ``(pred, args, next, cut_barrier, proof_parent)``; the continuation
is the chain of ``next`` frames, so proving a deep non-tail-recursive predicate grows a
heap-allocated chain, never Python's stack. Choice points are lists on ``self.cps``
whose first item is their kind; bindings are recorded on ``self.trail`` and undone by
backtracking. Stochastic predicates (labelled clauses, stochastic builtins) are choice
points that draw a candidate with probability proportional to its label, record a
proof node, and on backtracking draw again among the untried candidates.
"""
from __future__ import annotations

import gc
import math
import os
import time

from .terms import (Var, Atom, Struct, deref, unify, undo_to, copy_term, PrologError,
                    type_error, instantiation_error, existence_error, atom,
                    NIL, TRUE, mklist)
from .db import USER, DET, NONDET, CONTROL, STOCH, SBUILTIN, Pred
from .proof import SNode, ProofNode, build_tree
from ..lang.clauses import convert_body
from .arith import eval_arith
from .terms import variant
from .builtins import UniformChoice

# choice point kinds
(CP_BOTTOM, CP_CLAUSES, CP_GEN, CP_ALT, CP_ITE, CP_SOFT, CP_NOT, CP_CATCH, CP_FINDALL,
 CP_STOCH, CP_FENCE, CP_PURE, CP_ENUM, CP_DISABLED, CP_SB, CP_ENUMB, CP_SBU) = range(17)

# control opcodes
(OP_CALL, OP_CUT, OP_DISJ, OP_ITE, OP_SOFT, OP_NOT, OP_GCALL, OP_SEXIT, OP_ITE_THEN,
 OP_SOFT_THEN, OP_NOT_SUCC, OP_FA_COLLECT, OP_CATCH_EXIT, OP_DONE, OP_FINDALL, OP_CATCH,
 OP_CALLN, OP_FORALL, OP_FINDALL4, OP_GUARDED) = range(20)

# sampling modes
SAMPLE, PURE, ENUM, REPLAY, PLAIN = range(5)


class Halt(Exception):
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
P_GUARDED_DYN = CONTROL_PREDS[(":", 2)]
P_FAIL = Pred("fail", 0)
P_FAIL.kind = DET
P_FAIL.fn = lambda eng: False
FAIL_FRAME = (P_FAIL, (), None, 0, ROOT)

_CTRL_TERM_NAMES = {(",", 2), (";", 2), ("->", 2), ("*->", 2), ("|", 2)}


class Engine:
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
        self.deadline = None
        self.step_limit = None
        self.mode = PLAIN
        self.rng = None
        self.plog = None
        self.logp = 0.0
        self.record_answers = False
        self.ground_memo: dict = {}
        self.sb_target = None
        self.globals: dict = {}
        self.halted = None
        # replay state
        self.rp_cut = None
        self.rp_fence = 0
        self.rp_logfactor = 0.0
        self.rp_cutnode = None
        self.rp_linked = []
        self.min_prob = 0.0
        self.rowsets = None  # data-aware builtins attach their state here

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
        import sys
        sys.stderr.write(text)

    # -- goals as terms -----------------------------------------------------------
    def goal_frame(self, goal, nxt, cb, pn):
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
        if (name, arity) in _CTRL_TERM_NAMES:
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
                f = self.goal_frame(g, nxt, cb, pn)
                for x in reversed(goals):
                    f = self.goal_frame(x, f, cb, pn)
                return f
        if name == "!" and arity == 0:
            return (CONTROL_PREDS[("!", 0)], (), nxt, cb, pn)
        if name == "true" and arity == 0:
            return nxt
        if (name, arity) in CONTROL_PREDS and name not in ("::", ","):
            return (CONTROL_PREDS[(name, arity)], args, nxt, cb, pn)
        if name == "::" and arity == 2:
            return (P_GUARDED_DYN, args, nxt, cb, pn)
        pred = self.db.preds.get((name, arity))
        if pred is None:
            pred = self.db.get(name, arity)
        return (pred, args, nxt, cb, pn)

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
            del cps[base:]
            if base == 0:
                # a finished top-level run keeps its bindings but not its trail
                del self.trail[mark:]

    def start_limits(self):
        """Limits count from the start of each top-level query."""
        self.step_limit = None if self.max_steps is None else self.steps + self.max_steps
        self.deadline = None if self.timeout is None else time.monotonic() + self.timeout

    def _check_limits(self):
        if self.step_limit is not None and self.steps > self.step_limit:
            raise LimitExceeded(_resource("inferences"),
                                f"Resource error: more than {self.max_steps} inferences")
        if self.deadline is not None and time.monotonic() > self.deadline:
            raise LimitExceeded(_resource("time"),
                                f"Resource error: time limit of {self.timeout} s exceeded")
        if len(self.trail) > self.max_term_size or len(self.cps) > self.max_term_size:
            raise LimitExceeded(_resource("memory"),
                                "Resource error: memory limit (term size) exceeded")
        if self.max_memory is not None and _rss() > self.max_memory:
            raise LimitExceeded(_resource("memory"),
                                f"Resource error: more than {self.max_memory >> 20} MiB in use")

    def _next_check(self):
        nxt = self.steps + 4096
        if self.step_limit is not None and self.step_limit + 1 < nxt:
            nxt = self.step_limit + 1
        return nxt

    def _run(self, f, base):
        """Run from frame f until a solution (returns the '$done' frame... None when the
        query has no more solutions)."""
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
                            self._check_limits()
                            check_at = self._next_check()
                        if args:
                            a0 = args[0]
                            while type(a0) is Var:
                                r = a0.ref
                                if r is None:
                                    break
                                a0 = r
                            cl = pred.select(a0)
                        else:
                            cl = pred.clauses
                        n = len(cl)
                        if n == 1:
                            f = cl[0].fn(args, nxt, len(cps), pn, trail)
                            continue
                        if n == 0:
                            if not pred.defined and not pred.dynamic:
                                self.steps = steps
                                self._unknown(pred)
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
                                    cp[5] = i
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
                        if pred.fn(self, *args):
                            f = nxt
                        else:
                            f = None
                        continue
                    if kind == CONTROL:
                        f = self._control(pred.fn, args, nxt, cb, pn, f, base)
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
                            next(gen)
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

    def _unknown(self, pred):
        flag = self.flags.get("unknown", "error")
        if flag == "fail":
            return
        raise existence_error("procedure", Struct("/", (atom(pred.name), pred.arity)))

    # -- backtracking ----------------------------------------------------------------
    def _backtrack(self, base):
        """Resume the most recent choice point; the frame to run, or None when none is
        left above base."""
        cps = self.cps
        trail = self.trail
        while True:
            cp = cps[-1]
            kind = cp[0]
            undo_to(trail, cp[1])
            self.plog = cp[2]
            self.logp = cp[3]
            if kind == CP_CLAUSES:
                _, mark, _, _, cl, i, n, f = cp
                pred, args, nxt, _, pn = f
                h = len(cps) - 1
                while i < n:
                    c = cl[i]
                    i += 1
                    if i == n:
                        cps.pop()
                    r = c.fn(args, nxt, h, pn, trail)
                    if r is not None:
                        cp[5] = i
                        return r
                    undo_to(trail, mark)
                continue
            if kind == CP_GEN:
                try:
                    next(cp[4])
                    return cp[5]
                except StopIteration:
                    undo_to(trail, cp[1])
                    cps.pop()
                    continue
            if kind == CP_BOTTOM:
                if len(cps) - 1 == base:
                    return None
                cps.pop()
                continue
            cps.pop()
            if kind == CP_ALT or kind == CP_ITE or kind == CP_SOFT:
                return cp[4]
            if kind == CP_NOT:
                return cp[4]
            if kind == CP_FINDALL:
                results, target, nxt = cp[4], cp[5], cp[6]
                if unify(target, mklist(results, cp[7]), trail):
                    return nxt
                continue
            if kind == CP_STOCH or kind == CP_ENUM:
                f = self._redraw(cp)
                if f is not None:
                    return f
                continue
            if kind == CP_SBU:
                f = self._redraw_uniform(cp)
                if f is not None:
                    return f
                continue
            if kind == CP_SB or kind == CP_ENUMB:
                f = self._redraw_builtin(cp)
                if f is not None:
                    return f
                continue
            if kind == CP_FENCE:
                raise ReplayReject()
            if kind == CP_PURE:
                raise SampleFailed()
            # CP_CATCH, CP_DISABLED: nothing to resume

    # -- errors ------------------------------------------------------------------------
    def _handle_error(self, e, base):
        ball = copy_term(e.term)
        cps = self.cps
        trail = self.trail
        catchable = not isinstance(e, LimitExceeded)
        while len(cps) > base + 1:
            cp = cps.pop()
            if cp[0] == CP_CATCH and catchable and cp[8].ref is None:
                undo_to(trail, cp[1])
                self.plog = cp[2]
                self.logp = cp[3]
                mark = len(trail)
                if unify(cp[4], ball, trail):
                    _, _, _, _, catcher, recovery, nxt, cb, flag, pn = cp
                    return self.goal_frame(recovery, nxt, len(cps), pn)
                undo_to(trail, mark)
        undo_to(trail, cps[base][1])
        if e.term is not ball and not isinstance(e, LimitExceeded):
            raise PrologError(ball, e.args[0] if e.args else None) from None
        raise e

    # -- control constructs --------------------------------------------------------------
    def _control(self, op, args, nxt, cb, pn, f, base):
        cps = self.cps
        trail = self.trail
        if op == OP_CUT:
            del cps[cb:]
            return nxt
        if op == OP_SEXIT:
            return self._sexit(args[0], nxt)
        if op == OP_GCALL:  # a compiled guarded call: the usual stochastic call of a prior
            pred, gargs, guard = args
            self.steps += 1
            if pred.kind == STOCH:
                return self._stoch(pred, gargs, guard, nxt, cb, pn)
            # a guard passed to a plain predicate is ignored
            return (pred, gargs, nxt, cb, pn)
        if op == OP_CALL:
            return self.goal_frame(args[0], nxt, len(cps), pn)
        if op == OP_DISJ:
            left = deref(args[0])
            if type(left) is Struct and len(left.args) == 2 and left.name in ("->", "*->"):
                cond, then = left.args
                h = len(cps)
                else_f = self.goal_frame(args[1], nxt, cb, pn)
                then_f = self.goal_frame(then, nxt, cb, pn)
                if left.name == "->":
                    cps.append([CP_ITE, len(trail), self.plog, self.logp, else_f])
                    return self.goal_frame(cond, (P_ITE_THEN, (h,), then_f, cb, pn), h + 1, pn)
                cp = [CP_SOFT, len(trail), self.plog, self.logp, else_f]
                cps.append(cp)
                return self.goal_frame(cond, (P_SOFT_THEN, (cp,), then_f, cb, pn), h + 1, pn)
            cps.append([CP_ALT, len(trail), self.plog, self.logp,
                        self.goal_frame(args[1], nxt, cb, pn)])
            return self.goal_frame(left, nxt, cb, pn)
        if op == OP_ITE_THEN:
            del cps[args[0]:]
            return nxt
        if op == OP_SOFT_THEN:
            args[0][0] = CP_DISABLED
            return nxt
        if op == OP_ITE:
            h = len(cps)
            cps.append([CP_ITE, len(trail), self.plog, self.logp, FAIL_FRAME])
            then_f = self.goal_frame(args[1], nxt, cb, pn)
            return self.goal_frame(args[0], (P_ITE_THEN, (h,), then_f, cb, pn), h + 1, pn)
        if op == OP_SOFT:
            h = len(cps)
            return self.goal_frame(args[0], self.goal_frame(args[1], nxt, cb, pn), h, pn)
        if op == OP_NOT:
            h = len(cps)
            cps.append([CP_NOT, len(trail), self.plog, self.logp, nxt])
            return self.goal_frame(args[0], (P_NOT_SUCC, (h,), None, cb, pn), h + 1, pn)
        if op == OP_NOT_SUCC:
            del cps[args[0]:]
            return None
        if op == OP_GUARDED:
            left = deref(args[0])
            goal = deref(args[1])
            if type(left) is Atom:  # Module:Goal
                return self.goal_frame(goal, nxt, len(cps), pn)
            if type(goal) is Var:
                raise instantiation_error()
            if type(goal) is Atom:
                pred, gargs = self.db.get(goal.name, 0), ()
            elif type(goal) is Struct:
                pred, gargs = self.db.get(goal.name, len(goal.args)), goal.args
            else:
                raise type_error("callable", goal)
            if pred.kind == STOCH:
                self.steps += 1
                return self._stoch(pred, gargs, left, nxt, cb, pn)
            return self.goal_frame(goal, nxt, len(cps), pn)
        if op == OP_FINDALL or op == OP_FINDALL4:
            _check_partial_list(args[2])
            results: list = []
            tail = NIL if op == OP_FINDALL else args[3]
            cps.append([CP_FINDALL, len(trail), self.plog, self.logp, results, args[2], nxt,
                        tail])
            h = len(cps)
            return self.goal_frame(args[1], (P_FA_COLLECT, (args[0], results), None, cb, pn),
                                   h, pn)
        if op == OP_FA_COLLECT:
            args[1].append(copy_term(args[0]))
            return None
        if op == OP_FORALL:
            cond, action = args
            goal = Struct("\\+", (Struct(",", (cond, Struct("\\+", (action,)))),))
            return self.goal_frame(goal, nxt, len(cps), pn)
        if op == OP_CATCH:
            flag = Var()
            h = len(cps)
            cps.append([CP_CATCH, len(trail), self.plog, self.logp, args[1], args[2], nxt,
                        cb, flag, pn])
            return self.goal_frame(args[0], (P_CATCH_EXIT, (flag,), nxt, cb, pn), h + 1, pn)
        if op == OP_CATCH_EXIT:
            flag = args[0]
            flag.ref = TRUE
            trail.append(flag)
            return nxt
        if op == OP_CALLN:
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
            return self.goal_frame(goal, nxt, len(cps), pn)
        if op == OP_DONE:
            return P_DONE
        raise AssertionError(op)

    # -- stochastic choice points ----------------------------------------------------------
    def _label_value(self, lab, clause):
        if type(lab) is not int and type(lab) is not float:
            lab = eval_arith(lab)
        if type(lab) is float and not math.isfinite(lab) or lab < 0:
            raise PrologError(
                Struct("error", (Struct("evaluation_error", (atom("probability_label"),)),
                                 Struct("context", (atom(clause.where()), lab)))),
                f"Label of {clause.where()} is {lab}: a label must be a finite number >= 0")
        return lab

    def _candidates(self, pred, args, g, exitf, h, node):
        """(weight, clause, saved bindings, body) for each candidate whose head and
        guard unify and whose label is positive; the bindings are undone."""
        trail = self.trail
        mark = len(trail)
        if args:
            a0 = args[0]
            while type(a0) is Var:
                r = a0.ref
                if r is None:
                    break
                a0 = r
            cl = pred.select(a0)
        else:
            cl = pred.clauses
        cands = []
        for c in cl:
            r = c.fn(args, g, exitf, h, node, trail)
            if r is not None:
                w = c.ground_label
                if w is None:
                    w = self._label_value(r[0], c)
                if w > 0:
                    cands.append((w, c, [(v, v.ref) for v in trail[mark:]], r[1]))
            undo_to(trail, mark)
        return cands

    def _pure_total(self, pred, g):
        """Sum of the labels of ALL clauses (pure SLP semantics), guard unified only."""
        total = 0.0
        trail = self.trail
        mark = len(trail)
        for c in pred.clauses:
            if c.label_fn is None:  # a constant label and no guard to unify
                total += c.ground_label
                continue
            r = c.label_fn((), g, None, 0, None, trail)
            if r is not None:
                total += self._label_value(r[0], c)
            undo_to(trail, mark)
        return total

    def _apply(self, cand):
        trail = self.trail
        for v, val in cand[2]:
            v.ref = val
            trail.append(v)

    def _new_node(self, pred, args, g, pn):
        node = SNode(pred, args, g, pn)
        if pred.kind == SBUILTIN:
            # the output argument is what the choice binds: shown as a fresh variable
            t = self.sb_target
            args = tuple([Var() if a is t else a for a in args])
        node.call = _snapshot(pred, args)
        if g is not None:
            node.gcall = copy_term(g)
        node.height = len(self.cps)
        return node

    def _stoch(self, pred, args, g, nxt, cb, pn):
        mode = self.mode
        if mode == REPLAY and not pn.fresh:
            return self._replay_stoch(pred, args, g, nxt, cb, pn)
        node = self._new_node(pred, args, g, pn)
        h = node.height
        exitf = (P_SEXIT, (node,), nxt, cb, pn)
        cands = self._candidates(pred, args, g, exitf, h, node)
        if mode == PLAIN:
            mode = SAMPLE if self.rng is not None else ENUM
        if mode == PURE or mode == ENUM:
            total = self._pure_total(pred, g)
        else:
            total = 0.0
            for c in cands:
                total += c[0]
        if not cands or total <= 0:
            if mode == PURE and total > 0:
                raise SampleFailed()
            return None
        node.cands = _light(cands)
        node.total = total
        if mode == ENUM:
            cp = [CP_ENUM, len(self.trail), self.plog, self.logp, cands, 0, total, node]
            self.cps.append(cp)
            return self._take(cp, 0)
        u = self.rng.random() * total
        if mode == PURE:
            # draw among all clauses: a non-unifying or failing draw fails the sample
            acc = 0.0
            for c in cands:
                acc += c[0]
                if u < acc:
                    break
            else:
                raise SampleFailed()
            self.cps.append([CP_PURE, len(self.trail), self.plog, self.logp])
            return self._choose(node, c, total)
        i = _pick(cands, u)
        c = cands[i]
        if len(cands) > 1:
            rest = cands[:i] + cands[i + 1:]
            self.cps.append([CP_STOCH, len(self.trail), self.plog, self.logp, rest, node,
                             total - c[0], total])
        return self._choose(node, c, total)

    def _choose(self, node, c, total):
        self._apply(c)
        node.chosen = c[1].number
        node.key = c[1]
        node.clause = c[1]
        node.prob = c[0] / total
        self.logp += math.log(node.prob)
        self.plog = (node, self.plog)
        return c[3]

    def _take(self, cp, i):
        """Exhaustive mode: follow candidate i of an enumeration choice point."""
        cands = cp[4]
        node = cp[7]
        if i + 1 >= len(cands):
            self.cps.pop()
        else:
            cp[5] = i + 1
        c = cands[i]
        p = c[0] / cp[6]
        if self.logp + math.log(p) < self.min_logp():
            return None
        return self._choose(node, c, cp[6])

    def min_logp(self):
        return math.log(self.min_prob) if self.min_prob > 0 else -math.inf

    def _redraw(self, cp):
        if cp[0] == CP_ENUM:
            self.cps.append(cp)
            return self._take(cp, cp[5])
        _, _, _, _, rest, node, remaining, total = cp
        if not rest:
            return None
        u = self.rng.random() * remaining
        i = _pick(rest, u)
        c = rest[i]
        if len(rest) > 1:
            self.cps.append([CP_STOCH, cp[1], cp[2], cp[3], rest[:i] + rest[i + 1:], node,
                             remaining - c[0], total])
        return self._choose(node, c, total)

    def _sexit(self, node, nxt):
        if self.record_answers:
            # A ground answer cannot change any more, so it is kept by reference (a
            # finished derivation is never undone); replay reuses only ground answers.
            args = []
            for a in node.args:  # dereferenced at the top: replay compares these
                while type(a) is Var:
                    r = a.ref
                    if r is None:
                        break
                    a = r
                args.append(a)
            if self._ground(args):
                node.answer = Struct("$", tuple(args))
                node.ground = True
            else:
                node.answer = None
                node.ground = False
        if node is self.rp_cutnode:
            del self.cps[self.rp_fence + 1:]  # the regrown part is now committed
        return nxt

    # -- stochastic builtins -------------------------------------------------------------------
    def _ground(self, args) -> bool:
        """Are the arguments ground? Subterms already found ground at a child's exit are
        remembered (by identity, for this derivation), so a parent's answer, which holds
        its children's answers, is checked without walking them again."""
        memo = self.ground_memo
        stack = list(args)
        tops = []
        while stack:
            t = stack.pop()
            while type(t) is Var:
                r = t.ref
                if r is None:
                    return False
                t = r
            if type(t) is Struct:
                if id(t) in memo:
                    continue
                if len(tops) < len(args):
                    tops.append(t)
                stack.extend(t.args)
        for t in tops:
            memo[id(t)] = t  # keep the object alive so its id stays its own
        return True

    def _sbuiltin(self, pred, args, nxt, pn):
        """A builtin choice point: pred.fn returns (target, [(weight, value, key), ...]);
        choosing a candidate unifies target with its value."""
        if self.mode == REPLAY and not pn.fresh:
            return self._replay_sbuiltin(pred, args, nxt, pn)
        target, cands = pred.fn(self, *args)
        mode = self.mode
        self.sb_target = target
        if type(cands) is UniformChoice:
            if mode != ENUM and not (mode == PLAIN and self.rng is None):
                return self._uniform(pred, args, pn, target, cands, nxt)
            cands = cands.materialise()
        if not all(c[0] > 0 for c in cands):
            cands = [c for c in cands if c[0] > 0]
        if not cands:
            return None
        node = self._new_node(pred, args, None, pn)
        total = 0.0
        for c in cands:
            total += c[0]
        node.cands = cands
        node.total = total
        trail = self.trail
        if mode == ENUM or (mode == PLAIN and self.rng is None):
            cp = [CP_ENUMB, len(trail), self.plog, self.logp, cands, 0, total, node, target, nxt]
            self.cps.append(cp)
            return self._take_builtin(cp)
        i = _pick(cands, self.rng.random() * total)
        c = cands[i]
        if mode == PURE:
            self.cps.append([CP_PURE, len(trail), self.plog, self.logp])
        elif len(cands) > 1:
            self.cps.append([CP_SB, len(trail), self.plog, self.logp, cands[:i] + cands[i + 1:],
                             node, total - c[0], total, target, nxt])
        return self._choose_builtin(node, target, c, total, nxt)

    def _uniform(self, pred, args, pn, target, u, nxt):
        n = u.n
        if n == 0:
            return None
        node = self._new_node(pred, args, None, pn)
        node.cands = u
        node.total = n
        i = min(int(self.rng.random() * n), n - 1)
        if self.mode == PURE:
            self.cps.append([CP_PURE, len(self.trail), self.plog, self.logp])
        elif n > 1:
            self.cps.append([CP_SBU, len(self.trail), self.plog, self.logp, u, {i}, node,
                             target, nxt])
        return self._choose_builtin(node, target, (1.0, u.value(i), u.key(i)), n, nxt)

    def _redraw_uniform(self, cp):
        _, mark, plog, logp, u, tried, node, target, nxt = cp
        n = u.n
        left = n - len(tried)
        if left <= 0:
            return None
        if len(tried) * 2 < n:  # mostly untried: rejection sampling is cheap
            while True:
                i = min(int(self.rng.random() * n), n - 1)
                if i not in tried:
                    break
        else:
            rest = [j for j in range(n) if j not in tried]
            i = rest[min(int(self.rng.random() * left), left - 1)]
        tried.add(i)
        if left > 1:
            self.cps.append(cp)
        return self._choose_builtin(node, target, (1.0, u.value(i), u.key(i)), n, nxt)

    def _choose_builtin(self, node, target, c, total, nxt):
        w, value, key = c
        if not unify(target, value, self.trail):
            return None
        node.chosen = key
        node.key = key
        node.value = value
        node.prob = w / total
        self.logp += math.log(node.prob)
        self.plog = (node, self.plog)
        return nxt

    def _take_builtin(self, cp):
        cands = cp[4]
        i = cp[5]
        if i + 1 >= len(cands):
            self.cps.pop()
        else:
            cp[5] = i + 1
        c = cands[i]
        if self.logp + math.log(c[0] / cp[6]) < self.min_logp():
            return None
        return self._choose_builtin(cp[7], cp[8], c, cp[6], cp[9])

    def _redraw_builtin(self, cp):
        if cp[0] == CP_ENUMB:
            self.cps.append(cp)
            return self._take_builtin(cp)
        _, mark, plog, logp, rest, node, remaining, total, target, nxt = cp
        i = _pick(rest, self.rng.random() * remaining)
        c = rest[i]
        if len(rest) > 1:
            self.cps.append([CP_SB, mark, plog, logp, rest[:i] + rest[i + 1:], node,
                             remaining - c[0], total, target, nxt])
        return self._choose_builtin(node, target, c, total, nxt)

    # -- replay ---------------------------------------------------------------------------------
    def _replay_lookup(self, pred, pn):
        i = pn.nch
        pn.nch = i + 1
        path = pn.path + (i,)
        cut = self.rp_cut
        fresh = path[:len(cut)] == cut
        # the recorded node at the same place: the i-th child of the parent's record
        po = pn.old
        old = po.children[i] if po is not None and i < len(po.children) else None
        if not fresh and (old is None or old.pred is not pred):
            raise ReplayReject()
        return path, old, fresh

    def _replay_stoch(self, pred, args, g, nxt, cb, pn):
        path, old, fresh = self._replay_lookup(pred, pn)
        cps = self.cps
        if fresh:  # the cut node: sample afresh, backtracking within its subtree
            self.mode = SAMPLE
            try:
                node = self._new_node(pred, args, g, pn)
                node.path = path
                node.fresh = True
                self.rp_cutnode = node
                h = node.height
                exitf = (P_SEXIT, (node,), nxt, cb, pn)
                cands = self._candidates(pred, args, g, exitf, h, node)
                total = sum(c[0] for c in cands)
                if not cands:
                    raise ReplayReject()
                node.cands = _light(cands)
                node.total = total
                i = _pick(cands, self.rng.random() * total)
                c = cands[i]
                if len(cands) > 1:
                    cps.append([CP_STOCH, len(self.trail), self.plog, self.logp,
                                cands[:i] + cands[i + 1:], node, total - c[0], total])
                return self._choose(node, c, total)
            finally:
                self.mode = REPLAY
        del cps[self.rp_fence + 1:]  # kept choices are committed
        ancestor = path == self.rp_cut[:len(path)]
        same = _same_call(args, old.call) and (
            g is None if old.guard is None else g is not None and _same_guard(g, old.guard))
        if same and not ancestor and old.ground:
            _bind_answer(args, old.answer.args, self.trail)
            memo = self.ground_memo
            for a in old.answer.args:  # known ground: ancestors need not walk it again
                if type(a) is Struct:
                    memo[id(a)] = a
            self.plog = ((old, pn), self.plog)
            return nxt
        if same:
            # the same call has the same candidates and probabilities: prove only the
            # recorded clause (and keep the recorded snapshot of the call)
            node = SNode(pred, args, g, pn)
            node.call = old.call
            node.gcall = old.guard
            node.height = len(cps)
            node.path = path
            node.fresh = False
            node.old = old
            self.rp_linked.append(node)
            exitf = (P_SEXIT, (node,), nxt, cb, pn)
            c = old.key
            body = c.fn(args, g, exitf, node.height, node, self.trail)
            if body is None or c.erased:
                raise ReplayReject()
            node.cands, node.total = old._cands, old._total
            node.chosen, node.key, node.clause, node.prob = c.number, c, c, old.prob
            self.plog = (node, self.plog)
            return body[1]
        node = self._new_node(pred, args, g, pn)
        node.path = path
        node.fresh = False
        node.old = old
        self.rp_linked.append(node)
        exitf = (P_SEXIT, (node,), nxt, cb, pn)
        cands = self._candidates(pred, args, g, exitf, node.height, node)
        total = 0.0
        chosen = None
        for c in cands:
            total += c[0]
            if c[1] is old.key:
                chosen = c
        if chosen is None:
            raise ReplayReject()
        node.cands = _light(cands)
        node.total = total
        f = self._choose(node, chosen, total)
        if not same:
            self.rp_logfactor += math.log(node.prob) - math.log(old.prob)
        return f

    def _replay_sbuiltin(self, pred, args, nxt, pn):
        path, old, fresh = self._replay_lookup(pred, pn)
        if fresh:
            # a builtin cut node has no subtree: draw once, no redraw on later failure
            self.mode = PURE
            try:
                f = self._sbuiltin(pred, args, nxt, pn)
            finally:
                self.mode = REPLAY
            del self.cps[self.rp_fence + 1:]
            if f is None:
                raise ReplayReject()
            return f
        del self.cps[self.rp_fence + 1:]
        target, cands = pred.fn(self, *args)
        self.sb_target = target
        if cands is old._cands and _same_call(args, old.call, target):
            # the same call of a cached choice: the recorded value, no lookup or snapshot
            node = SNode(pred, args, None, pn)
            node.call = old.call
            node.height = len(self.cps)
            node.path = path
            node.fresh = False
            node.cands = cands
            node.total = old._total
            if not unify(target, old.value, self.trail):
                raise ReplayReject()
            node.chosen = node.key = old.key
            node.value = old.value
            node.prob = old.prob
            self.logp += math.log(old.prob)
            self.plog = (node, self.plog)
            return nxt
        if type(cands) is UniformChoice:
            i = cands.index_of(old.key)
            if i is None:
                raise ReplayReject()
            total = cands.n
            chosen = (1.0, cands.value(i), cands.key(i))
        else:
            total = 0.0
            chosen = None
            for c in cands:
                if c[0] > 0:
                    total += c[0]
                    if c[2] == old.key:
                        chosen = c
            if chosen is None:
                raise ReplayReject()
        node = self._new_node(pred, args, None, pn)
        node.path = path
        node.fresh = False
        node.cands = cands
        node.total = total
        f = self._choose_builtin(node, target, chosen, total, nxt)
        if f is None:
            raise ReplayReject()
        if abs(node.prob - old.prob) > 1e-15:
            self.rp_logfactor += math.log(node.prob) - math.log(old.prob)
        return f

    # -- sampling entry points ---------------------------------------------------------------
    def run_sampling(self, goal, rng, mode=SAMPLE, record=False):
        """First solution of goal under sampling; (ok, proof tree, log prob)."""
        saved = (self.mode, self.rng, self.plog, self.logp, self.record_answers)
        self.mode, self.rng, self.plog, self.logp = mode, rng, None, 0.0
        self.record_answers = record
        self.ground_memo = {}
        try:
            for _ in self.solve(goal):
                return True, build_tree(self.plog), self.logp
            return False, None, None
        except SampleFailed:
            return False, None, None
        finally:
            self.mode, self.rng, self.plog, self.logp, self.record_answers = saved

    def run_replay(self, goal, tree: ProofNode, cut: tuple, rng):
        """Regrow the proof `tree` of goal below the node at path `cut`.

        Returns (proof tree, log factor) where the factor is sum log(p_new/p_old) over
        kept choices whose probability changed; raises ReplayReject when the kept
        choices cannot be replayed.
        """
        saved = (self.mode, self.rng, self.plog, self.logp, self.record_answers,
                 self.rp_cut, self.rp_fence, self.rp_logfactor,
                 self.rp_cutnode)
        self.mode, self.rng, self.plog, self.logp = REPLAY, rng, None, 0.0
        self.record_answers = True
        self.ground_memo = {}
        self.rp_cut = cut
        self.rp_logfactor = 0.0
        root = SNode(None, (), None, None)
        root.fresh = cut == ()
        root.path = ()
        root.old = tree
        # SNodes linked to the old tree, unlinked afterwards: the new tree's records
        # hold SNodes, which must not keep every earlier tree alive
        self.rp_linked = [root]
        cps = self.cps
        base = len(cps)
        mark = len(self.trail)
        if base == 0:
            self.start_limits()
        cps.append([CP_BOTTOM, mark, None, 0.0])
        self.rp_fence = base + 1
        cps.append([CP_FENCE, mark, None, 0.0])
        try:
            f = self.goal_frame(goal, (P_DONE, (), None, base + 2, root), base + 2, root)
            if self._run(f, base) is None:
                raise ReplayReject()
            return build_tree(self.plog), self.rp_logfactor
        except SampleFailed:
            undo_to(self.trail, mark)
            raise ReplayReject() from None
        except (Exception, KeyboardInterrupt):
            undo_to(self.trail, mark)
            raise
        finally:
            for n in self.rp_linked:
                n.old = None
            self.rp_linked = []
            del cps[base:]
            if base == 0:
                # a finished top-level run keeps its bindings but not its trail
                del self.trail[mark:]
            (self.mode, self.rng, self.plog, self.logp, self.record_answers,
             self.rp_cut, self.rp_fence, self.rp_logfactor,
             self.rp_cutnode) = saved


_PAGE = os.sysconf("SC_PAGE_SIZE") if hasattr(os, "sysconf") else 4096


def _rss() -> int:
    """Resident memory of this process in bytes (0 where /proc is not available)."""
    try:
        with open("/proc/self/statm") as f:
            return int(f.read().split()[1]) * _PAGE
    except OSError:
        return 0


def _same_call(args, old, target=None):
    """variant(call, old snapshot), with a fast path for calls of atomic arguments, ground
    row-set handles and at most one unbound variable (the usual shape). A builtin's
    `target` argument was snapshot as a fresh variable and stands for one."""
    oargs = old.args if type(old) is Struct else ()
    if len(oargs) != len(args):
        return False
    if target is not None:
        args = tuple([Var() if a is target else a for a in args])
    nvars = 0
    for a, b in zip(args, oargs):
        if a is b:  # replay passes on the recorded (ground) terms themselves
            continue
        while type(a) is Var:
            r = a.ref
            if r is None:
                break
            a = r
        ta = type(a)
        if ta is not type(b):
            return False
        if ta is Var:
            nvars += 1
        elif ta is Struct:
            # one level of atomic arguments, e.g. rows(17): compare directly
            aa, ba = a.args, b.args
            if a.name != b.name or len(aa) != len(ba):
                return False
            for x, y in zip(aa, ba):
                x = deref(x)
                if type(x) is not type(y) or type(x) is Var or type(x) is Struct:
                    return variant(Struct("$", args), Struct("$", oargs))
                if x != y:
                    return False
        elif ta is Atom:
            if a is not b:
                return False
        elif a != b:
            return False
    return nvars <= 1 or variant(Struct("$", args), Struct("$", oargs))


def _same_guard(g, old):
    """variant(g, old) for a guard, with a fast path for a list of numbers or atoms."""
    a, b = g, old
    while True:
        a = deref(a)
        if a is b:
            return True
        if not (type(a) is Struct and type(b) is Struct and a.name == "." and b.name == "."
                and len(a.args) == 2 and len(b.args) == 2):
            break
        x = deref(a.args[0])
        y = b.args[0]
        tx = type(x)
        if tx is not type(y) or tx is Var or tx is Struct or x != y:
            break
        a, b = a.args[1], b.args[1]
    return variant(g, old)


def _bind_answer(args, answer, trail):
    """Unify a call with the recorded ground answer of the same call: its unbound
    arguments are bound directly, the others are unified."""
    for a, b in zip(args, answer):
        while type(a) is Var:
            r = a.ref
            if r is None:
                a.ref = b
                trail.append(a)
                break
            a = r
        else:
            if a is not b and not unify(a, b, trail):
                raise ReplayReject()


def _snapshot(pred, args):
    """The call as it was made: a copy whose unbound variables are fresh. Calls are
    mostly atomic arguments and unbound outputs, so those are done without copy_term."""
    if not args:
        return atom(pred.name)
    out = []
    mapping = None
    for a in args:
        while type(a) is Var:
            r = a.ref
            if r is None:
                break
            a = r
        ta = type(a)
        if ta is Var:
            if mapping is None:
                mapping = {}
            v = mapping.get(a)
            if v is None:
                v = mapping[a] = Var()
            a = v
        elif ta is Struct:
            if mapping is None:
                mapping = {}
            a = copy_term(a, mapping)
        out.append(a)
    return Struct(pred.name, tuple(out))


def _light(cands):
    """(weight, clause) of each candidate: a candidate's body frame refers back to its
    SNode, and a node keeping it would make every proof a reference cycle, left to the
    cyclic GC (which then costs as much as the sampling)."""
    return [(c[0], c[1]) for c in cands]


def _pick(cands, u):
    acc = 0.0
    last = len(cands) - 1
    for i, c in enumerate(cands):
        acc += c[0]
        if u < acc:
            return i
    return last


def _resource(what):
    return Struct("error", (Struct("resource_error", (atom(what),)), Var()))


def _check_partial_list(t):
    """ISO: findall/bagof results must be a list or a partial list."""
    from .terms import list_items
    _, tail = list_items(t)
    if type(tail) is not Var and tail is not NIL:
        raise type_error("list", deref(t))


def _check_callable_body(goal):
    stack = [goal]
    while stack:
        g = deref(stack.pop())
        if type(g) is Var:
            continue
        if type(g) is Struct and len(g.args) == 2 and g.name in (",", ";", "->", "*->", "|"):
            stack.extend(g.args)
            continue
        if type(g) is not Atom and type(g) is not Struct:
            raise type_error("callable", goal)
