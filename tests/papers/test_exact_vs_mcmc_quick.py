"""slpy's MCMC against the exact posterior: benchmarks/exact_vs_mcmc.py end to end in its
--quick mode (kyphosis, bundled; GROWTREE with min_leaf 10; one chain of 20,000
iterations with a fixed seed, so every figure below is deterministic)."""
import csv
import json
import subprocess
import sys
from pathlib import Path

import pytest

ROOT = Path(__file__).resolve().parents[2]
SCRIPT = ROOT / "benchmarks" / "exact_vs_mcmc.py"


@pytest.fixture(scope="module")
def quick(tmp_path_factory):
    out = tmp_path_factory.mktemp("exact_vs_mcmc_quick")
    r = subprocess.run([sys.executable, str(SCRIPT), "--quick", "--out", str(out)],
                       capture_output=True, text=True, timeout=300, cwd=ROOT)
    assert r.returncode == 0, r.stdout[-2000:] + r.stderr[-4000:]
    res = json.loads((out / "summary.json").read_text())["results"]
    assert len(res) == 1
    return out, res[0]


def test_outputs_written(quick):
    out, res = quick
    assert (out / "exact_convergence.png").stat().st_size > 10_000
    assert (out / "exact_top_trees.png").stat().st_size > 10_000
    md = (out / "exact_vs_mcmc.md").read_text()
    assert "node(Start,8,leaf,leaf)" in md           # the exact MAP tree heads the table
    with open(out / "curves.csv") as f:
        sources = {r["source"] for r in csv.DictReader(f)}
    assert sources == {"iid", "mcmc1"}


def test_run_predictions_match_reconstruction_and_support(quick):
    _, res = quick
    info = res["mcmc"]["1"]
    # slpy run's own predictions.csv = the average of the visited trees' predictions
    assert info["own_pred_vs_reconstruction"] < 1e-9
    # every tree the chain visits has positive exact posterior probability
    assert info["zero_prob_models"] == 0
    # the exact top tree (exact k-best) is the one the chain visits most
    top = res["top"]
    est = info["top_estimates"]
    assert max(est, key=est.get) == top[0][1] == "node(Start,8,leaf,leaf)"
    assert abs(top[0][0] - 0.1515) < 5e-4


def test_mcmc_distance_shrinks_with_iterations(quick):
    _, res = quick
    mc = res["curves"]["mcmc1"]
    first, last = mc[0], mc[-1]
    assert first["n"] == 500 and last["n"] == 20_000
    for key in ("pred_max", "pred_mean", "tv_leaves"):
        assert last[key] < first[key] / 2, key
    # TV over all trees falls slowly: the posterior has a long tail of small trees
    assert last["tv_trees"] < 0.7 * first["tv_trees"]
    assert last["pred_max"] < 0.05         # predictive probabilities within 0.05
    assert last["tv_trees"] < 0.6          # exact TV over all trees
    assert last["tv_leaves"] < 0.1


def test_iid_exact_samples_beat_mcmc(quick):
    """The iid curve (exact sampler) is the Monte Carlo floor: below the chain at equal n."""
    _, res = quick
    iid = {r["n"]: r for r in res["curves"]["iid"]}
    mc = {r["n"]: r for r in res["curves"]["mcmc1"]}
    common = sorted(set(iid) & set(mc))
    assert len(common) >= 3
    for n in common:
        assert iid[n]["tv_trees"] < mc[n]["tv_trees"]
    assert iid[common[-1]]["tv_trees"] < iid[common[0]]["tv_trees"]
