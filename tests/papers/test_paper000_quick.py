"""Paper 000 (Angelopoulos & Cussens, IJCAI 2005): the reproduction script end to end
in its --quick mode (tiny chains on the bundled data, so it runs on a fresh clone
without ../shared), and the properties its outputs must have."""
import csv
import json
import subprocess
import sys
from pathlib import Path

import numpy as np
import pytest

from benchmarks.paper000_data import true_tree_prob
from benchmarks.paper000_runs import EXPERIMENTS

ROOT = Path(__file__).resolve().parents[2]
SCRIPT = ROOT / "benchmarks" / "paper000.py"


@pytest.fixture(scope="module")
def quick(tmp_path_factory):
    out = tmp_path_factory.mktemp("paper000_quick")
    r = subprocess.run([sys.executable, str(SCRIPT), "--quick", "--out", str(out)],
                       capture_output=True, text=True, timeout=300, cwd=ROOT)
    assert r.returncode == 0, r.stdout[-2000:] + r.stderr[-4000:]
    res = json.loads((out / "results.json").read_text())
    return out, r.stdout, res


def models(rd: Path):
    with open(rd / "models.csv", newline="") as f:
        return list(csv.DictReader(f))


def test_report_and_figures(quick):
    out, stdout, _ = quick
    assert "experiments in the report: " + ", ".join(EXPERIMENTS) in stdout
    md = (out / "report" / "paper000.md").read_text()
    assert "Quick mode" in md
    for heading in ("Section 5.1", "Fig 5", "Fig 6", "Fig 7", "Fig 8", "box constraints",
                    "Every run"):
        assert heading in md
    for paper_number in ("-86, 5 leaves", "-36, 3 leaves", "-343", "-97, size 7",
                         "74.8%", "78.6%"):
        assert paper_number in md
    # the figures the report links exist and are PNG images
    figs = out / "report" / "figures"
    for name in ("fig5_seed_differences", "fig6_q07_vs_quc", "fig7_edittree_vs_growtree",
                 "fig8_high_likelihood_start", "boxes_accuracy"):
        png = figs / f"paper000_{name}.png"
        assert png.read_bytes()[:8] == b"\x89PNG\r\n\x1a\n"
        assert png.stat().st_size > 10_000
        assert f"paper000_{name}.png" in md


def test_greedy_trees_are_scored_with_the_marginal_likelihood(quick):
    _, _, res = quick
    g = res["greedy"]
    # rpart's documented kyphosis tree: leaves (absent/present) 11/8, 29/0, 12/0,
    # 3/4, 12/2 under Dirichlet(1, 1): sum of log(a! b! / (a + b + 1)!)
    from math import lgamma
    expect = sum(lgamma(a + 1) + lgamma(b + 1) - lgamma(a + b + 2)
                 for a, b in ((8, 11), (29, 0), (12, 0), (3, 4), (12, 2)))
    assert g["kyph_rpart_doc"]["leaves"] == 5
    assert g["kyph_rpart_doc"]["log_lik"] == pytest.approx(expect, abs=1e-9)
    assert g["bcw_ml7"]["leaves"] == 7
    assert g["bcw_ml7"]["log_lik"] == pytest.approx(-94.9705, abs=1e-3)
    assert g["pima_ml5"]["log_lik"] == pytest.approx(-343.6523, abs=1e-3)


def test_best_trees_are_the_best_visited(quick):
    out, _, res = quick
    for name, b in res["best"].items():
        rows = models(out / "runs" / name)
        lls = [float(r["log_lik"]) for r in rows]
        assert b["log_lik"] == pytest.approx(max(lls))
        for k, s in b["small"].items():
            assert s["leaves"] <= int(k) and s["log_lik"] <= b["log_lik"] + 1e-9
        # the trace's log-likelihoods are those of the trees it visited
        trace = np.loadtxt(out / "runs" / name / "chain_0" / "trace.csv", delimiter=",",
                           skiprows=1, usecols=(2,))
        assert trace.max() == pytest.approx(b["log_lik"])


def test_fig5_differences(quick):
    _, _, res = quick
    f = res["fig5"]
    assert f["n_test"] == 256 and f["n_train"] == 512          # 2/3 of Pima's 768 rows
    a, b, d = (np.array(f[k]) for k in ("p_a", "p_b", "diff"))
    assert len(d) == 256 and ((a >= 0) & (a <= 1) & (b >= 0) & (b <= 1)).all()
    assert np.allclose(d, a - b)
    assert f["stats"]["max_abs"] <= 1 and f["bandwidth"] > 0


def test_fig8_starts_from_the_greedy_tree(quick):
    out, _, res = quick
    assert res["fig8"]["init_log_lik"] == pytest.approx(-343.6523, abs=1e-3)
    greedy = json.loads((out / "data" / "greedy_trees.json").read_text())["pima_ml5"]
    for name in ("pima_init_b08_s1", "pima_init_b1_s1"):
        cfg = json.loads((out / "runs" / name / "config.json").read_text())
        assert Path(cfg["init"]).read_text().strip() == greedy + "."
        # the first iterations stay near the initial tree: any move from a
        # high-likelihood 12-leaf tree is a small change
        trace = np.loadtxt(out / "runs" / name / "chain_0" / "trace.csv", delimiter=",",
                           skiprows=1, usecols=(2,))
        assert trace[0] > -360


def test_box_runs_never_split_a_box_and_data_follow_the_true_tree(quick):
    out, _, res = quick
    from slpy.data import load_csv
    from slpy.trees.term import parse
    train = load_csv(out / "data" / "synth_train.csv")
    X, names = train.X, train.feature_names
    g, age, mass = (X[:, names.index(c)] for c in ("glucose", "age", "mass"))
    boxes = {"box28": (g <= 127) & (age <= 28), "box26": (g >= 128) & (mass <= 29.8)}
    assert all(m.sum() >= 20 for m in boxes.values())
    for seed in (1, 2, 3):
        for row in models(out / "runs" / f"synth_box_s{seed}"):
            leaf = parse(row["model"], names).leaf_of(X)
            for box, m in boxes.items():
                assert len(set(leaf[m].tolist())) == 1, (box, row["model"])
    # the true tree's leaves: the Fig 1 boxes are two of them
    p = true_tree_prob(X, names)
    assert set(np.round(p[boxes["box28"]], 2)) == {0.08}
    assert set(np.round(p[boxes["box26"]], 2)) == {0.32}
    # labels follow the true tree: leaves with P(pos) >= 0.6 hold mostly pos
    pos = train.y == train.classes.index("pos")
    assert pos[p >= 0.6].mean() > 0.5 > pos[p <= 0.1].mean()
    bx = res["boxes"]
    assert 0.6 < bx["true_tree_acc"] < 0.9
    for r in bx["runs"].values():
        assert 0 <= r["acc"] <= 1 and r["n_train"] == 500


def test_rerun_skips_finished_runs(quick):
    out, _, _ = quick
    r = subprocess.run([sys.executable, str(SCRIPT), "--quick", "--out", str(out),
                        "--only", "fig6"], capture_output=True, text=True, timeout=120,
                       cwd=ROOT)
    assert r.returncode == 0, r.stderr[-2000:]
    assert r.stdout.count("done (skipped)") == 2 and "running" not in r.stdout


def test_full_report_renders_from_the_quick_runs(quick, tmp_path):
    """The report of a full run, its discussion included, written from the quick runs:
    every paragraph of the template that a full run writes is rendered."""
    from benchmarks.paper000 import report
    from benchmarks.paper000_data import prepare_data
    from benchmarks.paper000_runs import QUICK, plan
    out, _, _ = quick
    paths = prepare_data(out)
    doc = tmp_path / "paper000.md"
    done, _ = report(out, paths, plan(paths, QUICK), doc, tmp_path / "figures", quick=False)
    assert done == set(EXPERIMENTS)
    md = doc.read_text()
    assert "Quick mode" not in md and "FIGDIR" not in md
    assert "](figures/paper000_fig5_seed_differences.png)" in md
    for start in ("## Discussion", "**Data.**", "**Section 5.1.**", "**The rpart numbers",
                  " Against slpy's min_leaf-5 greedy tree: on BCW", "**Fig 5.**",
                  "**Fig 6** reproduces", "**Fig 7.**", "**Fig 8.**", "**Boxes.**",
                  "**Speed.**"):
        assert start in md, start
