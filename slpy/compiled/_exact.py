"""Private numba kernels of the compiled chain's exact block move and its loop
(slpy.compiled.growtree): the exact move of slpy.pcfg.exact_move on flat arrays.

E(T) are the nodes k whose subtree has height <= H_k, with H_k >= 1 the largest height
<= H whose dynamic program stays within the work budget (size_k * p * S_k^H_k <= WORK,
S_k the node's valid splits, at least 1): the engine's own rule. The move picks k
uniformly in E(T), draws the subtree below k from its exact conditional restricted to
height <= H_k (slpy.pcfg._block._sample, the engine's sampler) and accepts with
min(1, |E(T)| / |E(T')|): the subtree's prior and likelihood cancel against the
conditional, and k is in E(T') (its rows, so H_k, are unchanged and the new subtree's
height is at most H_k). Only the nodes of the two subtrees and k's ancestors can
change eligibility, so |E(T')| is counted on them alone. The move is made for priors
without box constraints only (slpy.compiled.path does not offer it with boxes): its
split counts are the rows' own.
"""
from __future__ import annotations

import math

import numpy as np

from .._numba_config import kernel
from ..pcfg._block import _sample_h1, _sorted_rows
from ._kernels import (DEPTH, FEAT, HI, LL, LO, NS, SIZE, THR, _change_step,
                       _count_splits, _leaf_ll, _perturb_step, _regrow_step, _splice,
                       _split_rows, _swap_step, _tree_ll)


@kernel
def _limit(size, p, ns, h_max, work):
    """H_k of a node of `size` rows with `ns` valid splits (p features)."""
    cost = float(size) * p
    s = max(ns, 1)
    h = 0
    while h < h_max and cost * s <= work:
        cost *= s
        h += 1
    return h


@kernel
def _heights(n, I, ht):
    """Each node's subtree height into ht (children come after their parent)."""
    for j in range(n - 1, -1, -1):
        if I[j, FEAT] < 0:
            ht[j] = 0
        else:
            left = j + 1
            ht[j] = 1 + max(ht[left], ht[left + I[left, SIZE]])


@kernel
def _hk(I, j, perm, p, h_max, work, rankT, uvals, uoff, z1, z2, m, bucket):
    if I[j, NS] < 0:        # counted when first needed, and kept
        I[j, NS] = _count_splits(perm[I[j, LO]:I[j, HI]], rankT, uvals, uoff, z1, z2, m,
                                 bucket)
    ns = I[j, NS]
    return _limit(I[j, HI] - I[j, LO], p, ns, h_max, work)


@kernel
def _eligible(I, j, h, perm, p, h_max, work, rankT, uvals, uoff, z1, z2, m, bucket):
    """Is node j, whose subtree has height h, in E? (its H_k when it is, else 0)"""
    if h > h_max:
        return 0
    hk = _hk(I, j, perm, p, h_max, work, rankT, uvals, uoff, z1, z2, m, bucket)
    return hk if hk >= 1 and h <= hk else 0


@kernel
def _build(lo, hi, d, perm, I, F, XT, y, alpha, m, fs, vs, tmp, counts, stack):
    """The subtree whose pre-order splits are fs, vs (fs -1 at a leaf) on the rows
    perm[lo:hi] at depth d, into I, F from index 0. Returns (nodes, sum of leaf LL)."""
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
        I[n, LO] = a
        I[n, HI] = b
        I[n, DEPTH] = dd
        I[n, NS] = 0 if b - a < 2 * m else -1
        f = fs[n]
        if f < 0:
            I[n, FEAT] = -1
            F[n, THR] = 0.0
            ll = _leaf_ll(perm[a:b], y, alpha, counts)
            F[n, LL] = ll
            total += ll
        else:
            t = vs[n]
            I[n, FEAT] = f
            F[n, THR] = t
            F[n, LL] = 0.0
            mid = _split_rows(perm, a, b, XT[f], t, tmp)
            stack[top, 0] = mid
            stack[top, 1] = b
            stack[top, 2] = dd + 1
            stack[top + 1, 0] = a
            stack[top + 1, 1] = mid
            stack[top + 1, 2] = dd + 1
            top += 2
        n += 1
    for j in range(n - 1, -1, -1):
        if I[j, FEAT] < 0:
            I[j, SIZE] = 1
        else:
            s = I[j + 1, SIZE]
            I[j, SIZE] = 1 + s + I[j + 1 + s, SIZE]
    return n, total


@kernel
def _exact_pick(n, perm, I, XT, rankT, uvals, uoff, z1, z2, m, bucket, rng, ht, el,
                h_max, work):
    """The exact move's node: (k drawn uniformly in E(T), |E(T)|), or (-1, 0) when E(T)
    is empty; el[j] is node j's H_k when it is in E(T), else 0."""
    p = XT.shape[0]
    _heights(n, I, ht)
    count = 0
    for j in range(n):
        el[j] = _eligible(I, j, ht[j], perm, p, h_max, work, rankT, uvals, uoff, z1, z2,
                          m, bucket)
        count += el[j] > 0
    if count == 0:
        return -1, 0
    r = min(int(rng.random() * count), count - 1)
    for j in range(n):
        if el[j] > 0:
            if r == 0:
                return j, count
            r -= 1
    return -1, 0


@kernel
def _exact_finish(k, count, n, perm, I, F, XT, rankT, uvals, uoff, z1, z2, y, alpha, m,
                  bucket, rng, perm2, I2, F2, tmp, counts, stack, ht, ht2, el, anc, fs, vs,
                  h_max, work):
    """The rest of the exact move, its subtree below node k drawn into fs, vs:
    accept with min(1, |E(T)| / |E(T')|). Returns (nodes after, accepted)."""
    p = XT.shape[0]
    lo = I[k, LO]
    hi = I[k, HI]
    sk = I[k, SIZE]
    for i in range(lo, hi):
        perm2[i] = perm[i]
    s_new, _ = _build(lo, hi, I[k, DEPTH], perm2, I2, F2, XT, y, alpha, m, fs, vs, tmp,
                      counts, stack)
    # |E(T')|: the old subtree's and ancestors' eligibility out, the new ones' in
    count_new = count
    for j in range(k, k + sk):
        count_new -= el[j] > 0
    _heights(s_new, I2, ht2)
    for j in range(s_new):
        count_new += _eligible(I2, j, ht2[j], perm2, p, h_max, work, rankT, uvals, uoff,
                               z1, z2, m, bucket) > 0
    na = 0
    j = 0
    while j != k:       # the path from the root to k
        anc[na] = j
        na += 1
        c = j + 1
        if k >= c + I[c, SIZE]:
            c += I[c, SIZE]
        j = c
    h_child = ht2[0]
    child = k
    for i in range(na - 1, -1, -1):
        a = anc[i]
        left = a + 1
        other = left + I[left, SIZE] if child == left else left
        h = 1 + max(h_child, ht[other])
        count_new += (_eligible(I, a, h, perm, p, h_max, work, rankT, uvals, uoff, z1,
                                z2, m, bucket) > 0) - (el[a] > 0)
        h_child = h
        child = a
    if not (math.log(rng.random()) < math.log(count) - math.log(count_new)):
        return n, False
    return _splice(k, n, sk, s_new, lo, hi, perm, I, F, perm2, I2, F2), True


@kernel
def _exact_step(n, perm, I, F, XT, rankT, uvals, uoff, z1, z2, y, alpha, m, ptab, bucket,
                heat, rng, perm2, I2, F2, tmp, counts, stack, ht, ht2, el, anc, orderT,
                mark, y64, asum, aconst, fs, vs, h_max, work):
    """One exact move of depth limit 1 (its block sampler without recursion: this
    kernel can run inside the move loop). Returns (nodes after, accepted)."""
    k, count = _exact_pick(n, perm, I, XT, rankT, uvals, uoff, z1, z2, m, bucket, rng, ht,
                           el, h_max, work)
    if k < 0:
        return n, False
    srt = _sorted_rows(perm[I[k, LO]:I[k, HI]].copy(), orderT, mark)
    _sample_h1(srt, XT, y64, alpha, asum, aconst, m, I[k, DEPTH], heat, ptab, rng, fs, vs,
               0, fs[:0].astype(np.float64))
    return _exact_finish(k, count, n, perm, I, F, XT, rankT, uvals, uoff, z1, z2, y, alpha,
                         m, bucket, rng, perm2, I2, F2, tmp, counts, stack, ht, ht2, el,
                         anc, fs, vs, h_max, work)


@kernel
def _move(n, perm, I, F, XT, rankT, uvals, uoff, z1, z2, y, alpha, m, ptab, bucket, boxes,
          heat, p_change, p_swap, p_exact, p_perturb, width, rng, perm2, I2, F2, tmp,
          counts, stack, regs, ht, ht2, el, anc, orderT, mark, y64, asum, aconst, fs, vs,
          h_max, work):
    """One move of the mixture (:func:`_run`'s): (nodes after, accepted, the move: 0
    regrow, 1 change, 2 swap, 3 exact, 4 perturb; -1 for an exact move of a limit
    above 1, drawn but left to the caller)."""
    u = rng.random() if p_change + p_swap + p_exact + p_perturb > 0.0 else 1.0
    if u < p_change:
        return n, _change_step(n, perm, I, F, XT, rankT, uvals, uoff, z1, z2, y, alpha, m,
                               ptab, bucket, boxes, heat, rng, perm2, I2, F2, tmp, counts,
                               regs), 1
    if u < p_change + p_swap:
        return n, _swap_step(n, perm, I, F, XT, rankT, uvals, uoff, z1, z2, y, alpha, m,
                             ptab, bucket, boxes, heat, rng, perm2, I2, F2, tmp, counts,
                             regs), 2
    if u < p_change + p_swap + p_exact:
        if h_max != 1:
            return n, False, -1
        n, acc = _exact_step(n, perm, I, F, XT, rankT, uvals, uoff, z1, z2, y, alpha, m,
                             ptab, bucket, heat, rng, perm2, I2, F2, tmp, counts, stack, ht,
                             ht2, el, anc, orderT, mark, y64, asum, aconst, fs, vs, h_max,
                             work)
        return n, acc, 3
    if u < p_change + p_swap + p_exact + p_perturb:
        return n, _perturb_step(n, perm, I, F, XT, rankT, uvals, uoff, z1, z2, y, alpha,
                                m, ptab, bucket, boxes, heat, rng, perm2, I2, F2, tmp,
                                counts, width, regs), 4
    n, acc = _regrow_step(n, perm, I, F, XT, rankT, uvals, uoff, z1, z2, y, alpha, m, ptab,
                          bucket, boxes, heat, rng, perm2, I2, F2, tmp, counts, stack, regs)
    return n, acc, 0


@kernel
def _run(start, n_iter, n, perm, I, F, XT, rankT, uvals, uoff, z1, z2, y, alpha, m, ptab,
         bucket, boxes, heat, p_change, p_swap, p_exact, p_perturb, width, rng, perm2, I2,
         F2, tmp, counts, stack, regs, out_ll, out_nodes, out_acc, out_move, ll, ht, ht2,
         el, anc, orderT, mark, y64, asum, aconst, fs, vs, h_max, work):
    """Moves start..n_iter-1 (:func:`_move`) from a tree of ``n`` nodes and log
    likelihood ``ll``. Per iteration the log likelihood, the number of nodes, whether
    it moved and the move go to out_ll, out_nodes, out_acc, out_move. An exact move of
    depth limit 1 is made here (the arrays after ``ll``: its bookkeeping,
    slpy.compiled.growtree). Returns (nodes, log likelihood, -1) at the end, or (nodes,
    log likelihood, it) at an iteration `it` that drew an exact move of a deeper limit,
    which the caller makes (its block sampler is called from Python: numba's cache
    cannot hold it inside this kernel, being recursive) before calling again from
    it + 1."""
    for it in range(start, n_iter):
        n, acc, mv = _move(n, perm, I, F, XT, rankT, uvals, uoff, z1, z2, y, alpha, m,
                           ptab, bucket, boxes, heat, p_change, p_swap, p_exact, p_perturb,
                           width, rng, perm2, I2, F2, tmp, counts, stack, regs, ht, ht2, el,
                           anc, orderT, mark, y64, asum, aconst, fs, vs, h_max, work)
        if mv < 0:
            out_move[it] = 3
            return n, ll, it
        if acc:     # summed afresh, so no rounding drifts along the chain
            ll = _tree_ll(n, I, F)
        out_ll[it] = ll
        out_nodes[it] = n
        out_acc[it] = acc
        out_move[it] = mv
    return n, ll, -1
