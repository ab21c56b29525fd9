"""The estimators with categorical columns (pandas categoricals and strings) and missing
values: the same chains as `slpy run` on the same CSV, new levels in predict, saving,
and one-line errors; and the command line's categorical options."""
from pathlib import Path

import numpy as np
import pandas as pd
import pytest
from click.testing import CliRunner

from slpy.cli import main
from slpy.estimator import BayesianTreeClassifier, BayesianTreeRegressor, load
from slpy.trees.term import canonical

ROOT = Path(__file__).resolve().parents[2]


@pytest.fixture(scope="module")
def frame(tmp_path_factory):
    """Iris' species as a predictor of a long sepal (a response made for the tests), a
    petal width missing in every ninth row, and the same as a CSV file."""
    d = pd.read_csv(ROOT / "examples" / "data" / "iris.csv")
    width = d["petal_width"].where(np.arange(len(d)) % 9 != 4)
    df = pd.DataFrame({"species": d["class"], "petal_width": width,
                       "class": np.where(d["sepal_length"] > 5.8, "long", "short")})
    path = tmp_path_factory.mktemp("cat") / "iris_sepal.csv"
    df.to_csv(path, index=False)
    return df, path


def cli(*args):
    return CliRunner().invoke(main, [str(a) for a in args])


def one_line_error(r):
    assert r.exit_code == 2 and "Traceback" not in r.output
    lines = r.stderr.strip().splitlines()
    assert len(lines) == 1, r.stderr
    return lines[0]


def test_categoricals_and_strings_fit_alike(frame):
    df, _ = frame
    X, y = df[["species", "petal_width"]], df["class"]
    kw = dict(n_iter=400, random_state=3, missing="split")
    a = BayesianTreeClassifier(**kw).fit(X, y)                         # strings (object)
    b = BayesianTreeClassifier(**kw).fit(X.astype({"species": "category"}), y)
    c = BayesianTreeClassifier(categorical_features=["species"], **kw).fit(X, y)
    assert a.feature_levels_ == [["setosa", "versicolor", "virginica"], None]
    for est in (b, c):
        assert est.feature_levels_ == a.feature_levels_
        assert [canonical(t.to_term()) for t, _ in est.trees_] == \
            [canonical(t.to_term()) for t, _ in a.trees_]
    assert any("in([" in canonical(t.to_term()) for t, _ in a.trees_)
    np.testing.assert_allclose(a.predict_proba(X), b.predict_proba(X))


def test_same_chains_as_slpy_run_on_the_csv(frame, tmp_path):
    df, path = frame
    out = tmp_path / "run"
    r = cli("run", ROOT / "priors" / "growtree.slp", "--data", path, "--categorical",
            "species", "--missing", "split", "-n", "500", "--seed", "4", "--burn-in", "0",
            "--chains", 4, "-q", "--out", out)
    assert r.exit_code == 0, r.output
    models = pd.read_csv(out / "models.csv", keep_default_na=False)
    est = BayesianTreeClassifier(n_iter=500, burn_in=0, random_state=4, missing="split")
    est.fit(df[["species", "petal_width"]], df["class"])
    assert [canonical(t.to_term()) for t, _ in est.trees_] == models["model"].tolist()
    # slpy predict on the run: the same numbers as predictions.csv would give
    new = tmp_path / "new.csv"
    new.write_text("species,petal_width\nsetosa,0.2\npurple,1.2\nvirginica,\n")
    r = cli("predict", out, "--data", new, "--missing", "split", "--out", tmp_path / "p.csv")
    assert r.exit_code == 0, r.output
    assert "1 value of a level the training data lack (species 'purple' (1))" in r.output
    got = pd.read_csv(tmp_path / "p.csv")[["p_long", "p_short"]].to_numpy()
    Xn = pd.DataFrame({"species": ["setosa", "purple", "virginica"],
                       "petal_width": [0.2, 1.2, np.nan]})
    np.testing.assert_allclose(got, est.predict_proba(Xn), atol=1e-11)


def test_new_levels_go_to_the_side_with_more_training_rows(frame):
    df, _ = frame
    X, y = df[["species", "petal_width"]], df["class"]
    est = BayesianTreeClassifier(n_iter=300, random_state=1, missing="split").fit(X, y)
    new = pd.DataFrame({"species": ["unknown"] * 3, "petal_width": [0.2, 1.3, np.nan]})
    codes = np.array([[-1.0, 0.2], [-1.0, 1.3], [-1.0, np.nan]])   # -1: a new level
    want = sum(w * tree.predict_proba(codes) for tree, w in est.trees_)
    np.testing.assert_allclose(est.predict_proba(new), want)
    for tree, _ in est.trees_[:30]:
        flat = tree.flat
        counts = tree._flatten()[1].sum(axis=1)          # training rows at each leaf
        rows = counts.copy()
        for i in range(flat.n_nodes - 1, -1, -1):
            if flat.feature[i] >= 0:
                rows[i] = rows[flat.left[i]] + rows[flat.right[i]]
                assert flat.default_left[i] == (rows[flat.left[i]] >= rows[flat.right[i]])


def test_saved_and_loaded_with_levels(frame, tmp_path):
    df, _ = frame
    X, y = df[["species", "petal_width"]], df["class"]
    est = BayesianTreeClassifier(n_iter=300, random_state=2, missing="split").fit(X, y)
    est.save(tmp_path / "m.json")
    back = load(tmp_path / "m.json")
    assert back.feature_levels_ == est.feature_levels_
    np.testing.assert_array_equal(back.predict_proba(X), est.predict_proba(X))
    exact = BayesianTreeClassifier(method="exact", min_leaf=15, bucket=4,
                                   missing="split").fit(X, y)
    exact.save(tmp_path / "e.json")
    again = load(tmp_path / "e.json")
    np.testing.assert_allclose(again.predict_proba(X), exact.predict_proba(X))
    reg = BayesianTreeRegressor(n_iter=300, random_state=0).fit(
        df[["species"]].astype("category"), df["petal_width"].fillna(1.0))
    reg.save(tmp_path / "r.json")
    np.testing.assert_array_equal(load(tmp_path / "r.json").predict(df[["species"]]),
                                  reg.predict(df[["species"]]))


def test_bad_categorical_input_is_a_one_line_value_error(frame):
    df, _ = frame
    X, y = df[["species", "petal_width"]], df["class"]
    cases = [
        (dict(), "missing values"),                                 # NaN, missing='error'
        (dict(missing="split", categorical_features=["colour"]), "'colour'"),
        (dict(missing="split", categorical_features="all"), "categorical_features must"),
        (dict(missing="sometimes"), "missing must be"),
    ]
    for params, message in cases:
        with pytest.raises(ValueError) as e:
            BayesianTreeClassifier(n_iter=20, **params).fit(X, y)
        assert message in str(e.value) and "\n" not in str(e.value)
    with pytest.raises(ValueError, match="could not convert string to float"):
        BayesianTreeClassifier(n_iter=20, categorical_features=None, missing="split") \
            .fit(X, y)


def test_command_line_errors_are_one_line(frame, tmp_path):
    _, path = frame
    prior = ROOT / "priors" / "growtree.slp"
    msg = one_line_error(cli("run", prior, "--data", path, "-n", "10", "--missing",
                             "split", "--out", tmp_path / "a"))
    assert "value 'setosa' is not a finite number" in msg and "--categorical species" in msg
    msg = one_line_error(cli("run", prior, "--data", path, "-n", "10", "--categorical",
                             "shade", "--out", tmp_path / "b"))
    assert "categorical column 'shade' is not in the header" in msg
    msg = one_line_error(cli("exact", prior, "--data", path, "--categorical", "class"))
    assert "cannot be a categorical predictor" in msg
    msg = one_line_error(cli("sample", prior, "--data", path, "--categorical", ","))
    assert "--categorical" in msg
    r = cli("sample", prior, "--data", path, "--categorical", "auto", "--missing", "split",
            "-n", "1", "--seed", "1")
    assert r.exit_code == 0, r.output
