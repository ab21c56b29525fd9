"""A tempered compiled chain's sweeps in one numba call a batch (slpy.compiled.ladder)
make the same chain as the plain tempered kernel around the path's kernel, byte for
byte: trace, visits, moves, swaps, ladder, best model, for the mixtures, swap schemes,
ladders that re-space themselves or not, thinning, box constraints, a chain stopped
early, and the network path's chains (both network priors, change and sweep); and
chains without tempering, a ladder of one. SMC's particles moved a group a call make
the same population and evidence as moved one at a time, on both paths. The plain kernel is the one the chi-square tests of tests/compiled check against
exact posteriors; the batches run under those tests too (temper > 1)."""
import dataclasses

import numpy as np
import pytest

import slpy.compiled.ladder as ladder
import slpy.mcmc.sampler as sampler
from slpy.compiled.path import BOX_MIXTURE, COMPILED_MIXTURE
from slpy.data import load_csv
from slpy.mcmc.config import RunConfig
from slpy.mcmc.sampler import run_chain

from ..bn.test_mcmc import data  # noqa: F401  (a fixture)
from ..conftest import EXAMPLES
from ..mcmc.test_correctness import model_for
from .test_boxes import box_model
from .test_network import PRIORS, model_of


@pytest.fixture(scope="module")
def kyphosis():
    return model_for(load_csv(EXAMPLES / "kyphosis.csv"), True)


@pytest.fixture(scope="module")
def boxed():
    return box_model(load_csv(EXAMPLES / "kyphosis.csv").take(np.arange(40)))


def _no_ladder(mp):
    """The paths as registered, without their batches (the plain tempered kernel)."""
    real = sampler.fast_path

    def plain(cfg, model):
        path = real(cfg, model)
        return path and dataclasses.replace(path, ladder=None)
    mp.setattr(sampler, "fast_path", plain)


def chain(model, monkeypatch, fused, stop_at=None, **settings):
    """run_chain's output with the batches (and how many batches ran) or without."""
    cfg = RunConfig(seed=11, path="compiled", **settings)
    batches = []
    with monkeypatch.context() as mp:
        if fused:
            fill = ladder._Batches._fill

            def counted(self, *a):
                batches.append(a[-1])
                return fill(self, *a)
            mp.setattr(ladder._Batches, "_fill", counted)
        else:
            _no_ladder(mp)
        stops = [] if stop_at is None else [lambda sw: sw.it + 1 >= stop_at]
        out = run_chain(model, cfg, 0, stops)
    return out, batches


def same(a, b):
    assert a.iterations == b.iterations
    for f in ("iter", "model", "log_lik", "d", "accepted", "swaps"):
        assert np.array_equal(getattr(a.trace, f), getattr(b.trace, f)), f
    assert {k: (v.id, v.count, v.log_lik, v.stats) for k, v in a.visits.items()} == \
        {k: (v.id, v.count, v.log_lik, v.stats) for k, v in b.visits.items()}
    for f in ("accepted", "moves", "swaps", "heats", "round_trips", "best_log_lik",
              "best_model"):
        assert getattr(a, f) == getattr(b, f), f


@pytest.mark.parametrize("settings", [
    dict(proposal=COMPILED_MIXTURE, temper=4, iterations=700, burn_in=150),
    dict(proposal=COMPILED_MIXTURE, temper=2, iterations=300, burn_in=30),
    dict(proposal="regrow:0.5,change:0.3,perturb:2:0.2", temper=3, swap="random",
         iterations=400, burn_in=0, thin=3),
    dict(proposal="swap:0.4,exact:1:0.2,regrow:0.4", temper=5, adapt_ladder=False,
         iterations=300, burn_in=50, thin=2),
    dict(proposal=COMPILED_MIXTURE, temper=1, iterations=900, burn_in=100, thin=2),
])
def test_batches_make_the_plain_kernel_s_chain(kyphosis, monkeypatch, settings):
    a, batches = chain(kyphosis, monkeypatch, True, **settings)
    b, _ = chain(kyphosis, monkeypatch, False, **settings)
    assert batches and batches[0] == 0          # the batches ran, from the first sweep
    assert len(a.trace) > 50 and a.accepted > 0
    assert sum(n for n, _ in a.swaps.values()) or settings["temper"] == 1
    same(a, b)


def test_under_box_constraints(boxed, monkeypatch):
    s = dict(proposal=BOX_MIXTURE, temper=3, iterations=400, burn_in=100)
    a, batches = chain(boxed, monkeypatch, True, **s)
    assert batches
    same(a, chain(boxed, monkeypatch, False, **s)[0])


def test_a_chain_stopped_inside_a_batch_reports_the_same(kyphosis, monkeypatch):
    s = dict(proposal=COMPILED_MIXTURE, temper=3, iterations=1000, burn_in=100)
    a, _ = chain(kyphosis, monkeypatch, True, stop_at=437, **s)
    b, _ = chain(kyphosis, monkeypatch, False, stop_at=437, **s)
    assert a.iterations == 437
    same(a, b)


def test_a_deeper_exact_move_keeps_the_plain_kernel(kyphosis, monkeypatch):
    s = dict(proposal="exact:2:0.3,regrow:0.7", temper=3, iterations=60, burn_in=10)
    _, batches = chain(kyphosis, monkeypatch, True, **s)
    assert batches == []


@pytest.mark.parametrize("prior", sorted(PRIORS))
@pytest.mark.parametrize("settings", [
    dict(proposal="sweep", temper=4, iterations=500, burn_in=100),
    dict(proposal="change:0.6,sweep:0.4", temper=3, swap="random", iterations=600,
         burn_in=0, thin=2),
    dict(proposal="change:0.5,sweep:0.5", temper=1, iterations=800, burn_in=50),
])
def test_network_batches_make_the_plain_kernel_s_chain(data, monkeypatch, prior,  # noqa: F811
                                                       settings):
    path, params = PRIORS[prior]
    m = model_of(data, path, **params)[1]
    a, batches = chain(m, monkeypatch, True, **settings)
    b, _ = chain(m, monkeypatch, False, **settings)
    assert batches and len(a.visits) > 5
    assert sum(n for n, _ in a.swaps.values()) or settings["temper"] == 1
    same(a, b)


def smc_both_ways(m, monkeypatch, proposal, module):
    """SMC's run with the particles moved in groups, and one at a time."""
    from slpy.mcmc.paths import fast_path, resolve_path
    from slpy.mcmc.smc import smc
    cfg, _ = resolve_path(m, RunConfig(method="smc", temper=1, proposal=proposal))

    def run(grouped):
        with monkeypatch.context() as mp:
            if not grouped:
                mp.setattr(module._Particles, "move_all", lambda *a: None)
            parts = fast_path(cfg, m).particles(m, cfg)
            return smc(m, np.random.default_rng(3), n=40, steps=3, particles=parts)
    return run(True), run(False)


@pytest.mark.parametrize("proposal", [COMPILED_MIXTURE, "regrow:0.5,change:0.5"])
def test_smc_particles_moved_in_groups_are_moved_as_one_at_a_time(kyphosis, monkeypatch,
                                                                   proposal):
    import slpy.compiled.path as path
    a, b = smc_both_ways(kyphosis, monkeypatch, proposal, path)
    same_population(a, b)


@pytest.mark.parametrize("proposal", ["sweep", "change:0.5,sweep:0.5"])
def test_smc_network_particles_in_groups_too(data, monkeypatch, proposal):  # noqa: F811
    import slpy.compiled.network as network
    path, params = PRIORS["expert"]      # required, forbidden and ordered pairs
    m = model_of(data, path, **params)[1]
    a, b = smc_both_ways(m, monkeypatch, proposal, network)
    same_population(a, b)


def same_population(a, b):
    assert len(a.heats) > 3 and a.accepted > 0
    assert (a.log_evidence, a.heats, a.accepted, a.proposed) == \
        (b.log_evidence, b.heats, b.accepted, b.proposed)
    assert [(s.key, s.log_lik, s.stats, s.d) for s in a.states] == \
        [(s.key, s.log_lik, s.stats, s.d) for s in b.states]

