"""Private numba kernels of the compiled GROWTREE chain (slpy.compiled.growtree).

Flat arrays only. A tree is its nodes in pre-order:

- ``I`` int64 [cap, 6], columns FEAT (the split feature, -1 at a leaf), LO and HI
  (the node's rows are ``perm[LO:HI]``), DEPTH, SIZE (nodes in its subtree) and NS
  (how many valid splits its rows have, -1 until some move needs it). A
  split's left child is the next node and its right child comes after the left
  child's subtree, so the children are found from SIZE; the rows of the two children
  are the two parts of their parent's range, left first.
- ``F`` float64 [cap, 2], columns THR (a split sends ``x_f <= THR`` left) and LL (a
  leaf's Dirichlet log marginal likelihood, 0 at a split).
- ``perm`` int32 [N]: the row permutation the ranges index.

Valid splits are those of :meth:`slpy.data.RowSets.valid_splits` on numeric data
without missing values, listed as its kernel (``slpy.data._kernels._scan_splits``)
lists them, in the same (feature, threshold) order, by slpy.compiled._splits (without
the row set hashes, a third of the scan's cost). Leaf scores are
``slpy.trees._lik_kernels._dirichlet_leaf``.

Box constraints remove splits (slpy.compiled._boxes); ``regs`` float64 [cap + 1, 2, p]:
the regions of the nodes being grown or routed.
"""
from __future__ import annotations

import math

import numpy as np

from .._numba_config import kernel
from ..trees._lik_kernels import _dirichlet_leaf
from ._boxes import _allowed, _child_regions, _forbidden, _region
from ._layout import DEPTH, FEAT, HI, LL, LO, NS, SIZE, THR
from ._splits import _valid_splits


@kernel
def _leaf_ll(rows, y, alpha, counts):
    """Dirichlet log marginal likelihood of ``rows`` (``counts``: scratch [C])."""
    counts[:] = 0
    for i in range(rows.shape[0]):
        counts[y[rows[i]]] += 1
    return _dirichlet_leaf(counts, alpha)


@kernel
def _split_rows(perm, lo, hi, col, t, tmp):
    """Stable in-place partition of perm[lo:hi] by ``col[r] <= t``; returns the
    boundary (the left part is perm[lo:mid])."""
    a = lo
    b = 0
    for i in range(lo, hi):
        r = perm[i]
        if col[r] <= t:
            perm[a] = r
            a += 1
        else:
            tmp[b] = r
            b += 1
    for i in range(b):
        perm[a + i] = tmp[i]
    return a


@kernel
def _grow(lo, hi, d, perm, I, F, XT, rankT, uvals, uoff, z1, z2, y, alpha, m, ptab,
          bucket, boxes, rng, tmp, counts, stack, regs):
    """Draw a subtree from the GROWTREE prior for the rows perm[lo:hi] at depth d
    and region regs[0], writing its nodes in pre-order into I, F from index 0
    (perm[lo:hi] is reordered). A node splits with probability ptab[d] when it has a
    split no box forbids, on such a split drawn uniformly; otherwise it is a leaf.
    Returns (nodes, sum of leaf LL)."""
    cur = regs[regs.shape[0] - 1]
    stack[0, 0] = lo
    stack[0, 1] = hi
    stack[0, 2] = d
    top = 1
    n = 0
    total = 0.0
    while top > 0:
        top -= 1
        a = stack[top, 0]
        b = stack[top, 1]
        dd = stack[top, 2]
        if boxes is not None:
            cur[:, :] = regs[top]
        I[n, LO] = a
        I[n, HI] = b
        I[n, DEPTH] = dd
        pd = ptab[dd]
        split = -1
        I[n, NS] = 0 if b - a < 2 * m else -1
        if b - a >= 2 * m and rng.random() < pd:
            fs, ts = _valid_splits(rankT, uvals, uoff, perm[a:b], m, bucket)
            fs, ts = _allowed(fs, ts, cur, boxes)
            S = fs.shape[0]
            I[n, NS] = S
            if S > 0:
                split = min(int(rng.random() * S), S - 1)
                f = fs[split]
                t = ts[split]
        if split < 0:
            I[n, FEAT] = -1
            F[n, THR] = 0.0
            ll = _leaf_ll(perm[a:b], y, alpha, counts)
            F[n, LL] = ll
            total += ll
        else:
            I[n, FEAT] = f
            F[n, THR] = t
            F[n, LL] = 0.0
            mid = _split_rows(perm, a, b, XT[f], t, tmp)
            if boxes is not None:
                _child_regions(cur, f, t, regs[top + 1], regs[top])
            # right first: the left child is popped next (pre-order)
            stack[top, 0] = mid
            stack[top, 1] = b
            stack[top, 2] = dd + 1
            stack[top + 1, 0] = a
            stack[top + 1, 1] = mid
            stack[top + 1, 2] = dd + 1
            top += 2
        n += 1
    for j in range(n - 1, -1, -1):     # subtree sizes: children come after the parent
        if I[j, FEAT] < 0:
            I[j, SIZE] = 1
        else:
            s = I[j + 1, SIZE]
            I[j, SIZE] = 1 + s + I[j + 1 + s, SIZE]
    return n, total


@kernel
def _regrow_step(n, perm, I, F, XT, rankT, uvals, uoff, z1, z2, y, alpha, m, ptab,
                 bucket, boxes, heat, rng, perm2, I2, F2, tmp, counts, stack, regs):
    """One regrow move on the tree of ``n`` nodes (see the module docstring of
    slpy.compiled.growtree for its acceptance). Returns (nodes after, accepted)."""
    k = min(int(rng.random() * n), n - 1)
    lo = I[k, LO]
    hi = I[k, HI]
    sk = I[k, SIZE]
    for i in range(lo, hi):
        perm2[i] = perm[i]
    if boxes is not None:
        _region(k, I, F, regs[0])
    s_new, ll_new = _grow(lo, hi, I[k, DEPTH], perm2, I2, F2, XT, rankT, uvals, uoff,
                          z1, z2, y, alpha, m, ptab, bucket, boxes, rng, tmp, counts,
                          stack, regs)
    ll_old = 0.0
    for j in range(k, k + sk):
        if I[j, FEAT] < 0:
            ll_old += F[j, LL]
    n_new = n - sk + s_new
    log_a = heat * (ll_new - ll_old) + math.log(n) - math.log(n_new)
    if not (math.log(rng.random()) < log_a):
        return n, False
    return _splice(k, n, sk, s_new, lo, hi, perm, I, F, perm2, I2, F2), True


@kernel
def _splice(k, n, sk, s_new, lo, hi, perm, I, F, perm2, I2, F2):
    """Node k's subtree of ``sk`` nodes replaced by the ``s_new`` nodes in I2, F2, its
    rows perm[lo:hi] by perm2[lo:hi]. Returns the tree's nodes after."""
    delta = s_new - sk
    j = 0
    while j != k:       # the ancestors of k gain delta nodes
        I[j, SIZE] += delta
        c = j + 1
        if k >= c + I[c, SIZE]:
            c += I[c, SIZE]
        j = c
    if delta != 0:      # move the nodes after the subtree
        if delta > 0:
            for j in range(n - 1, k + sk - 1, -1):
                I[j + delta] = I[j]
                F[j + delta] = F[j]
        else:
            for j in range(k + sk, n):
                I[j + delta] = I[j]
                F[j + delta] = F[j]
    for j in range(s_new):
        I[k + j] = I2[j]
        F[k + j] = F2[j]
    for i in range(lo, hi):
        perm[i] = perm2[i]
    return n + delta


@kernel
def _count_splits(rows, rankT, uvals, uoff, z1, z2, m, bucket):
    """How many valid splits ``rows`` have (RowSets.valid_splits' count)."""
    if rows.shape[0] < 2 * m:
        return 0
    return _valid_splits(rankT, uvals, uoff, rows, m, bucket)[0].shape[0]


@kernel
def _n_splits(rows, rankT, uvals, uoff, z1, z2, m, bucket, boxes, reg):
    """How many valid splits ``rows`` have that no box forbids in the region `reg`."""
    if boxes is None or rows.shape[0] < 2 * m:
        return _count_splits(rows, rankT, uvals, uoff, z1, z2, m, bucket)
    fs, ts = _valid_splits(rankT, uvals, uoff, rows, m, bucket)
    return _allowed(fs, ts, reg, boxes)[0].shape[0]


@kernel
def _old_n_splits(I, F, o, perm, rankT, uvals, uoff, z1, z2, m, bucket, boxes, reg):
    """Node o's NS, counted (and kept: it depends on its rows and region alone) when
    unknown (`reg`: scratch for its region)."""
    if I[o, NS] < 0:
        if boxes is not None:
            _region(o, I, F, reg)
        I[o, NS] = _n_splits(perm[I[o, LO]:I[o, HI]], rankT, uvals, uoff, z1, z2, m,
                             bucket, boxes, reg)
    return I[o, NS]


@kernel
def _log_leaf_prior(n_splits, pd):
    """log P(stop) of a node with ``n_splits`` valid splits at split probability pd."""
    if n_splits == 0:
        return 0.0
    return math.log1p(-pd) if pd < 1.0 else -np.inf


@kernel
def _copy_subtree(k, perm, I, F, perm2, I2, F2):
    """Node k's subtree into I2, F2 from index 0, and its rows into perm2."""
    for i in range(I[k, LO], I[k, HI]):
        perm2[i] = perm[i]
    for j in range(I[k, SIZE]):
        I2[j] = I[k + j]
        F2[j] = F[k + j]


@kernel
def _reroute(k, heat, perm, I, F, XT, rankT, uvals, uoff, z1, z2, y, alpha, m, ptab,
             bucket, boxes, rng, perm2, I2, F2, tmp, counts, log_q, regs):
    """Accept or reject node k's subtree as I2 holds it: the same shape, new rules
    (node k's rows, region and number of splits unchanged). The rows are routed down
    the new rules; a rule that is not a valid split of its new rows, or one a box
    forbids in its new region, gives P(T') = 0, a rejection. Otherwise accept with
    exp(log_q) P(T') / P(T) (L' / L)^heat, the factors of the nodes strictly below k
    (see slpy.compiled.growtree) and log_q the move's log proposal ratio. Returns
    accepted."""
    sk = I[k, SIZE]
    old = regs[regs.shape[0] - 1]        # an old node's region, when its NS is unknown
    if boxes is not None:
        _region(k, I, F, regs[0])
    log_r = log_q
    dll = 0.0
    for j in range(sk):  # pre-order: a node's range is set before it is reached
        a = I2[j, LO]
        b = I2[j, HI]
        pd = ptab[I2[j, DEPTH]]
        o = k + j
        if I2[j, FEAT] < 0:
            ll = _leaf_ll(perm2[a:b], y, alpha, counts)
            F2[j, LL] = ll
            dll += ll - F[o, LL]
            ns = _n_splits(perm2[a:b], rankT, uvals, uoff, z1, z2, m, bucket, boxes,
                           regs[j])
            I2[j, NS] = ns
            log_r += (_log_leaf_prior(ns, pd)
                      - _log_leaf_prior(_old_n_splits(I, F, o, perm, rankT, uvals, uoff,
                                                      z1, z2, m, bucket, boxes, old), pd))
            if log_r == -np.inf:
                return False
            continue
        f = I2[j, FEAT]
        t = F2[j, THR]
        col = XT[f]
        seen = False
        for i in range(a, b):
            if col[perm2[i]] == t:
                seen = True
                break
        mid = _split_rows(perm2, a, b, col, t, tmp)
        if not seen or mid - a < m or b - mid < m:
            return False         # not a valid split of its new rows: prior 0
        if boxes is not None and _forbidden(f, t, regs[j], boxes):
            return False         # a box forbids it here: prior 0
        if j > 0:
            ns = _n_splits(perm2[a:b], rankT, uvals, uoff, z1, z2, m, bucket, boxes,
                           regs[j])
            I2[j, NS] = ns
            log_r += (math.log(_old_n_splits(I, F, o, perm, rankT, uvals, uoff, z1, z2,
                                             m, bucket, boxes, old)) - math.log(ns))
        c = j + 1 + I2[j + 1, SIZE]
        I2[j + 1, LO] = a
        I2[j + 1, HI] = mid
        I2[c, LO] = mid
        I2[c, HI] = b
        if boxes is not None:
            _child_regions(regs[j], f, t, regs[j + 1], regs[c])
    if not (math.log(rng.random()) < heat * dll + log_r):
        return False
    for j in range(sk):
        I[k + j] = I2[j]
        F[k + j] = F2[j]
    for i in range(I[k, LO], I[k, HI]):
        perm[i] = perm2[i]
    return True


@kernel
def _change_step(n, perm, I, F, XT, rankT, uvals, uoff, z1, z2, y, alpha, m, ptab,
                 bucket, boxes, heat, rng, perm2, I2, F2, tmp, counts, regs):
    """One change move: a split node drawn uniformly gets a split drawn uniformly
    among its valid ones; the nodes below keep their rules and take their new rows
    (see slpy.compiled.growtree). Returns accepted (False also when the tree has no
    split or a rule below stops being valid)."""
    k = _pick_split_node(n, I, rng)
    if k < 0:
        return False
    fs, ts, S = _node_splits(k, perm, I, F, rankT, uvals, uoff, z1, z2, m, bucket, boxes,
                             regs[0])
    s = min(int(rng.random() * S), S - 1)
    _copy_subtree(k, perm, I, F, perm2, I2, F2)
    I2[0, FEAT] = fs[s]
    F2[0, THR] = ts[s]
    return _reroute(k, heat, perm, I, F, XT, rankT, uvals, uoff, z1, z2, y, alpha, m,
                    ptab, bucket, boxes, rng, perm2, I2, F2, tmp, counts, 0.0, regs)


@kernel
def _node_splits(k, perm, I, F, rankT, uvals, uoff, z1, z2, m, bucket, boxes, reg):
    """Node k's valid splits that no box forbids (features, thresholds, how many), its
    NS kept (`reg`: scratch for its region)."""
    fs, ts = _valid_splits(rankT, uvals, uoff, perm[I[k, LO]:I[k, HI]], m, bucket)
    if boxes is not None:
        _region(k, I, F, reg)
        fs, ts = _allowed(fs, ts, reg, boxes)
    I[k, NS] = fs.shape[0]
    return fs, ts, fs.shape[0]


@kernel
def _pick_split_node(n, I, rng):
    """A split node drawn uniformly (-1 when the tree has none)."""
    n_int = 0
    for j in range(n):
        if I[j, FEAT] >= 0:
            n_int += 1
    if n_int == 0:
        return -1
    r = min(int(rng.random() * n_int), n_int - 1)
    for j in range(n):
        if I[j, FEAT] >= 0:
            if r == 0:
                return j
            r -= 1
    return -1


@kernel
def _near(i, s, width):
    """How many of s candidates lie within `width` places of i (i excluded)."""
    return min(i, width) + min(s - 1 - i, width)


@kernel
def _perturb_step(n, perm, I, F, XT, rankT, uvals, uoff, z1, z2, y, alpha, m, ptab,
                  bucket, boxes, heat, rng, perm2, I2, F2, tmp, counts, width, regs):
    """One perturb move: a split node drawn uniformly moves its rule, the i-th of its
    rows' valid splits, to the j-th, drawn uniformly among the N(i) within `width`
    places of i; the nodes below keep their rules (see slpy.compiled.growtree).
    Returns accepted."""
    k = _pick_split_node(n, I, rng)
    if k < 0:
        return False
    fs, ts, S = _node_splits(k, perm, I, F, rankT, uvals, uoff, z1, z2, m, bucket, boxes,
                             regs[0])
    if S < 2:
        return False
    i = 0
    while fs[i] != I[k, FEAT] or ts[i] != F[k, THR]:
        i += 1
    lo = max(0, i - width)
    span = min(S - 1, i + width) - lo
    j = lo + min(int(rng.random() * span), span - 1)
    if j >= i:
        j += 1
    _copy_subtree(k, perm, I, F, perm2, I2, F2)
    I2[0, FEAT] = fs[j]
    F2[0, THR] = ts[j]
    log_q = math.log(_near(i, S, width)) - math.log(_near(j, S, width))
    return _reroute(k, heat, perm, I, F, XT, rankT, uvals, uoff, z1, z2, y, alpha, m,
                    ptab, bucket, boxes, rng, perm2, I2, F2, tmp, counts, log_q, regs)


@kernel
def _swap_step(n, perm, I, F, XT, rankT, uvals, uoff, z1, z2, y, alpha, m, ptab,
               bucket, boxes, heat, rng, perm2, I2, F2, tmp, counts, regs):
    """One swap move: a (split node, split child) pair drawn uniformly trades rules;
    when both children split on the same rule, both take the parent's (see
    slpy.compiled.growtree). Returns accepted."""
    n_pairs = 0
    for j in range(n):
        if I[j, FEAT] >= 0:
            c = j + 1
            n_pairs += (I[c, FEAT] >= 0) + (I[c + I[c, SIZE], FEAT] >= 0)
    if n_pairs == 0:
        return False
    r = min(int(rng.random() * n_pairs), n_pairs - 1)
    k = -1
    c = -1
    for j in range(n):
        if I[j, FEAT] >= 0:
            left = j + 1
            right = left + I[left, SIZE]
            for ch in (left, right):
                if I[ch, FEAT] >= 0:
                    if r == 0:
                        k = j
                        c = ch
                    r -= 1
            if k >= 0:
                break
    left = k + 1
    right = left + I[left, SIZE]
    other = right if c == left else left
    _copy_subtree(k, perm, I, F, perm2, I2, F2)
    both = I[other, FEAT] == I[c, FEAT] and F[other, THR] == F[c, THR]
    I2[0, FEAT] = I[c, FEAT]
    F2[0, THR] = F[c, THR]
    I2[c - k, FEAT] = I[k, FEAT]
    F2[c - k, THR] = F[k, THR]
    if both:
        I2[other - k, FEAT] = I[k, FEAT]
        F2[other - k, THR] = F[k, THR]
    return _reroute(k, heat, perm, I, F, XT, rankT, uvals, uoff, z1, z2, y, alpha, m,
                    ptab, bucket, boxes, rng, perm2, I2, F2, tmp, counts, 0.0, regs)


@kernel
def _tree_ll(n, I, F):
    """Sum of the leaves' log likelihoods of a tree of ``n`` nodes."""
    s = 0.0
    for j in range(n):
        if I[j, FEAT] < 0:
            s += F[j, LL]
    return s


@kernel
def _snapshot(n, I, F, old_feat, old_thr):
    """A copy of the tree's split features and thresholds in pre-order, its leaves and
    depth, and whether it equals the tree (old_feat, old_thr): what a chain's state
    keeps of it."""
    feat = np.empty(n, dtype=np.int64)
    thr = np.empty(n, dtype=np.float64)
    leaves = 0
    depth = 0
    same = n == old_feat.shape[0]
    for j in range(n):
        feat[j] = I[j, FEAT]
        thr[j] = F[j, THR]
        if feat[j] < 0:
            leaves += 1
        depth = max(depth, I[j, DEPTH])
        if same and (feat[j] != old_feat[j] or thr[j] != old_thr[j]):
            same = False
    return feat, thr, leaves, depth, same
