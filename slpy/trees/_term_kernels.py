"""Private numba kernel behind slpy.trees.term: routing rows down a flat tree.

One row at a time from the root to its leaf: measured 3x (20,000 rows, letter.csv)
to 7x (683 rows, BCW) faster than the vectorised NumPy pass over the rows still at
a split, which the tests keep as the reference. Arrays as FlatTree holds them.
"""
from __future__ import annotations

import numpy as np

from .._numba_config import kernel
from ..data._kernels import _goes_left


@kernel
def _apply(X, feat, value, side, categorical, default_left, left, right):
    """The node each row of X reaches (the split rules of slpy.data.splits)."""
    out = np.empty(X.shape[0], np.int64)
    for i in range(X.shape[0]):
        j = 0
        while feat[j] >= 0:
            f = feat[j]
            if _goes_left(X[i, f], side[j], categorical[f], value[j], default_left[j]):
                j = left[j]
            else:
                j = right[j]
        out[i] = j
    return out
