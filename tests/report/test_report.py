"""`slpy report` and `slpy predict` on real runs: three seeds on BCW (paper 002's
cross-seed comparison) and an MCMC run against the exact back end on Kyphosis."""
import csv
import json
import sys
from pathlib import Path

import numpy as np
import pytest
from click.testing import CliRunner

from slpy.cli import main
from slpy.diagnostics import rhat

ROOT = Path(__file__).resolve().parents[2]
PRIOR = str(ROOT / "priors" / "growtree.slp")
BCW = ROOT / "examples" / "data" / "bcw.csv"
KYPHOSIS = ROOT / "examples" / "data" / "kyphosis.csv"


def cli(*args):
    return CliRunner().invoke(main, [str(a) for a in args])


def ok(*args):
    r = cli(*args)
    assert r.exit_code == 0, r.output
    return r


def split_csv(src, d, seed):
    """Write train.csv and test.csv (20% of the rows) into d."""
    rows = list(csv.reader(open(src)))
    body = rows[1:]
    test = set(np.random.default_rng(seed).permutation(len(body))[:round(0.2 * len(body))])
    for name, keep in (("train", lambda i: i not in test), ("test", lambda i: i in test)):
        with open(d / f"{name}.csv", "w", newline="") as f:
            w = csv.writer(f, lineterminator="\n")
            w.writerow(rows[0])
            w.writerows(r for i, r in enumerate(body) if keep(i))
    return d / "train.csv", d / "test.csv"


@pytest.fixture(scope="module")
def bcw(tmp_path_factory):
    """Three runs of GROWTREE on the same BCW training rows, seeds 1-3, and the report."""
    d = tmp_path_factory.mktemp("bcw")
    train, test = split_csv(BCW, d, 2005)
    runs = []
    for seed in (1, 2, 3):
        out = d / f"seed{seed}"
        ok("run", PRIOR, "--data", train, "--test", test, "-n", 1500, "--seed", seed,
           "--chains", 1, "--out", out, "-q")      # one chain a seed: paper 002's design
        runs.append(out)
    r = ok("report", *runs, "--out", d / "report")
    return {"dir": d, "train": train, "test": test, "runs": runs, "report": d / "report",
            "output": r.output}


def read_csv(path):
    with open(path, newline="") as f:
        return list(csv.reader(f))


# -- report --------------------------------------------------------------------------------

def test_report_writes_legible_figures(bcw):
    from matplotlib.image import imread
    rep = bcw["report"]
    pngs = sorted(rep.rglob("*.png"))
    names = {p.name for p in pngs}
    assert {"trace_log_lik.png", "trace_leaves.png", "trace_depth.png", "seed_scatter.png",
            "seed_differences.png"} <= names
    assert len([p for p in pngs if p.parent.name == "trees"]) >= 3
    page = (rep / "report.md").read_text()
    for p in pngs:
        img = imread(p)
        h, w = img.shape[:2]
        assert h >= 200 and w >= 250, p
        gray = img[..., :3].mean(axis=2)
        ink = (gray < 0.9).mean()          # share of pixels that are not white
        assert 0.003 < ink < 0.6, (p, ink)
        assert gray.std() > 0.05, p
        assert str(p.relative_to(rep)) in page, p      # the page embeds every figure
    assert f"report: {rep / 'report.md'}" in bcw["output"]


def test_report_is_deterministic(bcw, tmp_path):
    ok("report", *bcw["runs"], "--out", tmp_path / "again")
    first = {p.relative_to(bcw["report"]): p.read_bytes()
             for p in sorted(bcw["report"].rglob("*")) if p.is_file()}
    again = {p.relative_to(tmp_path / "again"): p.read_bytes()
             for p in sorted((tmp_path / "again").rglob("*")) if p.is_file()}
    assert first == again


def test_report_numbers(bcw):
    rep = json.loads((bcw["report"] / "report.json").read_text())
    # pooled R-hat over the three seeds equals R-hat of the traces read directly
    traces = [read_csv(r / "chain_0" / "trace.csv") for r in bcw["runs"]]
    col = traces[0][0].index("log_lik")
    x = np.array([[float(row[col]) for row in t[1:]] for t in traces])
    assert rep["convergence"]["pooled"]["log_lik"]["rhat"] == pytest.approx(rhat(x), abs=1e-6)
    assert [r["run"] for r in rep["convergence"]["runs"]] == ["seed 1", "seed 2", "seed 3"]
    # class-probability differences from the runs' own predictions.csv
    preds = [np.array([[float(v) for v in row[2:]] for row in read_csv(r / "predictions.csv")[1:]])
             for r in bcw["runs"]]
    pairs = {(a["a"], a["b"]): a for a in rep["agreement"]}
    d = np.abs(preds[0] - preds[2])
    assert pairs[("seed 1", "seed 3")]["mean_abs_diff"] == pytest.approx(d.mean())
    assert pairs[("seed 1", "seed 3")]["max_abs_diff"] == pytest.approx(d.max())
    assert len(pairs) == 3
    # top trees side by side: each run's top tree is there with its models.csv probability
    table = rep["top_trees"]
    assert table["labels"] == ["seed 1", "seed 2", "seed 3"]
    for k, r in enumerate(bcw["runs"]):
        first = read_csv(r / "models.csv")[1]
        row = next(x for x in table["rows"] if x["model"] == first[1])
        assert row["probs"][k] == pytest.approx(float(first[3]))


def test_report_tree_exports(bcw):
    from slpy.trees.model import Tree
    trees = bcw["report"] / "trees"
    top = Tree.from_json((bcw["runs"][0] / "trees" / "top.json").read_text())
    dots = sorted(trees.glob("*.dot"))
    texts = [p.read_text() for p in sorted(trees.glob("*.txt"))]
    assert dots and all(p.read_text().startswith("digraph tree {") for p in dots)
    assert top.export_text() + "\n" in texts
    page = (bcw["report"] / "report.md").read_text()
    assert "most visited (MAP estimate), seed 1" in page


def test_rebuilt_trees_equal_the_runs_own(bcw):
    """A canonical model term rebuilt on the training data is the tree the run saved."""
    from slpy.report.rundir import load_run
    from slpy.report.predict import load_run_data
    from slpy.trees.model import Tree
    run = load_run(bcw["runs"][1])
    data = load_run_data(run)
    for name, model in (("top", run.models[0]["model"]), ("best", run.summary["best_model"])):
        rebuilt = Tree.from_canonical(model, data.rowsets, data.train)
        assert rebuilt.to_json() == run.trees[name].to_json()


# -- predict -------------------------------------------------------------------------------

def test_predict_reproduces_the_runs_predictions(bcw, tmp_path):
    run = bcw["runs"][0]
    r = ok("predict", run, "--data", bcw["test"], "--out", tmp_path / "p.csv")
    assert read_csv(tmp_path / "p.csv") == read_csv(run / "predictions.csv")
    summary = json.loads((run / "summary.json").read_text())
    assert f"acc_max {summary['acc_max']:.4f}" in r.output
    # to standard output, features in another order and no class column
    rows = read_csv(bcw["test"])
    order = list(reversed(range(len(rows[0]) - 1)))
    with open(tmp_path / "shuffled.csv", "w", newline="") as f:
        csv.writer(f, lineterminator="\n").writerows([row[i] for i in order] for row in rows)
    r = ok("predict", run, "--data", tmp_path / "shuffled.csv")
    lines = list(csv.reader(r.stdout.splitlines()))
    assert lines[0] == ["row", "p_benign", "p_malignant"]
    assert [x[0:1] + x[2:] for x in read_csv(run / "predictions.csv")][1:] == lines[1:]


def test_bucketed_run_predicts_new_rows_through_the_same_buckets(tmp_path):
    from slpy.data import dataset_hash, load_csv
    from slpy.data.bucket import Bucketer
    train, test = split_csv(ROOT / "examples" / "data" / "iris.csv", tmp_path, 7)
    run = tmp_path / "run"
    ok("run", PRIOR, "--data", train, "--test", test, "--bucket", 4, "-n", 800,
       "--seed", 1, "--out", run, "-q")
    cfg = json.loads((run / "config.json").read_text())
    assert (cfg["bucket"], cfg["bucket_method"]) == (4, "uniform")
    raw = load_csv(train)
    assert cfg["data_hash"] == dataset_hash(Bucketer(4).fit(raw.X).transform_dataset(raw))
    assert cfg["data_hash"] != dataset_hash(raw)
    ok("predict", run, "--data", test, "--out", tmp_path / "p.csv")
    assert read_csv(tmp_path / "p.csv") == read_csv(run / "predictions.csv")


# -- bad input -----------------------------------------------------------------------------

def one_line_error(r, code=1):
    assert r.exit_code == code, r.output
    assert "Traceback" not in r.output
    lines = r.output.strip().splitlines()
    assert len(lines) == 1 and lines[0].startswith("Error: "), r.output
    return lines[0]


def test_bad_input_is_one_line(bcw, tmp_path):
    run = bcw["runs"][0]
    assert "does not exist" in one_line_error(cli("report", tmp_path / "nope"), 2)
    assert "no config.json" in one_line_error(cli("report", tmp_path))
    assert "no config.json" in one_line_error(cli("predict", tmp_path, "--data", bcw["test"]))
    one_line_error(cli("predict", run), 2)                       # --data is required
    # a chain without its trace
    broken = tmp_path / "broken"
    broken.mkdir()
    for f in ("config.json", "summary.json", "models.csv"):
        (broken / f).write_bytes((run / f).read_bytes())
    assert "chain 0 has no trace" in one_line_error(cli("report", broken))
    # rows without the run's features
    assert "no column 'clump_thickness'" in one_line_error(
        cli("predict", run, "--data", KYPHOSIS))
    # training data moved, or changed since the run
    cfg = json.loads((run / "config.json").read_text())
    moved = tmp_path / "moved"
    moved.mkdir()
    for f in ("summary.json", "models.csv"):
        (moved / f).write_bytes((run / f).read_bytes())
    (moved / "chain_0").mkdir()
    for f in ("trace.csv", "models.csv"):
        (moved / "chain_0" / f).write_bytes((run / "chain_0" / f).read_bytes())
    (moved / "config.json").write_text(json.dumps(dict(cfg, data=str(tmp_path / "gone.csv"))))
    assert "is not there" in one_line_error(cli("predict", moved, "--data", bcw["test"]))
    changed = tmp_path / "changed.csv"
    changed.write_text("".join(open(cfg["data"]).readlines()[:-5]))
    (moved / "config.json").write_text(json.dumps(dict(cfg, data=str(changed))))
    assert "not the data the run used" in one_line_error(
        cli("predict", moved, "--data", bcw["test"]))


def test_report_without_matplotlib_is_one_line(bcw, tmp_path, monkeypatch):
    monkeypatch.setitem(sys.modules, "matplotlib", None)
    msg = one_line_error(cli("report", bcw["runs"][0], "--out", tmp_path / "r"))
    assert "matplotlib" in msg and "slpy[plots]" in msg
    assert not (tmp_path / "r").exists()


# -- runs that held out different rows -----------------------------------------------------

def test_report_on_different_holdouts(tmp_path):
    runs = []
    for seed in (1, 2):
        out = tmp_path / f"s{seed}"
        ok("run", PRIOR, "--data", KYPHOSIS, "--holdout", 0.2, "--split-seed", seed,
           "-n", 300, "--seed", seed, "-p", "min_leaf=20", "--out", out, "-q")
        runs.append(out)
    ok("report", *runs, "--out", tmp_path / "rep")
    rep = json.loads((tmp_path / "rep" / "report.json").read_text())
    assert "held out different rows" in rep["prediction_rows"]
    assert rep["agreement"][0]["rows"] == 16
    page = (tmp_path / "rep" / "report.md").read_text()
    assert "trained on different data" in page
