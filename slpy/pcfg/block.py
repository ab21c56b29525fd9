"""Exact conditionals of a bounded subtree: the PCFG back end's dynamic program on one
node's rows, for the MCMC's exact block (Gibbs) move (slpy.pcfg.exact_move).

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
import subprocess
import sys
from pathlib import Path

import numpy as np

from .._numba_config import CACHE_DIR
from ..data.rowsets import RowSets
from . import _block as K

__all__ = ["GrowtreeBlock", "compile_in_background", "split_table"]

# depths a block reaches below a node: slpy.pcfg.exact_move's deepest move, with room
BLOCK_DEPTHS = 8


def split_table(alpha: float, beta: float, n_rows: int) -> np.ndarray:
    """GROWTREE's split probability alpha (1 + d)^-beta at every depth d a tree of
    n_rows rows and a block below its deepest node reach (a split leaves fewer rows
    on each side, so no node is deeper than n_rows), as the kernels read it; computed
    by Python's float power, which is the kernels' (C's pow)."""
    a, b = float(alpha), float(beta)
    return np.array([a * (1.0 + d) ** (-b) for d in range(n_rows + BLOCK_DEPTHS + 1)])

# the process compiling the kernels into the cache (compile_in_background), if any
_COMPILING: subprocess.Popen | None = None


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
        self.ptab = split_table(alpha, beta, ds.n_rows)
        self.m = max(int(min_leaf), 1)
        self.XT = np.array(ds.X.T, dtype=np.float64, order="C")   # writable copies
        # each feature's rows in ascending order, over the whole data: a node's sorted
        # rows are a filter of it (a sort kernel costs seconds of compiling)
        self.orderT = np.ascontiguousarray(np.argsort(rowsets._rankT, axis=1, kind="stable"),
                                           dtype=np.int32)
        self._mark = np.zeros(ds.n_rows, dtype=np.int8)
        if dirichlet is None:
            self.y = np.zeros(ds.n_rows, dtype=np.int64)
            self.alpha = np.ones(1)
            self.flat = True
        else:
            if ds.task != "classification":
                raise TypeError("the Dirichlet likelihood needs a classification dataset")
            self.y = np.array(ds.y, dtype=np.int64)
            # a writable copy: the kernels' types (and so numba's cache) see the flag
            self.alpha = np.array(dirichlet, dtype=np.float64)
            self.flat = False
        self.asum = float(self.alpha.sum())
        self.aconst = float(math.lgamma(self.asum) - sum(math.lgamma(a) for a in self.alpha))
        cap = 2 ** 12
        self._f = np.empty(cap, dtype=np.int64)
        self._v = np.empty(cap, dtype=np.float64)

    def _srt(self, rid: int) -> np.ndarray:
        if _COMPILING is not None:
            _wait_for_compile()
        return K._sorted_rows(np.array(self.rowsets.rows(rid), dtype=np.int32),  # writable
                              self.orderT, self._mark)

    def _heat(self, heat: float) -> float:
        return 0.0 if self.flat else float(heat)

    def log_inside(self, rid: int, depth: int, h: int, heat: float = 1.0) -> float:
        """log of sum over subtrees S of depth <= h of prior(S | rows, depth) L(S)^heat."""
        return float(K._log_inside(self._srt(rid), self.XT, self.y, self.alpha, self.asum,
                                   self.aconst, self.m, int(depth), int(h),
                                   self._heat(heat), self.ptab))

    def sample(self, rid: int, depth: int, h: int, heat: float, rng):
        """A subtree of depth <= h drawn from the conditional: (pre-order list of
        (feature, threshold) for a split and None for a leaf, its log prior)."""
        if 2 ** (h + 1) > len(self._f):
            self._f = np.empty(2 ** (h + 1), dtype=np.int64)
            self._v = np.empty(2 ** (h + 1), dtype=np.float64)
        logp = np.zeros(1)
        n = K._sample(self._srt(rid), self.XT, self.y, self.alpha, self.asum, self.aconst,
                      self.m, int(depth), int(h), self._heat(heat), self.ptab, rng,
                      self._f, self._v, 0, logp)
        f, v = self._f, self._v
        return [None if f[i] < 0 else (int(f[i]), float(v[i])) for i in range(n)], \
            float(logp[0])


def compile_in_background() -> None:
    """Compile the kernels into numba's cache in another process, unless they are
    cached already or there is no cache: the first exact move then loads them instead
    of spending seconds compiling, while this process loads the program and the data.
    The kernels are the same whichever process compiles them, so a run does not depend
    on which does."""
    global _COMPILING
    if _COMPILING is not None or CACHE_DIR is None or _cached():
        return
    try:
        _COMPILING = subprocess.Popen(
            [sys.executable, "-c", "from slpy.pcfg.block import _compile; _compile()"],
            stdin=subprocess.DEVNULL, stdout=subprocess.DEVNULL, stderr=subprocess.DEVNULL)
    except OSError:
        _COMPILING = None


def _cached() -> bool:
    """Has this copy of the kernels an index in the cache? (numba keeps one cache
    folder per source folder; a stale index only costs the compile here.)"""
    try:
        return Path(K._sample._cache._cache_file._index_path).exists()
    except AttributeError:       # another numba's internals: just compile in the background
        return False


def _wait_for_compile() -> None:
    global _COMPILING
    proc, _COMPILING = _COMPILING, None
    try:
        proc.wait(timeout=120)    # past that, compile here
    except subprocess.TimeoutExpired:
        proc.kill()


def _compile() -> None:
    """Call every kernel once with the argument types GrowtreeBlock passes (arrays
    made here: building a RowSets would compile its own kernels too)."""
    XT = np.array([[i % 4 for i in range(12)], [(i * 7) % 5 for i in range(12)]],
                  dtype=np.float64)
    orderT = np.ascontiguousarray(np.argsort(XT, axis=1, kind="stable"), dtype=np.int32)
    srt = K._sorted_rows(np.arange(12, dtype=np.int32), orderT, np.zeros(12, dtype=np.int8))
    y = np.arange(12, dtype=np.int64) % 2
    alpha = np.ones(2)
    ptab = split_table(0.95, 1.0, 12)
    K._log_inside(srt, XT, y, alpha, 2.0, 0.0, 1, 0, 2, 1.0, ptab)
    K._sample(srt, XT, y, alpha, 2.0, 0.0, 1, 0, 2, 1.0, ptab,
              np.random.default_rng(0), np.empty(8, dtype=np.int64), np.empty(8), 0,
              np.zeros(1))
