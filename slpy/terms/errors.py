"""Constructors of the ISO error balls: ``type_error("integer", X)`` is the
PrologError whose term is ``error(type_error(integer, X), _)``.

The PrologError class itself is in term.py, because making an atom can raise one.
"""
from __future__ import annotations

from .term import PrologError, Struct, Var, atom

__all__ = ["type_error", "domain_error", "instantiation_error", "existence_error",
           "evaluation_error", "representation_error", "permission_error", "resource_error",
           "syntax_error"]


def _err(formal, context=None):
    return PrologError(Struct("error", (formal, Var() if context is None else context)))


def type_error(typ: str, culprit, context=None):
    return _err(Struct("type_error", (atom(typ), culprit)), context)


def domain_error(dom: str, culprit, context=None):
    return _err(Struct("domain_error", (atom(dom), culprit)), context)


def instantiation_error(context=None):
    return _err(atom("instantiation_error"), context)


def existence_error(kind: str, what, context=None):
    return _err(Struct("existence_error", (atom(kind), what)), context)


def evaluation_error(what: str, context=None):
    return _err(Struct("evaluation_error", (atom(what),)), context)


def representation_error(what: str, context=None):
    return _err(Struct("representation_error", (atom(what),)), context)


def permission_error(action: str, typ: str, culprit, context=None):
    return _err(Struct("permission_error", (atom(action), atom(typ), culprit)), context)


def resource_error(what: str, context=None):
    return _err(Struct("resource_error", (atom(what),)), context)


def syntax_error(what: str, context=None):
    return _err(Struct("syntax_error", (atom(what),)), context)
