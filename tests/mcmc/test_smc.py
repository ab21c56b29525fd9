"""Annealed SMC on proof trees (slpy.mcmc.smc, slpy.mcmc.evidence): its log evidence
equals the exact one (enumeration) on programs whose choices depend on earlier ones,
trees, networks and partitions; its particles follow the exact posterior; `slpy run
--method smc` and `slpy compare` report it."""
import math
from collections import Counter
from pathlib import Path

import numpy as np
import pytest
from click.testing import CliRunner
from scipy.stats import chisquare

from slpy import Program
from slpy.cli import main
from slpy.mcmc.check import enumerate_target
from slpy.mcmc.check_cli import build_check_model
from slpy.mcmc.evidence import compare_priors
from slpy.mcmc.model import PosteriorModel
from slpy.mcmc.smc import exact_prior_state, next_heat, pool_evidence, smc, systematic

from .programs import CASES, posterior
from .test_dependent import KeyScorer

ROOT = Path(__file__).resolve().parents[2]
PRIORS, DATA = ROOT / "priors", ROOT / "examples" / "data"


def exact_log_evidence(model) -> float:
    """log sum over the enumerated proofs of prior x L."""
    t = enumerate_target(model)
    lw = t.log_prior + np.array([s.log_lik for s in t.states])
    return float(lw.max() + np.log(np.exp(lw - lw.max()).sum()))


def islands(model, k, n, steps=3, seed=0):
    rng = np.random.default_rng(seed)
    return [smc(model, rng, n=n, steps=steps) for _ in range(k)]


def case_model(case):
    p = Program()
    p.consult_text(case.text, f"{case.name}.slp")
    return PosteriorModel(p, case.query, KeyScorer(case.loglik))


# -- pieces ------------------------------------------------------------------------------------
def test_the_next_heat_keeps_the_conditional_ess_at_its_target():
    rng = np.random.default_rng(0)
    ll = rng.normal(0, 30, 500)
    logw = rng.normal(0, 1, 500)
    b2 = next_heat(logw, ll, 0.2, 0.9)
    w = np.exp(logw - logw.max())
    w /= w.sum()
    u = np.exp((b2 - 0.2) * (ll - ll.max()))
    assert 0.2 < b2 < 1 and np.dot(w, u) ** 2 / np.dot(w, u * u) == pytest.approx(0.9, 1e-6)
    assert next_heat(logw, np.zeros(500), 0.2, 0.9) == 1.0   # flat: straight to 1


def test_systematic_resampling_keeps_the_weights_in_expectation():
    rng = np.random.default_rng(1)
    w = np.array([0.5, 0.25, 0.125, 0.125])
    counts = np.bincount(np.concatenate([systematic(rng, w, 8) for _ in range(2000)]),
                         minlength=4)
    assert np.allclose(counts / counts.sum(), w, atol=0.01)
    one = systematic(rng, w, 8)
    assert all(abs((one == i).sum() - 8 * w[i]) < 1 for i in range(4))   # low variance


def test_islands_pool_their_evidence_on_the_natural_scale():
    z, se = pool_evidence([math.log(1.0), math.log(3.0)])
    assert z == pytest.approx(math.log(2.0)) and se == pytest.approx(0.5)
    rows = compare_priors({"a": (-10.0, 0.1), "b": (-12.0, 0.2)})
    assert [r["prior"] for r in rows] == ["a", "b"]
    assert rows[1]["log_bf"] == pytest.approx(-2.0)
    assert rows[1]["log_bf_se"] == pytest.approx(math.hypot(0.1, 0.2))
    assert rows[0]["posterior"] == pytest.approx(1 / (1 + math.exp(-2)))


def test_first_particles_are_exact_prior_draws_where_backtracking_is_not():
    # c(X), d(X, Y) with d(1, b) failing: backtrackable sampling gives X = 1 half the
    # time, the normalised prior a third of it
    p = Program()
    p.consult_text("""
        0.5 :: c(1). 0.5 :: c(2).
        0.5 :: d(1, a). 0.5 :: d(1, b) :- fail. 1 :: d(2, a).
        top(X-Y) :- c(X), d(X, Y).
    """)
    m = PosteriorModel(p, "top(T)")
    rng = np.random.default_rng(2)
    got = Counter(m.scorer.key(exact_prior_state(m, rng)[0].term) for _ in range(3000))
    assert chisquare([got["1-a"], got["2-a"]], [1000, 2000]).pvalue > 0.01


# -- the evidence equals the exact one ----------------------------------------------------------
@pytest.mark.parametrize("case", CASES, ids=str)
def test_log_evidence_of_dependent_programs(case):
    m = case_model(case)
    exact = math.log(sum(p * math.exp(case.loglik(k))
                         for k, p in case.reference().items()))
    z, se = pool_evidence([r.log_evidence for r in islands(m, 4, 200, seed=3)])
    # three standard errors: fourteen programs would miss two a quarter of the time
    assert abs(z - exact) <= max(3 * se, 0.02) and abs(z - exact) < 0.1, (z, se, exact)


@pytest.mark.parametrize("name,build", [
    ("growtree, 14 kyphosis rows", lambda: build_check_model(
        str(PRIORS / "growtree.slp"), str(DATA / "kyphosis.csv"), 14, {"min_leaf": "3"},
        None, None)),
    ("bn, 4 asia variables", lambda: build_check_model(
        str(PRIORS / "bn.slp"), str(DATA / "asia.csv"), None, {}, None, None,
        columns=["asia", "tub", "smoke", "lung"])),
    ("crp, 6 rows", lambda: build_check_model(
        str(PRIORS / "crp.slp"), str(DATA / "iris_petals.csv"), 6, {}, None, None)),
])
def test_log_evidence_of_model_families(name, build):
    m = build()
    exact = exact_log_evidence(m)
    z, se = pool_evidence([r.log_evidence for r in islands(m, 4, 300, seed=5)])
    assert abs(z - exact) <= 2 * se and abs(z - exact) < 0.1, (z, se, exact)


@pytest.mark.slow
def test_log_evidence_of_growtree_on_bucketed_kyphosis_equals_the_exact_back_end():
    # slpy exact priors/growtree.slp --data examples/data/kyphosis.csv --bucket 3
    # prints -37.750224
    from slpy.data import load_csv
    from slpy.data.bucket import Bucketer
    from slpy.mcmc.config import RunConfig, family_of
    from slpy.mcmc.model import build_model
    train = load_csv(str(DATA / "kyphosis.csv"))
    train = Bucketer(3).fit(train.X, train.categorical).transform_dataset(train)
    cfg = RunConfig(prior=str(PRIORS / "growtree.slp"), data=str(DATA / "kyphosis.csv"))
    cfg = cfg.resolved()
    m = build_model(cfg.replace(query=family_of(cfg).query), train)
    z, se = pool_evidence([r.log_evidence for r in islands(m, 4, 500, seed=0)])
    assert abs(z + 37.750224) <= 2 * se and abs(z + 37.750224) < 0.1, (z, se)


@pytest.mark.slow
def test_log_evidence_of_growtree_on_kyphosis_equals_the_exact_back_end():
    # slpy exact priors/growtree.slp --data examples/data/kyphosis.csv prints -39.548504
    m = build_check_model(str(PRIORS / "growtree.slp"), str(DATA / "kyphosis.csv"), None,
                          {}, None, None)
    z, se = pool_evidence([r.log_evidence for r in islands(m, 4, 1000, steps=5, seed=0)])
    assert abs(z + 39.548504) <= 2 * se and abs(z + 39.548504) < 0.1, (z, se)


# -- the particles follow the posterior ----------------------------------------------------------
@pytest.mark.parametrize("name", ["mixture", "geometric", "tree"])
def test_a_particle_of_each_run_follows_the_exact_posterior(name):
    # one particle drawn by weight from each of many small independent runs: draws
    # of the SMC's own distribution, to which a chi-square test applies
    case = next(c for c in CASES if c.name == name)
    m = case_model(case)
    want = posterior(case.reference(), case.loglik)
    rng = np.random.default_rng(11)
    got = Counter()
    for _ in range(400):
        r = smc(m, rng, n=40, steps=2)
        got[m.scorer.key(r.resample_to(rng, 1)[0].term)] += 1
    n = sum(got.values())
    keys = [k for k in want if want[k] * n >= 5]
    rest_o = n - sum(got[k] for k in keys)
    rest_e = n - sum(want[k] * n for k in keys)
    obs = [got[k] for k in keys] + ([rest_o] if rest_e > 0 else [])
    exp = [want[k] * n for k in keys] + ([rest_e] if rest_e > 0 else [])
    assert set(got) <= set(want)
    assert chisquare(obs, exp).pvalue > 0.01


# -- the command line -----------------------------------------------------------------------------
def test_slpy_run_method_smc_reports_the_log_evidence(tmp_path):
    r = CliRunner().invoke(main, [
        "run", str(PRIORS / "growtree.slp"), "--data", str(DATA / "kyphosis.csv"),
        "--method", "smc", "--particles", "60", "--smc-steps", "1", "--chains", "2",
        "--out", str(tmp_path / "run"), "-q"])
    assert r.exit_code == 0, r.output
    text = (tmp_path / "run" / "summary.txt").read_text()
    assert "SMC: 2 island(s) of 60 particles" in text
    assert "log evidence (log marginal likelihood of the data under the prior): -" in text
    import json
    s = json.loads((tmp_path / "run" / "summary.json").read_text())
    assert s["log_evidence_se"] > 0 and len(s["islands"]) == 2
    cfg = json.loads((tmp_path / "run" / "config.json").read_text())
    assert cfg["method"] == "smc" and cfg["particles"] == 60


def test_slpy_compare_ranks_priors(tmp_path):
    sure = tmp_path / "sure.slp"
    sure.write_text(":- model_family(cluster).\ncluster(partition(Zs)) :- "
                    "cluster_count(N), length(Zs, N), maplist(=(1), Zs).\n")
    r = CliRunner().invoke(main, [
        "compare", str(PRIORS / "crp.slp"), str(sure), "--data",
        str(DATA / "iris_petals.csv"), "--particles", "40", "--smc-steps", "1",
        "--islands", "2"])
    assert r.exit_code == 0, r.output
    lines = r.output.splitlines()
    i = next(i for i, x in enumerate(lines) if x.startswith("prior "))
    assert lines[i + 1].split()[0] == str(PRIORS / "crp.slp")     # one cluster loses
    assert "best" in lines[i + 1]


@pytest.mark.parametrize("args,msg", [
    (["compare", "nope.slp", "--data", "x.csv"], "x.csv"),
    (["compare", str(PRIORS / "crp.slp"), "--data", str(DATA / "iris_petals.csv"),
      "-p", "nothing=1"], "-p nothing"),
    (["run", str(PRIORS / "crp.slp"), "--data", str(DATA / "iris_petals.csv"),
      "--method", "smc", "--particles", "5"], "--particles"),
])
def test_smc_errors_are_one_line(args, msg):
    r = CliRunner().invoke(main, args)
    assert r.exit_code == 2, r.output
    assert msg in r.output and "Traceback" not in r.output
