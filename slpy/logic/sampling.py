"""Stochastic choice points: labelled clauses and stochastic builtins drawn, recorded
as proof nodes and redrawn on backtracking, under backtrackable sampling, pure SLP
sampling or exhaustive enumeration. A part of :class:`slpy.logic.engine.Engine`.

Every stochastic choice goes through one protocol, a :class:`Choice`:

- ``push(eng, node, pool, total, target, nxt)`` makes the first choice among the
  candidates ``pool`` (``total``: the weight they are normalised by) and leaves a
  choice point (CP_CHOICE, or CP_PURE) when backtracking may come back to it;
- ``resume(eng, cp)`` makes the next choice when backtracking reaches that CP_CHOICE.

Both return the frame to run next, or None (fail). A Choice is a *way* of choosing
(:class:`Draw` by weight among the untried, :class:`Enumerate` every candidate in
turn, :class:`Pure` once, :class:`DrawUniform` an index of a UniformChoice) around a
*family*'s ``take`` (:func:`take_clause`: a clause's head bindings and body;
:func:`take_value`: a builtin's output bound to a value). The tables CLAUSE_WAYS,
VALUE_WAYS and UNIFORM_WAYS give the Choice of each sampling mode.
"""
from __future__ import annotations

import math

from ..terms.term import Var, Struct, atom, PrologError
from ..terms.unify import unify, undo_to
from .db import SBUILTIN
from .proof import SNode
from .snapshot import _snapshot, _snapshot_guard
from .arith import eval_arith
from .plugins import UniformChoice
from .kinds import (CP_CHOICE, CP_PURE, CH_LEFT, CH_NEXT, CH_NODE, CH_POOL, CH_POS,
                    CH_TARGET, CH_TOTAL, ENUM, PLAIN, P_SEXIT, REPLAY, SAMPLE,
                    LimitExceeded, SampleFailed)


# -- the families: what taking a candidate does --------------------------------------------
def take_clause(eng, node, c, total, target=None, nxt=None):
    """Take the clause candidate c = (weight, clause, bindings, body frame): its head
    bindings are made again, its body is the next frame."""
    trail = eng.trail
    for v, val in c[2]:
        v.ref = val
        trail.append(v)
    node.chosen = c[1].number
    node.key = c[1]
    node.clause = c[1]
    node.prob = c[0] / total
    eng.logp += math.log(node.prob)
    eng.plog = (node, eng.plog)
    return c[3]


def take_value(eng, node, c, total, target, nxt):
    """Take the builtin candidate c = (weight, value, key): target is bound to value."""
    w, value, key = c
    if not unify(target, value, eng.trail):
        return None
    node.chosen = key
    node.key = key
    node.value = value
    node.prob = w / total
    eng.logp += math.log(node.prob)
    eng.plog = (node, eng.plog)
    return nxt


# -- the ways of choosing ----------------------------------------------------------------------
class Choice:
    """One kind of stochastic choice point (see the module's docstring)."""
    name = "choice"
    all_clauses = False   # labelled clauses: normalise over all the predicate's clauses

    def __init__(self, take):
        self.take = take

    def __repr__(self):
        return f"<{self.name} {self.take.__name__}>"

    def push(self, eng, node, pool, total, target, nxt):
        raise NotImplementedError

    def resume(self, eng, cp):
        raise NotImplementedError


class Draw(Choice):
    """Backtrackable sampling: draw by weight; on backtracking, draw again among the
    untried (CH_POOL, of weight CH_LEFT)."""
    name = "draw"

    def push(self, eng, node, cands, total, target, nxt):
        i = _pick(cands, eng.rng.random() * total)
        c = cands[i]
        if len(cands) > 1:
            eng.cps.append([CP_CHOICE, len(eng.trail), eng.plog, eng.logp, self, node,
                            cands[:i] + cands[i + 1:], 0, total - c[0], total, target, nxt])
        return self.take(eng, node, c, total, target, nxt)

    def resume(self, eng, cp):
        rest = cp[CH_POOL]
        if not rest:
            return None
        left = cp[CH_LEFT]
        i = _pick(rest, eng.rng.random() * left)
        c = rest[i]
        if len(rest) > 1:
            cp[CH_POOL] = rest[:i] + rest[i + 1:]
            cp[CH_LEFT] = left - c[0]
            eng.cps.append(cp)
        return self.take(eng, cp[CH_NODE], c, cp[CH_TOTAL], cp[CH_TARGET], cp[CH_NEXT])


class Enumerate(Choice):
    """Exhaustive enumeration: every candidate in turn (CH_POS: the next), leaving out
    those that take the derivation below the engine's min_prob."""
    name = "enumerate"
    all_clauses = True

    def push(self, eng, node, cands, total, target, nxt):
        cp = [CP_CHOICE, len(eng.trail), eng.plog, eng.logp, self, node, cands, 0, 0.0,
              total, target, nxt]
        eng.cps.append(cp)
        return self._next(eng, cp)

    def resume(self, eng, cp):
        eng.cps.append(cp)
        return self._next(eng, cp)

    def _next(self, eng, cp):
        cands = cp[CH_POOL]
        i = cp[CH_POS]
        if i + 1 >= len(cands):
            eng.cps.pop()
        else:
            cp[CH_POS] = i + 1
        c = cands[i]
        total = cp[CH_TOTAL]
        if eng.logp + math.log(c[0] / total) < eng.min_logp():
            return None
        return self.take(eng, cp[CH_NODE], c, total, cp[CH_TARGET], cp[CH_NEXT])


class Pure(Choice):
    """Pure SLP sampling: one draw by weight out of `total`; a draw that falls past the
    candidates (a clause whose head does not unify) or a later failure back into the
    choice (its CP_PURE) fails the whole sample."""
    name = "pure"
    all_clauses = True

    def push(self, eng, node, cands, total, target, nxt):
        if not cands:
            raise SampleFailed()
        u = eng.rng.random() * total
        acc = 0.0
        for c in cands:
            acc += c[0]
            if u < acc:
                break
        else:
            if total > acc:
                raise SampleFailed()
        eng.cps.append([CP_PURE, len(eng.trail), eng.plog, eng.logp])
        return self.take(eng, node, c, total, target, nxt)

    def resume(self, eng, cp):
        raise SampleFailed()


class DrawUniform(Choice):
    """A builtin's uniform choice among n values (a UniformChoice, never listed): an
    index drawn uniformly; on backtracking another untried one (CH_POS: the tried).
    With `pure`, once (CP_PURE)."""
    name = "uniform"

    def __init__(self, pure=False):
        super().__init__(take_value)
        self.pure = pure

    def push(self, eng, node, u, n, target, nxt):
        i = min(int(eng.rng.random() * n), n - 1)
        if self.pure:
            eng.cps.append([CP_PURE, len(eng.trail), eng.plog, eng.logp])
        elif n > 1:
            eng.cps.append([CP_CHOICE, len(eng.trail), eng.plog, eng.logp, self, node, u, {i},
                            0.0, n, target, nxt])
        return take_value(eng, node, (1.0, u.value(i), u.key(i)), n, target, nxt)

    def resume(self, eng, cp):
        u = cp[CH_POOL]
        tried = cp[CH_POS]
        n = u.n
        left = n - len(tried)
        if left <= 0:
            return None
        rng = eng.rng
        if len(tried) * 2 < n:  # mostly untried: rejection sampling is cheap
            while True:
                i = min(int(rng.random() * n), n - 1)
                if i not in tried:
                    break
        else:
            rest = [j for j in range(n) if j not in tried]
            i = rest[min(int(rng.random() * left), left - 1)]
        tried.add(i)
        if left > 1:
            eng.cps.append(cp)
        return take_value(eng, cp[CH_NODE], (1.0, u.value(i), u.key(i)), n, cp[CH_TARGET],
                          cp[CH_NEXT])


CLAUSE_DRAW = Draw(take_clause)
VALUE_DRAW = Draw(take_value)
UNIFORM_DRAW = DrawUniform()
# the Choice of each sampling mode (indexed by SAMPLE, PURE, ENUM, REPLAY; PLAIN is
# SAMPLE with a generator and ENUM without; REPLAY draws below the cut)
CLAUSE_WAYS = (CLAUSE_DRAW, Pure(take_clause), Enumerate(take_clause), CLAUSE_DRAW)
VALUE_WAYS = (VALUE_DRAW, Pure(take_value), Enumerate(take_value), VALUE_DRAW)
UNIFORM_WAYS = (UNIFORM_DRAW, DrawUniform(pure=True), None, UNIFORM_DRAW)


class Sampling:
    """The engine's stochastic choice points (mixed into Engine)."""
    clause_ways = CLAUSE_WAYS   # an engine may set its own (slpy.learning's explorer)

    def _label_value(self, lab, clause):
        if type(lab) is not int and type(lab) is not float:
            try:
                lab = eval_arith(lab)
            except PrologError as e:
                raise _label_error(e, clause) from None
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
        matched = 0
        for c in cl:
            try:
                r = c.fn(args, g, exitf, h, node, trail)   # computes a label that is
            except PrologError as e:                        # an expression
                raise _label_error(e, c) from None
            if r is not None:
                matched += 1
                w = c.ground_label
                if w is None:
                    w = self._label_value(r[0], c)
                if w > 0:
                    cands.append((w, c, [(v, v.ref) for v in trail[mark:]], r[1]))
            undo_to(trail, mark)
        # every clause matched: the candidates' total is all the clauses' (see _gap)
        self.all_matched = matched == len(pred.clauses)
        return cands

    def _gap(self, pred, g, total):
        """log W_cand - log W_all for the candidates just found (total: W_cand), W_all
        the labels of all the clauses whose guard unifies (pure SLP normalisation): 0
        when every clause matched the call."""
        if self.all_matched:
            return 0.0
        try:
            w_all = self._pure_total(pred, g)
        except PrologError as e:
            raise PrologError(e.term, f"{pred.name}/{pred.arity}: a label could not be "
                              f"computed from the call's guard alone ({e}); the sampler "
                              f"normalises a choice over all the predicate's clauses, so "
                              f"a label may use only the guard's variables") from None
        return math.log(total) - math.log(w_all) if w_all > total else 0.0

    def _pure_total(self, pred, g):
        """Sum of the labels of ALL clauses (pure SLP semantics), guard unified only."""
        total = 0.0
        trail = self.trail
        mark = len(trail)
        for c in pred.clauses:
            if c.label_fn is None:  # a constant label and no guard to unify
                total += c.ground_label
                continue
            try:
                r = c.label_fn((), g, None, 0, None, trail)
            except PrologError as e:
                raise _label_error(e, c) from None
            if r is not None:
                total += self._label_value(r[0], c)
            undo_to(trail, mark)
        return total

    def _new_node(self, pred, args, g, pn):
        node = SNode(pred, args, g, pn)
        # a builtin's output argument is what the choice binds: shown as a fresh variable
        node.call = _snapshot(pred, args, self.sb_target if pred.kind == SBUILTIN else None)
        if g is not None:
            node.gcall = _snapshot_guard(g)
        node.height = len(self.cps)
        return node

    def _stoch(self, pred, args, g, nxt, cb, pn):
        """A call of a labelled predicate (g: its guard, or None)."""
        mode = self.mode
        if mode == REPLAY:
            if not pn.fresh:
                return self.replay_run.stoch(self, pred, args, g, nxt, cb, pn)
            way = CLAUSE_DRAW
        elif mode == PLAIN:  # sampling with a generator, enumeration without
            way = CLAUSE_DRAW if self.rng is not None else CLAUSE_WAYS[ENUM]
        else:
            way = self.clause_ways[mode]
        node = self._new_node(pred, args, g, pn)
        exitf = (P_SEXIT, (node,), nxt, cb, pn)
        cands = self._candidates(pred, args, g, exitf, node.height, node)
        if way.all_clauses:
            total = self._pure_total(pred, g)
        else:
            total = 0.0
            for c in cands:
                total += c[0]
        if not cands or total <= 0:
            if total > 0 and isinstance(way, Pure):
                return way.push(self, node, cands, total, None, None)   # fails the sample
            return None
        node.cands = _light(cands)
        node.total = total
        return way.push(self, node, cands, total, None, None)

    def min_logp(self):
        return math.log(self.min_prob) if self.min_prob > 0 else -math.inf

    def _sexit(self, node, nxt):
        if self.record_answers:
            # A ground answer cannot change any more, so it is kept by reference (a
            # finished derivation is never undone); replay reuses only ground answers.
            memo = self.ground_memo
            args = []
            walk = []       # compound arguments not yet known to be ground
            ground = True
            for a in node.args:  # dereferenced at the top: replay compares these
                while type(a) is Var:
                    r = a.ref
                    if r is None:
                        ground = False
                        break
                    a = r
                args.append(a)
                if type(a) is Struct and id(a) not in memo:
                    walk.append(a)
            if ground and (not walk or self._ground(walk)):
                node.answer = Struct("$", tuple(args))
                node.ground = True
            else:
                node.answer = None
                node.ground = False
        return nxt

    # -- stochastic builtins -------------------------------------------------------------------
    def _ground(self, tops) -> bool:
        """Are the compound terms `tops` ground? Those found ground are remembered (by
        identity, for this derivation), so a parent's answer, which holds its
        children's answers, is checked without walking them again."""
        memo = self.ground_memo
        stack = list(tops)
        while stack:
            for a in stack.pop().args:
                while type(a) is Var:
                    a = a.ref
                    if a is None:
                        return False
                if type(a) is Struct and id(a) not in memo:
                    stack.append(a)
        for t in tops:
            memo[id(t)] = t  # keep the object alive so its id stays its own
        return True

    def _sbuiltin(self, pred, args, nxt, pn):
        """A builtin choice point: pred.fn returns (target, [(weight, value, key), ...])
        or (target, UniformChoice); choosing a candidate unifies target with its value."""
        mode = self.mode
        if mode == PLAIN:  # sampling with a generator, enumeration without
            mode = SAMPLE if self.rng is not None else ENUM
        elif mode == REPLAY and not pn.fresh:
            return self.replay_run.sbuiltin(self, pred, args, nxt, pn)
        return self._sbuiltin_by(mode, pred, args, nxt, pn)

    def _sbuiltin_by(self, mode, pred, args, nxt, pn):
        target, cands = pred.fn(self, *args)
        self.sb_target = target
        if type(cands) is UniformChoice:
            way = UNIFORM_WAYS[mode]
            if way is not None:
                n = cands.n
                if n == 0:
                    return None
                node = self._new_node(pred, args, None, pn)
                node.cands = cands
                node.total = n
                return way.push(self, node, cands, n, target, nxt)
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
        return VALUE_WAYS[mode].push(self, node, cands, total, target, nxt)

    # -- sampling entry points ---------------------------------------------------------------
    def run_sampling(self, goal, rng, mode=SAMPLE, record=False):
        """First solution of goal under sampling; (ok, proof tree, log prob)."""
        try:
            for s in self.solutions(goal, mode, rng, record=record):
                return True, s.tree, s.log_prob
            return False, None, None
        except SampleFailed:
            return False, None, None


def _label_error(e, clause):
    """An error computing a clause's label, with the clause's place in its message (the
    ball stays as it was, for catch/3)."""
    if isinstance(e, LimitExceeded) or str(e).startswith(clause.file or "\0"):
        return e
    where = f"{clause.file}:{clause.line}: " if clause.file else ""
    pred = clause.pred
    return type(e)(e.term, f"{where}the label of {pred.name}/{pred.arity} (clause "
                           f"{clause.number}): {e}")


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
