"""List and integer utilities of SWI-Prolog's library(lists) and the system:
length/2, between/3, succ/2, plus/3, numlist/3, nth0/3, nth1/3, last/2, reverse/2,
memberchk/2, delete/3, subtract/3, sum_list/2, sumlist/2, max_list/2, min_list/2.

All walk lists iteratively; a list of a million cells is a loop, never a recursion.
Where SWI's Prolog definitions would enumerate ever longer partial lists (last/2,
delete/3, sum_list/2, ...), these raise an instantiation error instead.
"""
from __future__ import annotations

from ..arith_functions import FUNCTIONS
from ..arith import eval_arith
from ...terms.term import Atom, Struct, Var, NIL, DOT, atom
from ...terms.unify import undo_to, unify
from ...terms.errors import instantiation_error, type_error, domain_error
from ...terms.args import int_arg
from . import LAST, det, nondet
from .typecheck import (
    list_length, skip_list, proper_items, build_list, fresh_list, check_size,
)

_INF = atom("inf")
_INFINITE = atom("infinite")
_add = FUNCTIONS[("+", 2)]
_max = FUNCTIONS[("max", 2)]
_min = FUNCTIONS[("min", 2)]


def _deref(t):
    while type(t) is Var:
        r = t.ref
        if r is None:
            return t
        t = r
    return t


def _opt_int(t):
    """(dereferenced t, its int value or None when unbound)."""
    t = _deref(t)
    if type(t) is int:
        return t, t
    if type(t) is Var:
        return t, None
    raise type_error("integer", t)


# -- length/2 -------------------------------------------------------------------------

@nondet("length", 2)
def bi_length(eng, lst, n):
    count, tail = list_length(lst)
    n, k = _opt_int(n)
    if k is not None and k < 0:
        raise domain_error("not_less_than_zero", k)
    if tail is NIL:
        if eng.unify(n, count):
            yield LAST
        return
    if type(tail) is not Var:
        return  # not a list (or a cyclic one): SWI fails
    if k is not None:
        if k >= count:
            check_size(eng, k - count)
            if eng.unify(tail, fresh_list(k - count)):
                yield LAST
        return
    if n is tail:
        return  # length(L, L) has no solution
    # partial list, unknown length: ever longer lists on backtracking
    trail = eng.trail
    mark = len(trail)
    extra = 0
    while True:
        if unify(tail, fresh_list(extra), trail) and unify(n, count + extra, trail):
            yield
        undo_to(trail, mark)
        extra += 1


# -- integers -------------------------------------------------------------------------

@nondet("between", 3)
def bi_between(eng, low, high, x):
    lo = int_arg(low)
    h = _deref(high)
    if h is _INF or h is _INFINITE:
        hi = None
    else:
        hi = int_arg(h)
    x, v = _opt_int(x)
    if v is not None:
        if lo <= v and (hi is None or v <= hi):
            yield LAST
        return
    trail = eng.trail
    i = lo
    while hi is None or i <= hi:
        # x is a fresh variable each time (the engine undoes the previous binding)
        x.ref = i
        trail.append(x)
        yield LAST if i == hi else None
        i += 1


@det("succ", 2)
def bi_succ(eng, a, b):
    a, x = _opt_int(a)
    b, y = _opt_int(b)
    # SWI reports negative numbers as type_error(not_less_than_zero, N)
    if x is not None:
        if x < 0:
            raise type_error("not_less_than_zero", x)
        if y is not None and y < 0:
            raise type_error("not_less_than_zero", y)
        return eng.unify(b, x + 1)
    if y is None:
        raise instantiation_error()
    if y < 0:
        raise type_error("not_less_than_zero", y)
    if y == 0:
        return False
    return eng.unify(a, y - 1)


@det("plus", 3)
def bi_plus(eng, a, b, c):
    a, x = _opt_int(a)
    b, y = _opt_int(b)
    c, z = _opt_int(c)
    if x is not None and y is not None:
        return eng.unify(c, x + y)
    if z is None:
        raise instantiation_error()
    if x is not None:
        return eng.unify(b, z - x)
    if y is not None:
        return eng.unify(a, z - y)
    raise instantiation_error()


@det("numlist", 3)
def bi_numlist(eng, low, high, out):
    lo = int_arg(low)
    hi = int_arg(high)
    if lo > hi:
        return False
    check_size(eng, hi - lo + 1)
    return eng.unify(out, build_list(range(lo, hi + 1)))


# -- access by position -----------------------------------------------------------------

def _nth(eng, index, lst, elem, base):
    i, k = _opt_int(index)
    if k is not None:
        k -= base
        if k < 0:
            return
        t = _deref(lst)
        while True:
            if type(t) is Struct and t.name == DOT and len(t.args) == 2:
                if k == 0:
                    if eng.unify(elem, t.args[0]):
                        yield LAST
                    return
                k -= 1
                t = _deref(t.args[1])
            elif type(t) is Var:
                # SWI extends a partial list to reach the position
                check_size(eng, k)
                if eng.unify(t, fresh_list(k, Struct(DOT, (elem, Var())))):
                    yield LAST
                return
            else:
                return
    trail = eng.trail
    mark = len(trail)
    t = _deref(lst)
    pos = base
    while type(t) is Struct and t.name == DOT and len(t.args) == 2:
        rest = _deref(t.args[1])
        if unify(elem, t.args[0], trail) and unify(i, pos, trail):
            yield LAST if rest is NIL else None
        undo_to(trail, mark)
        pos += 1
        t = rest
    if type(t) is Var:
        # partial list: the element at every later position in turn (as SWI)
        extra = 0
        while True:
            cells = fresh_list(extra, Struct(DOT, (elem, Var())))
            if unify(t, cells, trail) and unify(i, pos + extra, trail):
                yield
            undo_to(trail, mark)
            extra += 1


@nondet("nth0", 3)
def bi_nth0(eng, index, lst, elem):
    yield from _nth(eng, index, lst, elem, 0)


@nondet("nth1", 3)
def bi_nth1(eng, index, lst, elem):
    yield from _nth(eng, index, lst, elem, 1)


@det("last", 2)
def bi_last(eng, lst, x):
    items = proper_items(lst)
    return bool(items) and eng.unify(x, items[-1])


@det("reverse", 2)
def bi_reverse(eng, xs, ys):
    items, tail = skip_list(xs)
    if tail is NIL:
        items.reverse()
        return eng.unify(ys, build_list(items))
    if type(tail) is not Var:
        return False
    # reverse(-Xs, +Ys) works in SWI when Ys is a proper list
    other, otail = skip_list(ys)
    if otail is NIL:
        other.reverse()
        return eng.unify(xs, build_list(other))
    if type(otail) is Var:
        raise instantiation_error()
    return False


# -- membership -----------------------------------------------------------------------

@det("memberchk", 2)
def bi_memberchk(eng, x, lst):
    trail = eng.trail
    x = _deref(x)
    tx = type(x)
    # atomic element: compare without unify's bookkeeping
    fast = tx is Atom or tx is int or tx is str
    t = _deref(lst)
    mark = t
    power = 1
    steps = 0
    while True:
        if type(t) is Struct and t.name == DOT and len(t.args) == 2:
            h = t.args[0]
            while type(h) is Var:
                r = h.ref
                if r is None:
                    break
                h = r
            if fast and type(h) is not Var:
                if h is x or (type(h) is tx and tx is not Atom and h == x):
                    return True
            else:
                m = len(trail)
                if unify(x, h, trail):
                    return True
                undo_to(trail, m)
            t = _deref(t.args[1])
            if t is mark:
                raise type_error("list", lst)  # cyclic
            steps += 1
            if steps == power:
                mark = t
                power <<= 1
                steps = 0
        elif type(t) is Var:
            # SWI: memberchk(a, L) with L unbound gives L = [a|_]
            return eng.unify(t, Struct(DOT, (x, Var())))
        else:
            return False


@det("delete", 3)
def bi_delete(eng, lst, elem, out):
    # removes every element that unifies with elem, binding nothing
    trail = eng.trail
    keep = []
    for h in proper_items(lst):
        m = len(trail)
        if unify(h, elem, trail):
            undo_to(trail, m)
        else:
            undo_to(trail, m)
            keep.append(h)
    return eng.unify(out, build_list(keep))


@det("subtract", 3)
def bi_subtract(eng, lst, delete, out):
    # as SWI: an element is dropped when memberchk/2 finds it (bindings stay)
    keep = []
    for h in proper_items(lst):
        if not bi_memberchk(eng, h, delete):
            keep.append(h)
    return eng.unify(out, build_list(keep))


# -- arithmetic over lists -----------------------------------------------------------------

def _numbers(lst):
    for x in proper_items(lst):
        while type(x) is Var:
            r = x.ref
            if r is None:
                break
            x = r
        yield x if type(x) is int or type(x) is float else eval_arith(x)


@det("sum_list", 2)
def bi_sum_list(eng, lst, total):
    s = 0
    for v in _numbers(lst):
        s = s + v if type(s) is int and type(v) is int else _add(s, v)
    return eng.unify(total, s)


@det("sumlist", 2)
def bi_sumlist(eng, lst, total):
    return bi_sum_list(eng, lst, total)


def _fold(eng, lst, out, op):
    it = _numbers(lst)
    acc = next(it, None)
    if acc is None:
        return False
    for v in it:
        acc = op(acc, v)
    return eng.unify(out, acc)


@det("max_list", 2)
def bi_max_list(eng, lst, out):
    return _fold(eng, lst, out, _max)


@det("min_list", 2)
def bi_min_list(eng, lst, out):
    return _fold(eng, lst, out, _min)
