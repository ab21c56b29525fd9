"""Tabling: left recursion terminates and each answer comes once (checked against a
closure computed in Python); stochastic tabled predicates give exact probabilities,
equal to exhaustive enumeration where it terminates and to closed forms where
derivations are infinitely many."""
import itertools
import math

import numpy as np
import pytest

from slpy import Program
from slpy.terms.term import PrologError, list_items


def answers(p, q, var="X"):
    return [str(b[var]) for b in p.query(q)]


def prob(p, q):
    return sum(pr.prob for pr in p.proofs(q))


PATHS = """
:- table path/2.
path(X, Y) :- path(X, Z), edge(Z, Y).
path(X, Y) :- edge(X, Y).
"""


def test_left_recursion_terminates_with_each_answer_once():
    p = Program(max_steps=2_000_000)
    p.consult_text(PATHS + "edge(a, b). edge(b, c). edge(c, a). edge(c, d).")
    assert answers(p, "path(a, X)") == ["b", "c", "a", "d"]
    assert sorted(answers(p, "path(X, a)")) == ["a", "b", "c"]
    assert answers(p, "path(d, X)") == []
    assert p.once("path(a, a)") == {}
    assert len(list(p.query("path(X, Y)"))) == 12


def test_transitive_closure_against_python():
    rng = np.random.default_rng(4)
    for trial in range(4):
        n = 12
        edges = {(int(a), int(b)) for a, b in rng.integers(0, n, size=(20, 2))}
        p = Program(max_steps=5_000_000)
        p.consult_text(PATHS + "".join(f"edge({a}, {b}).\n" for a, b in sorted(edges)))
        closure = set(edges)
        while True:
            more = {(a, d) for a, b in closure for c, d in edges if b == c} - closure
            if not more:
                break
            closure |= more
        got = {(b["X"], b["Y"]) for b in p.query("path(X, Y)")}
        assert got == closure, trial
        for a in range(n):
            want = sorted(d for c, d in closure if c == a)
            assert sorted(int(x) for x in answers(p, f"path({a}, X)")) == want


def test_mutual_and_double_recursion():
    p = Program()
    p.consult_text("""
        :- table a/1, b/1.
        a(X) :- b(X).
        a(1).
        b(X) :- a(X).
        b(2).
        :- table conn/2.
        conn(X, Y) :- conn(X, Z), conn(Z, Y).
        conn(X, Y) :- e(X, Y).
        e(1, 2). e(2, 3). e(3, 1). e(3, 4).
        :- table fib/2.
        fib(0, 0).
        fib(1, 1).
        fib(N, F) :- N > 1, N1 is N - 1, N2 is N - 2, fib(N1, F1), fib(N2, F2),
            F is F1 + F2.
    """)
    assert sorted(answers(p, "a(X)")) == ["1", "2"] == sorted(answers(p, "b(X)"))
    assert sorted(answers(p, "conn(1, X)")) == ["1", "2", "3", "4"]
    assert answers(p, "fib(200, X)") == [str(_fib(200))]


def _fib(n):
    a, b = 0, 1
    for _ in range(n):
        a, b = b, a + b
    return a


def test_directive_forms_listing_and_errors():
    p = Program()
    p.consult_text("edge(1, 2).\np(X, Y) :- edge(X, Y).\n:- table p/2, (q/1, r//0).\n"
                   "q(1).\nr --> [x].")
    assert answers(p, "p(1, X)") == ["2"]           # clauses before the directive
    assert answers(p, "q(X)") == ["1"] and p.once("phrase(r, [x])") == {}
    assert p.listing("q") == ":- table q/1.\n\nq(1).\n\n"
    with pytest.raises(Exception, match="table_declaration"):
        p.consult_text(":- table p(_, min).", "m.pl")
    with pytest.raises(Exception, match="static_procedure"):
        p.consult_text(":- table atom_length/2.", "m.pl")
    p.consult_text(":- table none/0.", "n.pl")
    assert p.once("none") is None


def test_exceptions_and_tables_per_query():
    p = Program()
    p.consult_text(":- dynamic(f/1).\n:- table t/1.\nt(X) :- f(X).\nt(X) :- "
                   "X == boom, throw(oops).\nf(1).")
    assert answers(p, "t(X)") == ["1"]
    p.once("assertz(f(2))")
    assert answers(p, "t(X)") == ["1", "2"]       # a new query starts with no tables
    assert p.once("t(X), assertz(f(3)), findall(Y, t(Y), L)")["L"] is not None
    assert str(p.once("findall(Y, t(Y), L)")["L"]) == "[1,2,3]"
    with pytest.raises(PrologError):
        p.once("t(boom)")
    assert answers(p, "t(X)") == ["1", "2", "3"]
    assert p.once("abolish_all_tables") == {}


# -- stochastic tabled predicates ---------------------------------------------------------

PCFG = """
0.5 :: s --> np, vp.
0.5 :: s --> vp.
0.6 :: np --> [the], n.
0.4 :: np --> n.
0.7 :: n --> [dog].
0.3 :: n --> [dog], n.
0.8 :: vp --> [runs].
0.2 :: vp --> [runs], [fast].
"""


def test_pcfg_as_labelled_dcg_same_string_probabilities_tabled_and_enumerated():
    plain, tabled = Program(), Program()
    plain.consult_text(PCFG)
    tabled.consult_text(":- table s//0, np//0, n//0, vp//0.\n" + PCFG)
    words = ["the", "dog", "runs", "fast"]
    total = 0.0
    for n in range(1, 6):
        for w in itertools.product(words, repeat=n):
            q = f"phrase(s, [{', '.join(w)}])"
            a, b = prob(plain, q), prob(tabled, q)
            assert b == pytest.approx(a, rel=1e-12, abs=1e-300), q
            total += b
    # every derivation of at most 5 words: the rest of the mass is in longer strings
    assert 0.9 < total < 1.0


def test_left_recursive_grammar_equals_its_right_recursive_form():
    left, right = Program(), Program()
    left.consult_text(":- table s//0.\n0.4 :: s --> s, [a].\n0.6 :: s --> [b].")
    right.consult_text("0.4 :: s --> [a], s.\n0.6 :: s --> [b].")
    for n in range(6):
        a = prob(left, f"phrase(s, [b{', a' * n}])")
        b = prob(right, f"phrase(s, [{'a, ' * n}b])")
        assert a == pytest.approx(b, rel=1e-12) == pytest.approx(0.6 * 0.4 ** n)


def test_ambiguous_and_cyclic_grammars_against_closed_forms():
    p = Program()
    p.consult_text(":- table s//0, u//0.\n0.3 :: s --> s, s.\n0.7 :: s --> [a].\n"
                   "0.2 :: u --> u.\n0.8 :: u --> [a].")
    for n in range(1, 7):
        catalan = math.comb(2 * (n - 1), n - 1) // n
        assert prob(p, f"phrase(s, [{', '.join('a' * n)}])") == \
            pytest.approx(catalan * 0.3 ** (n - 1) * 0.7 ** n, rel=1e-12)
    # a unary cycle: 0.8 * (1 + 0.2 + 0.2^2 + ...) = 1, which enumeration only bounds
    assert prob(p, "phrase(u, [a])") == pytest.approx(1.0, rel=1e-14)
    q = Program()
    q.consult_text("0.2 :: u --> u.\n0.8 :: u --> [a].")
    bound = sum(pr.prob for pr in q.proofs("phrase(u, [a])", min_prob=1e-6))
    assert 0.999 < bound < 1.0


def test_hitting_probabilities_of_a_random_walk():
    # gambler's ruin on 0..N (absorbing ends): cycles in the explanation graph, a
    # program outside the PCFG compiler's fragment; exact values by linear algebra
    n, up = 6, 0.45
    p = Program()
    p.consult_text(f"""
        :- table reach/2.
        reach(X, X).
        reach(X, Y) :- step(X, Z), reach(Z, Y).
        {up} :: step(I, J) :- I > 0, I < {n}, J is I + 1.
        {1 - up} :: step(I, J) :- I > 0, I < {n}, J is I - 1.
    """)
    a = np.eye(n + 1)
    b = np.zeros(n + 1)
    b[n] = 1.0
    for i in range(1, n):
        a[i, i + 1] -= up
        a[i, i - 1] -= 1 - up
    exact = np.linalg.solve(a, b)
    for i in range(n + 1):
        assert prob(p, f"reach({i}, {n})") == pytest.approx(exact[i], rel=1e-12, abs=1e-15)
    # one refutation per answer of the table, with the answer as a node of the proof
    [pr] = p.proofs(f"reach(2, {n})")
    assert pr.prob == pytest.approx(exact[2], rel=1e-12)
    assert "reach(2, 6)" in str(pr.tree)


def test_a_stochastic_table_inside_a_plain_query_and_prob3():
    p = Program()
    p.consult_text(":- table s//0.\n0.4 :: s --> s, [a].\n0.6 :: s --> [b].\n"
                   "two(X, Y) :- phrase(s, X), phrase(s, Y).")
    pr = p.proofs("two([b, a], [b])")
    assert len(pr) == 1 and pr[0].prob == pytest.approx(0.6 * 0.4 * 0.6)
    # prob/3's pruning leaves out answers, not the mass inside the tables
    assert p.proofs("two([b, a], [b])", min_prob=0.2) == []
    assert p.proofs("phrase(s, [b, a])", min_prob=0.2)[0].prob == pytest.approx(0.24)


def test_sampling_calls_tabled_stochastic_predicates_untabled():
    src = "0.4 :: s --> [a], s.\n0.6 :: s --> [b].\n"
    plain, tabled = Program(), Program()
    plain.consult_text(src)
    tabled.consult_text(":- table s//0.\n" + src)
    for seed in range(20):
        a = plain.sample("phrase(s, L)", rng=np.random.default_rng(seed))
        b = tabled.sample("phrase(s, L)", rng=np.random.default_rng(seed))
        assert str(a.bindings["L"]) == str(b.bindings["L"])
        assert a.log_prob == pytest.approx(b.log_prob)
        assert a.tree.size() == b.tree.size()


def test_guarded_tabled_predicates():
    p = Program()
    p.consult_text(":- table t//0.\nP :: [P] :: t --> [x].\n"
                   "1 - P :: [P] :: t --> [y], [P] :: t.")
    assert prob(p, "phrase([0.3] :: t, [y, y, x])") == pytest.approx(0.7 * 0.7 * 0.3)
    assert prob(p, "phrase([0.5] :: t, [y, x])") == pytest.approx(0.25)


def test_tabled_answers_of_a_plain_predicate_in_a_stochastic_table():
    p = Program()
    p.consult_text("""
        :- table conn/2, walk/2.
        conn(X, Y) :- e(X, Y).
        conn(X, Y) :- conn(X, Z), e(Z, Y).
        e(a, b). e(b, c). e(c, a).
        % walk to a node reachable from X, each with probability by its label
        0.5 :: walk(X, Y) :- conn(X, Y).
        0.5 :: walk(X, X).
    """)
    got = {str(pr.bindings["Y"]): pr.prob for pr in p.proofs("walk(a, Y)")}
    assert got == pytest.approx({"b": 0.5, "c": 0.5, "a": 1.0})


def test_divergent_sums_are_an_error_not_a_hang():
    p = Program()
    p.consult_text(":- table s/0.\n1 :: s :- member(_, [x, y, z]), s.\n1 :: s.")
    with pytest.raises(PrologError, match="do not converge"):
        p.proofs("s")


def _items(t):
    return list_items(t)[0]


@pytest.mark.parametrize("split, want, rel", [(0.4, 1.0, 1e-12), (0.5, 1.0, 1e-7),
                                             (0.6, 2 / 3, 1e-12), (0.75, 1 / 3, 1e-12)])
def test_termination_probability_of_a_branching_process(split, want, rel):
    # s :- s, s. with probability `split`, else stop: the least root of
    # x = split x^2 + (1 - split). At 0.5 (critical) plain iteration would take 10^8
    # passes; Newton gets to within sqrt(machine epsilon), where x - F(x) vanishes in
    # floating point
    p = Program()
    p.consult_text(f":- table s/0.\n{split} :: s :- s, s.\n{1 - split} :: s.")
    assert prob(p, "s") == pytest.approx(want, rel=rel)
