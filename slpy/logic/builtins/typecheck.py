"""Type testing builtins (ISO 8.3), char_type/2 and code_type/2, and the list walkers
the other builtin modules share.

The walkers detect cyclic lists (``L = [a|L]``) with Brent's algorithm, so no
builtin loops forever on one; a cyclic list is reported as having tail ``None``,
which every caller treats as "not a list".
"""
from __future__ import annotations

import gc

from ...terms.term import Atom, Struct, Var, NIL, DOT
from ...terms.walk import is_ground
from ...terms.unify import undo_to, unify
from ...terms.errors import (type_error, instantiation_error, representation_error,
                             resource_error)
from . import det, nondet

__all__ = ["skip_list", "list_length", "proper_items", "is_acyclic", "build_list", "fresh_list",
           "bulk", "check_size"]


def skip_list(t):
    """Walk the list t; return (items, tail).

    items are the elements (not dereferenced); tail is the dereferenced end of the
    list: NIL for a proper list, a Var for a partial list, any other term for a
    non-list, and None when the list is cyclic.
    """
    items = []
    push = items.append
    while type(t) is Var:
        r = t.ref
        if r is None:
            return items, t
        t = r
    # Brent: each cell is compared with a mark that jumps ahead at powers of two.
    mark = t
    nxt = 1
    while type(t) is Struct and t.name == DOT:
        try:
            h, t = t.args  # leaves t alone when the arity is not 2
        except ValueError:
            break
        push(h)
        while type(t) is Var:
            r = t.ref
            if r is None:
                break
            t = r
        if t is mark:
            return items, None
        if len(items) == nxt:
            mark = t
            nxt <<= 1
    return items, t


def list_length(t):
    """Like skip_list but only counts: (number of cells, tail)."""
    n = 0
    while type(t) is Var:
        r = t.ref
        if r is None:
            return 0, t
        t = r
    mark = t
    nxt = 1
    while type(t) is Struct and t.name == DOT:
        try:
            _, t = t.args
        except ValueError:
            break
        n += 1
        while type(t) is Var:
            r = t.ref
            if r is None:
                break
            t = r
        if t is mark:
            return n, None
        if n == nxt:
            mark = t
            nxt <<= 1
    return n, t


def proper_items(t):
    """Elements of the proper list t.

    Raises instantiation_error for a partial list, type_error(list, t) for a non-list.
    """
    items, tail = skip_list(t)
    if tail is NIL:
        return items
    if type(tail) is Var:
        raise instantiation_error()
    raise type_error("list", t)


def is_acyclic(t) -> bool:
    """False when t contains itself (possible because unification has no occurs check)."""
    while type(t) is Var:
        r = t.ref
        if r is None:
            return True
        t = r
    if type(t) is not Struct:
        return True
    # Iterative DFS; state: 1 = on the current path, 2 = finished (shared subterms are
    # fine). The last argument replaces its parent's frame, so a list spine does not
    # grow the stack; the replaced parents stay on the path (in `pend`) until done.
    state = {id(t): 1}
    nodes = [t]
    idxs = [0]
    pend = [None]
    while nodes:
        node = nodes[-1]
        i = idxs[-1]
        args = node.args
        n = len(args)
        if i >= n:
            nodes.pop()
            idxs.pop()
            state[id(node)] = 2
            p = pend.pop()
            if p:
                for x in p:
                    state[id(x)] = 2
            continue
        a = args[i]
        while type(a) is Var:
            r = a.ref
            if r is None:
                break
            a = r
        if i == n - 1:
            idxs[-1] = n
            if type(a) is Struct:
                s = state.get(id(a))
                if s == 1:
                    return False
                if s is None:
                    state[id(a)] = 1
                    p = pend[-1]
                    if p is None:
                        p = pend[-1] = []
                    p.append(node)
                    nodes[-1] = a
                    idxs[-1] = 0
            continue
        idxs[-1] = i + 1
        if type(a) is Struct:
            s = state.get(id(a))
            if s == 1:
                return False
            if s is None:
                state[id(a)] = 1
                nodes.append(a)
                idxs.append(0)
                pend.append(None)
    return True


class bulk:
    """Context for allocating many term cells at once (n of them).

    CPython's cyclic GC would scan the young cells over and over while a million of
    them are built (tripling the cost). Cells cannot form garbage cycles while we
    build, so for large n the collector is paused, and the new cells are then moved
    straight to the oldest generation (gc.freeze + gc.unfreeze, both O(1)), which the
    collector visits rarely. Small n: nothing is done.
    """
    __slots__ = ("on", "was")

    def __init__(self, n: int):
        self.on = n >= 2000

    def __enter__(self):
        if self.on:
            self.was = gc.isenabled()
            gc.disable()
        return self

    def __exit__(self, *exc):
        if self.on:
            if gc.get_freeze_count() == 0:  # never unfreeze what someone else froze
                gc.freeze()
                gc.unfreeze()
            if self.was:
                gc.enable()
        return False


def check_size(eng, n: int) -> None:
    """Refuse to build a term of n cells beyond the engine's term size limit."""
    limit = getattr(eng, "max_term_size", None)
    if limit is not None and n > limit:
        raise resource_error("memory")


def build_list(items, tail=NIL):
    """The Prolog list of items (a sequence) ending in tail."""
    t = tail
    with bulk(len(items)):
        for x in reversed(items):
            t = Struct(DOT, (x, t))
    return t


def fresh_list(n: int, tail=NIL):
    """A list of n fresh variables ending in tail."""
    t = tail
    with bulk(n):
        for _ in range(n):
            t = Struct(DOT, (Var(), t))
    return t


def _deref(t):
    while type(t) is Var:
        r = t.ref
        if r is None:
            return t
        t = r
    return t


# -- ISO 8.3: these never raise ------------------------------------------------------

@det("var", 1)
def bi_var(eng, x):
    return type(_deref(x)) is Var


@det("nonvar", 1)
def bi_nonvar(eng, x):
    return type(_deref(x)) is not Var


@det("atom", 1)
def bi_atom(eng, x):
    return type(_deref(x)) is Atom


@det("number", 1)
def bi_number(eng, x):
    t = type(_deref(x))
    return t is int or t is float


@det("integer", 1)
def bi_integer(eng, x):
    return type(_deref(x)) is int


@det("float", 1)
def bi_float(eng, x):
    return type(_deref(x)) is float


@det("atomic", 1)
def bi_atomic(eng, x):
    t = type(_deref(x))
    return t is not Var and t is not Struct


@det("compound", 1)
def bi_compound(eng, x):
    return type(_deref(x)) is Struct


@det("callable", 1)
def bi_callable(eng, x):
    t = type(_deref(x))
    return t is Atom or t is Struct


@det("is_list", 1)
def bi_is_list(eng, x):
    return list_length(x)[1] is NIL


@det("ground", 1)
def bi_ground(eng, x):
    return is_ground(x)


@det("string", 1)
def bi_string(eng, x):
    return type(_deref(x)) is str


@det("acyclic_term", 1)
def bi_acyclic_term(eng, x):
    return is_acyclic(x)


@det("cyclic_term", 1)
def bi_cyclic_term(eng, x):
    return not is_acyclic(x)


# -- char_type/2, code_type/2 (SWI) --------------------------------------------------
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
