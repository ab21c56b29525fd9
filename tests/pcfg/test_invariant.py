"""The invariant that ties the back end to the sampler: the exact distribution equals
the frequencies of backtrackable sampling (chi-square, fixed seeds); exact samples and
path samples follow the exact probabilities."""
import math
from collections import Counter

import numpy as np
import pytest
from scipy.stats import chisquare

from slpy.data.dataset import load_csv
from slpy.pcfg.hypergraph import TabledPosterior
from slpy.pcfg.inside import TreePosterior
from slpy.pcfg.grammar import growtree_grammar, phi_grammar
from slpy.pcfg.tabled import compile_slp
from slpy.trees.likelihood import DirichletLikelihood
from slpy.trees.term import canonical

from ..conftest import EXAMPLES
from .conftest import tiny_dataset, program

P_MIN = 1e-3


def chi2_pvalue(counts: Counter, probs: dict, n: int) -> float:
    """Chi-square p-value of observed counts against exact probabilities; categories
    expected fewer than 5 times are pooled (and every unseen one is in the pool)."""
    assert abs(sum(probs.values()) - 1) < 1e-9
    assert set(counts) <= set(probs), set(counts) - set(probs)
    obs, exp = [], []
    po = pe = 0.0
    for k, p in probs.items():
        if n * p >= 5:
            obs.append(counts.get(k, 0))
            exp.append(n * p)
        else:
            po += counts.get(k, 0)
            pe += n * p
    if pe > 0:
        obs.append(po)
        exp.append(pe)
    assert len(obs) >= 3
    return chisquare(obs, exp).pvalue


def tree_probs(post):
    """canonical key -> exact probability, over every tree (k-best until exhausted)."""
    out = {}
    for lp, d in post.kbest(100_000):
        out[canonical(post.term(d))] = math.exp(lp)
    return out


def sampler_counts(p, n, seed, key=canonical):
    rng = np.random.default_rng(seed)
    c = Counter()
    for _ in range(n):
        s = p.sample("cart(T)", rng)
        c[key(s.bindings["T"])] += 1
    return c


def test_growtree_sampler_matches_exact_prior():
    ds = load_csv(EXAMPLES / "kyphosis.csv").take(np.arange(16))
    p = program("growtree.slp", ds, min_leaf=3)
    post = TreePosterior(growtree_grammar(p.rowsets, 0.95, 1.0, 3))
    probs = tree_probs(post)
    n = 4000
    assert chi2_pvalue(sampler_counts(p, n, 20240611), probs, n) > P_MIN


def test_phi_sampler_matches_exact_prior():
    ds = tiny_dataset()
    p = program("phi.slp", ds, log_phi=1)
    post = TreePosterior(phi_grammar(p.rowsets, 1.0))
    probs = tree_probs(post)
    n = 4000
    assert chi2_pvalue(sampler_counts(p, n, 7), probs, n) > P_MIN


def test_renormalising_program_sampler(tmp_path):
    f = tmp_path / "s.slp"
    f.write_text("0.3 :: s(_, leaf).\n"
                 "0.7 :: s(N, node(L, R)) :- N > 0, M is N - 1, s(M, L), s(M, R).\n"
                 "cart(T) :- s(2, T).\n")
    from slpy import Program
    p = Program()
    p.consult(f)
    post = TabledPosterior(compile_slp(p, "cart(T)"))
    probs = Counter()
    for lp, d in post.enumerate():
        probs[str(post.answer(d)["T"])] += math.exp(lp)
    assert abs(probs["leaf"] - 0.3) < 1e-12
    n = 3000
    assert chi2_pvalue(sampler_counts(p, n, 3, key=str), dict(probs), n) > P_MIN


@pytest.mark.parametrize("with_data", [False, True])
def test_exact_samples_follow_exact_probabilities(with_data):
    ds = tiny_dataset()
    lik = DirichletLikelihood.from_dataset(ds) if with_data else None
    from slpy.data.rowsets import RowSets
    post = TreePosterior(growtree_grammar(RowSets(ds), 0.95, 1.0, 1), lik)
    probs = tree_probs(post)
    n = 5000
    draws = post.sample(np.random.default_rng(11), n)
    counts = Counter(canonical(post.term(d)) for d in draws)
    assert chi2_pvalue(counts, probs, n) > P_MIN


def test_path_sampling_estimates_the_exact_predictive():
    ds = tiny_dataset()
    from slpy.data.rowsets import RowSets
    post = TreePosterior(phi_grammar(RowSets(ds), 1.0),
                         DirichletLikelihood.from_dataset(ds))
    X = np.array([[0.0, 0.0], [2.5, 1.0], [4.0, 3.0], [1.0, 2.0]])
    exact = post.predict_proba(X)
    n = 20000
    leaves = post.path_leaves(X, n, np.random.default_rng(5))
    est = post.leaf_predictions()[leaves].mean(axis=1)
    sd = post.leaf_predictions()[leaves].std(axis=1) / math.sqrt(n)
    assert (np.abs(est - exact) < 5 * sd + 1e-12).all()
    # the same estimate through the public helper
    est2 = post.path_sample(X, n, np.random.default_rng(5))
    np.testing.assert_allclose(est, est2)
