"""Grammar rules: translation as SWI-Prolog does it, phrase/2,3 on control constructs,
and labelled (stochastic) grammar rules sampled and enumerated exactly."""
import math
from collections import Counter

import numpy as np
import pytest
from scipy.stats import chisquare

from slpy import Program
from slpy.terms.term import PrologError

from ..conftest import answers

GRAMMAR = """
greeting --> [hello], name.
name --> [world].
name --> [slpy].
digits([D|T]) --> digit(D), !, digits(T).
digits([]) --> [].
digit(D) --> [D], { code_type(D, digit) }.
a, [x] --> [y].
anbn --> [].
anbn --> [a], anbn, [b].
list([]) --> [].
list([H|T]) --> [H], list(T).
"""


@pytest.fixture
def g():
    p = Program()
    p.consult_text(GRAMMAR)
    return p


def test_phrase_of_control_constructs(g):
    assert answers(g, "phrase(([a], [b]), L)", "L") == ["[a,b]"]
    assert answers(g, "phrase((greeting ; [x]), L)", "L") == \
        ["[hello,world]", "[hello,slpy]", "[x]"]
    assert g.once("phrase(([a] -> [b] ; [c]), [c])") == {}
    assert g.once("phrase(([a] -> [b] ; [c]), [a, b])") == {}
    assert g.once("phrase(([a] -> [b] ; [c]), [a, c])") is None
    assert g.once("phrase(([a] *-> [b] ; [c]), [a, b])") == {}
    assert answers(g, "phrase(\\+ [a], [b], R)", "R") == ["[b]"]
    assert g.once("phrase(\\+ [a], [a], _)") is None
    assert answers(g, "phrase({X = 1}, L, R), L == R", "X") == ["1"]
    assert g.once("phrase([], L, R), L == R") is not None
    assert g.once("phrase(!, L, R), L == R") is not None
    assert answers(g, "phrase(call([S0, S] >> (S0 = [q|S])), L)", "L") == ["[q]"]
    assert answers(g, "phrase(\"ab\", L)", "L") == ["[97,98]"]


def test_pushback_cut_and_call(g):
    assert str(g.once("phrase(a, [y, z], R)")["R"]) == "[x,z]"
    assert str(g.once("phrase(digits(Ds), `12a`, R)")["Ds"]) == "[49,50]"
    assert str(g.once("phrase(digits(Ds), `12a`, R)")["R"]) == "[97]"
    assert [str(b["L"]) for b in g.query("between(0, 4, N), length(L, N), "
                                         "phrase(anbn, L)")] == ["[]", "[a,b]", "[a,a,b,b]"]
    assert str(g.once("phrase(list(X), [1, 2, 3])")["X"]) == "[1,2,3]"


def test_phrase_errors(g):
    with pytest.raises(PrologError, match="list"):
        g.once("phrase(greeting, a)")
    with pytest.raises(PrologError, match="nstantiat"):
        g.once("phrase(_, [])")
    with pytest.raises(PrologError, match="callable"):
        g.once("phrase(([a], 1), L)")


def test_translation_matches_swi(g):
    # SWI-Prolog 9's dcg_translate_rule/2 for the same rules
    cases = [
        ("(h --> b, [c], {d}, !)",
         "(h(S0, S) :- b(S0, S1), (S1 = [c|S2], ((d, S3 = S2), (!, S = S3))))"),
        ("(h, [p] --> [a])", "(h(S0, S) :- S0 = [a|S1], S = [p|S1])"),
        ("(h --> \\+ x, call(g, 1))", "(h(S0, S) :- (\\+ x(S0, _), S1 = S0), call(g, 1, S1, S))"),
        ("(h --> [])", "(h(S0, S) :- S0 = S)"),
        ("(0.5 :: [X] :: h(X) --> [X])", "(0.5 :: [X] :: h(X, S0, S) :- S0 = [X|S])"),
    ]
    for rule, clause in cases:
        assert g.once(f"dcg_translate_rule({rule}, C), C =@= {clause}") is not None, rule


def test_labelled_rules_are_labelled_clauses(g):
    g.consult_text("""
        0.4 :: s --> [a].
        0.6 :: s --> [b], s.
        P :: [P] :: t --> [x].
        1 - P :: [P] :: t --> [y], [P] :: t.
    """, "lab.pl")
    assert g.db.get("s", 2).kind == g.db.get("t", 2).kind != g.db.get("greeting", 2).kind
    assert g.db.lookup("::", 4) is None or not g.db.lookup("::", 4).clauses
    [pr] = g.proofs("phrase(s, [b, b, a])")
    assert pr.prob == pytest.approx(0.6 * 0.6 * 0.4)
    [pr] = g.proofs("phrase([0.3] :: t, [y, y, x])")
    assert pr.prob == pytest.approx(0.7 * 0.7 * 0.3)


def test_mixing_labelled_and_plain_grammar_rules_is_a_load_error():
    p = Program()
    with pytest.raises(Exception, match="mixes labelled and unlabelled"):
        p.consult_text("0.5 :: s --> [a].\ns --> [b].")


# A small PCFG written as a labelled DCG: a finite language, exact string
# probabilities computed here by hand from the labels.
PCFG = """
0.7 :: s --> np, vp.
0.3 :: s --> vp.
0.6 :: np --> [the], n.
0.4 :: np --> [a], n.
0.5 :: n --> [dog].
0.5 :: n --> [cat].
0.8 :: vp --> [runs].
0.2 :: vp --> [sleeps].
"""


def _pcfg_exact():
    out = {}
    for v, pv in (("runs", 0.8), ("sleeps", 0.2)):
        out[(v,)] = 0.3 * pv
        for d, pd in (("the", 0.6), ("a", 0.4)):
            for n in ("dog", "cat"):
                out[(d, n, v)] = 0.7 * pd * 0.5 * pv
    return out


def test_labelled_dcg_enumeration_is_exact():
    p = Program()
    p.consult_text(PCFG)
    exact = _pcfg_exact()
    got = {tuple(a.name for a in _items(pr.bindings["L"])): pr.prob
           for pr in p.proofs("phrase(s, L)")}
    assert got.keys() == exact.keys()
    for k in exact:
        assert got[k] == pytest.approx(exact[k], rel=1e-12)
    assert sum(got.values()) == pytest.approx(1.0)


def test_labelled_dcg_samples_match_the_grammar():
    p = Program()
    p.consult_text(PCFG)
    exact = _pcfg_exact()
    rng = np.random.default_rng(2024)
    n = 3000
    counts = Counter()
    for _ in range(n):
        s = p.sample("phrase(s, L)", rng=rng)
        counts[tuple(a.name for a in _items(s.bindings["L"]))] += 1
    keys = sorted(exact)
    assert set(counts) <= set(keys)
    obs = [counts[k] for k in keys]
    exp = [n * exact[k] for k in keys]
    assert chisquare(obs, exp).pvalue > 0.001


def test_recursive_labelled_dcg_sample_lengths():
    # s --> [b], s with 0.6 and s --> [a] with 0.4: the length is geometric
    p = Program()
    p.consult_text("0.4 :: s --> [a].\n0.6 :: s --> [b], s.")
    rng = np.random.default_rng(7)
    n = 3000
    lengths = Counter()
    for _ in range(n):
        s = p.sample("phrase(s, L)", rng=rng)
        lengths[min(len(_items(s.bindings["L"])), 6)] += 1
    exact = [0.4 * 0.6 ** (k - 1) for k in range(1, 6)]
    exact.append(1 - sum(exact))
    obs = [lengths[k] for k in range(1, 7)]
    assert chisquare(obs, [n * e for e in exact]).pvalue > 0.001
    # and the sampled sentence's log probability is its proof's
    s = p.sample("phrase(s, L)", rng=np.random.default_rng(3))
    k = len(_items(s.bindings["L"]))
    assert s.log_prob == pytest.approx(math.log(0.4) + (k - 1) * math.log(0.6))


def _items(t):
    from slpy.terms.term import list_items
    return list_items(t)[0]
