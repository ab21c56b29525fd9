"""The compiled chain's exact block move (slpy.compiled._exact) and every other move,
checked for stationarity: trees drawn independently from the exact posterior, each
moved once, must still be distributed as the exact posterior (chi-square on
independent draws, so no thinning is needed), and chains against the exact posterior.
"""
from collections import Counter

import numpy as np
import pytest

from slpy.compiled.growtree import CompiledPathError, GrowtreeChain
from slpy.compiled.path import preorder_of
from slpy.data import RowSets, load_csv

from ..conftest import EXAMPLES
from ..mcmc.test_correctness import chi2_pvalue, exact, model_for
from .test_growtree import check_tree


@pytest.fixture(scope="module")
def small():
    return load_csv(EXAMPLES / "kyphosis.csv").take(np.arange(20))


@pytest.fixture(scope="module")
def posterior(small):
    """(keys, probabilities, pre-order of each tree) of the exact posterior."""
    m = model_for(small, with_data=True)
    probs = exact(m, small, True)
    rng = np.random.default_rng(0)
    pre = {}
    for _ in range(20000):           # every tree's pre-order, from prior draws
        s = m.sample_prior(rng)
        pre.setdefault(m.scorer.key(s.term), preorder_of(s.term, small))
        if len(pre) == len(probs):
            break
    assert set(pre) == set(probs)
    keys = sorted(probs)
    return keys, np.array([probs[k] for k in keys]), pre, probs


# (change, swap, exact, perturb) probabilities, the exact move's depth and the perturb
# move's width; the rest is regrow
MOVES = {"regrow": (0, 0, 0, 0, 2, 3), "change": (1, 0, 0, 0, 2, 3),
         "swap": (0, 1, 0, 0, 2, 3), "exact:1": (0, 0, 1, 0, 1, 3),
         "exact:2": (0, 0, 1, 0, 2, 3), "perturb": (0, 0, 0, 1, 2, 3),
         "perturb:1": (0, 0, 0, 1, 2, 1)}
# perturb moves three times a draw: one move is too small a step for the chi-square
# to see a wrong N(i) / N(j) (without it, perturb:1's p-value fell to 5e-22 at 3)
STEPS = {"perturb": 3, "perturb:1": 3}


@pytest.mark.parametrize("move", sorted(MOVES))
def test_each_move_leaves_the_posterior_invariant(small, posterior, move):
    keys, p, pre, probs = posterior
    change, swap, ex, perturb, depth, width = MOVES[move]
    c = GrowtreeChain(small, 0.95, 1.0, 5, exact_depth=depth)
    rng = np.random.default_rng(11)
    counts = Counter()
    moved = 0
    for i in rng.choice(len(keys), size=6000, p=p):
        c.set_tree(pre[keys[i]])
        tr = c.run(STEPS.get(move, 1), rng, 1.0, change, swap, ex, perturb, width)
        moved += bool(tr["accepted"].any())
        counts[c.canonical()] += 1
    assert moved > 200
    assert chi2_pvalue(counts, probs) > 0.01


@pytest.mark.parametrize("move", ["exact", "perturb"])
def test_moves_at_a_heat_leave_the_tempered_posterior_invariant(small, posterior, move):
    keys, _, pre, probs = posterior
    m = model_for(small, with_data=True)
    heat = 0.3
    # pi_b ∝ prior * L^b: reweigh the exact posterior's prior and likelihood parts
    prior = exact(m, small, False)
    logw = np.array([np.log(prior[k]) + heat * (np.log(probs[k]) - np.log(prior[k]))
                     for k in keys])
    w = np.exp(logw - logw.max())
    w /= w.sum()
    c = GrowtreeChain(small, 0.95, 1.0, 5, exact_depth=2)
    rng = np.random.default_rng(5)
    counts = Counter()
    for i in rng.choice(len(keys), size=6000, p=w):
        c.set_tree(pre[keys[i]])
        if move == "exact":
            c.run(1, rng, heat, 0.0, 0.0, 1.0)
        else:
            c.run(1, rng, heat, perturb=1.0, width=2)
        counts[c.canonical()] += 1
    assert chi2_pvalue(counts, dict(zip(keys, w))) > 0.01


def test_a_mixture_with_the_exact_move_visits_the_posterior(small, posterior):
    probs = posterior[3]
    c = GrowtreeChain(small, 0.95, 1.0, 5, exact_depth=1)
    rng = np.random.default_rng(13)
    c.run(200, rng, 1.0, 0.2, 0.1, 0.3, 0.1)
    counts = Counter()
    for _ in range(3000):
        c.run(20, rng, 1.0, 0.2, 0.1, 0.3, 0.1)
        counts[c.canonical()] += 1
    assert chi2_pvalue(counts, probs) > 0.01


def test_the_exact_move_keeps_the_flat_tree_consistent():
    bcw = load_csv(EXAMPLES / "bcw.csv")
    c = GrowtreeChain(bcw, 0.95, 1.0, 5, exact_depth=1)
    rs = RowSets(bcw)
    rng = np.random.default_rng(3)
    accepted = 0
    for _ in range(30):
        tr = c.run(40, rng, 1.0, 0.2, 0.1, 0.4)
        check_tree(c, rs)
        accepted += int((tr["accepted"] & (tr["move"] == 3)).sum())
    assert accepted > 50


def test_same_seed_same_chain_with_the_exact_move():
    bcw = load_csv(EXAMPLES / "bcw.csv")

    def go():
        c = GrowtreeChain(bcw, exact_depth=1)
        tr = c.run(1500, np.random.default_rng(9), 1.0, 0.2, 0.1, 0.4)
        return c.canonical(), tr["log_lik"].tobytes(), tr["move"].tobytes()
    assert go() == go()


def test_set_tree_refuses_a_split_the_prior_cannot_make(small, posterior):
    c = GrowtreeChain(small)
    with pytest.raises(CompiledPathError, match="not a valid split"):
        c.set_tree([(0, 1e9), None, None])
    split = next(t[0] for t in posterior[2].values() if t[0] is not None)
    with pytest.raises(CompiledPathError, match="whole tree"):
        c.set_tree([split, None])
    with pytest.raises(CompiledPathError, match="depth"):
        GrowtreeChain(small, exact_depth=0)
