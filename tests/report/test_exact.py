"""The exact back end in `slpy predict` and `slpy report --exact`: Kyphosis under
GROWTREE with min_leaf 20 (a small tree space the PCFG back end solves in a second)."""
import csv
import json

import numpy as np
import pytest
from click.testing import CliRunner

from slpy.cli import main
from .test_report import KYPHOSIS, PRIOR, ok, read_csv, split_csv


@pytest.fixture(scope="module")
def ky(tmp_path_factory):
    d = tmp_path_factory.mktemp("kyphosis")
    train, test = split_csv(KYPHOSIS, d, 7)
    common = ["-p", "min_leaf=20", "--data", train, "--test", test]
    ok("run", PRIOR, *common, "--chains", 2, "-n", 4000, "--seed", 3, "--out", d / "mcmc",
       "-q")
    ok("exact", PRIOR, *common, "--top", 5, "--out", d / "exact")
    return {"dir": d, "train": train, "test": test, "mcmc": d / "mcmc", "exact": d / "exact"}


def columns(rows, prefix):
    idx = [i for i, h in enumerate(rows[0]) if h.startswith(prefix)]
    return np.array([[float(r[i]) for i in idx] for r in rows[1:]])


def test_predict_exact_run_reproduces_its_predictions(ky, tmp_path):
    ok("predict", ky["exact"], "--data", ky["test"], "--out", tmp_path / "e.csv")
    got = read_csv(tmp_path / "e.csv")
    assert got[0][:2] == ["row", "true"] and got[0][2].startswith("exact_p_")
    want = read_csv(ky["exact"] / "predictions_exact.csv")
    assert np.allclose(columns(got, "exact_p_"), columns(want, "p_"), atol=1e-12)


def test_predict_mcmc_with_exact(ky, tmp_path):
    r = ok("predict", ky["mcmc"], "--data", ky["test"], "--exact", "--out", tmp_path / "m.csv")
    got = read_csv(tmp_path / "m.csv")
    mcmc, exact = columns(got, "p_"), columns(got, "exact_p_")
    assert np.array_equal(mcmc, columns(read_csv(ky["mcmc"] / "predictions.csv"), "p_"))
    # the same posterior as `slpy exact` on the same data
    want = columns(read_csv(ky["exact"] / "predictions_exact.csv"), "p_")
    assert np.allclose(exact, want, atol=1e-12)
    # and 8000 MCMC draws estimate it closely
    assert np.abs(mcmc - exact).max() < 0.05
    assert "exact: acc_max" in r.output and "MCMC: acc_max" in r.output


def test_report_exact(ky, tmp_path):
    ok("report", ky["mcmc"], ky["exact"], "--exact", "--out", tmp_path / "rep")
    rep = json.loads((tmp_path / "rep" / "report.json").read_text())
    (dist,) = rep["exact"]
    assert 0.9 < dist["exact_mass_visited"] <= 1 + 1e-9
    assert 0 <= dist["total_variation"] < 0.2
    table = rep["top_trees"]
    # one run's chains side by side, then the run's own estimate (its chains pooled)
    assert table["labels"] == ["exact", "chain 0", "chain 1", "seed 3, chains pooled",
                               "exact posterior"]
    # the exact run's listed probabilities and the recomputed exact column agree
    for row in table["rows"]:
        if row["probs"][0] is not None:
            assert row["probs"][-1] == pytest.approx(row["probs"][0], rel=1e-9)
    labels = {(a["a"], a["b"]) for a in rep["agreement"]}
    assert ("chain 0", "exact posterior") in labels and ("exact", "chain 1") in labels
    exact_pairs = [a for a in rep["agreement"] if "exact" in a["a"] + a["b"]]
    assert all(a["max_abs_diff"] < 0.05 for a in exact_pairs)


def test_exact_not_applicable_is_one_line(ky, tmp_path):
    # a regression (normal likelihood): no exact back end, but MCMC means
    rows = read_csv(KYPHOSIS)
    for name, part in (("train", rows[:60]), ("test", rows[:1] + rows[60:])):
        with open(tmp_path / f"{name}.csv", "w", newline="") as f:
            csv.writer(f, lineterminator="\n").writerows(r[:3] for r in part)
    out = tmp_path / "reg"
    ok("run", PRIOR, "--data", tmp_path / "train.csv", "--class-col", "Start",
       "--likelihood", "normal", "-n", 200, "--out", out, "-q", "-p", "min_leaf=10")
    r = CliRunner().invoke(main, ["predict", str(out), "--data", str(tmp_path / "test.csv"),
                                  "--exact"])
    assert r.exit_code == 1 and "Traceback" not in r.output
    assert r.output.count("\n") == 1 and "exact back end" in r.output
    r = CliRunner().invoke(main, ["predict", str(out), "--data", str(tmp_path / "test.csv")])
    assert r.exit_code == 0, r.output
    lines = list(csv.reader(r.stdout.splitlines()))
    assert lines[0] == ["row", "true", "mean"] and len(lines) == 1 + len(rows) - 60
    means = np.array([float(x[2]) for x in lines[1:]])
    y = np.array([float(r[2]) for r in rows[1:60]])
    assert (means >= y.min()).all() and (means <= y.max()).all()
