"""SWI-Prolog's string predicates that convert between terms, numbers and text, and
with_output_to/2.

text_concat/3, number_string/2, term_string/2,3 and with_output_to/2 (the other
string predicates are in atoms.py). A string is a Python ``str``; since SWI-Prolog 7
double-quoted text reads as one (flag double_quotes, default string).
"""
from __future__ import annotations

from . import det, nondet
from .atoms import _concat, _opt_text, text_of
from .output import is_sink, unify_sink
from .reading import number_text
from ...terms.term import Var, atom, deref
from ...terms.errors import instantiation_error, type_error, domain_error, syntax_error
from ...lang.reader import SlpSyntaxError, parse_number, read_term_from_text


@nondet("text_concat", 3)
def bi_text_concat(eng, a, b, c):
    """text_concat(?T1, ?T2, ?T3): atom_concat/3 for any text; the result is a string
    when an input is one, else an atom."""
    da, db, dc = deref(a), deref(b), deref(c)
    as_string = str in (type(da), type(db), type(dc))
    yield from _concat(eng, da, db, dc, _opt_text, str if as_string else atom)


@det("number_string", 2)
def bi_number_string(eng, n, s):
    """number_string(?N, ?S): S is the text of the number N; reading S, layout
    before and after the number is allowed."""
    st = deref(s)
    if type(st) is Var:
        num = deref(n)
        if type(num) is Var:
            raise instantiation_error()
        if type(num) not in (int, float):
            raise type_error("number", num)
        return eng.unify(s, number_text(num))
    text = text_of(st, "string").strip()
    try:
        value = parse_number(text)
    except SlpSyntaxError:
        raise syntax_error("illegal_number") from None
    return eng.unify(n, value)


def _term_string(eng, s, t):
    st = deref(s)
    if type(st) is not Var:
        term, _ = read_term_from_text(text_of(st, "string"), eng.ops, eng.flags)
        return eng.unify(t, term)
    from ...terms.writer import term_to_text
    return eng.unify(s, term_to_text(t, quoted=True, ops=eng.ops, numbervars=True))


@det("term_string", 2)
def bi_term_string(eng, s, t):
    """term_string(?S, ?T): S is T written quoted; or T is read from S."""
    return _term_string(eng, s, t)


@det("term_string", 3)
def bi_term_string3(eng, s, t, _options):
    return _term_string(eng, s, t)


@det("with_output_to", 2)
def bi_with_output_to(eng, sink, goal):
    """with_output_to(+Sink, :Goal): run Goal once, collecting what it writes in Sink:
    atom(A), string(S), codes(Cs), codes(Cs, Tail), chars(Cs) or chars(Cs, Tail)."""
    k = deref(sink)
    if type(k) is Var:
        raise instantiation_error()
    if not is_sink(k):
        raise domain_error("output_sink", k)
    text = eng.call_capture(goal)
    ok = text is not None and unify_sink(eng, k, text)
    if ok and eng.started_inside:      # the goal suspended the query's first goal
        from ..coroutining import StartCoroutining
        raise StartCoroutining()
    return ok

