"""List and integer builtins: length/2, between/3, succ/2, plus/3, numlist/3, nth0/3,
nth1/3, last/2, reverse/2, memberchk/2, delete/3, subtract/3, sum_list/2, max/min_list/2."""
import time

import pytest

import slpy.logic.builtins.listbi  # noqa: F401  (registers the builtins)
from slpy.logic.builtins import BUILTINS
from slpy.logic.builtins.typecheck import skip_list
from slpy.terms.term import NIL, PrologError, Struct, Var, atom, deref, mklist

from .builtin_harness import FakeEngine, formal, once, solve  # noqa: F401


def items_of(t):
    items, tail = skip_list(t)
    return [deref(x) for x in items], tail


a = atom
INST = a("instantiation_error")


def f(name, *args):
    return Struct(name, args)


def L(*items, tail=NIL):
    return mklist(list(items), tail)


def type_error(t, culprit):
    return f("type_error", a(t), culprit)


def domain_error(d, culprit):
    return f("domain_error", a(d), culprit)


# -- length/2 -----------------------------------------------------------------------------------

def test_length_modes():
    n = Var()
    assert once("length", L(1, 2, 3), n) and deref(n) == 3
    assert once("length", NIL, 0)
    assert not once("length", L(1, 2), 3)
    lst = Var()
    assert once("length", lst, 2)
    items, tail = items_of(lst)
    assert len(items) == 2 and tail is NIL and all(type(x) is Var for x in items)
    t = Var()
    assert once("length", L(a("a"), tail=t), 3)
    assert len(items_of(t)[0]) == 2
    assert not once("length", L(1, 2, 3, tail=Var()), 2)


def test_length_enumerates_partial_lists():
    sols = solve("length", L(a("a"), tail=Var()), Var(), limit=4)
    assert [s[1] for s in sols] == [1, 2, 3, 4]
    assert [len(items_of(s[0])[0]) for s in sols] == [1, 2, 3, 4]
    sols = solve("length", Var(), Var(), limit=3)
    assert [s[1] for s in sols] == [0, 1, 2]


def test_length_errors_and_failures():
    assert formal("length", Var(), -1) == domain_error("not_less_than_zero", -1)
    assert formal("length", L(1), a("a")) == type_error("integer", a("a"))
    assert not once("length", a("a"), Var())              # SWI: fails
    assert not once("length", L(1, tail=a("b")), Var())
    x = Var()
    assert solve("length", x, x) == []                    # length(L, L): no solution
    cyc = Var()
    cell = L(1, tail=cyc)
    cyc.ref = cell
    assert not once("length", cell, Var())


# -- integers -------------------------------------------------------------------------------------

def test_between():
    assert [s[2] for s in solve("between", 1, 4, Var())] == [1, 2, 3, 4]
    assert solve("between", 3, 2, Var()) == []
    assert once("between", 1, 10, 10) and not once("between", 1, 10, 11)
    assert [s[2] for s in solve("between", 5, a("inf"), Var(), limit=3)] == [5, 6, 7]
    assert once("between", 0, a("infinite"), 10 ** 30)
    assert formal("between", Var(), 3, Var()) is INST
    assert formal("between", 1, Var(), Var()) is INST
    assert formal("between", a("a"), 3, Var()) == type_error("integer", a("a"))
    assert formal("between", 1, 2.0, Var()) == type_error("integer", 2.0)
    assert formal("between", 1, 3, a("x")) == type_error("integer", a("x"))


def test_succ():
    y = Var()
    assert once("succ", 3, y) and deref(y) == 4
    x = Var()
    assert once("succ", x, 4) and deref(x) == 3
    assert not once("succ", Var(), 0)
    assert once("succ", 0, 1) and not once("succ", 0, 2)
    assert formal("succ", Var(), Var()) is INST
    assert formal("succ", -1, Var()) == type_error("not_less_than_zero", -1)
    assert formal("succ", Var(), -2) == type_error("not_less_than_zero", -2)
    assert formal("succ", a("a"), Var()) == type_error("integer", a("a"))


def test_plus():
    z = Var()
    assert once("plus", 2, 3, z) and deref(z) == 5
    y = Var()
    assert once("plus", 2, y, 5) and deref(y) == 3
    x = Var()
    assert once("plus", x, 3, 5) and deref(x) == 2
    assert not once("plus", 1, 1, 3)
    assert formal("plus", Var(), Var(), 5) is INST
    assert formal("plus", 1.0, 2, Var()) == type_error("integer", 1.0)


def test_numlist():
    out = Var()
    assert once("numlist", 1, 5, out) and items_of(out)[0] == [1, 2, 3, 4, 5]
    out = Var()
    assert once("numlist", -2, -2, out) and items_of(out)[0] == [-2]
    assert not once("numlist", 5, 1, Var())
    assert formal("numlist", Var(), 5, Var()) is INST
    assert formal("numlist", 1, a("x"), Var()) == type_error("integer", a("x"))


# -- nth0/nth1, last, reverse ---------------------------------------------------------------

def test_nth_bound_index():
    lst = L(a("a"), a("b"), a("c"))
    e = Var()
    assert once("nth0", 1, lst, e) and deref(e) is a("b")
    e = Var()
    assert once("nth1", 1, lst, e) and deref(e) is a("a")
    assert not once("nth0", 3, lst, Var())
    assert not once("nth1", 0, lst, Var())
    assert not once("nth0", -1, lst, Var())
    assert formal("nth0", a("x"), lst, Var()) == type_error("integer", a("x"))


def test_nth_enumerates():
    lst = L(a("a"), a("b"), a("a"))
    assert [(s[0], s[2]) for s in solve("nth0", Var(), lst, Var())] == [
        (0, a("a")), (1, a("b")), (2, a("a"))]
    assert [s[0] for s in solve("nth1", Var(), lst, a("a"))] == [1, 3]


def test_nth_extends_partial_lists_as_swi():
    lst = Var()
    assert once("nth0", 2, lst, a("x"))
    items, tail = items_of(lst)
    assert len(items) == 3 and items[2] is a("x") and type(tail) is Var
    sols = solve("nth1", Var(), L(a("a"), tail=Var()), a("z"), limit=3)
    assert [s[0] for s in sols] == [2, 3, 4]
    assert items_of(sols[1][1])[0][2] is a("z")


def test_last_and_reverse():
    x = Var()
    assert once("last", L(1, 2, 3), x) and deref(x) == 3
    assert not once("last", NIL, Var())
    assert formal("last", L(1, tail=Var()), Var()) is INST
    r = Var()
    assert once("reverse", L(1, 2, 3), r) and items_of(r)[0] == [3, 2, 1]
    assert once("reverse", NIL, NIL)
    x = Var()
    assert once("reverse", x, L(1, 2)) and items_of(x)[0] == [2, 1]
    h = Var()
    assert once("reverse", L(a("a"), tail=h), L(a("b"), a("a"))) and items_of(h)[0] == [a("b")]
    assert not once("reverse", L(1, tail=a("x")), Var())


# -- memberchk, delete, subtract -------------------------------------------------------------

def test_memberchk():
    assert once("memberchk", a("b"), L(a("a"), a("b")))
    assert not once("memberchk", a("z"), L(a("a"), a("b")))
    assert not once("memberchk", 1, L(1.0, 2))
    assert once("memberchk", 1.0, L(1, 1.0))
    assert not once("memberchk", -0.0, L(0.0))
    x = Var()
    assert once("memberchk", f("p", x), L(f("q", 1), f("p", 2), f("p", 3))) and deref(x) == 2
    y = Var()
    assert once("memberchk", a("k"), L(1, y)) and deref(y) is a("k")
    t = Var()
    assert once("memberchk", a("new"), L(a("a"), tail=t))
    assert items_of(t)[0] == [a("new")]
    assert not once("memberchk", a("a"), L(a("b"), tail=a("c")))
    cyc = Var()
    cell = L(1, 2, tail=cyc)
    cyc.ref = cell
    assert formal("memberchk", 3, cell) == type_error("list", cell)


def test_memberchk_undoes_partial_unifications():
    x = Var()
    # f(2, x) against f(3, 1): unify binds x to 1 (last argument first), then fails
    # on 2 = 3; that binding must not leak into the next candidate
    assert once("memberchk", f("f", 2, x), L(f("f", 3, 1), f("f", 2, 5)))
    assert deref(x) == 5
    y = Var()
    out = Var()
    assert once("delete", L(f("f", 3, 1), f("f", 2, 5)), f("f", 2, y), out)
    assert y.ref is None and len(items_of(out)[0]) == 1


def test_delete_and_subtract():
    out = Var()
    assert once("delete", L(a("a"), f("f", 1), a("b"), f("f", 2), a("a")), f("f", Var()), out)
    assert [t if type(t) is not Struct else t.name for t in items_of(out)[0]] == [
        a("a"), a("b"), a("a")]
    out = Var()
    x = Var()
    assert once("delete", L(x, a("a"), 1), a("a"), out)
    assert items_of(out)[0] == [1] and x.ref is None       # deletion binds nothing
    out = Var()
    assert once("subtract", L(1, 2, 3, 4, 2), L(2, 4), out) and items_of(out)[0] == [1, 3]
    assert formal("delete", L(1, tail=Var()), 1, Var()) is INST


# -- arithmetic over lists -------------------------------------------------------------

def test_sum_max_min_list():
    s = Var()
    assert once("sum_list", L(1, 2, 3), s) and deref(s) == 6 and type(deref(s)) is int
    s = Var()
    assert once("sumlist", L(1, 2.5), s) and deref(s) == 3.5
    s = Var()
    assert once("sum_list", NIL, s) and deref(s) == 0
    s = Var()
    assert once("sum_list", L(f("+", 1, 1), f("*", 2, 3)), s) and deref(s) == 8
    m = Var()
    assert once("max_list", L(3, 7.5, 7, -1), m) and deref(m) == 7.5
    m = Var()
    assert once("min_list", L(3, 7, -1, 2), m) and deref(m) == -1
    assert not once("max_list", NIL, Var())
    assert formal("sum_list", L(1, Var()), Var()) is INST
    assert formal("sum_list", L(1, a("foo")), Var()) == type_error(
        "evaluable", f("/", a("foo"), 0))
    assert formal("sum_list", L(1, tail=Var()), Var()) is INST
    assert formal("sum_list", L(1e308, 1e308), Var()) == f(
        "evaluation_error", a("float_overflow"))


# -- a million cells ------------------------------------------------------------------

def test_million_element_lists_are_fast_and_iterative():
    n = 1_000_000
    start = time.perf_counter()
    lst = Var()
    assert once("numlist", 1, n, lst)
    s = Var()
    assert once("sum_list", lst, s) and deref(s) == n * (n + 1) // 2
    k = Var()
    assert once("length", lst, k) and deref(k) == n
    fresh = Var()
    assert once("length", fresh, n)
    r = Var()
    assert once("reverse", lst, r)
    assert deref(deref(r).args[0]) == n
    m = Var()
    assert once("max_list", lst, m) and deref(m) == n
    assert once("memberchk", n, lst)
    e = Var()
    assert once("nth1", n, lst, e) and deref(e) == n
    # not a timing test: a quadratic step would take hours, each step here is well
    # under a second on a quiet machine
    assert time.perf_counter() - start < 120


def test_term_size_limit_is_respected():
    eng = FakeEngine()
    eng.max_term_size = 1000
    memory = f("resource_error", a("memory"))
    for name, args in [("numlist", (1, 5000, Var())), ("nth0", (5000, Var(), a("x")))]:
        kind, fn = BUILTINS[(name, len(args))]
        with pytest.raises(PrologError) as ei:
            r = fn(eng, *args)
            if kind == "nondet":
                next(r)
        assert ei.value.term.args[0] == memory
    with pytest.raises(PrologError) as ei:
        next(BUILTINS[("length", 2)][1](eng, Var(), 10 ** 12))
    assert ei.value.term.args[0] == memory
    assert next(BUILTINS[("length", 2)][1](eng, Var(), 1000), False) is not False
