"""Argument checks of builtin predicates: the value of an argument of the expected
type, or the ISO error a builtin raises for it (an unbound argument is an
instantiation error, one of the wrong type a type error, one out of range a domain
error). Shared by the builtins, the plugins' builtins and the top-level commands.
"""
from __future__ import annotations

from .term import Var, Struct, NIL, deref, list_items
from .errors import instantiation_error, type_error, domain_error

__all__ = ["int_arg", "nonneg_int_arg", "number_arg", "proper_list_arg", "items_arg"]


def int_arg(t, what: str = "integer") -> int:
    """The integer t (a type error names `what` otherwise)."""
    t = deref(t)
    if type(t) is int:
        return t
    if type(t) is Var:
        raise instantiation_error()
    raise type_error(what, t)


def nonneg_int_arg(t) -> int:
    """The integer t, which must not be negative."""
    t = int_arg(t)
    if t < 0:
        raise domain_error("not_less_than_zero", t)
    return t


def number_arg(t):
    """The integer or float t."""
    t = deref(t)
    if type(t) is int or type(t) is float:
        return t
    if type(t) is Var:
        raise instantiation_error()
    raise type_error("number", t)


def proper_list_arg(t) -> list:
    """The items of the proper list t (a partial list is an instantiation error)."""
    items, tail = list_items(t)
    if type(tail) is Var:
        raise instantiation_error()
    if tail is not NIL:
        raise type_error("list", deref(t))
    return items


def items_arg(t) -> list:
    """The items of an argument that is one item or a list of them (``op(700, xfx,
    [===, =/=])``, ``consult(File)``), dereferenced; an unbound item or list tail is
    an instantiation error."""
    t = deref(t)
    if type(t) is Struct and t.name == "." and len(t.args) == 2:
        items, tail = list_items(t)
        if type(tail) is Var:
            raise instantiation_error()
    else:
        items = [t]
    out = []
    for x in items:
        x = deref(x)
        if type(x) is Var:
            raise instantiation_error()
        out.append(x)
    return out
