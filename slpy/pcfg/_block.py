"""Private numba kernels of the exact block move (slpy.pcfg.block). Flat arrays only.

A node is its rows sorted by each feature: ``srt`` int32 [p, n], row ``srt[f]``
ascending in feature f (ties in any order). ``XT`` is the transposed design matrix
(float64 [p, N]), ``y`` the class of each row (int64), ``alpha`` the Dirichlet
parameters. Splits are the GROWTREE prior's: ``x_f <= t``, t an observed value,
at least ``m`` rows a side (``m >= 1``). At depth d a node with a split splits with
probability ``ptab[d]`` (GROWTREE's alpha (1 + d)^-beta: slpy.pcfg.block.split_table),
on each split with equal probability.

``h`` bounds the depth of the subtree below a node (0: a leaf). Log inside score of
a node, at heat ``b``:

    I_0(N, d)  = log w_leaf(N, d) + b * l(N)
    I_h(N, d)  = logaddexp(log w_leaf(N, d) + b * l(N),
                           log p_d - log |S(N)| + logsumexp_s I_{h-1}(N_s) + I_{h-1}(N_s'))

with w_leaf = 1 - p_d when N has a split, else 1 (then only the leaf term).
"""
from __future__ import annotations

import math

import numpy as np

from .._numba_config import kernel


@kernel
def _leaf_score(srt, y, alpha, asum, aconst):
    """Dirichlet-multinomial log marginal likelihood of the rows (eq. 1 of paper 002)."""
    C = alpha.shape[0]
    counts = np.zeros(C, dtype=np.int64)
    n = srt.shape[1]
    for i in range(n):
        counts[y[srt[0, i]]] += 1
    s = aconst
    for c in range(C):
        s += math.lgamma(counts[c] + alpha[c])
    return s - math.lgamma(n + asum)


@kernel
def _has_split(srt, XT, m):
    """Does some feature have >= m rows on each side of a threshold? In sorted order:
    the m-th smallest value is below the m-th largest."""
    n = srt.shape[1]
    if n < 2 * m:
        return False
    for f in range(srt.shape[0]):
        if XT[f, srt[f, m - 1]] < XT[f, srt[f, n - m]]:
            return True
    return False


@kernel
def _splits(srt, XT, m):
    """The valid splits (feature, threshold), in (feature, threshold) order."""
    p, n = srt.shape
    fs = np.empty(p * max(n - 1, 0), dtype=np.int64)
    vs = np.empty(p * max(n - 1, 0), dtype=np.float64)
    k = 0
    for f in range(p):
        col = XT[f]
        row = srt[f]
        for i in range(m - 1, n - m):
            v = col[row[i]]
            if v < col[row[i + 1]]:
                fs[k] = f
                vs[k] = v
                k += 1
    return fs[:k], vs[:k]


@kernel
def _partition(srt, XT, f, t):
    """The two children's sorted rows (x_f <= t, x_f > t), order kept per feature."""
    p, n = srt.shape
    col = XT[f]
    nl = 0
    for i in range(n):
        if col[srt[0, i]] <= t:
            nl += 1
    left = np.empty((p, nl), dtype=np.int32)
    right = np.empty((p, n - nl), dtype=np.int32)
    for g in range(p):
        a = 0
        b = 0
        for i in range(n):
            r = srt[g, i]
            if col[r] <= t:
                left[g, a] = r
                a += 1
            else:
                right[g, b] = r
                b += 1
    return left, right


@kernel
def _counts_score(counts, n, alpha, asum, aconst):
    """_leaf_score of rows with these class counts (the same sum, to the bit)."""
    s = aconst
    for c in range(alpha.shape[0]):
        s += math.lgamma(counts[c] + alpha[c])
    return s - math.lgamma(n + asum)


@kernel
def _side_has_split(srt, XT, m, f, v, left, n_side):
    """_has_split of one child of the split x_f <= v (the left one, or the right):
    its rows are srt's rows on that side, found in each feature's order."""
    if n_side < 2 * m:
        return False
    p, n = srt.shape
    col = XT[f]
    for g in range(p):
        row = srt[g]
        k = 0
        lo = 0.0
        for i in range(n):
            if (col[row[i]] <= v) == left:
                k += 1
                if k == m:
                    lo = XT[g, row[i]]
                    break
        k = 0
        for i in range(n - 1, -1, -1):
            if (col[row[i]] <= v) == left:
                k += 1
                if k == m:
                    if lo < XT[g, row[i]]:
                        return True
                    break
    return False


@kernel
def _leaf_pairs(srt, XT, y, alpha, asum, aconst, m, d, heat, ptab, S):
    """I_0(N_s, d) + I_0(N_s', d) of each of the S valid splits s of the node, in
    _splits' order, as _log_inside adds them (to the bit), without building the
    children: class counts swept along each feature's order, and whether a child
    has a split read from the split feature's order when it can be."""
    p, n = srt.shape
    C = alpha.shape[0]
    pd = _split_prob(ptab, d)
    stop = math.log1p(-pd) if pd < 1 else -np.inf
    total = np.zeros(C, dtype=np.int64)
    for i in range(n):
        total[y[srt[0, i]]] += 1
    cl = np.empty(C, dtype=np.int64)
    cr = np.empty(C, dtype=np.int64)
    out = np.empty(S, dtype=np.float64)
    k = 0
    for f in range(p):
        col = XT[f]
        row = srt[f]
        cl[:] = 0
        for i in range(n - m):
            cl[y[row[i]]] += 1
            if i < m - 1:
                continue
            v = col[row[i]]
            if not v < col[row[i + 1]]:
                continue
            nl = i + 1
            nr = n - nl
            t = heat * _counts_score(cl, nl, alpha, asum, aconst)
            if pd > 0 and (nl >= 2 * m and col[row[m - 1]] < col[row[nl - m]]
                           or _side_has_split(srt, XT, m, f, v, True, nl)):
                t = stop + t if pd < 1 else -np.inf
            if t > -np.inf:
                for c in range(C):
                    cr[c] = total[c] - cl[c]
                r = heat * _counts_score(cr, nr, alpha, asum, aconst)
                if pd > 0 and (nr >= 2 * m and col[row[nl + m - 1]] < col[row[n - m]]
                               or _side_has_split(srt, XT, m, f, v, False, nr)):
                    r = stop + r if pd < 1 else -np.inf
                t += r
            out[k] = t
            k += 1
    return out


@kernel
def _logaddexp(a, b):
    if a == -np.inf:
        return b
    if b == -np.inf:
        return a
    hi = max(a, b)
    return hi + math.log(math.exp(a - hi) + math.exp(b - hi))


@kernel
def _split_prob(ptab, d):
    return ptab[d]


@kernel
def _log_inside(srt, XT, y, alpha, asum, aconst, m, d, h, heat, ptab):
    """I_h(N, d) of the module docstring."""
    leaf = heat * _leaf_score(srt, y, alpha, asum, aconst)
    pd = _split_prob(ptab, d)
    if h == 0:
        if pd > 0 and _has_split(srt, XT, m):
            return math.log1p(-pd) + leaf if pd < 1 else -np.inf
        return leaf
    fs, vs = _splits(srt, XT, m)
    S = fs.shape[0]
    if S == 0 or pd <= 0:
        return leaf
    acc = -np.inf
    if h == 1:
        pairs = _leaf_pairs(srt, XT, y, alpha, asum, aconst, m, d + 1, heat, ptab, S)
        for s in range(S):
            acc = _logaddexp(acc, pairs[s])
    else:
        for s in range(S):
            left, right = _partition(srt, XT, fs[s], vs[s])
            t = _log_inside(left, XT, y, alpha, asum, aconst, m, d + 1, h - 1, heat,
                            ptab)
            if t > -np.inf:
                t += _log_inside(right, XT, y, alpha, asum, aconst, m, d + 1, h - 1,
                                 heat, ptab)
            acc = _logaddexp(acc, t)
    split = math.log(pd) - math.log(S) + acc
    stop = math.log1p(-pd) + leaf if pd < 1 else -np.inf
    return _logaddexp(stop, split)


@kernel
def _sample(srt, XT, y, alpha, asum, aconst, m, d, h, heat, ptab, rng, out_f, out_v,
            pos, logp):
    """Draw a subtree of depth <= h from the conditional, written in pre-order from
    out_f[pos] (feature, -1 for a leaf) and out_v[pos] (threshold). Adds the
    subtree's log prior to logp[0]. Returns the next free position."""
    pd = _split_prob(ptab, d)
    if h == 0 or pd <= 0:
        return _leaf_at(srt, XT, m, pd, out_f, out_v, pos, logp)
    if h == 1:
        return _sample_h1(srt, XT, y, alpha, asum, aconst, m, d, heat, ptab, rng, out_f,
                          out_v, pos, logp)
    fs, vs, terms, base = _choice_terms(srt, XT, y, alpha, asum, aconst, m, heat, pd)
    S = fs.shape[0]
    if S == 0:
        out_f[pos] = -1
        out_v[pos] = 0.0
        return pos + 1
    for s in range(S):
        left, right = _partition(srt, XT, fs[s], vs[s])
        t = _log_inside(left, XT, y, alpha, asum, aconst, m, d + 1, h - 1, heat,
                        ptab)
        if t > -np.inf:
            t += _log_inside(right, XT, y, alpha, asum, aconst, m, d + 1, h - 1,
                             heat, ptab)
        terms[s] = base + t
    k = _draw(terms, rng)
    if k == S:
        out_f[pos] = -1
        out_v[pos] = 0.0
        logp[0] += math.log1p(-pd)
        return pos + 1
    out_f[pos] = fs[k]
    out_v[pos] = vs[k]
    logp[0] += math.log(pd) - math.log(S)
    left, right = _partition(srt, XT, fs[k], vs[k])
    pos = _sample(left, XT, y, alpha, asum, aconst, m, d + 1, h - 1, heat, ptab, rng,
                  out_f, out_v, pos + 1, logp)
    return _sample(right, XT, y, alpha, asum, aconst, m, d + 1, h - 1, heat, ptab, rng,
                   out_f, out_v, pos, logp)


@kernel
def _choice_terms(srt, XT, y, alpha, asum, aconst, m, heat, pd):
    """A node's valid splits and its choice's log terms, the stop's last (each split's
    term still to add to `base`, its prior share); no terms when it has no split."""
    fs, vs = _splits(srt, XT, m)
    S = fs.shape[0]
    terms = np.empty(S + 1, dtype=np.float64)
    if S == 0:
        return fs, vs, terms, 0.0
    leaf = heat * _leaf_score(srt, y, alpha, asum, aconst)
    terms[S] = math.log1p(-pd) + leaf if pd < 1 else -np.inf
    return fs, vs, terms, math.log(pd) - math.log(S)


@kernel
def _leaf_at(srt, XT, m, pd, out_f, out_v, pos, logp):
    """A leaf at out_f[pos] (the subtree's depth limit, or a node that cannot split);
    its prior factor added to logp[0] when logp has one."""
    out_f[pos] = -1
    out_v[pos] = 0.0
    if logp.shape[0] > 0 and pd > 0 and _has_split(srt, XT, m):
        logp[0] += math.log1p(-pd) if pd < 1 else -np.inf
    return pos + 1


@kernel
def _draw(terms, rng):
    """An index drawn in proportion to exp(terms)."""
    hi = terms.max()
    w = np.exp(terms - hi)
    u = rng.random() * w.sum()
    k = terms.shape[0] - 1
    acc = 0.0
    for s in range(terms.shape[0]):
        acc += w[s]
        if u < acc and w[s] > 0:
            k = s
            break
    return k


@kernel
def _sample_h1(srt, XT, y, alpha, asum, aconst, m, d, heat, ptab, rng, out_f, out_v, pos,
               logp):
    """_sample at depth limit 1 (a leaf, or a split with two leaves), without
    recursion, so that the compiled chain's move loop can call it (numba's cache holds
    no recursive kernel there). logp: empty to leave the prior out."""
    pd = _split_prob(ptab, d)
    if pd <= 0:
        return _leaf_at(srt, XT, m, pd, out_f, out_v, pos, logp)
    fs, vs, terms, base = _choice_terms(srt, XT, y, alpha, asum, aconst, m, heat, pd)
    S = fs.shape[0]
    if S == 0:
        out_f[pos] = -1
        out_v[pos] = 0.0
        return pos + 1
    pairs = _leaf_pairs(srt, XT, y, alpha, asum, aconst, m, d + 1, heat, ptab, S)
    for s in range(S):
        terms[s] = base + pairs[s]
    k = _draw(terms, rng)
    if k == S:
        out_f[pos] = -1
        out_v[pos] = 0.0
        if logp.shape[0] > 0:
            logp[0] += math.log1p(-pd)
        return pos + 1
    out_f[pos] = fs[k]
    out_v[pos] = vs[k]
    pc = _split_prob(ptab, d + 1)
    if logp.shape[0] == 0:
        out_f[pos + 1] = -1
        out_v[pos + 1] = 0.0
        out_f[pos + 2] = -1
        out_v[pos + 2] = 0.0
        return pos + 3
    logp[0] += math.log(pd) - math.log(S)
    left, right = _partition(srt, XT, fs[k], vs[k])
    pos = _leaf_at(left, XT, m, pc, out_f, out_v, pos + 1, logp)
    return _leaf_at(right, XT, m, pc, out_f, out_v, pos, logp)



@kernel
def _sorted_rows(rows, orderT, mark):
    """srt of a row set: per feature, its rows in that feature's order over all rows
    (orderT[f]); ``mark`` is a zeroed int8 array of one flag per row, left zeroed."""
    p, N = orderT.shape
    n = rows.shape[0]
    for i in range(n):
        mark[rows[i]] = 1
    out = np.empty((p, n), dtype=np.int32)
    for f in range(p):
        o = orderT[f]
        k = 0
        for j in range(N):
            if mark[o[j]]:
                out[f, k] = o[j]
                k += 1
    for i in range(n):
        mark[rows[i]] = 0
    return out
