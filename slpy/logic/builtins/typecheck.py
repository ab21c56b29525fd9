"""Type testing builtins (ISO 8.3) and the list walkers the other builtin modules share.

The walkers detect cyclic lists (``L = [a|L]``) with Brent's algorithm, so no
builtin loops forever on one; a cyclic list is reported as having tail ``None``,
which every caller treats as "not a list".
"""
from __future__ import annotations

import gc

from ..terms import Atom, Struct, Var, NIL, DOT, is_ground, type_error, instantiation_error
from . import det

__all__ = ["skip_list", "list_length", "proper_items", "is_acyclic", "build_list", "fresh_list"]


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
    # Brent: compare against a cell saved at power-of-two distances.
    mark = t
    power = 1
    steps = 0
    while type(t) is Struct and t.name == DOT and len(t.args) == 2:
        args = t.args
        push(args[0])
        t = args[1]
        while type(t) is Var:
            r = t.ref
            if r is None:
                break
            t = r
        if t is mark:
            return items, None
        steps += 1
        if steps == power:
            mark = t
            power <<= 1
            steps = 0
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
    power = 1
    steps = 0
    while type(t) is Struct and t.name == DOT and len(t.args) == 2:
        n += 1
        t = t.args[1]
        while type(t) is Var:
            r = t.ref
            if r is None:
                break
            t = r
        if t is mark:
            return n, None
        steps += 1
        if steps == power:
            mark = t
            power <<= 1
            steps = 0
    return n, t


def proper_items(t):
    """Elements of the proper list t; instantiation_error if partial, type_error(list) if not a list."""
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


def build_list(items, tail=NIL):
    """The Prolog list of items ending in tail.

    Allocating a million cells triggers CPython's cyclic GC over and over (each
    pass walks every live object); cells cannot form garbage cycles while we build,
    so the collector is paused for large lists.
    """
    t = tail
    if len(items) < 2000:
        for x in reversed(items):
            t = Struct(DOT, (x, t))
        return t
    was = gc.isenabled()
    gc.disable()
    try:
        for x in reversed(items):
            t = Struct(DOT, (x, t))
    finally:
        if was:
            gc.enable()
    return t


def fresh_list(n: int, tail=NIL):
    """A list of n fresh variables ending in tail."""
    t = tail
    was = gc.isenabled()
    if n >= 2000:
        gc.disable()
    try:
        for _ in range(n):
            t = Struct(DOT, (Var(), t))
    finally:
        if was:
            gc.enable()
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
