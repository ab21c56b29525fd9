"""Proof-tree MCMC on the Bayesian-network prior samples the exact posterior over all
DAGs on 4 nodes (every DAG enumerated, slpy.bn.exact), with and without tempering
(chi-square, fixed seeds); the prior the SLP defines is the one docs/bn.md states."""
import math
from collections import Counter

import numpy as np
import pytest

from slpy import Program
from slpy.bn.data import discrete_from_arrays
from slpy.bn.exact import all_dags, exact_posterior, parent_sets
from slpy.bn.family import BNScorer, BN
from slpy.bn.sample import forward_sample
from slpy.bn.score import FamilyScorer
from slpy.mcmc.sampler import run_chain
from slpy.mcmc.kernel import build_kernel
from slpy.mcmc.model import PosteriorModel

from ..mcmc.test_correctness import ROOT, chi2_pvalue

PRIOR = ROOT / "priors" / "bn.slp"
NAMES = ["a", "b", "c", "d"]


@pytest.fixture(scope="module")
def data():
    # 25 samples of a -> b -> c <- d: a posterior spread over many DAGs
    rng = np.random.default_rng(11)
    parents = [(), (0,), (1, 3), ()]
    cpts = [np.array([[0.3, 0.7]]), np.array([[0.8, 0.2], [0.2, 0.8]]),
            np.array([[0.9, 0.1], [0.4, 0.6], [0.5, 0.5], [0.1, 0.9]]),
            np.array([[0.5, 0.5]])]
    codes = forward_sample(rng, parents, cpts, np.array([2, 2, 2, 2]), 25)
    return discrete_from_arrays(codes, names=NAMES, levels=[2, 2, 2, 2])


def program(data, link=0.4, max_parents=2):
    p = Program()
    p.consult(PRIOR)
    p.set_param("link", link)
    p.set_param("max_parents", max_parents)
    BN.bind(p, data, {})
    return p


def slp_prior(p, scorer):
    """key -> probability, from every proof of the prior (the engine's enumeration)."""
    probs = Counter()
    for pr in p.proofs("bn(G)"):
        probs[scorer.key(pr.bindings["G"])] += pr.prob
    z = sum(probs.values())
    return {k: v / z for k, v in probs.items()}


def formula_log_prior(row, link, max_parents):
    """docs/bn.md: (1 - link) per unlinked pair, link / 2 per edge, on DAGs of
    in-degree <= max_parents."""
    ps = parent_sets(row)
    if max(len(p) for p in ps) > max_parents:
        return -math.inf
    edges = sum(len(p) for p in ps)
    pairs = len(row) * (len(row) - 1) // 2
    return edges * math.log(link / 2) + (pairs - edges) * math.log(1 - link)


def test_the_slp_prior_is_the_documented_product(data):
    p = program(data)
    scorer = BNScorer(NAMES, None)
    probs = slp_prior(p, scorer)
    dags = all_dags(4)
    logw = np.array([formula_log_prior(r, 0.4, 2) for r in dags])
    w = np.exp(logw - logw.max())
    w /= w.sum()
    want = {scorer.key_of(parent_sets(r)): x for r, x in zip(dags, w) if x > 0}
    assert set(probs) == set(want)
    assert len(want) == 543 - sum(1 for r in dags if max(bin(m).count("1") for m in r) > 2)
    for k, x in want.items():
        assert probs[k] == pytest.approx(x, rel=1e-9)


@pytest.fixture(scope="module")
def target(data):
    """(model, exact posterior probabilities by key) over all 543 DAGs on 4 nodes."""
    p = program(data, max_parents=3)
    fs = FamilyScorer(data)
    m = PosteriorModel(p, "bn(G)", BNScorer(NAMES, fs))
    dags = all_dags(4)
    post = exact_posterior(4, fs.local, np.array([formula_log_prior(r, 0.4, 3)
                                                  for r in dags]))
    probs = {m.scorer.key_of(parent_sets(r)): float(x)
             for r, x in zip(post.dags, post.prob) if x > 0}
    return m, probs, post


def test_the_exact_posterior_is_spread(target):
    _, probs, _ = target
    assert len(probs) == 543
    assert max(probs.values()) < 0.2 and sum(x > 1e-3 for x in probs.values()) > 100


def _visits(m, cfg):
    counts = Counter()

    def count(sw):
        if sw.kept:
            counts[m.scorer.key(sw.state.term)] += 1
    run_chain(m, cfg, 0, [count])
    return counts


# thinned so that kept states are nearly independent (a single-site move changes one
# pair a step; thin 6 left the untempered chain's chi-square too small at some seeds)
@pytest.mark.parametrize("temper,thin", [(1, 15), (4, 8)], ids=["untempered", "tempered"])
def test_chains_visit_dags_with_the_exact_posterior_frequencies(target, temper, thin):
    m, probs, _ = target
    # the engine's proof trees (the compiled network path: tests/compiled/test_network.py)
    cfg = dict(proposal="default", temper=temper, iterations=300 + 2000 * thin, burn_in=300,
               thin=thin, seed=4, delta_t=0.2, min_heat=0.3 if temper > 1 else None,
               path="engine")
    counts = _visits(m, cfg)
    assert len(counts) > 100
    assert chi2_pvalue(counts, probs) > 0.01


def replica_counts(m, probs, kernel, seed, steps=2, n=3000):
    """Where n replicas end after `steps` steps of `kernel`, each started from an
    exact draw of `probs` (a kernel that leaves it invariant keeps it)."""
    from slpy.bn.family import parse_key
    rng = np.random.default_rng(seed)
    keys = sorted(probs)
    p = np.array([probs[k] for k in keys])
    counts, states = Counter(), {}
    for _ in range(n):
        k = keys[rng.choice(len(keys), p=p / p.sum())]
        s = states.get(k)
        if s is None:
            s = states[k] = m.state_from_term(_term(parse_key(k, NAMES)), rng)
        for it in range(steps):
            s, _ = kernel(rng, s, it)
        counts[m.scorer.key(s.term)] += 1
    return counts


@pytest.mark.parametrize("spec", ["uc", "change", "default", "parents",
                                  "uc:0.3,change:0.3,parents:0.4"])
def test_moves_leave_the_posterior_invariant(target, spec):
    m, probs, _ = target
    counts = replica_counts(m, probs, build_kernel(m, spec), seed=5)
    assert chi2_pvalue(counts, probs) > 0.01


def test_a_move_without_its_correction_is_caught(target):
    # uc without d_T/d_T' is still right here (d_T is the number of pairs, constant);
    # dropping the likelihood ratio is not
    m, probs, _ = target
    wrong = build_kernel(m, "change", heat=0.0)   # the prior's kernel
    assert chi2_pvalue(replica_counts(m, probs, wrong, seed=6), probs) < 1e-4


def _term(parents):
    from slpy.terms.term import Atom, Struct, mklist
    return Struct("dag", (mklist([Struct("-", (Atom(NAMES[i]), mklist(
        [Atom(NAMES[j]) for j in ps]))) for i, ps in enumerate(parents)]),))


def test_the_parents_move_at_a_lower_heat_leaves_its_own_target_invariant(target, data):
    m, _, _ = target
    heat = 0.5
    fs = m.scorer.families
    dags = all_dags(4)
    post = exact_posterior(4, lambda v, s: heat * fs.local(v, s),
                           np.array([formula_log_prior(r, 0.4, 3) for r in dags]))
    probs = {m.scorer.key_of(parent_sets(r)): float(x)
             for r, x in zip(post.dags, post.prob) if x > 0}
    counts = replica_counts(m, probs, build_kernel(m, "parents", heat=heat), seed=8,
                            steps=1)
    assert chi2_pvalue(counts, probs) > 0.01
