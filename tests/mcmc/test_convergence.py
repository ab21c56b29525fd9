"""The convergence verdict, --until-converged and --require-converged."""
import json
from pathlib import Path

from click.testing import CliRunner

from slpy.cli import main
from slpy.mcmc.convergence import Criterion, verdict
from slpy.mcmc.run import run

ROOT = Path(__file__).resolve().parents[2]
PRIOR = str(ROOT / "priors" / "growtree.slp")
DATA = str(ROOT / "examples" / "data" / "kyphosis.csv")
LABELS = (("log_lik", "log-lik"), ("leaves", "leaves"))


def _conv(rhat, ess_bulk, ess_tail):
    d = {"rhat": rhat, "ess_bulk": ess_bulk, "ess_tail": ess_tail}
    return {"chains": 4, "draws": 1000, "log_lik": d, "leaves": dict(d),
            "rhat_warning": ["log_lik", "leaves"] if rhat is None or rhat > 1.01 else []}


def test_verdict_follows_the_criterion():
    assert verdict(_conv(1.005, 800, 500), LABELS)[0]
    ok, line = verdict(_conv(1.05, 800, 500), LABELS)
    assert not ok and "R-hat of log-lik 1.050" in line and "--until-converged" in line
    ok, line = verdict(_conv(1.005, 800, 120), LABELS)
    assert not ok and "tail ESS of leaves 120" in line
    assert verdict(_conv(1.005, 800, 120), LABELS, Criterion(1.01, 100))[0]
    ok, line = verdict(_conv(None, 800, 500), LABELS)       # chains stuck apart
    assert not ok and "R-hat of log-lik inf" in line
    ok, line = verdict(None, LABELS, chains=1)
    assert not ok and "one chain" in line


def _cfg(**kw):
    return dict(prior=PRIOR, data=DATA, temper=1, chains=2, proposal="uc", seed=3, **kw)


def test_until_converged_stops_at_the_budget_and_equals_a_plain_run(tmp_path):
    a, b = tmp_path / "a", tmp_path / "b"
    s = run(_cfg(iterations=200, until_converged=True, target_ess=1e9,
                 max_iterations=800), a, quiet=True)
    assert s["rounds"] == [200, 400, 800] and not s["converged"]
    assert s["stopped_by_budget"]
    assert "stopped by the budget of --max-iterations 800" in (a / "summary.txt").read_text()
    run(_cfg(iterations=800, burn_in=20), b, quiet=True)
    for f in ("models.csv", "chain_0/trace.csv", "chain_1/trace.csv", "chain_1/models.csv"):
        assert (a / f).read_bytes() == (b / f).read_bytes(), f


def test_until_converged_stops_when_converged(tmp_path):
    s = run(_cfg(iterations=200, until_converged=True, target_rhat=1e6, target_ess=1),
            tmp_path / "c", quiet=True)
    assert s["rounds"] == [200] and s["converged"]
    saved = json.loads((tmp_path / "c" / "summary.json").read_text())
    assert saved["rounds"] == [200] and saved["convergence"]["log_lik"]["ess_tail"] > 0


def test_require_converged_exits_3_with_the_run_written(tmp_path):
    out = tmp_path / "d"
    r = CliRunner().invoke(main, ["run", PRIOR, "--data", DATA, "-n", "200", "--temper",
                                  "1", "--chains", "2", "--target-ess", "1e9",
                                  "--require-converged", "--out", str(out), "-q"])
    assert r.exit_code == 3, r.output
    assert "has not converged" in r.output and (out / "summary.json").is_file()
    r = CliRunner().invoke(main, ["run", PRIOR, "--data", DATA, "--max-time", "5",
                                  "--out", str(tmp_path / "e"), "-q"])
    assert r.exit_code == 2 and "--until-converged" in r.output
