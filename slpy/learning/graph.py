"""Explanation graphs: the refutations of goals as a hypergraph (PRISM's explanation
graphs, Sato & Kameya 2001), built by the engine's exhaustive enumeration.

A node is a goal (an observation, or the query of an MPE) or an answer of a table; an
edge of a node is one of its derivations: the learned clauses it chose (a count per
clause), the probability of its other choices (a constant), and the table answers it
used (its children). The probability of a node is then

    I(v) = sum over edges e of v:  c_e * prod_j theta_j^n_ej * prod_children I(child)

(pure SLP semantics: a choice's probability is its label over all its predicate's
labels). Without tabling a goal's edges are its refutations and it has no children;
with ``:- table`` the answers' explanations (slpy.logic.tabling keeps them) share
their sub-derivations, so a grammar's graph is polynomial where its refutations are
exponential. Each edge also keeps its entries in the order the derivation made them
(a clause, or a child), which is what rebuilds a full proof (slpy.learning.proofs).
"""
from __future__ import annotations

import math

import numpy as np
from scipy import sparse

from ..logic.kinds import ENUM
from ..logic.tabling import Ref
from ..logic.variant import variant_key
from ..terms.walk import resolve
from .params import LearnError

__all__ = ["Graph", "CHILD"]

CHILD = "child"     # an entry of an edge's sequence: (CHILD, node id)


class Graph:
    """Nodes and edges (lists while building; ``freeze()`` makes the arrays)."""

    def __init__(self, params, max_edges: int = 2_000_000):
        self.params = params
        self.max_edges = max_edges
        self.head: list = []      # per edge: its node
        self.logc: list = []      # per edge: log of the constant factor
        self.counts: list = []    # per edge: {clause index: count}
        self.kids: list = []      # per edge: child node ids (repeats kept)
        self.seq: list = []       # per edge: entries in derivation order
        self.answer: list = []    # per edge of a goal: (its instance, the bindings)
        self.n_nodes = 0
        self.node_term: list = []  # per node: the goal or the table's answer

    def _node(self, term) -> int:
        self.node_term.append(term)
        self.n_nodes += 1
        return self.n_nodes - 1

    def _edge(self, v, entries, answer, child_of):
        index = self.params.index if self.params is not None else {}
        logc = 0.0
        counts: dict = {}
        kids = []
        seq = []
        for x in entries:
            if type(x) is tuple and x[0] is CHILD:
                c = child_of(x[1], x[2])
                kids.append(c)
                seq.append((CHILD, c))
                continue
            clause, prob, value = x
            j = index.get(clause) if clause is not None else None
            if j is None:
                logc += math.log(prob)
            else:
                counts[j] = counts.get(j, 0) + 1
            seq.append((clause, prob, value))
        if len(self.head) >= self.max_edges:
            raise LearnError(f"more than {self.max_edges} derivations in the explanation "
                             f"graph (table the recursive predicates, or use fewer data)")
        self.head.append(v)
        self.logc.append(logc)
        self.counts.append(counts)
        self.kids.append(tuple(kids))
        self.seq.append(tuple(seq))
        self.answer.append(answer)

    def add_goal(self, eng, goal, varnames=None):
        """Add a goal node with an edge per refutation (ENUM); its id, or None when the
        goal has no refutation (the node is then not added)."""
        v = self.n_nodes
        self._node(goal)
        start = len(self.head)
        tables = {}           # (table id, answer) -> node id, for this query only
        pending = []

        def child_of(tid, i):
            n = tables.get((tid, i))
            if n is None:
                n = tables[(tid, i)] = self._node(None)
                pending.append((tid, i, n))
            return n

        for s in eng.solutions(goal, ENUM):
            entries = []
            e = s.plog
            while e is not None:
                x = e[0]
                if x.pred is None:           # a completed table's answer (top level)
                    t = eng.tables.tables.get(("explain", variant_key(x.call)))
                    if t is None:            # pragma: no cover - kept by the engine
                        raise LearnError("a table's answer without its table")
                    entries.append((CHILD, t.id, x.chosen))
                else:
                    entries.append((x.clause, x.prob, x.value))
                e = e[1]
            entries.reverse()
            ans = (resolve(goal), {n: resolve(t) for n, t in (varnames or {}).items()})
            self._edge(v, entries, ans, child_of)
        # the tables are the engine's until its next query: read them now
        by_id = eng.tables.by_id if eng.tables is not None else []
        while pending:
            tid, i, n = pending.pop()
            t = by_id[tid]
            self.node_term[n] = t.answers[i]
            for used in t.used[i]:
                entries = [(CHILD, x.table, x.i) if type(x) is Ref else x for x in used]
                self._edge(n, entries, None, child_of)
        if len(self.head) == start:
            self.node_term.pop()
            self.n_nodes -= 1
            return None
        return v

    def freeze(self) -> "Frozen":
        return Frozen(self)


class Frozen:
    """The graph as arrays, edges sorted by their node: ``head``, ``logc``, ``C`` (a
    sparse edges x clauses count matrix), child slots ``slot_edge``/``slot_node``."""

    def __init__(self, g: Graph):
        E = len(g.head)
        order = np.argsort(np.asarray(g.head, dtype=np.int64), kind="stable")
        self.order = order                      # frozen edge k is built edge order[k]
        self.n_nodes = g.n_nodes
        self.n_edges = E
        self.head = np.asarray(g.head, dtype=np.int64)[order]
        self.logc = np.asarray(g.logc, dtype=np.float64)[order]
        m = len(g.params) if g.params is not None else 0
        rows, cols, vals = [], [], []
        se, sn = [], []
        for k, e in enumerate(order):
            for j, n in g.counts[e].items():
                rows.append(k)
                cols.append(j)
                vals.append(n)
            for c in g.kids[e]:
                se.append(k)
                sn.append(c)
        self.C = sparse.csr_matrix((np.asarray(vals, dtype=np.float64), (rows, cols)),
                                   shape=(E, m))
        self.CT = self.C.T.tocsr()
        self.slot_edge = np.asarray(se, dtype=np.int64)
        self.slot_node = np.asarray(sn, dtype=np.int64)
        # first edge of each node (every node has one: nodes come with their edges)
        self.start = np.searchsorted(self.head, np.arange(self.n_nodes))
        if E and len(np.unique(self.head)) != self.n_nodes:   # pragma: no cover
            raise LearnError("a node of the explanation graph has no derivation")
