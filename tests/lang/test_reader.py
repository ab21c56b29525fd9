"""Tests of the Prolog / SLP reader (slpy.lang.reader) and the reading builtins."""
from __future__ import annotations

import math
import re
import time
from pathlib import Path

import pytest

from slpy.terms.ops import OpTable
from slpy.lang.reader import (ReadResult, Reader, grammar_path, parse_number,
                              read_term_from_text)
from slpy.lang.syntax_errors import SlpSyntaxError, SlpSyntaxErrors
from slpy.terms.term import (NIL, Atom, PrologError, Struct, Var, atom, compare, deref,
                             list_items)
from slpy.terms.unify import undo_to, unify, variant

SHARED = Path(__file__).resolve().parents[3] / "shared"
SUITES = SHARED / "prolog-suites"


# -- helpers -----------------------------------------------------------------------------

def canon(t) -> str:
    """A canonical text of t: f(a,b) with lists as [..|..], variables _0, _1... in
    order of appearance, atoms quoted when they are not plain names."""
    names: dict = {}
    out: list[str] = []
    stack = [t]
    while stack:
        t = stack.pop()
        if type(t) is str and t.startswith("\0"):  # a piece of punctuation
            out.append(t[1:])
            continue
        t = deref(t)
        if type(t) is Var:
            out.append(names.setdefault(id(t), f"_{len(names)}"))
        elif type(t) is Atom:
            out.append(_atom_text(t.name))
        elif type(t) is Struct:
            if t.name == "." and len(t.args) == 2:
                items, tail = list_items(t)
                parts = ["\0["]
                for k, x in enumerate(items):
                    if k:
                        parts.append("\0,")
                    parts.append(x)
                if tail is not NIL:
                    parts += ["\0|", tail]
                parts.append("\0]")
            else:
                parts = ["\0" + _atom_text(t.name) + "("]
                for k, x in enumerate(t.args):
                    if k:
                        parts.append("\0,")
                    parts.append(x)
                parts.append("\0)")
            stack.extend(reversed(parts))
        elif type(t) is str:
            out.append('"' + t + '"')
        else:
            out.append(repr(t))
    return "".join(out)


def _atom_text(name: str) -> str:
    if re.fullmatch(r"[a-z]\w*", name) or name in ("[]", "{}", "!", ";"):
        return name
    if re.fullmatch(r"[+\-*/\\^<>=~:.?@#&$]+", name) and name != ".":
        return name
    return "'" + name.replace("'", "\\'") + "'"


def read_all(text: str, ops: OpTable | None = None, flags: dict | None = None):
    return [r.term for r in Reader(ops or OpTable(), flags or {}).read_clauses(text)]


def read1(text: str, ops=None, flags=None) -> str:
    terms = read_all(text, ops, flags)
    assert len(terms) == 1
    return canon(terms[0])


def errors_of(text: str, ops=None) -> list[SlpSyntaxError]:
    with pytest.raises(SlpSyntaxErrors) as ei:
        read_all(text, ops)
    return ei.value.errors


def fails_to_read(text: str, ops=None) -> str:
    errs = errors_of(text, ops)
    assert len(errs) == 1
    return errs[0].message


# -- basics --------------------------------------------------------------------------------

def test_grammar_is_found():
    assert grammar_path().name == "slp.lark" and grammar_path().is_file()


@pytest.mark.parametrize("src, expected", [
    ("foo.", "foo"),
    ("foo(a, B, _C, 1, 2.5).", "foo(a,_0,_1,1,2.5)"),
    ("'hello world'.", "'hello world'"),
    ("'hello'(x).", "hello(x)"),
    ("[].", "[]"),
    ("[ ].", "[]"),
    ("'[]'.", "[]"),
    ("{}.", "{}"),
    ("{ }.", "{}"),
    ("[a, b, c].", "[a,b,c]"),
    ("[a, b | T].", "[a,b|_0]"),
    ("[a | [b]].", "[a,b]"),
    ("{a, b}.", "{}(','(a,b))"),
    ("{a}.", "{}(a)"),
    ("!.", "!"),
    ("f(!, ;, [], {}).", "f(!,;,[],{})"),
    ("','(a, b).", "','(a,b)"),
    ("f(',').", "f(',')"),
    ("f('|', '[]').", "f('|',[])"),
    ("=..(a, b).", "=..(a,b)"),
    ("a =.. b.", "=..(a,b)"),
    ("X == 'ab''c'.", "==(_0,'ab\\'c')"),
    ("p :- \\+ q.", ":-(p,\\+(q))"),
    ("f(x) :- g(X), h(X).", ":-(f(x),','(g(_0),h(_0)))"),
    ("'\\x41\\\\x42\\'.", "'AB'"),
    ("{}(a, b).", "{}(a,b)"),              # SWI-Prolog's compound forms
    ("[](a).", "[](a)"),
    ("{} (a).", None),
])
def test_basic_terms(src, expected):
    if expected is None:
        assert fails_to_read(src) == "operator expected"
    else:
        assert read1(src) == expected


def test_variables_names_singletons_and_anonymous():
    [r] = Reader(OpTable(), {}).read_clauses("p(X, Y, _, _, X, _Z, Z, _W, _W) :- q(Y1).")
    assert isinstance(r, ReadResult)
    assert list(r.varnames) == ["X", "Y", "_Z", "Z", "_W", "Y1"]
    assert r.singletons == ["Y", "Z", "Y1"]
    args = deref(r.term).args[0].args
    assert args[0] is r.varnames["X"] and args[4] is r.varnames["X"]
    assert type(args[2]) is Var and type(args[3]) is Var and args[2] is not args[3]
    assert args[7] is args[8]


def test_positions_of_clauses():
    rs = list(Reader(OpTable(), {}).read_clauses("a.\n  b(x).\n\n/* c */ c :-\n d."))
    assert [(r.line, r.col) for r in rs] == [(1, 1), (2, 3), (4, 9)]


# -- numbers ---------------------------------------------------------------------------------

@pytest.mark.parametrize("src, value", [
    ("0.", 0), ("42.", 42), ("007.", 7),
    ("0x1F.", 31), ("0o17.", 15), ("0b101.", 5),
    ("1.5.", 1.5), ("1.0e10.", 1.0e10), ("1.0E-3.", 1.0e-3), ("2.5e+2.", 250.0),
    ("0'a.", 97), ("0' .", 32), ("0'''.", 39), ("0''.", 39), ("0'\\n.", 10),
    ("0'\\\\.", 92), ("0'\\x41\\.", 65), ("0'\\101\\.", 65), ("0'\\e.", 27),
    ("0'\\t.", 9), ("0'\\'.", 39), ("0'\".", 34), ("0'%.", 37),
    ("-1.", -1), ("-0x10.", -16), ("-2.5.", -2.5), ("-0'a.", -97),
])
def test_numbers(src, value):
    [t] = read_all(src)
    assert type(t) is type(value) and t == value


def test_special_floats_and_big_integers():
    t = read_all("x(1.0Inf, -1.0Inf, 1.5NaN).")[0]
    assert t.args[0] == math.inf and t.args[1] == -math.inf and math.isnan(t.args[2])
    big = "9" * 5000
    [n] = read_all(big + ".")
    assert n == 10 ** 5000 - 1
    [m] = read_all("-" + big + ".")
    assert m == -(10 ** 5000 - 1)


def test_iso_exponent_needs_fraction():
    # 1e10 is the integer 1 followed by the name e10: no operator between them
    assert fails_to_read("X = 1e10.") == "operator expected"
    assert fails_to_read("X = 1.0e.") == "operator expected"


def test_float_overflow_is_a_syntax_error():
    assert fails_to_read("X = 1.0e400.") == "float overflow"


@pytest.mark.parametrize("src, expected", [
    ("- 1.", "-(1)"),                     # layout: the prefix operator (SWI-Prolog)
    ("-(1).", "-(1)"),
    ("- (1).", "-(1)"),
    ("-(-(1)).", "-(-(1))"),
    ("- -1.", "-(-1)"),
    ("a-1.", "-(a,1)"),
    ("a - 1.", "-(a,1)"),
    ("a -1.", "-(a,1)"),
    ("a - -1.", "-(a,-1)"),
    ("[-1, - 1].", "[-1,-(1)]"),
    ("f(-1).", "f(-1)"),
    ("X is -2**3.1.", "is(_0,**(-2,3.1))"),
    ("X is - 2 ** 3.", "is(_0,-(**(2,3)))"),
    ("-a.", "-(a)"),
    ("- - a.", "-(-(a))"),
    ("1 - -(1).", "-(1,-(1))"),
    ("'-'1.", "-(1)"),                    # a quoted name is still an operator
    ("- 1 + 2.", "+(-(1),2)"),
])
def test_negative_numbers(src, expected):
    assert read1(src) == expected


# -- operators and priorities ---------------------------------------------------------

@pytest.mark.parametrize("src, expected", [
    ("a :- b, c ; d -> e.", ":-(a,;(','(b,c),->(d,e)))"),
    ("1 - 2 - 3.", "-(-(1,2),3)"),
    ("1 + 2 * 3 - 4.", "-(+(1,*(2,3)),4)"),
    ("2 ^ 3 ^ 4.", "^(2,^(3,4))"),
    ("a , b , c.", "','(a,','(b,c))"),
    ("(a , b) , c.", "','(','(a,b),c)"),
    ("- a * b.", "*(-(a),b)"),
    ("- (1) ^ 2.", "-(^(1,2))"),
    ("\\+ \\+ a.", "\\+(\\+(a))"),
    ("\\+ (a, b).", "\\+(','(a,b))"),
    ("X = (a :- b).", "=(_0,:-(a,b))"),
    (":- dynamic foo/1, bar/2.", ":-(dynamic(','(/(foo,1),/(bar,2))))"),
    ("?- X is 1 + 2.", "?-(is(_0,+(1,2)))"),
    ("a --> b, {c}.", "-->(a,','(b,{}(c)))"),
    ("X = f(a) , Y = g.", "','(=(_0,f(a)),=(_1,g))"),
    ("x mod 2 =:= 0.", "=:=(mod(x,2),0)"),
    ("a:b:c.", ":(a,:(b,c))"),
    ("(a | b).", ";(a,b)"),
    ("(a ; b | c).", ";(a,;(b,c))"),
    ("[a|b].", "[a|b]"),
    ("f((a, b)).", "f(','(a,b))"),
    ("f((a :- b)).", "f(:-(a,b))"),
    ("p :- (a -> b ; c).", ":-(p,;(->(a,b),c))"),
    ("- (- a).", "-(-(a))"),
    ("a = \\+ .", "=(a,\\+)"),
    ("- - - .", "-(-(-))"),
    ("X = '-'.", "=(_0,-)"),
])
def test_operators(src, expected):
    assert read1(src) == expected


@pytest.mark.parametrize("src, expected", [
    ("f(+, -).", "f(+,-)"),
    ("[-].", "[-]"),
    ("[-, +].", "[-,+]"),
    ("[a|-].", "[a|-]"),
    ("(-).", "-"),
    ("X = (-).", "=(_0,-)"),
    ("f(:-, a).", "f(:-,a)"),
    ("f(dynamic).", "f(dynamic)"),
    ("- = X.", "=(-,_0)"),
    ("\\+ = X.", "=(\\+,_0)"),
    ("X = - .", "=(_0,-)"),
    ("[mod, is, =].", "[mod,is,=]"),
    ("f(;).", "f(;)"),
])
def test_operators_as_atoms(src, expected):
    assert read1(src) == expected


@pytest.mark.parametrize("src, message", [
    ("a = b = c.", "operator priority clash"),
    ("a :- b :- c.", "operator priority clash"),
    ("f(a :- b).", "operator priority clash"),
    ("[a :- b].", "operator priority clash"),
    ("X = dynamic a.", "operator priority clash"),
    ("a = \\+.", "unexpected end of file"),  # \+. is one name: no end token
    ("foo (a).", "operator expected"),
    ("f(a) g.", "operator expected"),
    ("f(,).", "illegal start of term"),
    ("f().", "illegal start of term"),
    ("f(a,).", "illegal start of term"),
    ("[a,].", "illegal start of term"),
    ("(a.", "unexpected end of clause (expected ))"),
    ("a ',' b.", "operator expected"),
    ("X = a |.", "unexpected end of clause"),
    ("f(a|b).", "operator priority clash"),
    (")", "illegal start of term"),
])
def test_syntax_errors(src, message):
    assert fails_to_read(src) == message


def test_quoted_operator_names_are_operators_but_not_comma():
    assert read1("a '+' b.") == "+(a,b)"
    assert read1("'-'(1).") == "-(1)"


# -- quoting and escapes ------------------------------------------------------------------

@pytest.mark.parametrize("src, name", [
    ("'a\\nb'.", "a\nb"),
    ("'\\a\\b\\f\\n\\r\\t\\v'.", "\a\b\f\n\r\t\v"),
    ("'\\e\\s'.", "\x1b "),
    ("'\\\\'.", "\\"),
    ("'\\''.", "'"),
    ("''''.", "'"),
    ("'it''s'.", "it's"),
    ("'\\\"\\`'.", "\"`"),
    ("'\\x20AC\\'.", "\u20ac"),
    ("'\\101\\\\102\\'.", "AB"),
    ("'\\u00e9\\U0001F600'.", "\u00e9\U0001F600"),
    ("'abc\\\ndef'.", "abcdef"),          # continuation: backslash-newline is nothing
    ("''.", ""),
    ("'%not a comment'.", "%not a comment"),
    ("'/* nor this */'.", "/* nor this */"),
])
def test_quoted_atoms(src, name):
    [t] = read_all(src)
    assert type(t) is Atom and t.name == name


@pytest.mark.parametrize("src, message", [
    ("X = '\\q'.", "undefined escape sequence \\q"),
    ("X = '\\x41'.", "missing closing \\ in numeric escape sequence"),
    ("X = 'abc\n'.", "unterminated quoted atom"),
    ("X = \"abc.\n", "unterminated string"),
    ("X = 0'\\q.", "undefined escape sequence \\q"),
    ("X = '\\x110000\\'.", "character code out of range"),
])
def test_bad_quoted_items(src, message):
    assert fails_to_read(src) == message


@pytest.mark.parametrize("mode, expected", [
    ("codes", "=(_0,[97,98])"),
    ("chars", "=(_0,[a,b])"),
    ("atom", "=(_0,ab)"),
    ("string", '=(_0,"ab")'),
])
def test_double_quotes_flag(mode, expected):
    assert read1('X = "ab".', flags={"double_quotes": mode}) == expected
    assert read1('X = "ab".', flags={"double_quotes": Atom(mode)}) == expected


def test_double_quotes_default_and_escapes_and_backquotes():
    assert read1('X = "".') == "=(_0,[])"
    assert read1('X = "a""b\\n".') == "=(_0,[97,34,98,10])"
    assert read1("X = `ab`.", flags={"double_quotes": "atom"}) == "=(_0,[97,98])"
    [t] = read_all('"it\'s".', flags={"double_quotes": "string"})
    assert t == "it's"


def test_double_quotes_flag_is_read_per_clause():
    flags = {"double_quotes": "codes"}
    out = []
    for r in Reader(OpTable(), flags).read_clauses('a("x").\nb("x").\n'):
        out.append(canon(r.term))
        flags["double_quotes"] = "atom"
    assert out == ["a([120])", "b(x)"]


# -- comments, layout, end token ----------------------------------------------------------------

def test_comments_and_layout():
    text = """% a line comment
    a. % after the end
    /* block
       comment */ b(x) /* inside */ :- c.
    c(/**/x).%
    d. /* right after the end */e.
    """
    assert [canon(t) for t in read_all(text)] == ["a", ":-(b(x),c)", "c(x)", "d", "e"]
    # layout (even a comment) between a name and "(" is not functional notation
    assert fails_to_read("b /* x */ (x).") == "operator expected"


def test_end_token_needs_layout_after_it():
    assert read1("X = '.'.") == "=(_0,'.')"
    assert read1("X = a.\n") == "=(_0,a)"
    assert read1("X = \"a.b\".", flags={"double_quotes": "atom"}) == "=(_0,'a.b')"
    assert read1("f(a).% comment") == "f(a)"
    assert [canon(t) for t in read_all("a.\tb.\r\nc.")] == ["a", "b", "c"]
    assert fails_to_read("f(a)") == "unexpected end of file"


def test_symbol_char_runs_and_comments():
    # "/*" within a run of symbol chars does not open a comment (ISO): the run is
    # one name, here an unknown infix operator
    assert read1("X = -/**/ .") == "=(_0,-/**/)"
    assert fails_to_read("X = a+/**/b.") == "operator expected"
    ops = OpTable()
    ops.add(500, "yfx", "+/**/")
    assert read1("X = a+/**/b.", ops) == "=(_0,+/**/(a,b))"
    assert read1("X = a/*c*/+b.") == "=(_0,+(a,b))"


def test_unterminated_block_comment():
    errs = errors_of("a.\nb :- c. /* never closed\nd.\n")
    assert [(e.line, e.col, e.message) for e in errs] == [
        (2, 9, "unterminated block comment")]


# -- op/3 between clauses ------------------------------------------------------------------

def _consult(text, ops):
    """A consumer that runs op/3 directives as it reads (like the clause loader)."""
    out = []
    for r in Reader(ops, {}).read_clauses(text):
        t = r.term
        if type(t) is Struct and t.name == ":-" and len(t.args) == 1:
            d = t.args[0]
            if type(d) is Struct and d.name == "op":
                p, typ, name = d.args
                ops.add(p, typ.name, name.name)
                continue
        out.append(canon(t))
    return out


def test_op_directives_change_later_clauses():
    ops = OpTable()
    text = """
    :- op(700, xfx, ===>).
    a ===> b.
    :- op(200, xfy, ===>).
    a ===> b ===> c.
    :- op(150, xf, is_done).
    x is_done.
    :- op(900, fy, not).
    p :- not q, r.
    :- op(0, xfy, ===>).
    f(===>).
    """
    assert _consult(text, ops) == [
        "===>(a,b)", "===>(a,===>(b,c))", "is_done(x)", ":-(p,','(not(q),r))", "f(===>)"]
    # the removed operator no longer reads as one
    assert fails_to_read("a ===> b.", ops) == "operator expected"


def test_op_change_seen_by_a_lazy_reader():
    ops = OpTable()
    it = Reader(ops, {}).read_clauses("first.\nx <=> y.\n")
    assert canon(next(it).term) == "first"
    ops.add(700, "xfx", "<=>")
    assert canon(next(it).term) == "<=>(x,y)"


def test_postfix_and_infix_priorities():
    ops = OpTable()
    ops.add(100, "yf", "++")
    ops.add(100, "xf", "fin")
    assert read1("a ++ ++ .", ops) == "++(++(a))"
    assert read1("a fin.", ops) == "fin(a)"
    assert fails_to_read("a fin fin.", ops) == "operator priority clash"
    assert read1("a ++ + b.", ops) == "+(++(a),b)"
    assert read1("- a ++ .", ops) == "-(++(a))"
    assert read1("f(a ++, b).", ops) == "f(++(a),b)"


# -- the SLP programs of the papers ---------------------------------------------------------

PAPER_1 = """1 - 1/D : [D] : cart(leaf).
1/D : [D] : cart(Split-[L,R]) :-
    NewD is D+1, splt(Split),
    [NewD] : cart(L), [NewD] : cart(R).
0.4:splt(x1). 0.3:splt(x2). 0.3:splt(x3).
"""

PAPER_2 = """1 - 1/D :: [D] :: cart(leaf).
1/D :: [D] :: cart(Split-[L,R]) :- NewD is D+1, choose_split(Split),
                                [NewD] :: cart(L), [NewD] :: cart(R).
choose_split(x1).  choose_split(x2).  choose_split(x3).
"""


def test_paper_program_single_colon():
    rs = list(Reader(OpTable(), {}).read_clauses(PAPER_1, "cart.slp"))
    assert [canon(r.term) for r in rs] == [
        "-(1,/(1,:(_0,:([_0],cart(leaf)))))",
        ":-(/(1,:(_0,:([_0],cart(-(_1,[_2,_3]))))),"
        "','(is(_4,+(_0,1)),','(splt(_1),','(:([_4],cart(_2)),:([_4],cart(_3))))))",
        ":(0.4,splt(x1))", ":(0.3,splt(x2))", ":(0.3,splt(x3))",
    ]
    assert [r.line for r in rs] == [1, 2, 5, 5, 5]
    assert list(rs[1].varnames) == ["D", "Split", "L", "R", "NewD"]
    assert rs[1].singletons == []


def test_paper_program_double_colon():
    terms = [canon(t) for t in read_all(PAPER_2)]
    assert terms == [
        "-(1,/(1,::(_0,::([_0],cart(leaf)))))",
        ":-(/(1,::(_0,::([_0],cart(-(_1,[_2,_3]))))),"
        "','(is(_4,+(_0,1)),','(choose_split(_1),','(::([_4],cart(_2)),::([_4],cart(_3))))))",
        "choose_split(x1)", "choose_split(x2)", "choose_split(x3)",
    ]


def test_label_forms():
    assert read1("0.5 :: s(X, p) :- p(X), p(X).") == \
        ":-(::(0.5,s(_0,p)),','(p(_0),p(_0)))"
    assert read1("p :- [1] :: q, Args : r.") == ":-(p,','(::([1],q),:(_0,r)))"


# -- errors: positions, several per file, recovery -------------------------------------------

def test_error_positions_and_messages():
    text = "good(1).\nbad(1 2).\ngood(2).\n  also bad(.\ngood(3).\nX = 'open\n"
    reader = Reader(OpTable(), {})
    goods = []
    with pytest.raises(SlpSyntaxErrors) as ei:
        for r in reader.read_clauses(text, "prog.slp"):
            goods.append(canon(r.term))
    assert goods == ["good(1)", "good(2)", "good(3)"]
    errs = ei.value.errors
    assert reader.errors == errs
    assert [(e.line, e.col) for e in errs] == [(2, 7), (4, 8), (6, 5)]
    assert [str(e) for e in errs] == [
        "prog.slp:2:7: operator expected",
        "prog.slp:4:8: operator expected",
        "prog.slp:6:5: unterminated quoted atom",
    ]
    assert errs[0].pretty() == "prog.slp:2:7: operator expected\nbad(1 2).\n      ^"
    assert str(ei.value).splitlines() == [str(e) for e in errs]
    assert all(e.filename == "prog.slp" for e in errs)
    assert errs[1].source_line == "  also bad(."


def test_error_term_shape():
    errs = errors_of("f(a b).")
    e = errs[0]
    assert isinstance(e, PrologError)
    assert canon(e.term) == ("error(syntax_error(operator_expected),"
                             "context(file('<string>',1,5),'operator expected'))")
    # the container carries the first error's term
    with pytest.raises(PrologError) as ei:
        read_all("f(a b).\ng(.")
    assert canon(ei.value.term) == canon(e.term)


def test_caret_keeps_tabs_and_error_after_escape_points_inside_token():
    errs = errors_of("\tx('ab\\qc').")
    e = errs[0]
    assert (e.line, e.col) == (1, 7)           # at the backslash
    assert e.pretty().splitlines()[2] == "\t     ^"


def test_pretty_on_a_very_long_line_shows_a_window():
    text = "x(" + "a, " * 1000 + "b c)."
    [e] = errors_of(text)
    assert (e.line, e.col) == (1, 3005)
    assert len(e.source_line) < 300 and e.source_line.startswith("...")
    src, caret = e.pretty().splitlines()[1:]
    assert src[len(caret) - 1] == "c" and caret.strip() == "^"


def test_iter_terms_yields_errors_in_place():
    items = list(Reader(OpTable(), {}).iter_terms("a.\nb(.\nc.", "f"))
    assert [type(x).__name__ for x in items] == ["ReadResult", "SlpSyntaxError", "ReadResult"]


def test_every_error_in_a_file_is_reported():
    text = "".join(f"ok{i}.\nbad{i}(.\n" for i in range(20))
    errs = errors_of(text)
    assert [e.line for e in errs] == [2 * i + 2 for i in range(20)]


def test_missing_end_at_eof():
    errs = errors_of("a.\nb :- c")
    assert [(e.line, e.col, e.message) for e in errs] == [(2, 7, "unexpected end of file")]


def test_illegal_character():
    assert fails_to_read("a :- b \x01 c.") == "illegal character '\\x01'"


# -- read_term_from_text and parse_number --------------------------------------------------

def test_read_term_from_text():
    ops, flags = OpTable(), {}
    t, names = read_term_from_text("foo(X, Y, X)", ops, flags)
    assert canon(t) == "foo(_0,_1,_0)" and list(names) == ["X", "Y"]
    t, _ = read_term_from_text("foo(X). ", ops, flags)
    assert canon(t) == "foo(_0)"
    t, _ = read_term_from_text("a :- b", ops, flags)
    assert canon(t) == ":-(a,b)"
    assert read_term_from_text("", ops, flags)[0] is atom("end_of_file")
    assert read_term_from_text("  % nothing\n", ops, flags)[0] is atom("end_of_file")
    for bad, msg in [("a. b.", "end of clause expected"), ("f(", "unexpected end of file"),
                     ("a b", "operator expected")]:
        with pytest.raises(SlpSyntaxError) as ei:
            read_term_from_text(bad, ops, flags)
        assert ei.value.message == msg
        assert ei.value.term.args[0].name == "syntax_error"


@pytest.mark.parametrize("text, value", [
    ("1", 1), ("01", 1), (" 1", 1), ("\n1", 1), ("/**/1", 1), ("%\n1", 1),
    ("- 1", -1), ("-1", -1), ("- /**/1", -1), ("/**/- /**/3", -3), ("+1", 1),
    (" 0'a", 97), ("0x1", 1), ("1.2", 1.2), ("1.0E9", 1.0e9), ("-2.5e-3", -2.5e-3),
    ("0'''", 39), ("1.0Inf", math.inf),
])
def test_parse_number(text, value):
    v = parse_number(text)
    assert type(v) is type(value) and v == value


@pytest.mark.parametrize("text", [
    "", " ", "a", "3 ", "3.", "3/**/", "-/**/1", "1e1", "1.0e", "1.0ee", "0X1",
    "1 2", "- a", "--1", "'1'", "1.", "0'", "(1)", "1%",
])
def test_parse_number_errors(text):
    with pytest.raises(SlpSyntaxError) as ei:
        parse_number(text)
    assert ei.value.term.args[0].name == "syntax_error"


# -- deep and long input ------------------------------------------------------------------------

def test_deep_nesting_does_not_recurse():
    n = 100_000
    [t] = read_all("(" * n + "a" + ")" * n + ".")
    assert t is atom("a")
    [t] = read_all("f(" * 20_000 + "a" + ")" * 20_000 + ".")  # 20,000 deep
    depth = 0
    while type(t) is Struct:
        t = t.args[0]
        depth += 1
    assert depth == 20_000
    assert fails_to_read("(" * n) == "unexpected end of file"
    assert fails_to_read("[" * n + ".") == "unexpected end of clause"


def test_long_conjunction_and_list():
    body = ", ".join(f"g{i}" for i in range(20_000))
    [t] = read_all(f"p :- {body}.")
    t = t.args[1]
    count = 1
    while type(t) is Struct and t.name == ",":
        t = t.args[1]
        count += 1
    assert count == 20_000
    [lst] = read_all("[" + ",".join(map(str, range(50_000))) + "].")
    items, tail = list_items(lst)
    assert items == list(range(50_000)) and tail is NIL


def test_speed_2000_clauses():
    text = (PAPER_1 + "app([], L, L).\napp([H|T], L, [H|R]) :- app(T, L, R).\n"
            "q(X) :- \\+ foo('quoted atom', \"str\", 0'c, X-Y, [a,b|Y]), X >= 0.0.\n")
    text = text * 250  # 2,000 clauses
    Reader(OpTable(), {})  # the lexer is built at first use: time reading only
    read_all("warm.")
    t0 = time.perf_counter()
    terms = read_all(text)
    elapsed = time.perf_counter() - t0
    assert len(terms) == 2000
    assert elapsed < 1.0, elapsed


# -- the suites of shared/ ---------------------------------------------------------------------

ISO_TST = SUITES / "eclipse_iso_tst" / "iso.tst"


@pytest.mark.skipif(not ISO_TST.is_file(), reason="shared/ not present")
def test_reads_all_iso_test_patterns():
    ops = OpTable()
    for p, typ, name in [(1200, "fy", "fixme"), (1110, "xf", "should_fail"),
                         (1110, "xfx", "should_give"), (1110, "xfx", "should_throw")]:
        ops.add(p, typ, name)
    rs = list(Reader(ops, {}).read_clauses(ISO_TST.read_text(), str(ISO_TST)))
    assert len(rs) == 953   # the README's count of patterns
    kinds = {deref(r.term).name for r in rs}
    assert kinds == {"should_give", "should_throw", "should_fail", "fixme"}
    by_line = {r.line: canon(r.term) for r in rs}
    text = ISO_TST.read_text().splitlines()
    line = text.index("number_codes(N,\"- 1\")\t\tshould_give N== -1.") + 1
    assert by_line[line] == "should_give(number_codes(_0,[45,32,49]),==(_0,-1))"
    line = text.index("X is -5.0**3\t\tshould_give X== -125.0.") + 1
    assert by_line[line] == "should_give(is(_0,**(-5.0,3)),==(_0,-125.0))"


@pytest.mark.skipif(not SUITES.is_dir(), reason="shared/ not present")
def test_reads_the_suite_programs():
    files = sorted(SUITES.glob("pepl_slp/slp/*.slp")) + \
        sorted(SUITES.glob("vanroy_bench_public_domain/*.pl"))
    assert files
    for f in files:
        ops = OpTable()
        terms = _consult(f.read_text(), ops)
        assert terms, f


# -- the reading builtins -------------------------------------------------------------------------

class FakeEngine:
    def __init__(self, **flags):
        self.trail: list = []
        self.flags = {"double_quotes": "codes", **flags}
        self.ops = OpTable()
        self.out: list[str] = []

    def unify(self, a, b):
        return unify(a, b, self.trail)

    def try_unify(self, a, b):
        mark = len(self.trail)
        if unify(a, b, self.trail):
            return True
        undo_to(self.trail, mark)
        return False

    def write(self, text):
        self.out.append(text)


def call(goal_text: str, eng: FakeEngine | None = None):
    """Run a reading builtin on a goal written in Prolog: returns (result, goal)."""
    from slpy.logic.builtins import BUILTINS
    import slpy.logic.builtins.reading  # noqa: F401  (registers the builtins)
    eng = eng or FakeEngine()
    goal, names = read_term_from_text(goal_text, eng.ops, eng.flags)
    kind, fn = BUILTINS[(goal.name, len(goal.args))]
    assert kind == "det"
    return fn(eng, *goal.args), goal, names


def check_throws(goal_text: str, formal_text: str):
    with pytest.raises(PrologError) as ei:
        call(goal_text)
    formal, _ = read_term_from_text(formal_text, OpTable(), {})
    got = deref(ei.value.term).args[0]
    assert variant(got, formal), (goal_text, canon(got))


@pytest.mark.parametrize("goal, formal", [
    ("number_codes(_, _)", "instantiation_error"),
    ("number_codes(_, [0'a|_])", "instantiation_error"),
    ("number_codes(a, _)", "type_error(number, a)"),
    ("number_codes(_, 0'b)", "type_error(list, 98)"),
    ("number_codes(_, [a])", "representation_error(character_code)"),
    ("number_codes(_, [-1])", "representation_error(character_code)"),
    ("number_codes(_, [0'a])", "syntax_error(illegal_number)"),
    ("number_codes(1, [_, []])", "representation_error(character_code)"),
    ("number_codes(N, [X|2])", "type_error(list, [_|2])"),
    ("number_codes([], 1)", "type_error(list, 1)"),
    ("number_chars(_, [a|_])", "instantiation_error"),
    ("number_chars(_, [abc])", "type_error(character, abc)"),
    ("number_chars(N, [1|_])", "type_error(character, 1)"),
    ("number_chars(N, ['3', ' '])", "syntax_error(illegal_number)"),
    ("atom_number(_, _)", "instantiation_error"),
    ("atom_number(_, a)", "type_error(number, a)"),
    ("atom_number(f(x), _)", "type_error(atom, f(x))"),
    ("atom_to_term(_, _, _)", "instantiation_error"),
    ("atom_to_term('f(', _, _)", "syntax_error(end_of_file)"),
    ("term_to_atom(_, 'a b')", "syntax_error(operator_expected)"),
    ("read_term_from_atom(_, _, [])", "instantiation_error"),
])
def test_builtin_errors(goal, formal):
    check_throws(goal, formal)


@pytest.mark.parametrize("goal, var, expected", [
    ('number_codes(N, " 12")', "N", "12"),
    ('number_codes(N, "- 1")', "N", "-1"),
    ('number_codes(N, "0x1F")', "N", "31"),
    ("number_codes(1.5, L)", "L", "[49,46,53]"),
    ("number_codes(-7, L)", "L", "[45,55]"),
    ("number_chars(N, ['1', '.', '5'])", "N", "1.5"),
    ("number_chars(10, [C, D])", "C", "'1'"),
    ("number_chars(1.0e22, L)", "L", "['1','.','0',e,'2','2']"),
    ("atom_number('3.25', N)", "N", "3.25"),
    ("atom_number(' 0x10', N)", "N", "16"),
    ("atom_number(A, 42)", "A", "'42'"),
    ("atom_to_term('foo(X, Y, X)', T, B)", "B", "[=('X',_0),=('Y',_1)]"),
    ("atom_to_term('foo(X, Y, X)', T, B)", "T", "foo(_0,_1,_0)"),
    ("term_to_atom(T, 'p(X) :- q(X, \"s\")')", "T", ":-(p(_0),q(_0,[115]))"),
    ("read_term_from_atom('a + b', T, [])", "T", "+(a,b)"),
])
def test_builtin_results(goal, var, expected):
    ok, _, names = call(goal)
    assert ok is True
    assert canon(names[var]) == expected


@pytest.mark.parametrize("goal", [
    'number_codes(1, "01")', 'number_codes(1.2, "1.2")', 'number_codes(1.0e9, "1.0E9")',
    "number_chars(1, [C])", "atom_number('12', 12)",
])
def test_builtin_succeeds(goal):
    assert call(goal)[0] is True


@pytest.mark.parametrize("goal", [
    "number_codes(1, [C, D])", "number_codes(100, [C, D])", "number_codes(0, [C, C])",
    "atom_number(foo, N)", "atom_number('1 ', N)", "atom_number('12', 13)",
    "atom_number('', N)",
])
def test_builtin_fails(goal):
    assert call(goal)[0] is False


def test_atom_to_term_uses_engine_flags_and_ops():
    eng = FakeEngine(double_quotes="atom")
    eng.ops.add(700, "xfx", "===>")
    ok, _, names = call("atom_to_term('X ===> \"s\"', T, _)", eng)
    assert ok and canon(names["T"]) == "===>(_0,s)"


def test_term_to_atom_writes_a_bound_term():
    writer = pytest.importorskip("slpy.terms.writer")
    assert hasattr(writer, "term_to_text")
    ok, _, names = call("term_to_atom(f(x, 'A b', [1], - 1, (a:-b)), A)")
    assert ok and names["A"].ref is not None
    text = deref(names["A"]).name
    assert text == "f(x,'A b',[1],-(1),(a:-b))"
    # and the text reads back as the term
    ok, _, names = call(f"term_to_atom(T, {text!r})")
    assert canon(names["T"]) == "f(x,'A b',[1],-(1),:-(a,b))"
    # the engine's operators are used
    eng = FakeEngine()
    eng.ops.add(700, "xfx", "===>")
    ok, _, names = call("term_to_atom(a ===> b, A)", eng)
    assert deref(names["A"]).name == "a===>b"


# -- the ISO patterns for number_chars/2 and number_codes/2 ---------------------------------

def _iso_number_patterns():
    if not ISO_TST.is_file():
        return []
    pats = []
    for lineno, line in enumerate(ISO_TST.read_text().splitlines(), 1):
        if re.match(r"number_(codes|chars)\(", line):
            pats.append(pytest.param(line, id=f"iso.tst:{lineno}"))
    return pats


def _check(goal_check, names):
    """Run a should_give check: conjunctions of ==/2 and true."""
    stack = [goal_check]
    while stack:
        g = deref(stack.pop())
        if g is atom("true"):
            continue
        if g.name == ",":
            stack.extend(g.args)
        elif g.name == "==":
            if compare(g.args[0], g.args[1]) != 0:
                return False
        else:
            raise AssertionError(f"unexpected check {canon(g)}")
    return True


@pytest.mark.skipif(not ISO_TST.is_file(), reason="shared/ not present")
@pytest.mark.parametrize("line", _iso_number_patterns())
def test_iso_number_patterns(line):
    from slpy.logic.builtins import BUILTINS
    import slpy.logic.builtins.reading  # noqa: F401
    ops = OpTable()
    for p, typ, name in [(1110, "xf", "should_fail"), (1110, "xfx", "should_give"),
                         (1110, "xfx", "should_throw")]:
        ops.add(p, typ, name)
    pattern, _ = read_term_from_text(line, ops, {"double_quotes": "codes"})
    goal = pattern.args[0]
    eng = FakeEngine()
    fn = BUILTINS[(goal.name, 2)][1]
    if pattern.name == "should_throw":
        with pytest.raises(PrologError) as ei:
            fn(eng, *goal.args)
        expected = deref(pattern.args[1]).args[0]
        assert variant(deref(ei.value.term).args[0], expected) or (
            expected.name == "syntax_error" and deref(ei.value.term).args[0].name == "syntax_error")
    elif pattern.name == "should_fail":
        assert fn(eng, *goal.args) is False
    else:
        assert fn(eng, *goal.args) is True
        assert _check(pattern.args[1], None)
