"""Trees on a categorical feature and a feature with missing values, against a
brute-force enumeration of every tree: the prior sampler's frequencies, the exact back
end's prior, posterior and predictive, and the MCMC's moves (chi-square, fixed seeds).

The data: the first 24 rows of kyphosis with ``Number`` read as categories (5 levels:
all 15 two-way splits are candidates) and ``Start`` missing in every fifth row
(``--missing split``: each split of Start where missing rows are comes with them on
either side). GROWTREE with min_leaf 5 has 6,730 trees on them.
"""
import math
from collections import Counter
from pathlib import Path

import numpy as np
import pytest
from scipy.special import gammaln

from slpy import Program
from slpy.data import Dataset, load_csv
from slpy.mcmc.kernel import build_kernel
from slpy.mcmc.model import PosteriorModel
from slpy.mcmc.moves import DEFAULT_PROPOSAL, resolve_proposal
from slpy.pcfg.compile import compile_exact
from slpy.pcfg.inside import TreePosterior
from slpy.trees import make_likelihood
from slpy.trees.family import TreeScorer
from slpy.trees.likelihood import DirichletLikelihood
from slpy.trees.model import Tree
from slpy.trees.term import FlatTree, canonical, leaf_row_ids, parse

from ..data.test_categorical import brute_splits
from .test_correctness import chi2_pvalue
from .test_moves import exact_draw

ROOT = Path(__file__).resolve().parents[2]
ALPHA, BETA, MIN_LEAF = 0.95, 1.0, 5


@pytest.fixture(scope="module")
def data():
    ky = load_csv(ROOT / "examples" / "data" / "kyphosis.csv").take(np.arange(24))
    X = ky.X.copy()
    numbers = sorted(set(int(v) for v in X[:, 1]))
    X[:, 1] = [numbers.index(int(v)) for v in X[:, 1]]
    X[::5, 2] = np.nan
    return Dataset(X, ky.y, ky.feature_names, ky.classes,
                   levels=[None, [str(v) for v in numbers], None], missing=True)


def split_text(levels, f, side, test):
    if levels[f] is None:
        v = int(test) if test == int(test) else test
        text = repr(v)
    else:
        text = "in([" + ",".join(levels[f][c] for c in test) + "])"
    return f"na({['', 'left', 'right'][side]},{text})" if side else text


def enumerate_trees(ds):
    """{canonical text: (prior probability, [leaf rows])} of every GROWTREE tree,
    written directly from the brute-force splits (no row sets, no grammar)."""
    def trees(rows, d):
        splits = sorted(brute_splits(ds.X, ds.levels, rows, MIN_LEAF), key=repr)
        if not splits:
            return [("leaf", 1.0, [rows])]
        ps = ALPHA * (1 + d) ** (-BETA)
        out = [("leaf", 1.0 - ps, [rows])]
        for f, side, test, left in splits:
            lrows = np.array(sorted(left))
            rrows = np.array(sorted(set(rows.tolist()) - left))
            head = f"node({ds.feature_names[f]},{split_text(ds.levels, f, side, test)},"
            for lt, lp, ll in trees(lrows, d + 1):
                for rt, rp, rl in trees(rrows, d + 1):
                    out.append((f"{head}{lt},{rt})", ps / len(splits) * lp * rp, ll + rl))
        return out
    out = {}
    for text, p, leaves in trees(np.arange(ds.n_rows), 0):
        assert text not in out
        out[text] = (p, leaves)
    return out


@pytest.fixture(scope="module")
def space(data):
    trees = enumerate_trees(data)
    assert len(trees) == 6730
    assert math.isclose(sum(p for p, _ in trees.values()), 1.0, rel_tol=1e-12)
    return trees


def log_lik(ds, leaves):
    """Dirichlet(1, 1) marginal log-likelihood of the leaves."""
    out = 0.0
    for rows in leaves:
        c = np.bincount(ds.y[rows], minlength=2)
        out += gammaln(c + 1).sum() - gammaln(c.sum() + 2)
    return out


def posterior(ds, trees):
    logw = {t: math.log(p) + log_lik(ds, leaves) for t, (p, leaves) in trees.items()}
    top = max(logw.values())
    z = sum(math.exp(w - top) for w in logw.values())
    return {t: math.exp(w - top) / z for t, w in logw.items()}


def program(ds):
    p = Program()
    p.consult(ROOT / "priors" / "growtree.slp")
    p.set_param("min_leaf", MIN_LEAF)
    p.attach_data(ds)
    return p


def test_texts_parse_back_and_route_rows_as_the_splits_do(data, space):
    for text, (_, leaves) in list(space.items())[::37]:
        flat = parse(text, data)
        assert flat.text() == text
        leaf = flat.leaf_of(data.X)
        assert [np.flatnonzero(leaf == k).tolist() for k in range(flat.n_leaves)] == \
            [list(rows) for rows in leaves]


def test_the_prior_sampler_draws_trees_with_their_probabilities(data, space):
    p = program(data)
    rng = np.random.default_rng(11)
    counts = Counter()
    for _ in range(4000):
        t = p.sample("cart(T)", rng=rng).bindings["T"]
        counts[canonical(t)] += 1
        if len(counts) < 40:        # the terms hold the row sets the splits made
            rows = [p.rowsets.rows(r).tolist() for r in leaf_row_ids(t)]
            assert rows == [list(r) for r in space[canonical(t)][1]]
    assert chi2_pvalue(counts, {t: p for t, (p, _) in space.items()}) > 0.01


def test_the_exact_back_end_gives_every_tree_its_probability(data, space):
    p = program(data)
    lik = DirichletLikelihood.from_dataset(data)
    model = compile_exact(p, "cart(T)", lik, seed=0)
    assert model.route == "tree" and model.checked > 0     # recognised, and checked
    post = model.post
    prior = TreePosterior(post.grammar)
    exact = posterior(data, space)
    for text, (pr, _) in space.items():
        term = parse(text, data).term()
        assert math.isclose(math.exp(prior.log_prob_term(term)), pr, rel_tol=1e-9)
        assert math.isclose(math.exp(post.log_prob_term(term)), exact[text], rel_tol=1e-9)
    (lp, d), = post.kbest(1)
    assert canonical(post.term(d)) == max(exact, key=exact.get)


def test_the_exact_predictive_averages_the_trees(data, space):
    """New rows with a level the data lack (code -1) and missing values: the exact
    predictive (numba, over the grammar) against every tree's prediction (Tree, routed
    by slpy.trees.term) weighted by its posterior probability."""
    p = program(data)
    post = compile_exact(p, "cart(T)", DirichletLikelihood.from_dataset(data), seed=0).post
    rng = np.random.default_rng(3)
    X = data.X[rng.integers(0, data.n_rows, 12)].copy()
    X[:3, 1] = -1                          # a level the training data do not have
    X[3:6, 2] = np.nan                     # missing where no split recorded a side too
    X[6:8, 0] = np.nan
    exact = posterior(data, space)
    want = np.zeros((len(X), 2))
    for text, w in exact.items():
        want += w * Tree.from_canonical(text, p.rowsets, data).predict_proba(X)
    np.testing.assert_allclose(post.predict_proba(X), want, atol=1e-10)


@pytest.fixture(scope="module")
def targets(data, space):
    """(model, exact probabilities, the largest log-likelihood of a tree)."""
    out = {}
    for with_data in (False, True):
        p = program(data)
        lik = make_likelihood("dirichlet", data) if with_data else None
        m = PosteriorModel(p, "cart(T)", TreeScorer(p, lik))
        probs = posterior(data, space) if with_data else {t: pr for t, (pr, _) in
                                                          space.items()}
        top = max(log_lik(data, leaves) for _, leaves in space.values()) if with_data \
            else 0.0
        out[with_data] = (m, probs, top)
    return out


SPECS = ["uc", "change", "perturb", "swap", DEFAULT_PROPOSAL]


@pytest.mark.parametrize("spec,with_data", [(s, False) for s in SPECS] + [
    pytest.param(s, True, marks=pytest.mark.slow) for s in SPECS])
def test_moves_leave_the_exact_target_invariant(targets, spec, with_data):
    """Replicas drawn from the exact target (the prior, accepted with probability
    L / L_max) take three steps of the kernel and are still distributed as the target.
    (With the data, drawing the replicas takes minutes: -m slow.)"""
    m, probs, top = targets[with_data]
    assert "exact" not in resolve_proposal(m, spec)      # the exact move stands aside
    kernel = build_kernel(m, spec)
    rng = np.random.default_rng(1)
    counts = Counter()
    for _ in range(3000):
        s = exact_draw(m, rng, top)
        for it in range(3):
            s, _ = kernel(rng, s, it)
        counts[canonical(s.term)] += 1
    assert chi2_pvalue(counts, probs) > 0.01


def test_a_chain_visits_trees_with_their_posterior_probabilities(targets):
    """Thinned so that kept trees are nearly independent (on these data a uc chain
    needs about 30 iterations; the chi-square test assumes independent draws)."""
    m, probs, _ = targets[True]
    rng = np.random.default_rng(5)
    kernel = build_kernel(m, "uc")
    s = m.sample_prior(rng)
    counts = Counter()
    for it in range(200 + 1500 * 30):
        s, _ = kernel(rng, s, it)
        if it >= 200 and (it - 200) % 30 == 0:
            counts[canonical(s.term)] += 1
    assert chi2_pvalue(counts, probs) > 0.01
    assert FlatTree.from_term(s.term, m.program.dataset).text() == canonical(s.term)
