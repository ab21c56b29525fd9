"""Replay: re-prove a recorded proof, keeping some of its choices and changing others
(the MCMC proposals). A part of :class:`slpy.logic.engine.Engine`.

Two modes, both addressing choice points by their path in the proof tree:

- *regrow* (:meth:`Replay.run_replay`, the `uc`/`q0`/`cycle` proposals): every choice
  outside the subtree of the cut node is kept (the move is rejected when one cannot
  be), the cut node and everything below it is sampled afresh from the prior, with
  backtracking confined to that part.
- *local* (:meth:`Replay.run_local`, the single-site, swap and exact moves): the
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
from .kinds import (CP_BOTTOM, CP_FENCE, CP_STOCH, PURE, P_DONE, P_SEXIT, REPLAY,
                    ReplayReject, SAMPLE, SampleFailed)
from .sampling import _light, _pick

_NONE = object()


class Replay:
    """The engine's replay of a recorded proof (mixed into Engine)."""

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

    # -- regrow --------------------------------------------------------------------------------
    def _replay_stoch(self, pred, args, g, nxt, cb, pn):
        if self.rp_local:
            return self._local_stoch(pred, args, g, nxt, cb, pn)
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
        return self._keep_stoch(pred, args, g, nxt, cb, pn, path, old,
                                path == self.rp_cut[:len(path)])

    def _keep_stoch(self, pred, args, g, nxt, cb, pn, path, old, ancestor):
        """Prove the labelled call at `path` with the recorded choice `old`."""
        same = _same_call(args, old.call) and (
            g is None if old.guard is None else g is not None and _same_guard(g, old.guard))
        if same and not ancestor and old.ground:
            # the same call below which nothing changes: graft the recorded subtree
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
            node.height = len(self.cps)
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
        f, node = self._take_clause(pred, args, g, nxt, cb, pn, path, old, old.key)
        self.rp_logfactor += math.log(node.prob) - math.log(old.prob)
        return f

    def _take_clause(self, pred, args, g, nxt, cb, pn, path, old, key):
        """Prove the labelled call with the candidate clause `key`, its probability
        computed afresh: (body frame, node); rejects when `key` is no candidate."""
        node = self._new_node(pred, args, g, pn)
        node.path = path
        node.fresh = False
        node.old = old
        if old is not None:
            self.rp_linked.append(node)
        exitf = (P_SEXIT, (node,), nxt, cb, pn)
        cands = self._candidates(pred, args, g, exitf, node.height, node)
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
        return self._choose(node, chosen, total), node

    def _replay_sbuiltin(self, pred, args, nxt, pn):
        if self.rp_local:
            return self._local_sbuiltin(pred, args, nxt, pn)
        path, old, fresh = self._replay_lookup(pred, pn)
        if fresh:
            # a builtin cut node has no subtree
            return self._fresh_sbuiltin(pred, args, nxt, pn)
        del self.cps[self.rp_fence + 1:]
        return self._keep_sbuiltin(pred, args, nxt, pn, path, old)

    def _keep_sbuiltin(self, pred, args, nxt, pn, path, old):
        """Replay the builtin choice at `path` with the recorded value of `old`."""
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
        f, node = self._take_value(pred, args, nxt, pn, path, target, cands, old.key)
        if abs(node.prob - old.prob) > 1e-15:
            self.rp_logfactor += math.log(node.prob) - math.log(old.prob)
        return f

    def _take_value(self, pred, args, nxt, pn, path, target, cands, key):
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
        node = self._new_node(pred, args, None, pn)
        node.path = path
        node.fresh = False
        node.cands = cands
        node.total = total
        f = self._choose_builtin(node, target, chosen, total, nxt)
        if f is None:
            raise ReplayReject()
        return f, node

    # -- local moves ---------------------------------------------------------------------------
    def _local_lookup(self, pred, pn):
        """(path, recorded node of the same predicate at that path or None, forced key
        or _NONE); commits every earlier choice."""
        i = pn.nch
        pn.nch = i + 1
        path = pn.path + (i,)
        po = pn.old
        old = po.children[i] if po is not None and i < len(po.children) else None
        if old is not None and old.pred is not pred:
            old = None
        del self.cps[self.rp_fence + 1:]
        key = self.rp_forced.get(path, _NONE)
        if key is _NONE:
            strict = self.rp_strict
            if strict is not None and path[:len(strict)] == strict:
                # the move sets every choice of this subtree: the program is not shaped
                # as the move assumed
                raise ReplayReject("unforced")
        return path, old, key

    def _local_stoch(self, pred, args, g, nxt, cb, pn):
        path, old, key = self._local_lookup(pred, pn)
        if key is not _NONE:
            f, node = self._take_clause(pred, args, g, nxt, cb, pn, path, old, key)
            self.rp_forced_logp += math.log(node.prob)
            self.rp_nforced += 1
            return f
        if old is not None:
            return self._keep_stoch(pred, args, g, nxt, cb, pn, path, old,
                                    path in self.rp_prefixes)
        # fresh, from the prior, without a choice point to come back to
        node = self._new_node(pred, args, g, pn)
        node.path = path
        node.fresh = False
        exitf = (P_SEXIT, (node,), nxt, cb, pn)
        cands = self._candidates(pred, args, g, exitf, node.height, node)
        if not cands:
            raise ReplayReject()
        total = 0.0
        for c in cands:
            total += c[0]
        node.cands = _light(cands)
        node.total = total
        return self._choose(node, cands[_pick(cands, self.rng.random() * total)], total)

    def _local_sbuiltin(self, pred, args, nxt, pn):
        path, old, key = self._local_lookup(pred, pn)
        if key is not _NONE:
            target, cands = pred.fn(self, *args)
            self.sb_target = target
            f, node = self._take_value(pred, args, nxt, pn, path, target, cands, key)
            self.rp_forced_logp += math.log(node.prob)
            self.rp_nforced += 1
            return f
        if old is not None:
            return self._keep_sbuiltin(pred, args, nxt, pn, path, old)
        return self._fresh_sbuiltin(pred, args, nxt, pn)

    def _fresh_sbuiltin(self, pred, args, nxt, pn):
        """Draw a stochastic builtin afresh: once, no redraw on a later failure."""
        self.mode = PURE
        try:
            f = self._sbuiltin(pred, args, nxt, pn)
        finally:
            self.mode = REPLAY
        del self.cps[self.rp_fence + 1:]
        if f is None:
            raise ReplayReject()
        return f

    # -- running -------------------------------------------------------------------------------
    def run_replay(self, goal, tree: ProofNode, cut: tuple, rng):
        """Regrow the proof `tree` of goal below the node at path `cut`.

        Returns (proof tree, log factor) where the factor is sum log(p_new/p_old) over
        kept choices whose probability changed; raises ReplayReject when the kept
        choices cannot be replayed.
        """
        saved = self.rp_cut
        self.rp_cut = cut
        try:
            return self._replay_run(goal, tree, rng, cut == ())
        finally:
            self.rp_cut = saved

    def run_local(self, goal, tree: ProofNode, forced: dict, rng, strict: tuple = None):
        """Re-prove `tree` with the choices at the paths of `forced` (path -> clause,
        or builtin key) set, reusing or drawing afresh the others (see the module's
        docstring). `strict`: a path below which every choice must be forced.

        Returns (proof tree, log reuse factor, log forced): the sum of log(p_new/p_old)
        over reused choices, and of log p over the forced ones. Raises ReplayReject
        when the move cannot be made (a reused or forced choice is no candidate, a
        forced path is not reached, or the proof fails).
        """
        prefixes = set()
        for p in forced:
            for i in range(len(p) + 1):
                prefixes.add(p[:i])
        saved = (self.rp_local, self.rp_forced, self.rp_prefixes, self.rp_strict,
                 self.rp_forced_logp, self.rp_nforced, self.rp_cut)
        self.rp_local, self.rp_forced, self.rp_prefixes = True, forced, prefixes
        self.rp_strict, self.rp_forced_logp, self.rp_nforced = strict, 0.0, 0
        self.rp_cut = None
        try:
            tree, factor = self._replay_run(goal, tree, rng, False)
            if self.rp_nforced != len(forced):
                raise ReplayReject()   # the reverse move could not set them back
            return tree, factor, self.rp_forced_logp
        finally:
            (self.rp_local, self.rp_forced, self.rp_prefixes, self.rp_strict,
             self.rp_forced_logp, self.rp_nforced, self.rp_cut) = saved

    def _replay_run(self, goal, tree, rng, root_fresh):
        saved = (self.mode, self.rng, self.plog, self.logp, self.record_answers,
                 self.rp_fence, self.rp_logfactor, self.rp_cutnode)
        self.mode, self.rng, self.plog, self.logp = REPLAY, rng, None, 0.0
        self.record_answers = True
        self.ground_memo = {}
        self.rp_logfactor = 0.0
        root = SNode(None, (), None, None)
        root.fresh = root_fresh
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
             self.rp_fence, self.rp_logfactor, self.rp_cutnode) = saved


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
