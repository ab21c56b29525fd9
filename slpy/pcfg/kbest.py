"""The k most probable derivations of a grammar (lazy k-best).

Algorithm 3 of Huang & Chiang (2005, "Better k-best parsing") over a hypergraph
whose nodes are nonterminals and whose hyperedges are productions (tails: the
children). The i-th best derivation of a node is built only when an ancestor asks
for it, so beyond the max-product (Viterbi) pass, which supplies every node's best
derivation, the cost is about k log k per node visited.

A grammar is seen through an adapter with three methods:

    best(v)        -> (score, edge): the Viterbi score and best edge of node v
    edges(v)       -> [(edge, weight, tails)]: every live production of v, weight
                      its own log factor (production weight x leaf likelihood)
    edge_tails(v, e) -> tails of edge e of v

For tree grammars distinct derivations are distinct model terms, so these are the k
most probable trees.
"""
from __future__ import annotations

import heapq
import itertools
import math

__all__ = ["LazyKBest", "TreeAdapter", "kbest"]


class LazyKBest:
    def __init__(self, adapter):
        self.a = adapter
        self.D = {}       # node -> [(score, edge, ranks)], best first
        self.cand = {}    # node -> heap of (-score, tie, edge, ranks)
        self.seen = {}    # node -> {(edge, ranks)}
        self.weights = {}  # node -> {edge: (weight, tails)}
        self.tie = itertools.count()

    def _first(self, v):
        lst = self.D.get(v)
        if lst is None:
            score, e = self.a.best(v)
            lst = self.D[v] = [(score, e, (0,) * len(self.a.edge_tails(v, e)))]
        return lst

    def _score(self, v, e, ranks):
        w, tails = self.weights[v][e]
        s = w
        for t, r in zip(tails, ranks):
            s += self._first(t)[r][0]
        return s

    def _init(self, v):
        first = self.D[v][0]
        self.weights[v] = {e: (w, tails) for e, w, tails in self.a.edges(v)}
        self.seen[v] = {(first[1], first[2])}
        heap = []
        for e, (w, tails) in self.weights[v].items():
            ranks = (0,) * len(tails)
            if (e, ranks) in self.seen[v]:
                continue
            sc = self._score(v, e, ranks)
            if sc > -math.inf:
                heap.append((-sc, next(self.tie), e, ranks))
                self.seen[v].add((e, ranks))
        heapq.heapify(heap)
        self.cand[v] = heap

    def _push_successors(self, v, e, ranks):
        _, tails = self.weights[v][e]
        for i, t in enumerate(tails):
            nr = ranks[:i] + (ranks[i] + 1,) + ranks[i + 1:]
            if (e, nr) in self.seen[v] or not self.kth(t, nr[i]):
                continue
            self.seen[v].add((e, nr))
            heapq.heappush(self.cand[v], (-self._score(v, e, nr), next(self.tie), e, nr))

    def kth(self, v, k) -> bool:
        """Make sure the k-th best (0-based) derivation of v exists; False if none."""
        lst = self._first(v)
        if len(lst) > k:
            return True
        if v not in self.cand:
            self._init(v)
        while len(lst) <= k:
            _, e, ranks = lst[-1]
            self._push_successors(v, e, ranks)
            heap = self.cand[v]
            if not heap:
                return False
            negsc, _, e, ranks = heapq.heappop(heap)
            lst.append((-negsc, e, ranks))
        return True

    def derivation(self, v, k):
        """The k-th derivation of v as nested (node, edge, [children])."""
        _, e, ranks = self._first(v)[k]
        tails = self.a.edge_tails(v, e)
        return (v, e, [self.derivation(t, r) for t, r in zip(tails, ranks)])

    def top(self, root, k):
        out = []
        for i in range(k):
            if not self.kth(root, i):
                break
            out.append((self.D[root][i][0], self.derivation(root, i)))
        return out


class TreeAdapter:
    """A :class:`~slpy.pcfg.inside.TreePosterior` as a hypergraph: nodes (j, d),
    edge -1 (stop) or a split index."""

    def __init__(self, post):
        self.post = post
        self.g = post.grammar
        self.vbest, self.varg = post._viterbi()

    def best(self, v):
        j, d = v
        return float(self.vbest[j, d]), int(self.varg[j, d])

    def edge_tails(self, v, e):
        if e < 0:
            return ()
        dc = self.g.child_depth(v[1])
        return ((int(self.g.left[e]), dc), (int(self.g.right[e]), dc))

    def edges(self, v):
        j, d = v
        g = self.g
        out = []
        if g.log_stop[j, d] > -math.inf:
            out.append((-1, float(g.log_stop[j, d] + self.post.leaf[j]), ()))
        w = float(g.log_split[j, d])
        if w > -math.inf:
            dc = g.child_depth(d)
            for s in g.splits(j):
                if g.alive[g.left[s], dc] and g.alive[g.right[s], dc]:
                    out.append((s, w, self.edge_tails(v, s)))
        return out


def _flatten(tree):
    """Nested (node, edge, children) -> pre-order tuple of (j, d, s)."""
    out = []
    stack = [tree]
    while stack:
        (j, d), e, kids = stack.pop()
        out.append((j, d, e))
        stack.extend(reversed(kids))
    return tuple(out)


def kbest(post, k: int) -> list:
    """[(posterior log probability, derivation)] of the k best trees of a
    TreePosterior, best first (fewer when the grammar has fewer trees)."""
    if k < 1:
        raise ValueError("k must be >= 1")
    kb = LazyKBest(TreeAdapter(post))
    return [(score - post.log_evidence, _flatten(t)) for score, t in kb.top((0, 0), k)]
