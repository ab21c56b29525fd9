"""The compiled GROWTREE chain: its kernels against NumPy references, and its visit
frequencies against the exact prior and posterior over every tree of 20 Kyphosis rows
(chi-square, fixed seeds) -- the same exact distribution the engine's ``uc`` chain is
checked against, here and in tests/mcmc/test_correctness.py."""
from collections import Counter

import numpy as np
import pytest
from scipy.special import gammaln

from slpy.compiled import _kernels as K
from slpy.compiled.growtree import CompiledPathError, GrowtreeChain
from slpy.data import RowSets, load_csv
from slpy.trees.likelihood import tree_log_likelihood

from ..conftest import EXAMPLES
from ..mcmc.test_correctness import chain, chi2_pvalue, exact, model_for


@pytest.fixture(scope="module")
def small():
    return load_csv(EXAMPLES / "kyphosis.csv").take(np.arange(20))


@pytest.fixture(scope="module")
def bcw():
    return load_csv(EXAMPLES / "bcw.csv")


@pytest.mark.parametrize("data", ["bcw.csv", "pima.csv", "kyphosis.csv"])
@pytest.mark.parametrize("bucket", [0.0, 4.0])     # sorting the ranks, or counting them
def test_valid_splits_are_the_row_sets_splits_in_order(data, bucket):
    ds = load_csv(EXAMPLES / data)
    rs = RowSets(ds)
    rng = np.random.default_rng(5)
    for size in (1, 9, 10, 11, 40, ds.n_rows):
        for m in (1, 5):
            rows = np.sort(rng.choice(ds.n_rows, size, replace=False)).astype(np.int32)
            fs, ts = K._valid_splits(rs._rankT, rs._uvals, rs._uoff, rows, m, bucket)
            # reference: every observed value of a feature but its largest that leaves
            # at least m rows a side, features in order, thresholds ascending
            ref = [(f, t) for f in range(ds.n_features)
                   for t in np.unique(ds.X[rows, f])[:-1]
                   if m <= (ds.X[rows, f] <= t).sum() <= size - m]
            assert list(zip(fs.tolist(), ts.tolist())) == ref
            assert K._count_splits(rows, rs._rankT, rs._uvals, rs._uoff, rs._z1, rs._z2,
                                   m, bucket) == len(ref)


def visits(ds, heat, n_keep, thin, seed):
    c = GrowtreeChain(ds, 0.95, 1.0, 5)
    rng = np.random.default_rng(seed)
    c.run(200, rng, heat)
    counts = Counter()
    for _ in range(n_keep):
        c.run(thin, rng, heat)
        counts[c.canonical()] += 1
    return counts


# ---- kernels against plain NumPy --------------------------------------------------------

def test_leaf_ll_is_the_dirichlet_formula():
    rng = np.random.default_rng(0)
    y = rng.integers(0, 3, 50).astype(np.int32)
    alpha = np.array([1.0, 0.5, 2.0])
    rows = rng.choice(50, 17, replace=False).astype(np.int32)
    n = np.bincount(y[rows], minlength=3)
    ref = (gammaln(alpha.sum()) - gammaln(n.sum() + alpha.sum())
           + (gammaln(n + alpha) - gammaln(alpha)).sum())
    got = K._leaf_ll(rows, y, alpha, np.zeros(3, np.int64))
    assert got == pytest.approx(ref, rel=1e-12)


def test_split_rows_is_a_stable_partition():
    rng = np.random.default_rng(1)
    col = rng.integers(0, 5, 40).astype(np.float64)
    perm = rng.permutation(40).astype(np.int32)
    want = perm[5:30]
    mid = K._split_rows(perm, 5, 30, col, 2.0, np.zeros(40, np.int32))
    left, right = want[col[want] <= 2], want[col[want] > 2]
    assert mid == 5 + len(left)
    assert (perm[5:mid] == left).all() and (perm[mid:30] == right).all()


def check_tree(c: GrowtreeChain, rs: RowSets):
    """Every invariant of the flat tree, against RowSets (the engine's row sets)."""
    I, F, n = c.I, c.F, c.n
    y = c.dataset.y
    ends = []

    def walk(j, lo, hi, d):
        assert (I[j, K.LO], I[j, K.HI], I[j, K.DEPTH]) == (lo, hi, d)
        rows = np.sort(c.perm[lo:hi])
        rid = rs._intern(rows, -1, -1, np.nan, False)
        if I[j, K.NS] >= 0:       # the cached count of valid splits
            assert I[j, K.NS] == len(rs.valid_splits(rid, c.params["min_leaf"]))
        if I[j, K.FEAT] < 0:
            assert I[j, K.SIZE] == 1
            assert F[j, K.LL] == pytest.approx(tree_log_likelihood(y, [rows], n_classes=2),
                                               abs=1e-9)
            ends.append(j)
            return 1
        f, t = int(I[j, K.FEAT]), float(F[j, K.THR])
        assert (f, t) in {(s[0], s[1]) for s in rs.valid_splits(rid, c.params["min_leaf"])}
        x = c.dataset.X[c.perm[lo:hi], f]
        mid = lo + int((x <= t).sum())
        assert (x[:mid - lo] <= t).all() and (x[mid - lo:] > t).all()
        a = walk(j + 1, lo, mid, d + 1)
        b = walk(j + 1 + a, mid, hi, d + 1)
        assert I[j, K.SIZE] == 1 + a + b
        return 1 + a + b

    assert walk(0, 0, c.dataset.n_rows, 0) == n
    assert sorted(c.perm.tolist()) == list(range(c.dataset.n_rows))
    assert c.log_lik == pytest.approx(
        tree_log_likelihood(y, c.leaf_rows(), n_classes=2), abs=1e-9)


def test_the_flat_tree_stays_consistent_along_a_chain(bcw):
    c = GrowtreeChain(bcw, 0.95, 1.0, 5)
    rs = RowSets(bcw)
    rng = np.random.default_rng(3)
    sizes = set()
    for _ in range(40):
        tr = c.run(50, rng)
        check_tree(c, rs)
        assert tr["nodes"][-1] == c.n and tr["log_lik"][-1] == c.log_lik
        sizes.add(c.n)
    assert len(sizes) > 3       # it moved


def test_same_seed_same_chain(bcw):
    def go():
        c = GrowtreeChain(bcw)
        tr = c.run(2000, np.random.default_rng(9), change=0.3)
        return c.canonical(), tr["log_lik"].tobytes(), tr["accepted"].tobytes()
    assert go() == go()


def test_refuses_data_it_cannot_score():
    ds = load_csv(EXAMPLES / "kyphosis.csv")
    with pytest.raises(CompiledPathError, match="min_leaf"):
        GrowtreeChain(ds, min_leaf=0)
    with pytest.raises(CompiledPathError, match="alpha"):
        GrowtreeChain(ds, alpha=1.5)
    with pytest.raises(CompiledPathError, match="numeric features"):
        GrowtreeChain(load_csv(EXAMPLES / "asia.csv", class_col="either",
                               categorical=["asia", "tub", "smoke"],
                               exclude=["lung", "bronc", "xray", "dysp"]))
    with pytest.raises(CompiledPathError, match="classification"):
        GrowtreeChain(load_csv(EXAMPLES / "kyphosis.csv", class_col="Start",
                               regression=True, exclude=["class"]))
    with pytest.raises(CompiledPathError, match="probabilities"):
        GrowtreeChain(ds).run(1, np.random.default_rng(0), change=2.0)
    with pytest.raises(CompiledPathError, match="probabilities"):
        GrowtreeChain(ds).run(1, np.random.default_rng(0), change=0.6, swap=0.6)


# ---- the distribution ---------------------------------------------------------------------

def test_prior_draws_are_the_exact_prior(small):
    """The subtree sampler alone (_grow from the root): independent draws."""
    probs = exact(model_for(small, with_data=False), small, False)
    c = GrowtreeChain(small, 0.95, 1.0, 5)
    rng = np.random.default_rng(17)
    counts = Counter()
    for _ in range(6000):
        c.sample_prior(rng)
        counts[c.canonical()] += 1
    assert chi2_pvalue(counts, probs) > 0.01
    rs = RowSets(small)
    check_tree(c, rs)


def test_log_prior_of_visited_trees_is_the_exact_prior(small):
    m = model_for(small, with_data=False)
    probs = exact(m, small, False)
    c = GrowtreeChain(small, 0.95, 1.0, 5)
    rng = np.random.default_rng(4)
    seen = 0
    for _ in range(30):
        c.run(7, rng, 0.0)
        assert c.log_prior() == pytest.approx(np.log(probs[c.canonical()]), abs=1e-9)
        seen += c.n > 1
    assert seen > 5


def test_heat_zero_visits_the_prior(small):
    probs = exact(model_for(small, with_data=False), small, False)
    assert len(probs) == 170
    counts = visits(small, 0.0, 6000, 10, seed=5)
    assert chi2_pvalue(counts, probs) > 0.01


def test_posterior_visits(small):
    probs = exact(model_for(small, with_data=True), small, True)
    counts = visits(small, 1.0, 6000, 20, seed=13)
    assert chi2_pvalue(counts, probs) > 0.01


def test_compiled_and_engine_target_the_same_posterior(small):
    """Both paths against the one exact posterior, and against each other."""
    m = model_for(small, with_data=True)
    probs = exact(m, small, True)
    engine = chain(m, "uc", 2000, 12, seed=21)
    compiled = visits(small, 1.0, 2000, 20, seed=21)
    assert chi2_pvalue(engine, probs) > 0.01
    assert chi2_pvalue(compiled, probs) > 0.01


def test_change_and_swap_keep_the_flat_tree_consistent(bcw):
    c = GrowtreeChain(bcw, 0.95, 1.0, 5)
    rs = RowSets(bcw)
    rng = np.random.default_rng(8)
    changed = swapped = 0
    for _ in range(40):
        tr = c.run(50, rng, change=0.4, swap=0.4)
        check_tree(c, rs)
        changed += int((tr["accepted"] & (tr["move"] == 1)).sum())
        swapped += int((tr["accepted"] & (tr["move"] == 2)).sum())
    assert changed > 20 and swapped > 5


@pytest.mark.parametrize("heat,thin,seed,change,swap", [
    (0.0, 10, 6, 0.5, 0.0), (1.0, 20, 14, 0.5, 0.0),
    (0.0, 10, 7, 0.2, 0.5), (1.0, 20, 15, 0.2, 0.5)])
def test_change_and_swap_visit_the_exact_distribution(small, heat, thin, seed, change,
                                                      swap):
    probs = exact(model_for(small, with_data=heat > 0), small, heat > 0)
    c = GrowtreeChain(small, 0.95, 1.0, 5)
    rng = np.random.default_rng(seed)
    c.run(200, rng, heat, change=change, swap=swap)
    counts = Counter()
    moved = 0
    for _ in range(6000):
        tr = c.run(thin, rng, heat, change=change, swap=swap)
        moved += int((tr["accepted"] & (tr["move"] == 2)).sum())
        counts[c.canonical()] += 1
    assert chi2_pvalue(counts, probs) > 0.01
    assert moved > 100 or swap == 0


@pytest.mark.parametrize("change,swap", [(0.0, 0.0), (0.5, 0.0), (0.3, 0.4)])
def test_deeper_trees_visit_the_exact_posterior(change, swap):
    """30 rows: 20,355 trees of up to 5 splits, so moves splice subtrees in the middle
    of the arrays; the trees and their numbers of leaves against the exact posterior."""
    ds = load_csv(EXAMPLES / "kyphosis.csv").take(np.arange(30))
    probs = exact(model_for(ds, with_data=True), ds, True)
    assert len(probs) == 20355
    c = GrowtreeChain(ds, 0.95, 1.0, 5)
    rng = np.random.default_rng(31)
    c.run(500, rng, change=change, swap=swap)
    counts = Counter()
    for _ in range(20000):
        c.run(20, rng, change=change, swap=swap)
        counts[c.canonical()] += 1
    assert chi2_pvalue(counts, probs) > 0.01
    by_leaves, seen = Counter(), Counter()
    for k, p in probs.items():
        by_leaves[k.count("leaf")] += p
    for k, n in counts.items():
        seen[k.count("leaf")] += n
    assert chi2_pvalue(seen, by_leaves) > 0.01


def test_a_root_that_must_split(small):
    """alpha = 1: a node with a valid split at depth 0 always splits (its leaf has
    prior 0, which the change move must never propose into)."""
    from ..mcmc.exact_growtree import enumerate_trees
    trees = enumerate_trees(RowSets(small), small.feature_names, 1.0, 0.5, 5)
    probs = {k: p for k, p, _ in trees if p > 0}
    assert abs(sum(probs.values()) - 1) < 1e-9 and "leaf" not in probs
    c = GrowtreeChain(small, 1.0, 0.5, 5)
    rng = np.random.default_rng(2)
    c.sample_prior(rng)
    assert c.n > 1
    counts = Counter()
    for _ in range(5000):
        c.run(10, rng, 0.0, change=0.5)
        counts[c.canonical()] += 1
    assert chi2_pvalue(counts, probs) > 0.01
