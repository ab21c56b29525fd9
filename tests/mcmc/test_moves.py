"""The local, swap and exact moves and their mixtures are exact: they leave the exact
prior (flat likelihood) and the exact posterior (20 kyphosis rows, every tree
enumerated) invariant, and their chains visit trees with the exact frequencies
(chi-square, fixed seeds). A deliberately wrong correction is caught by the same test.

Two kinds of test:

- *stationarity*: start many replicas from exact draws of the target, take a few
  steps of the kernel, and compare where they end with the target. A kernel that
  leaves the target invariant passes whatever its autocorrelation; a wrong one is
  caught after a step or two.
- *visits*: one long chain, thinned enough that kept states are nearly independent.
"""
import math
from collections import Counter

import numpy as np
import pytest

from slpy.mcmc.sampler import run_chain
from slpy.mcmc.kernel import build_kernel
from slpy.mcmc.moves import Move, make_moves, DEFAULT_PROPOSAL
from slpy.trees.term import canonical

from .test_correctness import chi2_pvalue, exact, model_for


@pytest.fixture(scope="module")
def small():
    from .test_correctness import ROOT
    from slpy.data import load_csv
    return load_csv(ROOT / "examples" / "data" / "kyphosis.csv").take(np.arange(20))


@pytest.fixture(scope="module")
def targets(small):
    """(model, exact probabilities) with a flat likelihood and with the data."""
    out = {}
    for with_data in (False, True):
        m = model_for(small, with_data)
        out[with_data] = (m, exact(m, small, with_data))
    return out


def exact_draw(m, rng, log_lik_max):
    """A state drawn from the exact target: the prior, accepted with probability
    L / L_max (rejection sampling)."""
    while True:
        s = m.sample_prior(rng)
        if math.log(rng.random()) < s.log_lik - log_lik_max:
            return s


def stationarity_pvalue(m, probs, kernel, n=5000, steps=3, seed=1, heat=1.0):
    rng = np.random.default_rng(seed)
    top = max(m.log_lik(t) for t in _terms(m, rng, 300)) if m.scorer.likelihood else 0.0
    counts = Counter()
    for _ in range(n):
        s = exact_draw(m, rng, top)
        for it in range(steps):
            s, _ = kernel(rng, s, it)
        counts[canonical(s.term)] += 1
    return chi2_pvalue(counts, probs)


def _terms(m, rng, n):
    # the most likely trees of the small space are found among a few hundred draws;
    # an L_max below the true maximum would only bias the draws towards it, and the
    # exact probabilities say whether it did (the tests would fail)
    return [m.sample_prior(rng).term for _ in range(n)]


def visit_pvalue(m, probs, proposal, n_keep, thin, seed, temper=1, **tempering):
    # the engine's moves (tests/compiled checks the compiled path's)
    cfg = dict(proposal=proposal, temper=temper, iterations=200 + n_keep * thin,
               burn_in=200, thin=thin, seed=seed, delta_t=0.2, path="engine", **tempering)
    counts = Counter()

    def count(sw):
        if sw.kept:
            counts[canonical(sw.state.term)] += 1
    run_chain(m, cfg, 0, [count])
    return chi2_pvalue(counts, probs)


MOVES = ["change", "swap", "perturb", "perturb:1", "exact", "exact:1", DEFAULT_PROPOSAL,
         "uc:0.3,change:0.3,swap:0.2,exact:0.2", "uc:0.2,perturb:0.3,exact:1:0.5"]


@pytest.mark.parametrize("with_data", [False, True], ids=["prior", "posterior"])
@pytest.mark.parametrize("spec", MOVES)
def test_moves_leave_the_target_invariant(targets, spec, with_data):
    m, probs = targets[with_data]
    assert stationarity_pvalue(m, probs, build_kernel(m, spec)) > 0.01


def test_a_kernel_at_a_lower_heat_leaves_its_own_target_invariant(targets, small):
    # the exact move's conditional and the local moves' ratios both depend on the heat
    m, _ = targets[True]
    heat = 0.4
    probs = _tempered(m, small, heat)
    kernel = build_kernel(m, "change:0.4,swap:0.2,exact:0.4", heat=heat)
    rng = np.random.default_rng(7)
    top = max(heat * m.log_lik(t) for t in _terms(m, rng, 300))
    counts = Counter()
    for _ in range(4000):
        while True:
            s = m.sample_prior(rng)
            if math.log(rng.random()) < heat * s.log_lik - top:
                break
        for it in range(3):
            s, _ = kernel(rng, s, it)
        counts[canonical(s.term)] += 1
    assert chi2_pvalue(counts, probs) > 0.01


def _tempered(m, ds, heat):
    from .exact_growtree import enumerate_trees
    trees = enumerate_trees(m.scorer.rowsets, ds.feature_names, 0.95, 1.0, 5)
    logw = np.array([np.log(p) + heat * m.scorer.likelihood.log_likelihood(m.scorer.rowsets, leaves)
                     for _, p, leaves in trees])
    w = np.exp(logw - logw.max())
    return {k: x for (k, _, _), x in zip(trees, w / w.sum())}


# thinning: the local moves change little per step, so kept states must be further
# apart than for prune-and-regrow (the long chains of single moves run with -m slow)
@pytest.mark.parametrize("with_data", [False, True], ids=["prior", "posterior"])
@pytest.mark.parametrize("spec,thin", [
    pytest.param("change", 40, marks=pytest.mark.slow),
    pytest.param("exact", 15, marks=pytest.mark.slow),
    pytest.param("exact:1", 15, marks=pytest.mark.slow),
    pytest.param("uc:0.5,swap:0.5", 30, marks=pytest.mark.slow),
    pytest.param("uc:0.5,perturb:0.5", 30, marks=pytest.mark.slow),
    (DEFAULT_PROPOSAL, 15)])
def test_chains_visit_trees_with_the_exact_frequencies(targets, spec, thin, with_data):
    m, probs = targets[with_data]
    assert visit_pvalue(m, probs, spec, 2000, thin, seed=3) > 0.01


def test_adapted_neighbour_tempering_visits_the_exact_posterior(targets):
    m, probs = targets[True]
    assert visit_pvalue(m, probs, DEFAULT_PROPOSAL, 2000, 10, seed=5, temper=4,
                        swap="neighbours", min_heat=0.2, adapt_ladder=True) > 0.01


def _wrong(move: Move, fix) -> Move:
    def propose(rng, state, it, heat):
        new, log_r = move.propose(rng, state, it, heat)
        return new, (log_r if new is None else fix(log_r, state, new, heat))
    return Move(move.name + "-wrong", propose)


@pytest.mark.parametrize("spec,fix", [
    # the change move without the d_T / d_T' factor of picking the node
    ("change", lambda r, s, n, h: r - math.log(s.d) + math.log(n.d)),
    # the exact move forgetting that its conditional already holds the likelihood
    ("exact", lambda r, s, n, h: r + h * (n.log_lik - s.log_lik)),
    # perturb:1 without N(i) / N(j): an end candidate has one neighbour, others two
    ("perturb:1", None),
])
def test_a_wrong_correction_is_detected(targets, spec, fix):
    m, probs = targets[True]
    if fix is None:
        move = _perturb_without_neighbour_counts(m)
    else:
        (move, _), = make_moves(m, spec)
        move = _wrong(move, fix)
    kernel = build_kernel(m, [(move, 1.0)])
    assert stationarity_pvalue(m, probs, kernel) < 1e-4


def _perturb_without_neighbour_counts(m) -> Move:
    from slpy.mcmc import moves
    real = moves._neighbours
    move = moves.perturb_move(m, 1)

    def propose(rng, state, it, heat):
        moves._neighbours = lambda i, n, k: 1
        try:
            return move.propose(rng, state, it, heat)
        finally:
            moves._neighbours = real
    return Move("perturb-wrong", propose)
