"""SWI-Prolog's char_type/2 and code_type/2: the classes of a character (alpha,
digit(W), upper(L), space, punct, ...), tested or enumerated."""
from __future__ import annotations

from ...terms.term import Atom, Struct, Var, deref as _deref
from ...terms.unify import undo_to, unify
from ...terms.errors import type_error, instantiation_error, representation_error
from . import nondet


# Each class: (name, test, reverse, arg_kind). A class of arity 0 has arg_kind None
# and a boolean test on the code. A class of arity 1 maps the code to its argument
# (-1: not in the class); reverse maps the argument back; arg_kind says whether the
# argument is a character ("char", a code for code_type/2) or always an integer.

def _c(c):
    return chr(c) if 0 <= c <= 0x10FFFF else "\0"


def _is_graph(c):
    ch = _c(c)
    return ch.isprintable() and not ch.isspace()


def _upper_of(c):
    ch = _c(c)
    if ch.islower():
        u = ch.upper()
        if len(u) == 1:
            return ord(u)
    return -1


def _lower_of(c):
    ch = _c(c)
    if ch.isupper():
        lo = ch.lower()
        if len(lo) == 1:
            return ord(lo)
    return -1


def _to_upper(c):
    u = _c(c).upper()
    return ord(u) if len(u) == 1 else c


def _to_lower(c):
    lo = _c(c).lower()
    return ord(lo) if len(lo) == 1 else c


_PARENS = {40: 41, 91: 93, 123: 125}
_RPARENS = {v: k for k, v in _PARENS.items()}
_SYMBOL_CHARS = frozenset(map(ord, "#$&*+-./:<=>?@\\^~"))


def _xdigit(c):
    if 48 <= c <= 57:
        return c - 48
    if 97 <= c <= 102:
        return c - 87
    if 65 <= c <= 70:
        return c - 55
    return -1


_CHAR_TYPES = [
    ("alnum", lambda c: _c(c).isalnum(), None, None),
    ("alpha", lambda c: _c(c).isalpha(), None, None),
    ("csym", lambda c: c == 95 or _c(c).isalnum(), None, None),
    ("csymf", lambda c: c == 95 or _c(c).isalpha(), None, None),
    ("prolog_var_start", lambda c: c == 95 or _c(c).isupper(), None, None),
    ("prolog_atom_start", lambda c: _c(c).islower(), None, None),
    ("prolog_identifier_continue", lambda c: c == 95 or _c(c).isalnum(), None, None),
    ("prolog_symbol", lambda c: c in _SYMBOL_CHARS, None, None),
    ("ascii", lambda c: 0 <= c < 128, None, None),
    ("white", lambda c: c == 32 or c == 9, None, None),
    ("cntrl", lambda c: 0 <= c < 32 or 127 <= c < 160, None, None),
    ("digit", lambda c: 48 <= c <= 57, None, None),
    ("print", lambda c: _c(c).isprintable(), None, None),
    ("graph", _is_graph, None, None),
    ("lower", lambda c: _c(c).islower(), None, None),
    ("upper", lambda c: _c(c).isupper(), None, None),
    ("punct", lambda c: _is_graph(c) and not _c(c).isalnum(), None, None),
    ("space", lambda c: _c(c).isspace(), None, None),
    ("end_of_line", lambda c: 10 <= c <= 13, None, None),
    ("newline", lambda c: c == 10, None, None),
    ("period", lambda c: c in (33, 46, 63), None, None),
    ("quote", lambda c: c in (34, 39, 96), None, None),
    ("lower", _upper_of, _lower_of, "char"),
    ("upper", _lower_of, _upper_of, "char"),
    # SWI's reading: to_lower(U) holds when U is Char's upper-case form (so Char is
    # what to_lower gives for U), and to_upper(L) the other way round.
    ("to_lower", _to_upper, _to_lower, "char"),
    ("to_upper", _to_lower, _to_upper, "char"),
    ("paren", lambda c: _PARENS.get(c, -1), lambda c: _RPARENS.get(c, -1), "char"),
    ("digit", lambda c: c - 48 if 48 <= c <= 57 else -1,
     lambda w: w + 48 if 0 <= w <= 9 else -1, "int"),
    ("xdigit", _xdigit, lambda w: (w + 48 if w <= 9 else w + 87) if 0 <= w <= 15 else -1,
     "int"),
]
_BY_NAME = {(n, 0 if kind is None else 1): (n, test, rev, kind)
            for n, test, rev, kind in _CHAR_TYPES}
_EOF = Atom("end_of_file")


def _char_of(t, codes: bool):
    """The code of a char or code argument (dereferenced); -1 for end of file."""
    if type(t) is int:
        if -1 <= t <= 0x10FFFF:
            return t
        raise representation_error("character_code")
    if type(t) is Atom:
        if len(t.name) == 1:
            return ord(t.name)
        if t is _EOF:
            return -1
    raise type_error("integer" if codes else "character", t)


def _out_char(c, codes: bool):
    return c if codes else Atom(chr(c))


def _arg_value(kind, v, codes):
    return _out_char(v, codes) if kind == "char" else v


def _holds(v):
    # arity-0 tests give a bool, arity-1 tests an int (-1: not in the class)
    return v is True or (v is not False and v >= 0)


def _char_type(eng, ch, typ, codes):
    c = _deref(ch)
    t = _deref(typ)
    if type(c) is Var and type(t) is Var:
        raise instantiation_error()
    trail = eng.trail
    mark = len(trail)
    if type(c) is not Var:
        code = _char_of(c, codes)
        if code == -1:
            if eng.unify(t, _EOF):
                yield
            return
        if type(t) is Var:
            for name, test, _rev, kind in _CHAR_TYPES:
                v = test(code)
                if _holds(v):
                    cls = Atom(name) if kind is None else Struct(
                        name, (_arg_value(kind, v, codes),))
                    if unify(t, cls, trail):
                        yield
                    undo_to(trail, mark)
            return
        _name, test, rev, kind = _lookup_class(t)
        v = test(code)
        if kind is None:
            if v:
                yield
            return
        if v < 0:
            return
        if unify(t.args[0], _arg_value(kind, v, codes), trail):
            yield
            return
        undo_to(trail, mark)
        # as SWI: otherwise try the argument mapped back onto the character
        arg = _deref(t.args[0])
        w = _char_of(arg, codes) if kind == "char" else arg
        if type(w) is int and rev(w) == code:
            yield
        return
    _name, test, rev, kind = _lookup_class(t)
    if kind is not None:
        arg = _deref(t.args[0])
        if type(arg) is not Var:
            # char_type(X, upper(a)): map the argument back
            w = _char_of(arg, codes) if kind == "char" else arg
            if type(w) is not int:
                raise type_error("integer", w)
            r = rev(w)
            if r >= 0 and eng.unify(c, _out_char(r, codes)):
                yield
            return
    for code in range(0x110000):
        v = test(code)
        if _holds(v):
            if unify(c, _out_char(code, codes), trail) and (
                    kind is None or unify(t.args[0], _arg_value(kind, v, codes), trail)):
                yield
            undo_to(trail, mark)


def _lookup_class(t):
    if type(t) is Atom:
        entry = _BY_NAME.get((t.name, 0))
    elif type(t) is Struct and len(t.args) == 1:
        entry = _BY_NAME.get((t.name, 1))
    else:
        entry = None
    if entry is None:
        raise type_error("char_type", t)
    return entry


@nondet("char_type", 2)
def bi_char_type(eng, ch, typ):
    yield from _char_type(eng, ch, typ, False)


@nondet("code_type", 2)
def bi_code_type(eng, ch, typ):
    yield from _char_type(eng, ch, typ, True)
