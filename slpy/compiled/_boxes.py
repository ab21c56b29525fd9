"""Private numba kernels of box constraints (priors/boxes.slp) for the compiled tree
moves (slpy.compiled._kernels).

Box constraints (priors/boxes.slp) remove splits: ``boxes`` float64 [B, 2, p] holds
each box's lower and upper bound on every feature (-inf, inf where it has none); a
node's region ``reg`` [2, p] the bounds its ancestors' rules set (lo < x <= hi). A box
meets the region when on every feature its lower bound is at most the region's upper
one and its upper bound above the region's lower one; a threshold t of feature f is
forbidden when such a box has max(its lower, region's lower) <= t < min(its upper,
region's upper) on f, as count_splits_except/4 reads the program's forbidden
intervals. With no boxes, ``boxes`` is None: nothing is forbidden, no region is
tracked, and numba compiles the moves without this code.
"""
from __future__ import annotations

import numpy as np

from .._numba_config import kernel
from ._layout import FEAT, SIZE, THR


@kernel
def _forbidden(f, t, reg, boxes):
    """Does a box meeting the region `reg` forbid the threshold t of feature f?"""
    p = reg.shape[1]
    for b in range(boxes.shape[0]):
        lo = max(boxes[b, 0, f], reg[0, f])
        hi = min(boxes[b, 1, f], reg[1, f])
        if not (lo <= t < hi):
            continue
        meets = True
        for g in range(p):
            if not (boxes[b, 0, g] <= reg[1, g] and boxes[b, 1, g] > reg[0, g]):
                meets = False
                break
        if meets:
            return True
    return False


@kernel
def _allowed(fs, ts, reg, boxes):
    """The splits fs, ts that no box forbids in the region `reg` (all: no boxes)."""
    if boxes is None:
        return fs, ts
    keep = np.empty(fs.shape[0], dtype=np.bool_)
    for i in range(fs.shape[0]):
        keep[i] = not _forbidden(fs[i], ts[i], reg, boxes)
    return fs[keep], ts[keep]


@kernel
def _region(k, I, F, reg):
    """Node k's region into reg: the bounds of the rules on the path to it."""
    reg[0, :] = -np.inf
    reg[1, :] = np.inf
    j = 0
    while j != k:
        f = I[j, FEAT]
        t = F[j, THR]
        c = j + 1
        if k >= c + I[c, SIZE]:
            c += I[c, SIZE]
            reg[0, f] = max(reg[0, f], t)
        else:
            reg[1, f] = min(reg[1, f], t)
        j = c


@kernel
def _child_regions(reg, f, t, left, right):
    """The regions of a node's children (region `reg`, rule x_f <= t)."""
    left[:, :] = reg
    right[:, :] = reg
    left[1, f] = min(reg[1, f], t)
    right[0, f] = max(reg[0, f], t)
