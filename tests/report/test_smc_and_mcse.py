"""`slpy report` of an SMC run (the log evidence, no R-hat), the Monte Carlo standard
errors of summary.json beside the probabilities the report prints, and trees/top.json
as the run's most visited tree (all chains pooled)."""
import json
import math
from types import SimpleNamespace

import pytest

from .test_report import KYPHOSIS, PRIOR, ROOT, ok

ASIA = ROOT / "examples" / "data" / "asia.csv"
IRIS = ROOT / "examples" / "data" / "iris_petals.csv"

pytest.importorskip("matplotlib")


def _report(run, out):
    ok("report", run, "--out", out)
    return (out / "report.md").read_text(), json.loads((out / "report.json").read_text())


def test_smc_report_shows_the_evidence_not_convergence(tmp_path):
    run = tmp_path / "smc"
    ok("run", PRIOR, "--data", KYPHOSIS, "--method", "smc", "--particles", 50,
       "--chains", 2, "--out", run, "-q")
    s = json.loads((run / "summary.json").read_text())
    md, numbers = _report(run, tmp_path / "rep")
    lz, se = s["log_evidence"], s["log_evidence_se"]
    each = ", ".join(f"{i['log_evidence']:.4f}" for i in s["islands"])
    heats = ", ".join(str(i["heats"]) for i in s["islands"])
    res = ", ".join(str(i["resampled"]) for i in s["islands"])
    fess = ", ".join(f"{i['final_ess']:,.0f}" for i in s["islands"])
    assert all(0 < i["final_ess"] <= 50 for i in s["islands"])
    assert "## Evidence" in md
    assert f"| seed 0 | {lz:.4f} | {se:.3f} | 2 | 50 | {each} | {heats} | {res} | {fess} |" \
        in md
    assert "SMC, 2 island(s) of 50 particles" in md
    # particles are no Markov chain: no R-hat, acceptance, trajectories or advice
    for said in ("R-hat log-likelihood", "acceptance per chain", "--until-converged",
                 "## Convergence", "trajectories]("):
        assert said not in md
    assert not list((tmp_path / "rep").glob("trace_*.png"))
    assert "| island 0 | island 1 | seed 0, islands pooled |" in md
    assert numbers["evidence"][0]["log_evidence"] == lz
    assert numbers["convergence"]["runs"] == []


def test_one_island_has_no_standard_error():
    from slpy.report.sections import evidence_section
    run = SimpleNamespace(label="seed 3", smc=True, config={"particles": 40},
                          summary={"log_evidence": -39.5, "log_evidence_se": math.nan,
                                   "islands": [{"log_evidence": -39.5, "heats": 11,
                                                "resampled": 2}]})
    mcmc = SimpleNamespace(label="seed 4", smc=False, config={}, summary={})
    lines, numbers = evidence_section([mcmc, run])
    assert "| seed 3 | -39.5000 | - | 1 | 40 | -39.5000 | 11 | 2 | - |" in lines
    assert numbers == [{"run": "seed 3", "log_evidence": -39.5, "log_evidence_se": None,
                        "islands": run.summary["islands"], "particles": 40}]
    assert evidence_section([mcmc]) == ([], [])


def test_top_trees_show_their_mcse(tmp_path):
    run = tmp_path / "r"
    ok("run", PRIOR, "--data", KYPHOSIS, "-n", 300, "--chains", 2, "--seed", 1,
       "--out", run, "-q")
    s = json.loads((run / "summary.json").read_text())
    md, numbers = _report(run, tmp_path / "rep")
    table = numbers["top_trees"]
    # one run's chains are the columns, then the run's own estimate with its MCSE
    assert table["labels"] == ["chain 0", "chain 1", "seed 1, chains pooled"]
    rows = {r["model"]: r for r in table["rows"]}
    shown = 0
    for m in s["top_models"]:
        if m["model"] in rows:
            r = rows[m["model"]]
            assert r["probs"][2] == pytest.approx(m["prob"])
            assert r["mcse"] == [None, None, m["mcse"]]
            assert f"{m['prob']:.5f} (MCSE {m['mcse']:.4f}) |" in md
            shown += 1
    assert shown >= 2


def _family_mcse_lines(summary_txt):
    return [line for line in summary_txt.splitlines()
            if line.startswith("Monte Carlo standard error of the")]


@pytest.mark.parametrize("prior, data, extra", [
    ("bn.slp", ASIA, ()),
    ("crp.slp", IRIS, ("--temper", 1)),
])
def test_family_report_shows_the_mcse_of_summary(tmp_path, prior, data, extra):
    run = tmp_path / "r"
    ok("run", ROOT / "priors" / prior, "--data", data, "-n", 300, "--chains", 2,
       *extra, "--out", run, "-q")
    s = json.loads((run / "summary.json").read_text())
    md, _ = _report(run, tmp_path / "rep")
    # the edge marginals' (or co-clustering's) largest MCSE, as summary.txt says it
    lines = _family_mcse_lines((run / "summary.txt").read_text())
    assert lines
    for line in lines:
        assert f"- {line}" in md.replace("\\>", ">")
    m = s["top_models"][0]
    row = next(r for r in md.splitlines() if r.startswith("| M1 |"))
    assert row.endswith(f"| {m['prob']:.4f} (MCSE {m['mcse']:.4f}) |")
    if prior == "bn.slp":       # each arrow of the links table with its own MCSE
        links = md.split("### Links in either direction")[1].split("\n\n")[3]
        rows = [r.split(" | ") for r in links.splitlines()[2:]]
        assert rows
        for r in rows:
            a, b = r[0].strip("| ").split(" - ")
            se = s["edge_marginals_mcse"]
            assert r[2].endswith(f"({se.get(f'{a}->{b}', 0.0):.3f})")
            assert r[3].endswith(f"({se.get(f'{b}->{a}', 0.0):.3f})")


def test_smc_islands_give_the_family_mcse(tmp_path):
    # independent islands: the edge marginals' MCSE from their spread, as chains'
    run = tmp_path / "s"
    ok("run", ROOT / "priors" / "bn.slp", "--data", ASIA, "--method", "smc",
       "--particles", 60, "--chains", 3, "--out", run, "-q")
    s = json.loads((run / "summary.json").read_text())
    se = s["edge_marginals_mcse"]
    assert se and all(x >= 0 for x in se.values()) and max(se.values()) > 0
    assert _family_mcse_lines((run / "summary.txt").read_text())


def _rank_one_tree(run_dir):
    """models.csv's first tree rebuilt on the run's data, and the run's top.json."""
    from slpy.report.predict import load_run_data
    from slpy.report.rundir import load_run
    from slpy.trees.model import Tree
    run = load_run(run_dir)
    data = load_run_data(run)
    rebuilt = Tree.from_canonical(run.models[0]["model"], data.rowsets, data.train)
    return rebuilt, run.trees["top"]


def test_top_json_is_the_runs_most_visited_tree(tmp_path):
    # --top 1: each chain draws only its own most visited tree; chain 0's was rank 3
    run = tmp_path / "h"
    ok("run", PRIOR, "--data", KYPHOSIS, "-n", 400, "--holdout", 0.2, "--top", 1,
       "--out", run, "-q")
    rebuilt, top = _rank_one_tree(run)
    assert top.to_json() == rebuilt.to_json()
    md, _ = _report(run, tmp_path / "rep")
    part = md.split("### most visited (MAP estimate), seed 0", 1)[1]
    assert rebuilt.export_text() in part.split("### ", 1)[0]


def test_top_json_is_drawn_again_when_no_chain_drew_it(tmp_path, monkeypatch):
    """The run's most visited tree is among no chain's own top trees (a chain's --top
    are its own most visited): it is drawn from its key."""
    from slpy.mcmc import run as run_mod
    from slpy.mcmc.config import family_of
    from slpy.mcmc.output import merge_visits
    write = run_mod._write_outputs

    def without_the_first(rd, cfg, outs, *args):
        merged = merge_visits(outs, family_of(cfg).stats)
        first = min(merged, key=lambda k: (-merged[k]["count"], k))
        for o in outs:
            o.drawn.pop(first, None)
        return write(rd, cfg, outs, *args)
    monkeypatch.setattr(run_mod, "_write_outputs", without_the_first)
    out = tmp_path / "r"
    run_mod.run(dict(prior=PRIOR, data=str(KYPHOSIS), iterations=300, chains=2, top=3,
                     jobs=1), out, quiet=True, warn=lambda line: None)
    rebuilt, top = _rank_one_tree(out)
    assert top.to_json() == rebuilt.to_json()


def test_top_json_same_bytes_with_one_or_two_jobs(tmp_path):
    runs = []
    for jobs in (1, 2):
        out = tmp_path / f"j{jobs}"
        ok("run", PRIOR, "--data", KYPHOSIS, "-n", 300, "--chains", 2, "--top", 1,
           "--jobs", jobs, "--out", out, "-q")
        runs.append(out)
    a, b = ((r / "trees" / "top.json").read_bytes() for r in runs)
    assert a == b
    rebuilt, top = _rank_one_tree(runs[0])
    assert top.to_json() == rebuilt.to_json()
