"""Replay: re-prove a recorded proof, keeping some of its choices and changing others
(the MCMC proposals). :meth:`Engine.replay` runs a :class:`Replay`, which the
engine's stochastic calls hand their choices to while it runs (``engine.replay_run``),
and returns a :class:`Replayed`.

Choice points are addressed by their path in the proof tree. Each choice point the new
proof reaches is one of:

- *forced*: its path is a key of ``forced``; the move sets its choice;
- *kept*: the recorded proof has a choice point of the same predicate at the same path
  under a kept or forced parent, outside the *cut* subtree: its recorded choice is
  made again, its probability recomputed in the new context (if the recorded choice
  is no longer a candidate, the replay is rejected);
- *fresh*: anything else (at or below the cut, or where the recorded proof has no
  such choice point, wherever it is): drawn from its candidates without a choice
  point to come back to.

A recorded choice point that the new proof does not reach is *dropped*. Nothing is
backtracked into: a failure anywhere rejects the replay. The classification depends
only on the two proofs' paths and predicates, so it is symmetric: the reverse move
keeps exactly the same choices, draws fresh the ones dropped here and drops the ones
drawn fresh here (docs/mcmc.md derives the acceptance ratio from this).

Probabilities. The sampler's target is the normalised SLP distribution: a labelled
call's choice has probability p = w / W_all, W_all the labels of all the predicate's
clauses whose guard unifies (pure SLP semantics, as enumeration). Fresh draws are
made among the clauses that match the call, with q = w / W_cand; a node records
``prob`` = w / W_cand and ``lam`` = log W_cand - log W_all = log p - log q (0 when
every clause matches, the usual case). Replayed gathers what the acceptance needs:
the kept choices' log p_new/p_old, the fresh ones' sum of lam and the dropped ones'.
"""
from __future__ import annotations

import math

from ..terms.term import Var, Atom, Struct, deref
from ..terms.unify import unify, undo_to, variant
from .proof import SNode, ProofNode, build_tree
from .plugins import UniformChoice
from .kinds import CP_BOTTOM, CP_FENCE, PURE, P_DONE, P_SEXIT, REPLAY, ReplayReject, \
    SampleFailed
from .sampling import _light, _pick, take_clause, take_value

_NONE = object()


class Replayed:
    """What a replay made: the new proof ``tree`` and the terms of the move's
    acceptance ratio, all logs of target probabilities (p, not q):

    - ``log_kept``: sum over kept choices of log p_new - log p_old;
    - ``log_forced`` / ``log_forced_old``: sum of log p over the forced choices, in the
      new proof and (where the old proof had them) in the old;
    - ``fresh_lam`` / ``stale_lam``: sum of log p - log q over the fresh choices of the
      new proof / the dropped choices of the old;
    - ``fresh_logp`` / ``n_fresh``: sum of log p over the fresh choices, their number.

    ``log_correction`` = log_kept + fresh_lam - stale_lam is the part every move
    shares: a move that draws its fresh choices from q adds it to its own terms.
    """

    __slots__ = ("tree", "log_kept", "log_forced", "log_forced_old", "fresh_lam",
                 "stale_lam", "fresh_logp", "n_fresh", "old", "cut")

    def __init__(self, tree, run, old_tree):
        self.tree = tree
        self.old = old_tree
        self.cut = run.cut
        self.log_kept = run.log_kept
        self.log_forced = run.forced_logp
        self.log_forced_old = run.forced_old_logp
        self.fresh_lam = run.fresh_lam
        self.stale_lam = (old_tree._lsum - run.matched_lam) if old_tree is not None else 0.0
        self.fresh_logp = run.fresh_logp
        self.n_fresh = run.n_fresh

    @property
    def log_correction(self) -> float:
        return self.log_kept + self.fresh_lam - self.stale_lam

    def dropped(self) -> list:
        """The old proof's choice points that the new one dropped (found by walking
        both trees with the replay's rule; for checks and tests)."""
        out = []
        cut = self.cut
        stack = [(self.old, self.tree)] if cut != () else []
        if cut == ():
            out.extend(self.old)
        while stack:
            o, n = stack.pop()
            for i, oc in enumerate(o.children):
                nc = n.children[i] if n is not None and i < len(n.children) else None
                if nc is not None and nc.pred is oc.pred and oc.path != cut:
                    stack.append((oc, nc))
                else:
                    out.append(oc)
                    out.extend(oc)
        return out

    def stale_logp(self) -> float:
        """Sum of log p over the dropped choice points (walks both trees)."""
        return sum(math.log(n.prob) + n.lam for n in self.dropped())


class Replay:
    """One replay of a recorded proof (see the module): ``forced`` maps paths to the
    clause or builtin key to take there, ``cut`` is the path at and below which every
    choice is fresh (None: nowhere; ``()``: everywhere), ``strict`` a path below which
    every choice must be forced."""

    __slots__ = ("fence", "linked", "forced", "prefixes", "cut", "strict", "log_kept",
                 "forced_logp", "forced_old_logp", "nforced", "fresh_lam", "matched_lam",
                 "fresh_logp", "n_fresh")

    def __init__(self, forced: dict | None = None, cut: tuple | None = None,
                 strict: tuple | None = None):
        forced = forced or {}
        prefixes = set()
        for p in forced:
            for i in range(len(p) + 1):
                prefixes.add(p[:i])
        if cut is not None:
            for i in range(len(cut) + 1):
                prefixes.add(cut[:i])
        self.forced = forced
        self.prefixes = prefixes
        self.cut = cut
        self.strict = strict
        self.fence = 0
        self.linked = []
        self.log_kept = 0.0
        self.forced_logp = 0.0
        self.forced_old_logp = 0.0
        self.nforced = 0
        self.fresh_lam = 0.0
        self.matched_lam = 0.0
        self.fresh_logp = 0.0
        self.n_fresh = 0

    def run(self, eng, goal, tree: ProofNode, rng) -> Replayed:
        """Prove goal replaying tree; ReplayReject when the move cannot be made (a
        kept choice is no candidate, a failure, a forced path not reached)."""
        root = SNode(None, (), None, None)
        root.fresh = False
        root.path = ()
        root.old = None if self.cut == () else tree
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
                new = build_tree(eng.plog)
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
        if self.nforced != len(self.forced):
            raise ReplayReject()    # the reverse move could not set them back
        return Replayed(new, self, tree)

    # -- where a choice point stands --------------------------------------------------------
    def _lookup(self, eng, pred, pn):
        """(path, recorded node of the same predicate at that path to keep or None,
        forced key or _NONE); commits every earlier choice."""
        i = pn.nch
        pn.nch = i + 1
        po = pn.old
        if po is None and not self.forced:
            # below a fresh choice point with nothing forced: fresh, its path unneeded
            del eng.cps[self.fence + 1:]
            return None, None, _NONE
        path = pn.path + (i,)
        old = po.children[i] if po is not None and i < len(po.children) else None
        if old is not None and (old.pred is not pred or path == self.cut):
            old = None
        del eng.cps[self.fence + 1:]
        key = self.forced.get(path, _NONE) if self.forced else _NONE
        if key is _NONE:
            strict = self.strict
            if strict is not None and path[:len(strict)] == strict:
                # the move sets every choice of this subtree: the program is not shaped
                # as the move assumed
                raise ReplayReject("unforced")
        return path, old, key

    def stoch(self, eng, pred, args, g, nxt, cb, pn):
        """A labelled call."""
        path, old, key = self._lookup(eng, pred, pn)
        if key is not _NONE:
            f, node = self.take_clause(eng, pred, args, g, nxt, cb, pn, path, old, key)
            self._forced(node, old)
            return f
        if old is not None:
            return self.keep_stoch(eng, pred, args, g, nxt, cb, pn, path, old)
        # fresh, from the candidates, without a choice point to come back to
        node = self._node(eng, pred, args, g, pn, path, None)
        exitf = (P_SEXIT, (node,), nxt, cb, pn)
        cands = eng._candidates(pred, args, g, exitf, node.height, node)
        if not cands:
            raise ReplayReject()
        total = 0.0
        for c in cands:
            total += c[0]
        node.cands = _light(cands)
        node.total = total
        node.lam = lam = eng._gap(pred, g, total)
        f = take_clause(eng, node, cands[_pick(cands, eng.rng.random() * total)], total)
        self.fresh_lam += lam
        self.fresh_logp += math.log(node.prob) + lam
        self.n_fresh += 1
        return f

    def sbuiltin(self, eng, pred, args, nxt, pn):
        """A stochastic builtin."""
        path, old, key = self._lookup(eng, pred, pn)
        if key is not _NONE:
            target, cands = pred.fn(eng, *args)
            eng.sb_target = target
            f, node = self.take_value(eng, pred, args, nxt, pn, path, target, cands, key)
            self._forced(node, old)
            return f
        if old is not None:
            return self.keep_sbuiltin(eng, pred, args, nxt, pn, path, old)
        # fresh: drawn once, no redraw on a later failure
        f = eng._sbuiltin_by(PURE, pred, args, nxt, pn)
        del eng.cps[self.fence + 1:]
        if f is None:
            raise ReplayReject()
        self.fresh_logp += math.log(eng.plog[0].prob)
        self.n_fresh += 1
        return f

    def _forced(self, node, old):
        self.forced_logp += math.log(node.prob) + node.lam
        self.nforced += 1
        if old is not None:
            self.forced_old_logp += math.log(old.prob) + old.lam
            self.matched_lam += old.lam

    def _node(self, eng, pred, args, g, pn, path, old):
        node = eng._new_node(pred, args, g, pn)
        node.path = path
        node.fresh = False
        node.old = old
        if old is not None:
            self.linked.append(node)
        return node

    # -- kept choices ----------------------------------------------------------------------
    def keep_stoch(self, eng, pred, args, g, nxt, cb, pn, path, old):
        """Prove the labelled call at `path` with the recorded choice `old`."""
        self.matched_lam += old.lam
        same = _same_call(args, old.call) and (
            g is None if old.guard is None else g is not None and _same_guard(g, old.guard))
        if same and old.ground and path not in self.prefixes:
            # the same call below which nothing changes: graft the recorded subtree
            _bind_answer(args, old.answer.args, eng.trail)
            memo = eng.ground_memo
            for a in old.answer.args:  # known ground: ancestors need not walk it again
                if type(a) is Struct:
                    memo[id(a)] = a
            eng.plog = ((old, pn), eng.plog)
            self.matched_lam += old._lsum
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
            node.lam = old.lam
            eng.plog = (node, eng.plog)
            return body[1]
        f, node = self.take_clause(eng, pred, args, g, nxt, cb, pn, path, old, old.key)
        self.log_kept += (math.log(node.prob) + node.lam) - (math.log(old.prob) + old.lam)
        return f

    def take_clause(self, eng, pred, args, g, nxt, cb, pn, path, old, key):
        """Prove the labelled call with the candidate clause `key`, its probability
        computed afresh: (body frame, node); rejects when `key` is no candidate."""
        node = self._node(eng, pred, args, g, pn, path, old)
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
        node.lam = eng._gap(pred, g, total)
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
            _bind_value(target, old.value, eng.trail)
            node.chosen = node.key = old.key
            node.value = old.value
            node.prob = old.prob
            eng.logp += math.log(old.prob)
            eng.plog = (node, eng.plog)
            return nxt
        f, node = self.take_value(eng, pred, args, nxt, pn, path, target, cands, old.key)
        if abs(node.prob - old.prob) > 1e-15:
            self.log_kept += math.log(node.prob) - math.log(old.prob)
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


def _same_call(args, old, target=None):
    """variant(call, old snapshot), with a fast path for calls of atomic arguments, ground
    row-set handles and at most one unbound variable (the usual shape). A builtin's
    `target` argument was snapshot as a fresh variable and stands for one."""
    oargs = old.args if type(old) is Struct else ()
    if len(oargs) != len(args):
        return False
    nvars = 0
    for a, b in zip(args, oargs):
        if a is b:  # replay passes on the recorded (ground) terms themselves
            continue
        if a is target:  # stands for a fresh variable (the tuple is built only if needed)
            if type(b) is not Var:
                return False
            nvars += 1
            continue
        while type(a) is Var:
            r = a.ref
            if r is None:
                break
            a = r
        if a is b:  # bound to the recorded term (snapshots share ground terms)
            continue
        ta = type(a)
        if ta is not type(b):
            return False
        if ta is int or ta is float:   # the usual depths and parameters
            if a != b:
                return False
        elif ta is Var:
            nvars += 1
        elif ta is Struct:
            # one level of atomic arguments, e.g. rows(17): compare directly
            aa, ba = a.args, b.args
            if a.name != b.name or len(aa) != len(ba):
                return False
            for x, y in zip(aa, ba):
                while type(x) is Var:
                    r = x.ref
                    if r is None:
                        break
                    x = r
                tx = type(x)
                if tx is not type(y) or tx is Var or tx is Struct:
                    return _variant_args(args, oargs, target)
                if x != y:
                    return False
        elif ta is Atom:
            return False    # atoms are interned: not the same object, not equal
        elif a != b:
            return False
    return nvars <= 1 or _variant_args(args, oargs, target)


def _variant_args(args, oargs, target):
    if target is not None:
        args = tuple([Var() if a is target else a for a in args])
    return variant(Struct("$", args), Struct("$", oargs))


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


def _bind_value(t, value, trail):
    """Unify a builtin's output argument with the recorded (ground) value: an unbound
    variable, or a compound of the value's shape (split(F, V, L, R)), is bound directly,
    argument by argument; anything else is unified."""
    while type(t) is Var:
        r = t.ref
        if r is None:
            t.ref = value
            trail.append(t)
            return
        t = r
    if type(t) is Struct and type(value) is Struct and t.name == value.name \
            and len(t.args) == len(value.args):
        _bind_answer(t.args, value.args, trail)
    elif not unify(t, value, trail):
        raise ReplayReject()
