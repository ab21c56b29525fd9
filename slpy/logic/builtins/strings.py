"""SWI-Prolog's text predicates: strings (string_*, sub_string, split_string), case
conversion (upcase_atom, ...), atomic_list_concat, the conversions between terms,
numbers and text (text_concat, number_string, term_string) and with_output_to/2.
A string is a Python ``str``; double-quoted text reads as one (flag double_quotes,
default string, as in SWI-Prolog 7).

They accept any atomic text, and code or char lists where SWI does.
"""
from __future__ import annotations

from ...terms.term import Atom, Struct, Var, NIL, atom, deref as _deref
from ...terms.rational import Rational
from ...terms.unify import undo_to, unify
from ...terms.errors import (instantiation_error, type_error, domain_error)
from . import LAST, det, nondet
from .atoms import (atomic_text, chars_list, codes_list, concat_text, float_text, list_text,
                    opt_text, sub_text, text_of)
from .typecheck import skip_list, build_list
from .output import is_sink, unify_sink
from ..coroutining import StartCoroutining
from .reading import number_text
from ...terms.errors import syntax_error
from ...terms.writer import term_to_text
from ...lang.syntax_errors import SlpSyntaxError
from ...lang.reader import parse_number, read_term_from_text


# -- case conversion -----------------------------------------------------------------

def _upper(s: str) -> str:
    if s.isascii():
        return s.upper()
    # per character, as SWI's towupper (no 'ß' -> 'SS' expansion)
    return "".join(u if len(u := c.upper()) == 1 else c for c in s)


def _lower(s: str) -> str:
    if s.isascii():
        return s.lower()
    return "".join(u if len(u := c.lower()) == 1 else c for c in s)


def _case(eng, inp, out, conv, mk, typ):
    s = conv(atomic_text(inp))
    o = _deref(out)
    if type(o) is Var:
        return eng.unify(o, mk(s))
    if type(o) is Struct:
        raise type_error(typ, o)
    return atomic_text(o) == s


@det("upcase_atom", 2)
def bi_upcase_atom(eng, inp, out):
    return _case(eng, inp, out, _upper, atom, "atom")


@det("downcase_atom", 2)
def bi_downcase_atom(eng, inp, out):
    return _case(eng, inp, out, _lower, atom, "atom")


@det("string_upper", 2)
def bi_string_upper(eng, inp, out):
    return _case(eng, inp, out, _upper, str, "string")


@det("string_lower", 2)
def bi_string_lower(eng, inp, out):
    return _case(eng, inp, out, _lower, str, "string")


# -- SWI strings ---------------------------------------------------------------------

def _convert(eng, a, b, from_a, from_b):
    """Two-way conversion: a is read when bound, else b."""
    x = _deref(a)
    if type(x) is not Var:
        return eng.unify(b, from_a(x))
    y = _deref(b)
    if type(y) is Var:
        raise instantiation_error()
    return eng.unify(x, from_b(y))


@det("atom_string", 2)
def bi_atom_string(eng, a, s):
    return _convert(eng, a, s, atomic_text, lambda y: atom(text_of(y)))


@det("string_to_atom", 2)
def bi_string_to_atom(eng, s, a):
    return _convert(eng, s, a, lambda x: atom(text_of(x)), atomic_text)


@det("text_to_string", 2)
def bi_text_to_string(eng, t, s):
    return _convert(eng, t, s, text_of, text_of)


@det("string_chars", 2)
def bi_string_chars(eng, s, lst):
    return _convert(eng, s, lst, lambda x: chars_list(text_of(x)),
                    lambda y: list_text(y, "chars"))


@det("string_codes", 2)
def bi_string_codes(eng, s, lst):
    return _convert(eng, s, lst, lambda x: codes_list(text_of(x)),
                    lambda y: list_text(y, "codes"))


@det("string_length", 2)
def bi_string_length(eng, s, length):
    n = len(text_of(s))
    k = _deref(length)
    if type(k) is not Var and type(k) is not int:
        raise type_error("integer", k)
    return eng.unify(k, n)


@nondet("string_concat", 3)
def bi_string_concat(eng, a, b, c):
    yield from concat_text(eng, _deref(a), _deref(b), _deref(c), opt_text, str)


@nondet("sub_string", 5)
def bi_sub_string(eng, t, b, l, a, sub):
    s = text_of(t)
    sub = _deref(sub)
    yield from sub_text(eng, s, b, l, a, sub, opt_text(sub), str)


@nondet("string_code", 3)
def bi_string_code(eng, index, s, code):
    text = text_of(s)
    i = _deref(index)
    if type(i) is int:
        if i < 0:
            raise domain_error("not_less_than_zero", i)
        if 1 <= i <= len(text) and eng.unify(code, ord(text[i - 1])):
            yield LAST
        return
    if type(i) is not Var:
        raise type_error("integer", i)
    trail = eng.trail
    mark = len(trail)
    for k, ch in enumerate(text, 1):
        if unify(code, ord(ch), trail) and unify(i, k, trail):
            yield LAST if k == len(text) else None
        undo_to(trail, mark)


def split_text(s: str, sep: str, pad: str) -> list:
    """SWI split_string/4: split at any char of sep, strip pad chars from each field.

    When sep and pad share characters, runs of separators collapse into one.
    """
    end = len(s)
    while end > 0 and s[end - 1] in pad:
        end -= 1
    out = []
    i = 0
    skip_pad = True
    while True:
        if skip_pad:
            while i < end and s[i] in pad:
                i += 1
            if i == end:
                out.append("")
                break
        start = i
        while i < end and s[i] not in sep:
            i += 1
        sep_at = i
        while i > start and s[i - 1] in pad:
            i -= 1
        out.append(s[start:i])
        if sep_at == end:
            break
        i = sep_at + 1
        # a separator that is not padding, directly followed by another: empty field
        skip_pad = not (s[sep_at] not in pad and i < end and s[i] in sep)
    return out


@det("split_string", 4)
def bi_split_string(eng, s, sep, pad, subs):
    parts = split_text(text_of(s), text_of(sep), text_of(pad))
    return eng.unify(subs, build_list(parts))


# -- atomic_list_concat ----------------------------------------------------------------

def _join_parts(lst):
    """Texts of the elements of a proper list, or None if it is partial or has a variable."""
    items, tail = skip_list(lst)
    if type(tail) is Var:
        return None
    if tail is not NIL:
        raise type_error("list", lst)
    out = []
    for x in items:
        x = _deref(x)
        tx = type(x)
        if tx is Atom:
            out.append(x.name)
        elif tx is str:
            out.append(x)
        elif tx is int or tx is Rational:
            out.append(str(x))
        elif tx is float:
            out.append(float_text(x))
        elif tx is Var:
            return None
        else:
            raise type_error("atomic", x)
    return out


@det("atomic_list_concat", 2)
def bi_atomic_list_concat2(eng, lst, result):
    parts = _join_parts(lst)
    if parts is None:
        raise instantiation_error()
    return eng.unify(result, atom("".join(parts)))


@det("atomic_list_concat", 3)
def bi_atomic_list_concat3(eng, lst, sep, result):
    sp = text_of(sep)
    parts = _join_parts(lst)
    if parts is not None:
        return eng.unify(result, atom(sp.join(parts)))
    # split mode (SWI): the list is unknown, the whole is known
    r = _deref(result)
    if type(r) is Var:
        raise instantiation_error()
    if not sp:
        raise domain_error("non_empty_atom", _deref(sep))
    return eng.unify(lst, build_list([atom(p) for p in atomic_text(r).split(sp)]))


# -- terms and numbers as text, output as text --------------------------------------


@nondet("text_concat", 3)
def bi_text_concat(eng, a, b, c):
    """text_concat(?T1, ?T2, ?T3): atom_concat/3 for any text; the result is a string
    when an input is one, else an atom."""
    da, db, dc = _deref(a), _deref(b), _deref(c)
    as_string = str in (type(da), type(db), type(dc))
    yield from concat_text(eng, da, db, dc, opt_text, str if as_string else atom)


@det("number_string", 2)
def bi_number_string(eng, n, s):
    """number_string(?N, ?S): S is the text of the number N; reading S, layout
    before and after the number is allowed."""
    st = _deref(s)
    if type(st) is Var:
        num = _deref(n)
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


def _term_string(eng, t, s):
    """SWI-Prolog's order: read T from S when S is bound, else write T (quoted)."""
    st = _deref(s)
    if type(st) is not Var:
        term, _ = read_term_from_text(text_of(st, "text"), eng.ops, eng.flags)
        return eng.unify(t, term)
    return eng.unify(s, term_to_text(t, quoted=True, ops=eng.ops, numbervars=True))


@det("term_string", 2)
def bi_term_string(eng, t, s):
    """term_string(?T, ?S): T is read from S; or S is T written quoted."""
    return _term_string(eng, t, s)


@det("term_string", 3)
def bi_term_string3(eng, t, s, _options):
    return _term_string(eng, t, s)


@det("with_output_to", 2)
def bi_with_output_to(eng, sink, goal):
    """with_output_to(+Sink, :Goal): run Goal once, collecting what it writes in Sink:
    atom(A), string(S), codes(Cs), codes(Cs, Tail), chars(Cs) or chars(Cs, Tail)."""
    k = _deref(sink)
    if type(k) is Var:
        raise instantiation_error()
    if not is_sink(k):
        raise domain_error("output_sink", k)
    text = eng.call_capture(goal)
    ok = text is not None and unify_sink(eng, k, text)
    if ok and eng.started_inside:      # the goal suspended the query's first goal
        raise StartCoroutining()
    return ok

