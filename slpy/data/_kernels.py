"""Private numba kernels behind :mod:`slpy.data.rowsets`. Flat arrays only.

Conventions: ``XT`` is the transposed design matrix (float64, [p, n], C order) so a
feature column is contiguous; ``rankT`` is the same shape in int32 dense ranks; ``rows`` is a sorted int32 index array; ``z1``/``z2``
are per-row random uint64 keys whose XOR over a set is that set's content hash.
Callers validate every argument.
"""
from __future__ import annotations

import numpy as np

from .._numba_config import kernel


@kernel
def _set_key(rows, z1, z2):
    """XOR of the two row keys over ``rows``: an order-free hash of the set."""
    h1 = np.uint64(0)
    h2 = np.uint64(0)
    for i in range(rows.shape[0]):
        r = rows[i]
        h1 ^= z1[r]
        h2 ^= z2[r]
    return h1, h2


@kernel
def _partition(col, rows, t):
    """Split ``rows`` into (col <= t, col > t), both staying sorted."""
    n = rows.shape[0]
    n_left = 0
    for i in range(n):
        if col[rows[i]] <= t:
            n_left += 1
    left = np.empty(n_left, dtype=np.int32)
    right = np.empty(n - n_left, dtype=np.int32)
    a = 0
    b = 0
    for i in range(n):
        r = rows[i]
        if col[r] <= t:
            left[a] = r
            a += 1
        else:
            right[b] = r
            b += 1
    return left, right


@kernel
def _side(col, rows, t, want_left):
    """One side of :func:`_partition`, for rebuilding a row set from its origin."""
    n = rows.shape[0]
    m = 0
    for i in range(n):
        if (col[rows[i]] <= t) == want_left:
            m += 1
    out = np.empty(m, dtype=np.int32)
    k = 0
    for i in range(n):
        r = rows[i]
        if (col[r] <= t) == want_left:
            out[k] = r
            k += 1
    return out


@kernel
def _thresholds(col, rows):
    """Sorted distinct values of ``col`` over ``rows``, without the largest."""
    n = rows.shape[0]
    if n == 0:
        return np.empty(0, dtype=np.float64)
    vals = np.empty(n, dtype=np.float64)
    for i in range(n):
        vals[i] = col[rows[i]]
    vals.sort()
    out = np.empty(n, dtype=np.float64)
    m = 0
    for i in range(n - 1):
        if vals[i] != vals[i + 1]:
            out[m] = vals[i]
            m += 1
    return out[:m].copy()


@kernel
def _scan_splits(rankT, uvals, uoff, rows, z1, z2, min_leaf, bucket_factor):
    """Every split ``x_f <= t`` (t an observed value) leaving >= min_leaf rows a side.

    ``rankT[f, r]`` is the rank of row r's value among the distinct values of
    feature f, which are ``uvals[uoff[f]:uoff[f + 1]]`` (ascending). Per feature,
    rows are grouped by rank -- by counting into one bucket per distinct value
    when there are few (O(n + R)), else by sorting the ranks -- and a sweep carries
    the left count and the left set's XOR hash; the right hash is the total XOR
    the left one. No child row array is built. Returns (feature, threshold,
    n_left, h1_left, h2_left) in (feature, threshold) order and the node's own
    (h1, h2), from which a right side's hash is one XOR.
    """
    p = rankT.shape[0]
    n = rows.shape[0]
    cap = p * max(n - 1, 0)
    feat = np.empty(cap, dtype=np.int64)
    thr = np.empty(cap, dtype=np.float64)
    nleft = np.empty(cap, dtype=np.int64)
    lh1 = np.empty(cap, dtype=np.uint64)
    lh2 = np.empty(cap, dtype=np.uint64)
    t1 = np.uint64(0)
    t2 = np.uint64(0)
    for i in range(n):
        t1 ^= z1[rows[i]]
        t2 ^= z2[rows[i]]
    max_r = 0
    for f in range(p):
        max_r = max(max_r, uoff[f + 1] - uoff[f])
    cnt = np.empty(max_r, dtype=np.int64)
    b1 = np.empty(max_r, dtype=np.uint64)
    b2 = np.empty(max_r, dtype=np.uint64)
    ranks = np.empty(n, dtype=np.int32)
    m = 0
    lo = max(min_leaf, 1)
    hi = n - lo
    for f in range(p):
        R = uoff[f + 1] - uoff[f]
        rk = rankT[f]
        base = uoff[f]
        c = 0
        h1 = np.uint64(0)
        h2 = np.uint64(0)
        if R <= bucket_factor * (n + 16):
            cnt[:R] = 0
            b1[:R] = 0
            b2[:R] = 0
            for i in range(n):
                r = rows[i]
                k = rk[r]
                cnt[k] += 1
                b1[k] ^= z1[r]
                b2[k] ^= z2[r]
            for k in range(R - 1):
                if cnt[k] == 0:
                    continue
                c += cnt[k]
                h1 ^= b1[k]
                h2 ^= b2[k]
                if c > hi:
                    break
                if c >= lo:
                    feat[m] = f
                    thr[m] = uvals[base + k]
                    nleft[m] = c
                    lh1[m] = h1
                    lh2[m] = h2
                    m += 1
        else:
            for i in range(n):
                ranks[i] = rk[rows[i]]
            order = np.argsort(ranks)
            for i in range(n - 1):
                r = rows[order[i]]
                h1 ^= z1[r]
                h2 ^= z2[r]
                c = i + 1
                if c > hi:
                    break
                k = ranks[order[i]]
                if c >= lo and k != ranks[order[i + 1]]:
                    feat[m] = f
                    thr[m] = uvals[base + k]
                    nleft[m] = c
                    lh1[m] = h1
                    lh2[m] = h2
                    m += 1
    return (feat[:m].copy(), thr[:m].copy(), nleft[:m].copy(), lh1[:m].copy(),
            lh2[:m].copy(), t1, t2)


@kernel
def _any_split(rankT, rows, min_leaf):
    """Whether ``_scan_splits`` finds at least one split, without listing them: a
    feature has one when its lo-th smallest rank in ``rows`` is below its lo-th
    largest (lo = max(min_leaf, 1)); the threshold at the former leaves >= lo rows
    a side. Stops at the first such feature."""
    n = rows.shape[0]
    lo = max(min_leaf, 1)
    if n < 2 * lo:
        return False
    ranks = np.empty(n, dtype=np.int32)
    for f in range(rankT.shape[0]):
        rk = rankT[f]
        for i in range(n):
            ranks[i] = rk[rows[i]]
        ranks.sort()
        if ranks[lo - 1] < ranks[n - lo]:
            return True
    return False


@kernel
def _class_counts(y, rows, n_classes):
    """Rows of each class among ``rows`` (int64 [n_classes])."""
    out = np.zeros(n_classes, dtype=np.int64)
    for i in range(rows.shape[0]):
        out[y[rows[i]]] += 1
    return out


@kernel
def _moments(y, rows):
    """(n, sum, central sum of squares) of ``y`` over ``rows``.

    Two passes: the central sum of squares is accumulated around the mean, which
    avoids the cancellation of ``sumsq - sum**2 / n`` when the mean is large.
    """
    n = rows.shape[0]
    s = 0.0
    for i in range(n):
        s += y[rows[i]]
    if n == 0:
        return np.zeros(3)
    mean = s / n
    css = 0.0
    for i in range(n):
        d = y[rows[i]] - mean
        css += d * d
    out = np.empty(3)
    out[0] = n
    out[1] = s
    out[2] = css
    return out


# ---- the hash-consing table: open addressing, linear probing -------------------------
# Slot arrays: key (h1, h2, n) and id (-1 = empty); the capacity is a power of two
# kept at least twice the number of entries by the caller.


@kernel
def _table_intern(th1, th2, tn, tid, h1s, h2s, ns, next_id):
    """Ids of keys (h1s[i], h2s[i], ns[i]), inserting new ones as next_id, next_id + 1, ...

    Returns (ids, src): src[j] is the batch index of the j-th new entry, so a key
    repeated within the batch is new only at its first occurrence.
    """
    mask = tid.shape[0] - 1
    m = h1s.shape[0]
    ids = np.empty(m, dtype=np.int64)
    src = np.empty(m, dtype=np.int64)
    k = 0
    for i in range(m):
        h1 = h1s[i]
        h2 = h2s[i]
        n = ns[i]
        s = np.int64(h1 & np.uint64(mask))
        while True:
            rid = tid[s]
            if rid < 0:
                tid[s] = next_id + k
                th1[s] = h1
                th2[s] = h2
                tn[s] = n
                ids[i] = next_id + k
                src[k] = i
                k += 1
                break
            if th1[s] == h1 and th2[s] == h2 and tn[s] == n:
                ids[i] = rid
                break
            s = (s + 1) & mask
    return ids, src[:k].copy()


@kernel
def _table_rehash(th1, th2, tn, tid, nh1, nh2, nn, nid):
    """Move every entry of the old slot arrays into the (empty, larger) new ones."""
    mask = nid.shape[0] - 1
    for s in range(tid.shape[0]):
        if tid[s] < 0:
            continue
        t = np.int64(th1[s] & np.uint64(mask))
        while nid[t] >= 0:
            t = (t + 1) & mask
        nid[t] = tid[s]
        nh1[t] = th1[s]
        nh2[t] = th2[s]
        nn[t] = tn[s]


# ---- split rules beyond `x <= t` (slpy.data.splits): categorical levels, missing values --
# A rule is (side, categorical, value): side 0 none, 1 missing goes left, 2 right;
# for a categorical feature `value` packs the listed level codes (LEVEL_BITS bits each,
# code + 1, the first in the top slot) and a column holds level codes (-1: a level the
# training data lack). NaN is a missing value.

_LEVEL_BITS = 10
_MAX_LISTED = 5
_LEVEL_MASK = (1 << _LEVEL_BITS) - 1


@kernel
def _listed(v, c):
    """Is level code c among the levels packed in v?"""
    m = np.int64(v)
    for k in range(_MAX_LISTED):
        s = (m >> (_LEVEL_BITS * (_MAX_LISTED - 1 - k))) & _LEVEL_MASK
        if s == 0:
            return False
        if s - 1 == c:
            return True
    return False


@kernel
def _goes_left(x, side, categorical, v, default_left):
    """Does a value x go left at the split (side, categorical, v)? A missing value
    follows the side, a new level (or a missing value at a split without a side)
    goes where ``default_left`` says."""
    if x != x:
        if side == 0:
            return default_left
        return side == 1
    if categorical:
        if x < 0:
            return default_left
        return _listed(v, np.int64(x))
    return x <= v


@kernel
def _rule_mask(col, rows, side, categorical, v):
    """Which of ``rows`` go left at the rule; a value the rule has not seen goes to the
    side with more of the rows it has seen (the left on a tie)."""
    n = rows.shape[0]
    known = np.empty(n, dtype=np.bool_)
    left = np.empty(n, dtype=np.bool_)
    n_left = 0
    n_right = 0
    for i in range(n):
        x = col[rows[i]]
        k = not ((x != x and side == 0) or (categorical and x < 0))
        known[i] = k
        if k:
            g = _goes_left(x, side, categorical, v, True)
            left[i] = g
            if g:
                n_left += 1
            else:
                n_right += 1
    default = n_left >= n_right
    for i in range(n):
        if not known[i]:
            left[i] = default
    return left


@kernel
def _scan_numeric_na(rank, uvals, rows, z1, z2, min_leaf, n_na_rank):
    """The splits of a numeric feature with missing values at a node whose rows
    include some (rank ``n_na_rank`` is NaN's): each observed value t gives
    ``x <= t`` with the missing rows sent left (side 1) and right (side 2); at least
    min_leaf rows a side. Returns (side, threshold, n_left, h1_left, h2_left)."""
    n = rows.shape[0]
    cnt = np.zeros(n_na_rank + 1, dtype=np.int64)
    b1 = np.zeros(n_na_rank + 1, dtype=np.uint64)
    b2 = np.zeros(n_na_rank + 1, dtype=np.uint64)
    for i in range(n):
        r = rows[i]
        k = rank[r]
        cnt[k] += 1
        b1[k] ^= z1[r]
        b2[k] ^= z2[r]
    na = cnt[n_na_rank]
    na1 = b1[n_na_rank]
    na2 = b2[n_na_rank]
    cap = 2 * n_na_rank
    side = np.empty(cap, dtype=np.int64)
    thr = np.empty(cap, dtype=np.float64)
    nleft = np.empty(cap, dtype=np.int64)
    lh1 = np.empty(cap, dtype=np.uint64)
    lh2 = np.empty(cap, dtype=np.uint64)
    lo = max(min_leaf, 1)
    m = 0
    c = 0
    h1 = np.uint64(0)
    h2 = np.uint64(0)
    for k in range(n_na_rank):
        if cnt[k] == 0:
            continue
        c += cnt[k]
        h1 ^= b1[k]
        h2 ^= b2[k]
        for s in (1, 2):
            nl = c + na if s == 1 else c
            if nl >= lo and n - nl >= lo:
                side[m] = s
                thr[m] = uvals[k]
                nleft[m] = nl
                lh1[m] = h1 ^ na1 if s == 1 else h1
                lh2[m] = h2 ^ na2 if s == 1 else h2
                m += 1
    return side[:m].copy(), thr[:m].copy(), nleft[:m].copy(), lh1[:m].copy(), lh2[:m].copy()


@kernel
def _scan_categorical(col, rows, z1, z2, min_leaf, n_levels, max_subset_levels):
    """The splits of a categorical feature at a node: with L levels present, every
    two-way partition of them (2**(L-1) - 1) when L <= max_subset_levels, else each
    level against the others (L); the listed side is the one with fewer levels (on a
    tie, the one holding the lowest code). Where the node's rows have missing values,
    each partition comes with the missing rows on the listed side (side 1) and on the
    other (side 2), and one split more sends the missing rows alone left (side 1,
    nothing listed). At least min_leaf rows a side. Returns (side, listed level
    codes [m, MAX_LISTED] padded with -1, n_left, h1_left, h2_left)."""
    n = rows.shape[0]
    cnt = np.zeros(n_levels, dtype=np.int64)
    b1 = np.zeros(n_levels, dtype=np.uint64)
    b2 = np.zeros(n_levels, dtype=np.uint64)
    na = 0
    na1 = np.uint64(0)
    na2 = np.uint64(0)
    for i in range(n):
        r = rows[i]
        x = col[r]
        if x != x:
            na += 1
            na1 ^= z1[r]
            na2 ^= z2[r]
        else:
            k = np.int64(x)
            cnt[k] += 1
            b1[k] ^= z1[r]
            b2[k] ^= z2[r]
    present = np.empty(n_levels, dtype=np.int64)
    L = 0
    for k in range(n_levels):
        if cnt[k] > 0:
            present[L] = k
            L += 1
    full = L <= max_subset_levels
    n_part = 0
    if L >= 2:
        n_part = (1 << (L - 1)) - 1 if full else L
    per = 2 if na > 0 else 1
    cap = n_part * per + 1
    side = np.empty(cap, dtype=np.int64)
    listed = np.full((cap, _MAX_LISTED), -1, dtype=np.int64)
    nleft = np.empty(cap, dtype=np.int64)
    lh1 = np.empty(cap, dtype=np.uint64)
    lh2 = np.empty(cap, dtype=np.uint64)
    lo = max(min_leaf, 1)
    m = 0
    for p in range(n_part):
        codes = np.full(_MAX_LISTED, -1, dtype=np.int64)
        if full:
            # side A: a non-empty subset of the first L-1 levels; list the smaller of
            # A and the rest (on a tie, the one holding the first level)
            mask = p + 1
            size = 0
            for k in range(L):
                size += (mask >> k) & 1
            if 2 * size > L or (2 * size == L and not (mask & 1)):
                mask = ((1 << L) - 1) ^ mask
            j = 0
            for k in range(L):
                if (mask >> k) & 1:
                    codes[j] = present[k]
                    j += 1
        else:
            codes[0] = present[p]
        c = 0
        h1 = np.uint64(0)
        h2 = np.uint64(0)
        for j in range(_MAX_LISTED):
            lv = codes[j]
            if lv < 0:
                break
            c += cnt[lv]
            h1 ^= b1[lv]
            h2 ^= b2[lv]
        for s in range(per):
            sd = 0 if na == 0 else s + 1
            nl = c + na if sd == 1 else c
            if nl >= lo and n - nl >= lo:
                side[m] = sd
                listed[m] = codes
                nleft[m] = nl
                lh1[m] = h1 ^ na1 if sd == 1 else h1
                lh2[m] = h2 ^ na2 if sd == 1 else h2
                m += 1
    if na > 0 and L >= 1 and na >= lo and n - na >= lo:
        side[m] = 1                       # the missing rows alone
        nleft[m] = na
        lh1[m] = na1
        lh2[m] = na2
        m += 1
    return side[:m].copy(), listed[:m].copy(), nleft[:m].copy(), lh1[:m].copy(), \
        lh2[:m].copy()
