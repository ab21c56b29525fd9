"""Builtins that read terms and numbers from text.

number_codes/2, number_chars/2, atom_number/2, atom_to_term/3, term_to_atom/2,
read_term_from_atom/3. The text is read with slpy.lang.reader, using the engine's
live operator table and flags (double_quotes). The error terms follow ISO
13211-1 8.16.7/8.16.8 and the corner cases of the ISO test patterns in
prolog-suites/eclipse_iso_tst/iso.tst.
"""
from __future__ import annotations


from ...lang.syntax_errors import SlpSyntaxError
from ...lang.reader import parse_number, read_term_from_text
from ...terms.term import NIL, Atom, Struct, Var, atom, deref, list_items, mklist
from ...terms.rational import Rational
from ...terms.errors import instantiation_error, representation_error, type_error
from ...terms.writer import term_to_text
from . import det


# -- numbers as text ------------------------------------------------------------------------

def number_text(x) -> str:
    """The characters number_codes/2 and atom_number/2 give for a number."""
    if type(x) is int:
        return str(x)
    return term_to_text(x, quoted=True)


def _is_number(t) -> bool:
    return type(t) is int or type(t) is float or type(t) is Rational


# -- lists of codes / chars -------------------------------------------------------------

def _text_of_list(lst, codes: bool):
    """(text or None if the list is partial or holds variables) for a code/char list.

    Element errors come before the list's own (ISO test patterns: number_codes(1,
    [[]|2]) is a representation error, number_codes(1, [0'a|2]) a type error).
    """
    items, tail = list_items(lst)
    chars = []
    complete = True
    for x in items:
        x = deref(x)
        if type(x) is Var:
            complete = False
        elif codes:
            if type(x) is not int or not 0 <= x <= 0x10FFFF:
                raise representation_error("character_code")
            chars.append(chr(x))
        else:
            if type(x) is not Atom or len(x.name) != 1:
                raise type_error("character", x)
            chars.append(x.name)
    if type(tail) is Var:
        complete = False
    elif tail is not NIL:
        raise type_error("list", lst)
    return "".join(chars) if complete else None


def _number_from(eng, N, L, codes: bool) -> bool:
    n = deref(N)
    lst = deref(L)
    if type(lst) is Var:
        if type(n) is Var:
            raise instantiation_error()
        if not _is_number(n):
            raise type_error("number", n)
        return eng.unify(L, _as_list(number_text(n), codes))
    # SWI-Prolog reads a string too: number_codes(N, "12")
    text = lst if type(lst) is str else _text_of_list(lst, codes)
    if type(n) is not Var and not _is_number(n):
        raise type_error("number", n)
    if text is not None:
        # a complete list is parsed even when N is bound: number_codes(1, "01") holds
        return eng.unify(N, parse_number(text))
    if type(n) is Var:
        raise instantiation_error()
    return eng.unify(L, _as_list(number_text(n), codes))


def _as_list(text: str, codes: bool):
    if codes:
        return mklist([ord(c) for c in text])
    return mklist([atom(c) for c in text])


@det("number_codes", 2)
def number_codes(eng, N, L):
    return _number_from(eng, N, L, True)


@det("number_chars", 2)
def number_chars(eng, N, L):
    return _number_from(eng, N, L, False)


@det("atom_number", 2)
def atom_number(eng, A, N):
    """SWI-Prolog's atom_number/2: fails (no error) when the atom is not a number."""
    a = deref(A)
    if type(a) is Var:
        n = deref(N)
        if type(n) is Var:
            raise instantiation_error()
        if not _is_number(n):
            raise type_error("number", n)
        return eng.unify(A, atom(number_text(n)))
    if type(a) is Atom:
        text = a.name
    elif type(a) is str:
        text = a
    else:
        raise type_error("atom", a)
    try:
        value = parse_number(text)
    except SlpSyntaxError:
        return False
    return eng.unify(N, value)


# -- terms as text --------------------------------------------------------------------------

def _text_arg(t) -> str:
    """The text of an atom, string, number, or code / char list argument."""
    t = deref(t)
    if type(t) is Var:
        raise instantiation_error()
    if type(t) is Atom:
        return t.name
    if type(t) is str:
        return t
    if _is_number(t):
        return number_text(t)
    if type(t) is Struct and t.name == "." and len(t.args) == 2:
        first = deref(t.args[0])
        text = _text_of_list(t, type(first) is int)
        if text is None:
            raise instantiation_error()
        return text
    raise type_error("atom", t)


def _bindings(varnames: dict):
    return mklist([Struct("=", (atom(name), v)) for name, v in varnames.items()])


@det("atom_to_term", 3)
def atom_to_term(eng, A, T, Bindings):
    term, varnames = read_term_from_text(_text_arg(A), eng.ops, eng.flags)
    return eng.unify(T, term) and eng.unify(Bindings, _bindings(varnames))


@det("read_term_from_atom", 3)
def read_term_from_atom(eng, A, T, Options):
    # SWI-Prolog ignores the options too
    term, _ = read_term_from_text(_text_arg(A), eng.ops, eng.flags)
    return eng.unify(T, term)


@det("term_to_atom", 2)
def term_to_atom(eng, T, A):
    """Parse A when it is bound, else write T quoted (SWI-Prolog's order)."""
    a = deref(A)
    if type(a) is not Var:
        term, _ = read_term_from_text(_text_arg(a), eng.ops, eng.flags)
        return eng.unify(T, term)
    # both unbound: SWI writes the variable (A = '_123')
    return eng.unify(A, atom(term_to_text(T, quoted=True, ops=eng.ops)))
