"""Atomic term processing (ISO 8.16) and SWI string builtins."""
import pytest

import slpy.logic.builtins.atoms  # noqa: F401  (registers the builtins)
from slpy.logic.builtins.atoms import float_text
from slpy.logic.builtins.strings import split_text
from slpy.terms.term import NIL, Struct, Var, atom, deref, mklist
from slpy.terms.walk import resolve

from .builtin_harness import FakeEngine, formal, once, solve  # noqa: F401


a = atom
INST = a("instantiation_error")


def f(name, *args):
    return Struct(name, args)


def L(*items, tail=NIL):
    return mklist(list(items), tail)


def chars(s, tail=NIL):
    return mklist([a(c) for c in s], tail)


def codes(s, tail=NIL):
    return mklist([ord(c) for c in s], tail)


def type_error(t, culprit):
    return f("type_error", a(t), culprit)


def domain_error(d, culprit):
    return f("domain_error", a(d), culprit)


REPR_CODE = f("representation_error", a("character_code"))


# -- atom_length/2 --------------------------------------------------------------------

def test_iso_atom_length_errors():
    assert formal("atom_length", Var(), 3) is INST
    assert formal("atom_length", 1, 3) == type_error("atom", 1)
    assert formal("atom_length", a("a"), a("a")) == type_error("integer", a("a"))
    assert formal("atom_length", a("a"), -1) == domain_error("not_less_than_zero", -1)


def test_atom_length():
    n = Var()
    assert once("atom_length", a("enchanted evening"), n) and deref(n) == 17
    assert once("atom_length", a(""), 0)
    assert not once("atom_length", a("scarlet"), 5)
    assert once("atom_length", "héllo", 5)              # SWI strings are accepted


# -- atom_concat/3 ----------------------------------------------------------------------

def test_iso_atom_concat_errors():
    assert formal("atom_concat", Var(), a("b"), Var()) is INST
    assert formal("atom_concat", a("a"), Var(), Var()) is INST
    assert formal("atom_concat", 1, a("b"), Var()) == type_error("atom", 1)
    assert formal("atom_concat", a("a"), 2, Var()) == type_error("atom", 2)
    assert formal("atom_concat", a("a"), a("b"), 3) == type_error("atom", 3)


def test_iso_atom_concat_examples():
    s = Var()
    assert once("atom_concat", a("hello"), a(" world"), s) and deref(s) is a("hello world")
    t = Var()
    assert once("atom_concat", t, a(" world"), a("small world")) and deref(t) is a("small")
    assert not once("atom_concat", a("hello"), a(" world"), a("small world"))
    sols = solve("atom_concat", Var(), Var(), a("hello"))
    assert [(x.name, y.name) for x, y, _ in sols] == [
        ("", "hello"), ("h", "ello"), ("he", "llo"), ("hel", "lo"), ("hell", "o"), ("hello", "")]


def test_atom_concat_prefix_and_same_variable():
    rest = Var()
    assert once("atom_concat", a("ab"), rest, a("abc")) and deref(rest) is a("c")
    assert not once("atom_concat", a("x"), Var(), a("abc"))
    x = Var()
    assert [s[0] for s in solve("atom_concat", x, x, a("abab"))] == [a("ab")]


# -- sub_atom/5 ---------------------------------------------------------------------------

def test_iso_sub_atom_errors():
    v = Var
    assert formal("sub_atom", v(), v(), v(), v(), v()) is INST
    assert formal("sub_atom", 3, v(), v(), v(), v()) == type_error("atom", 3)
    assert formal("sub_atom", a("a"), v(), v(), v(), 3) == type_error("atom", 3)
    assert formal("sub_atom", a("a"), a("b"), v(), v(), v()) == type_error("integer", a("b"))
    assert formal("sub_atom", a("a"), v(), a("c"), v(), v()) == type_error("integer", a("c"))
    assert formal("sub_atom", a("a"), v(), v(), a("d"), v()) == type_error("integer", a("d"))
    for pos in range(3):
        args = [v(), v(), v()]
        args[pos] = -1
        assert formal("sub_atom", a("a"), *args, v()) == domain_error("not_less_than_zero", -1)


def test_iso_sub_atom_examples():
    ab = a("abracadabra")
    assert solve("sub_atom", ab, 0, 5, Var(), Var())[0][4] is a("abrac")
    assert solve("sub_atom", ab, Var(), 5, 0, Var())[0][4] is a("dabra")
    sol = solve("sub_atom", ab, 3, Var(), 3, Var())
    assert sol[0][2] == 5 and sol[0][4] is a("acada")
    sols = solve("sub_atom", ab, Var(), 2, Var(), a("ab"))
    assert [(s[1], s[3]) for s in sols] == [(0, 9), (7, 2)]
    assert solve("sub_atom", a("Banana"), 3, 2, Var(), Var())[0][4] is a("an")
    sols = solve("sub_atom", a("charity"), Var(), 3, Var(), Var())
    assert [s[4].name for s in sols] == ["cha", "har", "ari", "rit", "ity"]
    sols = solve("sub_atom", a("ab"), Var(), Var(), Var(), Var())
    assert [(s[1], s[2], s[4].name) for s in sols] == [
        (0, 0, ""), (0, 1, "a"), (0, 2, "ab"), (1, 0, ""), (1, 1, "b"), (2, 0, "")]


def test_sub_atom_known_sub_modes():
    sols = solve("sub_atom", a("aaa"), Var(), Var(), Var(), a("aa"))
    assert [(s[1], s[2], s[3]) for s in sols] == [(0, 2, 1), (1, 2, 0)]
    assert [s[1] for s in solve("sub_atom", a("abc"), Var(), Var(), Var(), a(""))] == [0, 1, 2, 3]
    assert once("sub_atom", a("hello"), 1, Var(), Var(), a("ell"))
    assert not once("sub_atom", a("hello"), 2, Var(), Var(), a("ell"))
    assert solve("sub_atom", a("hello"), Var(), Var(), 0, a("lo"))[0][1] == 3
    assert not once("sub_atom", a("hello"), Var(), 2, Var(), a("ell"))
    assert solve("sub_atom", a("abc"), 1, Var(), 0, Var())[0][4] is a("bc")
    sols = solve("sub_atom", a("abc"), Var(), Var(), 1, Var())
    assert [s[4].name for s in sols] == ["ab", "b", ""]
    assert not once("sub_atom", a("abc"), 2, 2, Var(), Var())
    sols = solve("sub_atom", a("abc"), 1, Var(), Var(), Var())
    assert [(s[2], s[3], s[4].name) for s in sols] == [(0, 2, ""), (1, 1, "b"), (2, 0, "bc")]
    sols = solve("sub_atom", a("abc"), Var(), 2, Var(), Var())
    assert [(s[1], s[4].name) for s in sols] == [(0, "ab"), (1, "bc")]


def test_sub_atom_long_atom_search_is_linear():
    text = a("x" * 200_000 + "needle" + "y" * 200_000)
    sols = solve("sub_atom", text, Var(), Var(), Var(), a("needle"))
    assert [s[1] for s in sols] == [200_000]


# -- atom_chars/2, atom_codes/2, char_code/2 ------------------------------------------------

def test_iso_atom_chars_errors():
    assert formal("atom_chars", Var(), Var()) is INST
    assert formal("atom_chars", Var(), L(a("a"), tail=Var())) is INST
    assert formal("atom_chars", Var(), L(a("a"), Var())) is INST
    assert formal("atom_chars", 1, Var()) == type_error("atom", 1)
    assert formal("atom_chars", Var(), a("b")) == type_error("list", a("b"))
    assert formal("atom_chars", Var(), L(a("a"), tail=a("b"))) == type_error(
        "list", L(a("a"), tail=a("b")))
    assert formal("atom_chars", Var(), L(1)) == type_error("character", 1)
    assert formal("atom_chars", Var(), L(a("abc"))) == type_error("character", a("abc"))
    assert formal("atom_chars", Var(), L(a("a"), f("f", a("b")))) == type_error(
        "character", f("f", a("b")))
    assert formal("atom_chars", Var(), L(1, tail=Var())) == type_error("character", 1)


def test_iso_atom_codes_errors():
    assert formal("atom_codes", Var(), Var()) is INST
    assert formal("atom_codes", Var(), codes("a", Var())) is INST
    assert formal("atom_codes", Var(), L(ord("a"), Var())) is INST
    assert formal("atom_codes", 1, Var()) == type_error("atom", 1)
    assert formal("atom_codes", Var(), ord("b")) == type_error("list", ord("b"))
    assert formal("atom_codes", Var(), L(ord("a"), tail=ord("b"))) == type_error(
        "list", L(ord("a"), tail=ord("b")))
    assert formal("atom_codes", Var(), L(a("a"))) == REPR_CODE
    assert formal("atom_codes", Var(), L(-1)) == REPR_CODE
    assert formal("atom_codes", Var(), L(0x110000)) == REPR_CODE


def test_iso_char_code_errors():
    assert formal("char_code", Var(), Var()) is INST
    assert formal("char_code", 1, Var()) == type_error("character", 1)
    assert formal("char_code", a("abc"), Var()) == type_error("character", a("abc"))
    assert formal("char_code", Var(), a("a")) == type_error("integer", a("a"))
    assert formal("char_code", Var(), -1) == REPR_CODE


def test_chars_codes_conversions():
    lst = Var()
    assert once("atom_chars", a("héllo"), lst) and resolve(lst) == chars("héllo")
    lst = Var()
    assert once("atom_codes", a("abc"), lst) and resolve(lst) == codes("abc")
    x = Var()
    assert once("atom_chars", x, chars("xyz")) and deref(x) is a("xyz")
    x = Var()
    assert once("atom_codes", x, codes("")) and deref(x) is a("")
    x = Var()
    assert once("atom_codes", x, "from a string") and deref(x) is a("from a string")
    rest = Var()
    assert once("atom_chars", a("abc"), chars("a", rest)) and resolve(rest) == chars("bc")
    assert not once("atom_chars", a("abc"), chars("abd"))
    c = Var()
    assert once("char_code", c, 0x1F600) and deref(c) is a("\U0001F600")
    k = Var()
    assert once("char_code", a("a"), k) and deref(k) == 97
    assert not once("char_code", a("a"), 98)


# -- case, strings ------------------------------------------------------------------------------

def test_upcase_downcase():
    x = Var()
    assert once("upcase_atom", a("Hello World 1"), x) and deref(x) is a("HELLO WORLD 1")
    x = Var()
    assert once("downcase_atom", a("ÉCOLE"), x) and deref(x) is a("école")
    x = Var()
    assert once("upcase_atom", a("straße"), x) and deref(x) is a("STRAßE")  # per character
    x = Var()
    assert once("upcase_atom", 12, x) and deref(x) is a("12")
    assert once("upcase_atom", a("abc"), a("ABC"))
    assert not once("upcase_atom", a("abc"), a("ABc"))
    assert formal("upcase_atom", Var(), Var()) is INST
    assert formal("upcase_atom", a("a"), f("f", 1)) == type_error("atom", f("f", 1))
    s = Var()
    assert once("string_upper", "abc", s) and deref(s) == "ABC"


def test_atom_string_and_string_to_atom():
    s = Var()
    assert once("atom_string", a("abc"), s) and deref(s) == "abc"
    x = Var()
    assert once("atom_string", x, "xyz") and deref(x) is a("xyz")
    s = Var()
    assert once("atom_string", 42, s) and deref(s) == "42"
    s = Var()
    assert once("atom_string", 1.5e20, s) and deref(s) == "1.5e20"
    x = Var()
    assert once("atom_string", x, codes("hi")) and deref(x) is a("hi")
    assert formal("atom_string", Var(), Var()) is INST
    x = Var()
    assert once("string_to_atom", "abc", x) and deref(x) is a("abc")
    s = Var()
    assert once("string_to_atom", s, a("abc")) and deref(s) == "abc"
    s = Var()
    assert once("text_to_string", chars("ab"), s) and deref(s) == "ab"


def test_string_chars_codes_length():
    lst = Var()
    assert once("string_chars", "ab", lst) and resolve(lst) == chars("ab")
    s = Var()
    assert once("string_chars", s, chars("ab")) and deref(s) == "ab"
    lst = Var()
    assert once("string_codes", a("ab"), lst) and resolve(lst) == codes("ab")
    s = Var()
    assert once("string_codes", s, codes("xy")) and deref(s) == "xy"
    n = Var()
    assert once("string_length", "hello", n) and deref(n) == 5
    n = Var()
    assert once("string_length", 12345, n) and deref(n) == 5
    assert formal("string_length", "abc", a("x")) == type_error("integer", a("x"))
    assert formal("string_chars", Var(), Var()) is INST


def test_string_concat():
    s = Var()
    assert once("string_concat", a("abc"), 12, s) and deref(s) == "abc12"
    sols = solve("string_concat", Var(), Var(), "ab")
    assert [(x, y) for x, y, _ in sols] == [("", "ab"), ("a", "b"), ("ab", "")]
    rest = Var()
    assert once("string_concat", "ab", rest, a("abcd")) and deref(rest) == "cd"
    assert formal("string_concat", Var(), "b", Var()) is INST


def test_sub_string_and_string_code():
    sols = solve("sub_string", "hello world", Var(), Var(), 0, Var())
    assert sols[0][4] == "hello world" and sols[-1][4] == ""
    sols = solve("sub_string", a("abcab"), Var(), 2, Var(), "ab")
    assert [s[1] for s in sols] == [0, 3]
    assert solve("sub_string", "abc", 1, 1, Var(), Var())[0][4] == "b"
    c = Var()
    assert once("string_code", 1, "abc", c) and deref(c) == ord("a")
    assert not once("string_code", 4, "abc", Var())
    assert not once("string_code", 0, "abc", Var())
    sols = solve("string_code", Var(), "ab", Var())
    assert [(s[0], s[2]) for s in sols] == [(1, 97), (2, 98)]
    assert formal("string_code", a("x"), "abc", Var()) == type_error("integer", a("x"))


# -- split_string/4 -------------------------------------------------------------------------

@pytest.mark.parametrize("text,sep,pad,expected", [
    ("a.b.c.d", ".", "", ["a", "b", "c", "d"]),
    ("/home//jan///nice/path", "/", "", ["", "home", "", "jan", "", "", "nice", "path"]),
    ("SWI-Prolog, 7.0", ",", " ", ["SWI-Prolog", "7.0"]),
    ("  a word ", "", " ", ["a word"]),
    ("/home//jan///nice/path", "/", "/", ["home", "jan", "nice", "path"]),
    ("", "", "", [""]),
    ("abc", "", "", ["abc"]),
    ("a.", ".", "", ["a", ""]),
    (".a.", ".", "", ["", "a", ""]),
    ("a b", " ", " ", ["a", "b"]),
    ("   ", " ", " ", [""]),
    ("a,,b", ",", " ", ["a", "", "b"]),
    ("x , y ,z", ",", " ", ["x", "y", "z"]),
    # a non-padding separator followed by a separator that is also padding
    ("a,;b", ",;", ";", ["a", "", "b"]),
    ("a;,b", ",;", ";", ["a", "", "b"]),
])
def test_split_string(text, sep, pad, expected):
    assert split_text(text, sep, pad) == expected
    out = Var()
    assert once("split_string", text, sep, pad, out)
    assert resolve(out) == mklist(expected)


def test_split_string_accepts_atoms_and_code_lists():
    out = Var()
    assert once("split_string", a("a-b"), codes("-"), a(""), out)
    assert resolve(out) == L("a", "b")


# -- atomic_list_concat/2,3 --------------------------------------------------------------------

def test_atomic_list_concat_join():
    x = Var()
    assert once("atomic_list_concat", L(a("a"), 1, "s", 2.5), x) and deref(x) is a("a1s2.5")
    x = Var()
    assert once("atomic_list_concat", L(a("a"), a("b"), a("c")), a("-"), x)
    assert deref(x) is a("a-b-c")
    x = Var()
    assert once("atomic_list_concat", NIL, a(","), x) and deref(x) is a("")
    assert once("atomic_list_concat", L(a("x"), 1), a("x1"))
    assert not once("atomic_list_concat", L(a("x"), 1), a("x2"))


def test_atomic_list_concat_split_mode():
    lst = Var()
    assert once("atomic_list_concat", lst, a(","), a("a,b,,c"))
    assert resolve(lst) == L(a("a"), a("b"), a(""), a("c"))
    lst = Var()
    assert once("atomic_list_concat", lst, a("--"), a("1--2"))
    assert resolve(lst) == L(a("1"), a("2"))                # split gives atoms
    y = Var()
    assert once("atomic_list_concat", L(a("a"), y), a("-"), a("a-b")) and deref(y) is a("b")
    assert not once("atomic_list_concat", L(Var(), Var()), a("-"), a("abc"))


def test_atomic_list_concat_errors():
    assert formal("atomic_list_concat", L(a("a"), Var()), Var()) is INST
    assert formal("atomic_list_concat", Var(), Var()) is INST
    assert formal("atomic_list_concat", L(a("a"), f("f", 1)), Var()) == type_error(
        "atomic", f("f", 1))
    assert formal("atomic_list_concat", Var(), a(""), a("abc")) == domain_error(
        "non_empty_atom", a(""))
    assert formal("atomic_list_concat", Var(), Var(), a("abc")) is INST
    assert formal("atomic_list_concat", Var(), a(","), Var()) is INST
    assert formal("atomic_list_concat", L(a("a"), tail=a("b")), Var()) == type_error(
        "list", L(a("a"), tail=a("b")))


def test_empty_list_is_empty_text_in_string_positions():
    # with double_quotes=codes a "" in the source is [], so string builtins read [] as ""
    out = Var()
    assert once("split_string", "a b", " ", NIL, out) and resolve(out) == L("a", "b")
    s = Var()
    assert once("string_concat", "abc", NIL, s) and deref(s) == "abc"
    assert once("string_length", NIL, 0)
    x = Var()
    assert once("atomic_list_concat", L(a("a"), a("b")), NIL, x) and deref(x) is a("ab")
    x = Var()
    assert once("atom_string", x, NIL) and deref(x) is a("")
    # ... while atom-centred positions keep the atom '[]', as SWI-Prolog 7+
    assert once("atom_length", NIL, 2)
    s = Var()
    assert once("atom_string", NIL, s) and deref(s) == "[]"
    x = Var()
    assert once("upcase_atom", NIL, x) and deref(x) is a("[]")
    x = Var()
    assert once("atomic_list_concat", L(a("a"), NIL), x) and deref(x) is a("a[]")


# -- number formatting ---------------------------------------------------------------------------

@pytest.mark.parametrize("value,text", [
    (1.0, "1.0"), (0.1, "0.1"), (-2.5, "-2.5"), (1e20, "1.0e20"), (1.5e-7, "1.5e-7"),
    (1e16, "1.0e16"), (123456789.0, "123456789.0"), (float("inf"), "1.0Inf"),
    (float("-inf"), "-1.0Inf"), (float("nan"), "1.5NaN"),
])
def test_float_text(value, text):
    assert float_text(value) == text
