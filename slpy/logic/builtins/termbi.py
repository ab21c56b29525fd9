"""Term unification, comparison, construction and inspection (ISO 8.2, 8.4.1, 8.5).

=/2 \\=/2 ==/2 \\==/2 @</2 @>/2 @=</2 @>=/2 compare/3 unify_with_occurs_check/2
subsumes_term/2 functor/3 arg/3 =../2 copy_term/2 term_variables/2,3
"""
from __future__ import annotations

import math

from ...terms.term import Atom, Struct, Var, NIL, DOT, atom, compare
from ...terms.walk import copy_term, term_variables
from ...terms.unify import undo_to, unify, unify_occurs_check, variant
from ...terms.errors import (instantiation_error, type_error, domain_error,
                             representation_error)
from . import det, nondet
from .typecheck import skip_list, build_list, check_size

# SWI's max_arity is "unbounded"; ISO's representation_error is kept for arities no
# machine integer holds (larger ones are refused by the engine's term size limit).
_ISO_MAX_ARITY = (1 << 63) - 1

_LT = atom("<")
_EQ = atom("=")
_GT = atom(">")


def _deref(t):
    while type(t) is Var:
        r = t.ref
        if r is None:
            return t
        t = r
    return t


def identical(a, b) -> bool:
    """==/2 without building a standard-order ranking of variables."""
    if a is b:
        return True
    stack = None
    while True:
        while type(a) is Var:
            r = a.ref
            if r is None:
                break
            a = r
        while type(b) is Var:
            r = b.ref
            if r is None:
                break
            b = r
        if a is not b:
            ta = type(a)
            if ta is not type(b):
                return False
            if ta is Struct:
                aa = a.args
                ba = b.args
                n = len(aa)
                if a.name != b.name or n != len(ba):
                    return False
                if n:
                    if n > 1:
                        if stack is None:
                            stack = []
                        for i in range(n - 2, -1, -1):
                            stack.append((aa[i], ba[i]))
                    a = aa[n - 1]
                    b = ba[n - 1]
                    continue
            elif ta is float:
                if a != b:
                    if a == a or b == b:  # equal only if both are NaN
                        return False
                elif math.copysign(1.0, a) != math.copysign(1.0, b):
                    return False
            elif ta is Var or ta is Atom or a != b:
                return False
        if not stack:
            return True
        a, b = stack.pop()


# -- 8.2 unification ---------------------------------------------------------------

@det("=", 2)
def bi_unify(eng, a, b):
    return eng.unify(a, b)


@det("\\=", 2)
def bi_not_unify(eng, a, b):
    trail = eng.trail
    mark = len(trail)
    ok = unify(a, b, trail)
    undo_to(trail, mark)
    return not ok


@det("unify_with_occurs_check", 2)
def bi_unify_occurs_check(eng, a, b):
    return unify_occurs_check(a, b, eng.trail)


@det("subsumes_term", 2)
def bi_subsumes_term(eng, general, specific):
    # General subsumes Specific iff they unify without binding Specific's variables.
    svars = term_variables(specific)
    trail = eng.trail
    mark = len(trail)
    try:
        if not unify(general, specific, trail):
            return False
        for v in svars:
            if v.ref is not None:
                return False
        return True
    finally:
        undo_to(trail, mark)


# -- 8.4 comparison ----------------------------------------------------------------

@det("==", 2)
def bi_eq(eng, a, b):
    return identical(a, b)


@det("\\==", 2)
def bi_neq(eng, a, b):
    return not identical(a, b)


@det("@<", 2)
def bi_lt(eng, a, b):
    return compare(a, b) < 0


@det("@>", 2)
def bi_gt(eng, a, b):
    return compare(a, b) > 0


@det("@=<", 2)
def bi_le(eng, a, b):
    return compare(a, b) <= 0


@det("@>=", 2)
def bi_ge(eng, a, b):
    return compare(a, b) >= 0


@det("compare", 3)
def bi_compare(eng, order, a, b):
    o = _deref(order)
    if type(o) is not Var:
        if type(o) is not Atom:
            raise type_error("atom", o)
        if o is not _LT and o is not _EQ and o is not _GT:
            raise domain_error("order", o)
    c = compare(a, b)
    return eng.unify(o, _LT if c < 0 else (_GT if c > 0 else _EQ))


# -- 8.5 term creation and decomposition -------------------------------------------

@det("functor", 3)
def bi_functor(eng, term, name, arity):
    t = _deref(term)
    if type(t) is Struct:
        return eng.unify(name, atom(t.name)) and eng.unify(arity, len(t.args))
    if type(t) is not Var:
        return eng.unify(name, t) and eng.unify(arity, 0)
    n = _deref(name)
    a = _deref(arity)
    if type(n) is Var or type(a) is Var:
        raise instantiation_error()
    if type(n) is Struct:
        raise type_error("atomic", n)
    if type(a) is not int:
        raise type_error("integer", a)
    if a < 0:
        raise domain_error("not_less_than_zero", a)
    if a > _ISO_MAX_ARITY:
        raise representation_error("max_arity")
    if a == 0:
        return eng.unify(t, n)
    if type(n) is not Atom:
        raise type_error("atom", n)
    check_size(eng, a)
    return eng.unify(t, Struct(n.name, tuple(Var() for _ in range(a))))


def _arg_checks(n, t):
    if type(t) is Var:
        raise instantiation_error()
    if type(t) is not Struct:
        raise type_error("compound", t)
    if type(n) is not Var:
        if type(n) is not int:
            raise type_error("integer", n)
        if n < 0:
            raise domain_error("not_less_than_zero", n)


@nondet("arg", 3)
def bi_arg(eng, n, term, arg):
    # SWI: with N unbound, arg/3 enumerates the arguments on backtracking.
    n = _deref(n)
    t = _deref(term)
    _arg_checks(n, t)
    args = t.args
    if type(n) is int:
        if 0 < n <= len(args) and eng.unify(arg, args[n - 1]):
            yield
        return
    trail = eng.trail
    mark = len(trail)
    for i in range(len(args)):
        if unify(arg, args[i], trail) and unify(n, i + 1, trail):
            yield
        undo_to(trail, mark)


@det("=..", 2)
def bi_univ(eng, term, lst):
    t = _deref(term)
    if type(t) is Struct:
        if eng.unify(lst, build_list([atom(t.name), *t.args])):
            return True
        _check_list_or_partial(lst)
        return False
    if type(t) is not Var:
        if eng.unify(lst, Struct(DOT, (t, NIL))):
            return True
        _check_list_or_partial(lst)
        return False
    items, tail = skip_list(lst)
    if type(tail) is Var:
        raise instantiation_error()
    if tail is not NIL:
        raise type_error("list", lst)
    if not items:
        raise domain_error("non_empty_list", NIL)
    h = _deref(items[0])
    if type(h) is Var:
        raise instantiation_error()
    if len(items) == 1:
        if type(h) is Struct:
            raise type_error("atomic", h)
        return eng.unify(t, h)
    if type(h) is not Atom:
        raise type_error("atom", h)
    return eng.unify(t, Struct(h.name, tuple(items[1:])))


def _check_list_or_partial(lst):
    tail = skip_list(lst)[1]
    if tail is not NIL and type(tail) is not Var:
        raise type_error("list", lst)


@det("copy_term", 2)
def bi_copy_term(eng, a, b):
    return eng.unify(b, copy_term(a))


@det("term_variables", 2)
def bi_term_variables(eng, term, vs):
    _check_list_or_partial(vs)
    return eng.unify(vs, build_list(term_variables(term)))


@det("term_variables", 3)
def bi_term_variables3(eng, term, vs, tail):
    # Difference-list version (SWI): Vs = [V1, ..., Vn | Tail].
    return eng.unify(vs, build_list(term_variables(term), tail))


@det("=@=", 2)
def variant_eq(eng, a, b):
    return variant(a, b)


@det("\\=@=", 2)
def not_variant_eq(eng, a, b):
    return not variant(a, b)
