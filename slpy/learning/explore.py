"""The derivation tree of a goal under pure SLP sampling, failures included: what the
failure-adjusted maximisation needs (Cussens 2001) and what rebuilds a proof from the
clauses it chose.

Pure sampling draws a clause among all of its predicate's clauses; a clause whose
head does not unify, or a later failure anywhere, fails the whole sample. A
derivation is so the sequence of its clause choices, and the tree of all of them is
walked depth first by running the goal again for each leaf with the choices scripted
(:class:`Script`, an engine's choice for labelled calls in pure mode): a run follows
the script, takes the first candidate at every choice point past it, and ends in a
refutation or a failure. The clauses whose head does not unify at a new choice point
are failed derivations too, counted without running them. A derivation less probable
than ``min_prob`` is not followed (its mass is reported as unexplored), so the walk
ends on recursive programs, whose trees are infinite.
"""
from __future__ import annotations

import math
from dataclasses import dataclass, field

from ..logic.kinds import CP_PURE, PURE, SampleFailed
from ..logic.sampling import CLAUSE_WAYS, Pure, take_clause
from ..terms.walk import copy_term
from .params import LearnError

__all__ = ["Exploration", "explore", "Script", "scripted"]


class _Pruned(Exception):
    """The derivation fell below min_prob."""


class _NoDraw:
    """The generator of a scripted run: only labelled clauses are scripted."""

    def random(self):
        raise LearnError("the program makes a stochastic builtin choice: the derivation "
                         "tree can be walked only over labelled clauses")


class Script(Pure):
    """Pure sampling with the choices given: ``choose(eng, node, cands, total)`` of
    the walk returns the candidate index to take."""
    name = "script"

    def __init__(self, walk):
        super().__init__(take_clause)
        self.walk = walk

    def push(self, eng, node, cands, total, target, nxt):
        i = self.walk.choose(node, cands, total)
        eng.cps.append([CP_PURE, len(eng.trail), eng.plog, eng.logp])
        return take_clause(eng, node, cands[i], total)


def scripted(eng, goal, walk, on_solution=None):
    """Run goal once with the walk's choices: True on a refutation (after
    ``on_solution(solution)`` while its bindings hold), False on a failure (the
    walk's own exceptions pass through)."""
    ways = list(CLAUSE_WAYS)
    ways[PURE] = Script(walk)
    eng.clause_ways = tuple(ways)
    gen = eng.solutions(goal, PURE, _NoDraw())
    try:
        for s in gen:
            if on_solution is not None:
                on_solution(s)
            return True
        return False
    except SampleFailed:
        return False
    finally:
        gen.close()
        del eng.clause_ways        # the class's ways again


@dataclass
class Exploration:
    """The failed derivations (``fails``: (counts {clause index: n}, log constant)),
    and the mass of the refutations, of the failures and of what was not explored."""
    fails: list = field(default_factory=list)
    success: float = 0.0
    failure: float = 0.0
    unexplored: float = 0.0
    leaves: int = 0

    @property
    def complete(self) -> bool:
        return self.unexplored == 0.0


class _Walk:
    def __init__(self, params, min_prob):
        self.index = params.index
        self.logmin = math.log(min_prob) if min_prob > 0 else -math.inf
        self.script: list = []
        self.width: list = []
        self.out = Exploration()
        self.reset()

    def reset(self):
        self.depth = 0
        self.counts: dict = {}
        self.logc = 0.0
        self.logp = 0.0
        self.counted = False

    def _fail_leaf(self, counts, logc, logp):
        self.out.fails.append((counts, logc))
        self.out.failure += math.exp(logp)

    def choose(self, node, cands, total):
        k = self.depth
        self.depth += 1
        if k == len(self.script):      # a choice point first reached: its failed heads
            self.script.append(0)
            self.width.append(len(cands))
            self._heads_that_fail(node, cands, total)
        if not cands:          # every head fails: counted above
            self.counted = True
            raise SampleFailed()
        c = cands[self.script[k]]
        p = c[0] / total
        j = self.index.get(c[1])
        if j is None:
            self.logc += math.log(p)
        else:
            self.counts[j] = self.counts.get(j, 0) + 1
        self.logp += math.log(p)
        if self.logp < self.logmin:
            raise _Pruned()
        return self.script[k]

    def _heads_that_fail(self, node, cands, total):
        taken = {id(c[1]) for c in cands}
        rest = [c for c in node.pred.clauses if id(c) not in taken]
        gap = total - sum(c[0] for c in cands)
        if gap <= 1e-12 * total:
            return
        if rest and all(c in self.index for c in rest):
            for c in rest:
                w = c.ground_label
                if w > 0:
                    counts = dict(self.counts)
                    counts[self.index[c]] = counts.get(self.index[c], 0) + 1
                    self._fail_leaf(counts, self.logc, self.logp + math.log(w / total))
        else:          # a predicate not learned: one failure of the whole gap
            lp = math.log(gap / total)
            self._fail_leaf(dict(self.counts), self.logc + lp, self.logp + lp)

    def advance(self) -> bool:
        """The next leaf's script; False when the tree is done."""
        del self.script[self.depth:]
        del self.width[self.depth:]
        while self.script and self.script[-1] + 1 >= self.width[-1]:
            self.script.pop()
            self.width.pop()
        if not self.script:
            return False
        self.script[-1] += 1
        return True


def explore(eng, goal, params, min_prob: float = 1e-12, max_leaves: int = 100_000):
    """Walk goal's derivation tree (see the module docstring): an Exploration."""
    w = _Walk(params, min_prob)
    out = w.out
    while True:
        w.reset()
        try:
            ok = scripted(eng, copy_term(goal), w)
            if ok:
                out.success += math.exp(w.logp)
            elif not w.counted:
                w._fail_leaf(dict(w.counts), w.logc, w.logp)
        except _Pruned:
            out.unexplored += math.exp(w.logp)
        out.leaves += 1
        if out.leaves >= max_leaves:
            out.unexplored = max(0.0, 1.0 - out.success - out.failure)
            break
        if not w.advance():
            break
    return out
