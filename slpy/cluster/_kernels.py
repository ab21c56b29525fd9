"""Private numba kernel for the clustering score. Flat arrays only.

The data arrive column-major: ``xcols`` (float64 [p_num, n]) holds numeric column j in
``xcols[j]``, ``ccols`` (int32 [p_cat, n]) categorical column j's codes, ``arities``
(int64 [p_cat]) their numbers of levels. A block is ``idx`` (int64), the indices of its
rows. The public wrapper (slpy.cluster.score) validates everything before calling.

The log marginal likelihood of a block of m rows is a sum over columns (slpy.cluster.score
has the model and the references in the tests):

    numeric j:      lgamma(a_m) - lgamma(a0) + a0 log b0_j - a_m log b_m
                    + (log k0 - log k_m) / 2 - (m / 2) log(2 pi),
                    k_m = k0 + m, a_m = a0 + m / 2,
                    b_m = b0_j + S / 2 + k0 m (xbar - m0_j)^2 / (2 k_m)
                    (S: the sum of squares about the block's mean xbar)
    categorical j:  lgamma(r g) - lgamma(r g + m) + sum_l [lgamma(g + c_l) - lgamma(g)]
                    (r levels, c_l rows at level l, g the Dirichlet parameter)
"""
from __future__ import annotations

import math

import numpy as np

from .._numba_config import kernel

LOG_2PI = math.log(2.0 * math.pi)


@kernel
def _block_loglik(xcols, ccols, arities, idx, m0, k0, a0, b0, gamma):
    m = idx.shape[0]
    if m == 0:
        return 0.0
    total = 0.0
    km = k0 + m
    am = a0 + 0.5 * m
    const = math.lgamma(am) - math.lgamma(a0) + 0.5 * (math.log(k0) - math.log(km)) \
        - 0.5 * m * LOG_2PI
    for j in range(xcols.shape[0]):
        s = 0.0
        for t in range(m):
            s += xcols[j, idx[t]]
        mean = s / m
        ss = 0.0      # two passes: no cancellation in sum(x^2) - m mean^2
        for t in range(m):
            d = xcols[j, idx[t]] - mean
            ss += d * d
        dm = mean - m0[j]
        bm = b0[j] + 0.5 * ss + k0 * m * dm * dm / (2.0 * km)
        total += const + a0 * math.log(b0[j]) - am * math.log(bm)
    if ccols.shape[0] == 0:
        return total
    rmax = 0
    for j in range(ccols.shape[0]):
        rmax = max(rmax, arities[j])
    cnt = np.zeros(rmax, dtype=np.int64)
    lg_g = math.lgamma(gamma)
    for j in range(ccols.shape[0]):
        r = arities[j]
        for l in range(r):
            cnt[l] = 0
        for t in range(m):
            cnt[ccols[j, idx[t]]] += 1
        total += math.lgamma(r * gamma) - math.lgamma(r * gamma + m)
        for l in range(r):
            if cnt[l] > 0:
                total += math.lgamma(gamma + cnt[l]) - lg_g
    return total
