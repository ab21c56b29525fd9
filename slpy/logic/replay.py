"""Replay: re-prove a recorded proof, keeping some of its choices and changing others
(the MCMC proposals): :meth:`Engine.run_replay` and :meth:`Engine.run_local` run a
:class:`Regrow` or a :class:`LocalMove`, the state of one replay, which the engine's
stochastic calls hand their choices to while it runs (``engine.replay_run``).

Two modes, both addressing choice points by their path in the proof tree:

- *regrow* (:class:`Regrow`, the `uc`/`q0`/`cycle` proposals): every choice
  outside the subtree of the cut node is kept (the move is rejected when one cannot
  be), the cut node and everything below it is sampled afresh from the prior, with
  backtracking confined to that part.
- *local* (:class:`LocalMove`, the single-site, swap and exact moves): the
  choices at the *forced* paths are set by the move; every other choice is *reused*
  when the recorded proof has a choice point of the same predicate at the same path
  under a reused parent (its recorded choice must still be a candidate, else the move
  is rejected) and drawn *fresh* from the prior otherwise. Nothing is backtracked
  into: a failure rejects the move. The reuse rule depends only on the two proofs'
  addresses and predicates, so the reverse move reuses exactly the same choices, as
  the Metropolis-Hastings correction needs (DESIGN.md, "Local moves").
"""
from __future__ import annotations

import math

from ..terms.term import Var, Atom, Struct, deref
from ..terms.unify import unify, undo_to, variant
from .proof import SNode, ProofNode, build_tree
from .plugins import UniformChoice
from .kinds import (CP_BOTTOM, CP_FENCE, PURE, P_DONE, P_SEXIT, REPLAY, ReplayReject,
                    SampleFailed)
from .sampling import CLAUSE_DRAW, _light, _pick, take_clause, take_value

_NONE = object()


class ReplayRun:
    """The state of one replay of a recorded proof: where its committed part ends
    (``fence``: the index of its CP_FENCE), the log factor of the kept choices whose
    probability changed, the SNodes linked to the recorded tree, and (regrow) the
    node of the cut once it is reached. A subclass says which choices are kept."""

    __slots__ = ("fence", "logfactor", "cutnode", "linked")

    def __init__(self):
        self.fence = 0
        self.logfactor = 0.0
        self.cutnode = None
        self.linked = []

    def stoch(self, eng, pred, args, g, nxt, cb, pn):
        """A labelled call made under the recorded part of the proof."""
        raise NotImplementedError

    def sbuiltin(self, eng, pred, args, nxt, pn):
        """A stochastic builtin called under the recorded part of the proof."""
        raise NotImplementedError

    def run(self, eng, goal, tree: ProofNode, rng, root_fresh: bool):
        """Prove goal replaying tree: (proof tree, log factor); ReplayReject when the
        kept choices cannot be replayed."""
        root = SNode(None, (), None, None)
        root.fresh = root_fresh
        root.path = ()
        root.old = tree
        # SNodes linked to the old tree, unlinked afterwards: the new tree's records
        # hold SNodes, which must not keep every earlier tree alive
        self.linked = [root]
        with eng.session(REPLAY, rng, record=True, replay=self):
            cps = eng.cps
            base = len(cps)
            mark = len(eng.trail)
            if base == 0:
                eng.start_limits()
            cps.append([CP_BOTTOM, mark, None, 0.0])
            self.fence = base + 1
            cps.append([CP_FENCE, mark, None, 0.0])
            try:
                f = eng.goal_frame(goal, (P_DONE, (), None, base + 2, root), base + 2, root)
                if eng._run(f, base) is None:
                    raise ReplayReject()
                return build_tree(eng.plog), self.logfactor
            except SampleFailed:
                undo_to(eng.trail, mark)
                raise ReplayReject() from None
            except (Exception, KeyboardInterrupt):
                undo_to(eng.trail, mark)
                raise
            finally:
                for n in self.linked:
                    n.old = None
                self.linked = []
                del cps[base:]
                if base == 0:
                    # a finished top-level run keeps its bindings but not its trail
                    del eng.trail[mark:]

    # -- kept choices ----------------------------------------------------------------------
    def keep_stoch(self, eng, pred, args, g, nxt, cb, pn, path, old, ancestor):
        """Prove the labelled call at `path` with the recorded choice `old`."""
        same = _same_call(args, old.call) and (
            g is None if old.guard is None else g is not None and _same_guard(g, old.guard))
        if same and not ancestor and old.ground:
            # the same call below which nothing changes: graft the recorded subtree
            _bind_answer(args, old.answer.args, eng.trail)
            memo = eng.ground_memo
            for a in old.answer.args:  # known ground: ancestors need not walk it again
                if type(a) is Struct:
                    memo[id(a)] = a
            eng.plog = ((old, pn), eng.plog)
            return nxt
        if same:
            # the same call has the same candidates and probabilities: prove only the
            # recorded clause (and keep the recorded snapshot of the call)
            node = SNode(pred, args, g, pn)
            node.call = old.call
            node.gcall = old.guard
            node.height = len(eng.cps)
            node.path = path
            node.fresh = False
            node.old = old
            self.linked.append(node)
            exitf = (P_SEXIT, (node,), nxt, cb, pn)
            c = old.key
            body = c.fn(args, g, exitf, node.height, node, eng.trail)
            if body is None or c.erased:
                raise ReplayReject()
            node.cands, node.total = old._cands, old._total
            node.chosen, node.key, node.clause, node.prob = c.number, c, c, old.prob
            eng.plog = (node, eng.plog)
            return body[1]
        f, node = self.take_clause(eng, pred, args, g, nxt, cb, pn, path, old, old.key)
        self.logfactor += math.log(node.prob) - math.log(old.prob)
        return f

    def take_clause(self, eng, pred, args, g, nxt, cb, pn, path, old, key):
        """Prove the labelled call with the candidate clause `key`, its probability
        computed afresh: (body frame, node); rejects when `key` is no candidate."""
        node = eng._new_node(pred, args, g, pn)
        node.path = path
        node.fresh = False
        node.old = old
        if old is not None:
            self.linked.append(node)
        exitf = (P_SEXIT, (node,), nxt, cb, pn)
        cands = eng._candidates(pred, args, g, exitf, node.height, node)
        total = 0.0
        chosen = None
        for c in cands:
            total += c[0]
            if c[1] is key:
                chosen = c
        if chosen is None:
            raise ReplayReject()
        node.cands = _light(cands)
        node.total = total
        return take_clause(eng, node, chosen, total), node

    def keep_sbuiltin(self, eng, pred, args, nxt, pn, path, old):
        """Replay the builtin choice at `path` with the recorded value of `old`."""
        target, cands = pred.fn(eng, *args)
        eng.sb_target = target
        if cands is old._cands and _same_call(args, old.call, target):
            # the same call of a cached choice: the recorded value, no lookup or snapshot
            node = SNode(pred, args, None, pn)
            node.call = old.call
            node.height = len(eng.cps)
            node.path = path
            node.fresh = False
            node.cands = cands
            node.total = old._total
            if not unify(target, old.value, eng.trail):
                raise ReplayReject()
            node.chosen = node.key = old.key
            node.value = old.value
            node.prob = old.prob
            eng.logp += math.log(old.prob)
            eng.plog = (node, eng.plog)
            return nxt
        f, node = self.take_value(eng, pred, args, nxt, pn, path, target, cands, old.key)
        if abs(node.prob - old.prob) > 1e-15:
            self.logfactor += math.log(node.prob) - math.log(old.prob)
        return f

    def take_value(self, eng, pred, args, nxt, pn, path, target, cands, key):
        """Choose the builtin's candidate `key`: (next frame, node); rejects when `key`
        is no candidate or its value does not unify."""
        if type(cands) is UniformChoice:
            i = cands.index_of(key)
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
                    if c[2] == key:
                        chosen = c
            if chosen is None:
                raise ReplayReject()
        node = eng._new_node(pred, args, None, pn)
        node.path = path
        node.fresh = False
        node.cands = cands
        node.total = total
        f = take_value(eng, node, chosen, total, target, nxt)
        if f is None:
            raise ReplayReject()
        return f, node

    def fresh_sbuiltin(self, eng, pred, args, nxt, pn):
        """Draw a stochastic builtin afresh: once, no redraw on a later failure."""
        f = eng._sbuiltin_by(PURE, pred, args, nxt, pn)
        del eng.cps[self.fence + 1:]
        if f is None:
            raise ReplayReject()
        return f


class Regrow(ReplayRun):
    """Regrow below the node at path ``cut``: every choice outside its subtree is
    kept, the cut node is drawn afresh with backtracking confined to its subtree."""

    __slots__ = ("cut",)

    def __init__(self, cut: tuple):
        super().__init__()
        self.cut = cut

    def _lookup(self, pred, pn):
        i = pn.nch
        pn.nch = i + 1
        path = pn.path + (i,)
        cut = self.cut
        fresh = path[:len(cut)] == cut
        # the recorded node at the same place: the i-th child of the parent's record
        po = pn.old
        old = po.children[i] if po is not None and i < len(po.children) else None
        if not fresh and (old is None or old.pred is not pred):
            raise ReplayReject()
        return path, old, fresh

    def stoch(self, eng, pred, args, g, nxt, cb, pn):
        path, old, fresh = self._lookup(pred, pn)
        if fresh:  # the cut node: sample afresh, backtracking within its subtree
            node = eng._new_node(pred, args, g, pn)
            node.path = path
            node.fresh = True
            self.cutnode = node
            exitf = (P_SEXIT, (node,), nxt, cb, pn)
            cands = eng._candidates(pred, args, g, exitf, node.height, node)
            total = sum(c[0] for c in cands)
            if not cands:
                raise ReplayReject()
            node.cands = _light(cands)
            node.total = total
            return CLAUSE_DRAW.push(eng, node, cands, total, None, None)
        del eng.cps[self.fence + 1:]  # kept choices are committed
        return self.keep_stoch(eng, pred, args, g, nxt, cb, pn, path, old,
                               path == self.cut[:len(path)])

    def sbuiltin(self, eng, pred, args, nxt, pn):
        path, old, fresh = self._lookup(pred, pn)
        if fresh:
            # a builtin cut node has no subtree
            return self.fresh_sbuiltin(eng, pred, args, nxt, pn)
        del eng.cps[self.fence + 1:]
        return self.keep_sbuiltin(eng, pred, args, nxt, pn, path, old)


class LocalMove(ReplayRun):
    """A local move: the choices at the paths of ``forced`` set (path -> clause or
    builtin key), the others reused or drawn afresh; ``strict``: a path below which
    every choice must be forced. Counts the forced choices made and their log
    probability."""

    __slots__ = ("forced", "prefixes", "strict", "forced_logp", "nforced")

    def __init__(self, forced: dict, strict: tuple | None = None):
        super().__init__()
        prefixes = set()
        for p in forced:
            for i in range(len(p) + 1):
                prefixes.add(p[:i])
        self.forced = forced
        self.prefixes = prefixes
        self.strict = strict
        self.forced_logp = 0.0
        self.nforced = 0

    def _lookup(self, eng, pred, pn):
        """(path, recorded node of the same predicate at that path or None, forced key
        or _NONE); commits every earlier choice."""
        i = pn.nch
        pn.nch = i + 1
        path = pn.path + (i,)
        po = pn.old
        old = po.children[i] if po is not None and i < len(po.children) else None
        if old is not None and old.pred is not pred:
            old = None
        del eng.cps[self.fence + 1:]
        key = self.forced.get(path, _NONE)
        if key is _NONE:
            strict = self.strict
            if strict is not None and path[:len(strict)] == strict:
                # the move sets every choice of this subtree: the program is not shaped
                # as the move assumed
                raise ReplayReject("unforced")
        return path, old, key

    def stoch(self, eng, pred, args, g, nxt, cb, pn):
        path, old, key = self._lookup(eng, pred, pn)
        if key is not _NONE:
            f, node = self.take_clause(eng, pred, args, g, nxt, cb, pn, path, old, key)
            self.forced_logp += math.log(node.prob)
            self.nforced += 1
            return f
        if old is not None:
            return self.keep_stoch(eng, pred, args, g, nxt, cb, pn, path, old,
                                   path in self.prefixes)
        # fresh, from the prior, without a choice point to come back to
        node = eng._new_node(pred, args, g, pn)
        node.path = path
        node.fresh = False
        exitf = (P_SEXIT, (node,), nxt, cb, pn)
        cands = eng._candidates(pred, args, g, exitf, node.height, node)
        if not cands:
            raise ReplayReject()
        total = 0.0
        for c in cands:
            total += c[0]
        node.cands = _light(cands)
        node.total = total
        return take_clause(eng, node, cands[_pick(cands, eng.rng.random() * total)], total)

    def sbuiltin(self, eng, pred, args, nxt, pn):
        path, old, key = self._lookup(eng, pred, pn)
        if key is not _NONE:
            target, cands = pred.fn(eng, *args)
            eng.sb_target = target
            f, node = self.take_value(eng, pred, args, nxt, pn, path, target, cands, key)
            self.forced_logp += math.log(node.prob)
            self.nforced += 1
            return f
        if old is not None:
            return self.keep_sbuiltin(eng, pred, args, nxt, pn, path, old)
        return self.fresh_sbuiltin(eng, pred, args, nxt, pn)

    def run(self, eng, goal, tree, rng, root_fresh=False):
        """(proof tree, log reuse factor, log forced); ReplayReject also when not every
        forced choice was made (the reverse move could not set them back)."""
        tree, factor = super().run(eng, goal, tree, rng, root_fresh)
        if self.nforced != len(self.forced):
            raise ReplayReject()
        return tree, factor, self.forced_logp


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
