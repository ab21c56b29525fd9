"""Replay of a recorded proof in local mode (Engine.run_local): forced choices, reused
choices with their probabilities recomputed, fresh draws, and rejections."""
import math

import numpy as np
import pytest

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
    new, reuse, forced_logp = prog.engine.run_local(goal, tree, forced,
                                                    np.random.default_rng(seed))
    return new, reuse, forced_logp, tuple(str(deref(names[v])) for v in "XYW")


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
