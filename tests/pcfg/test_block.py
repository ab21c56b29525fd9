"""The exact block move's dynamic program (slpy.pcfg.block) against a brute-force
enumeration of every GROWTREE subtree of bounded depth: inside scores to 1e-9, the
log prior of each drawn subtree exactly, and drawn subtrees by chi-square."""
import math
from collections import Counter
from pathlib import Path

import numpy as np
import pytest
from scipy.stats import chisquare

from slpy.data import load_csv
from slpy.data.rowsets import RowSets
from slpy.pcfg import _block as K
from slpy.pcfg.block import GrowtreeBlock
from slpy.trees import make_likelihood

ROOT = Path(__file__).resolve().parents[2]
A, B, M = 0.95, 1.0, 3


@pytest.fixture(scope="module")
def setting():
    ds = load_csv(ROOT / "examples" / "data" / "kyphosis.csv").take(np.arange(40))
    rs = RowSets(ds)
    lik = make_likelihood("dirichlet", ds)
    return rs, lik, GrowtreeBlock(rs, A, B, M, lik.alpha)


def enumerate_subtrees(rs, lik, rid, d, h):
    """[(pre-order structure, log prior, log likelihood)] of the subtrees of depth <= h
    below a node of rows `rid` at depth d, from RowSets.valid_splits."""
    splits = list(rs.valid_splits(rid, M))
    pd = A * (1 + d) ** -B
    ll = lik.leaf_term(rs, rid)
    if not splits:
        return [((None,), 0.0, ll)]
    out = [((None,), math.log1p(-pd), ll)]
    if h == 0:
        return out
    for f, t, left, right in splits:
        for ls, lp, lL in enumerate_subtrees(rs, lik, left, d + 1, h - 1):
            for rs_, rp, rL in enumerate_subtrees(rs, lik, right, d + 1, h - 1):
                out.append((((f, float(t)),) + ls + rs_,
                            math.log(pd) - math.log(len(splits)) + lp + rp, lL + rL))
    return out


def test_the_kernel_lists_the_row_sets_valid_splits(setting):
    rs, _, blk = setting
    rng = np.random.default_rng(0)
    seen = 0
    for _ in range(30):            # row sets along random paths down from the root
        rid = rs.root()
        while True:
            srt = blk._srt(rid)
            rows = np.sort(rs.rows(rid))
            for f in range(srt.shape[0]):     # each feature: the node's rows, ascending
                assert np.array_equal(np.sort(srt[f]), rows)
                assert np.all(np.diff(blk.XT[f, srt[f]]) >= 0)
            for m in (1, M):
                fs, vs = K._splits(srt, blk.XT, m)
                want = [(f, float(t)) for f, t, _, _ in rs.valid_splits(rid, m)]
                assert list(zip(fs.tolist(), vs.tolist())) == want
                assert K._has_split(srt, blk.XT, m) == (len(want) > 0)
            seen += 1
            splits = list(rs.valid_splits(rid, 1))
            if not splits:
                break
            rid = splits[int(rng.integers(len(splits)))][2 + int(rng.integers(2))]
    assert seen > 60


@pytest.mark.parametrize("d,h,heat", [(0, 1, 1.0), (1, 2, 1.0), (0, 2, 0.5), (2, 2, 1.0)])
def test_inside_and_draws_match_the_enumeration(setting, d, h, heat):
    rs, lik, blk = setting
    root = rs.root()
    subs = enumerate_subtrees(rs, lik, root, d, h)
    logw = np.array([lp + heat * lL for _, lp, lL in subs])
    log_z = np.logaddexp.reduce(logw)
    assert abs(blk.log_inside(root, d, h, heat) - log_z) < 1e-9
    prior = {s: lp for s, lp, _ in subs}
    probs = {s: math.exp(w - log_z) for (s, _, _), w in zip(subs, logw)}
    rng = np.random.default_rng(3)
    n = 8000 if h == 1 else 2500     # a depth-2 draw costs a millisecond here
    counts = Counter()
    for _ in range(n):
        sub, lp = blk.sample(root, d, h, heat, rng)
        sub = tuple(sub)
        assert abs(prior[sub] - lp) < 1e-9
        counts[sub] += 1
    keys = [k for k in probs if probs[k] * n >= 5]
    obs = [counts[k] for k in keys] + [n - sum(counts[k] for k in keys)]
    exp = [probs[k] * n for k in keys]
    exp.append(n - sum(exp))
    assert chisquare(obs, exp).pvalue > 0.01


def test_a_flat_likelihood_gives_the_prior(setting):
    rs, lik, _ = setting
    flat = GrowtreeBlock(rs, A, B, M, None)
    subs = enumerate_subtrees(rs, lik, rs.root(), 0, 2)
    assert abs(flat.log_inside(rs.root(), 0, 2, 1.0)
               - np.logaddexp.reduce([lp for _, lp, _ in subs])) < 1e-9


def test_the_kernels_compile_into_an_empty_cache_in_another_process(tmp_path):
    import os
    import subprocess
    import sys
    # then a block on real data loads every kernel from the cache: the types match
    code = ("from slpy.pcfg import block as b; b.compile_in_background(); "
            "assert b._COMPILING is not None; b._wait_for_compile(); "
            "b.compile_in_background(); assert b._COMPILING is None\n"   # cached now
            "import numpy as np\n"
            "from slpy.data import load_csv\n"
            "from slpy.data.rowsets import RowSets\n"
            "from slpy.trees import make_likelihood\n"
            f"ds = load_csv({str(ROOT / 'examples' / 'data' / 'kyphosis.csv')!r})\n"
            "rs = RowSets(ds)\n"
            "blk = b.GrowtreeBlock(rs, 0.95, 1.0, 5, make_likelihood('dirichlet', ds).alpha)\n"
            "blk.sample(rs.root(), 0, 2, 1.0, np.random.default_rng(0))\n"
            "blk.log_inside(rs.root(), 0, 1)\n"
            "for f in (b.K._sample, b.K._log_inside, b.K._sorted_rows):\n"
            "    assert not f.stats.cache_misses, f.stats")
    env = dict(os.environ, NUMBA_CACHE_DIR=str(tmp_path))
    r = subprocess.run([sys.executable, "-c", code], env=env, capture_output=True,
                       text=True, timeout=300)
    assert r.returncode == 0, r.stderr
    assert {p.name.split("-")[0] for p in tmp_path.rglob("_block.*.nbi")} >= {
        "_block._sample", "_block._log_inside", "_block._sorted_rows"}


@pytest.mark.parametrize("m", [1, 2, 3])
@pytest.mark.parametrize("pd", [0.0, 0.4, 1.0])
def test_leaf_pairs_equal_the_children_built_one_by_one(m, pd):
    """The depth-1 sweep gives each split's two leaf scores to the bit as building both
    children and scoring them (the recursion it replaces at h == 1): ties, constant
    features and children too small to split included."""
    rng = np.random.default_rng(m)
    for trial in range(20):
        n, p, C = int(rng.integers(2, 40)), int(rng.integers(1, 5)), 3
        XT = rng.integers(0, 4, size=(p, n)).astype(np.float64)
        if trial % 5 == 0:
            XT[0] = 1.0                                    # a constant feature
        y = rng.integers(0, C, size=n).astype(np.int64)
        alpha = rng.uniform(0.5, 2.0, size=C)
        asum = float(alpha.sum())
        aconst = math.lgamma(asum) - sum(math.lgamma(a) for a in alpha)
        srt = np.stack([np.argsort(XT[f], kind="stable") for f in range(p)]).astype(np.int32)
        ptab = np.array([0.7, pd, pd])
        fs, vs = K._splits(srt, XT, m)
        got = K._leaf_pairs(srt, XT, y, alpha, asum, aconst, m, 1, 0.8, ptab, len(fs))
        for s in range(len(fs)):
            left, right = K._partition(srt, XT, fs[s], vs[s])
            want = K._log_inside(left, XT, y, alpha, asum, aconst, m, 1, 0, 0.8, ptab)
            if want > -np.inf:
                want += K._log_inside(right, XT, y, alpha, asum, aconst, m, 1, 0, 0.8,
                                      ptab)
            assert got[s] == want
