"""Property tests: whatever the text, the reader reads it or reports syntax errors.

No other exception may escape (IndexError, RecursionError, a LarkError...), error
positions must lie inside the text, and pathological inputs (deep nesting, long
operator chains, unclosed quotes full of escapes) must finish quickly.
"""
from __future__ import annotations

import os
import time

import pytest
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st

from slpy.terms.ops import OpTable
from slpy.lang.reader import Reader, parse_number, read_term_from_text
from slpy.lang.syntax_errors import SlpSyntaxError, SlpSyntaxErrors
from slpy.terms.term import Atom, Struct, Var, atom, deref
from slpy.terms.unify import variant

SAMPLES = [
    """1 - 1/D : [D] : cart(leaf).
1/D : [D] : cart(Split-[L,R]) :-
    NewD is D+1, splt(Split),
    [NewD] : cart(L), [NewD] : cart(R).
0.4:splt(x1). 0.3:splt(x2). 0.3:splt(x3).
""",
    """1 - 1/D :: [D] :: cart(leaf).
1/D :: [D] :: cart(Split-[L,R]) :- NewD is D+1, choose_split(Split),
                                [NewD] :: cart(L), [NewD] :: cart(R).
choose_split(x1).  choose_split(x2).  choose_split(x3).
""",
    """% comment
:- op(700, xfx, ===>).
a ===> b.
app([], L, L).
app([H|T], L, [H|R]) :- app(T, L, R).
p(X) :- ( X = 'q''s\\n' -> Y = "str" ; Y = 0'c ), \\+ q(-1, - 1, {a,b}), Y == `bq`.
/* block */ r(0x1F, 1.5e3, [a|T], T) --> [x], !.
""",
]

# characters and fragments that matter to Prolog's lexer and parser
ALPHABET = list("abXY_019 \n\t()[]{},.|'\"`%/*+-\\=<>:;!@#&$^~?ex") + ["\x00", "\u00e9"]
FRAGMENTS = ["f(", "(", ")", "[", "]", "{", "}", ",", "|", "-", "- ", "1", "0'a", "0'",
             "'q'", "'", "X", "_", ":-", ".", ". ", ".\n", '"s"', "a", "+", "\\+", "::",
             ":", "1.5", "0x1F", "/*", "*/", "%", "\n", " ", "\\", "op", "1e5", "0'''",
             "dynamic", "-1", "'\\x41\\'", "'\\q'", "a:-b", "-->", "=..", "[]", "{}"]

# FUZZ_N=5000 for a longer hunt
FAST = settings(max_examples=int(os.environ.get("FUZZ_N", 300)), deadline=None,
                suppress_health_check=[HealthCheck.too_slow])


def _consult(text: str, ops: OpTable | None = None):
    """Read text as the clause loader would, running op/3 directives; returns the
    clauses and the syntax errors."""
    ops = ops or OpTable()
    reader = Reader(ops, {"double_quotes": "codes"})
    terms = []
    errors = []
    try:
        for r in reader.read_clauses(text, "fuzz.pl"):
            terms.append(r.term)
            _maybe_op(r.term, ops)
    except SlpSyntaxErrors as e:
        errors = e.errors
    return terms, errors


def _maybe_op(t, ops):
    t = deref(t)
    if not (type(t) is Struct and t.name == ":-" and len(t.args) == 1):
        return
    d = deref(t.args[0])
    if not (type(d) is Struct and d.name == "op" and len(d.args) == 3):
        return
    p, typ, name = (deref(a) for a in d.args)
    if (type(p) is int and 0 <= p <= 1200 and type(typ) is Atom and type(name) is Atom
            and typ.name in ("xfx", "xfy", "yfx", "fy", "fx", "xf", "yf")):
        ops.add(p, typ.name, name.name)


def _check_errors(text: str, errors):
    n_lines = text.count("\n") + 1
    positions = []
    for e in errors:
        assert isinstance(e, SlpSyntaxError)
        assert 1 <= e.line <= n_lines
        assert e.col >= 1
        line = str(e)
        assert "\n" not in line and line.startswith(f"fuzz.pl:{e.line}:{e.col}: ")
        assert e.pretty().count("\n") == 2
        assert deref(e.term).args[0].name == "syntax_error"
        positions.append((e.line, e.col))
    assert positions == sorted(positions)


@st.composite
def mutated(draw):
    text = draw(st.sampled_from(SAMPLES))
    for _ in range(draw(st.integers(1, 6))):
        op = draw(st.sampled_from(["insert", "delete", "replace"]))
        i = draw(st.integers(0, len(text)))
        if op == "insert":
            text = text[:i] + draw(st.sampled_from(ALPHABET + FRAGMENTS)) + text[i:]
        elif op == "delete":
            text = text[:i] + text[i + 1:]
        else:
            text = text[:i] + draw(st.sampled_from(ALPHABET)) + text[i + 1:]
    return text


@FAST
@given(st.text(alphabet=st.sampled_from(ALPHABET), max_size=80))
def test_random_text(text):
    terms, errors = _consult(text)
    _check_errors(text, errors)


@FAST
@given(st.text(max_size=60))
def test_random_unicode_text(text):
    terms, errors = _consult(text)
    _check_errors(text, errors)


@FAST
@given(st.lists(st.sampled_from(FRAGMENTS), max_size=40).map("".join))
def test_random_token_soup(text):
    terms, errors = _consult(text)
    _check_errors(text, errors)


@FAST
@given(mutated())
def test_mutated_programs(text):
    terms, errors = _consult(text)
    _check_errors(text, errors)


@FAST
@given(st.lists(st.sampled_from(FRAGMENTS), max_size=12).map("".join),
       st.sampled_from(["xfx", "xfy", "yfx", "fy", "fx", "xf", "yf"]),
       st.integers(1, 1200),
       st.sampled_from(["foo", "-", "+", ":", "::", "is", "a", "\\+", "[]", "{}", "'|'",
                        "';'", "!", "'.'", "dynamic"]))
def test_odd_operator_tables(text, typ, pri, name):
    # a consumer may define any operator: the reader must still only give
    # terms or syntax errors
    program = f":- op({pri}, {typ}, {name}).\n{text}"
    terms, errors = _consult(program)
    _check_errors(program, errors)


@FAST
@given(st.text(alphabet=st.sampled_from(ALPHABET), max_size=40))
def test_read_term_from_text_and_parse_number(text):
    try:
        read_term_from_text(text, OpTable(), {"double_quotes": "atom"})
    except SlpSyntaxError:
        pass
    try:
        v = parse_number(text)
        assert type(v) in (int, float)
    except SlpSyntaxError:
        pass


def test_every_sample_reads():
    for text in SAMPLES:
        terms, errors = _consult(text)
        assert errors == [] and terms


@pytest.mark.parametrize("text", [
    "(" * 100_000,
    "(" * 100_000 + ".",
    "[" * 100_000 + ".",
    "{" * 100_000 + ".",
    "f(" * 50_000 + ".",
    ")" * 100_000 + ".",
    "- " * 100_000 + "a.",
    "\\+ " * 100_000 + "a.",
    "a" + " :- a" * 1000 + ".",
    "a" + " = a" * 1000 + ".",
    "a" + " , a" * 50_000 + ".",
    "a" + " ^ a" * 50_000 + ".",
    "a" + " + a" * 50_000 + ".",
    "'" + "\\x41\\" * 20_000,
    "'" + "a''" * 30_000,
    '"' + "\\" * 50_001,
    "/*" * 50_000,
    "0'" * 50_000,
    ". " * 30_000,
], ids=lambda t: repr(t[:12]) + f"..{len(t)}")
def test_pathological_inputs_finish(text):
    t0 = time.perf_counter()
    terms, errors = _consult(text)
    _check_errors(text, errors)
    assert terms or errors
    assert time.perf_counter() - t0 < 60  # quadratic behaviour would take far longer


# -- writing then reading gives the term back ----------------------------------------------

# names that stress the operator logic: operators of every kind, solo and odd atoms
ODD_NAMES = ["a", "foo", "-", "+", "*", "\\+", ":-", ",", ";", "[]", "{}", "!", ":", "::",
             "=", "is", "dynamic", "^", "**", "'", "A b", "", ".", "/*", "%", "mod", "->",
             "$", "\\", "-->", "?-", "|"]
# '|'(A, B) is left out of compounds: the writer gives A|B, which reads as (A;B) as
# in SWI-Prolog (reported to the writer's owner).
FUNCTOR_NAMES = [n for n in ODD_NAMES if n != "|"]


def _terms():
    leaves = (st.sampled_from(ODD_NAMES).map(atom)
              | st.integers(-1000, 1000) | st.floats(allow_nan=False)
              | st.builds(Var) | st.text(max_size=3))

    def extend(children):
        return (st.builds(lambda n, a: Struct(n, (a,)), st.sampled_from(FUNCTOR_NAMES), children)
                | st.builds(lambda n, a, b: Struct(n, (a, b)), st.sampled_from(FUNCTOR_NAMES),
                            children, children)
                | st.builds(lambda a, b: Struct(".", (a, b)), children, children)
                | st.builds(lambda n, xs: Struct(n, tuple(xs)), st.sampled_from(FUNCTOR_NAMES),
                            st.lists(children, min_size=1, max_size=3)))
    return st.recursive(leaves, extend, max_leaves=12)


@FAST
@given(_terms())
def test_writeq_then_read_gives_the_term_back(t):
    writer = pytest.importorskip("slpy.terms.writer")
    ops = OpTable()
    text = writer.term_to_text(t, quoted=True, ops=ops)
    t2, _ = read_term_from_text(text, ops, {"double_quotes": "string"})
    assert variant(t, t2), text
