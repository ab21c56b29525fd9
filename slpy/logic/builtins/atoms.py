"""Atomic term processing (ISO 8.16), and reading text out of terms.

The ISO predicates (atom_length, atom_concat, sub_atom, atom_chars, atom_codes,
char_code) raise the ISO errors the standard lists: a number where an atom is
expected is a type_error(atom, N), as in SWI-Prolog's ISO mode. SWI strings (Python
str) are accepted wherever an atom is read. SWI-Prolog's string predicates, which
share the text helpers here, are in strings.py.
"""
from __future__ import annotations

from ...terms.term import Atom, Var, NIL, DOT, atom
from ...terms.rational import Rational
from ...terms.unify import undo_to, unify
from ...terms.errors import (instantiation_error, type_error, domain_error,
                             representation_error)
from . import LAST, det, nondet
from .typecheck import skip_list, build_list

MAX_CODE = 0x10FFFF


def _deref(t):
    while type(t) is Var:
        r = t.ref
        if r is None:
            return t
        t = r
    return t


def float_text(f: float) -> str:
    """A float as SWI-Prolog writes it: shortest round-trip digits, always a dot."""
    if f != f:
        return "1.5NaN"
    if f in (float("inf"), float("-inf")):
        return "1.0Inf" if f > 0 else "-1.0Inf"
    r = repr(f)
    if "e" in r:
        m, e = r.split("e")
        if "." not in m:
            m += ".0"
        return f"{m}e{int(e)}"
    return r


# -- reading text out of terms ------------------------------------------------------

def _atom_text(t):
    """Text of t (dereferenced) where ISO wants an atom."""
    if type(t) is Atom:
        return t.name
    if type(t) is str:
        return t
    if type(t) is Var:
        raise instantiation_error()
    raise type_error("atom", t)


def _opt_atom_text(t):
    """None for a variable, else as _atom_text."""
    if type(t) is Var:
        return None
    return _atom_text(t)


def list_text(lst, mode: str = "any") -> str:
    """Text of a code list (mode 'codes'), char list ('chars') or either ('any').

    Error order follows iso.tst: a non-list first, then element by element
    (instantiation, then the element's own error), then a partial list.
    A SWI string is accepted as already being text.
    """
    t = _deref(lst)
    if type(t) is str:
        return t
    items, tail = skip_list(t)
    if tail is not NIL and type(tail) is not Var:
        raise type_error("list", lst)
    out = []
    push = out.append
    for x in items:
        while type(x) is Var:
            r = x.ref
            if r is None:
                raise instantiation_error()
            x = r
        tx = type(x)
        if tx is int and mode != "chars":
            if 0 <= x <= MAX_CODE:
                push(chr(x))
                continue
            raise representation_error("character_code")
        if tx is Atom and mode != "codes" and len(x.name) == 1:
            push(x.name)
            continue
        if mode == "codes":
            raise representation_error("character_code")
        raise type_error("character", x)
    if tail is not NIL:
        raise instantiation_error()
    return "".join(out)


def text_of(t, what: str = "atomic", nil: str = "") -> str:
    """SWI's liberal text conversion: atom, string, number, code or char list.

    ``[]`` is read as the empty list (""), since with the default double_quotes=codes
    a "" in the source is ``[]``; atom-centred callers pass nil="[]" for the atom.
    """
    t = _deref(t)
    tt = type(t)
    if tt is Atom:
        return nil if t is NIL else t.name
    if tt is str:
        return t
    if tt is int or tt is Rational:
        return str(t)
    if tt is float:
        return float_text(t)
    if tt is Var:
        raise instantiation_error()
    if t.name == DOT and len(t.args) == 2:
        return list_text(t, "any")
    raise type_error(what, t)


def atomic_text(t) -> str:
    return text_of(t, "atomic", "[]")


def opt_text(t, what: str = "atomic"):
    t = _deref(t)
    if type(t) is Var:
        return None
    return text_of(t, what)


def chars_list(s: str):
    return build_list([atom(c) for c in s])


def codes_list(s: str):
    return build_list(list(map(ord, s)))


def _opt_nonneg(t):
    """An optional non-negative integer argument: None when unbound."""
    t = _deref(t)
    if type(t) is Var:
        return None
    if type(t) is not int:
        raise type_error("integer", t)
    if t < 0:
        raise domain_error("not_less_than_zero", t)
    return t


# -- ISO 8.16 -------------------------------------------------------------------------

@det("atom_length", 2)
def bi_atom_length(eng, a, length):
    s = _atom_text(_deref(a))
    n = _deref(length)
    if type(n) is Var:
        return eng.unify(n, len(s))
    if type(n) is not int:
        raise type_error("integer", n)
    if n < 0:
        raise domain_error("not_less_than_zero", n)
    return n == len(s)


def concat_text(eng, a, b, c, get, mk):
    """atom_concat/3 and string_concat/3: get reads an optional text, mk builds one."""
    sa = get(a)
    sb = get(b)
    sc = get(c)
    if sc is None:
        if sa is None or sb is None:
            raise instantiation_error()
        if eng.unify(c, mk(sa + sb)):
            yield
        return
    if sa is not None:
        if sc.startswith(sa) and eng.unify(b, mk(sc[len(sa):])):
            yield
        return
    if sb is not None:
        if sc.endswith(sb) and eng.unify(a, mk(sc[:len(sc) - len(sb)])):
            yield
        return
    trail = eng.trail
    mark = len(trail)
    for i in range(len(sc) + 1):
        if unify(a, mk(sc[:i]), trail) and unify(b, mk(sc[i:]), trail):
            yield
        undo_to(trail, mark)


@nondet("atom_concat", 3)
def bi_atom_concat(eng, a, b, c):
    yield from concat_text(eng, _deref(a), _deref(b), _deref(c), _opt_atom_text, atom)


def sub_text(eng, s, b, l, a, sub, ss, mk):
    """sub_atom/5 and sub_string/5 over the text s; ss is Sub's text or None."""
    n = len(s)
    bb = _opt_nonneg(b)
    ll = _opt_nonneg(l)
    aa = _opt_nonneg(a)
    trail = eng.trail
    mark = len(trail)
    if ss is not None:
        k = len(ss)
        if ll is not None and ll != k:
            return
        if bb is not None:
            starts = [bb] if s.startswith(ss, bb) else []
        elif aa is not None:
            st = n - aa - k
            starts = [st] if st >= 0 and s.startswith(ss, st) else []
        else:
            starts = list(_occurrences(s, ss))
        for x, i in enumerate(starts, 1):
            if (unify(b, i, trail) and unify(l, k, trail)
                    and unify(a, n - i - k, trail)):
                yield LAST if x == len(starts) else None
            undo_to(trail, mark)
        return
    for (i, j), last in _with_last(_spans(n, bb, ll, aa)):
        if (unify(b, i, trail) and unify(l, j, trail) and unify(a, n - i - j, trail)
                and unify(sub, mk(s[i:i + j]), trail)):
            yield LAST if last else None
        undo_to(trail, mark)


def _with_last(items):
    """(item, is it the last) pairs, looking one item ahead."""
    it = iter(items)
    for prev in it:
        for x in it:
            yield prev, False
            prev = x
        yield prev, True


def _occurrences(s, ss):
    i = s.find(ss)
    while i >= 0:
        yield i
        i = s.find(ss, i + 1)


def _spans(n, b, l, a):
    """(Before, Length) pairs in ISO order (Before, then Length, ascending)."""
    if b is not None:
        if l is not None:
            if b + l <= n and (a is None or a == n - b - l):
                yield b, l
        elif a is not None:
            if n - b - a >= 0:
                yield b, n - b - a
        else:
            for j in range(n - b + 1):
                yield b, j
    elif l is not None:
        if a is not None:
            if n - l - a >= 0:
                yield n - l - a, l
        else:
            for i in range(n - l + 1):
                yield i, l
    elif a is not None:
        for i in range(n - a + 1):
            yield i, n - a - i
    else:
        for i in range(n + 1):
            for j in range(n - i + 1):
                yield i, j


@nondet("sub_atom", 5)
def bi_sub_atom(eng, t, b, l, a, sub):
    s = _atom_text(_deref(t))
    sub = _deref(sub)
    ss = _opt_atom_text(sub)
    yield from sub_text(eng, s, b, l, a, sub, ss, atom)


@det("atom_chars", 2)
def bi_atom_chars(eng, a, lst):
    a = _deref(a)
    if type(a) is not Var:
        return eng.unify(lst, chars_list(_atom_text(a)))
    return eng.unify(a, atom(list_text(lst, "chars")))


@det("atom_codes", 2)
def bi_atom_codes(eng, a, lst):
    a = _deref(a)
    if type(a) is not Var:
        return eng.unify(lst, codes_list(_atom_text(a)))
    return eng.unify(a, atom(list_text(lst, "codes")))


@det("char_code", 2)
def bi_char_code(eng, ch, code):
    c = _deref(ch)
    k = _deref(code)
    if type(k) is not Var:
        if type(k) is not int:
            raise type_error("integer", k)
        if not 0 <= k <= MAX_CODE:
            raise representation_error("character_code")
    if type(c) is not Var:
        if type(c) is not Atom or len(c.name) != 1:
            raise type_error("character", c)
        return eng.unify(k, ord(c.name))
    if type(k) is Var:
        raise instantiation_error()
    return eng.unify(c, atom(chr(k)))
