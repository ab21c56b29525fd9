"""The clustering score: the log marginal likelihood of a partition, a sum over its
clusters (blocks), each cached.

Within a cluster the columns are independent and the rows exchangeable:

- a **numeric** column is normal with unknown mean mu and variance s2 under the
  conjugate normal-inverse-gamma prior s2 ~ InvGamma(a0, b0), mu | s2 ~ N(m0, s2 / k0);
- a **categorical** column with r levels is categorical with probabilities p under a
  symmetric Dirichlet(g, ..., g) prior.

Integrating the parameters out gives, for a block of m rows, the closed forms in
slpy.cluster._kernels (e.g. Murphy 2007, "Conjugate Bayesian analysis of the Gaussian
distribution", eq. 95; the Dirichlet-multinomial of a sequence). The hyperparameters,
by default (:func:`default_hyper`), come from the rows being clustered:

    m0_j = the column's mean,  k0 = 0.01,  a0 = 2,  b0_j = (a0 - 1) (s_j / 2)^2,  g = 1

(s_j: the column's standard deviation over all rows, or 1 for a constant column).
So a cluster's mean may lie anywhere in the data's range (its prior standard deviation
is sqrt(s2 / k0) = 10 cluster standard deviations, as Fraley & Raftery 2007 shrink the
means of a normal mixture), a cluster's variance is a priori about (s_j / 2)^2 (a0 - 1
makes that the prior mean of s2: a quarter of the column's variance), and every level
of a categorical column is equally likely a priori (g = 1: uniform on the
probabilities).

:class:`BlockScorer` caches each block's score under the bitmask of its rows (a Python
int), so a partition that keeps most clusters rescores only the ones that changed.
"""
from __future__ import annotations

import math
import numbers
from dataclasses import dataclass

import numpy as np

from . import _kernels as K
from .data import ClusterData

__all__ = ["Hyper", "default_hyper", "BlockScorer", "CACHE_LIMIT", "mask_of", "masks_of"]

# cached blocks before the cache is emptied (a long run visits millions of blocks)
CACHE_LIMIT = 1_000_000


@dataclass(frozen=True)
class Hyper:
    """The hyperparameters: ``m0`` and ``b0`` one per numeric column (tuples), ``k0``,
    ``a0`` and the Dirichlet parameter ``gamma`` shared."""
    m0: tuple
    b0: tuple
    k0: float = 0.01
    a0: float = 2.0
    gamma: float = 1.0

    def check(self, n_num: int) -> None:
        if len(self.m0) != n_num or len(self.b0) != n_num:
            raise ValueError(f"m0 and b0 need one value per numeric column ({n_num})")
        for name in ("k0", "a0", "gamma"):
            v = getattr(self, name)
            if not (isinstance(v, numbers.Real) and math.isfinite(v) and v > 0):
                raise ValueError(f"{name} must be a finite number > 0, not {v!r}")
        if not all(math.isfinite(b) and b > 0 for b in self.b0):
            raise ValueError("every b0 must be a finite number > 0")
        if not all(math.isfinite(m) for m in self.m0):
            raise ValueError("every m0 must be a finite number")


def default_hyper(data: ClusterData, k0: float = 0.01, a0: float = 2.0,
                  spread: float = 0.5, gamma: float = 1.0) -> Hyper:
    """The defaults of the module docstring: m0 the columns' means, b0 making the
    prior mean of a cluster's variance (spread * s_j)^2."""
    x = data.numeric
    m0 = tuple(float(v) for v in x.mean(axis=0)) if x.shape[1] else ()
    sd = x.std(axis=0) if x.shape[1] else np.zeros(0)
    sd = np.where(sd > 0, sd, 1.0)
    b0 = tuple(float((a0 - 1.0) * (spread * s) ** 2) if a0 > 1 else float((spread * s) ** 2)
               for s in sd)
    return Hyper(m0, b0, float(k0), float(a0), float(gamma))


class BlockScorer:
    """Cached block scores ``block(rows)`` of one data set (rows: 0-based indices)."""

    def __init__(self, data: ClusterData, hyper: Hyper | None = None):
        if not isinstance(data, ClusterData):
            raise TypeError(f"data must be ClusterData, not {type(data).__name__}")
        self.data = data
        self.n = data.n_rows
        self.hyper = hyper if hyper is not None else default_hyper(data)
        self.hyper.check(data.numeric.shape[1])
        self._x = np.ascontiguousarray(data.numeric.T)
        self._c = np.ascontiguousarray(data.codes.T, dtype=np.int32)
        self._ar = data.arities.astype(np.int64)
        self._m0 = np.array(self.hyper.m0, dtype=np.float64)
        self._b0 = np.array(self.hyper.b0, dtype=np.float64)
        self._cache: dict = {}

    def block(self, rows) -> float:
        """log p(the rows' data | they form one cluster); rows: an iterable of
        0-based row indices (not empty)."""
        rows = sorted(int(r) for r in rows)
        if not rows or rows[0] < 0 or rows[-1] >= self.n:
            raise ValueError(f"a block's rows must lie in 0..{self.n - 1}")
        return self.by_mask(mask_of(rows))

    def by_mask(self, mask: int) -> float:
        """block() of the rows whose bits `mask` sets (a positive int below 2^n)."""
        v = self._cache.get(mask)
        if v is None:
            if mask <= 0 or mask >> self.n:
                raise ValueError(f"a block's rows must lie in 0..{self.n - 1}")
            rows = [i for i in range(mask.bit_length()) if mask >> i & 1]
            h = self.hyper
            v = float(K._block_loglik(self._x, self._c, self._ar,
                                      np.array(rows, dtype=np.int64), self._m0, h.k0,
                                      h.a0, self._b0, h.gamma))
            if len(self._cache) >= CACHE_LIMIT:
                self._cache.clear()
            self._cache[mask] = v
        return v

    def gain(self, mask: int, i: int) -> float:
        """by_mask(mask + row i) - by_mask(mask), with mask 0 an empty block."""
        return self.by_mask(mask | 1 << i) - (self.by_mask(mask) if mask else 0.0)

    def total(self, blocks) -> float:
        """The partition's score: the sum of its blocks' (lists of 0-based rows)."""
        return math.fsum(self.block(b) for b in blocks)

    @property
    def cache_size(self) -> int:
        return len(self._cache)

    # -- the posterior predictive of new rows ----------------------------------------------
    def predictive(self, rows, new: ClusterData) -> np.ndarray:
        """log p(x | the block's rows) of each row x of `new` (same columns): the
        posterior predictive, Student-t for a numeric column and (c_l + g) /
        (m + r g) for a categorical one. `rows` may be empty (the prior
        predictive: a new cluster)."""
        from scipy.special import gammaln    # a fifth of a second: not for a tree run
        h = self.hyper
        idx = np.asarray(sorted(rows), dtype=np.int64)
        m = len(idx)
        out = np.zeros(new.n_rows)
        km, am = h.k0 + m, h.a0 + 0.5 * m
        for j in range(self._x.shape[0]):
            v = self._x[j, idx]
            mean = v.mean() if m else 0.0
            ss = float(((v - mean) ** 2).sum()) if m else 0.0
            mm = (h.k0 * self._m0[j] + m * mean) / km
            bm = self._b0[j] + 0.5 * ss + h.k0 * m * (mean - self._m0[j]) ** 2 / (2 * km)
            scale2 = bm * (km + 1) / (am * km)      # t with 2 am degrees of freedom
            nu = 2 * am
            z = (new.numeric[:, j] - mm) ** 2 / scale2
            out += (gammaln((nu + 1) / 2) - gammaln(nu / 2) - 0.5 * math.log(nu * math.pi)
                    - 0.5 * math.log(scale2) - (nu + 1) / 2 * np.log1p(z / nu))
        for j in range(self._c.shape[0]):
            r = int(self._ar[j])
            cnt = np.bincount(self._c[j, idx], minlength=r) if m else np.zeros(r)
            out += np.log((cnt[new.codes[:, j]] + h.gamma) / (m + r * h.gamma))
        return out


def mask_of(rows) -> int:
    """The bitmask of 0-based row indices."""
    m = 0
    for r in rows:
        m |= 1 << r
    return m


def masks_of(labels) -> list:
    """The bitmasks of the blocks of a label list (item i has label labels[i]), in
    order of their smallest item."""
    masks: dict = {}
    for i, k in enumerate(labels):
        masks[k] = masks.get(k, 0) | 1 << i
    return list(masks.values())
