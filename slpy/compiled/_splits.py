"""Private numba kernel of the compiled chains' split lists (slpy.compiled._kernels):
a row set's valid splits as slpy.data._kernels._scan_splits lists them, in the same
(feature, threshold) order, without its row set hashes and copies (which the chains
do not use: a third of the scan's cost)."""
from __future__ import annotations

import numpy as np

from .._numba_config import kernel


@kernel
def _valid_splits(rankT, uvals, uoff, rows, m, bucket):
    """The valid splits of ``rows`` (features, thresholds), as
    slpy.data._kernels._scan_splits lists them, in the same order, without its row
    set hashes (which the chain does not use)."""
    p = rankT.shape[0]
    n = rows.shape[0]
    feat = np.empty(p * max(n - 1, 0), dtype=np.int64)
    thr = np.empty(feat.shape[0], dtype=np.float64)
    k_out = 0
    lo = max(m, 1)
    hi = n - lo
    if n < 2 * lo:
        return feat[:0], thr[:0]
    max_r = 0
    for f in range(p):
        max_r = max(max_r, uoff[f + 1] - uoff[f])
    cnt = np.empty(max_r, dtype=np.int64)
    ranks = np.empty(0, dtype=np.int32)
    for f in range(p):
        R = uoff[f + 1] - uoff[f]
        rk = rankT[f]
        base = uoff[f]
        c = 0
        if R <= bucket * (n + 16):        # count the rows by rank
            cnt[:R] = 0
            for i in range(n):
                cnt[rk[rows[i]]] += 1
            for k in range(R - 1):
                if cnt[k] == 0:
                    continue
                c += cnt[k]
                if c > hi:
                    break
                if c >= lo:
                    feat[k_out] = f
                    thr[k_out] = uvals[base + k]
                    k_out += 1
        else:                             # sort their ranks
            if ranks.shape[0] == 0:
                ranks = np.empty(n, dtype=np.int32)
            for i in range(n):
                ranks[i] = rk[rows[i]]
            ranks.sort()
            for i in range(n - 1):
                c = i + 1
                if c > hi:
                    break
                if c >= lo and ranks[i] != ranks[i + 1]:
                    feat[k_out] = f
                    thr[k_out] = uvals[base + ranks[i]]
                    k_out += 1
    return feat[:k_out], thr[:k_out]
