"""SMC on the compiled paths (their particles through slpy.mcmc.smc): its log evidence
equals the exact one (every proof the engine enumerates, an independent reference) for
tree and network priors, its particles follow the exact posterior, a particle moved at
the wrong heat is caught, and `slpy run --method smc` and `slpy compare` take it."""
import json
import math
from collections import Counter

import numpy as np
import pytest
from click.testing import CliRunner
from scipy.stats import chisquare

from slpy.cli import main
from slpy.mcmc.check import enumerate_target
from slpy.mcmc.check_cli import build_check_model
from slpy.mcmc.config import RunConfig
from slpy.mcmc.paths import fast_path, resolve_path
from slpy.mcmc.smc import pool_evidence, smc

from ..conftest import EXAMPLES, ROOT

PRIORS = ROOT / "priors"
KYPHOSIS = str(EXAMPLES / "kyphosis.csv")


def small(prior, **params):
    """The prior on Kyphosis's first 14 rows (min_leaf 3): a few hundred trees."""
    return build_check_model(str(PRIORS / prior), KYPHOSIS, 14, {"min_leaf": "3", **params},
                             None, None)


def particles_of(m):
    cfg, why = resolve_path(m, RunConfig(method="smc", temper=1))
    assert cfg.path == "compiled", why
    return fast_path(cfg, m).particles(m, cfg)


def exact_posterior(m):
    """(log evidence, posterior by tree key) from every proof of the prior."""
    t = enumerate_target(m)
    lw = t.log_prior + np.array([s.log_lik for s in t.states])
    top = lw.max()
    z = np.exp(lw - top).sum()
    post = Counter()
    for s, w in zip(t.states, np.exp(lw - top) / z):
        post[m.scorer.key(s.term)] += w
    return float(top + math.log(z)), post


def agrees(z, se, exact) -> bool:
    """The issue's test of an evidence: within 2 standard errors and 0.1 nats."""
    return abs(z - exact) <= 2 * se and abs(z - exact) < 0.1


def pooled(m, parts, seed, steps, n=300, islands=4):
    """(log evidence, standard error) of `islands` SMC samplers with these particles."""
    rng = np.random.default_rng(seed)
    return pool_evidence([smc(m, rng, n=n, steps=steps, particles=parts).log_evidence
                          for _ in range(islands)])


@pytest.mark.parametrize("prior", ["growtree.slp", "depth.slp"])
def test_log_evidence_equals_the_exact_one(prior):
    m = small(prior)
    exact, _ = exact_posterior(m)
    z, se = pooled(m, particles_of(m), seed=5, steps=3)
    assert agrees(z, se, exact), (z, se, exact)


@pytest.mark.parametrize("prior,params", [
    ("bn.slp", {}), ("bn_expert.slp", {"required": "[tub-lung]", "forbidden": "[asia-smoke]"})])
def test_log_evidence_of_a_network_prior_equals_the_exact_one(prior, params):
    # the network path: exact draws of the prior by rejection, the sweep move
    m = build_check_model(str(PRIORS / prior), str(EXAMPLES / "asia.csv"), None, params,
                          None, None, columns=["asia", "tub", "smoke", "lung"])
    exact, _ = exact_posterior(m)
    z, se = pooled(m, particles_of(m), seed=7, steps=2)
    assert agrees(z, se, exact), (z, se, exact)


class WrongHeat:
    """The path's particles moved at heat 1 whatever the heat: not SMC's target."""

    def __init__(self, parts):
        self.parts = parts
        self.draw = parts.draw

    def move(self, rng, particle, heat, steps, it):
        return self.parts.move(rng, particle, 1.0, steps, it)


def test_particles_moved_at_the_wrong_heat_are_caught():
    m = small("growtree.slp")
    exact, _ = exact_posterior(m)
    z, se = pooled(m, WrongHeat(particles_of(m)), seed=5, steps=3)
    assert not agrees(z, se, exact), (z, se, exact)      # 0.36 nats too high


def test_a_particle_of_each_run_follows_the_exact_posterior():
    # one particle drawn by weight from each of many small independent runs: draws of
    # the SMC's own distribution, to which a chi-square test applies. 200 particles a
    # run: with 40, SMC's own finite-population bias shows at 600 runs (p 9e-4 here,
    # and 4e-5 for the engine's particles on the same program and seed)
    m = small("growtree.slp")
    _, want = exact_posterior(m)
    parts = particles_of(m)
    rng = np.random.default_rng(11)
    got = Counter(smc(m, rng, n=200, steps=2, particles=parts).resample_to(rng, 1)[0].key
                  for _ in range(600))
    assert follows(got, want)


def follows(got: Counter, want: dict) -> bool:
    """Do the counts `got` pass a chi-square test (p > 0.01) against the exact
    probabilities `want` (keys expected fewer than 5 times pooled)?"""
    n = sum(got.values())
    keys = [k for k in want if want[k] * n >= 5]
    rest_o = n - sum(got[k] for k in keys)
    rest_e = n - sum(want[k] * n for k in keys)
    assert set(got) <= set(want) and rest_e > 0
    return chisquare([got[k] for k in keys] + [rest_o],
                     [want[k] * n for k in keys] + [rest_e]).pvalue > 0.01


def test_log_evidence_on_kyphosis_equals_the_exact_back_end():
    # slpy exact priors/growtree.slp --data examples/data/kyphosis.csv prints -39.548504
    m = build_check_model(str(PRIORS / "growtree.slp"), KYPHOSIS, None, {}, None, None)
    z, se = pooled(m, particles_of(m), seed=0, steps=5, n=1000)
    assert agrees(z, se, -39.548504), (z, se)


def smc_run(tmp_path, name, *more):
    out = tmp_path / name
    r = CliRunner().invoke(main, [
        "run", str(PRIORS / "growtree.slp"), "--data", KYPHOSIS, "--method", "smc",
        "--particles", "100", "--smc-steps", "2", "--chains", "2", "--out", str(out), "-q",
        *more])
    assert r.exit_code == 0, r.output
    return out


def test_slpy_run_method_smc_takes_the_compiled_path(tmp_path):
    a = smc_run(tmp_path, "a", "--jobs", "1")
    text = (a / "summary.txt").read_text()
    assert "path: compiled (GROWTREE's moves" in text
    assert "log evidence (log marginal likelihood of the data under the prior): -" in text
    b = smc_run(tmp_path, "b", "--jobs", "2")
    drop = ("seconds", "timing")
    sa, sb = (json.loads((d / "summary.json").read_text()) for d in (a, b))
    assert {k: v for k, v in sa.items() if k not in drop} == \
        {k: v for k, v in sb.items() if k not in drop}
    assert (a / "models.csv").read_bytes() == (b / "models.csv").read_bytes()


def test_slpy_compare_takes_the_compiled_path():
    r = CliRunner().invoke(main, [
        "compare", str(PRIORS / "growtree.slp"), str(PRIORS / "depth.slp"), "--data",
        KYPHOSIS, "--particles", "100", "--smc-steps", "2", "--islands", "2"])
    assert r.exit_code == 0, r.output
    assert "growtree.slp" in r.output and "depth.slp" in r.output
