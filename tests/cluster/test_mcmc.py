"""Proof-tree MCMC on the clustering priors samples the exact posterior over all 877
partitions of 7 items (slpy.cluster.exact), with a flat likelihood and with data
(chi-square, fixed seeds): chains' visit frequencies, and replicas started from exact
draws that each move must leave where they are.

Generic moves in the parametrisation (q0, change, uc and mixtures with them) are
checked too: the CRP's choices depend on earlier ones (how many clusters are open), the
case the generic replay moves must get right.
"""
from collections import Counter
from pathlib import Path

import numpy as np
import pytest

from slpy import Program
from slpy.cluster.data import cluster_from_arrays
from slpy.cluster.exact import exact_posterior
from slpy.cluster.partition import ClusterScorer, parse_key
from slpy.cluster.score import BlockScorer
from slpy.mcmc.kernel import build_kernel
from slpy.mcmc.model import PosteriorModel
from slpy.mcmc.sampler import run_chain
from slpy.terms.term import Struct, mklist

from ..mcmc.test_correctness import chi2_pvalue

ROOT = Path(__file__).resolve().parents[2]
CRP = ROOT / "priors" / "crp.slp"
BOUNDED = ROOT / "priors" / "crp_bounded.slp"
N = 7
# a posterior spread over many partitions (no partition above 0.11)
DATA = cluster_from_arrays(np.array([0.1, 0.5, 0.9, 1.3, 0.3, 1.1, 0.7]),
                           np.array([0, 1, 0, 1, 0, 1, 1]), levels=[["a", "b"]])
LINKS = dict(max_clusters=3, must_link="[1-5]", cannot_link="[2-3]")
LINKS_KW = dict(max_clusters=3, must=[(1, 5)], cannot=[(2, 3)])


def model(prior=CRP, with_data=True, **params):
    p = Program()
    p.consult(prior)
    p.attach("cluster", N)
    for k, v in params.items():
        p.set_param(k, p.parse_query(v)[0] if isinstance(v, str) else v)
    blocks = BlockScorer(DATA) if with_data else None
    return PosteriorModel(p, "cluster(P)", ClusterScorer(N, blocks))


def exact(m, heat=1.0, **kw):
    blocks = m.scorer.blocks
    return exact_posterior(N, blocks.block if blocks else None, alpha=1.0, heat=heat,
                           **kw).by_key()


@pytest.fixture(scope="module")
def flat():
    m = model(with_data=False)
    return m, exact(m)


@pytest.fixture(scope="module")
def posterior():
    m = model()
    return m, exact(m)


@pytest.fixture(scope="module")
def bounded():
    m = model(BOUNDED, **LINKS)
    return m, exact(m, **LINKS_KW)


def test_the_exact_posterior_is_spread(posterior, bounded):
    _, probs = posterior
    assert len(probs) == 877 and abs(sum(probs.values()) - 1) < 1e-12
    assert max(probs.values()) < 0.11 and sum(x > 1e-3 for x in probs.values()) > 90
    _, probs = bounded
    assert len(probs) == 81 and max(probs.values()) < 0.2


def visits(m, spec, n_keep, thin, seed, temper=1):
    counts = Counter()

    def count(sw):
        if sw.kept:
            counts[m.scorer.key(sw.state.term)] += 1
    cfg = dict(proposal=spec, temper=temper, iterations=200 + n_keep * thin, burn_in=200,
               thin=thin, seed=seed, delta_t=0.2, min_heat=0.3 if temper > 1 else None)
    run_chain(m, cfg, 0, [count])
    return counts


# thinned so that kept states are nearly independent (a step moves one of 7 items, or
# splits or merges two clusters)
@pytest.mark.parametrize("spec,thin,temper,seed", [
    ("default", 5, 1, 1), pytest.param("default", 7, 3, 1, marks=pytest.mark.slow)],
    ids=["default", "tempered"])
def test_chains_visit_partitions_with_the_exact_posterior_frequencies(posterior, spec, thin,
                                                                      temper, seed):
    m, probs = posterior
    counts = visits(m, spec, 2000, thin, seed=seed, temper=temper)
    assert len(counts) > 150
    assert chi2_pvalue(counts, probs) > 0.01


@pytest.mark.parametrize("spec,thin,seed", [("default", 5, 1), ("q0", 1, 2)])
def test_chains_with_a_flat_likelihood_visit_the_prior(flat, spec, thin, seed):
    m, probs = flat
    assert chi2_pvalue(visits(m, spec, 2000, thin, seed=seed), probs) > 0.01


@pytest.mark.slow
def test_chains_on_the_bounded_prior_visit_its_posterior(bounded):
    # the must-link keeps rows 1 and 5 together: only a split or merge moves them
    m, probs = bounded
    counts = visits(m, "default", 2000, 25, seed=1)
    assert set(counts) <= set(probs)
    assert chi2_pvalue(counts, probs) > 0.01


@pytest.mark.slow
# the generic moves mix slowly here (a change relabels the clusters opened after it;
# q0 draws whole partitions from the prior): thinned more
@pytest.mark.parametrize("spec,thin,seed", [
    ("reassign", 15, 8), ("splitmerge", 9, 8), ("change", 60, 3), ("uc", 60, 3),
    ("q0", 60, 3), ("reassign:0.5,change:0.5", 11, 8), ("reassign:0.5,uc:0.5", 15, 3)])
def test_long_chains_of_each_move(posterior, spec, thin, seed):
    m, probs = posterior
    assert chi2_pvalue(visits(m, spec, 2000, thin, seed=seed), probs) > 0.01


# ---- each move leaves the posterior where it is ---------------------------------------

def _term(key):
    z = [0] * N
    for k, b in enumerate(parse_key(key)):
        for i in b:
            z[i] = k + 1
    return Struct("partition", (mklist(z),))


def replica_counts(m, probs, kernel, seed, steps=2, n=2000):
    """Where n replicas end after `steps` steps of `kernel`, each started from an
    exact draw of `probs` (a kernel that leaves it invariant keeps it)."""
    rng = np.random.default_rng(seed)
    keys = sorted(probs)
    p = np.array([probs[k] for k in keys])
    counts, states = Counter(), {}
    for _ in range(n):
        k = keys[rng.choice(len(keys), p=p / p.sum())]
        s = states.get(k)
        if s is None:
            s = states[k] = m.state_from_term(_term(k), rng)
        for it in range(steps):
            s, _ = kernel(rng, s, it)
        counts[m.scorer.key(s.term)] += 1
    return counts


MOVES = ["reassign", "splitmerge", "default", "q0", "change", "uc",
         "reassign:0.4,change:0.3,uc:0.3"]


@pytest.mark.parametrize("spec", MOVES)
def test_moves_leave_the_posterior_invariant(posterior, spec):
    m, probs = posterior
    counts = replica_counts(m, probs, build_kernel(m, spec), seed=5)
    assert chi2_pvalue(counts, probs) > 0.01


@pytest.mark.parametrize("spec", ["reassign", "splitmerge", "change", "uc"])
def test_moves_leave_the_bounded_posterior_invariant(bounded, spec):
    m, probs = bounded
    counts = replica_counts(m, probs, build_kernel(m, spec), seed=9)
    assert set(counts) <= set(probs)
    assert chi2_pvalue(counts, probs) > 0.01


@pytest.mark.parametrize("spec", ["reassign", "splitmerge"])
def test_the_family_moves_at_a_lower_heat_leave_their_own_target_invariant(posterior, spec):
    m, _ = posterior
    probs = exact(m, heat=0.4)
    counts = replica_counts(m, probs, build_kernel(m, spec, heat=0.4), seed=10, steps=1)
    assert chi2_pvalue(counts, probs) > 0.01


def test_a_move_without_its_correction_is_caught(posterior):
    m, probs = posterior
    wrong = build_kernel(m, "reassign", heat=0.0)      # the prior's kernel
    assert chi2_pvalue(replica_counts(m, probs, wrong, seed=6), probs) < 1e-4
