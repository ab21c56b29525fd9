"""Sorting in the standard order of terms: msort/2, sort/2, sort/4, keysort/2,
list_to_set/2, max_member/2, min_member/2.

All sorts are stable. Lists of atomic terms (the common case) are sorted with a
flat Python key that ranks exactly as terms.compare; lists holding compound terms
or variables fall back to terms.compare itself.
"""
from __future__ import annotations

import math
from functools import cmp_to_key
from operator import attrgetter

from ...terms.term import Atom, Struct, Var, NIL, PrologError, atom, compare
from ...terms.rational import Rational
from ...terms.errors import instantiation_error, type_error, domain_error
from . import det
from ...terms.term import deref as _deref
from .typecheck import skip_list, proper_items, build_list, bulk

_cmp_key = cmp_to_key(compare)
_by_name = attrgetter("name")
_MINUS = "-"


def atomic_key(t):
    """A flat tuple ordering atomic terms as the standard order does.

    Numbers by value, a float before an equal integer, -0.0 before 0.0, NaN before
    every other number; then atoms by name, then strings.
    """
    tt = type(t)
    if tt is int or tt is Rational:
        return (1, 1, t, 1, 0.0)
    if tt is float:
        if t != t:
            return (1, 0)
        return (1, 1, t, 0, math.copysign(1.0, t))
    if tt is Atom:
        return (3, t.name)
    return (4, t)


def sort_keys(terms):
    """One sort key per (dereferenced) term: atomic_key when all are atomic."""
    with bulk(len(terms)):
        for x in terms:
            tx = type(x)
            if tx is Struct or tx is Var:
                return [_cmp_key(x) for x in terms]
        return [atomic_key(x) for x in terms]


def sorted_terms(items, keys=None, reverse=False, dedupe=False):
    """items (dereferenced) sorted stably by keys (default: the items themselves).

    With dedupe, of the elements with equal keys only the first in input order is
    kept (SWI's sort/2 and sort/4 with @< or @>).
    """
    n = len(items)
    if n < 2:
        return list(items)
    if keys is None:
        kinds = set(map(type, items))
        # homogeneous lists need no key objects at all
        if kinds == {int} or kinds == {str}:
            return sorted(set(items) if dedupe else items, reverse=reverse)
        if kinds == {Atom}:
            return sorted(set(items) if dedupe else items, key=_by_name, reverse=reverse)
        keys = sort_keys(items)
    else:
        keys = sort_keys(keys)
    order = sorted(range(n), key=keys.__getitem__, reverse=reverse)
    if not dedupe:
        return [items[i] for i in order]
    out = []
    last = None
    for i in order:
        k = keys[i]
        if last is None or k != last:
            out.append(items[i])
            last = k
    return out


def _input_items(lst):
    return [x if type(x) is not Var else _deref(x) for x in proper_items(lst)]


def _check_output(out, pairs=False):
    """ISO: the output must be a list or partial list (of pairs, for keysort/2)."""
    items, tail = skip_list(out)
    if tail is not NIL and type(tail) is not Var:
        raise type_error("list", out)
    if pairs:
        for x in items:
            x = _deref(x)
            if type(x) is not Var and not (
                    type(x) is Struct and x.name == _MINUS and len(x.args) == 2):
                raise type_error("pair", x)


@det("msort", 2)
def bi_msort(eng, lst, out):
    items = _input_items(lst)
    _check_output(out)
    return eng.unify(out, build_list(sorted_terms(items)))


@det("sort", 2)
def bi_sort(eng, lst, out):
    items = _input_items(lst)
    _check_output(out)
    return eng.unify(out, build_list(sorted_terms(items, dedupe=True)))


@det("keysort", 2)
def bi_keysort(eng, lst, out):
    items = _input_items(lst)
    keys = []
    for x in items:
        if type(x) is Var:
            raise instantiation_error()
        if type(x) is not Struct or x.name != _MINUS or len(x.args) != 2:
            raise type_error("pair", x)
        keys.append(_deref(x.args[0]))
    _check_output(out, pairs=True)
    return eng.unify(out, build_list(sorted_terms(items, keys)))


# sort/4 orders: (descending, remove duplicates)
_ORDERS = {
    "@<": (False, True), "<": (False, True), "@=<": (False, False), "=<": (False, False),
    "@>": (True, True), ">": (True, True), "@>=": (True, False), ">=": (True, False),
}


@det("sort", 4)
def bi_sort4(eng, key, order, lst, out):
    k = _deref(key)
    if type(k) is Var:
        raise instantiation_error()
    if type(k) is not int:
        raise type_error("integer", k)
    if k < 0:
        raise domain_error("not_less_than_zero", k)
    o = _deref(order)
    if type(o) is Var:
        raise instantiation_error()
    if type(o) is not Atom:
        raise type_error("atom", o)
    mode = _ORDERS.get(o.name)
    if mode is None:
        raise domain_error("order", o)
    items = _input_items(lst)
    keys = None
    if k:
        keys = []
        for x in items:
            if type(x) is not Struct:
                if type(x) is Var:
                    raise instantiation_error()
                raise type_error("compound", x)
            if len(x.args) < k:
                # SWI: existence_error(argument, Key, Term)
                raise PrologError(Struct("error", (
                    Struct("existence_error", (atom("argument"), k, x)), Var())))
            keys.append(_deref(x.args[k - 1]))
    _check_output(out)
    desc, dedupe = mode
    return eng.unify(out, build_list(sorted_terms(items, keys, desc, dedupe)))


@det("list_to_set", 2)
def bi_list_to_set(eng, lst, out):
    # keeps the first of each group of == elements, in input order
    items = _input_items(lst)
    kinds = set(map(type, items))
    if kinds == {int} or kinds == {Atom} or kinds == {str}:
        # == is plain equality for these; dicts keep first occurrences in order
        return eng.unify(out, build_list(list(dict.fromkeys(items))))
    keys = sort_keys(items)
    if keys and type(keys[0]) is tuple:
        seen = set()
        result = []
        for x, kx in zip(items, keys):
            if kx not in seen:
                seen.add(kx)
                result.append(x)
    else:
        order = sorted(range(len(items)), key=keys.__getitem__)
        keep = []
        last = None
        for i in order:
            if last is None or keys[i] != last:
                keep.append(i)
                last = keys[i]
        keep.sort()
        result = [items[i] for i in keep]
    return eng.unify(out, build_list(result))


def _extreme_member(eng, m, lst, want):
    items = proper_items(lst)
    if not items:
        return False
    best = items[0]
    for x in items[1:]:
        # ties keep the earlier element, as SWI's library(lists)
        if compare(x, best) == want:
            best = x
    return eng.unify(m, best)


@det("max_member", 2)
def bi_max_member(eng, m, lst):
    return _extreme_member(eng, m, lst, 1)


@det("min_member", 2)
def bi_min_member(eng, m, lst):
    return _extreme_member(eng, m, lst, -1)
