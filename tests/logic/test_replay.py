"""Replay of a recorded proof (Engine.replay): regrowing below a cut (choices outside
the cut kept, the cut subtree drawn afresh, rejections, the log factor of kept choices
whose probability changed), and forced choices (reused choices with their
probabilities recomputed, fresh draws wherever the old proof has no choice point, and
rejections)."""
import math

import numpy as np
import pytest
from scipy.stats import chisquare

from slpy import Program
from slpy.logic.kinds import ReplayReject
from slpy.terms.term import deref

PROGRAM = """
0.5 :: c(a).
0.3 :: c(b).
0.2 :: c(z).
p(X, Y, W) :- c(X), w(X, P), [P] :: e(Y), f(W).
% e's probabilities depend on the choice of c
w(a, 0.4).
w(b, 0.9).
w(z, 1).
P :: [P] :: e(two).
1 - P :: [P] :: e(one) :- g(_).
0.5 :: f(l).
0.5 :: f(r).
0.5 :: g(u).
0.5 :: g(v).
"""


@pytest.fixture()
def prog():
    p = Program()
    p.consult_text(PROGRAM)
    return p


def proof(prog, want):
    """A recorded proof of p(X, Y, W) with the given answer."""
    rng = np.random.default_rng(0)
    for _ in range(500):
        goal, names = prog.parse_query("p(X, Y, W)")
        ok, tree, _ = prog.engine.run_sampling(goal, rng, record=True)
        got = tuple(str(deref(names[v])) for v in "XYW")
        if ok and got == want:
            return tree
    raise AssertionError(f"no proof of {want}")


def local(prog, tree, forced, seed=1):
    goal, names = prog.parse_query("p(X, Y, W)")
    r = prog.engine.replay(goal, tree, np.random.default_rng(seed), forced=forced)
    return r.tree, r.log_kept, r.log_forced, tuple(str(deref(names[v])) for v in "XYW")


def clause(prog, name, n):
    pred = next(p for p in prog.db.preds.values() if p.name == name)
    return pred.clauses[n - 1]


def test_a_forced_choice_reuses_the_rest_with_new_probabilities(prog):
    t = proof(prog, ("a", "two", "r"))
    new, reuse, forced, ans = local(prog, t, {(0,): clause(prog, "c", 2)})
    # c forced to b; e(two) is reused with probability 0.9 where it was 0.4; f's choice
    # is kept as it was
    assert ans == ("b", "two", "r")
    assert forced == pytest.approx(math.log(0.3))
    assert reuse == pytest.approx(math.log(0.9) - math.log(0.4))
    assert [n.path for n in new] == [(0,), (1,), (2,)]


def test_a_reused_choice_that_is_no_candidate_rejects(prog):
    # for c = z, e(one) has label 0 and drops out
    t = proof(prog, ("a", "one", "l"))
    with pytest.raises(ReplayReject):
        local(prog, t, {(0,): clause(prog, "c", 3)})


def test_new_addresses_are_drawn_fresh_and_old_ones_dropped(prog):
    t = proof(prog, ("a", "two", "l"))
    # force c = b and e(one): g below it is new, drawn from the prior
    seen = set()
    for seed in range(40):
        new, reuse, forced, ans = local(prog, t, {(0,): clause(prog, "c", 2),
                                                  (1,): clause(prog, "e", 2)}, seed)
        assert ans == ("b", "one", "l")
        assert forced == pytest.approx(math.log(0.3) + math.log(0.1))
        assert reuse == 0.0          # f(l): same call, same probability
        g = [n for n in new if n.path == (1, 0)]
        seen.add(g[0].chosen)
    assert seen == {1, 2}            # both of g's clauses are drawn


def test_a_forced_path_that_is_not_reached_rejects(prog):
    t = proof(prog, ("a", "two", "l"))     # e(two) has no choice point below it
    with pytest.raises(ReplayReject):
        local(prog, t, {(0,): clause(prog, "c", 2), (1, 0): clause(prog, "g", 1)})


def test_the_reverse_move_gives_the_proof_back(prog):
    t = proof(prog, ("a", "two", "r"))
    new, reuse, _, _ = local(prog, t, {(0,): clause(prog, "c", 2)})
    back, reuse_back, _, ans = local(prog, new, {(0,): clause(prog, "c", 1)})
    assert ans == ("a", "two", "r")
    assert reuse_back == pytest.approx(-reuse)
    assert [(n.path, n.chosen, n.prob) for n in back] == \
        [(n.path, n.chosen, n.prob) for n in t]


# -- regrow (a cut) --------------------------------------------------------------------------
def regrow(prog, tree, cut, seed):
    goal, names = prog.parse_query("p(X, Y, W)")
    r = prog.engine.replay(goal, tree, np.random.default_rng(seed), cut=cut)
    return r.tree, r.log_kept, tuple(str(deref(names[v])) for v in "XYW")


def test_regrowing_a_leaf_keeps_every_choice_outside_the_cut(prog):
    t = proof(prog, ("b", "two", "l"))
    seen = set()
    for seed in range(30):
        new, factor, ans = regrow(prog, t, (2,), seed)   # f is cut: drawn afresh
        assert ans[:2] == ("b", "two")
        assert factor == 0.0             # the kept choices' probabilities are the same
        kept = [(n.path, n.chosen, n.prob) for n in new if n.path != (2,)]
        assert kept == [(n.path, n.chosen, n.prob) for n in t if n.path != (2,)]
        # the new tree's probability is the product of its choices'
        assert new.log_prob() == pytest.approx(sum(math.log(n.prob) for n in new))
        assert new.log_prob() == pytest.approx(
            math.log(0.3) + math.log(0.9) + math.log(0.5))
        seen.add(ans[2])
    assert seen == {"l", "r"}


def test_regrowing_at_the_root_samples_the_prior(prog):
    t = proof(prog, ("a", "two", "l"))
    counts = {"a": 0, "b": 0, "z": 0}
    n = 600
    for seed in range(n):
        _, factor, ans = regrow(prog, t, (), seed)
        assert factor == 0.0             # nothing is kept
        counts[ans[0]] += 1
    assert chisquare(list(counts.values()), [n * 0.5, n * 0.3, n * 0.2]).pvalue > 1e-3


def test_a_kept_choice_whose_probability_changes_enters_the_log_factor(prog):
    t = proof(prog, ("a", "two", "l"))   # e(two) chosen with probability 0.4
    factors = {}
    for seed in range(60):
        try:
            new, factor, ans = regrow(prog, t, (0,), seed)   # c is cut
        except ReplayReject:
            continue
        assert ans[1:] == ("two", "l")
        factors[ans[0]] = factor
        e = [n for n in new if n.path == (1,)][0]
        assert e.prob == pytest.approx({"a": 0.4, "b": 0.9, "z": 1.0}[ans[0]])
    assert factors["a"] == 0.0
    assert factors["b"] == pytest.approx(math.log(0.9) - math.log(0.4))
    assert factors["z"] == pytest.approx(math.log(1.0) - math.log(0.4))


def test_a_kept_choice_that_is_no_longer_possible_rejects(prog):
    # e(one) is recorded; when the regrown c is z its label 1 - 1 is 0: no candidate
    t = proof(prog, ("a", "one", "l"))
    outcomes = set()
    for seed in range(60):
        try:
            _, _, ans = regrow(prog, t, (0,), seed)
            assert ans[0] in ("a", "b") and ans[1:] == ("one", "l")
            outcomes.add(ans[0])
        except ReplayReject:
            outcomes.add("rejected")
    assert outcomes == {"a", "b", "rejected"}
    # a rejected replay leaves the engine as it was: the same proof replays again
    new, factor, ans = regrow(prog, t, (2,), 0)
    assert ans[:2] == ("a", "one")
    assert prog.engine.cps == [] and prog.engine.trail == []
    assert prog.engine.replay_run is None


def test_a_choice_point_the_old_proof_lacks_is_drawn_fresh_wherever_it_is():
    p = Program()
    p.consult_text("""
        0.5 :: s(X) :- t(X).
        0.5 :: s(none).
        0.5 :: t(a).
        0.5 :: t(b).
        0.5 :: u(l).
        0.5 :: u(r).
        q(X, Y) :- s(X), u(Y).
    """)
    rng = np.random.default_rng(3)
    while True:
        goal, names = p.parse_query("q(X, Y)")
        _, tree, _ = p.engine.run_sampling(goal, rng, record=True)
        if str(deref(names["X"])) == "none":
            break
    # the recorded s(none) has no t below it: regrowing u keeps s(none)
    goal, names = p.parse_query("q(X, Y)")
    r = p.engine.replay(goal, tree, np.random.default_rng(0), cut=(1,))
    assert str(deref(names["X"])) == "none"
    # a recorded tree whose paths hold other predicates (u first, then s): nothing is
    # kept, every choice is drawn fresh and the recorded ones are dropped
    from slpy.logic.proof import ProofNode
    wrong = ProofNode(None, ())
    wrong.children = [tree.children[1], tree.children[0]]
    wrong._size = tree._size
    goal, _ = p.parse_query("q(X, Y)")
    r = p.engine.replay(goal, wrong, np.random.default_rng(0), cut=(5,))
    assert r.n_fresh == r.tree.size() and r.log_kept == 0.0


AGREE = """
0.5 :: c(1).
0.5 :: c(2).
top(X-Y) :- c(X), g(X, Y).
g(1, 0).
g(2, Y) :- c(Y).
0.6 :: n(sg).
0.4 :: n(pl).
0.3 :: v(sg).
0.2 :: v(pl).
0.5 :: v(_).
agree(N-M) :- n(N), v(N), c(M).
"""


def test_regrowing_inside_reaches_new_choice_points_outside():
    # top(1-0) has one choice point; regrowing it to c(2) needs g's c(Y), which the
    # old proof lacks: drawn fresh (not a rejection), with nothing kept
    p = Program()
    p.consult_text(AGREE)
    rng = np.random.default_rng(0)
    while True:
        goal, names = p.parse_query("top(T)")
        _, tree, _ = p.engine.run_sampling(goal, rng, record=True)
        if str(deref(names["T"])) == "1-0":
            break
    seen = set()
    for seed in range(40):
        goal, names = p.parse_query("top(T)")
        r = p.engine.replay(goal, tree, np.random.default_rng(seed), cut=(0,))
        seen.add(str(deref(names["T"])))
        assert r.log_correction == 0.0
        assert r.n_fresh == r.tree.size()
    assert seen == {"1-0", "2-1", "2-2"}


def test_a_head_that_does_not_match_counts_in_the_normaliser():
    # v(sg) matches two of v's three clauses: drawn among them (q = w / 0.8), its
    # target probability is w / 1.0; lam = log 0.8 records the difference
    p = Program()
    p.consult_text(AGREE)
    goal, _ = p.parse_query("agree(X)")
    ok, tree, _ = p.engine.run_sampling(goal, np.random.default_rng(1), record=True)
    goal, _ = p.parse_query("agree(X)")
    r = p.engine.replay(goal, tree, np.random.default_rng(2), cut=())
    v = r.tree.children[1]
    assert v.lam == pytest.approx(math.log(0.8))
    assert r.fresh_lam == pytest.approx(math.log(0.8))
    # regrowing from the root drops every recorded choice: their lam is stale (a
    # proof drawn by sampling records none; the sampler's states are replayed ones)
    assert r.stale_lam == 0.0
    goal, _ = p.parse_query("agree(X)")
    r2 = p.engine.replay(goal, r.tree, np.random.default_rng(3), cut=())
    assert r2.stale_lam == pytest.approx(math.log(0.8))
    assert r2.log_correction == pytest.approx(r2.fresh_lam - r2.stale_lam)
