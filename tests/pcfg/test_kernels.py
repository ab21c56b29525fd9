"""The numba kernels of slpy.pcfg against plain Python references, on random
grammar arrays (random DAGs of row sets with random depths, weights and leaves)."""
import math

import numpy as np
import pytest

from slpy.pcfg import _kernels as K

NEG = -math.inf


def random_grammar(seed, n=30, keyed=True, max_depth=-1, mode=0):
    """Row sets 0..n-1 with size n - j (so larger index = smaller set, children come
    after parents), random splits to later sets, features and thresholds."""
    rng = np.random.default_rng(seed)
    size = np.arange(n, 0, -1)
    parts = []
    for j in range(n):
        k = 0 if j > n - 3 else int(rng.integers(0, 4))
        kids = [sorted(rng.choice(np.arange(j + 1, n), 2, replace=False)) for _ in range(k)]
        parts.append(kids)
    ptr = np.zeros(n + 1, dtype=np.int64)
    ptr[1:] = np.cumsum([len(p) for p in parts])
    left = np.array([a for p in parts for a, b in p], dtype=np.int64)
    right = np.array([b for p in parts for a, b in p], dtype=np.int64)
    feat = rng.integers(0, 3, len(left)).astype(np.int64)
    thr = rng.integers(0, 4, len(left)).astype(np.float64) + 0.5
    expanded = np.ones(n, dtype=np.bool_)
    order = np.argsort(size, kind="stable").astype(np.int64)
    n_depth = int(K._depth_bound(order, ptr, left, right, expanded)) if keyed else 1
    if max_depth >= 0 and keyed:
        n_depth = min(n_depth, max_depth + 1)
    reach = K._reach(order, ptr, left, right, expanded, n_depth, keyed, max_depth)
    p = rng.uniform(0.2, 1.0, n_depth)
    p[0] = 1.0 if seed % 2 else p[0]              # sometimes a node must split
    if mode == 0:
        with np.errstate(divide="ignore"):
            log_p, log_q = np.log(p), np.log1p(-p)
    else:
        log_p, log_q = np.full(n_depth, -1.3), np.zeros(n_depth)
    leaf = rng.normal(-3, 2, n)
    return dict(ptr=ptr, left=left, right=right, feat=feat, thr=thr, expanded=expanded,
                order=order, reach=reach, keyed=keyed, max_depth=max_depth, mode=mode,
                log_p=log_p, log_q=log_q, leaf=leaf, n_depth=n_depth)


def ref_reach(g):
    n, nd = g["reach"].shape
    out = np.zeros((n, nd), bool)
    stack = [(0, 0)]
    while stack:
        j, d = stack.pop()
        if out[j, d]:
            continue
        out[j, d] = True
        if g["max_depth"] >= 0 and d >= g["max_depth"]:
            continue
        dc = d + 1 if g["keyed"] else d
        for s in range(g["ptr"][j], g["ptr"][j + 1]):
            stack += [(g["left"][s], dc), (g["right"][s], dc)]
    return out


def ref_tables(g):
    """(alive, log_stop, log_split, inside, viterbi) by memoised recursion."""
    memo = {}

    def node(j, d):
        if (j, d) in memo:
            return memo[(j, d)]
        dc = d + 1 if g["keyed"] else d
        live = []
        allowed = not (g["max_depth"] >= 0 and d >= g["max_depth"]) and g["log_p"][d] > NEG
        if allowed:
            for s in range(g["ptr"][j], g["ptr"][j + 1]):
                a, b = node(g["left"][s], dc), node(g["right"][s], dc)
                if a[0] and b[0]:
                    live.append((s, a, b))
        if g["mode"] == 1:
            stop, split = g["log_q"][d], (g["log_p"][d] if live else NEG)
        elif live:
            stop, split = g["log_q"][d], g["log_p"][d] - math.log(len(live))
        else:
            stop, split = (0.0 if g["log_q"][d] > NEG else NEG), NEG
        alive = stop > NEG or bool(live)
        terms = [stop + g["leaf"][j]] + [split + a[3] + b[3] for s, a, b in live]
        m = max(terms)
        ins = m + math.log(sum(math.exp(t - m) for t in terms)) if m > NEG else NEG
        vit = max([stop + g["leaf"][j]] + [split + a[4] + b[4] for s, a, b in live])
        memo[(j, d)] = out = (alive, stop, split, ins if alive else NEG, vit if alive else NEG)
        return out
    return node


@pytest.mark.parametrize("seed", range(8))
@pytest.mark.parametrize("keyed,max_depth,mode", [(True, -1, 0), (True, 2, 0),
                                                   (False, -1, 1), (True, 3, 1)])
def test_dp_kernels_match_reference(seed, keyed, max_depth, mode):
    g = random_grammar(seed, keyed=keyed, max_depth=max_depth, mode=mode)
    reach = ref_reach(g)
    np.testing.assert_array_equal(g["reach"], reach)
    alive, log_stop, log_split = K._liveness(g["order"], g["ptr"], g["left"], g["right"],
                                             g["expanded"], g["reach"], keyed, max_depth,
                                             mode, g["log_p"], g["log_q"])
    ins = K._inside(g["order"], g["ptr"], g["left"], g["right"], g["reach"], alive, keyed,
                    log_stop, log_split, g["leaf"])
    best, arg = K._viterbi(g["order"], g["ptr"], g["left"], g["right"], g["reach"], alive,
                           keyed, log_stop, log_split, g["leaf"])
    node = ref_tables(g)
    for j, d in zip(*np.nonzero(reach)):
        a, stop, split, i_ref, v_ref = node(j, d)
        assert alive[j, d] == a
        if not a:
            assert ins[j, d] == NEG and arg[j, d] == -2
            continue
        assert log_stop[j, d] == stop and log_split[j, d] == pytest.approx(split, abs=1e-12)
        assert ins[j, d] == pytest.approx(i_ref, abs=1e-10)
        assert best[j, d] == pytest.approx(v_ref, abs=1e-10)


def test_predict_kernel_matches_reference():
    for seed in range(6):
        g = random_grammar(seed, keyed=True, mode=0)
        alive, ls, lsp = K._liveness(g["order"], g["ptr"], g["left"], g["right"],
                                     g["expanded"], g["reach"], True, -1, 0, g["log_p"],
                                     g["log_q"])
        if not alive[0, 0]:
            continue
        ins = K._inside(g["order"], g["ptr"], g["left"], g["right"], g["reach"], alive,
                        True, ls, lsp, g["leaf"])
        rng = np.random.default_rng(seed)
        pred = rng.dirichlet([1, 1, 1], len(g["leaf"]))
        X = rng.integers(0, 5, (7, 3)).astype(float)
        n_split = len(g["feat"])
        got = K._predict(X, g["ptr"], g["left"], g["right"], g["feat"],
                         np.zeros(n_split, np.int64), g["thr"], np.zeros(3, np.bool_),
                         np.ones(n_split, np.bool_), True, ls, lsp, g["leaf"], ins, pred)

        def R(x, j, d):
            z = ins[j, d]
            out = math.exp(ls[j, d] + g["leaf"][j] - z) * pred[j]
            if lsp[j, d] > NEG:
                for s in range(g["ptr"][j], g["ptr"][j + 1]):
                    a = lsp[j, d] + ins[g["left"][s], d + 1] + ins[g["right"][s], d + 1]
                    if a > NEG:
                        c = g["left"][s] if x[g["feat"][s]] <= g["thr"][s] else g["right"][s]
                        out = out + math.exp(a - z) * R(x, c, d + 1)
            return out
        want = np.array([R(x, 0, 0) for x in X])
        np.testing.assert_allclose(got, want, atol=1e-12)
        np.testing.assert_allclose(got.sum(axis=1), 1.0, atol=1e-12)


def test_set_counts_kernel():
    rng = np.random.default_rng(0)
    XT = rng.integers(0, 3, (2, 12)).astype(float)
    y = rng.integers(0, 3, 12).astype(np.int32)
    rows = np.arange(12, dtype=np.int32)
    off = np.array([0, 12])
    src = np.array([0, -1, -1])
    par = np.array([0, 0, 0])
    out = K._set_counts(rows, off, src, XT, y, 3, par, np.array([0, 1, 0]),
                        np.zeros(3, np.int64), np.array([0.0, 1.0, 1.0]),
                        np.array([False, True, False]), np.zeros(2, np.bool_))
    np.testing.assert_array_equal(out[0], np.bincount(y, minlength=3))
    np.testing.assert_array_equal(out[1], np.bincount(y[XT[1] <= 1], minlength=3))
    np.testing.assert_array_equal(out[2], np.bincount(y[XT[0] > 1], minlength=3))
