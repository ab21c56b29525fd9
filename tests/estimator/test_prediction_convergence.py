"""The chains' agreement on predictions (prediction_convergence: R-hat, bulk and tail
ESS of each row's per-draw prediction, against ArviZ) and the Monte Carlo standard
errors of the trees' weights (trees_mcse_: slpy run's summary's for the same run).
Short chains on Kyphosis keep the file to a few seconds."""
import copy
import json
import warnings

import arviz as az
import numpy as np
import pandas as pd
import pytest

from slpy.estimator import BayesianTreeClassifier, BayesianTreeRegressor
from slpy.estimator.io import from_dict, to_dict
from slpy.mcmc.output import merge_visits
from slpy.mcmc.summary import _model_mcse

from ..conftest import EXAMPLES

FIGURES = ("rhat", "ess_bulk", "ess_tail")


@pytest.fixture(scope="module")
def kyphosis():
    df = pd.read_csv(EXAMPLES / "kyphosis.csv")
    return df.drop(columns="class"), df["class"]


def fit(est, X, y):
    with warnings.catch_warnings():
        warnings.simplefilter("ignore")       # (short chains: a ConvergenceWarning)
        return est.fit(X, y)


@pytest.fixture(scope="module")
def clf(kyphosis):
    return fit(BayesianTreeClassifier(n_iter=300, random_state=0), *kyphosis)


def draws_of(est, X, column):
    """The per-draw predictions [chain, draw, row] built here from trace_ and trees_,
    chains cut to one length."""
    t = est.trace_
    chains = [t["tree"][t["chain"] == i] for i in np.unique(t["chain"])]
    n = min(len(c) for c in chains)
    per_tree = [tree.predict_proba(X)[:, column] for tree, _ in est.trees_]
    return np.array([[per_tree[j] for j in c[:n]] for c in chains])


def with_trace(est, chains):
    """A copy of est whose chains drew the trees `chains` [chain][draw] (indices into
    trees_)."""
    out = copy.copy(est)
    chain = np.concatenate([np.full(len(c), i) for i, c in enumerate(chains)])
    out.trace_ = dict(est.trace_, chain=chain, tree=np.concatenate(chains).astype(np.int64))
    return out


def test_prediction_figures_match_arviz(clf, kyphosis):
    X = kyphosis[0]
    c = clf.prediction_convergence(X)
    assert c["rhat"].shape == (len(X), 2) and (c["chains"], c["draws"]) == (4, 240)
    for k, cls in enumerate(clf.classes_):
        draws = draws_of(clf, X, k)
        # predict_proba is the draws' mean (four chains of equal length: none cut)
        assert np.allclose(draws.mean(axis=(0, 1)), clf.predict_proba(X)[:, k])
        rows = [draws[:, :, i] for i in range(len(X))]
        want = {"rhat": [az.rhat(d) for d in rows],
                "ess_bulk": [az.ess(d, method="bulk") for d in rows],
                "ess_tail": [az.ess(d, method="tail") for d in rows]}
        for s in FIGURES:      # (rounded as convergence_'s: R-hat to 1e-6, ESS to 0.01)
            np.testing.assert_allclose(c[s][:, k], np.asarray(want[s], dtype=float),
                                       atol=1e-6 if s == "rhat" else 0.01)
    assert np.isfinite(c["rhat"]).any()
    worst = c["worst"]["rhat"]
    assert worst["value"] == np.nanmax(c["rhat"]) and worst["class"] in clf.classes_
    assert c["rhat"][worst["row"], list(clf.classes_).index(worst["class"])] == \
        worst["value"]
    assert c["worst"]["ess_bulk"]["value"] == np.nanmin(c["ess_bulk"])
    assert c["rhat_warning"] == sorted(set(np.nonzero(c["rhat"] > 1.01)[0].tolist()))
    # the same fit, the same figures
    again = clf.prediction_convergence(X)
    assert again["verdict"] == c["verdict"]
    for s in FIGURES:
        np.testing.assert_array_equal(again[s], c[s])


def test_chains_that_disagree(clf, kyphosis):
    X = kyphosis[0]
    p = np.array([tree.predict_proba(X)[:, 1] for tree, _ in clf.trees_[:2]])
    row = int(np.argmax(np.abs(p[0] - p[1])))
    assert abs(p[0, row] - p[1, row]) > 0.05
    # chain 0 draws mostly tree 0 and chain 1 mostly tree 1
    rng = np.random.default_rng(0)
    chains = [(rng.random(200) > q).astype(np.int64) for q in (0.2, 0.8, 0.2, 0.8)]
    c = with_trace(clf, chains).prediction_convergence(X.iloc[[row]])
    assert c["rhat"][0, 1] > 1.01 and c["rhat_warning"] == [0]
    assert c["worst"]["rhat"]["value"] == pytest.approx(c["rhat"][0].max())
    assert c["checked"] and not c["converged"]
    assert c["verdict"].startswith("convergence: NOT converged (R-hat of P(")
    # the same draws in every chain: they agree
    mixed = [np.concatenate(chains)[i::4] for i in range(4)]
    c = with_trace(clf, mixed).prediction_convergence(X.iloc[[row]])
    assert c["rhat"][0, 1] < 1.01


def test_draws_alike_and_one_chain(clf, kyphosis):
    X = kyphosis[0].iloc[:5]
    # one tree in every draw: nothing to compare
    c = with_trace(clf, [np.zeros(50, np.int64)] * 4).prediction_convergence(X)
    assert np.isnan(c["rhat"]).all() and c["worst"]["rhat"] is None
    assert (c["ess_bulk"] == 200).all() and c["rhat_warning"] == []
    # one chain: its two halves, as slpy run (a chain that changes tree halfway drifts)
    c = with_trace(clf, [np.repeat([0, 1], 30)]).prediction_convergence(X)
    assert c["checked"] and not c["converged"] and c["chains"] == 1
    assert c["verdict"].startswith("convergence: NOT converged")
    # too few draws cannot be checked
    c = with_trace(clf, [np.arange(3) % 3]).prediction_convergence(X)
    assert not c["checked"] and not c["converged"]
    assert c["verdict"] == "convergence: not checked: too few draws to check"


def test_regressor(kyphosis):
    X, _ = kyphosis
    Xr, y = X[["Number", "Start"]], X["Age"]
    reg = fit(BayesianTreeRegressor(n_iter=200, random_state=0), Xr, y)
    c = reg.prediction_convergence(Xr.iloc[:8])
    assert c["rhat"].shape == (8,) and set(c["worst"]["rhat"]) == {"row", "value"}
    t = reg.trace_
    per_tree = np.array([reg._tree_prediction(tree, reg._check_X(Xr.iloc[:8]))[:, 0]
                         for tree, _ in reg.trees_])
    draws = np.array([per_tree[t["tree"][t["chain"] == i]] for i in range(4)])
    assert np.allclose(draws.mean(axis=(0, 1)), reg.predict(Xr.iloc[:8]))
    for i in range(8):
        assert c["rhat"][i] == pytest.approx(float(az.rhat(draws[:, :, i])), abs=1e-6)
        assert c["ess_tail"][i] == pytest.approx(float(az.ess(draws[:, :, i],
                                                              method="tail")), abs=0.01)
    assert len(reg.trees_mcse_) == len(reg.trees_)


def test_trees_mcse_is_the_run_summary(clf):
    se = clf.trees_mcse_
    assert se.shape == (len(clf.trees_),)
    # the summary's MCSE of each model's posterior probability, from the same chains
    merged = merge_visits(clf.chains_)
    keys = sorted(merged, key=lambda k: (-merged[k]["count"], k))
    assert [merged[k]["count"] / sum(m["count"] for m in merged.values())
            for k in keys] == [w for _, w in clf.trees_]
    assert se.tolist() == _model_mcse(clf.chains_, keys)
    assert (se[:5] > 0).all()
    # recomputed from trace_ after save and load (chains_ is not saved)
    back = from_dict(json.loads(json.dumps(to_dict(clf))))
    assert back.chains_ is None and back.trees_mcse_.tolist() == se.tolist()


def test_trees_mcse_shrinks_with_draws(clf):
    rng = np.random.default_rng(1)
    se = [with_trace(clf, [(rng.random(n) < 0.5).astype(np.int64) for _ in range(4)])
          .trees_mcse_[:2] for n in (100, 1600)]
    # independent draws: about sqrt(0.25 / 400) and sqrt(0.25 / 6400)
    assert ((se[0] > 0.015) & (se[0] < 0.04)).all()
    assert (se[1] < se[0] / 2.5).all()


def test_exact_has_neither(kyphosis):
    X, y = kyphosis
    est = BayesianTreeClassifier(method="exact", min_leaf=10).fit(X.iloc[:30], y.iloc[:30])
    assert est.trees_mcse_ is None and est.prediction_convergence(X) is None
