"""The clustering score's numba kernel against plain NumPy/SciPy references: the normal
model with a normal-inverse-gamma prior (closed form, the chain rule of Student-t
predictives from scipy.stats, and direct numerical integration) and the
Dirichlet-multinomial (closed form with gammaln, and the Polya urn); the cache, the
defaults and the posterior predictive of new rows."""
import math

import numpy as np
import pytest
from hypothesis import given, settings, strategies as st
from scipy import integrate, stats
from scipy.special import gammaln

from slpy.cluster import _kernels as K
from slpy.cluster.data import cluster_from_arrays
from slpy.cluster.score import BlockScorer, Hyper, default_hyper, mask_of, masks_of


def rel_close(a, b, tol=1e-9):
    return abs(a - b) <= tol * max(1.0, abs(b))


# ---- references: no slpy code --------------------------------------------------------

def ref_normal(x, m0, k0, a0, b0):
    """Murphy (2007) eq. 95, in NumPy."""
    x = np.asarray(x, dtype=float)
    m = len(x)
    xbar = x.mean()
    km, am = k0 + m, a0 + m / 2
    bm = b0 + 0.5 * ((x - xbar) ** 2).sum() + k0 * m * (xbar - m0) ** 2 / (2 * km)
    return float(gammaln(am) - gammaln(a0) + a0 * np.log(b0) - am * np.log(bm)
                 + 0.5 * (np.log(k0) - np.log(km)) - m / 2 * np.log(2 * np.pi))


def ref_normal_chain(x, m0, k0, a0, b0):
    """log p(x_1) p(x_2 | x_1) ...: each factor the Student-t posterior predictive
    (scipy.stats.t), the parameters updated one value at a time."""
    mu, k, a, b, total = m0, k0, a0, b0, 0.0
    for v in x:
        total += stats.t.logpdf(v, df=2 * a, loc=mu, scale=math.sqrt(b * (k + 1) / (a * k)))
        b += k * (v - mu) ** 2 / (2 * (k + 1))
        mu = (k * mu + v) / (k + 1)
        k += 1
        a += 0.5
    return total


def ref_normal_integral(x, m0, k0, a0, b0):
    """p(x) = integral over s2 of InvGamma(s2 | a0, b0) N(x | m0 1, s2 (I + 1 1' / k0))
    (mu integrated out: x given s2 is multivariate normal), by quadrature in log s2."""
    x = np.asarray(x, dtype=float)
    cov = np.eye(len(x)) + np.ones((len(x), len(x))) / k0

    def f(u):
        s2 = math.exp(u)
        return math.exp(stats.multivariate_normal.logpdf(x, np.full(len(x), m0), s2 * cov)
                        + stats.invgamma.logpdf(s2, a0, scale=b0) + u)
    val, _ = integrate.quad(f, -60, 120, epsabs=0, epsrel=1e-12, limit=500)
    return math.log(val)


def ref_dirichlet(codes, r, g):
    c = np.bincount(np.asarray(codes), minlength=r)
    return float(gammaln(r * g) - gammaln(r * g + c.sum())
                 + (gammaln(g + c) - gammaln(g)).sum())


def ref_polya(codes, r, g):
    seen = np.zeros(r)
    total = 0.0
    for k, v in enumerate(codes):
        total += math.log((seen[v] + g) / (k + r * g))
        seen[v] += 1
    return total


def ref_block(x, c, arities, hyper, rows):
    rows = list(rows)
    out = sum(ref_normal(x[rows, j], hyper.m0[j], hyper.k0, hyper.a0, hyper.b0[j])
              for j in range(x.shape[1]))
    return out + sum(ref_dirichlet(c[rows, j], arities[j], hyper.gamma)
                     for j in range(c.shape[1]))


# ---- the references agree with each other ----------------------------------------------

X = np.array([0.3, -1.2, 2.5, 0.9, 1.1, -0.4, 3.2])


@pytest.mark.parametrize("m0,k0,a0,b0", [(0.0, 1.0, 2.0, 1.0), (0.5, 0.01, 2.0, 0.25),
                                         (-1.0, 3.0, 0.7, 2.0)])
def test_the_normal_references_agree(m0, k0, a0, b0):
    assert rel_close(ref_normal(X, m0, k0, a0, b0), ref_normal_chain(X, m0, k0, a0, b0))
    assert rel_close(ref_normal(X[:4], m0, k0, a0, b0),
                     ref_normal_integral(X[:4], m0, k0, a0, b0), 1e-8)


def test_the_dirichlet_references_agree():
    codes = [0, 2, 2, 1, 0, 2, 2]
    for g in (0.5, 1.0, 3.0):
        assert rel_close(ref_dirichlet(codes, 4, g), ref_polya(codes, 4, g))


# ---- the kernel ------------------------------------------------------------------------

def test_the_kernel_on_flat_arrays():
    x = np.ascontiguousarray(X.reshape(1, -1))
    c = np.zeros((0, len(X)), dtype=np.int32)
    got = K._block_loglik(x, c, np.zeros(0, dtype=np.int64), np.array([0, 2, 3]),
                          np.array([0.5]), 0.3, 1.5, np.array([0.8]), 1.0)
    assert rel_close(got, ref_normal(X[[0, 2, 3]], 0.5, 0.3, 1.5, 0.8))
    assert K._block_loglik(x, c, np.zeros(0, dtype=np.int64), np.zeros(0, dtype=np.int64),
                           np.array([0.5]), 0.3, 1.5, np.array([0.8]), 1.0) == 0.0


def _data(rng, n, p_num, p_cat, r=3):
    x = rng.normal(size=(n, p_num)) * rng.uniform(0.1, 5, size=p_num) \
        + rng.normal(size=p_num)
    c = rng.integers(0, r, size=(n, p_cat))
    return cluster_from_arrays(x, c, levels=[r] * p_cat)


@pytest.mark.parametrize("p_num,p_cat", [(1, 0), (0, 1), (3, 2)])
def test_block_scores_match_the_references(p_num, p_cat):
    rng = np.random.default_rng(p_num * 10 + p_cat)
    data = _data(rng, 25, p_num, p_cat)
    hyper = Hyper(tuple(rng.normal(size=p_num)), tuple(rng.uniform(0.1, 3, size=p_num)),
                  k0=0.2, a0=1.7, gamma=0.6)
    bs = BlockScorer(data, hyper)
    for _ in range(20):
        rows = sorted(rng.choice(25, size=int(rng.integers(1, 26)), replace=False))
        assert rel_close(bs.block(rows), ref_block(data.numeric, data.codes,
                                                   data.arities, hyper, rows))


@settings(max_examples=25, deadline=None)
@given(st.integers(0, 10_000), st.integers(1, 12), st.integers(0, 3), st.integers(0, 2))
def test_any_block_matches_the_reference(seed, n, p_num, p_cat):
    if p_num + p_cat == 0:
        p_num = 1
    rng = np.random.default_rng(seed)
    data = _data(rng, n, p_num, p_cat, r=int(rng.integers(1, 5)))
    bs = BlockScorer(data)
    rows = sorted(rng.choice(n, size=int(rng.integers(1, n + 1)), replace=False))
    assert rel_close(bs.block(rows), ref_block(data.numeric, data.codes, data.arities,
                                               bs.hyper, rows))


def test_the_cache_keys_blocks_by_their_rows():
    data = _data(np.random.default_rng(3), 10, 2, 1)
    bs = BlockScorer(data)
    v = bs.block([4, 1, 7])
    assert bs.cache_size == 1 and bs.by_mask(mask_of([1, 4, 7])) == v
    assert bs.block((7, 4, 1)) == v and bs.cache_size == 1
    assert bs.gain(mask_of([1, 4]), 7) == pytest.approx(v - bs.block([1, 4]), abs=1e-12)
    assert bs.gain(0, 3) == bs.block([3])
    assert masks_of([5, 5, 2, 5, 2]) == [0b01011, 0b10100]
    assert bs.total([[0, 1], [2, 3, 4], [5, 6, 7, 8, 9]]) == pytest.approx(
        bs.block([0, 1]) + bs.block([2, 3, 4]) + bs.block(range(5, 10)), abs=1e-12)
    for bad in ([], [10], [-1]):
        with pytest.raises(ValueError):
            bs.block(bad)


def test_the_default_hyperparameters():
    data = cluster_from_arrays(np.array([[1.0, 5.0], [3.0, 5.0], [5.0, 5.0]]))
    h = default_hyper(data)
    assert h.m0 == (3.0, 5.0)
    sd = math.sqrt(8 / 3)
    assert h.b0[0] == pytest.approx((h.a0 - 1) * (sd / 2) ** 2)
    assert h.b0[1] == pytest.approx((h.a0 - 1) * 0.25)     # a constant column: s = 1
    assert (h.k0, h.a0, h.gamma) == (0.01, 2.0, 1.0)
    with pytest.raises(ValueError, match="k0"):
        BlockScorer(data, Hyper(h.m0, h.b0, k0=0.0))
    with pytest.raises(ValueError, match="b0"):
        BlockScorer(data, Hyper(h.m0, (1.0, -1.0)))


def test_the_predictive_is_the_ratio_of_marginal_likelihoods():
    rng = np.random.default_rng(5)
    both = _data(rng, 14, 2, 2)
    train, new = both.take(range(10)), both.take(range(10, 14))
    hyper = default_hyper(train)
    a, b = BlockScorer(train, hyper), BlockScorer(both, hyper)
    for rows in ([0, 3, 4, 8], [2], []):
        got = a.predictive(rows, new)
        for t in range(4):
            want = b.block(rows + [10 + t]) - (b.block(rows) if rows else 0.0)
            assert rel_close(got[t], want)
