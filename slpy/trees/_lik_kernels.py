"""Private numba kernels for the tree likelihoods. Flat arrays only.

A tree's leaves arrive as one concatenated row-index array ``rows`` and ``offsets``
(length b + 1): leaf i owns ``rows[offsets[i]:offsets[i + 1]]``. The "tree" kernels
count and score in one pass with no Python loop over rows or leaves. They check
indices themselves (a NaN result means a bad row index or class code), which is
cheaper than validating 20,000 indices with NumPy first.
"""
from __future__ import annotations

import math

import numpy as np

from .._numba_config import kernel


@kernel
def _dirichlet_leaf(counts, alpha):
    """log Gamma(A)/Gamma(n + A) + sum_k log Gamma(n_k + alpha_k)/Gamma(alpha_k), A = sum alpha."""
    a_sum = 0.0
    n = 0.0
    s = 0.0
    for k in range(alpha.shape[0]):
        a_sum += alpha[k]
        n += counts[k]
        if counts[k] > 0:   # the k-th factor is exactly 1 for an absent class
            s += math.lgamma(counts[k] + alpha[k]) - math.lgamma(alpha[k])
    return s + math.lgamma(a_sum) - math.lgamma(n + a_sum)


@kernel
def _class_counts_segments(y, rows, offsets, n_classes):
    """Class counts per leaf, int64 [b, n_classes], and ok.

    ok is False when a row index or a class code is out of range.
    """
    b = offsets.shape[0] - 1
    out = np.zeros((b, n_classes), dtype=np.int64)
    n_y = y.shape[0]
    for i in range(b):
        for j in range(offsets[i], offsets[i + 1]):
            r = rows[j]
            if r < 0 or r >= n_y:
                return out, False
            c = y[r]
            if c < 0 or c >= n_classes:
                return out, False
            out[i, c] += 1
    return out, True


@kernel
def _dirichlet_tree(y, rows, offsets, alpha):
    """Sum over leaves of :func:`_dirichlet_leaf`, counting as it goes; NaN on bad input."""
    K = alpha.shape[0]
    n_y = y.shape[0]
    counts = np.zeros(K, dtype=np.int64)
    total = 0.0
    for i in range(offsets.shape[0] - 1):
        counts[:] = 0
        for j in range(offsets[i], offsets[i + 1]):
            r = rows[j]
            if r < 0 or r >= n_y:
                return np.nan
            c = y[r]
            if c < 0 or c >= K:
                return np.nan
            counts[c] += 1
        total += _dirichlet_leaf(counts, alpha)
    return total


@kernel
def _moments_segments(y, rows, offsets):
    """Per leaf (n, sum, central sum of squares), float64 [b, 3]; (out, ok) as above."""
    b = offsets.shape[0] - 1
    out = np.zeros((b, 3))
    n_y = y.shape[0]
    for i in range(b):
        lo = offsets[i]
        hi = offsets[i + 1]
        s = 0.0
        for j in range(lo, hi):
            r = rows[j]
            if r < 0 or r >= n_y:
                return out, False
            s += y[r]
        n = hi - lo
        css = 0.0
        if n > 0:
            mean = s / n
            for j in range(lo, hi):   # second pass: no sumsq - sum^2/n cancellation
                d = y[rows[j]] - mean
                css += d * d
        out[i, 0] = n
        out[i, 1] = s
        out[i, 2] = css
    return out, True


@kernel
def _normal_leaf(n, s, css, mu_bar, a):
    """Per-leaf pieces of the CGM normal marginal: (-log(n + a) / 2, s_i + t_i)."""
    if n > 0:
        d = s / n - mu_bar
        quad = css + n * a / (n + a) * d * d
    else:
        quad = 0.0
    return -0.5 * math.log(n + a), quad


@kernel
def _normal_combine(n_total, b, log_part, quad, nu, lam, a):
    """log p(Y|X,T) from summed leaf pieces (see ``NormalLikelihood``)."""
    nl = nu * lam
    half = 0.5 * (n_total + nu)
    return (-0.5 * n_total * math.log(math.pi) + 0.5 * nu * math.log(nl)
            + math.lgamma(half) - math.lgamma(0.5 * nu)
            + 0.5 * b * math.log(a) + log_part - half * math.log(quad + nl))


@kernel
def _normal_tree(y, rows, offsets, nu, lam, mu_bar, a):
    """CGM 1998 normal marginal likelihood of a tree in one call; NaN on bad input."""
    stats, ok = _moments_segments(y, rows, offsets)
    if not ok:
        return np.nan
    b = stats.shape[0]
    log_part = 0.0
    quad = 0.0
    n_total = 0.0
    for i in range(b):
        lp, q = _normal_leaf(stats[i, 0], stats[i, 1], stats[i, 2], mu_bar, a)
        log_part += lp
        quad += q
        n_total += stats[i, 0]
    return _normal_combine(n_total, b, log_part, quad, nu, lam, a)
