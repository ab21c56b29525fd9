"""Unification, comparison and term construction builtins (ISO 8.2, 8.4, 8.5)."""
import pytest

import slpy.logic.builtins.termbi  # noqa: F401  (registers the builtins)
from slpy.logic.builtins import BUILTINS
from slpy.logic.builtins.termbi import identical
from slpy.logic.builtins.typecheck import build_list
from slpy.terms.term import NIL, PrologError, Struct, Var, atom, deref, mklist
from slpy.terms.walk import resolve
from slpy.terms.unify import variant

from .builtin_harness import FakeEngine, formal, once, solve  # noqa: F401


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


# -- 8.2 unify_with_occurs_check, subsumes_term ---------------------------------------

def test_iso_unify_with_occurs_check_succeeds():
    assert once("unify_with_occurs_check", 1, 1)
    x = Var()
    assert once("unify_with_occurs_check", x, 1) and deref(x) == 1
    x, y = Var(), Var()
    assert once("unify_with_occurs_check", x, y) and deref(x) is deref(y)
    assert once("unify_with_occurs_check", Var(), Var())
    x, y = Var(), Var()
    assert once("unify_with_occurs_check", x, y)
    assert once("unify_with_occurs_check", x, a("abc"))
    assert deref(x) is a("abc") and deref(y) is a("abc")
    x, y = Var(), Var()
    assert once("unify_with_occurs_check", f("f", x, a("def")), f("f", a("def"), y))
    assert deref(x) is a("def") and deref(y) is a("def")


def test_iso_unify_with_occurs_check_fails():
    x, y = Var(), Var()
    cases = [
        (1, 2), (1, 1.0), (f("g", x), f("f", f("f", x))), (f("f", x, 1), f("f", f("a", x))),
        (f("f", x, y, x), f("f", f("a", x), f("a", y), y, 2)), (x, f("a", x)),
        (f("f", x, 1), f("f", f("a", x), 2)), (f("f", 1, x, 1), f("f", 2, f("a", x), 2)),
        (f("f", 1, x), f("f", 2, f("a", x))),
        (f("f", x, y, x, 1), f("f", f("a", x), f("a", y), y, 2)),
    ]
    for lhs, rhs in cases:
        assert not once("unify_with_occurs_check", lhs, rhs)


def test_iso_subsumes_term():
    assert once("subsumes_term", a("a"), a("a"))
    x, y, z = Var(), Var(), Var()
    assert once("subsumes_term", f("f", x, y), f("f", z, z))
    x, y, z = Var(), Var(), Var()
    assert not once("subsumes_term", f("f", z, z), f("f", x, y))
    x = Var()
    assert not once("subsumes_term", f("g", x), f("g", f("f", x)))
    x = Var()
    assert not once("subsumes_term", x, f("f", x))
    x, y = Var(), Var()
    assert once("subsumes_term", x, y) and once("subsumes_term", y, f("f", x))


def test_subsumes_term_binds_nothing():
    x, y = Var(), Var()
    assert once("subsumes_term", f("f", x), f("f", f("g", y)))
    assert x.ref is None and y.ref is None


def test_unify_and_not_unify():
    x = Var()
    assert once("=", f("f", x, 2), f("f", 1, 2)) and deref(x) == 1
    assert not once("=", f("f", 1), f("f", 2))
    y = Var()
    assert not once("\\=", f("f", y), f("f", 1))
    assert y.ref is None                       # \= leaves no binding
    assert once("\\=", f("f", 1, 2), f("f", 2, Var()))


# -- 8.4 comparison ------------------------------------------------------------------------

def test_iso_compare_errors():
    assert formal("compare", 3, 4, 5) == type_error("atom", 3)
    assert formal("compare", a("$"), 4, 5) == domain_error("order", a("$"))


def test_compare_orders():
    assert solve("compare", Var(), 1, 2)[0][0] is a("<")
    assert solve("compare", Var(), a("b"), a("a"))[0][0] is a(">")
    assert solve("compare", Var(), f("f", 1), f("f", 1))[0][0] is a("=")
    assert once("compare", a("<"), 1.0, 1)          # Float < Int when equal
    assert not once("compare", a(">"), 1, 2)


STANDARD_ORDER = [Var(), -1.5, 1.0, 1, 2, a("a"), a("b"), "a string", f("f", 9),
                  f("a", 1, 1), f("b", 0, 0), f("a", 1, 1, 1)]


def test_standard_order_predicates():
    for i, x in enumerate(STANDARD_ORDER):
        for j, y in enumerate(STANDARD_ORDER):
            assert once("@<", x, y) is (i < j)
            assert once("@>", x, y) is (i > j)
            assert once("@=<", x, y) is (i <= j)
            assert once("@>=", x, y) is (i >= j)
            assert once("==", x, y) is (i == j)
            assert once("\\==", x, y) is (i != j)


def test_identical_corner_cases():
    x = Var()
    assert identical(x, x) and not identical(x, Var())
    assert not identical(1, 1.0)
    assert not identical(0.0, -0.0) and identical(-0.0, -0.0)
    nan = float("nan")
    assert identical(nan, nan)
    assert identical("abc", "abc") and not identical("abc", a("abc"))
    y = Var()
    y.ref = a("q")
    assert identical(f("f", y, L(1, 2)), f("f", a("q"), L(1, 2)))
    assert not identical(f("f", 1), f("g", 1)) and not identical(f("f", 1), f("f", 1, 2))
    assert identical(Struct("foo", ()), Struct("foo", ()))
    big = build_list(range(200_000))
    assert identical(big, build_list(range(200_000)))


# -- 8.5.1 functor/3 ---------------------------------------------------------------------------

def test_iso_functor_examples():
    assert once("functor", f("foo", a("a"), a("b"), a("c")), a("foo"), 3)
    n, k = Var(), Var()
    assert once("functor", f("foo", a("a"), a("b"), a("c")), n, k)
    assert deref(n) is a("foo") and deref(k) == 3
    x = Var()
    assert once("functor", x, a("foo"), 3)
    t = deref(x)
    assert t.name == "foo" and len(t.args) == 3 and all(type(deref(v)) is Var for v in t.args)
    assert len({id(v) for v in t.args}) == 3
    x = Var()
    assert once("functor", x, a("foo"), 0) and deref(x) is a("foo")
    aa, bb = Var(), Var()
    assert once("functor", f("mats", aa, bb), aa, bb)
    assert deref(aa) is a("mats") and deref(bb) == 2
    assert not once("functor", f("foo", a("a")), a("foo"), 2)
    assert not once("functor", f("foo", a("a")), a("fo"), 1)
    n, k = Var(), Var()
    assert once("functor", 1, n, k) and deref(n) == 1 and deref(k) == 0
    x = Var()
    assert once("functor", x, 1.1, 0) and deref(x) == 1.1
    assert once("functor", L(Var(), tail=Var()), a("."), 2)
    assert once("functor", NIL, NIL, 0)


def test_iso_functor_errors():
    assert formal("functor", Var(), Var(), 3) is INST
    assert formal("functor", Var(), a("foo"), Var()) is INST
    assert formal("functor", Var(), a("foo"), a("a")) == type_error("integer", a("a"))
    assert formal("functor", Var(), 1.5, 1) == type_error("atom", 1.5)
    assert formal("functor", Var(), f("foo", a("a")), 1) == type_error("atomic", f("foo", a("a")))
    assert formal("functor", Var(), a("foo"), -1) == domain_error("not_less_than_zero", -1)
    assert formal("functor", Var(), a("f"), 9223372036854775808) == f(
        "representation_error", a("max_arity"))


def test_functor_strings_and_zero_arity_compounds():
    x = Var()
    assert once("functor", x, "str", 0) and deref(x) == "str"
    n, k = Var(), Var()
    assert once("functor", Struct("foo", ()), n, k) and deref(n) is a("foo") and deref(k) == 0


# -- 8.5.2 arg/3 -------------------------------------------------------------------------------

def test_iso_arg_examples():
    assert once("arg", 1, f("foo", a("a"), a("b")), a("a"))
    x = Var()
    assert once("arg", 1, f("foo", a("a"), a("b")), x) and deref(x) is a("a")
    x = Var()
    assert once("arg", 1, f("foo", x, a("b")), a("a")) and deref(x) is a("a")
    assert not once("arg", 1, f("foo", a("a"), a("b")), a("b"))
    assert not once("arg", 0, f("foo", a("a"), a("b")), a("foo"))
    assert not once("arg", 3, f("foo", 3, 4), Var())


def test_iso_arg_errors():
    assert formal("arg", 1, Var(), a("a")) is INST
    assert formal("arg", 0, a("atom"), Var()) == type_error("compound", a("atom"))
    assert formal("arg", 0, 3, Var()) == type_error("compound", 3)
    assert formal("arg", a("a"), f("foo", a("a"), a("b")), Var()) == type_error("integer", a("a"))
    assert formal("arg", -1, f("foo", a("a"), a("b")), Var()) == domain_error(
        "not_less_than_zero", -1)


def test_arg_enumerates_when_index_unbound():
    # SWI-Prolog: arg(N, foo(a, b), X) enumerates; iso.tst wants instantiation_error here
    sols = solve("arg", Var(), f("foo", a("a"), a("b"), a("a")), Var())
    assert [(s[0], s[2]) for s in sols] == [(1, a("a")), (2, a("b")), (3, a("a"))]
    sols = solve("arg", Var(), f("foo", a("a"), a("b"), a("a")), a("a"))
    assert [s[0] for s in sols] == [1, 3]


# -- 8.5.3 =../2 ---------------------------------------------------------------------------------

def test_iso_univ_examples():
    assert once("=..", f("foo", a("a"), a("b")), L(a("foo"), a("a"), a("b")))
    x = Var()
    assert once("=..", x, L(a("foo"), a("a"), a("b")))
    assert deref(x) == f("foo", a("a"), a("b"))
    lst = Var()
    assert once("=..", f("foo", a("a"), a("b")), lst)
    assert resolve(lst) == L(a("foo"), a("a"), a("b"))
    x, y = Var(), Var()
    assert once("=..", f("foo", x, a("b")), L(a("foo"), a("a"), y))
    assert deref(x) is a("a") and deref(y) is a("b")
    assert once("=..", 1, L(1))
    assert not once("=..", f("foo", a("a"), a("b")), L(a("foo"), a("b"), a("a")))


def test_iso_univ_errors():
    assert formal("=..", Var(), Var()) is INST
    assert formal("=..", Var(), L(a("foo"), a("a"), tail=Var())) is INST
    assert formal("=..", Var(), L(a("foo"), tail=a("bar"))) == type_error(
        "list", L(a("foo"), tail=a("bar")))
    assert formal("=..", Var(), L(Var(), a("bar"))) is INST
    assert formal("=..", Var(), L(3, 1)) == type_error("atom", 3)
    assert formal("=..", Var(), L(1.1, a("foo"))) == type_error("atom", 1.1)
    assert formal("=..", Var(), L(f("a", a("b")), 1)) == type_error("atom", f("a", a("b")))
    assert formal("=..", Var(), 4) == type_error("list", 4)
    assert formal("=..", Var(), NIL) == domain_error("non_empty_list", NIL)
    assert formal("=..", Var(), L(f("a", a("b")))) == type_error("atomic", f("a", a("b")))
    assert formal("=..", f("foo", 1), a("bar")) == type_error("list", a("bar"))


def test_univ_atomic_and_lists():
    x = Var()
    assert once("=..", x, L("text")) and deref(x) == "text"
    lst = Var()
    assert once("=..", L(1, 2), lst)
    assert resolve(lst) == L(a("."), 1, L(2))


# -- 8.5.4 copy_term/2 ------------------------------------------------------------------------

def test_iso_copy_term():
    assert once("copy_term", Var(), Var())
    assert once("copy_term", Var(), 3)
    assert once("copy_term", Var(), a("a"))
    x = Var()
    assert once("copy_term", f("+", a("a"), x), f("+", x, a("b"))) and deref(x) is a("a")
    x, y, aa, bb = Var(), Var(), Var(), Var()
    assert once("copy_term", f("+", f("+", x, x), y), f("+", f("+", aa, bb), bb))
    assert deref(aa) is deref(bb)
    assert not once("copy_term", a("a"), a("b"))
    x = Var()
    eng = FakeEngine()
    fn = BUILTINS[("copy_term", 2)][1]
    assert fn(eng, f("+", a("a"), x), f("+", x, a("b")))
    assert not fn(eng, f("+", a("a"), x), f("+", x, a("b")))


def test_copy_term_keeps_sharing_and_is_fresh():
    x = Var()
    c = Var()
    assert once("copy_term", f("f", x, x, Var()), c)
    t = deref(c)
    assert t.args[0] is t.args[1] and t.args[0] is not x
    assert variant(t, f("f", x, x, Var()))


# -- 8.5.5 term_variables/2 ----------------------------------------------------------------

def test_iso_term_variables():
    assert formal("term_variables", a("foo"), 3) == type_error("list", 3)
    assert formal("term_variables", a("foo"), L(a("a"), tail=a("b"))) == type_error(
        "list", L(a("a"), tail=a("b")))
    x, y, z = Var(), Var(), Var()
    vs = Var()
    assert once("term_variables", f("foo", x, y, x, z), vs)
    items = []
    t = deref(vs)
    while t is not NIL:
        items.append(deref(t.args[0]))
        t = deref(t.args[1])
    assert [id(v) for v in items] == [id(x), id(y), id(z)]


def test_term_variables_difference_list():
    x, y = Var(), Var()
    vs = Var()
    assert once("term_variables", f("g", y, x, y), vs, L(a("end")))
    t = resolve(vs)
    assert deref(t.args[0]) is y and deref(t.args[1].args[0]) is x
    assert deref(t.args[1].args[1]) == L(a("end"))


def test_functor_respects_term_size_limit():
    eng = FakeEngine()
    eng.max_term_size = 100
    with pytest.raises(PrologError) as ei:
        BUILTINS[("functor", 3)][1](eng, Var(), a("f"), 10 ** 9)
    assert ei.value.term.args[0] == f("resource_error", a("memory"))
    assert BUILTINS[("functor", 3)][1](eng, Var(), a("f"), 100)
