"""Type testing builtins (ISO 8.3), char_type/code_type and the shared list walkers."""
import pytest

import slpy.logic.builtins.typecheck  # noqa: F401  (registers the builtins)
import slpy.logic.builtins.chartype  # noqa: F401  (char_type/2, code_type/2)
from slpy.logic.builtins.typecheck import (
    build_list, fresh_list, is_acyclic, list_length, proper_items, skip_list,
)
from slpy.terms.term import NIL, PrologError, Struct, Var, atom, deref, mklist

from .builtin_harness import FakeEngine, formal, once, solve  # noqa: F401


a = atom


def f(name, *args):
    return Struct(name, args)


def L(*items, tail=NIL):
    return mklist(list(items), tail)


def cyclic_list():
    x = Var()
    cell = f(".", 1, x)
    x.ref = f(".", 2, cell)
    return cell


# -- ISO 8.3 patterns from iso.tst ------------------------------------------------------

ISO_83 = [
    ("var", Var(), True), ("var", 3, False),
    ("atom", a("a"), True), ("atom", 3, False), ("atom", Var(), False),
    ("integer", 3, True), ("integer", a("a"), False), ("integer", Var(), False),
    ("float", 3.1, True), ("float", a("a"), False), ("float", Var(), False),
    ("atomic", a("a"), True), ("atomic", 3, True), ("atomic", 3.1, True),
    ("atomic", f("f", a("b")), False), ("atomic", L(a("a")), False), ("atomic", Var(), False),
    ("compound", f("f", a("b")), True), ("compound", L(a("a")), True),
    ("compound", a("a"), False), ("compound", 3, False), ("compound", 3.1, False),
    ("compound", Var(), False),
    ("nonvar", 3, True), ("nonvar", Var(), False),
    ("number", 3, True), ("number", 3.1, True), ("number", a("a"), False),
    ("number", Var(), False),
    ("callable", f("f", a("b")), True), ("callable", L(a("a")), True),
    ("callable", a("a"), True), ("callable", 3, False), ("callable", 3.1, False),
    ("callable", Var(), False),
    ("ground", a("a"), True), ("ground", f("f", 3), True), ("ground", Var(), False),
    ("ground", f("f", Var()), False),
    ("acyclic_term", f("foo", Var()), True),
]


@pytest.mark.parametrize("name,arg,expected", ISO_83)
def test_iso_type_tests(name, arg, expected):
    assert once(name, arg) is expected


def test_iso_acyclic_term_on_cyclic_terms():
    x = Var()
    x.ref = f("f", x)                 # X = f(X)
    assert once("acyclic_term", x) is False
    assert once("cyclic_term", x) is True
    y = Var()
    y.ref = f("f", y, a("a"))         # X = f(X, a)
    assert once("acyclic_term", y) is False


def test_type_tests_see_through_bindings():
    x = Var()
    y = Var()
    x.ref = y
    y.ref = a("abc")
    assert once("atom", x) and once("atomic", x) and once("nonvar", x)
    assert not once("var", x)


def test_strings_are_atomic_not_atoms():
    assert once("string", "abc")
    assert once("atomic", "abc")
    assert not once("atom", "abc")
    assert not once("string", a("abc"))
    assert not once("callable", "abc")


def test_empty_list_is_an_atom_and_callable():
    assert once("atom", NIL) and once("callable", NIL) and once("is_list", NIL)


def test_zero_argument_compound():
    assert once("compound", Struct("foo", ()))
    assert once("callable", Struct("foo", ()))


def test_is_list():
    assert once("is_list", L(1, 2, 3))
    assert not once("is_list", L(1, 2, tail=Var()))
    assert not once("is_list", L(1, tail=a("b")))
    assert not once("is_list", Var())
    assert not once("is_list", cyclic_list())
    assert not once("is_list", f(".", 1))          # '.'/1 is no list cell


def test_ground_nested():
    assert once("ground", L(f("g", L(1, 2)), "s"))
    assert not once("ground", L(f("g", L(1, Var()))))


def test_acyclic_with_shared_subterms():
    shared = f("f", 1, L(1, 2))
    assert is_acyclic(f("g", shared, shared, f("h", shared)))
    x = Var()
    inner = f("h", 1, x)
    outer = f("g", 2, inner)
    x.ref = outer                     # cycle through a last argument
    assert not is_acyclic(outer)
    z = Var()
    inner2 = f("h", z, 1)
    outer2 = f("g", inner2, 2)
    z.ref = outer2                    # cycle through a first argument
    assert not is_acyclic(outer2)


# -- the list walkers -----------------------------------------------------------------------

def test_skip_list_shapes():
    items, tail = skip_list(L(1, 2))
    assert items == [1, 2] and tail is NIL
    v = Var()
    items, tail = skip_list(L(1, tail=v))
    assert items == [1] and tail is v
    items, tail = skip_list(a("foo"))
    assert items == [] and tail is a("foo")
    assert skip_list(cyclic_list())[1] is None
    assert list_length(cyclic_list())[1] is None
    assert list_length(L(1, 2, 3)) == (3, NIL)


def test_cycle_detected_for_long_lead_in():
    # a cycle that starts after 1000 cells and is 37 cells long
    loop_start = Var()
    loop = mklist(list(range(37)), loop_start)
    loop_start.ref = loop
    lst = mklist(list(range(1000)), loop)
    assert skip_list(lst)[1] is None
    assert list_length(lst)[1] is None


def test_proper_items_errors():
    assert proper_items(L(1, 2)) == [1, 2]
    with pytest.raises(PrologError) as ei:
        proper_items(L(1, tail=Var()))
    assert ei.value.term.args[0] is a("instantiation_error")
    with pytest.raises(PrologError) as ei:
        proper_items(L(1, tail=a("b")))
    assert ei.value.term.args[0] == f("type_error", a("list"), L(1, tail=a("b")))


def test_million_cell_list_walks_without_recursion():
    big = build_list(range(1_000_000))
    assert list_length(big) == (1_000_000, NIL)
    assert once("is_list", big)
    assert once("ground", big)
    assert is_acyclic(big)
    fresh = fresh_list(1000, a("end"))
    items, tail = skip_list(fresh)
    assert len(items) == 1000 and tail is a("end")
    assert len({id(x) for x in items}) == 1000 and all(type(x) is Var for x in items)


# -- char_type/2 and code_type/2 ---------------------------------------------------------

@pytest.mark.parametrize("ch,typ,expected", [
    ("a", "alpha", True), ("1", "alpha", False), ("_", "alpha", False),
    ("1", "alnum", True), ("_", "csym", True), ("1", "csymf", False), ("_", "csymf", True),
    ("7", "digit", True), ("x", "digit", False),
    (" ", "space", True), ("\t", "white", True), ("\n", "white", False),
    ("\n", "space", True), ("\n", "end_of_line", True), ("\r", "end_of_line", True),
    ("A", "upper", True), ("a", "upper", False), ("a", "lower", True),
    ("!", "punct", True), ("_", "punct", True), ("a", "punct", False),
    ("a", "graph", True), (" ", "graph", False), ("é", "alpha", True),
    (".", "period", True), ("'", "quote", True), ("+", "prolog_symbol", True),
    ("_", "prolog_var_start", True), ("a", "prolog_atom_start", True),
])
def test_char_type_check(ch, typ, expected):
    assert once("char_type", a(ch), a(typ)) is expected
    assert once("code_type", ord(ch), a(typ)) is expected


def test_char_type_with_argument():
    w = Var()
    assert once("char_type", a("7"), f("digit", w)) and deref(w) == 7
    u = Var()
    assert once("char_type", a("a"), f("lower", u)) and deref(u) is a("A")
    lo = Var()
    assert once("char_type", a("A"), f("upper", lo)) and deref(lo) is a("a")
    assert not once("char_type", a("a"), f("upper", Var()))
    code = Var()
    assert once("code_type", 0x61, f("lower", code)) and deref(code) == 0x41
    h = Var()
    assert once("code_type", ord("f"), f("xdigit", h)) and deref(h) == 15


def test_char_type_reverse_and_enumeration():
    assert solve("char_type", Var(), f("upper", a("a")))[0][0] is a("A")
    assert solve("code_type", Var(), f("digit", 5))[0][0] == ord("5")
    digits = solve("char_type", Var(), a("digit"), limit=10)
    assert [s[0] for s in digits] == [a(c) for c in "0123456789"]
    types = {s[1].name for s in solve("char_type", a("a"), Var())}
    assert {"alpha", "alnum", "lower", "csym", "graph"} <= types
    assert "digit" not in types and "upper" not in types


def test_char_type_errors():
    assert formal("char_type", Var(), Var()) is a("instantiation_error")
    assert formal("char_type", a("a"), a("no_such_type")) == f(
        "type_error", a("char_type"), a("no_such_type"))
    assert formal("char_type", a("ab"), a("alpha")) == f("type_error", a("character"), a("ab"))
