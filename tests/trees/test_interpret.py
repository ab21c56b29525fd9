"""Uncertainty and interpretation of a posterior over trees (slpy.trees.interpret, the
estimators' methods) against plain NumPy/SciPy references computed from the same
trees and weights."""
import numpy as np
import pandas as pd
import pytest
from scipy import stats

from slpy.trees.interpret import make_grid, weighted_quantile
from slpy.trees.likelihood import tree_log_likelihood
from slpy.trees.model import Leaf, Split

from ..conftest import EXAMPLES

pytest.importorskip("sklearn")
from slpy import BayesianTreeClassifier, BayesianTreeRegressor  # noqa: E402

# the classifier is fitted on a frame, and the references route plain arrays
pytestmark = pytest.mark.filterwarnings("ignore:X does not have valid feature names")


def simulated(n, seed):
    """y = 2 [x0 > 5] + [x1 > 3] + N(0, 0.5^2); x2 is noise."""
    rng = np.random.default_rng(seed)
    X = rng.uniform(0, 10, size=(n, 3))
    y = 2.0 * (X[:, 0] > 5) + 1.0 * (X[:, 1] > 3) + rng.normal(0, 0.5, n)
    return X, y


@pytest.fixture(scope="module")
def reg():
    X, y = simulated(300, 0)
    est = BayesianTreeRegressor(n_iter=1500, tempering=1, random_state=3).fit(X, y)
    return est, X, y


@pytest.fixture(scope="module")
def clf():
    df = pd.read_csv(EXAMPLES / "kyphosis.csv")
    X, y = df.drop(columns="class"), df["class"]
    est = BayesianTreeClassifier(n_iter=1500, tempering=1, random_state=0).fit(X, y)
    return est, X.to_numpy(float), y.to_numpy()


def leaf_rows(tree, X):
    """Training rows of each leaf, left to right, by walking the tree row by row."""
    leaves = [n for n in tree.nodes() if isinstance(n, Leaf)]
    out = [[] for _ in leaves]
    for i, x in enumerate(X):
        n = tree.root
        while isinstance(n, Split):
            n = n.left if x[n.feature] <= n.threshold else n.right
        out[next(k for k, lf in enumerate(leaves) if lf is n)].append(i)
    return [np.array(r, dtype=np.int64) for r in out]


# ---- weighted quantiles ---------------------------------------------------------------------

def test_weighted_quantile_is_numpys_inverted_cdf_of_repeated_values():
    rng = np.random.default_rng(1)
    for _ in range(50):
        v = rng.integers(0, 6, size=(7, 3)).astype(float)   # ties too
        counts = rng.integers(1, 5, size=7)
        for q in (0.05, 0.25, 0.5, 0.95, 1.0):
            ref = np.quantile(np.repeat(v, counts, axis=0), q, axis=0, method="inverted_cdf")
            assert np.array_equal(weighted_quantile(v, counts / counts.sum(), q), ref)


def test_grid_is_sklearns():
    from sklearn.inspection import partial_dependence
    from sklearn.tree import DecisionTreeRegressor
    X = np.random.default_rng(0).normal(size=(200, 2))
    X[:, 1] = np.round(X[:, 1])
    tree = DecisionTreeRegressor(max_depth=2).fit(X, X[:, 0])
    for j in (0, 1):
        ref = partial_dependence(tree, X, [j], grid_resolution=30)["grid_values"][0]
        assert np.allclose(make_grid(X[:, j], 30), ref)


# ---- inclusion -------------------------------------------------------------------------------

def test_inclusion_is_the_weight_of_the_trees_that_split_on_a_feature(clf):
    est, X, _ = clf
    ref = np.zeros(X.shape[1])
    for tree, w in est.trees_:
        for j in {n.feature for n in tree.nodes() if isinstance(n, Split)}:
            ref[j] += w
    assert np.allclose(est.feature_inclusion_, ref)
    # and as the fraction of kept draws whose tree splits on the feature
    draws = est.trace_["tree"]
    uses = np.array([[any(isinstance(n, Split) and n.feature == j
                          for n in est.trees_[t][0].nodes()) for j in range(X.shape[1])]
                     for t in draws])
    assert np.allclose(est.feature_inclusion_, uses.mean(axis=0))


def test_inclusion_finds_the_features_the_data_depend_on(reg):
    est, _, _ = reg
    inc = est.feature_inclusion_
    assert inc[0] > 0.99 and inc[1] > 0.99, inc


# ---- regression intervals --------------------------------------------------------------------

def test_predict_interval_ends_are_quantiles_of_the_tree_mixture(reg):
    """The mixture's CDF at each end, with each tree's Student-t written out by hand."""
    est, X, y = reg
    h = est._normal
    rows = X[:5]
    lohi = est.predict_interval(rows, coverage=0.8)
    cdf = np.zeros((len(rows), 2))
    for tree, w in est.trees_:
        leaves = [n for n in tree.nodes() if isinstance(n, Leaf)]
        members = leaf_rows(tree, X)
        Q = sum(float(((y[r] - y[r].mean()) ** 2).sum())
                + len(r) * h["a"] / (len(r) + h["a"]) * (y[r].mean() - h["mu_bar"]) ** 2
                for r in members)
        df = len(y) + h["nu"]
        for i, x in enumerate(rows):
            k = next(k for k, r in enumerate(leaf_rows(tree, x[None])) if len(r))
            r = members[k]
            assert len(r) == leaves[k].counts[0]
            loc = (y[r].sum() + h["a"] * h["mu_bar"]) / (len(r) + h["a"])
            scale = np.sqrt((Q + h["nu"] * h["lam"]) / df * (1 + 1 / (len(r) + h["a"])))
            cdf[i] += w * stats.t.cdf(lohi[i], df, loc, scale)
    assert np.allclose(cdf, [[0.1, 0.9]] * len(rows), atol=1e-9)


def test_predict_interval_covers_new_rows(reg):
    """90% predictive intervals hold 90% of fresh rows of the same simulation (1000
    rows: binomial sd 0.0095)."""
    est, _, _ = reg
    Xn, yn = simulated(1000, 99)
    lohi = est.predict_interval(Xn, coverage=0.9)
    inside = ((yn >= lohi[:, 0]) & (yn <= lohi[:, 1])).mean()
    assert abs(inside - 0.9) < 0.035, inside
    lohi5 = est.predict_interval(Xn, coverage=0.5)
    assert abs(((yn >= lohi5[:, 0]) & (yn <= lohi5[:, 1])).mean() - 0.5) < 0.06
    assert (lohi[:, 0] < lohi5[:, 0]).all() and (lohi5[:, 1] < lohi[:, 1]).all()


def test_sample_y_matches_the_interval_and_the_mean(reg):
    est, X, _ = reg
    rows = X[:4]
    draws = est.sample_y(rows, 20000, random_state=5)
    assert draws.shape == (4, 20000)
    lohi = est.predict_interval(rows, coverage=0.9)
    emp = np.quantile(draws, [0.05, 0.95], axis=1).T
    assert np.allclose(emp, lohi, atol=0.05), (emp, lohi)
    assert np.allclose(draws.mean(axis=1), est.predict(rows), atol=0.03)
    assert np.array_equal(draws, est.sample_y(rows, 20000, random_state=5))


# ---- classification intervals ----------------------------------------------------------------

def test_proba_interval_ends_are_quantiles_of_the_beta_mixture(clf):
    est, X, _ = clf
    rows = X[:3]
    lohi = est.predict_proba_interval(rows, coverage=0.9)
    assert lohi.shape == (3, 2, 2)
    a = float(est.dirichlet_alpha)
    for i, x in enumerate(rows):
        for k in range(2):
            cdf = np.zeros(2)
            mean = 0.0
            for tree, w in est.trees_:
                c = tree.root
                while isinstance(c, Split):
                    c = c.left if x[c.feature] <= c.threshold else c.right
                n = c.counts
                b = stats.beta(n[k] + a, n.sum() + 2 * a - n[k] - a)
                cdf += w * b.cdf(lohi[i, k])
                mean += w * b.mean()
            assert np.allclose(cdf, [0.05, 0.95], atol=1e-9)
            assert np.isclose(mean, est.predict_proba(x[None])[0, k])


def test_sample_y_class_frequencies_are_the_predictive(clf):
    est, X, _ = clf
    rows = X[:5]
    draws = est.sample_y(rows, 20000, random_state=2)
    assert set(np.unique(draws)) <= set(est.classes_)
    p = est.predict_proba(rows)[:, 1]
    freq = (draws == est.classes_[1]).mean(axis=1)
    assert (np.abs(freq - p) < 4 * np.sqrt(p * (1 - p) / 20000) + 1e-3).all(), (freq, p)


# ---- partial dependence ----------------------------------------------------------------------

def brute_pd(est, X, j, grid, regression):
    curves = []
    for tree, _ in est.trees_:
        c = []
        for v in grid:
            Xv = X.copy()
            Xv[:, j] = v
            if regression:                       # leaf posterior means by hand
                h = est._normal
                pred = [(leaf.counts[1] + h["a"] * h["mu_bar"]) / (leaf.counts[0] + h["a"])
                        for leaf in _route(tree, Xv)]
                c.append([np.mean(pred)])
            else:
                c.append(tree.predict_proba(Xv).mean(axis=0))
        curves.append(np.array(c).T)
    return np.array(curves)


def _route(tree, X):
    out = []
    for x in X:
        n = tree.root
        while isinstance(n, Split):
            n = n.left if x[n.feature] <= n.threshold else n.right
        out.append(n)
    return out


@pytest.mark.parametrize("which", ["clf", "reg"])
def test_partial_dependence_against_brute_force(which, request):
    est, X, _ = request.getfixturevalue(which)
    X = X[:60]
    j = 1
    pdp = est.partial_dependence(X, j, grid_resolution=12, coverage=0.8)
    grid = pdp.grid_values[0]
    assert np.array_equal(grid, make_grid(X[:, j], 12))
    curves = brute_pd(est, X, j, grid, which == "reg")
    w = np.array([w for _, w in est.trees_])
    assert np.allclose(pdp.average, np.tensordot(w, curves, 1))
    draws = curves[est.trace_["tree"]]              # one curve per kept iteration
    for key, q in (("lower", 0.1), ("upper", 0.9)):
        ref = np.quantile(draws, q, axis=0, method="inverted_cdf")
        assert np.allclose(getattr(pdp, key), ref), key
    assert (pdp.lower <= pdp.average + 1e-12).all() and (pdp.average <= pdp.upper + 1e-12).all()


def test_partial_dependence_by_name_and_bad_input(clf):
    est, X, _ = clf
    df = pd.read_csv(EXAMPLES / "kyphosis.csv").drop(columns="class")
    by_name = est.partial_dependence(df, "Start", grid_resolution=5)
    by_index = est.partial_dependence(df, 2, grid_resolution=5)
    assert np.array_equal(by_name.average, by_index.average)
    with pytest.raises(ValueError, match="no feature 'nope'"):
        est.partial_dependence(df, "nope")
    with pytest.raises(ValueError, match="coverage"):
        est.partial_dependence(df, 0, coverage=1.5)


# ---- pointwise log-likelihood ----------------------------------------------------------------

def test_pointwise_draws_the_leaf_posterior_classification(clf):
    """Draws of theta given T: the mean of p(y_i | T, theta) is the leaf's posterior
    predictive, and the mean of 1 / p(y_i | T, theta) is 1 / p(y_i | T, y_-i) = p(y_-i
    | T) / p(y | T) (the identity PSIS-LOO rests on; the right side from the
    likelihood kernel written from scratch), for rows whose class has 3 rows or more
    in the leaf (where its variance is finite)."""
    est, X, y = clf
    wt = est._weighted_trees()
    yy = np.searchsorted(est.classes_, y)
    a = est.dirichlet_alpha
    for t in range(2):
        ll = wt.pointwise_log_lik(t, X, yy, 40000, np.random.default_rng(t))
        leaf = wt.leaf_of(t, X)
        c = wt.leaf_table(t)[1]
        pred = (c[leaf, yy] + a) / (c[leaf].sum(axis=1) + 2 * a)
        assert np.allclose(np.exp(ll).mean(axis=0), pred, rtol=0.02)
        members = leaf_rows(wt.trees[t], X)

        def lik(ls):
            return tree_log_likelihood(yy, ls, alpha=a, n_classes=2)
        full = lik(members)
        rows = np.nonzero(c[leaf, yy] >= 3)[0]
        assert len(rows) > 40
        for i in rows[::5]:
            loo = full - lik([r[r != i] for r in members])
            assert np.isclose(np.exp(-ll[:, i]).mean(), np.exp(-loo), rtol=0.05), i


def test_pointwise_draws_the_leaf_posterior_regression(reg):
    """Draws of (sigma^2, leaf means) given T: the mean of p(y_i | T, theta) is the
    Student-t posterior predictive at y_i, and the draws have the moments of
    sigma^2 ~ InvGamma((N + nu)/2, (Q + nu lam)/2), mu_i | sigma^2 ~ N(m_i, sigma^2 /
    (n_i + a))."""
    est, X, y = reg
    wt = est._weighted_trees()
    h = est._normal
    ll = wt.pointwise_log_lik(0, X, y, 40000, np.random.default_rng(0))
    m, n, Q, N = wt.normal_leaf(0)
    leaf = wt.leaf_of(0, X)
    df = N + h["nu"]
    scale = np.sqrt((Q + h["nu"] * h["lam"]) / df * (1 + 1 / (n[leaf] + h["a"])))
    dens = stats.t.pdf(y, df, m[leaf], scale)
    assert np.allclose(np.exp(ll).mean(axis=0), dens, rtol=0.02)
    mu, sigma2 = wt.draw_leaf_params(0, 40000, np.random.default_rng(1))
    shape, rate = (N + h["nu"]) / 2, (Q + h["nu"] * h["lam"]) / 2
    assert np.isclose(sigma2.mean(), stats.invgamma.mean(shape, scale=rate), rtol=0.01)
    assert np.isclose(sigma2.var(), stats.invgamma.var(shape, scale=rate), rtol=0.05)
    sd = np.sqrt(sigma2.mean() / (n + h["a"]))
    assert (np.abs(mu.mean(axis=0) - m) < 4 * sd / np.sqrt(40000)).all()
    assert np.allclose(mu.std(axis=0), sd, rtol=0.02)


# ---- partial dependence on a categorical feature (issue 26) ----------------------------------

def _occupations(n=240, seed=0, missing=False):
    """y depends on the occupation (nurse, pilot: mostly yes) and on x (x > 5: more yes)."""
    rng = np.random.default_rng(seed)
    occ = rng.choice(["clerk", "farmer", "nurse", "pilot"], n).astype(object)
    x = rng.uniform(0, 10, n)
    p = np.where(np.isin(occ, ["nurse", "pilot"]), 0.85, 0.15) * np.where(x > 5, 1.0, 0.8)
    y = np.where(rng.random(n) < p, "yes", "no")
    if missing:
        occ[rng.random(n) < 0.1] = None
    return pd.DataFrame({"occupation": pd.Categorical(occ), "x": x}), y


def test_partial_dependence_of_a_hand_made_subset_split():
    """One tree, one split {nurse, pilot} -> left: each level's curve value is its own
    leaf's posterior mean, by hand (the split has no threshold to read), and the grid
    comes back as the levels' names."""
    from slpy.trees.interpret import WeightedTrees
    from slpy.trees.model import Tree
    levels = ["clerk", "farmer", "nurse", "pilot"]
    tree = Tree(Split(0, "occupation", np.nan, Leaf(np.array([2.0, 8.0])),
                      Leaf(np.array([9.0, 1.0])), levels=("nurse", "pilot")),
                ["occupation"], ["no", "yes"], feature_levels=[levels])
    wt = WeightedTrees([tree], np.ones(1), "classification", 1, alpha=1.0)
    pdp = wt.partial_dependence(np.zeros((7, 1)), 0, [0, 1, 2, 3])
    assert list(pdp["grid_values"][0]) == levels
    right, left = (1 + 1) / 12, (8 + 1) / 12            # P(yes): (count + alpha) / (n + 2)
    assert np.allclose(pdp["average"][1], [right, right, left, left])
    with pytest.raises(ValueError, match="level codes"):
        wt.partial_dependence(np.zeros((7, 1)), 0, [0.5])


def test_partial_dependence_sends_missing_values_to_the_recorded_side():
    """A numeric grid value NaN goes where the split sends missing values (left here),
    not with the values above every threshold."""
    from slpy.trees.interpret import WeightedTrees
    from slpy.trees.model import Tree
    tree = Tree(Split(0, "x", 2.0, Leaf(np.array([3.0, 1.0, 0.0])),
                      Leaf(np.array([1.0, 7.0, 0.0])), missing="left"), ["x"], None,
                "regression")
    wt = WeightedTrees([tree], np.ones(1), "regression", 1,
                       normal={"nu": 3.0, "lam": 1.0, "mu_bar": 0.0, "a": 1.0})
    avg = wt.partial_dependence(np.zeros((3, 1)), 0, [1.0, np.nan, 3.0])["average"][0]
    assert avg[0] == avg[1] != avg[2]


@pytest.mark.parametrize("missing", [False, True])
def test_partial_dependence_on_a_categorical_feature_routes_each_level(missing):
    """The estimator's curve over a categorical feature: its grid is the levels of X by
    name, and it equals the posterior-weighted mean over the trees of each tree's
    predictions with every row set to the level (Tree.predict_proba, the routing the
    predictions use), with the band the weighted quantiles of those curves. The data
    make the levels differ, so a flat curve (the old reading of thresholds, NaN at a
    subset split) fails."""
    X, y = _occupations(missing=missing)
    est = BayesianTreeClassifier(n_iter=400, n_chains=1, tempering=1, random_state=1,
                                 missing="split" if missing else "error").fit(X, y)
    assert any(n.levels is not None for t, _ in est.trees_ for n in t.nodes()
               if isinstance(n, Split))
    pdp = est.partial_dependence(X, "occupation", coverage=0.8)
    assert list(pdp.grid_values[0]) == ["clerk", "farmer", "nurse", "pilot"]
    Xc = est._check_X(X)
    curves = []
    for tree, _ in est.trees_:
        c = []
        for code in range(4):
            Xv = Xc.copy()
            Xv[:, 0] = code
            c.append(tree.predict_proba(Xv).mean(axis=0))
        curves.append(np.array(c).T)
    curves = np.array(curves)
    w = np.array([w for _, w in est.trees_])
    assert np.allclose(pdp.average, np.tensordot(w, curves, 1))
    for key, q in (("lower", 0.1), ("upper", 0.9)):
        assert np.allclose(getattr(pdp, key), weighted_quantile(curves, w, q)), key
    yes = pdp.average[1]
    assert min(yes[2], yes[3]) - max(yes[0], yes[1]) > 0.3     # nurses and pilots: yes
    # a level X lacks is not on the grid
    some = X[X["occupation"].isin(["farmer", "pilot"])]
    assert list(est.partial_dependence(some, 0).grid_values[0]) == ["farmer", "pilot"]
    if missing:                          # missing values are not a level
        with pytest.raises(ValueError, match="no level of feature 'occupation'"):
            est.partial_dependence(X[X["occupation"].isna()], "occupation")
