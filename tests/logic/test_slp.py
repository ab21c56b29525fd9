"""SLP semantics: exhaustive values, pure and backtrackable sampling, proof trees,
the paper's Fig 2 program, and replay."""
from collections import Counter
from fractions import Fraction

import numpy as np
import pytest
from scipy.stats import chisquare

from slpy import Program
from slpy.terms.term import deref

from ..conftest import PEPL

pytestmark = pytest.mark.skipif(not PEPL.exists(), reason="../shared is not beside the repo")


def load(name):
    p = Program()
    p.consult(PEPL / f"{name}.slp")
    return p


def exact(p, q, key, min_prob=1e-12):
    out = Counter()
    for pr in p.proofs(q, min_prob=min_prob):
        out[key(pr.bindings)] += pr.prob
    return out


def chi2_ok(counts: Counter, probs: dict, n: int):
    keys = sorted(probs)
    obs = [counts.get(k, 0) for k in keys]
    exp = [probs[k] * n for k in keys]
    assert sum(obs) == n, (counts, probs)
    return chisquare(obs, exp).pvalue


def sample_counts(p, q, key, n, seed, pure=False):
    rng = np.random.default_rng(seed)
    c = Counter()
    for _ in range(n):
        s = p.sample(q, rng=rng, pure=pure)
        c["fail" if s is None else key(s.bindings)] += 1
    return c


# -- exhaustive values (REFERENCE_OUTPUTS.txt) -----------------------------------------

def test_exact_member3():
    p = load("member3")
    e = exact(p, "member3(X, [a,b,c])", lambda b: str(b["X"]))
    assert e["a"] == pytest.approx(1 / 3)
    assert e["b"] == pytest.approx(2 / 9)
    assert e["c"] == pytest.approx(4 / 27)
    assert sum(e.values()) == pytest.approx(19 / 27)


def test_exact_jc_doubles_coin_depth_astar():
    e = exact(load("jc_ml_S1"), "s(X, Y)", lambda b: f"{b['X']}{b['Y']}")
    assert e == pytest.approx({"ap": 0.125, "bp": 0.125, "aq": 0.25, "bq": 0.25})
    e = exact(load("doubles"), "doubles(X)", lambda b: str(b["X"]))
    assert e == pytest.approx({"head": 0.25, "tail": 0.25})
    e = exact(load("coin"), "coin(X)", lambda b: str(b["X"]))
    assert e == pytest.approx({"head": 0.5, "tail": 0.5})
    # an infinite space: enumerate the proofs of probability >= 1e-4 only
    d = exact(load("depth"), "[2] :: tree(T)", lambda b: str(b["T"]).count("leaf"), 1e-4)
    assert d[1] == pytest.approx(1 / 2)
    assert d[2] == pytest.approx(2 / 9)
    assert d[3] == pytest.approx(1 / 8)
    a = exact(load("astar"), "s(S)", lambda b: str(b["S"]).count("a"), 1e-6)
    for k in range(5):
        assert a[k] == pytest.approx(0.4 * 0.6 ** k)


# -- pure SLP sampling against the exact values ---------------------------------------------

@pytest.mark.parametrize("name,query,key,probs", [
    ("member3", "member3(X, [a,b,c])", lambda b: str(b["X"]),
     {"a": 1 / 3, "b": 2 / 9, "c": 4 / 27, "fail": 8 / 27}),
    ("doubles", "doubles(X)", lambda b: str(b["X"]), {"head": .25, "tail": .25, "fail": .5}),
    ("jc_ml_S1", "s(X, Y)", lambda b: f"{b['X']}{b['Y']}",
     {"ap": .125, "bp": .125, "aq": .25, "bq": .25, "fail": .25}),
])
def test_pure_sampling_frequencies(name, query, key, probs):
    p = load(name)
    c = sample_counts(p, query, key, 4000, seed=7, pure=True)
    assert chi2_ok(c, probs, 4000) > 0.01


@pytest.mark.parametrize("name,query,key,probs", [
    ("member3", "member3(X, [a,b,c])", lambda b: str(b["X"]), {"a": 1 / 3, "b": 2 / 9, "c": 4 / 9}),
    ("doubles", "doubles(X)", lambda b: str(b["X"]), {"head": .5, "tail": .5}),
    ("jc_ml_S1", "s(X, Y)", lambda b: f"{b['X']}{b['Y']}",
     {"ap": .25, "bp": .25, "aq": .25, "bq": .25}),
])
def test_backtrackable_sampling_renormalises(name, query, key, probs):
    p = load(name)
    c = sample_counts(p, query, key, 6000, seed=2024)
    assert chi2_ok(c, probs, 6000) > 0.01


def test_backtrackable_local_failure_exact():
    # choices fail locally: q(X) draws among 3 values but only odd ones pass the test;
    # backtrackable sampling must give exactly the renormalised distribution
    p = Program()
    p.consult_text("""
        0.5 :: q(1). 0.3 :: q(2). 0.2 :: q(3).
        1 :: r(X) :- q(X), X =\\= 2.
    """)
    c = sample_counts(p, "r(X)", lambda b: b["X"], 5000, seed=3)
    assert chi2_ok(c, {1: 0.5 / 0.7, 3: 0.2 / 0.7}, 5000) > 0.01


def test_labels_errors_and_mixing():
    p = Program()
    p.consult_text("L :: [L] :: w(a). 1 :: [_] :: w(b).")
    with pytest.raises(Exception) as e:
        p.sample("[-1] :: w(X)", rng=np.random.default_rng(0))
    assert "w/1" in str(e.value)
    from slpy import LoadErrors
    with pytest.raises(LoadErrors) as e:
        Program().consult_text("0.5 :: m(a).\nm(b).\n", "mix.slp")
    assert "mix.slp:2" in str(e.value) and "m/1" in str(e.value)


# -- paper 000 Fig 2 (both syntaxes) -----------------------------------------------------

FIG2_IJCAI = """
1 - 1/D : [D] : cart(leaf).
1/D : [D] : cart(Split-[L,R]) :-
    NewD is D+1, splt(Split),
    [NewD] : cart(L), [NewD] : cart(R).
0.4:splt(x1). 0.3:splt(x2). 0.3:splt(x3).
"""
FIG2_EXT = """
1 - 1/D :: [D] :: cart(leaf).
1/D :: [D] :: cart(Split-[L,R]) :- NewD is D+1, splt(Split),
                                [NewD] :: cart(L), [NewD] :: cart(R).
0.4::splt(x1). 0.3::splt(x2). 0.3::splt(x3).
"""


def leaf_count_distribution(d0: int, nmax: int) -> dict:
    """P(number of leaves = n) for the depth prior: split with probability 1/D."""
    from functools import lru_cache

    @lru_cache(maxsize=None)
    def f(d, n):
        if n == 1:
            return Fraction(d - 1, d)
        total = Fraction(0)
        for a in range(1, n):
            total += f(d + 1, a) * f(d + 1, n - a)
        return Fraction(1, d) * total
    return {n: float(f(d0, n)) for n in range(1, nmax + 1)}


@pytest.mark.parametrize("src", [FIG2_IJCAI, FIG2_EXT])
def test_fig2_leaf_counts(src):
    p = Program()
    p.consult_text(src, "fig2.slp")
    dist = leaf_count_distribution(2, 5)
    probs = {n: dist[n] for n in range(1, 5)}
    probs[5] = 1 - sum(probs.values())   # 5 or more leaves
    rng = np.random.default_rng(2024)
    c = Counter()
    n = 4000
    for _ in range(n):
        s = p.sample("[2] : cart(T)", rng=rng)
        c[min(str(s.bindings["T"]).count("leaf"), 5)] += 1
    assert chi2_ok(c, probs, n) > 0.01


def test_fig2_syntaxes_are_one_program():
    a, b = Program(), Program()
    a.consult_text(FIG2_IJCAI)
    b.consult_text(FIG2_EXT)
    sa = [str(a.sample("[2] :: cart(T)", rng=np.random.default_rng(s)).bindings["T"])
          for s in range(30)]
    sb = [str(b.sample("[2] : cart(T)", rng=np.random.default_rng(s)).bindings["T"])
          for s in range(30)]
    assert sa == sb


# -- proof trees ----------------------------------------------------------------------

def test_proof_tree_records_choices():
    p = Program()
    p.consult_text(FIG2_EXT)
    s = p.sample("[2] :: cart(T)", rng=np.random.default_rng(5))
    nodes = list(s.tree)
    assert nodes, "a sample of this prior always has choice points"
    for n in nodes:
        assert abs(sum(pr for _, pr in n.cands) - 1) < 1e-12
        assert n.prob == dict(n.cands)[n.chosen]
        assert n.path[:-1] == () or any(m.path == n.path[:-1] for m in nodes)
    assert s.log_prob == pytest.approx(sum(np.log(n.prob) for n in nodes))
    # same seed, same sample and same tree
    s2 = p.sample("[2] :: cart(T)", rng=np.random.default_rng(5))
    assert str(s2.bindings["T"]) == str(s.bindings["T"])
    assert s2.tree.format() == s.tree.format()


def test_stochastic_builtin_draws_without_replacement():
    p = Program()
    p.consult_text("pick(X) :- uniform_member(X, [a,b,c,d]), X \\== a, X \\== b.")
    c = sample_counts(p, "pick(X)", lambda b: str(b["X"]), 2000, seed=9)
    assert chi2_ok(c, {"c": .5, "d": .5}, 2000) > 0.01
    assert [str(b["X"]) for b in p.query("pick(X)")] == ["c", "d"]


# -- replay -----------------------------------------------------------------------------

def test_replay_keeps_choices_outside_the_cut():
    p = Program()
    p.consult_text(FIG2_EXT)
    goal, _ = p.parse_query("[2] :: cart(T)")
    eng = p.engine
    rng = np.random.default_rng(0)
    ok, tree, _ = eng.run_sampling(goal, rng, record=True)
    assert ok
    nodes = tree.nodes_by_path()
    for cut in list(nodes):
        goal, _ = p.parse_query("[2] :: cart(T)")
        r = eng.replay(goal, tree, np.random.default_rng(1), cut=cut)
        new, factor = r.tree, r.log_kept
        assert factor == 0.0  # context-free prior: kept probabilities never change
        newn = new.nodes_by_path()
        for path, old in nodes.items():
            if path[:len(cut)] != cut and path in newn:
                assert newn[path].chosen == old.chosen
        # every node outside the cut subtree is still there
        outside = {q for q in nodes if q[:len(cut)] != cut}
        assert outside <= set(newn)


def test_replay_reuses_untouched_subproofs():
    p = Program()
    p.consult_text(FIG2_EXT)
    eng = p.engine
    goal, _ = p.parse_query("[2] :: cart(T)")
    rng = np.random.default_rng(3)
    while True:
        ok, tree, _ = eng.run_sampling(goal, rng, record=True)
        if tree.size() > 8:
            break
        goal, _ = p.parse_query("[2] :: cart(T)")
    # cut the first leaf-level node; siblings' subtrees must be reused as they were
    deepest = max(tree, key=lambda n: len(n.path))
    goal, _ = p.parse_query("[2] :: cart(T)")
    new = eng.replay(goal, tree, np.random.default_rng(4), cut=deepest.path).tree
    old = tree.nodes_by_path()
    shared = [n for n in new if n.path in old and old[n.path] is n]
    assert shared, "untouched subtrees are grafted, not re-proved"


def test_replay_compares_guards_too():
    # u's arguments never change, but its guard N is the number of leaves t regrew: a
    # kept u choice must be re-weighed (factor p_new/p_old), not reused as it was
    import math
    p = Program()
    p.consult_text("""
        0.7 :: t(leaf). 0.3 :: t(s(L, R)) :- t(L), t(R).
        1/N :: [N] :: u(a). 1 - 1/N :: [N] :: u(b).
        leaves(leaf, 1). leaves(s(L, R), N) :- leaves(L, A), leaves(R, B), N is A + B.
        top(T-U) :- t(T), leaves(T, N), M is N + 1, [M] :: u(U).
    """)
    eng = p.engine
    rng = np.random.default_rng(8)
    checked = 0
    for _ in range(200):
        goal, _ = p.parse_query("top(X)")
        ok, tree, _ = eng.run_sampling(goal, rng, record=True)
        t_node = tree.children[0]
        u_old = tree.children[-1]
        goal, vs = p.parse_query("top(X)")
        r = eng.replay(goal, tree, rng, cut=t_node.path)
        new, factor = r.tree, r.log_kept
        u_new = new.children[-1]
        n_old = u_old.guard.args[0]
        n_new = u_new.guard.args[0]
        assert u_new.chosen == u_old.chosen
        expect = math.log(u_new.prob) - math.log(u_old.prob)
        assert factor == pytest.approx(expect)
        if n_old != n_new:
            assert factor != 0
            checked += 1
    assert checked > 10


def test_guards_select_clauses_with_constant_labels():
    # pure sampling and enumeration normalise over the clauses whose guard unifies, even
    # when the labels are constants
    p = Program()
    p.consult_text("0.5 :: [fair] :: toss(head).\n0.5 :: [fair] :: toss(tail).\n"
                   "0.9 :: [biased] :: toss(head).\n0.1 :: [biased] :: toss(tail).\n")
    e = exact(p, "[biased] :: toss(X)", lambda b: str(b["X"]))
    assert e == pytest.approx({"head": 0.9, "tail": 0.1})
    c = sample_counts(p, "[biased] :: toss(X)", lambda b: str(b["X"]), 2000, seed=3,
                      pure=True)
    assert "fail" not in c
    assert chi2_ok(c, {"head": 0.9, "tail": 0.1}, 2000) > 0.01


def test_labelled_clauses_can_be_asserted_and_retracted():
    p = Program()
    p.once("assertz((0.2 :: coin(head))), assertz((0.8 :: coin(tail)))")
    p.once("assertz((0.5 :: [X] :: step(X, Y) :- Y is X + 1))")
    p.once("assertz((0.5 :: [_] :: step(_, stop)))")
    assert exact(p, "coin(X)", lambda b: str(b["X"])) == pytest.approx(
        {"head": 0.2, "tail": 0.8})
    c = sample_counts(p, "coin(X)", lambda b: str(b["X"]), 2000, seed=4, pure=True)
    assert chi2_ok(c, {"head": 0.2, "tail": 0.8}, 2000) > 0.01
    assert exact(p, "[1] :: step(1, Y)", lambda b: str(b["Y"])) == pytest.approx(
        {"2": 0.5, "stop": 0.5})
    # a label in the pattern must match; a pattern without one matches any label
    assert p.once("retract((0.5 :: coin(head)))") is None
    assert str(p.once("retract((L :: coin(head)))")["L"]) == "0.2"
    assert p.once("retract((L :: [G] :: step(A, B) :- Body)), Body == (B is A + 1), "
                  "L == 0.5, G == A") is not None
    assert p.once("retract(coin(tail))") is not None
    assert exact(p, "coin(X)", lambda b: str(b["X"])) == {}
    # an SLP predicate takes labelled clauses only, and the other way round
    e = p.once("assertz((0.5 :: c(a))), catch(assertz(c(b)), E, true)")["E"]
    assert str(e).startswith("error(domain_error(labelled_clause,c(b))")
    e = p.once("assertz(d(a)), catch(assertz((0.5 :: d(b))), E, true)")["E"]
    assert str(e).startswith("error(domain_error(unlabelled_clause,d(b))")
