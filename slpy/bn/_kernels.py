"""Private numba kernels for the BN family scores. Flat arrays only.

The data arrive column-major: ``cols`` (int32 [n_vars, n_rows]) holds variable v's
codes in ``cols[v]``, contiguous, and ``w`` (int64 [n_rows]) the row counts.
``parents`` is an int64 array of column indices and ``arities`` an int64 array.
The public wrappers (``slpy.bn.score``) validate indices before calling.

Parent configurations are numbered in mixed radix with the *first* parent most
significant (C order, as ``np.ravel_multi_index``): j = sum_m c_m * prod_{m' > m} r_m'.
Both kernels score the same Dirichlet family, with a uniform pseudo-count
``alpha_jk`` per cell and ``alpha_j = r * alpha_jk`` per configuration (passed in
separately, so BDeu's a/q is not recomputed as r * a/(q r) and rounded differently):

    sum_{j: N_ij > 0} [lgamma(alpha_j) - lgamma(alpha_j + N_ij)]
        + sum_{jk: N_ijk > 0} [lgamma(alpha_jk + N_ijk) - lgamma(alpha_jk)].

Unobserved configurations and cells contribute exactly 0, so they are skipped.
"""
from __future__ import annotations

import math

import numpy as np

from .._numba_config import kernel

# Keys stay below 2**62 so that key * arity + code cannot overflow int64.
KEY_LIMIT = 1 << 62


@kernel
def _config_index(cols, parents, arities):
    """Mixed-radix index of each row's parent configuration, int64 [n_rows]."""
    n = cols.shape[1]
    idx = np.zeros(n, dtype=np.int64)
    for m in range(parents.shape[0]):
        p = parents[m]
        a = arities[p]
        for i in range(n):   # parent-major: each pass reads one contiguous column
            idx[i] = idx[i] * a + cols[p, i]
    return idx


@kernel
def _count_dense(cols, w, node, parents, arities):
    """N_ijk as a dense int64 [q * r] array (row j, column k)."""
    r = arities[node]
    q = 1
    for m in range(parents.shape[0]):
        q *= arities[parents[m]]
    idx = _config_index(cols, parents, arities)
    tab = np.zeros(q * r, dtype=np.int64)
    for i in range(cols.shape[1]):
        tab[idx[i] * r + cols[node, i]] += w[i]
    return tab


@kernel
def _score_dense(tab, r, alpha_j, alpha_jk):
    """The family score of a dense [q * r] count table."""
    lg_j = math.lgamma(alpha_j)
    lg_jk = math.lgamma(alpha_jk)
    total = 0.0
    for j in range(tab.shape[0] // r):
        nij = 0
        s = 0.0
        for k in range(j * r, (j + 1) * r):
            c = tab[k]
            if c > 0:
                nij += c
                s += math.lgamma(alpha_jk + c) - lg_jk
        if nij > 0:
            total += lg_j - math.lgamma(alpha_j + nij) + s
    return total


@kernel
def _family_dense(cols, w, node, parents, arities, alpha_j, alpha_jk):
    """Family score by a dense table: O(n_rows * |parents| + q * r)."""
    tab = _count_dense(cols, w, node, parents, arities)
    return _score_dense(tab, arities[node], alpha_j, alpha_jk)


@kernel
def _rank(key):
    """Replace keys by their rank among the distinct keys; return how many there are."""
    n = key.shape[0]
    if n == 0:
        return 1
    order = np.argsort(key)
    out = np.empty(n, dtype=np.int64)
    rank = 0
    prev = key[order[0]]
    for t in range(n):
        v = key[order[t]]
        if v != prev:
            rank += 1
            prev = v
        out[order[t]] = rank
    key[:] = out
    return rank + 1


@kernel
def _family_sorted(cols, w, node, parents, arities, alpha_j, alpha_jk):
    """Family score by sorting cell keys: O(n_rows log n_rows), any q.

    A cell key is (configuration, value) in mixed radix. When the next digit could
    overflow int64, the keys so far are replaced by their ranks (< n_rows), which
    keeps their order and equality, so the grouping stays exact for any q.
    """
    n = cols.shape[1]
    r = arities[node]
    key = np.zeros(n, dtype=np.int64)
    bound = 1   # every key lies in [0, bound)
    for m in range(parents.shape[0] + 1):
        v = parents[m] if m < parents.shape[0] else node
        a = arities[v]
        if bound > KEY_LIMIT // a:
            bound = _rank(key)
        for i in range(n):
            key[i] = key[i] * a + cols[v, i]
        bound *= a
    order = np.argsort(key)
    lg_j = math.lgamma(alpha_j)
    lg_jk = math.lgamma(alpha_jk)
    total = 0.0
    t = 0
    while t < n:
        cfg = key[order[t]] // r   # the configuration part of the key
        nij = 0
        s = 0.0
        while t < n and key[order[t]] // r == cfg:
            cell = key[order[t]]
            c = 0
            while t < n and key[order[t]] == cell:
                c += w[order[t]]
                t += 1
            if c > 0:
                nij += c
                s += math.lgamma(alpha_jk + c) - lg_jk
        if nij > 0:
            total += lg_j - math.lgamma(alpha_j + nij) + s
    return total
