"""Saving and loading fitted estimators (format slpy-estimator/1) and pickling them."""
import json
import pickle
from pathlib import Path

import numpy as np
import pandas as pd
import pytest

import slpy.estimator
from slpy.estimator import BayesianTreeClassifier, BayesianTreeRegressor, load
from slpy.trees.model import Tree

ROOT = Path(__file__).resolve().parents[2]


@pytest.fixture(scope="module")
def kyphosis():
    df = pd.read_csv(ROOT / "examples" / "data" / "kyphosis.csv")
    return df.drop(columns="class"), df["class"]


def roundtrip(est, tmp_path):
    path = tmp_path / "model.json"
    est.save(path)
    return load(path), json.loads(path.read_text())


def test_classifier_roundtrip(kyphosis, tmp_path):
    X, y = kyphosis
    est = BayesianTreeClassifier(n_iter=200, n_chains=2, min_leaf=8,
                                 random_state=np.random.default_rng(4)).fit(X, y)
    back, d = roundtrip(est, tmp_path)
    assert d["format"] == "slpy-estimator/1" == slpy.estimator.FORMAT
    assert d["estimator"] == "BayesianTreeClassifier"
    assert d["params"]["random_state"] == est.seed_    # the Generator's draw
    assert "param(min_leaf, 5" in d["prior"]["source"]
    assert d["prior"]["params"] == {"min_leaf": 8}
    assert all(t["tree"]["format"] == "slpy-tree/1" for t in d["trees"])
    assert type(back) is BayesianTreeClassifier
    np.testing.assert_array_equal(back.predict_proba(X), est.predict_proba(X))
    np.testing.assert_array_equal(back.predict(X), est.predict(X))
    assert back.classes_.dtype == est.classes_.dtype
    assert back.feature_names_in_.tolist() == est.feature_names_in_.tolist()
    assert back.seed_ == est.seed_ and back.n_features_in_ == 3
    for k, v in est.trace_.items():
        assert back.trace_[k].dtype == v.dtype and np.array_equal(back.trace_[k], v)
    assert [w for _, w in back.trees_] == [w for _, w in est.trees_]
    assert back.map_tree_.export_text() == est.map_tree_.export_text()
    assert back.get_params()["min_leaf"] == 8
    # the saved parameters refit to the same model
    refit = BayesianTreeClassifier(**d["params"]).fit(X, y)
    np.testing.assert_array_equal(refit.predict_proba(X), est.predict_proba(X))


def test_integer_labels_and_arrays(kyphosis, tmp_path):
    X, y = kyphosis
    est = BayesianTreeClassifier(n_iter=100, random_state=0).fit(
        X.to_numpy(), (y == "present").astype(np.int64) * 3)
    back, d = roundtrip(est, tmp_path)
    assert d["feature_names_in"] is None and not hasattr(back, "feature_names_in_")
    assert back.classes_.tolist() == [0, 3] and back.classes_.dtype == np.int64
    np.testing.assert_array_equal(back.predict(X.to_numpy()), est.predict(X.to_numpy()))


def test_regressor_roundtrip(kyphosis, tmp_path):
    X, _ = kyphosis
    Xr, yr = X[["Number", "Start"]], X["Age"].astype(float)
    est = BayesianTreeRegressor(n_iter=200, random_state=0).fit(Xr, yr)
    back, d = roundtrip(est, tmp_path)
    assert d["likelihood"]["name"] == "normal" and "classes" not in d
    assert type(back) is BayesianTreeRegressor
    np.testing.assert_array_equal(back.predict(Xr), est.predict(Xr))
    assert back.score(Xr, yr) == est.score(Xr, yr)
    with pytest.raises(ValueError, match="holds a BayesianTreeRegressor"):
        BayesianTreeClassifier.load(tmp_path / "model.json")
    assert type(BayesianTreeRegressor.load(tmp_path / "model.json")) is BayesianTreeRegressor


def test_exact_roundtrip_and_pickle(kyphosis, tmp_path):
    X, y = kyphosis
    X, y = X.iloc[:40], y.iloc[:40]
    est = BayesianTreeClassifier(method="exact", min_leaf=6, n_trees=5).fit(X, y)
    back, d = roundtrip(est, tmp_path)
    assert d["trace"] is None and len(d["trees"]) == 5
    assert len(d["exact"]["X"]) == 40
    assert back.log_marginal_likelihood_ == est.log_marginal_likelihood_
    np.testing.assert_allclose(back.predict_proba(X), est.predict_proba(X), atol=1e-12)
    unpickled = pickle.loads(pickle.dumps(est))
    assert unpickled._exact_post is None          # rebuilt on first use
    np.testing.assert_allclose(unpickled.predict_proba(X), est.predict_proba(X),
                               atol=1e-12)


def test_bad_files_are_one_line_value_errors(kyphosis, tmp_path):
    X, y = kyphosis
    with pytest.raises(ValueError, match="cannot read"):
        load(tmp_path / "missing.json")
    bad = tmp_path / "bad.json"
    bad.write_text("{not json")
    with pytest.raises(ValueError, match="not an slpy estimator file"):
        load(bad)
    bad.write_text(json.dumps(Tree.from_dict(
        {"format": "slpy-tree/1", "task": "classification", "features": ["a"],
         "classes": ["x", "y"], "tree": {"leaf": [1, 2]}}).to_dict()))
    with pytest.raises(ValueError, match=r"not an slpy estimator file \(format"):
        load(bad)
    est = BayesianTreeClassifier(n_iter=50, random_state=0).fit(X, y)
    est.save(bad)
    d = json.loads(bad.read_text())
    del d["trees"]
    bad.write_text(json.dumps(d))
    with pytest.raises(ValueError, match="malformed slpy-estimator/1 file") as e:
        load(bad)
    assert "\n" not in str(e.value)
    from sklearn.exceptions import NotFittedError
    with pytest.raises(NotFittedError):
        BayesianTreeClassifier().save(tmp_path / "x.json")
