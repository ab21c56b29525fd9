"""MCMC states: a chain holds its current proof tree, not the history of earlier ones;
a given initial tree records its prior probabilities."""
import gc
from pathlib import Path

import numpy as np

from slpy import Program
from slpy.data import load_csv
from slpy.logic.proof import ProofNode
from slpy.mcmc.kernel import build_kernel
from slpy.mcmc.proposal import make_proposal
from slpy.mcmc.model import PosteriorModel
from slpy.trees.family import TreeScorer
from slpy.trees import make_likelihood

ROOT = Path(__file__).resolve().parents[2]


def growtree_model(data: str) -> PosteriorModel:
    ds = load_csv(ROOT / "examples" / "data" / f"{data}.csv")
    p = Program()
    p.consult(ROOT / "priors" / "growtree.slp")
    p.attach_data(ds)
    return PosteriorModel(p, "cart(T)", TreeScorer(p, make_likelihood("dirichlet", ds)))


def live_proof_nodes() -> int:
    gc.collect()
    return sum(1 for o in gc.get_objects() if type(o) is ProofNode)


def test_proof_trees_of_rejected_and_replaced_states_are_freed():
    m = growtree_model("kyphosis")
    k = build_kernel(m, make_proposal("uc"))
    rng = np.random.default_rng(5)
    s = m.sample_prior(rng)
    for it in range(300):
        s, _ = k(rng, s, it)
    before = live_proof_nodes()
    for it in range(1500):
        s, _ = k(rng, s, it)
    # what is alive is about the current tree; 1,500 steps of history would be
    # thousands of nodes
    assert live_proof_nodes() <= before + 3 * (s.d + 1) + 50


def test_steps_leave_no_reference_cycles():
    # what a step discards must be freed by reference counting: cyclic garbage is left
    # to Python's cycle collector, which then costs as much as the sampling itself
    m = growtree_model("kyphosis")
    k = build_kernel(m, make_proposal("uc"))
    rng = np.random.default_rng(3)
    s = m.sample_prior(rng)
    for it in range(100):
        s, _ = k(rng, s, it)
    gc.collect()
    gc.disable()
    try:
        accepted = 0
        for it in range(500):
            s, info = k(rng, s, it)
            accepted += info.accepted
        cyclic = gc.collect()
    finally:
        gc.enable()
    assert 0 < accepted < 500
    assert cyclic < 50, f"{cyclic} objects in reference cycles after 500 steps"


def test_a_given_initial_tree_records_its_prior_probabilities():
    # --init: the state built for a given tree records the same choice probabilities
    # as the state of the same tree drawn from the prior (not 1 for choices the given
    # tree decides, which would make every later proposal pay for them)
    m = growtree_model("kyphosis")
    rng = np.random.default_rng(11)
    for _ in range(5):
        s = m.sample_prior(rng)
        given = m.state_from_term(s.term, rng)
        assert given.d == s.d
        assert abs(given.tree.log_prob() - s.tree.log_prob()) < 1e-9


def test_row_set_memory_budget_bounds_the_caches_and_changes_no_chain():
    def chain(budget):
        m = growtree_model("bcw")
        p = m.program
        if budget is not None:
            p.rowsets.cache_bytes = budget
        k = build_kernel(m, make_proposal("uc"))
        rng = np.random.default_rng(11)
        s = m.sample_prior(rng)
        out, peak = [], 0
        for it in range(1500):
            s, info = k(rng, s, it)
            out.append((s.log_lik, info.accepted))
            peak = max(peak, p.rowsets.cached_bytes())
        return out, peak, p.rowsets.clears

    free, _, clears = chain(None)
    assert clears == 0
    tight, peak, clears = chain(300_000)
    assert tight == free          # dropped caches are rebuilt: same ids, same values
    assert clears >= 5
    assert peak < 300_000 + 50_000   # at most one miss's worth past the budget
