"""Type testing builtins (ISO 8.3), and the list walkers the other builtin modules
share (char_type/2 and code_type/2 are in chartype.py).

The walkers detect cyclic lists (``L = [a|L]``) with Brent's algorithm, so no
builtin loops forever on one; a cyclic list is reported as having tail ``None``,
which every caller treats as "not a list".
"""
from __future__ import annotations

import gc

from ...terms.term import Atom, Struct, Var, NIL, DOT
from ...terms.walk import is_ground
from ...terms.rational import Rational
from ...terms.errors import (type_error, instantiation_error, resource_error)
from . import det

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
    return t is int or t is float or t is Rational


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
