"""Exact conditionals of a bounded subtree: the PCFG back end's dynamic program on one
node's rows, for the MCMC's exact block (Gibbs) move (slpy.mcmc.exact_move).

Under GROWTREE (priors/growtree.slp) the subtree below a node depends only on the
node's rows and depth, and the likelihood of the tree is a product over leaves. So
the conditional law of the subtree below a node given the rest of the tree is

    prior(subtree | rows, depth) * L(leaves of the subtree)^heat, normalised,

a small PCFG rooted at the node. Restricted to subtrees of depth <= h it is computed
exactly by inside scores (numba kernels in slpy.pcfg._block), without building row
sets: the rows are carried down sorted by each feature.
"""
from __future__ import annotations

import math

import numpy as np

from ..data.rowsets import RowSets
from . import _block as K

__all__ = ["GrowtreeBlock"]


class GrowtreeBlock:
    """Bounded-depth exact conditionals of GROWTREE subtrees on a RowSets table.

    ``alpha``, ``beta``, ``min_leaf``: the prior's parameters. ``dirichlet``: the
    Dirichlet-multinomial likelihood's parameters per class (an array), or None for
    no likelihood (the prior alone).
    """

    def __init__(self, rowsets: RowSets, alpha: float, beta: float, min_leaf: int,
                 dirichlet=None):
        ds = rowsets.dataset
        if not (0.0 <= alpha <= 1.0) or not math.isfinite(beta):
            raise ValueError(f"GROWTREE needs 0 <= alpha <= 1 and a finite beta "
                             f"(alpha={alpha}, beta={beta})")
        self.rowsets = rowsets
        self.pa, self.pb = float(alpha), float(beta)
        self.m = max(int(min_leaf), 1)
        self.XT = np.ascontiguousarray(ds.X.T, dtype=np.float64)
        self.rankT = rowsets._rankT
        if dirichlet is None:
            self.y = np.zeros(ds.n_rows, dtype=np.int64)
            self.alpha = np.ones(1)
            self.flat = True
        else:
            if ds.task != "classification":
                raise TypeError("the Dirichlet likelihood needs a classification dataset")
            self.y = np.ascontiguousarray(ds.y, dtype=np.int64)
            self.alpha = np.ascontiguousarray(dirichlet, dtype=np.float64)
            self.flat = False
        self.asum = float(self.alpha.sum())
        self.aconst = float(math.lgamma(self.asum) - sum(math.lgamma(a) for a in self.alpha))
        cap = 2 ** 12
        self._f = np.empty(cap, dtype=np.int64)
        self._v = np.empty(cap, dtype=np.float64)

    def _srt(self, rid: int) -> np.ndarray:
        return K._sorted_rows(np.ascontiguousarray(self.rowsets.rows(rid), dtype=np.int32),
                              self.rankT)

    def _heat(self, heat: float) -> float:
        return 0.0 if self.flat else float(heat)

    def log_inside(self, rid: int, depth: int, h: int, heat: float = 1.0) -> float:
        """log of sum over subtrees S of depth <= h of prior(S | rows, depth) L(S)^heat."""
        return float(K._log_inside(self._srt(rid), self.XT, self.y, self.alpha, self.asum,
                                   self.aconst, self.m, int(depth), int(h),
                                   self._heat(heat), self.pa, self.pb))

    def sample(self, rid: int, depth: int, h: int, heat: float, rng):
        """A subtree of depth <= h drawn from the conditional: (pre-order list of
        (feature, threshold) for a split and None for a leaf, its log prior)."""
        if 2 ** (h + 1) > len(self._f):
            self._f = np.empty(2 ** (h + 1), dtype=np.int64)
            self._v = np.empty(2 ** (h + 1), dtype=np.float64)
        logp = np.zeros(1)
        n = K._sample(self._srt(rid), self.XT, self.y, self.alpha, self.asum, self.aconst,
                      self.m, int(depth), int(h), self._heat(heat), self.pa, self.pb, rng,
                      self._f, self._v, 0, logp)
        f, v = self._f, self._v
        return [None if f[i] < 0 else (int(f[i]), float(v[i])) for i in range(n)], \
            float(logp[0])
