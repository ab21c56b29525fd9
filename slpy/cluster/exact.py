"""Exact posteriors over the partitions of a few items, by enumerating every one.

A partition of items 0..n-1 is a *restricted growth string*: z_0 = 0 and
z_i <= 1 + max(z_0, ..., z_{i-1}), clusters numbered in the order they open (the
prior's numbering). There are Bell(n) of them (1, 1, 2, 5, 15, 52, 203, 877, 4140,
21147, 115975 for n = 0..10).

The prior is the Chinese restaurant process's formula, written here apart from any SLP
(the tests hold priors/crp.slp and priors/crp_bounded.slp to it):

    log p(z) = K log alpha + sum_k log (n_k - 1)! + log Gamma(alpha) - log Gamma(alpha + n)

for K clusters of sizes n_k, restricted to the partitions with at most
``max_clusters`` clusters that keep every ``must`` pair together and every ``cannot``
pair apart, and normalised over them. The posterior adds the sum of the clusters'
log marginal likelihoods (slpy.cluster.score) and normalises again.
"""
from __future__ import annotations

import math
from dataclasses import dataclass, field
from functools import lru_cache

import numpy as np
from scipy.special import logsumexp

from .partition import blocks_of, co_clustering, key_of

__all__ = ["MAX_ITEMS", "bell", "all_partitions", "crp_log_prior", "exact_posterior",
           "ExactClustering"]

MAX_ITEMS = 10     # Bell(11) = 678,570: past that, enumeration stops being a test tool


def bell(n: int) -> int:
    """The number of partitions of n items (the Bell triangle)."""
    row = [1]
    for _ in range(n):
        nxt = [row[-1]]
        for v in row:
            nxt.append(nxt[-1] + v)
        row = nxt
    return row[0]


def all_partitions(n: int) -> np.ndarray:
    """Every partition of n <= MAX_ITEMS items as a (Bell(n), n) read-only array of
    restricted growth strings (0-based labels), in lexicographic order."""
    if not isinstance(n, (int, np.integer)) or n < 1:
        raise ValueError(f"n must be a positive integer, not {n!r}")
    if n > MAX_ITEMS:
        raise ValueError(f"exact enumeration covers up to {MAX_ITEMS} items "
                         f"({bell(MAX_ITEMS):,} partitions); {n} items have {bell(n):,}")
    return _all(int(n))


@lru_cache(maxsize=None)
def _all(n: int) -> np.ndarray:
    rows = np.zeros((1, 1), dtype=np.int64)
    top = np.zeros(1, dtype=np.int64)          # each row's largest label
    for _ in range(1, n):
        reps = top + 2                         # labels 0..top+1
        new_rows = np.repeat(rows, reps, axis=0)
        starts = np.cumsum(reps) - reps
        label = np.arange(reps.sum()) - np.repeat(starts, reps)
        top = np.maximum(np.repeat(top, reps), label)
        rows = np.concatenate([new_rows, label[:, None]], axis=1)
    rows.setflags(write=False)
    return rows


def crp_log_prior(labels, alpha: float, max_clusters=None, must=(), cannot=()) -> float:
    """log p(z) of the module docstring, unnormalised over the restriction (-inf
    outside it). `labels`: any labelling of 0-based items; `must`, `cannot`: pairs of
    1-based items (the priors' parameters)."""
    z = list(labels)
    sizes: dict = {}
    for k in z:
        sizes[k] = sizes.get(k, 0) + 1
    k = len(sizes)
    if max_clusters is not None and k > max_clusters:
        return -math.inf
    for a, b in must:
        if z[a - 1] != z[b - 1]:
            return -math.inf
    for a, b in cannot:
        if z[a - 1] == z[b - 1]:
            return -math.inf
    n = len(z)
    return (k * math.log(alpha) + sum(math.lgamma(s) for s in sizes.values())
            + math.lgamma(alpha) - math.lgamma(alpha + n))


@dataclass(frozen=True)
class ExactClustering:
    """The exact posterior over the partitions of n items: ``labels`` (restricted
    growth strings, those of positive prior only), their normalised ``log_prob``, and
    ``log_evidence`` = log sum over z of p(z) p(D | z)."""

    n: int
    labels: np.ndarray
    log_prob: np.ndarray
    log_evidence: float
    keys: list = field(repr=False, compare=False)

    @property
    def prob(self) -> np.ndarray:
        return np.exp(self.log_prob)

    def by_key(self) -> dict:
        """key (slpy.cluster.partition.key_of) -> probability."""
        return {k: float(p) for k, p in zip(self.keys, self.prob)}

    @property
    def co_clustering(self) -> np.ndarray:
        return co_clustering((blocks_of(z), p) for z, p in zip(self.labels.tolist(),
                                                               self.prob))

    @property
    def clusters(self) -> dict:
        """Number of clusters -> posterior probability."""
        out: dict = {}
        for z, p in zip(self.labels, self.prob):
            k = int(z.max()) + 1
            out[k] = out.get(k, 0.0) + float(p)
        return dict(sorted(out.items()))

    def top(self, k: int = 5) -> list:
        """The k most probable partitions as (key, probability)."""
        order = np.argsort(-self.log_prob, kind="stable")[:k]
        return [(self.keys[i], float(np.exp(self.log_prob[i]))) for i in order]


def exact_posterior(n: int, log_block=None, alpha: float = 1.0, max_clusters=None,
                    must=(), cannot=(), heat: float = 1.0) -> ExactClustering:
    """The exact posterior (at `heat`: the likelihood to that power) over the
    partitions of n <= MAX_ITEMS items. `log_block(rows)`: a block's log marginal
    likelihood (rows a tuple of 0-based items; called once per subset that occurs),
    None for the prior alone."""
    rows = all_partitions(n)
    prior = np.array([crp_log_prior(z, alpha, max_clusters, must, cannot)
                      for z in rows.tolist()])
    keep = np.isfinite(prior)
    if not keep.any():
        raise ValueError("no partition satisfies the restriction")
    rows, prior = rows[keep], prior[keep]
    prior = prior - logsumexp(prior)
    lik = np.zeros(len(rows))
    if log_block is not None:
        cache: dict = {}
        for g, z in enumerate(rows.tolist()):
            s = 0.0
            for b in blocks_of(z):
                t = tuple(b)
                v = cache.get(t)
                if v is None:
                    v = cache[t] = float(log_block(t))
                s += v
            lik[g] = s
    joint = prior + heat * lik
    log_z = float(logsumexp(joint))
    keys = [key_of(blocks_of(z)) for z in rows.tolist()]
    return ExactClustering(n, rows, joint - log_z, log_z, keys)

