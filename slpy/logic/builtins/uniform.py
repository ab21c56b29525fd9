"""Stochastic builtins that need no data: uniform choices."""
from __future__ import annotations

from . import stochastic
from ...terms.term import Var, deref, list_items, NIL
from ...terms.errors import instantiation_error, type_error


@stochastic("uniform_member", 2)
def uniform_member(eng, x, lst):
    """uniform_member(X, List): X is a uniformly drawn element of List (a choice point
    that draws again, without replacement, on backtracking)."""
    items, tail = list_items(lst)
    if type(tail) is Var:
        raise instantiation_error()
    if tail is not NIL:
        raise type_error("list", deref(lst))
    return x, [(1.0, it, i) for i, it in enumerate(items)]


@stochastic("uniform_between", 3)
def uniform_between(eng, lo, hi, x):
    """uniform_between(Low, High, X): X is a uniformly drawn integer in Low..High."""
    lo, hi = deref(lo), deref(hi)
    if type(lo) is Var or type(hi) is Var:
        raise instantiation_error()
    if type(lo) is not int:
        raise type_error("integer", lo)
    if type(hi) is not int:
        raise type_error("integer", hi)
    return x, [(1.0, i, i) for i in range(lo, hi + 1)]
