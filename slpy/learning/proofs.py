"""The most probable proofs of a goal (PRISM's Viterbi, ProbLog's MPE), and the k best.

The goal's explanation graph (slpy.learning.graph) with every choice a constant is a
hypergraph whose derivations are the goal's full proofs: a table answer used by a
derivation expands into one of its own explanations. The best derivation of each
node is a max-product pass (slpy.learning.inside.viterbi), and the k best come from
the PCFG back end's lazy k-best (Huang & Chiang 2005, slpy.pcfg.kbest), so tabled
programs get them in polynomial time. A proof's clauses, in the order the
derivation chose them, are then replayed by the engine under pure sampling with the
choices scripted (slpy.learning.explore), which gives the proof tree the top level
prints, with the calls as they were made. Probabilities are those of pure SLP
semantics, as prob/2 gives them.
"""
from __future__ import annotations

import math

import numpy as np

from ..logic.program import Proof
from ..logic.proof import build_tree
from ..pcfg.kbest import LazyKBest
from ..terms.walk import copy_term, resolve
from .explore import scripted
from .graph import CHILD, Graph
from .inside import viterbi
from .params import LearnError

__all__ = ["mpe"]


class _Adapter:
    """A frozen graph as LazyKBest sees it (edges are frozen edge indices)."""

    def __init__(self, g, fz):
        self.g, self.fz = g, fz
        self.vit, s = viterbi(fz, np.zeros(0))
        self.s = s
        ends = np.append(fz.start[1:], fz.n_edges)
        self.range = list(zip(fz.start.tolist(), ends.tolist()))

    def best(self, v):
        a, b = self.range[v]
        e = a + int(np.argmax(self.s[a:b]))
        return float(self.s[e]), e

    def edge_tails(self, v, e):
        return self.g.kids[self.fz.order[e]]

    def edges(self, v):
        a, b = self.range[v]
        return [(e, float(self.fz.logc[e]), self.edge_tails(v, e)) for e in range(a, b)]


class _Follow:
    """A scripted run's choices: the clauses of a proof, in order."""

    def __init__(self, clauses):
        self.clauses = clauses
        self.k = 0

    def choose(self, node, cands, total):
        if self.k >= len(self.clauses):
            raise LearnError("the proof's replay makes more choices than it recorded")
        want = self.clauses[self.k]
        self.k += 1
        for i, c in enumerate(cands):
            if c[1] is want:
                return i
        raise LearnError("the proof's replay does not find its clause")


def _flatten(g, fz, deriv, out):
    v, e, kids = deriv
    kids = iter(kids)
    for x in g.seq[fz.order[e]]:
        if x[0] is CHILD:
            _flatten(g, fz, next(kids), out)
        elif x[0] is None:
            raise LearnError("a proof with a stochastic builtin's choice is not replayed")
        else:
            out.append(x[0])
    return out


def _proof_tree(eng, goal, varnames, clauses):
    """Replay the clauses: (bindings, proof tree), or None when it cannot be done."""
    mapping: dict = {}
    g = copy_term(goal, mapping)
    walk = _Follow(clauses)
    found = {}

    def keep(sol):
        found["tree"] = build_tree(sol.plog)
        found["b"] = {n: resolve(mapping.get(v, v)) for n, v in varnames.items()
                      if not n.startswith("_")}
    try:
        ok = scripted(eng, g, walk, on_solution=keep)
    except LearnError:
        return None
    if not ok or walk.k != len(clauses):
        return None
    return found["b"], found["tree"]


def mpe(program, goal, k: int = 1) -> list:
    """The k most probable proofs of goal (a text, or a term), best first, as
    :class:`~slpy.logic.program.Proof` (bindings, probability, proof tree; the tree
    is None for a proof with a stochastic builtin's choice); fewer when the goal has
    fewer, none when it has no proof. Under tabling the goal's answers must be
    finitely many (as PRISM's Viterbi needs a finite explanation graph)."""
    if isinstance(goal, str):
        goal, varnames = program.parse_query(goal)
    else:
        varnames = {}
    return [Proof(b, p, t) for _, p, t, b in _kbest(program, goal, varnames, k)]


def mpe_term(program, goal, k: int = 1) -> list:
    """As mpe, for a goal term: [(instance, probability, proof tree)]."""
    return [(i, p, t) for i, p, t, _ in _kbest(program, goal, {}, k)]


def _kbest(program, goal, varnames, k):
    if k < 1:
        raise LearnError("k must be >= 1")
    eng = program.engine
    g = Graph(None)
    mapping: dict = {}
    gc = copy_term(goal, mapping)
    names = {n: mapping.get(v, v) for n, v in varnames.items() if not n.startswith("_")}
    root = g.add_goal(eng, gc, names)
    if root is None:
        return []
    fz = g.freeze()
    out = []
    for score, deriv in LazyKBest(_Adapter(g, fz)).top(root, k):
        inst, bindings = g.answer[fz.order[deriv[1]]]
        clauses = _flatten(g, fz, deriv, []) if _replayable(g, fz, deriv) else None
        made = _proof_tree(eng, goal, varnames, clauses) if clauses is not None else None
        out.append((inst, math.exp(score), made[1] if made else None, bindings))
    return out


def _replayable(g, fz, deriv) -> bool:
    v, e, kids = deriv
    if any(x[0] is None for x in g.seq[fz.order[e]]):
        return False
    return all(_replayable(g, fz, c) for c in kids)
