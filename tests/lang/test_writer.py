"""Writing terms (write/writeq/print/write_canonical/write_term), format/2 and the
error messages, checked against SWI-Prolog's output."""
import math

import pytest
from hypothesis import given, strategies as st

from slpy.logic.builtins.fmt import format_to_text
from slpy.terms.ops import OpTable
from slpy.terms.messages import describe_error
from slpy.terms.writer import term_to_text, parse_write_options
from slpy.terms.text import (format_float, atom_needs_quotes, var_letter_name,
                             canonical_var_names)
from slpy.logic.builtins import BUILTINS
import slpy.logic.builtins.output  # noqa: F401  (registers the builtins)
from slpy.terms.term import Var, Struct, PrologError, atom, mklist, NIL, deref, compare
from slpy.terms.unify import unify, undo_to
from slpy.terms.errors import (type_error, domain_error, instantiation_error,
                               existence_error, evaluation_error, permission_error,
                               representation_error, resource_error, syntax_error)

a = atom


def f(name, *args):
    return Struct(name, args)


def wq(t, **kw):
    return term_to_text(t, quoted=True, **kw)


def w(t, **kw):
    return term_to_text(t, **kw)


# -- atoms -------------------------------------------------------------------------------

@pytest.mark.parametrize("name,text", [
    ("hello", "hello"), ("hello world", "'hello world'"), ("Hello", "'Hello'"),
    ("_x", "'_x'"), ("[]", "[]"), ("{}", "{}"), ("!", "!"), (";", ";"), (",", "','"),
    ("|", "'|'"), ("", "''"), ("+", "+"), ("=..", "=.."), ("\\+", "\\+"), (".", "'.'"),
    ("/*", "'/*'"), ("a.b", "'a.b'"), ("aB9_", "aB9_"), ("9a", "'9a'"),
    ("don't", "'don\\'t'"), ("a\nb", "'a\\nb'"), ("tab\there", "'tab\\there'"),
    ("back\\slash", "'back\\\\slash'"), ("\x01", "'\\x1\\'"), ("\x7f", "'\\x7F\\'"),
    ("\x07\x08\x0b\x0c\r", "'\\a\\b\\v\\f\\r'"), ("é", "é"), ("été", "été"),
    ("Été", "'Été'"), ("→", "→"), ("[a]", "'[a]'"), ("%", "'%'"),
])
def test_atom_quoting(name, text):
    assert wq(a(name)) == text
    assert w(a(name)) == name


def test_atom_needs_quotes_is_cached_consistently():
    assert atom_needs_quotes("a b") and not atom_needs_quotes("ab")
    assert atom_needs_quotes("a b")


# -- numbers and strings --------------------------------------------------------------------

@pytest.mark.parametrize("x,text", [
    (1.0, "1.0"), (1.0e10, "10000000000.0"), (1e22, "1.0e22"), (-0.0, "-0.0"), (0.0, "0.0"),
    (0.1, "0.1"), (1.5e-7, "1.5e-7"), (0.0001, "0.0001"), (1e-5, "1.0e-5"),
    (123.456, "123.456"), (1e15, "1.0e15"), (1e14, "100000000000000.0"),
    (-2.5, "-2.5"), (1.2345678901234568e20, "1.2345678901234568e20"),
    (math.inf, "1.0Inf"), (-math.inf, "-1.0Inf"), (math.nan, "1.5NaN"),
    (5e-324, "5.0e-324"), (1.7976931348623157e308, "1.7976931348623157e308"),
])
def test_floats(x, text):
    assert format_float(x) == text
    assert wq(x) == text and w(f("f", x)) == f"f({text})"


@given(st.floats(allow_nan=False, allow_infinity=False))
def test_floats_read_back(x):
    s = format_float(x)
    assert float(s) == x and math.copysign(1, float(s)) == math.copysign(1, x)
    assert "." in s


def test_integers():
    assert wq(42) == "42" and wq(-7) == "-7"
    big = 3 ** 10000
    assert wq(big) == str(big) and len(wq(big)) > 4300


def test_strings():
    assert wq("abc") == '"abc"' and w("abc") == "abc"
    assert wq('say "hi"\n') == '"say \\"hi\\"\\n"'
    assert wq("it's") == '"it\'s"'
    assert w(f("f", "")) == "f()" and wq(f("f", "")) == 'f("")'


def test_variables():
    v = Var()
    assert wq(v) == v.display() and wq(v).startswith("_")
    assert wq(f("f", v, v)) == f"f({v.display()},{v.display()})"
    assert wq(f("f", v), var_names={v: "X"}) == "f(X)"
    b = Var()
    b.ref = a("bound")
    assert wq(f("g", b)) == "g(bound)"


# -- operators -------------------------------------------------------------------------------

@pytest.mark.parametrize("term,text", [
    (f("-", 1, -1), "1- -1"),
    (f("-", 1), "-(1)"),
    (f("-", 1.0), "-(1.0)"),
    (f("+", 1), "+(1)"),
    (f("-", -1), "- -1"),
    (f("-", f("-", 1)), "- -(1)"),
    (f("-", a("a")), "-a"),
    (f("-", f("-", a("a"))), "- -a"),
    (f("\\+", a("a")), "\\+a"),
    (f("\\+", f("\\+", a("a"))), "\\+ \\+a"),
    (f("+", 1, f("*", 2, 3)), "1+2*3"),
    (f("*", f("+", 1, 2), 3), "(1+2)*3"),
    (f("-", 1, f("-", 2, 3)), "1-(2-3)"),
    (f("-", f("-", 1, 2), 3), "1-2-3"),
    (f("^", 2, f("^", 3, 4)), "2^3^4"),
    (f("^", f("^", 2, 3), 4), "(2^3)^4"),
    (f("**", 2, -1), "2** -1"),
    (f("-", a("a"), -1), "a- -1"),
    (f("=", a("a"), a("b")), "a=b"),
    (f(":-", a("a"), a("b")), "a:-b"),
    (f(":-", a("a"), f(";", f(",", a("b"), a("c")), a("d"))), "a:-b,c;d"),
    (f(":-", a("a"), f("\\+", a("b"))), "a:- \\+b"),
    (f("=", a("a"), f("\\+", a("b"))), "a=(\\+b)"),
    (f("f", f(",", a("a"), a("b"))), "f((a,b))"),
    (f(",", a("a"), f(":-", a("b"), a("c"))), "a,(b:-c)"),
    (f("f", a(":-")), "f(:-)"),
    (f("f", a(";")), "f(;)"),
    (f("f", a("-"), a("+")), "f(-,+)"),
    (f("=", a("-"), a("a")), "(-)=a"),
    (f("-", a("-")), "- (-)"),
    (f("-", f("+", a("a"), a("b"))), "- (a+b)"),
    (f("-", f("^", 1, 2)), "-(1^2)"),
    (f("-", f("^", a("a"), 2)), "-a^2"),
    (f("^", -1, 2), "-1^2"),
    (f("-", -1, 1), "-1-1"),
    (f("-", f("-", 1), 1), "-(1)-1"),
    (f("rem", 1, 2), "1 rem 2"),
    (f("mod", a("a"), a("b")), "a mod b"),
    (f("is", a("x"), f("+", 1, 2)), "x is 1+2"),
    (f("dynamic", f("/", a("foo"), 1)), "dynamic foo/1"),
    (f("dynamic", -1), "dynamic -1"),
    (f("dynamic", f("-", a("a"))), "dynamic -a"),
    (f("dynamic", f(":-", a("a"), a("b"))), "dynamic (a:-b)"),
    (f("[]", 1), "'[]'(1)"),
    (f(":-", f("dynamic", a("foo"))), ":-dynamic foo"),
    (f("->", a("a"), a("b")), "a->b"),
    (f(";", f("->", a("a"), a("b")), a("c")), "a->b;c"),
    (f("->", f(";", a("a"), a("b")), a("c")), "(a;b)->c"),
    (f(":", a("m"), f("g", 1)), "m:g(1)"),
    (f("f", f(":-", a("a"), a("b"))), "f((a:-b))"),
    (f("=", a("X"), f("f", a("Y"))), "'X'=f('Y')"),
    (f("-", f("f", 1), 1), "f(1)-1"),
    (f("=", a("[]"), a("{}")), "[]={}"),
    (f("|", a("a"), a("b")), "a|b"),
    (f("=..", a("a"), a("b")), "a=..b"),
    (f("-", a("a"), f("-", a("b"))), "a- -b"),
    (f("*", f("-", 1), 2), "-(1)*2"),
    (f("-", f("*", 1, 2)), "- (1*2)"),
])
def test_operators(term, text):
    assert wq(term) == text


def test_priority_option_brackets_the_whole_term():
    t = f(":-", a("a"), f(",", a("b"), a("c")))
    assert wq(t) == "a:-b,c"
    assert wq(t, priority=699) == "(a:-b,c)"
    assert wq(f(",", a("a"), a("b")), priority=999) == "(a,b)"


def test_user_operators():
    ops = OpTable()
    ops.add(700, "xfx", "===>")
    ops.add(200, "xf", "++")
    ops.add(900, "fy", "nicht")
    assert wq(f("===>", a("a"), a("b")), ops=ops) == "a===>b"
    assert wq(f("++", a("a")), ops=ops) == "a++"
    assert wq(f("++", f("-", a("a"))), ops=ops) == "(-a)++"     # xf: argument below 200
    assert wq(f("nicht", a("a")), ops=ops) == "nicht a"
    assert wq(f("nicht", f(",", a("a"), a("b"))), ops=ops) == "nicht (a,b)"
    assert wq(f("===>", a("a"), a("b"))) == "===>(a,b)"     # not an operator by default


def test_ignore_ops_and_write_canonical():
    t = f("f", f("-", a("a"), a("b")), f(",", a("a"), a("b")), f("-", 1), -1)
    assert wq(t, ignore_ops=True) == "f(-(a,b),','(a,b),-(1),-1)"
    assert wq(mklist([1, 2]), ignore_ops=True) == "[1,2]"
    X, Y = Var(), Var()
    t = f("f", X, Y, X, "s", f("{}", a("a")), f("$VAR", 1))
    names = canonical_var_names(t)
    assert term_to_text(t, quoted=True, ignore_ops=True, numbervars=False,
                        var_names=names, brace_terms=False) == \
        "f(A,_,A,\"s\",{}(a),'$VAR'(1))"


# -- lists, curly terms, $VAR -----------------------------------------------------------------

def test_lists():
    assert wq(mklist([a("a"), a("b")])) == "[a,b]"
    assert wq(f(".", a("a"), a("b"))) == "[a|b]"
    v = Var()
    assert wq(mklist([1], v)) == f"[1|{v.display()}]"
    assert wq(mklist([f(":-", a("a"), a("b")), f(",", 1, 2)])) == "[(a:-b),(1,2)]"
    assert wq(mklist([a("-"), a("a b")])) == "[-,'a b']"
    assert wq(mklist([1, 2, 3]), spacing=True) == "[1, 2, 3]"
    assert wq(f("f", 1, mklist([2])), spacing=True) == "f(1, [2])"
    assert wq(mklist([mklist([]), NIL])) == "[[],[]]"


def test_curly_terms():
    assert wq(f("{}", f(",", a("a"), a("b")))) == "{a,b}"
    assert wq(f("{}", f(":-", a("a"), a("b")))) == "{a:-b}"
    assert wq(f("-", f("{}", a("a")))) == "- {a}"
    assert wq(f("{}", a("a"), a("b"))) == "{}(a,b)"


def test_numbervars():
    assert wq(f("$VAR", 1)) == "B"
    assert wq(f("$VAR", 27)) == "B1"
    assert wq(f("$VAR", 0)) == "A" and wq(f("$VAR", 25)) == "Z"
    assert wq(f("$VAR", a("Foo"))) == "Foo"
    assert wq(f("$VAR", a("foo"))) == "'$VAR'(foo)"
    assert wq(f("$VAR", 1), numbervars=False) == "'$VAR'(1)"
    assert w(f("f", f("$VAR", 2), f("$VAR", 2))) == "f(C,C)"
    assert var_letter_name(52) == "A2" and var_letter_name(-3) == "S_3"


def test_max_depth():
    assert w(mklist(list(range(1, 11))), max_depth=3) == "[1,2|...]"
    assert w(mklist(list(range(20))), max_depth=10) == "[0,1,2,3,4,5,6,7,8|...]"
    assert w(f("f", f("g", f("h", a("i")))), max_depth=2) == "f(g(...))"
    # SWI spaces "..." like any symbol-char token
    assert w(f("+", f("+", 1, 2), 3), max_depth=2) == "... + ... + 3"
    assert w(mklist([1, 2]), max_depth=5) == "[1,2]"


# -- deep terms ---------------------------------------------------------------------------------

def test_million_element_list():
    big = mklist(list(range(1_000_000)))
    s = w(big)
    assert s.startswith("[0,1,2,") and s.endswith(",999998,999999]")
    assert s.count(",") == 999_999


def test_deep_operator_nesting():
    t = 1
    for _ in range(100_000):
        t = f("+", t, 1)
    s = w(t)
    assert s == "+".join(["1"] * 100_001)
    r = 1
    for _ in range(100_000):
        r = f("-", 1, r)
    s = w(r)
    assert s.startswith("1-(1-(1-") and s.endswith("1-1" + ")" * 99_999)


def test_deep_compound_nesting():
    t = a("x")
    for _ in range(100_000):
        t = f("f", t)
    s = w(t)
    assert s == "f(" * 100_000 + "x" + ")" * 100_000
    neg = a("x")
    for _ in range(50_000):
        neg = f("-", neg)
    assert w(neg) == "- " * 49_999 + "-x"


def test_str_of_terms_uses_writeq():
    assert str(f("f", a("A"), "s")) == "f('A',\"s\")"
    assert str(a("hello world")) == "'hello world'"


# -- write_term options ---------------------------------------------------------------------

def test_parse_write_options():
    X = Var()
    kw = parse_write_options(mklist([f("quoted", a("true")), f("max_depth", 3),
                                     f("variable_names", mklist([f("=", a("X"), X)])),
                                     f("spacing", a("next_argument"))]))
    assert kw["quoted"] is True and kw["max_depth"] == 3 and kw["spacing"] is True
    assert kw["var_names"] == {X: "X"} and kw["numbervars"] is False
    assert parse_write_options(mklist([f("portray", a("true"))]))["numbervars"] is True


@pytest.mark.parametrize("opts,formal", [
    (Var(), "instantiation_error"),
    (mklist([Var()]), "instantiation_error"),
    (mklist([f("quoted", a("true"))], Var()), "instantiation_error"),
    (a("foo"), "type_error(list,foo)"),
    (mklist([f("quoted", a("maybe"))]), "domain_error(write_option,quoted(maybe))"),
    (mklist([a("bar")]), "domain_error(write_option,bar)"),
    (mklist([f("max_depth", a("x"))]), "domain_error(write_option,max_depth(x))"),
])
def test_parse_write_options_errors(opts, formal):
    with pytest.raises(PrologError) as ei:
        parse_write_options(opts)
    assert wq(ei.value.term.args[0]) == formal


# -- error messages -----------------------------------------------------------------------------

@pytest.mark.parametrize("err,text", [
    (evaluation_error("zero_divisor"), "Arithmetic: evaluation error: zero_divisor"),
    (type_error("integer", a("a")), "Type error: `integer' expected, found `a' (an atom)"),
    (type_error("atom", f("f", 1)), "Type error: `atom' expected, found `f(1)' (a compound)"),
    (type_error("atom", 1.5), "Type error: `atom' expected, found `1.5' (a float)"),
    (type_error("atom", 3), "Type error: `atom' expected, found `3' (an integer)"),
    (type_error("atom", "s"), "Type error: `atom' expected, found `\"s\"' (a string)"),
    (type_error("atom", mklist([1])), "Type error: `atom' expected, found `[1]' (a list)"),
    (type_error("evaluable", f("/", a("foo"), 0)),
     "Arithmetic: evaluable `foo/0' does not exist"),
    (existence_error("procedure", f("/", a("foo"), 0)), "Unknown procedure: foo/0"),
    (existence_error("stream", a("s")), "stream `s' does not exist"),
    (instantiation_error(), "Arguments are not sufficiently instantiated"),
    (domain_error("not_less_than_zero", -1),
     "Domain error: `not_less_than_zero' expected, found `-1'"),
    (permission_error("modify", "static_procedure", f("/", a("foo"), 1)),
     "No permission to modify static_procedure `foo/1'"),
    (representation_error("max_arity"), "Cannot represent due to `max_arity'"),
    (resource_error("memory"), "Not enough resources: memory"),
    (syntax_error("operator_expected"), "Syntax error: Operator expected"),
])
def test_describe_error(err, text):
    assert describe_error(err.term) == text
    assert str(err) == text


def test_describe_error_context_and_other_balls():
    ball = f("error", f("type_error", a("integer"), a("a")),
             f("context", f("/", a("atom_length"), 2), Var()))
    assert describe_error(ball) == \
        "atom_length/2: Type error: `integer' expected, found `a' (an atom)"
    ball = f("error", a("instantiation_error"), f("context", Var(), a("in label")))
    assert describe_error(ball) == "Arguments are not sufficiently instantiated (in label)"
    assert describe_error(a("foo")) == "Unhandled exception: Unknown message: foo"
    assert describe_error(f("error", a("foo"), Var())) == "Unknown error term: foo"
    assert describe_error(f("error", f("syntax_error", a("x")),
                            f("file", a("a.pl"), 3, 4, 0))) == "a.pl:3:4: Syntax error: X"


# -- format/2 -----------------------------------------------------------------------------------

def fmt(s, *args):
    return format_to_text(s, mklist(list(args)))


@pytest.mark.parametrize("spec,args,text", [
    ("~w and ~q", [a("a b"), a("a b")], "a b and 'a b'"),
    ("~p", [f("-", 1)], "-(1)"),
    ("~a", [a("abc")], "abc"),
    ("~a", ["str"], "str"),
    ("~a", [NIL], "[]"),
    ("~a", [1.5], "1.5"),
    ("~s", [NIL], ""),
    ("~d", [42], "42"),
    ("~d", [-42], "-42"),
    ("~d", [f("+", 1, 2)], "3"),
    ("~2d", [314], "3.14"),
    ("~2d", [5], "0.05"),
    ("~2d", [-5], "-0.05"),
    ("~0d", [7], "7"),
    ("~D", [1234567], "1,234,567"),
    ("~D", [-1234567], "-1,234,567"),
    ("~D", [123], "123"),
    ("~2D", [1234567], "12,345.67"),
    ("~f", [3.14159], "3.141590"),
    ("~2f", [3.14159], "3.14"),
    ("~0f", [2.5], "2"),
    ("~2f", [1], "1.00"),
    ("~2f", [10 ** 25], "10000000000000000000000000.00"),
    ("~e", [1.5], "1.500000e+00"),
    ("~3e", [12345.678], "1.235e+04"),
    ("~g", [0.1], "0.1"),
    ("~g", [1234567.0], "1.23457e+06"),
    ("~4f", [f("/", 1, 3)], "0.3333"),
    ("~s", [mklist([104, 105])], "hi"),
    ("~s", ["str"], "str"),
    ("~s", [mklist([a("o"), a("k")])], "ok"),
    ("~c", [65], "A"),
    ("~3c", [66], "BBB"),
    ("~8r", [255], "377"),
    ("~16r", [255], "ff"),
    ("~16R", [255], "FF"),
    ("~2r", [-5], "-101"),
    ("~i~w", [1, 2], "2"),
    ("~*c", [3, 67], "CCC"),
    ("a~nb", [], "a\nb"),
    ("~2n", [], "\n\n"),
    ("~~", [], "~"),
    ("no directives", [], "no directives"),
    ("~a~t~20|~a", [a("left"), a("right")], "left" + " " * 16 + "right"),
    ("~t~a~20|~a", [a("left"), a("right")], " " * 16 + "leftright"),
    ("~t~a~t~20|", [a("mid")], " " * 8 + "mid" + " " * 9),
    ("~`-t~30|", [], "-" * 30),
    ("~`*t~t~10|", [], "*****     "),
    ("~a~10|~a", [a("ab"), a("cd")], "ab        cd"),
    ("~a~10+~a~10+~a", [a("ab"), a("cd"), a("ef")], "ab        cd        ef"),
    ("~t~d~6|~t~d~6+", [1, 22], "     1    22"),
    ("~a~3|~a", [a("toolong"), a("x")], "toolongx"),
    ("~a~n~t~a~5|", [a("x"), a("y")], "x\n    y"),
    ("~e~n", [2.0], "2.000000e+00\n"),
    ("~w", [mklist([1, 2])], "[1,2]"),
    ("~q", [mklist(["s"])], '["s"]'),
    ("~k", [f("+", 1, a("A"))], "+(1,'A')"),
    ("~W", [f("+", a("a b"), 1), mklist([f("quoted", a("true"))])], "'a b'+1"),
])
def test_format_directives(spec, args, text):
    assert format_to_text(spec, mklist(args)) == text


def test_format_argument_forms():
    assert format_to_text(a("~w!"), a("x")) == "x!"            # a single non-list argument
    assert format_to_text(mklist([ord(c) for c in "~w"]), mklist([1])) == "1"
    assert format_to_text(mklist([a("~"), a("a")]), mklist([a("z")])) == "z"
    assert format_to_text("~w", mklist([mklist([1])])) == "[1]"
    assert format_to_text("plain", NIL) == "plain"
    assert format_to_text("x~t~5|y", NIL, start_col=3) == "x y"


@pytest.mark.parametrize("spec,args,formal", [
    ("~w~w", [1], "format('not enough arguments')"),
    ("~w", [1, 2], "format('too many arguments')"),
    ("~y", [], "existence_error(format_character,y)"),
    ("~d", [1.0], "format_argument_type(d,1.0)"),
    ("~d", [a("a")], "type_error(evaluable,a/0)"),
    ("~a", [f("f", 1)], "format_argument_type(a,f(1))"),
    ("~c", [a("x")], "format_argument_type(c,x)"),
    ("~s", [1], "format_argument_type(s,1)"),
    ("~r", [1], "format('r,R requires radix specifier')"),
    ("~40r", [1], "domain_error(radix,40)"),
    ("~*c", [-1, 65], "format('no or negative integer for `*\\' argument')"),
    ("~", [], "format('truncated format specification')"),
])
def test_format_errors(spec, args, formal):
    with pytest.raises(PrologError) as ei:
        format_to_text(spec, mklist(args))
    assert wq(ei.value.term.args[0]) == formal


def test_format_bad_format_argument():
    with pytest.raises(PrologError) as ei:
        format_to_text(Var(), NIL)
    assert ei.value.term.args[0] is a("instantiation_error")
    with pytest.raises(PrologError) as ei:
        format_to_text(f("f", 1), NIL)
    assert wq(ei.value.term.args[0]) == "type_error(text,f(1))"


# -- the output builtins with a fake engine ---------------------------------------------------

class FakeEngine:
    def __init__(self):
        self.trail = []
        self.flags = {}
        self.ops = OpTable()
        self.out = []
        self.err = []

    def unify(self, x, y):
        return unify(x, y, self.trail)

    def try_unify(self, x, y):
        mark = len(self.trail)
        if unify(x, y, self.trail):
            return True
        undo_to(self.trail, mark)
        return False

    def write(self, text):
        self.out.append(text)

    def write_err(self, text):
        self.err.append(text)


def run(name, *args):
    eng = FakeEngine()
    kind, fn = BUILTINS[(name, len(args))]
    assert kind == "det"
    assert fn(eng, *args) is True
    return "".join(eng.out), "".join(eng.err), eng


def test_write_family():
    t = f("f", a("A b"), "s", f("-", 1), f("$VAR", 1))
    assert run("write", t)[0] == "f(A b,s,-(1),B)"
    assert run("print", t)[0] == "f('A b',\"s\",-(1),B)"
    assert run("writeq", t)[0] == "f('A b',\"s\",-(1),B)"
    assert run("write_canonical", t)[0] == "f('A b',\"s\",-(1),'$VAR'(1))"
    assert run("writeln", a("x"))[0] == "x\n"
    assert run("nl")[0] == "\n"
    assert run("tab", f("+", 1, 2))[0] == "   "
    assert run("put_char", a("z"))[0] == "z"


def test_write_term_builtin():
    X = Var()
    opts = mklist([f("quoted", a("true")), f("variable_names", mklist([f("=", a("X"), X)])),
                   f("fullstop", a("true")), f("nl", a("true"))])
    assert run("write_term", f("f", X, a("a b")), opts)[0] == "f(X,'a b').\n"
    assert run("write_term", a("-"), mklist([f("fullstop", a("true"))]))[0] == "- . "
    assert run("write_term", mklist([1, 2, 3]), mklist([f("max_depth", 2)]))[0] == "[1|...]"
    assert run("write_term", f("+", 1, 2), mklist([f("ignore_ops", a("true"))]))[0] == "+(1,2)"


def test_stream_arguments():
    out, err, _ = run("write", a("user_error"), a("oops"))
    assert out == "" and err == "oops"
    assert run("format", a("user_output"), "~w", mklist([1]))[0] == "1"
    assert run("nl", a("user_output"))[0] == "\n"
    eng = FakeEngine()
    for stream, formal in [(Var(), "instantiation_error"),
                           (a("nosuch"), "existence_error(stream,nosuch)"),
                           (f("foo", 1), "domain_error(stream_or_alias,foo(1))")]:
        with pytest.raises(PrologError) as ei:
            BUILTINS[("write", 2)][1](eng, stream, a("x"))
        assert wq(ei.value.term.args[0]) == formal


def test_format_builtins_and_sinks():
    assert run("format", "hello~n")[0] == "hello\n"
    assert run("format", "~w-~w", mklist([1, 2]))[0] == "1-2"
    A, S, C, Ch = Var(), Var(), Var(), Var()
    run("format", f("atom", A), "~w+~w", mklist([1, 2]))
    assert deref(A) is a("1+2")
    run("format", f("string", S), "x~a", mklist([a("y")]))
    assert deref(S) == "xy"
    run("format", f("codes", C), "ab", NIL)
    assert compare(deref(C), mklist([97, 98])) == 0
    T = Var()
    run("format", f("codes", C2 := Var(), T), "a", NIL)
    assert compare(deref(C2), mklist([97], T)) == 0
    run("format", f("chars", Ch), "ok", NIL)
    assert compare(deref(Ch), mklist([a("o"), a("k")])) == 0


def test_output_builtin_errors():
    eng = FakeEngine()
    for name, args, formal in [
        ("put_char", (Var(),), "instantiation_error"),
        ("put_char", (a("ab"),), "type_error(character,ab)"),
        ("put_char", (1,), "type_error(character,1)"),
        ("tab", (Var(),), "instantiation_error"),
        ("tab", (1.5,), "type_error(integer,1.5)"),
        ("write_term", (a("x"), mklist([f("quoted", a("yes"))])),
         "domain_error(write_option,quoted(yes))"),
    ]:
        with pytest.raises(PrologError) as ei:
            BUILTINS[(name, len(args))][1](eng, *args)
        assert wq(ei.value.term.args[0]) == formal
    assert eng.out == []
