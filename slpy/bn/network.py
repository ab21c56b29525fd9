"""A Bayesian network with its parameters: a DAG and one conditional probability table
(CPT) per node, the posterior mean CPTs of a DAG given the data, and exact inference.

A CPT is an array of shape ``(r_p1, ..., r_pk, r_i)``: one axis per parent in the
order of the node's (sorted) parent tuple, the node's own values last, so
``cpt[..., k]`` is P(X_i = k | parents) and the array read as ``[q, r]`` in C order
has its rows in the mixed radix of slpy.bn.score (first parent most significant).

The posterior mean CPT of a family given the data D and the DAG G is

    theta_ijk = (N_ijk + a_ijk) / (N_ij + a_ij)

(BDeu: a_ijk = ess / (q_i r_i), a_ij = ess / q_i; K2: a_ijk = 1, a_ij = r_i), the
Dirichlet posterior's mean; it depends on the family alone, so it is cached per
(node, parents) across every DAG that has that family.

Queries P(Q | E = e) are answered by variable elimination: the nodes that are not
ancestors of Q or E are dropped (their CPTs sum to one), the evidence is sliced into
the CPTs, and the other variables are summed out one at a time, each time the one
whose elimination makes the smallest table (greedy min-size), with np.einsum doing
the product and the sum of the tables that mention it.
"""
from __future__ import annotations

import math
from dataclasses import dataclass, field
from typing import Sequence

import numpy as np

from .data import DiscreteData
from .score import family_counts, family_prior

__all__ = ["Network", "CPTCache", "ZeroEvidence"]


class ZeroEvidence(ValueError):
    """The evidence has probability 0 under the network."""


class CPTCache:
    """Posterior mean CPTs of the families of one data set, computed once each."""

    def __init__(self, data: DiscreteData, score: str = "bdeu", ess: float = 1.0):
        self.data, self.score, self.ess = data, score, float(ess)
        self._cache: dict = {}

    def __call__(self, node: int, parents: tuple) -> np.ndarray:
        key = (node, parents)
        cpt = self._cache.get(key)
        if cpt is None:
            n = family_counts(self.data, node, parents).astype(np.float64)
            a_j, a_jk = family_prior(self.score, self.ess, n.shape[0], n.shape[1])
            cpt = (n + a_jk) / (n.sum(axis=1, keepdims=True) + a_j)
            ar = self.data.arities
            cpt = cpt.reshape(tuple(int(ar[p]) for p in parents) + (n.shape[1],))
            cpt.setflags(write=False)
            self._cache[key] = cpt
        return cpt


@dataclass(eq=False)
class Network:
    """A DAG on ``names`` (each variable's values in ``levels``) with its CPTs."""

    names: list
    levels: list
    parents: tuple            # parents[i]: node i's parents, a sorted tuple of indices
    cpts: list                # cpts[i]: see the module docstring
    _order: list | None = field(default=None, init=False, repr=False)

    def __post_init__(self):
        self.parents = tuple(tuple(int(p) for p in ps) for ps in self.parents)
        n = len(self.names)
        if not (len(self.levels) == len(self.parents) == len(self.cpts) == n):
            raise ValueError("names, levels, parents and cpts must have one entry a node")
        ar = self.arities
        for i, (ps, cpt) in enumerate(zip(self.parents, self.cpts)):
            shape = tuple(ar[p] for p in ps) + (ar[i],)
            if np.shape(cpt) != shape:
                raise ValueError(f"the CPT of {self.names[i]} has shape {np.shape(cpt)}, "
                                 f"not {shape}")
        self._order = _topological(self.parents)

    @classmethod
    def from_data(cls, data: DiscreteData, parents: Sequence, score: str = "bdeu",
                  ess: float = 1.0, cache: CPTCache | None = None) -> "Network":
        """The DAG `parents` with its posterior mean CPTs given `data`."""
        cache = cache or CPTCache(data, score, ess)
        parents = [tuple(sorted(int(p) for p in ps)) for ps in parents]
        return cls(list(data.names), [list(lv) for lv in data.levels], tuple(parents),
                   [cache(i, ps) for i, ps in enumerate(parents)])

    @property
    def arities(self) -> list:
        return [len(lv) for lv in self.levels]

    @property
    def n_vars(self) -> int:
        return len(self.names)

    def ancestors(self, nodes) -> list:
        """`nodes` and their ancestors, in a topological order."""
        keep = set(nodes)
        for i in reversed(self._order):
            if i in keep:
                keep.update(self.parents[i])
        return [i for i in self._order if i in keep]

    def query(self, targets: Sequence[int], evidence: dict | None = None) -> np.ndarray:
        """P(targets | evidence) as an array with one axis per target (in the order
        given) over its values; `evidence` maps nodes to value codes."""
        evidence = dict(evidence or {})
        targets = list(targets)
        if set(targets) & set(evidence) or len(set(targets)) != len(targets):
            raise ValueError("a variable is asked twice, or both asked and given")
        tab = self.unnormalised(targets, evidence)
        z = tab.sum()
        if not z > 0:
            raise ZeroEvidence("the evidence has probability 0 under the network")
        return tab / z

    def unnormalised(self, targets, evidence) -> np.ndarray:
        """P(targets, evidence) as an array over the targets' values."""
        nodes = self.ancestors(set(targets) | set(evidence))
        factors = []
        for i in nodes:
            scope = self.parents[i] + (i,)
            cpt = np.asarray(self.cpts[i])
            index = tuple(evidence.get(v, slice(None)) for v in scope)
            factors.append(([v for v in scope if v not in evidence], cpt[index]))
        return eliminate(factors, targets, self.arities)

    def joint(self) -> np.ndarray:
        """The full joint distribution, one axis per node (for small networks)."""
        return self.query(range(self.n_vars))


def eliminate(factors, keep, arities) -> np.ndarray:
    """Sum every variable not in `keep` out of the product of `factors` ((scope,
    array) pairs); the result has one axis per variable of `keep`, in that order."""
    factors = [(list(s), a) for s, a in factors]
    keep = list(keep)
    hidden = {v for s, _ in factors for v in s} - set(keep)
    while hidden:
        def cost(v):
            scope = {u for s, _ in factors if v in s for u in s}
            return math.prod(arities[u] for u in scope), v
        v = min(hidden, key=cost)
        hidden.discard(v)
        touching = [f for f in factors if v in f[0]]
        factors = [f for f in factors if v not in f[0]]
        scope = sorted({u for s, _ in touching for u in s} - {v})
        factors.append((scope, _einsum(touching, scope)))
    return _einsum(factors, keep)     # each target is in its own CPT's scope


def _einsum(factors, out) -> np.ndarray:
    """The product of the factors summed down to the variables `out` (in order)."""
    # einsum takes at most 52 subscripts: number the variables of this product only
    label = {}
    for s, _ in factors:
        for v in s:
            label.setdefault(v, len(label))
    args = []
    for s, a in factors:
        args += [a, [label[v] for v in s]]
    if not factors:
        return np.ones(())
    return np.einsum(*args, [label[v] for v in out], optimize=len(factors) > 2)


def _topological(parents) -> list:
    order, placed = [], set()
    left = list(range(len(parents)))
    while left:
        ready = [i for i in left if set(parents[i]) <= placed]
        if not ready:
            raise ValueError("the graph has a directed cycle")
        order += ready
        placed.update(ready)
        left = [i for i in left if i not in placed]
    return order
