"""The convergence verdict of every MCMC run: one chain (its halves), the test rows'
predictions, --require-converged with SMC, and SMC's Monte Carlo standard errors."""
import json
import math
import warnings
from pathlib import Path
from types import SimpleNamespace

import numpy as np
import pytest
from click.testing import CliRunner

from slpy.cli import main
from slpy.diagnostics import ess, ess_tail, rhat, trace_diagnostics
from slpy.mcmc.run import run
from slpy.mcmc.summary import _model_mcse

ROOT = Path(__file__).resolve().parents[2]
PRIOR = str(ROOT / "priors" / "growtree.slp")
DATA = str(ROOT / "examples" / "data" / "kyphosis.csv")


def _cfg(**kw):
    return dict(dict(prior=PRIOR, data=DATA, temper=1, chains=1, proposal="uc", seed=3,
                     iterations=200), **kw)


def test_one_chain_rhat_is_arviz_rank_rhat_of_its_halves():
    az = pytest.importorskip("arviz")
    from arviz.stats.diagnostics import _rhat, _split_chains, _z_scale
    rng = np.random.default_rng(4)
    walk = np.cumsum(rng.normal(size=(1, 301)), axis=1)      # drifts: halves disagree
    for x in (rng.normal(size=(1, 400)), walk):
        # arviz.rhat refuses one chain (nan); its rank R-hat without that check:
        s = _split_chains(x)
        want = max(_rhat(_z_scale(s)), _rhat(_z_scale(abs(s - np.median(s)))))
        assert rhat(x, min_chains=1) == pytest.approx(want, rel=1e-10)
        with warnings.catch_warnings():
            warnings.simplefilter("ignore")
            assert math.isnan(float(az.rhat(x))) and math.isnan(rhat(x))
            assert ess(x) == pytest.approx(float(az.ess(x)), rel=1e-10)
            assert ess_tail(x) == pytest.approx(float(az.ess(x, method="tail")), rel=1e-10)
    assert rhat(walk, min_chains=1) > 1.01
    assert trace_diagnostics({"w": walk}, min_chains=1)["rhat_warning"] == ["w"]


def test_one_chain_run_has_figures_and_a_verdict(tmp_path):
    s = run(_cfg(), tmp_path / "a", quiet=True)
    conv = s["convergence"]
    assert conv["chains"] == 1 and conv["log_lik"]["rhat"] is not None
    text = (tmp_path / "a" / "summary.txt").read_text()
    assert "over 1 chain (its two halves) of 180 draws: log-lik" in text
    assert "convergence: NOT converged" in text and s["converged"] is False
    s = run(_cfg(target_rhat=1e6, target_ess=1), tmp_path / "b", quiet=True)
    assert s["converged"] and "convergence: converged" in \
        (tmp_path / "b" / "summary.txt").read_text()


def test_until_converged_stops_for_one_chain(tmp_path):
    s = run(_cfg(until_converged=True, target_rhat=1e6, target_ess=1,
                 max_iterations=400), tmp_path / "c", quiet=True)
    assert s["rounds"] == [200] and s["converged"]


def test_predictions_are_in_the_figures_and_the_verdict(tmp_path):
    s = run(_cfg(chains=2, holdout=0.2), tmp_path / "d", quiet=True)
    conv = s["convergence"]
    p = conv["predictions"]
    assert p["rows"] == 16 and p["rhat"] is not None and p["ess_bulk"] > 0
    assert p["ess_tail"] > 0
    text = (tmp_path / "d" / "summary.txt").read_text()
    assert (f"of the predicted probability of each test row's class, the worst of 16 "
            f"rows: {p['rhat']:.3f} ({p['ess_bulk']:.0f}, {p['ess_tail']:.0f})") in text
    # targets the other figures meet and the predictions do not: not converged
    others = [conv[k] for k in ("log_lik", "leaves", "depth")]
    r = max(d["rhat"] for d in others)
    e = min(min(d["ess_bulk"], d["ess_tail"]) for d in others)
    assert p["rhat"] > r or min(p["ess_bulk"], p["ess_tail"]) < e   # this seed's
    s = run(_cfg(chains=2, holdout=0.2, target_rhat=r, target_ess=e), tmp_path / "e",
            quiet=True)
    assert not s["converged"]
    assert "of predictions" in (tmp_path / "e" / "summary.txt").read_text()
    # same seed, same bytes
    s = run(_cfg(chains=2, holdout=0.2), tmp_path / "f", quiet=True)
    for f in ("summary.json", "summary.txt"):
        assert (tmp_path / "d" / f).read_bytes() == (tmp_path / "f" / f).read_bytes()


def test_require_converged_refuses_smc(tmp_path):
    out = tmp_path / "s"
    r = CliRunner().invoke(main, ["run", PRIOR, "--data", DATA, "--method", "smc",
                                  "--particles", "20", "--smc-steps", "1",
                                  "--require-converged", "--out", str(out), "-q"])
    assert r.exit_code == 2, r.output
    assert "--require-converged is for --method mcmc" in r.output
    assert "Traceback" not in r.output and not out.exists()


def _island(counts, kept):
    visits = {k: SimpleNamespace(count=c) for k, c in counts.items()}
    return SimpleNamespace(visits=visits, kept=kept, evidence={"log_evidence": 0.0})


def test_smc_mcse_is_the_islands_spread():
    outs = [_island({"a": 30, "b": 70}, 100), _island({"a": 50, "b": 40, "c": 10}, 100),
            _island({"a": 40, "b": 60}, 100)]
    se = _model_mcse(outs, ["a", "b", "c"])
    want = [np.std(v, ddof=1) / math.sqrt(3)
            for v in ([.3, .5, .4], [.7, .4, .6], [0, .1, 0])]
    assert se == [round(float(w), 6) for w in want]
    assert _model_mcse(outs[:1], ["a"]) == [None]          # one island: none


def test_smc_run_prints_mcse_with_islands(tmp_path):
    s = run(dict(prior=PRIOR, data=DATA, method="smc", particles=30, smc_steps=1,
                 chains=2, seed=1, top=1), tmp_path / "g", quiet=True)
    m = s["top_models"][0]
    assert m["mcse"] is not None
    assert f"posterior {m['prob']:.4f} (MCSE {m['mcse']:.4f})" in \
        (tmp_path / "g" / "summary.txt").read_text()
    saved = json.loads((tmp_path / "g" / "summary.json").read_text())
    assert "converged" not in saved
