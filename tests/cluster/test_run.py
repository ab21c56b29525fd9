"""`slpy run`, `report` and `predict` with the clustering family on the bundled data
(examples/data/iris_petals.csv), its one-line errors, and (slow) three seeds'
co-clustering agreeing within 0.02."""
import csv
import json
from concurrent.futures import ProcessPoolExecutor
from pathlib import Path

import numpy as np
import pytest
from click.testing import CliRunner

from slpy.cli import main
from slpy.mcmc.run import run

ROOT = Path(__file__).resolve().parents[2]
PRIOR = str(ROOT / "priors" / "crp.slp")
BOUNDED = str(ROOT / "priors" / "crp_bounded.slp")
DATA = str(ROOT / "examples" / "data" / "iris_petals.csv")


def slpy(*args, code=0):
    r = CliRunner().invoke(main, [str(a) for a in args])
    assert r.exit_code == code, r.output
    return r.output


@pytest.fixture(scope="module")
def printed(tmp_path_factory):
    out = tmp_path_factory.mktemp("cluster") / "run"
    text = slpy("run", PRIOR, "--data", DATA, "-n", "2000", "--temper", "1", "--seed", "1",
                "--top", "2", "--out", out)
    return out, text


def test_a_run_prints_the_top_partitions_and_the_co_clustering(printed):
    out, text = printed
    lines = text.splitlines()
    assert lines[0] == f"slpy run: {PRIOR} on {DATA}"
    assert "acceptance by move reassign: 1.000, splitmerge:" in text
    k = next(ln for ln in lines if ln.startswith("number of clusters (posterior): "))
    probs = dict(x.split(": ") for x in k.split(": ", 1)[1].split(", "))
    assert float(probs["3"]) > 0.7
    assert "co-clustering P(rows i and j in one cluster)" in text
    i = next(k for k, ln in enumerate(lines) if ln.startswith("#1: posterior"))
    assert lines[i].endswith(", 3 clusters")
    assert lines[i + 1:i + 5] == ["  A (10 rows): 1-10  [setosa 10]",
                                  "  B (10 rows): 11-20  [versicolor 10]",
                                  "  C (10 rows): 21-30  [virginica 10]",
                                  "  adjusted Rand index with the classes: 1.000"]
    assert any(ln.startswith("#2: posterior") for ln in lines)
    assert f"run directory: {out}" in text


def test_the_run_directory(printed):
    out, _ = printed
    summary = json.loads((out / "summary.json").read_text())
    m = np.array(summary["co_clustering"])
    assert m.shape == (30, 30) and np.allclose(m, m.T) and np.allclose(np.diag(m), 1)
    species = [list(range(1, 11)), list(range(11, 21)), list(range(21, 31))]
    assert json.loads(summary["point_estimate"]) == species
    assert abs(sum(summary["clusters_posterior"].values()) - 1) < 1e-6
    with open(out / "models.csv") as f:
        rows = list(csv.DictReader(f))
    assert list(rows[0]) == ["rank", "model", "count", "prob", "log_lik", "clusters"]
    assert rows[0]["model"].startswith("[[1,2,3,")
    header = (out / "chain_0" / "trace.csv").read_text().splitlines()[0]
    assert header == "iter,model,log_lik,clusters,d,accepted"
    top = json.loads((out / "partitions" / "top.json").read_text())
    assert top["format"] == "slpy-partition/1" and len(top["clusters"]) == 3


def test_report(printed, tmp_path):
    out, _ = printed
    text = slpy("report", out, "--out", tmp_path / "rep")
    assert "report.md" in text
    md = (tmp_path / "rep" / "report.md").read_text()
    assert "Model family: cluster." in md and "## Co-clustering" in md
    assert "![co-clustering, seed 1](co_clustering_1.png)" in md
    assert "| A | 1-10 | 1.000 | 0.000 | 0.000 |" in md
    assert "## Number of clusters" in md and "## Most probable partitions" in md
    assert (tmp_path / "rep" / "co_clustering_1.png").stat().st_size > 1000


def test_holdout_and_predict(tmp_path):
    out = tmp_path / "run"
    slpy("run", PRIOR, "--data", DATA, "-n", "600", "--temper", "1", "--holdout", "0.1",
         "--out", out, "-q")
    with open(out / "predictions.csv") as f:
        rows = list(csv.reader(f))
    assert rows[0] == ["row", "true"] + [f"p_{j}" for j in range(1, 28)] + ["p_new"]
    assert len(rows) == 4
    new = tmp_path / "new.csv"
    new.write_text("petal_width,petal_length\n0.2,1.4\n2.1,5.5\n1.3,4.1\n")
    text = slpy("predict", out, "--data", new)
    lines = [ln for ln in text.splitlines() if ln[:1] in "r0123456789" and "," in ln]
    assert lines[0].startswith("row,p_1,p_2,") and lines[0].endswith(",p_27,p_new")
    p = np.array([[float(x) for x in ln.split(",")[1:]] for ln in lines[1:4]])
    train = json.loads((out / "summary.json").read_text())["point_estimate"]
    blocks = [[int(i) - 1 for i in b] for b in json.loads(train)]
    # each flower with its own species (a cluster of the point estimate)
    best = [max(range(len(blocks)), key=lambda k: row[blocks[k]].mean()) for row in p]
    assert len(set(best)) == 3
    assert all(row[blocks[k]].mean() > 0.9 for row, k in zip(p, best))
    assert (p[:, -1] < 0.05).all()


@pytest.mark.parametrize("args,message", [
    (["-p", "alpha=-1"], "-p alpha=-1: expected a number > 0 (domain number(open(0), inf)"),
    (["--missing", "split"], "a clustering has no model of missing values"),
    (["--bucket", "3"], "--bucket is for trees"),
])
def test_errors_are_one_line(tmp_path, args, message):
    text = slpy("run", PRIOR, "--data", DATA, "-n", "10", "--out", tmp_path / "r", "-q",
                *args, code=2)
    err = [ln for ln in text.splitlines() if ln.startswith("Error")]
    assert len(err) == 1 and message in err[0], text


def test_the_bounded_prior_runs_with_its_links(tmp_path):
    text = slpy("run", BOUNDED, "--data", DATA, "-n", "400", "--temper", "1", "--top", "1",
                "-p", "max_clusters=3", "-p", "must_link=[14-19]", "-p",
                "cannot_link=[11-21]", "--out", tmp_path / "b")
    k = next(ln for ln in text.splitlines() if ln.startswith("number of clusters"))
    assert k == "number of clusters (posterior): 3: 1.000"
    assert ("  B (10 rows): 11-20  [versicolor 10]\n"
            "  C (10 rows): 21-30  [virginica 10]") in text


def test_a_chain_can_start_from_a_partition(tmp_path):
    init = tmp_path / "start.pl"
    init.write_text("partition([" + ",".join(["7"] * 15 + ["3"] * 15) + "]).\n")
    slpy("run", PRIOR, "--data", DATA, "-n", "5", "--temper", "1", "--init", init,
         "--out", tmp_path / "r", "-q")
    first = (tmp_path / "r" / "chain_0" / "trace.csv").read_text().splitlines()[1]
    assert first.split(",")[3] in ("2", "3")


# ---- three seeds agree ----------------------------------------------------------------

def _co_clustering(seed):
    import tempfile
    with tempfile.TemporaryDirectory() as d:
        s = run(dict(prior=PRIOR, data=DATA, iterations=200_000, seed=seed, temper=1,
                     chains=1),
                Path(d) / "r", quiet=True)
    return np.array(s["co_clustering"])


@pytest.mark.slow
def test_three_seeds_agree_on_the_co_clustering():
    # about 20 s a seed, two at a time
    with ProcessPoolExecutor(2) as ex:
        mats = list(ex.map(_co_clustering, (1, 2, 3)))
    diff = max(float(np.abs(a - b).max()) for k, a in enumerate(mats) for b in mats[k + 1:])
    assert diff < 0.02
