"""The estimators against closed forms (brute-force posteriors), against `slpy run`,
and their scikit-learn plumbing: seeds, chains, data frames, pipelines, bad input."""
import subprocess
import sys
import warnings
from pathlib import Path

import numpy as np
import pandas as pd
import pytest
from click.testing import CliRunner
from sklearn.model_selection import GridSearchCV, cross_val_score
from sklearn.pipeline import Pipeline
from sklearn.preprocessing import StandardScaler

from slpy.cli import main
from slpy.data import RowSets, from_arrays, load_csv
from slpy.estimator import BayesianTreeClassifier, BayesianTreeRegressor, ConvergenceWarning
from slpy.trees import make_likelihood
from slpy.trees.term import canonical

from ..mcmc.exact_growtree import enumerate_trees

ROOT = Path(__file__).resolve().parents[2]
KYPHOSIS = ROOT / "examples" / "data" / "kyphosis.csv"


@pytest.fixture(scope="module")
def kyphosis():
    df = pd.read_csv(KYPHOSIS)
    return df.drop(columns="class"), df["class"]


@pytest.fixture(scope="module")
def small():
    """20 rows of kyphosis: few enough trees (min_leaf 5) to enumerate them all."""
    return load_csv(KYPHOSIS).take(np.arange(20))


def brute_force_predictive(ds, leaf_value):
    """Posterior predictive of each training row by enumerating every GROWTREE tree:
    sum over trees of P(T | X, y) times leaf_value(rows of the row's leaf)."""
    rs = RowSets(ds)
    lik = make_likelihood("normal" if ds.task == "regression" else "dirichlet", ds)
    trees = enumerate_trees(rs, ds.feature_names, 0.95, 1.0, 5)
    logw = np.array([np.log(p) + lik.log_likelihood(rs, leaves) for _, p, leaves in trees])
    w = np.exp(logw - logw.max())
    w /= w.sum()
    out = None
    for wt, (_, _, leaves) in zip(w, trees):
        for leaf in leaves:
            rows = rs.rows(leaf)
            v = leaf_value(rows, lik)
            if out is None:
                out = np.zeros((ds.n_rows,) + np.shape(v))
            out[rows] += wt * v
    return out, np.log(np.exp(logw - logw.max()).sum()) + logw.max()


# ---- closed forms ------------------------------------------------------------------------

def test_classifier_matches_the_brute_force_posterior(small):
    y = np.array(small.classes)[small.y]

    def dirichlet_mean(rows, lik):
        c = np.bincount(small.y[rows], minlength=2)
        return (c + 1.0) / (c.sum() + 2.0)
    exact_p, log_evidence = brute_force_predictive(small, dirichlet_mean)
    ex = BayesianTreeClassifier(method="exact", min_leaf=5).fit(small.X, y)
    np.testing.assert_allclose(ex.predict_proba(small.X), exact_p, atol=1e-12)
    assert ex.log_marginal_likelihood_ == pytest.approx(log_evidence, abs=1e-9)
    assert ex.trace_ is None and ex.map_tree_.to_dict() == ex.trees_[0][0].to_dict()
    weights = [w for _, w in ex.trees_]
    assert weights == sorted(weights, reverse=True) and 0 < sum(weights) <= 1
    mc = BayesianTreeClassifier(n_iter=2000, min_leaf=5, random_state=0).fit(small.X, y)
    assert np.abs(mc.predict_proba(small.X) - exact_p).max() < 0.04


def test_regressor_matches_the_brute_force_posterior(small):
    ds = from_arrays(small.X[:, :2], small.X[:, 2].astype(float), ["Age", "Number"],
                     task="regression")

    def leaf_mean(rows, lik):
        return (ds.y[rows].sum() + lik.a * lik.mu_bar) / (len(rows) + lik.a)
    exact_mu, _ = brute_force_predictive(ds, leaf_mean)
    mc = BayesianTreeRegressor(n_iter=2000, min_leaf=5, random_state=0).fit(ds.X, ds.y)
    assert np.abs(mc.predict(ds.X) - exact_mu).max() < 0.1 * ds.y.std()


def test_never_splitting_regressor_predicts_the_posterior_mean():
    rng = np.random.default_rng(3)
    X, y = rng.normal(size=(30, 2)), rng.normal(5, 2, size=30)
    r = BayesianTreeRegressor(alpha=0.0, n_iter=20, random_state=0).fit(X, y)
    assert len(r.trees_) == 1 and r.map_tree_.n_leaves == 1
    # one leaf: (sum y + a mu_bar) / (n + a) with mu_bar = mean(y) is mean(y)
    np.testing.assert_allclose(r.predict(X[:3]), np.full(3, y.mean()))


# ---- the same chains as slpy run -------------------------------------------------------

def test_same_chains_as_slpy_run(kyphosis, tmp_path):
    out = tmp_path / "run"
    r = CliRunner().invoke(main, ["run", str(ROOT / "priors" / "growtree.slp"), "--data",
                                  str(KYPHOSIS), "-n", "600", "--seed", "7", "--burn-in",
                                  "0", "--chains", "4", "-q", "--out", str(out)])
    assert r.exit_code == 0, r.output
    models = pd.read_csv(out / "models.csv")
    X, y = kyphosis
    est = BayesianTreeClassifier(n_iter=600, burn_in=0, random_state=7).fit(X, y)
    got = [(canonical(t.to_term()), w) for t, w in est.trees_]
    assert [m for m, _ in got] == models["model"].tolist()
    np.testing.assert_allclose([w for _, w in got], models["prob"], atol=1e-11)
    assert est.n_chains == 4          # the estimator's default
    for i in range(4):
        trace = pd.read_csv(out / f"chain_{i}" / "trace.csv")
        mine = est.trace_["chain"] == i
        np.testing.assert_allclose(est.trace_["log_lik"][mine], trace["log_lik"])
        assert est.trace_["iter"][mine].tolist() == trace["iter"].tolist()
    assert est.seed_ == 7
    # and the same convergence verdict
    summary = (out / "summary.txt").read_text()
    assert est.convergence_["verdict"] in summary.splitlines()


def test_trace_and_weights_agree(kyphosis):
    X, y = kyphosis
    est = BayesianTreeClassifier(n_iter=300, burn_in=0.5, thin=2, n_chains=2,
                                 tempering=2, random_state=1).fit(X, y)
    t = est.trace_
    assert len(t["iter"]) == 2 * 75 and t["iter"].min() == 150
    assert set(t) == {"chain", "iter", "tree", "log_lik", "leaves", "depth", "d",
                      "accepted"}
    w = np.bincount(t["tree"], minlength=len(est.trees_)) / len(t["tree"])
    np.testing.assert_allclose(w, [x for _, x in est.trees_])
    assert est.map_tree_ is est.trees_[0][0]
    assert [tr.n_leaves for tr, _ in est.trees_[:1]] == [t["leaves"][t["tree"] == 0][0]]


# ---- randomness --------------------------------------------------------------------------

def test_random_state(kyphosis):
    X, y = kyphosis

    def fit(rs):
        e = BayesianTreeClassifier(n_iter=100, random_state=rs).fit(X, y)
        return e.predict_proba(X)
    assert np.array_equal(fit(3), fit(3))
    assert not np.array_equal(fit(3), fit(4))
    assert np.array_equal(fit(np.random.RandomState(5)), fit(np.random.RandomState(5)))
    assert np.array_equal(fit(np.random.default_rng(5)), fit(np.random.default_rng(5)))
    e = BayesianTreeClassifier(n_iter=100, random_state=np.random.default_rng(5)).fit(X, y)
    assert np.array_equal(e.predict_proba(X), fit(e.seed_))   # seed_ reproduces it


def test_jobs_do_not_change_the_chains(kyphosis):
    X, y = kyphosis
    a = BayesianTreeClassifier(n_iter=60, n_chains=2, n_jobs=1, random_state=2).fit(X, y)
    b = BayesianTreeClassifier(n_iter=60, n_chains=2, n_jobs=2, random_state=2).fit(X, y)
    assert [w for _, w in a.trees_] == [w for _, w in b.trees_]
    for k in a.trace_:
        assert np.array_equal(a.trace_[k], b.trace_[k])
    assert np.array_equal(a.predict_proba(X), b.predict_proba(X))


# ---- data ---------------------------------------------------------------------------------

def test_data_frames_and_labels(kyphosis):
    X, y = kyphosis
    est = BayesianTreeClassifier(n_iter=200, random_state=0).fit(X, y)
    assert est.feature_names_in_.tolist() == ["Age", "Number", "Start"]
    assert est.n_features_in_ == 3 and est.classes_.tolist() == ["absent", "present"]
    assert set(est.map_tree_.feature_names) == {"Age", "Number", "Start"}
    assert set(est.predict(X)) <= {"absent", "present"}
    with pytest.warns(UserWarning, match="does not have valid feature names"):
        np.testing.assert_array_equal(est.predict_proba(X),
                                      est.predict_proba(X.to_numpy()))
    with pytest.raises(ValueError, match="feature names should match"):
        est.predict_proba(X.rename(columns={"Age": "age"}))
    p = est.predict_proba(X)
    assert p.shape == (len(X), 2) and np.allclose(p.sum(axis=1), 1)
    # columns follow classes_: integer labels in another order give the same columns
    codes = est.classes_.tolist()
    est2 = BayesianTreeClassifier(n_iter=200, random_state=0).fit(
        X.to_numpy(), y.map({"absent": 7, "present": -1}))
    assert est2.classes_.tolist() == [-1, 7]
    np.testing.assert_allclose(est2.predict_proba(X.to_numpy())[:, ::-1], p)
    assert codes == ["absent", "present"]


def test_pipeline_grid_search_and_cross_validation(kyphosis):
    X, y = kyphosis
    pipe = Pipeline([("scale", StandardScaler()),
                     ("trees", BayesianTreeClassifier(n_iter=150, random_state=0))])
    scores = cross_val_score(pipe, X, y, cv=3)
    assert scores.shape == (3,) and scores.mean() > 0.7
    grid = GridSearchCV(pipe, {"trees__alpha": [0.5, 0.95], "trees__min_leaf": [5, 10]},
                        cv=2).fit(X, y)
    assert grid.best_params_["trees__min_leaf"] in (5, 10)
    assert grid.best_estimator_.named_steps["trees"].alpha in (0.5, 0.95)
    assert grid.score(X, y) > 0.7


def test_prior_parameters_reach_the_prior(kyphosis):
    X, y = kyphosis
    leaf = BayesianTreeClassifier(alpha=0.0, n_iter=50, random_state=0).fit(X, y)
    assert [t.n_leaves for t, _ in leaf.trees_] == [1]
    big = BayesianTreeClassifier(min_leaf=30, n_iter=100, random_state=0).fit(X, y)
    assert all(min(n.counts.sum() for n in t.nodes() if not hasattr(n, "feature")) >= 30
               for t, _ in big.trees_)
    phi = BayesianTreeClassifier(prior="phi", prior_params={"log_phi": 1, "min_leaf": 10},
                                 n_iter=100, random_state=0).fit(X, y)
    assert phi.score(X, y) > 0.7
    path = BayesianTreeClassifier(prior=ROOT / "priors" / "depth.slp", n_iter=50,
                                  random_state=0).fit(X, y)
    assert path._fit_info["prior_file"] == "depth.slp"


def test_bucketing_keeps_raw_rows_routed_alike():
    from sklearn.datasets import load_iris
    from slpy.data.bucket import Bucketer
    X, y = load_iris(return_X_y=True)
    est = BayesianTreeClassifier(method="exact", bucket=5, random_state=0).fit(X, y)
    Xb = Bucketer(5).fit(X).transform(X)
    np.testing.assert_allclose(est.predict_proba(X), est.predict_proba(Xb))
    assert est.score(X, y) > 0.9


# ---- bad input: one-line ValueErrors ----------------------------------------------------

BAD = [
    (dict(alpha=2), "alpha must be None or a number in [0, 1]"),
    (dict(min_leaf=0), "min_leaf must be None or an integer >= 1"),
    (dict(n_iter=0), "n_iter must be an integer >= 1"),
    (dict(n_iter=100, burn_in=100), "burn_in (100) leaves no kept iterations"),
    (dict(burn_in=1.0), "burn_in must be an integer >= 0"),
    (dict(proposal="zz"), "unknown proposal 'zz'"),
    (dict(method="gibbs"), "method must be 'mcmc' or 'exact'"),
    (dict(mcmc_path="gpu"), "mcmc_path must be 'auto', 'compiled' or 'engine'"),
    (dict(prior="phi", mcmc_path="compiled"), "--path compiled: the prior is not GROWTREE"),
    (dict(prior="nosuch"), "unknown prior 'nosuch': give a path to an .slp file or one of"),
    (dict(prior="no/such.slp"), "prior file 'no/such.slp' does not exist"),
    (dict(prior_params={"nosuch": 1}), "declares no parameter 'nosuch'"),
    (dict(alpha=0.5, prior_params={"alpha": 0.4}), "alpha is given both"),
    (dict(random_state="x"), "random_state must be None, an integer >= 0"),
    (dict(n_jobs=0), "n_jobs must be None or a non-zero integer"),
    (dict(init="cart"), "init must be 'prior' or 'greedy'"),
    (dict(prior="phi", prior_params={"max_depth": "[x"}), "prior parameter max_depth='[x'"),
    (dict(prior="phi", method="exact", prior_params={"max_depth": "[x"}),
     "prior parameter max_depth='[x'"),
    (dict(prior="phi", method="exact", prior_params={"nosuch": 1}),
     "declares no parameter 'nosuch'"),
]


@pytest.mark.parametrize("params, message", BAD)
def test_bad_parameters_are_one_line_value_errors(kyphosis, params, message):
    X, y = kyphosis
    with pytest.raises(ValueError) as e:
        BayesianTreeClassifier(**dict(dict(n_iter=20), **params)).fit(X, y)
    assert message in str(e.value) and "\n" not in str(e.value)


def test_bad_data_are_one_line_value_errors(kyphosis):
    X, y = kyphosis
    with pytest.raises(ValueError, match="at least two classes in y, got 1 class"):
        BayesianTreeClassifier(n_iter=20).fit(X, np.ones(len(X)))
    with pytest.raises(ValueError, match="y is constant"):
        BayesianTreeRegressor(n_iter=20).fit(X, np.ones(len(X)))
    with pytest.raises(ValueError, match="method must be 'mcmc'"):
        BayesianTreeRegressor(method="exact").fit(X, X["Age"])
    with pytest.raises(ValueError, match="init must be 'prior'"):
        BayesianTreeRegressor(init="greedy").fit(X, X["Age"])
    with pytest.raises(ValueError, match="more than 100 row sets"):
        from slpy.estimator import fitting
        old, fitting.MAX_ROW_SETS = fitting.MAX_ROW_SETS, 100
        try:
            BayesianTreeClassifier(method="exact").fit(X, y)
        finally:
            fitting.MAX_ROW_SETS = old


def test_import_slpy_does_not_need_scikit_learn():
    code = ("import sys; sys.modules['sklearn'] = None\n"
            "import slpy\n"
            "try:\n    slpy.BayesianTreeClassifier\n"
            "except ImportError as e:\n    print('ImportError:', e)\n")
    r = subprocess.run([sys.executable, "-c", code], capture_output=True, text=True,
                       cwd=ROOT)
    assert r.returncode == 0, r.stderr
    assert "pip install 'slpy[sklearn]'" in r.stdout


def test_fit_warns_of_columns_no_model_can_learn_from():
    """The data warnings of the CLI (issue 26, item 2), as warnings of fit."""
    rng = np.random.default_rng(0)
    X = np.c_[rng.normal(size=40), np.arange(40), np.full(40, 3.0)]
    y = (X[:, 0] > 0).astype(int)
    with pytest.warns(UserWarning) as record:
        BayesianTreeClassifier(n_iter=20, n_chains=1, random_state=0).fit(X, y)
    got = [str(w.message) for w in record
           if not isinstance(w.message, ConvergenceWarning)]    # 20 draws: not converged
    assert got == [
        "BayesianTreeClassifier.fit: column 'x1' has the whole numbers 0 to 39, one in "
        "each row (an identifier?): no model can learn from it; leave it out of the data",
        "BayesianTreeClassifier.fit: column 'x2' has the same value in every row: it "
        "tells no rows apart"]
    assert all(w.filename == __file__ for w in record)
    with warnings.catch_warnings():
        warnings.simplefilter("error")
        warnings.simplefilter("ignore", ConvergenceWarning)
        BayesianTreeClassifier(n_iter=20, n_chains=1, random_state=0).fit(X[:, :1], y)
