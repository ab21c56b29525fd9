"""Forward (ancestral) sampling of a discrete Bayesian network, and random networks.

A network is three parallel lists over nodes 0..n-1: ``parents[i]`` (a sequence of
node indices), ``cpts[i]`` (float [q_i, r_i], each row a distribution over node i's
values) and ``arities[i]`` = r_i. Row j of ``cpts[i]`` is the parent configuration
numbered in mixed radix with the first parent *as listed in* ``parents[i]`` most
significant, i.e. ``j = np.ravel_multi_index([x[p] for p in parents[i]],
[arities[p] for p in parents[i]])``. With sorted parent tuples this is the order of
:func:`slpy.bn.score.family_counts`. Randomness is always an argument (a NumPy
``Generator``), never global state.
"""
from __future__ import annotations

import heapq
from typing import Sequence

import numpy as np

__all__ = ["topological_order", "forward_sample", "random_network"]


def topological_order(parents: Sequence[Sequence[int]]) -> list[int]:
    """Nodes with every parent before its children; among ready nodes the smallest
    index first, so the order (and hence the random stream) is deterministic.
    Raises ValueError on a cycle or a bad parent index."""
    n = len(parents)
    children: list[list[int]] = [[] for _ in range(n)]
    indeg = [0] * n
    for i, ps in enumerate(parents):
        if len(set(ps)) != len(ps):
            raise ValueError(f"node {i} lists a parent twice: {tuple(ps)}")
        for p in ps:
            if not isinstance(p, (int, np.integer)) or not 0 <= p < n:
                raise ValueError(f"node {i}: parent {p!r} is not a node index 0..{n - 1}")
            children[p].append(i)
            indeg[i] += 1
    ready = [i for i in range(n) if indeg[i] == 0]
    heapq.heapify(ready)
    order = []
    while ready:
        v = heapq.heappop(ready)
        order.append(v)
        for c in children[v]:
            indeg[c] -= 1
            if indeg[c] == 0:
                heapq.heappush(ready, c)
    if len(order) != n:
        cyc = sorted(set(range(n)) - set(order))
        raise ValueError(f"the graph has a cycle (through nodes {cyc})")
    return order


def _cumulative(cpt: np.ndarray) -> np.ndarray:
    """Row-wise inverse-CDF thresholds, with the last positive entry set to exactly 1
    so that u in [0, 1) never selects a zero-probability value through rounding."""
    cum = np.cumsum(cpt, axis=1)
    last = cpt.shape[1] - 1 - np.argmax(cpt[:, ::-1] > 0, axis=1)
    mask = np.arange(cpt.shape[1])[None, :] >= last[:, None]
    cum[mask] = 1.0
    return cum


def _check_network(parents, cpts, arities) -> tuple[np.ndarray, list[np.ndarray]]:
    n = len(parents)
    arities = np.asarray(arities)
    if arities.shape != (n,) or not np.issubdtype(arities.dtype, np.integer):
        raise ValueError(f"arities must be {n} integers")
    if (arities < 1).any():
        raise ValueError("every arity must be at least 1")
    if len(cpts) != n:
        raise ValueError(f"{len(cpts)} CPTs for {n} nodes")
    out = []
    for i in range(n):
        q = int(np.prod([arities[p] for p in parents[i]], dtype=np.int64))
        cpt = np.asarray(cpts[i], dtype=np.float64)
        if cpt.shape != (q, arities[i]):
            raise ValueError(f"node {i}: CPT shape {cpt.shape}, expected ({q}, "
                             f"{arities[i]}) (configurations x values)")
        if not np.isfinite(cpt).all() or (cpt < 0).any():
            raise ValueError(f"node {i}: CPT entries must be finite and non-negative")
        if not np.allclose(cpt.sum(axis=1), 1.0, rtol=0, atol=1e-9):
            raise ValueError(f"node {i}: CPT rows must sum to 1")
        out.append(cpt)
    return arities.astype(np.int64), out


def forward_sample(rng: np.random.Generator, parents: Sequence[Sequence[int]],
                   cpts: Sequence, arities, n: int) -> np.ndarray:
    """``n`` independent joint samples, int32 codes [n, n_nodes] (C order).

    Nodes are visited in :func:`topological_order`; each draws one uniform per
    sample (``rng.random(n)``) and takes the value whose CDF interval holds it, so a
    fixed seed gives the same samples on every platform.
    """
    if not isinstance(rng, np.random.Generator):
        raise TypeError("rng must be a numpy.random.Generator (np.random.default_rng(seed))")
    if int(n) != n or n < 0:
        raise ValueError(f"n must be a non-negative integer, not {n!r}")
    n = int(n)
    order = topological_order(parents)
    arities, cpts = _check_network(parents, cpts, arities)
    x = np.zeros((n, len(parents)), dtype=np.int32)
    for v in order:
        j = np.zeros(n, dtype=np.int64)
        for p in parents[v]:   # mixed radix, first listed parent most significant
            j = j * arities[p] + x[:, p]
        cum = _cumulative(cpts[v])[j]
        u = rng.random(n)
        x[:, v] = (cum <= u[:, None]).sum(axis=1)
    return x


def random_network(rng: np.random.Generator, n_nodes: int, max_parents: int = 3,
                   arity: int | tuple[int, int] = (2, 4)
                   ) -> tuple[list[tuple[int, ...]], list[np.ndarray], np.ndarray]:
    """A random DAG with Dirichlet(1, ..., 1) CPTs: (parents, cpts, arities).

    Nodes are put in a random order; each takes a uniform number 0..max_parents of
    parents (fewer if fewer precede it), chosen uniformly among its predecessors and
    stored as a sorted tuple. Arities are uniform on ``arity = (lo, hi)`` inclusive
    (or all equal to an int ``arity``). Every CPT row is a uniform draw from the
    simplex.
    """
    if n_nodes < 1 or max_parents < 0:
        raise ValueError("need n_nodes >= 1 and max_parents >= 0")
    lo, hi = (arity, arity) if isinstance(arity, (int, np.integer)) else arity
    if not 1 <= lo <= hi:
        raise ValueError(f"arity range must satisfy 1 <= lo <= hi, got {arity!r}")
    arities = rng.integers(lo, hi + 1, size=n_nodes).astype(np.int32)
    perm = rng.permutation(n_nodes)
    parents: list[tuple[int, ...]] = [()] * n_nodes
    for t, v in enumerate(perm):
        k = int(rng.integers(0, min(max_parents, t) + 1))
        chosen = rng.choice(perm[:t], size=k, replace=False) if k else []
        parents[v] = tuple(sorted(int(p) for p in chosen))
    cpts = []
    for v in range(n_nodes):
        q = int(np.prod([arities[p] for p in parents[v]], dtype=np.int64))
        cpts.append(rng.dirichlet(np.ones(arities[v]), size=q))
    return parents, cpts, arities
