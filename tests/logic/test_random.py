"""library(random) as stochastic choice points: frequencies against the exact uniform
probabilities (chi-square, fixed seeds), reproducibility, proof trees, backtracking."""
import math
from collections import Counter
from itertools import permutations

import numpy as np
import pytest
from scipy.stats import chisquare

from slpy import Program
from slpy.terms.term import PrologError, list_items


def draws(p, q, var, n, seed):
    rng = np.random.default_rng(seed)
    out = []
    for _ in range(n):
        s = p.sample(q, rng=rng)
        out.append(str(s.bindings[var]))
    return out


def test_random_between_is_uniform(prog):
    got = Counter(draws(prog, "random_between(1, 6, X)", "X", 3000, 1))
    assert sorted(got) == ["1", "2", "3", "4", "5", "6"]
    assert chisquare([got[str(k)] for k in range(1, 7)]).pvalue > 0.001
    assert prog.sample("random_between(3, 1, X)", rng=np.random.default_rng(0)) is None


def test_random_member_and_select_are_uniform(prog):
    got = Counter(draws(prog, "random_member(X, [a, b, c, d])", "X", 2000, 2))
    assert chisquare([got[k] for k in "abcd"]).pvalue > 0.001
    got = Counter(draws(prog, "random_select(X, [a, b, c], R), atom_concat(X, '', Y)",
                        "R", 1500, 3))
    assert chisquare([got[k] for k in ("[b,c]", "[a,c]", "[a,b]")]).pvalue > 0.001
    got = Counter(draws(prog, "random_select(x, L, [a, b])", "L", 1500, 4))
    assert chisquare([got[k] for k in ("[x,a,b]", "[a,x,b]", "[a,b,x]")]).pvalue > 0.001


def test_random_permutation_is_uniform_with_probability_one_over_n_factorial(prog):
    got = Counter(draws(prog, "random_permutation([1, 2, 3, 4], P)", "P", 4800, 5))
    perms = ["[" + ",".join(map(str, q)) + "]" for q in permutations([1, 2, 3, 4])]
    assert set(got) == set(perms)
    assert chisquare([got[k] for k in perms]).pvalue > 0.001
    s = prog.sample("random_permutation([a, b, c, d, e], P)", rng=np.random.default_rng(1))
    assert s.log_prob == pytest.approx(-math.log(120))
    assert sorted(a.name for a in list_items(s.bindings["P"])[0]) == list("abcde")
    # exhaustive: every permutation once, each 1/3!
    proofs = prog.proofs("random_permutation([1, 2, 3], P)")
    assert len(proofs) == 6 and all(pr.prob == pytest.approx(1 / 6) for pr in proofs)
    assert len({str(pr.bindings["P"]) for pr in proofs}) == 6


def test_random_float_is_the_generators_draw(prog):
    rng = np.random.default_rng(9)
    ref = np.random.default_rng(9)
    for _ in range(5):
        s = prog.sample("random(X)", rng=rng)
        assert s.bindings["X"] == ref.random()
        assert s.tree.children[0].prob == 2.0 ** -53
    xs = [float(x) for x in draws(prog, "random(X)", "X", 2000, 11)]
    assert all(0.0 <= x < 1.0 for x in xs)
    counts = np.histogram(xs, bins=10, range=(0, 1))[0]
    assert chisquare(counts).pvalue > 0.001
    with pytest.raises(PrologError, match="continuous"):
        prog.once("random(X)")


def test_same_seed_same_draws_and_proof_nodes(prog):
    q = "random_between(1, 100, A), random_member(B, [x, y, z]), random(C)"
    a = prog.sample(q, rng=np.random.default_rng(42))
    b = prog.sample(q, rng=np.random.default_rng(42))
    assert {k: str(v) for k, v in a.bindings.items()} == {k: str(v) for k, v in b.bindings.items()}
    assert [n.call.name for n in a.tree.children] == ["random_between", "random_member", "random"]
    assert a.log_prob == pytest.approx(-math.log(100) - math.log(3) - 53 * math.log(2))


def test_backtracking_draws_without_replacement(prog):
    rng = np.random.default_rng(0)
    s = prog.sample("findall(X, random_member(X, [a, b, c, d, e]), L)", rng=rng)
    items = sorted(a.name for a in list_items(s.bindings["L"])[0])
    assert items == list("abcde")
    # plain queries (no generator) try the values in order, as enumeration does
    assert [str(b["X"]) for b in prog.query("random_between(1, 3, X)")] == ["1", "2", "3"]


def test_errors(prog):
    for q, f in {"random_between(a, 3, _)": "type_error", "random_between(_, 3, _)":
                 "instantiation", "random_member(_, _)": "instantiation",
                 "random_member(_, foo)": "type_error"}.items():
        with pytest.raises(PrologError) as ei:
            prog.sample(q, rng=np.random.default_rng(0))
        assert str(ei.value.term.args[0]).startswith(f), q


def test_get_time(prog):
    import time
    t = prog.once("get_time(T)")["T"]
    assert isinstance(t, float) and abs(t - time.time()) < 60
