"""Likelihood kernels and plugins against SciPy references on random trees."""
import itertools
import math
from pathlib import Path

import numpy as np
import pytest
from hypothesis import given, settings, strategies as st
from scipy import stats
from scipy.special import gammaln

from slpy._numba_config import is_compiled
from slpy.data import RowSets, from_arrays, load_csv
from slpy.trees import (LIKELIHOODS, DirichletLikelihood, Likelihood, NormalLikelihood,
                        leaf_class_counts, leaf_stats, make_likelihood,
                        normal_tree_log_likelihood, register_likelihood,
                        tree_log_likelihood)
from slpy.trees import _lik_kernels as K

DATA = Path(__file__).resolve().parents[2] / "examples" / "data"


# ---- references: plain NumPy / SciPy ---------------------------------------------------

def ref_dirichlet(y, leaves, alpha):
    A = alpha.sum()
    total = 0.0
    for rows in leaves:
        n_k = np.bincount(y[rows], minlength=len(alpha))
        total += (gammaln(A) - gammaln(n_k.sum() + A)
                  + (gammaln(n_k + alpha) - gammaln(alpha)).sum())
    return total


def ref_normal(y, leaves, nu, lam, mu_bar, a):
    """The CGM 1998 formula, written directly."""
    n = sum(len(r) for r in leaves)
    b = len(leaves)
    quad, logdet = 0.0, 0.0
    for rows in leaves:
        yy = y[rows]
        ni = len(yy)
        if ni:
            quad += ((yy - yy.mean()) ** 2).sum() + ni * a / (ni + a) * (yy.mean() - mu_bar) ** 2
        logdet += -0.5 * np.log(ni + a)
    return (-n / 2 * np.log(np.pi) + nu / 2 * np.log(nu * lam) + gammaln((n + nu) / 2)
            - gammaln(nu / 2) + b / 2 * np.log(a) + logdet
            - (n + nu) / 2 * np.log(quad + nu * lam))


def ref_normal_mvt(y, leaves, nu, lam, mu_bar, a):
    """Independent route: y | T is multivariate t_nu(mu_bar, lam (I + B / a))."""
    rows = np.concatenate(leaves)
    n = len(rows)
    shape = np.eye(n)
    start = 0
    for r in leaves:
        shape[start:start + len(r), start:start + len(r)] += 1.0 / a
        start += len(r)
    return stats.multivariate_t(loc=np.full(n, mu_bar), shape=lam * shape, df=nu
                                ).logpdf(y[rows])


def random_partition(rng, n, b, allow_empty=True):
    labels = rng.integers(0, b, size=n)
    leaves = [np.flatnonzero(labels == i).astype(np.int32) for i in range(b)]
    return leaves if allow_empty else [r for r in leaves if len(r)]


# ---- kernels ------------------------------------------------------------------------

@pytest.mark.skipif(not is_compiled(K._dirichlet_tree), reason="NUMBA_DISABLE_JIT")
def test_kernels_are_compiled():
    for name in ("_dirichlet_leaf", "_class_counts_segments", "_dirichlet_tree",
                 "_moments_segments", "_normal_leaf", "_normal_combine", "_normal_tree"):
        assert is_compiled(getattr(K, name)), name


@settings(max_examples=60, deadline=None)
@given(counts=st.lists(st.integers(0, 5000), min_size=1, max_size=30),
       alpha=st.floats(0.01, 50.0), seed=st.integers(0, 1000))
def test_dirichlet_leaf_kernel(counts, alpha, seed):
    c = np.array(counts, dtype=np.int64)
    al = alpha * np.random.default_rng(seed).uniform(0.2, 2.0, size=len(c))
    want = gammaln(al.sum()) - gammaln(c.sum() + al.sum()) + (gammaln(c + al) - gammaln(al)).sum()
    assert K._dirichlet_leaf(c, al) == pytest.approx(want, rel=1e-12, abs=1e-9)


@pytest.mark.parametrize("seed", range(8))
def test_tree_kernels_on_random_trees(seed):
    rng = np.random.default_rng(seed)
    n, k, b = int(rng.integers(1, 3000)), int(rng.integers(2, 27)), int(rng.integers(1, 20))
    y = rng.integers(0, k, size=n).astype(np.int32)
    leaves = random_partition(rng, n, b)
    alpha = rng.uniform(0.1, 3.0, size=k)
    want = ref_dirichlet(y, leaves, alpha)
    got = tree_log_likelihood(y, leaves, alpha=alpha)
    assert got == pytest.approx(want, rel=1e-12, abs=1e-9)
    rows = np.concatenate(leaves)
    offsets = np.cumsum([0] + [len(r) for r in leaves])
    assert tree_log_likelihood(y, rows=rows, offsets=offsets, alpha=alpha) == got
    counts = leaf_class_counts(y, leaves, n_classes=k)
    np.testing.assert_array_equal(counts, [np.bincount(y[r], minlength=k) for r in leaves])

    yr = rng.normal(5.0, 3.0, size=n)
    nu, lam, mu_bar, a = rng.uniform(1, 10), rng.uniform(0.1, 5), rng.normal(), rng.uniform(0.05, 2)
    want = ref_normal(yr, leaves, nu, lam, mu_bar, a)
    got = normal_tree_log_likelihood(yr, leaves, nu=nu, lam=lam, mu_bar=mu_bar, a=a)
    assert got == pytest.approx(want, rel=1e-11, abs=1e-9)
    mom = leaf_stats(yr, rows=rows, offsets=offsets)
    for (m_n, m_s, m_css), r in zip(mom, leaves):
        assert m_n == len(r) and m_s == pytest.approx(yr[r].sum(), rel=1e-12, abs=1e-9)
        assert m_css == pytest.approx(((yr[r] - yr[r].mean()) ** 2).sum() if len(r) else 0,
                                      rel=1e-10, abs=1e-9)


@pytest.mark.parametrize("seed", range(5))
def test_normal_matches_multivariate_t(seed):
    rng = np.random.default_rng(100 + seed)
    n, b = int(rng.integers(2, 60)), int(rng.integers(1, 6))
    leaves = random_partition(rng, n, b, allow_empty=False)
    y = rng.normal(2.0, 1.5, size=n)
    hyper = dict(nu=rng.uniform(1, 8), lam=rng.uniform(0.2, 3), mu_bar=rng.normal(),
                 a=rng.uniform(0.1, 2))
    want = ref_normal_mvt(y, leaves, **hyper)
    assert normal_tree_log_likelihood(y, leaves, **hyper) == pytest.approx(want, rel=1e-10)
    # an empty leaf changes nothing: a^(1/2) / sqrt(0 + a) = 1
    with_empty = leaves + [np.zeros(0, dtype=np.int64)]
    assert normal_tree_log_likelihood(y, with_empty, **hyper) == pytest.approx(want, rel=1e-10)


def test_dirichlet_is_a_distribution_over_labels():
    # Summing p(Y | X, T) over every labelling of 6 rows with 3 classes gives 1.
    leaves = [np.array([0, 3]), np.array([1, 2, 5]), np.array([4])]
    alpha = np.array([0.5, 1.0, 2.0])
    logs = [tree_log_likelihood(np.array(lab), leaves, alpha=alpha)
            for lab in itertools.product(range(3), repeat=6)]
    assert math.fsum(np.exp(logs)) == pytest.approx(1.0, rel=1e-12)


def test_dirichlet_vs_eq1_of_the_tempering_paper():
    # Eq. 1 as printed: (Gamma(A)/prod Gamma(alpha_k)) once, times prod_i
    # prod_k Gamma(n_ik + alpha_k) / Gamma(n_i + A). With two classes and alpha = 1
    # the normaliser is 1 and the per-leaf version is exactly that formula.
    rng = np.random.default_rng(7)
    y = rng.integers(0, 2, size=500)
    leaves = random_partition(rng, 500, 6)
    printed = sum((gammaln(np.bincount(y[r], minlength=2) + 1)).sum() - gammaln(len(r) + 2)
                  for r in leaves)
    assert tree_log_likelihood(y, leaves) == pytest.approx(printed, rel=1e-12)


def test_bad_input_is_rejected():
    y = np.array([0, 1, 1, 0], dtype=np.int32)
    with pytest.raises(ValueError, match="out of range"):
        tree_log_likelihood(y, [np.array([0, 4])])
    with pytest.raises(ValueError, match="out of range"):
        tree_log_likelihood(y, [np.array([0, 1])], alpha=[1.0])    # code 1 with K = 1
    with pytest.raises(ValueError, match="alpha"):
        tree_log_likelihood(y, [np.array([0])], alpha=[1.0, 2.0, 3.0], n_classes=2)
    with pytest.raises(ValueError, match="out of range"):
        normal_tree_log_likelihood(y.astype(float), [np.array([-1])], nu=3, lam=1,
                                   mu_bar=0, a=1)
    with pytest.raises(ValueError, match="offsets"):
        tree_log_likelihood(y, rows=np.arange(4), offsets=np.array([0, 3]))
    with pytest.raises(ValueError, match="integers"):
        tree_log_likelihood(y, [np.array([0.0])])
    with pytest.raises(ValueError, match="out of range"):
        leaf_class_counts(y, [np.array([0, 1])], n_classes=1)
    with pytest.raises(ValueError, match="out of range"):
        leaf_stats(y, [np.array([9])])


# ---- plugins over row sets -----------------------------------------------------------

def _random_tree(rs, rng, n_leaves, min_leaf=3):
    """Leaves of a random tree grown by valid_splits."""
    leaves = [rs.root()]
    while len(leaves) < n_leaves:
        i = int(rng.integers(len(leaves)))
        vs = rs.valid_splits(leaves[i], min_leaf)
        if not vs:
            break
        _, _, left, right = vs[int(rng.integers(len(vs)))]
        leaves[i:i + 1] = [left, right]
    return leaves


def test_dirichlet_plugin_on_bcw():
    ds = load_csv(DATA / "bcw.csv")
    rs = RowSets(ds)
    lik = make_likelihood("dirichlet", ds, alpha=[1.0, 2.0])
    assert isinstance(lik, DirichletLikelihood) and lik.decomposable
    rng = np.random.default_rng(3)
    for _ in range(10):
        leaves = _random_tree(rs, rng, int(rng.integers(1, 12)))
        want = ref_dirichlet(ds.y, [rs.rows(r) for r in leaves], np.array([1.0, 2.0]))
        assert lik.log_likelihood(rs, leaves) == pytest.approx(want, rel=1e-12)
        assert lik.log_likelihood(rs, leaves) == pytest.approx(
            sum(lik.leaf_term(rs, r) for r in leaves), rel=1e-14)
    # a second table has its own ids: its cache must not be mixed with the first
    other = RowSets(ds.subset(ds.y == 0))    # root id 0 again, other rows
    root_term = lik.leaf_term(other, other.root())
    assert root_term == pytest.approx(ref_dirichlet(other.dataset.y, [np.arange(444)],
                                                    np.array([1.0, 2.0])))
    assert lik.leaf_term(rs, rs.root()) != root_term


def test_predictions():
    lik = DirichletLikelihood(3, alpha=[1.0, 1.0, 2.0])
    np.testing.assert_allclose(lik.predict_proba([3, 0, 1]), [4 / 8, 1 / 8, 3 / 8])
    np.testing.assert_allclose(lik.predict_proba([[0, 0, 0], [1, 1, 1]]).sum(axis=1), 1.0)
    with pytest.raises(ValueError):
        lik.predict_proba([1, 2])
    norm = NormalLikelihood(nu=3, lam=1.0, mu_bar=10.0, a=0.5)
    assert norm.predict_mean([4, 8.0, 1.0]) == pytest.approx((8.0 + 5.0) / 4.5)
    np.testing.assert_allclose(norm.predict_mean([[0, 0, 0], [2, 4, 0]]),
                               [10.0, (4 + 5) / 2.5])


def test_normal_plugin_and_defaults():
    rng = np.random.default_rng(11)
    X = rng.uniform(size=(400, 3))
    y = np.where(X[:, 0] < 0.5, 100.0, 104.0) + rng.normal(size=400)
    ds = from_arrays(X, y)
    rs = RowSets(ds)
    lik = make_likelihood("normal", ds)
    assert isinstance(lik, NormalLikelihood) and not lik.decomposable
    assert lik.mu_bar == pytest.approx(y.mean())
    # lam puts probability 0.9 on sigma^2 <= var(y)
    p = stats.invgamma.cdf(y.var(ddof=1), lik.nu / 2, scale=lik.nu * lik.lam / 2)
    assert p == pytest.approx(0.9, abs=1e-9)
    for _ in range(10):
        leaves = _random_tree(rs, rng, int(rng.integers(1, 10)))
        rows = [rs.rows(r) for r in leaves]
        want = ref_normal(y, rows, lik.nu, lik.lam, lik.mu_bar, lik.a)
        assert lik.log_likelihood(rs, leaves) == pytest.approx(want, rel=1e-11)
    # the true split x0 <= 0.5 beats the root by a wide margin
    left, right = rs.split(rs.root(), 0, 0.5)
    assert lik.log_likelihood(rs, [left, right]) > lik.log_likelihood(rs, [rs.root()]) + 100
    with pytest.raises(TypeError):
        lik.log_likelihood(RowSets(load_csv(DATA / "iris.csv")), [0])
    with pytest.raises(ValueError):
        NormalLikelihood(nu=3)     # no data for the defaults
    with pytest.raises(ValueError):
        NormalLikelihood(nu=-1, lam=1, mu_bar=0)


def test_registry():
    ds = load_csv(DATA / "iris.csv")
    assert set(LIKELIHOODS) >= {"dirichlet", "normal"}
    with pytest.raises(ValueError, match="unknown likelihood"):
        make_likelihood("poisson", ds)
    with pytest.raises(ValueError, match="regression"):
        make_likelihood("normal", ds)

    @register_likelihood
    class Majority(Likelihood):   # a toy plugin: log of the majority-class share
        name, task, decomposable = "majority-test", "classification", True

        @classmethod
        def from_dataset(cls, dataset, **hyper):
            return cls()

        def _compute_leaf(self, rowsets, rid):
            c = rowsets.class_counts(rid)
            return float(np.log(c.max() / c.sum()))

        def combine(self, terms):
            return sum(terms)

    try:
        lik = make_likelihood("majority-test", ds)
        rs = RowSets(ds)
        assert lik.log_likelihood(rs, [rs.root()]) == pytest.approx(np.log(1 / 3))
    finally:
        del LIKELIHOODS["majority-test"]
    with pytest.raises(TypeError):
        register_likelihood(int)
