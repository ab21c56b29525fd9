"""The tree grammars equal brute-force enumeration of every tree (to 1e-10)."""
import math

import numpy as np
import pytest

from slpy.data.rowsets import RowSets
from slpy.pcfg.grammar import growtree_grammar, phi_grammar
from slpy.pcfg.inside import TreePosterior
from slpy.trees.likelihood import DirichletLikelihood
from slpy.trees.term import canonical

from . import brute
from .conftest import tiny_dataset

TOL = 1e-10

CASES = [
    ("growtree", dict(alpha=0.95, beta=1.0, min_leaf=1)),
    ("growtree", dict(alpha=0.8, beta=0.5, min_leaf=2)),
    ("growtree", dict(alpha=0.95, beta=1.0, min_leaf=1, max_depth=2)),
    ("growtree", dict(alpha=1.0, beta=1.0, min_leaf=3)),      # the root must split
    ("growtree", dict(alpha=1.0, beta=0.0, min_leaf=1, max_depth=8)),  # all must split
    ("phi", dict(log_phi=1.0)),
    ("phi", dict(log_phi=2.0, max_depth=2)),
    ("phi", dict(log_phi=0.5, min_leaf=2)),
]


def build(ds, family, kw):
    rs = RowSets(ds)
    if family == "growtree":
        return growtree_grammar(rs, **kw)
    return phi_grammar(rs, **kw)


def reference(ds, family, kw):
    rows = frozenset(range(ds.n_rows))
    if family == "growtree":
        return brute.growtree_trees(ds.X, rows, 0, kw["alpha"], kw["beta"], kw["min_leaf"],
                                    kw.get("max_depth"))
    return brute.phi_trees(ds.X, rows, 0, kw["log_phi"], kw.get("min_leaf", 1),
                           kw.get("max_depth"))


@pytest.mark.parametrize("family,kw", CASES)
@pytest.mark.parametrize("with_data", [False, True])
def test_every_tree_probability(family, kw, with_data):
    ds = tiny_dataset()
    trees = reference(ds, family, kw)
    if not trees:      # p = 1 everywhere: no finite tree; the back end says so
        with pytest.raises(ValueError, match="no tree"):
            build(ds, family, kw)
        return
    lik = DirichletLikelihood.from_dataset(ds) if with_data else None
    post = TreePosterior(build(ds, family, kw), lik)
    ref, log_z = brute.posterior(trees, ds.y if with_data else None, ds.n_classes)
    total = 0.0
    for t, lp in ref:
        got = post.log_prob_term(brute.term(t, ds.feature_names))
        assert abs(got - lp) < TOL, (brute.key(t, ds.feature_names), got, lp)
        total += math.exp(got)
    assert abs(total - 1.0) < TOL        # nothing the reference does not list
    if with_data:
        prior_only, log_z0 = brute.posterior(trees)
        assert abs(post.log_marginal_likelihood - (log_z - log_z0)) < TOL
    else:
        _, log_z0 = brute.posterior(trees)
        assert abs(post.log_z_prior - log_z0) < TOL
        if family == "growtree":
            assert abs(post.log_z_prior) < TOL      # locally normalised choices


@pytest.mark.parametrize("family,kw", [CASES[0], CASES[1], CASES[3], CASES[5], CASES[6]])
def test_map_and_kbest(family, kw):
    ds = tiny_dataset()
    lik = DirichletLikelihood.from_dataset(ds)
    post = TreePosterior(build(ds, family, kw), lik)
    ref, _ = brute.posterior(reference(ds, family, kw), ds.y, ds.n_classes)
    ref.sort(key=lambda x: -x[1])
    names = ds.feature_names
    best = post.kbest(12)
    assert len(best) == min(12, len(ref))
    for (lp, d), (t, rlp) in zip(best, ref):
        assert abs(lp - rlp) < TOL
        assert abs(post.log_prob(d) - lp) < TOL
    # the MAP tree is a most probable tree; k-best lists distinct trees
    assert abs(post.map_log_prob() - ref[0][1]) < TOL
    assert canonical(post.term(post.map())) in {brute.key(t, names) for t, lp in ref
                                                if lp > ref[0][1] - TOL}
    keys = [canonical(post.term(d)) for _, d in best]
    assert len(set(keys)) == len(keys)
    # asking for more trees than exist returns them all
    assert len(post.kbest(len(ref) + 5)) == len(ref)


@pytest.mark.parametrize("family,kw", [CASES[0], CASES[2], CASES[5], CASES[6]])
def test_exact_predictive(family, kw):
    ds = tiny_dataset()
    lik = DirichletLikelihood.from_dataset(ds)
    post = TreePosterior(build(ds, family, kw), lik)
    ref, _ = brute.posterior(reference(ds, family, kw), ds.y, ds.n_classes)
    rng = np.random.default_rng(0)
    X = np.vstack([ds.X, rng.integers(-1, 6, (10, 2)).astype(float),
                   rng.uniform(-1, 6, (5, 2))])
    got = post.predict_proba(X)
    want = np.array([brute.predictive(ref, ds.X, ds.y, ds.n_classes, x) for x in X])
    np.testing.assert_allclose(got, want, atol=TOL, rtol=0)


def test_phi_dedupes_equivalent_splits():
    """The tiny data has splits on different features giving the same two row sets;
    the phi grammar keeps one, GROWTREE keeps all (they are different terms)."""
    ds = tiny_dataset()
    rows = frozenset(range(ds.n_rows))
    found = False
    stack = [rows]
    seen = set()
    while stack and not found:
        r = stack.pop()
        if r in seen:
            continue
        seen.add(r)
        ss = brute.splits(ds.X, r, 1)
        found = len(brute.dedupe(ss)) < len(ss)
        stack.extend(s[2] for s in ss)
        stack.extend(s[3] for s in ss)
    assert found
    rs = RowSets(ds)
    g = phi_grammar(rs, 1.0)
    pairs = {(min(a, b), max(a, b)) for a, b in zip(g.left, g.right)}
    per_node = [len({frozenset((g.left[s], g.right[s])) for s in g.splits(j)})
                == len(g.splits(j)) for j in range(g.n_rowsets)]
    assert all(per_node) and pairs


def test_phi_slp_enumeration_equals_brute_force():
    """Exhaustive enumeration of phi.slp's proofs by the engine (no choice of phi.slp
    can fail, so pure and backtrackable semantics agree) lists every tree once, with
    the brute-force prior probability."""
    from .conftest import program
    ds = tiny_dataset()
    p = program("phi.slp", ds, log_phi=1)
    ref, _ = brute.posterior(reference(ds, "phi", dict(log_phi=1.0)))
    want = {brute.key(t, ds.feature_names): lp for t, lp in ref}
    proofs = p.proofs("cart(T)")
    got = {canonical(pr.bindings["T"]): math.log(pr.prob) for pr in proofs}
    assert len(proofs) == len(got) == len(want)
    for k, lp in want.items():
        assert abs(got[k] - lp) < TOL


class _SizeLikelihood(DirichletLikelihood):
    """A made-up decomposable likelihood (-0.3 per row, +1 per leaf) to exercise the
    generic leaf-score path."""
    name = "size-test"

    def _compute_leaf(self, rowsets, rid):
        return 1.0 - 0.3 * rowsets.size(rid)


def test_leaf_scores():
    ds = tiny_dataset()
    rs = RowSets(ds)
    g = phi_grammar(rs, 1.0)
    lik = DirichletLikelihood.from_dataset(ds, alpha=[0.5, 2.0])
    post = TreePosterior(g, lik)
    for j, rid in enumerate(g.rid):
        assert abs(post.leaf[j] - lik.leaf_term(rs, int(rid))) < 1e-12
        np.testing.assert_array_equal(post.class_counts()[j], rs.class_counts(int(rid)))
    other = _SizeLikelihood(2)
    post2 = TreePosterior(g, other)
    np.testing.assert_allclose(post2.leaf, 1.0 - 0.3 * g.size)
    # with this likelihood every tree has the same L up to +1 per leaf: the posterior
    # is the prior tilted by e per leaf, i.e. the phi prior with log phi = 1 - 1 = 0
    flat = TreePosterior(phi_grammar(RowSets(ds), 0.0))
    for lp, d in flat.kbest(20):
        t = flat.term(d)
        assert abs(post2.log_prob_term(t) - lp) < TOL
