"""Sorting builtins: msort/2, sort/2, sort/4, keysort/2, list_to_set/2, max/min_member/2."""
import random

import pytest
from hypothesis import given, settings, strategies as st

import slpy.logic.builtins.sorting  # noqa: F401  (registers the builtins)
from slpy.logic.builtins.sorting import atomic_key
from slpy.logic.builtins.typecheck import build_list, skip_list
from slpy.terms.term import NIL, PrologError, Struct, Var, atom, compare, deref, mklist
from slpy.terms.walk import resolve

from .builtin_harness import FakeEngine, once  # noqa: F401


def formal(name, *args):
    """The formal part of the error(F, _) the builtin raises."""
    with pytest.raises(PrologError) as ei:
        once(name, *args)
    ball = ei.value.term
    assert type(ball) is Struct and ball.name == "error"
    return ball.args[0]


def result(name, *args):
    """The last argument's value after a successful call, as a Python list."""
    out = Var()
    assert once(name, *args, out)
    items, tail = skip_list(resolve(out))
    assert tail is NIL
    return [deref(x) for x in items]


a = atom
INST = a("instantiation_error")


def f(name, *args):
    return Struct(name, args)


def L(*items, tail=NIL):
    return mklist(list(items), tail)


def pair(k, v):
    return f("-", k, v)


def type_error(t, culprit):
    return f("type_error", a(t), culprit)


# -- ISO 8.4 patterns -----------------------------------------------------------------------

def test_iso_sort_errors():
    assert formal("sort", Var(), Var()) is INST
    assert formal("sort", L(a("a"), tail=Var()), Var()) is INST
    assert formal("sort", 3, Var()) == type_error("list", 3)
    assert formal("sort", L(a("a"), tail=a("b")), Var()) == type_error(
        "list", L(a("a"), tail=a("b")))
    assert formal("sort", NIL, 3) == type_error("list", 3)
    assert formal("sort", NIL, L(a("a"), tail=a("b"))) == type_error("list", L(a("a"), tail=a("b")))


def test_iso_keysort_errors():
    assert formal("keysort", Var(), Var()) is INST
    assert formal("keysort", L(pair(1, a("a")), tail=Var()), Var()) is INST
    assert formal("keysort", 3, Var()) == type_error("list", 3)
    assert formal("keysort", L(pair(1, a("a")), tail=a("b")), Var()) == type_error(
        "list", L(pair(1, a("a")), tail=a("b")))
    assert formal("keysort", NIL, 3) == type_error("list", 3)
    assert formal("keysort", NIL, L(pair(1, a("a")), tail=a("b"))) == type_error(
        "list", L(pair(1, a("a")), tail=a("b")))
    assert formal("keysort", L(Var()), Var()) is INST
    assert formal("keysort", L(f("/", 1, a("a"))), Var()) == type_error("pair", f("/", 1, a("a")))
    assert formal("keysort", NIL, L(f("/", 1, a("a")))) == type_error("pair", f("/", 1, a("a")))


def test_iso_sort_examples():
    x, y = Var(), Var()
    items = result("sort", L(a("c"), a("a"), x, 1.0, 1, a("a"), f("f", y), x))
    assert items[0] is x and items[1:5] == [1.0, 1, a("a"), a("c")]
    assert items[5].name == "f" and len(items) == 6
    assert result("sort", L(1, 1.0)) == [1.0, 1]
    assert once("sort", L(a("b"), a("a")), L(a("a"), a("b")))
    assert not once("sort", L(a("b"), a("a")), L(a("b"), a("a")))


def test_msort_keeps_duplicates_and_sort_removes_them():
    data = L(3, 1, 2, 3, 1)
    assert result("msort", data) == [1, 1, 2, 3, 3]
    assert result("sort", data) == [1, 2, 3]
    assert result("sort", L("b", "a", "b")) == ["a", "b"]
    assert result("sort", L(a("b"), a("a"), a("b"))) == [a("a"), a("b")]


def test_sort_numbers_in_standard_order():
    data = L(2, -0.0, 1, 0.0, 1.0, 0, float("nan"), -5)
    out = result("msort", data)
    assert out[0] != out[0]                              # NaN first among numbers
    assert out[1:] == [-5, -0.0, 0.0, 0, 1.0, 1, 2]
    assert str(out[2]) == "-0.0" and type(out[4]) is int
    # the fast key agrees with compare/3 on every pair
    vals = [2, -0.0, 1, 0.0, 1.0, 0, -5, a("x"), "s", 10**30, 1e30]
    for x in vals:
        for y in vals:
            kx, ky = atomic_key(x), atomic_key(y)
            assert ((kx > ky) - (kx < ky)) == compare(x, y)


def test_keysort_is_stable():
    data = L(pair(2, a("a")), pair(1, a("b")), pair(2, a("c")), pair(1, a("d")), pair(0, a("e")))
    out = result("keysort", data)
    assert [(p.args[0], p.args[1].name) for p in out] == [
        (0, "e"), (1, "b"), (1, "d"), (2, "a"), (2, "c")]


def test_keysort_output_partial_pairs_ok():
    k, v = Var(), Var()
    assert once("keysort", L(pair(b := a("b"), 1), pair(a("a"), 2)), L(pair(k, v), Var()))
    assert deref(k) is a("a") and deref(v) == 2 and b is a("b")


# -- sort/4 (SWI) -------------------------------------------------------------------------------

def test_sort4_swi_examples():
    data = L(f("f", 2, a("a")), f("f", 1, a("z")), f("f", 1, a("x")))
    out = result("sort", 1, a("@<"), data)
    assert [(t.args[0], t.args[1].name) for t in out] == [(1, "z"), (2, "a")]
    out = result("sort", 1, a("@>="), data)
    assert [(t.args[0], t.args[1].name) for t in out] == [(2, "a"), (1, "z"), (1, "x")]
    out = result("sort", 1, a("@=<"), data)
    assert [(t.args[0], t.args[1].name) for t in out] == [(1, "z"), (1, "x"), (2, "a")]
    out = result("sort", 1, a("@>"), data)
    assert [(t.args[0], t.args[1].name) for t in out] == [(2, "a"), (1, "z")]
    out = result("sort", 0, a("@>="), L(1, 3, 2, 3))
    assert out == [3, 3, 2, 1]
    out = result("sort", 0, a("@<"), L(1, 3, 2, 3))
    assert out == [1, 2, 3]
    out = result("sort", 2, a("@<"), L(f("p", 9, a("b")), f("p", 8, a("a"))))
    assert [t.args[0] for t in out] == [8, 9]


def test_sort4_errors():
    data = L(f("f", 1))
    assert formal("sort", Var(), a("@<"), data, Var()) is INST
    assert formal("sort", a("x"), a("@<"), data, Var()) == type_error("integer", a("x"))
    assert formal("sort", -1, a("@<"), data, Var()) == f(
        "domain_error", a("not_less_than_zero"), -1)
    assert formal("sort", 1, Var(), data, Var()) is INST
    assert formal("sort", 1, 3, data, Var()) == type_error("atom", 3)
    assert formal("sort", 1, a("<<"), data, Var()) == f("domain_error", a("order"), a("<<"))
    assert formal("sort", 1, a("@<"), L(a("atom")), Var()) == type_error("compound", a("atom"))
    assert formal("sort", 2, a("@<"), data, Var()) == f(
        "existence_error", a("argument"), 2, f("f", 1))
    assert formal("sort", 0, a("@<"), data, a("foo")) == type_error("list", a("foo"))
    assert formal("sort", 0, a("@<"), L(1, tail=Var()), Var()) is INST


# -- list_to_set, max/min_member ------------------------------------------------------------------

def test_list_to_set_keeps_first_occurrences():
    assert result("list_to_set", L(3, 1, 3, 2, 1)) == [3, 1, 2]
    assert result("list_to_set", L(1, 1.0, 1)) == [1, 1.0]
    x, y = Var(), Var()
    out = result("list_to_set", L(x, y, x, f("f", x), f("f", x), f("f", y)))
    assert out[0] is x and out[1] is y and len(out) == 4
    assert [t.args[0] for t in out[2:]] == [x, y]
    assert result("list_to_set", NIL) == []
    assert result("list_to_set", L(a("b"), a("a"), a("b"))) == [a("b"), a("a")]


def test_max_min_member():
    m = Var()
    assert once("max_member", m, L(3, a("a"), f("f", 1), 7)) and deref(m) == f("f", 1)
    m = Var()
    assert once("min_member", m, L(3, a("a"), 1.0, 7)) and deref(m) == 1.0
    assert not once("max_member", Var(), NIL)
    assert formal("max_member", Var(), L(1, tail=Var())) is INST
    x = Var()
    m = Var()
    assert once("min_member", m, L(2, x, 1)) and deref(m) is x


# -- properties and scale --------------------------------------------------------------------

atomic_terms = st.one_of(
    st.integers(-5, 5), st.floats(-5, 5, allow_nan=False),
    st.sampled_from([a("a"), a("b"), a("c")]),
    st.sampled_from(["x", "y"]),
)
terms = st.one_of(
    atomic_terms, st.builds(lambda n, x: f(n, x), st.sampled_from(["f", "g"]), atomic_terms))


@settings(max_examples=200, deadline=None, database=None)
@given(st.lists(terms, max_size=30))
def test_sort_agrees_with_compare(items):
    out = result("msort", mklist(items))
    assert len(out) == len(items)
    assert all(compare(x, y) <= 0 for x, y in zip(out, out[1:]))
    dedup = result("sort", mklist(items))
    assert all(compare(x, y) < 0 for x, y in zip(dedup, dedup[1:]))
    expected = [x for i, x in enumerate(out) if i == 0 or compare(out[i - 1], x) != 0]
    assert len(dedup) == len(expected)
    assert all(compare(x, y) == 0 for x, y in zip(dedup, expected))
    keyed = result("keysort", mklist([pair(x, i) for i, x in enumerate(items)]))
    assert all(compare(p.args[0], q.args[0]) < 0 or
               (compare(p.args[0], q.args[0]) == 0 and p.args[1] < q.args[1])
               for p, q in zip(keyed, keyed[1:]))


def test_large_sorts():
    rng = random.Random(7)
    nums = [rng.randrange(1000) for _ in range(200_000)]
    assert result("msort", build_list(nums)) == sorted(nums)
    assert result("sort", build_list(nums)) == sorted(set(nums))
    assert result("list_to_set", build_list(nums)) == list(dict.fromkeys(nums))
