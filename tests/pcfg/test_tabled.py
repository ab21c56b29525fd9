"""The generic tabled compiler: fragment checks, exact answers, agreement with the
tree grammars and with exhaustive enumeration."""
import math

import numpy as np
import pytest

from slpy import Program
from slpy.pcfg.hypergraph import TabledPosterior
from slpy.pcfg.inside import TreePosterior
from slpy.pcfg.grammar import growtree_grammar, phi_grammar
from slpy.pcfg.tabled import compile_slp, NotInFragment, CompileError
from slpy.trees.likelihood import DirichletLikelihood

from .conftest import tiny_dataset, program


def load(tmp_path, text, name="prog.slp"):
    f = tmp_path / name
    f.write_text(text)
    p = Program()
    p.consult(f)
    return p, f


def exact(p, query):
    return TabledPosterior(compile_slp(p, query))


# ---- agreement with the tree grammars ---------------------------------------------------

@pytest.mark.parametrize("prior,params,make", [
    ("growtree.slp", dict(min_leaf=2, alpha=0.9), lambda rs: growtree_grammar(rs, 0.9, 1, 2)),
    ("growtree.slp", dict(min_leaf=1), lambda rs: growtree_grammar(rs, 0.95, 1, 1)),
    ("phi.slp", dict(log_phi=1), lambda rs: phi_grammar(rs, 1.0)),
    ("phi.slp", dict(max_depth=2), lambda rs: phi_grammar(rs, 2.0, max_depth=2)),
])
@pytest.mark.parametrize("with_data", [False, True])
def test_tabled_equals_tree_grammar(prior, params, make, with_data):
    ds = tiny_dataset()
    p = program(prior, ds, **params)
    lik = DirichletLikelihood.from_dataset(ds) if with_data else None
    tab = TabledPosterior(compile_slp(p, "cart(T)"), lik, p.rowsets)
    tree = TreePosterior(make(p.rowsets), lik)
    derivs = tab.enumerate()
    assert abs(sum(math.exp(lp) for lp, _ in derivs) - 1) < 1e-10
    for lp, d in derivs:
        assert abs(lp - tree.log_prob_term(tab.answer(d)["T"])) < 1e-10
    assert abs(tab.log_marginal_likelihood - tree.log_marginal_likelihood) < 1e-10
    for (a, da), (b, db) in zip(tab.kbest(5), tree.kbest(5)):
        assert abs(a - b) < 1e-10
    assert abs(tab.log_prob(tab.map()) - tree.map_log_prob()) < 1e-10


# ---- programs without data --------------------------------------------------------------

def test_independent_choices_match_enumeration(tmp_path):
    p, _ = load(tmp_path, """
        0.3 :: coin(h). 0.7 :: coin(t).
        0.5 :: die(1). 0.25 :: die(2). 0.25 :: die(3).
        pair(X, Y) :- coin(X), die(Y).
        0.6 :: top(p(X, Y)) :- pair(X, Y).
        0.4 :: top(q(Z)) :- uniform_member(Z, [a, b, c, d]).
    """)
    post = exact(p, "top(T)")
    got = post.answer_distribution()
    want = {}
    for pr in p.proofs("top(T)"):
        k = f"T = {pr.bindings['T']}"
        want[k] = want.get(k, 0) + pr.prob
    assert set(got) == set(want)
    for k in want:
        assert abs(got[k] - want[k]) < 1e-12
    from slpy.terms.term import Struct, Atom
    t = Struct("p", (Atom("t"), 2))
    assert abs(post.log_prob_answer({"T": t}) - math.log(0.6 * 0.7 * 0.25)) < 1e-12
    assert post.log_prob_answer({"T": Struct("p", (Atom("x"), 2))}) == -math.inf


def test_failure_renormalises_like_backtracking(tmp_path):
    p, _ = load(tmp_path, """
        0.5 :: s(_, leaf).
        0.5 :: s(N, node(L)) :- N > 0, M is N - 1, s(M, L).
        0.5 :: q(b) :- 1 > 2.
        0.5 :: q(c).
        0.5 :: r(a).
        0.5 :: r(X) :- q(X).
    """)
    post = exact(p, "s(2, T)")
    d = post.answer_distribution()
    assert abs(d["T = leaf"] - 0.5) < 1e-12
    assert abs(d["T = node(leaf)"] - 0.25) < 1e-12
    assert abs(d["T = node(node(leaf))"] - 0.25) < 1e-12     # s(0, _) must stop
    d = exact(p, "r(X)").answer_distribution()
    assert abs(d["X = c"] - 0.5) < 1e-12 and "X = b" not in d


def test_recursive_grammar_fixpoint(tmp_path):
    p, _ = load(tmp_path, """
        0.7 :: s(leaf). 0.3 :: s(node(L, R)) :- s(L), s(R).
        0.4 :: t(leaf). 0.6 :: t(node(L, R)) :- t(L), t(R).
    """)
    from slpy.terms.term import Struct, Atom
    leaf = Atom("leaf")
    post = exact(p, "s(T)")
    assert post.cyclic and abs(post.log_z_prior) < 1e-12          # Z = 1 (subcritical)
    two = Struct("node", (leaf, leaf))
    assert abs(post.log_prob_answer({"T": two}) - math.log(0.3 * 0.49)) < 1e-12
    sup = exact(p, "t(T)")                                         # Z = 2/3: least root
    assert abs(sup.log_z_prior - math.log(2 / 3)) < 1e-12
    assert abs(sup.log_prob_answer({"T": leaf}) - math.log(0.4 / (2 / 3))) < 1e-12
    assert sup.map() == (0, 0, [(1, 0, [])])
    draws = [sup.answer(d)["T"] for d in sup.sample(np.random.default_rng(1), 2000)]
    assert abs(sum(x is leaf for x in draws) / 2000 - 0.6) < 0.04


# ---- refusals ------------------------------------------------------------------------------

@pytest.mark.parametrize("text,query,reason,line", [
    ("0.5 :: c(h). 0.5 :: c(t).\n0.5 :: d(h, x). 0.5 :: d(t, y).\np(Y) :- c(X), d(X, Y).\n",
     "p(Y)", "sibling goals must not share", 3),
    ("0.5 :: c(h). 0.5 :: c(t).\np(Y) :- member(X, [1, 2]), c(Y), Y \\== X.\n",
     "p(Y)", "more than one solution", 2),
    ("0.5 :: n(_, z).\n0.5 :: n(N, s(X)) :- M is N + 1, n(M, X).\n",
     "n(0, X)", "goal variants", 2),
    ("0.5 :: c(h). 0.5 :: c(t).\nr(X) :- c(X).\nr(X) :- c(X).\n",
     "r(X)", "several clauses", 2),
    ("X :: w(X, a).\n", "w(_, A)", "cannot be evaluated", 1),
    ("0.5 :: c(h). 0.5 :: c(t).\np(X) :- ( c(X) ; X = e ).\n",
     "p(X)", "control construct", 2),
    ("0.5 :: c(h). 0.5 :: c(t).\np(X) :- c(X), !.\nq(X) :- p(X).\n",
     "q(X)", "cut", 2),
])
def test_outside_the_fragment_is_refused(tmp_path, text, query, reason, line):
    p, f = load(tmp_path, text)
    with pytest.raises(NotInFragment) as e:
        compile_slp(p, query, max_nonterminals=200)
    msg = str(e.value)
    assert reason in msg
    assert f"{f}:{line}:" in msg
    assert "\n" not in msg


def test_bad_label_is_an_error(tmp_path):
    p, f = load(tmp_path, "W :: z(W, a). 1 :: z(_, b).\n")
    with pytest.raises(CompileError, match="finite number >= 0") as e:
        compile_slp(p, "z(-1, X)")
    assert f"{f}:1:" in str(e.value)


def test_dead_query(tmp_path):
    p, _ = load(tmp_path, "0.5 :: z(a) :- fail. 0.5 :: z(b) :- 1 > 2.\n")
    with pytest.raises(CompileError, match="no derivation"):
        exact(p, "z(X)")
