"""Decomposable BN scores: BDeu and K2 family log marginal likelihoods, cached.

For node i with arity r_i and a parent set whose q_i = prod of the parents' arities
configurations are ALL counted (observed or not), N_ij is the weighted count of
configuration j and N_ijk that of value k within it (Heckerman, Geiger & Chickering
1995, Machine Learning 20:197-243, eqs. 8 and 28):

    BDeu(a):  sum_j [lgamma(a/q) - lgamma(a/q + N_ij)]
              + sum_jk [lgamma(a/(q r) + N_ijk) - lgamma(a/(q r))]
    K2:       sum_j [lgamma(r) - lgamma(r + N_ij)] + sum_jk lgamma(1 + N_ijk)

(K2 is Cooper & Herskovits 1992: every alpha_ijk = 1.) A configuration with
N_ij = 0 contributes 0, so only observed ones are visited. The log marginal
likelihood of a DAG is the sum of its families' scores; BDeu gives Markov-equivalent
DAGs the same total, K2 in general does not.

Configurations are numbered in mixed radix with the first (lowest-index) parent most
significant, as ``np.ravel_multi_index(codes[parents], arities[parents])``; the
tables of :func:`family_counts` and the CPTs of :mod:`slpy.bn.sample` use that order.
"""
from __future__ import annotations

import math
import numbers
from typing import Sequence

import numpy as np

from . import _kernels as K
from .data import DiscreteData

__all__ = ["SCORES", "FamilyScorer", "family_counts", "family_prior"]

SCORES = ("bdeu", "k2")
# A dense table of q * r cells is used when it is small next to the data: filling and
# scanning it costs q * r, sorting costs n log n. Read when a scorer is made.
DENSE_MIN_CELLS = 4096
DENSE_CELLS_PER_ROW = 8
DENSE_MAX_CELLS = 1 << 22


def family_prior(score: str, ess: float, q: int, r: int) -> tuple[float, float]:
    """(alpha_ij, alpha_ijk): the Dirichlet pseudo-counts per configuration and cell."""
    if score == "bdeu":
        return ess / q, ess / (q * r)   # q, r exact ints: one rounding each
    return float(r), 1.0


def _check_family(n_vars: int, node, parents) -> None:
    if not isinstance(node, numbers.Integral) or isinstance(node, bool):
        raise TypeError(f"node must be an int, not {type(node).__name__}")
    if not 0 <= node < n_vars:
        raise ValueError(f"node {node} out of range 0..{n_vars - 1}")
    if not isinstance(parents, tuple):
        raise TypeError(f"parents must be a sorted tuple of ints, not "
                        f"{type(parents).__name__}")
    prev = -1
    for p in parents:
        if not isinstance(p, numbers.Integral) or isinstance(p, bool):
            raise TypeError(f"parents must be ints, got {p!r}")
        if not 0 <= p < n_vars:
            raise ValueError(f"parent {p} out of range 0..{n_vars - 1}")
        if p <= prev:
            raise ValueError(f"parents must be strictly increasing, got {parents}")
        if p == node:
            raise ValueError(f"node {node} cannot be its own parent")
        prev = p


class FamilyScorer:
    """Cached family scores ``local(node, parents)`` of one data set.

    ``score`` is ``"bdeu"`` (equivalent sample size ``ess`` > 0, default 1) or
    ``"k2"`` (``ess`` unused); see the module docstring for the formulas. A result is
    cached under ``(node, parents)``, so a move that changes one family rescores only
    that family and a repeated family is a dict lookup. The cache is not bounded:
    :meth:`clear_cache` empties it.
    """

    def __init__(self, data: DiscreteData, score: str = "bdeu", ess: float = 1.0):
        if not isinstance(data, DiscreteData):
            raise TypeError(f"data must be DiscreteData, not {type(data).__name__}")
        name = score.lower() if isinstance(score, str) else score
        if name not in SCORES:
            raise ValueError(f"score must be one of {SCORES}, not {score!r}")
        if (not isinstance(ess, numbers.Real) or isinstance(ess, bool)
                or not math.isfinite(ess) or ess <= 0):
            raise ValueError(f"ess (the equivalent sample size) must be a finite number "
                             f"> 0, not {ess!r}")
        self.data = data
        self.score = name
        self.ess = float(ess)
        self.n_vars = data.n_vars
        # Column-major copy: the kernels read one variable's codes contiguously.
        self._cols = np.ascontiguousarray(data.codes.T)
        self._w = np.ascontiguousarray(data.counts, dtype=np.int64)
        self._arities = data.arities.astype(np.int64)
        self._r = [int(a) for a in self._arities]
        self._dense_limit = min(DENSE_MAX_CELLS,
                                max(DENSE_MIN_CELLS, DENSE_CELLS_PER_ROW * data.n_rows))
        self._cache: dict[tuple[int, tuple[int, ...]], float] = {}

    def local(self, node: int, parents: tuple[int, ...]) -> float:
        """log p(data on node | data on parents), the family score (parents sorted)."""
        try:
            return self._cache[(node, parents)]
        except KeyError:
            return self._miss(node, parents)
        except TypeError:   # an unhashable parents (a list): say what is expected
            _check_family(self.n_vars, node, parents)
            raise

    def _miss(self, node, parents) -> float:
        _check_family(self.n_vars, node, parents)
        r = self._r[node]
        q = math.prod([self._r[p] for p in parents])
        alpha_j, alpha_jk = family_prior(self.score, self.ess, q, r)
        pa = np.array(parents, dtype=np.int64)
        fn = K._family_dense if q * r <= self._dense_limit else K._family_sorted
        value = float(fn(self._cols, self._w, node, pa, self._arities, alpha_j, alpha_jk))
        self._cache[(node, parents)] = value   # validated: equal to the int key
        return value

    def kernel_inputs(self) -> tuple:
        """(cols, w, arities, ess, is BDeu, dense limit): what the family kernels take,
        for a compiled caller that scores families itself (slpy.compiled.network)."""
        return (self._cols, self._w, self._arities, self.ess, self.score == "bdeu",
                self._dense_limit)

    def total(self, parent_sets: Sequence[Sequence[int]]) -> float:
        """The DAG's score: the sum over nodes i of ``local(i, parent_sets[i])``."""
        if len(parent_sets) != self.n_vars:
            raise ValueError(f"{len(parent_sets)} parent sets for {self.n_vars} nodes")
        local = self.local
        return math.fsum(local(i, tuple(ps)) for i, ps in enumerate(parent_sets))

    @property
    def cache_size(self) -> int:
        """Families scored and cached so far."""
        return len(self._cache)

    def clear_cache(self) -> None:
        self._cache.clear()

    def __repr__(self) -> str:
        extra = f", ess={self.ess:g}" if self.score == "bdeu" else ""
        return (f"FamilyScorer({self.data.source!r}, score={self.score!r}{extra}, "
                f"cached={self.cache_size})")


def family_counts(data: DiscreteData, node: int, parents: tuple[int, ...]) -> np.ndarray:
    """N_ijk as an int64 [q, r] array, rows in the mixed-radix order of the module
    docstring (all q configurations, unobserved ones as zero rows)."""
    _check_family(data.n_vars, node, parents)
    ar = data.arities.astype(np.int64)
    r = int(ar[node])
    q = math.prod([int(ar[p]) for p in parents])
    if q * r > DENSE_MAX_CELLS:
        raise ValueError(f"a table of {q} x {r} cells is too large to return")
    tab = K._count_dense(np.ascontiguousarray(data.codes.T),
                         np.ascontiguousarray(data.counts, dtype=np.int64), node,
                         np.array(parents, dtype=np.int64), ar)
    return tab.reshape(q, r)
