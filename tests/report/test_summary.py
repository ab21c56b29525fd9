"""`slpy run` with several chains: R-hat and ESS in the summary, a warning above 1.01."""
import json

import numpy as np
import pytest

from slpy.diagnostics import ess, rhat
from slpy.mcmc.convergence import verdict
from slpy.mcmc.summary import _convergence_lines

TREE = (("log_lik", "log-lik"), ("leaves", "leaves"), ("depth", "depth"))
from .test_report import KYPHOSIS, PRIOR, ok, read_csv


def test_run_summary_has_rhat_and_ess(tmp_path):
    out = tmp_path / "r"
    r = ok("run", PRIOR, "--data", KYPHOSIS, "--chains", 3, "-n", 400, "--seed", 2,
           "--out", out)
    s = json.loads((out / "summary.json").read_text())
    conv = s["convergence"]
    assert conv["chains"] == 3 and conv["draws"] == 400 - 40   # burn-in: a tenth
    traces = [read_csv(out / f"chain_{i}" / "trace.csv") for i in range(3)]
    for key in ("log_lik", "leaves", "depth"):
        col = traces[0][0].index(key)
        x = np.array([[float(row[col]) for row in t[1:]] for t in traces])
        want = rhat(x)
        assert conv[key]["rhat"] == (round(want, 6) if np.isfinite(want) else None)
        assert conv[key]["ess_bulk"] == pytest.approx(ess(x), abs=0.01)
    assert len(s["chain_acceptance_rates"]) == 3
    assert "R-hat (bulk, tail ESS) over 3 chains of 360 draws: log-lik" in r.output
    # three short chains from prior draws disagree: the verdict says so
    assert conv["rhat_warning"] and "convergence: NOT converged (R-hat of" in r.output
    # timings are in timing.json, so that the rest is the same for the same seed
    assert "timing" not in s and "seconds" not in s
    assert json.loads((out / "timing.json").read_text())["seconds"] > 0


def test_one_chain_is_checked_by_its_halves(tmp_path):
    ok("run", PRIOR, "--data", KYPHOSIS, "-n", 100, "--chains", 1, "--out", tmp_path / "r", "-q")
    s = json.loads((tmp_path / "r" / "summary.json").read_text())
    assert s["convergence"]["chains"] == 1 and s["converged"] is False
    text = (tmp_path / "r" / "summary.txt").read_text()
    assert "R-hat (bulk, tail ESS) over 1 chain (its two halves)" in text
    assert "convergence: NOT converged" in text


def test_convergence_lines():
    conv = {"chains": 2, "draws": 100, "rhat_warning": [],
            "log_lik": {"rhat": 1.004, "ess_bulk": 150.2},
            "leaves": {"rhat": None, "ess_bulk": 200.0},
            "depth": {"rhat": 1.009, "ess_bulk": 99.6}}
    assert _convergence_lines(conv, TREE) == [
        "R-hat (bulk, tail ESS) over 2 chains of 100 draws: log-lik 1.004 (150, n/a), "
        "leaves n/a (200, n/a), depth 1.009 (100, n/a)"]
    ok, line = verdict(conv, TREE, chains=2)
    assert not ok and "(bulk ESS of log-lik 150," in line and "R-hat of" not in line
    conv["rhat_warning"] = ["leaves", "depth"]
    assert "leaves inf (200, n/a)" in _convergence_lines(conv, TREE)[0]
    ok, line = verdict(conv, TREE, chains=2)
    assert not ok and "R-hat of leaves inf" in line and "R-hat of depth" not in line


def test_report_gives_each_run_its_verdict_and_tail_ess(tmp_path):
    """slpy report: a verdict column (under each run's own --target-rhat/--target-ess),
    bulk / tail ESS, and the verdict line of a run that has not converged."""
    ok("run", PRIOR, "--data", KYPHOSIS, "-n", 300, "--chains", 2, "--seed", 1, "-q",
       "--out", tmp_path / "two")
    ok("run", PRIOR, "--data", KYPHOSIS, "-n", 300, "--chains", 2, "--seed", 1, "-q",
       "--target-rhat", 2, "--target-ess", 10, "--out", tmp_path / "lax")
    ok("run", PRIOR, "--data", KYPHOSIS, "-n", 300, "--chains", 1, "--seed", 2, "-q",
       "--out", tmp_path / "one")
    ok("report", tmp_path / "two", tmp_path / "lax", tmp_path / "one", "--out", tmp_path / "rep")
    rep = json.loads((tmp_path / "rep" / "report.json").read_text())
    runs = rep["convergence"]["runs"]
    assert [r["converged"] for r in runs] == [False, True, False]
    assert runs[1]["verdict"].startswith("convergence: converged (R-hat <= 2, bulk and tail")
    md = (tmp_path / "rep" / "report.md").read_text()
    section = md.split("## Convergence")[1].split("\n## ")[0]
    rows = [next(ln for ln in section.splitlines() if ln.startswith(f"| {r['run']} |"))
            for r in runs]
    assert "| **not converged** |" in rows[0] and "| converged |" in rows[1]
    assert "| 1 x 270 | **not converged** |" in rows[2]     # one chain: by its halves
    d = runs[0]["diagnostics"]["log_lik"]
    assert f"| {d['ess_bulk']:.0f} / {d['ess_tail']:.0f} |" in rows[0]
    assert f"{runs[0]['run']}: {runs[0]['verdict']}" in md
    assert "NOT converged" in runs[0]["verdict"] and runs[1]["verdict"] not in md
