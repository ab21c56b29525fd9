"""Stochastic choice points: labelled clauses and stochastic builtins drawn, recorded
as proof nodes and redrawn on backtracking, under backtrackable sampling, pure SLP
sampling or exhaustive enumeration. A part of :class:`slpy.logic.engine.Engine`."""
from __future__ import annotations

import math

from ..terms.term import Var, Struct, atom, PrologError
from ..terms.unify import unify, undo_to
from ..terms.walk import copy_term
from .db import SBUILTIN
from .proof import SNode, build_tree
from .arith import eval_arith
from .plugins import UniformChoice
from .kinds import (CP_ENUM, CP_ENUMB, CP_PURE, CP_SB, CP_SBU, CP_STOCH, ENUM, PLAIN,
                    PURE, P_SEXIT, REPLAY, SAMPLE, SampleFailed)


class Sampling:
    """The engine's stochastic choice points (mixed into Engine)."""

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
