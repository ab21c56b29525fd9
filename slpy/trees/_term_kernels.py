"""Private numba kernel behind slpy.trees.term: routing rows down a flat tree.

One row at a time from the root to its leaf: measured 3x (20,000 rows, letter.csv)
to 7x (683 rows, BCW) faster than the vectorised NumPy pass over the rows still at
a split, which the tests keep as the reference. Arrays as FlatTree holds them.
"""
from __future__ import annotations

import numpy as np

from .._numba_config import kernel


@kernel
def _apply(X, feat, thr, left, right):
    """The node each row of X reaches: left where X[i, feat[j]] <= thr[j]."""
    out = np.empty(X.shape[0], np.int64)
    for i in range(X.shape[0]):
        j = 0
        while feat[j] >= 0:
            j = left[j] if X[i, feat[j]] <= thr[j] else right[j]
        out[i] = j
    return out
