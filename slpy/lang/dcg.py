"""Definite clause grammar translation (`Head --> Body`), as SWI-Prolog does it."""
from __future__ import annotations

from ..terms.term import Var, Atom, Struct, deref, NIL, mklist, list_items
from ..terms.errors import type_error, instantiation_error


def _eq(a, b):
    return Struct("=", (a, b))


def _conj(a, b):
    return Struct(",", (a, b))


def _nonterminal(t, s0, s):
    t = deref(t)
    if type(t) is Atom:
        return Struct(t.name, (s0, s))
    if type(t) is Struct:
        return Struct(t.name, t.args + (s0, s))
    raise type_error("callable", t)


def _body(b, s0, s):
    b = deref(b)
    if type(b) is Var:
        return Struct("phrase", (b, s0, s))
    if b is NIL:
        return _eq(s0, s)
    if type(b) is str:  # a string literal in string mode
        return _eq(s0, mklist([ord(c) for c in b], s))
    if type(b) is Atom:
        if b.name == "!":
            return _conj(b, _eq(s0, s))
        return _nonterminal(b, s0, s)
    if type(b) is not Struct:
        raise type_error("callable", b)
    name, args = b.name, b.args
    if name == "." and len(args) == 2:
        items, tail = list_items(b)
        if tail is not NIL:
            raise type_error("list", b)
        return _eq(s0, mklist(items, s))
    if name == "," and len(args) == 2:
        mid = Var()
        return _conj(_body(args[0], s0, mid), _body(args[1], mid, s))
    if name in (";", "|") and len(args) == 2:
        return Struct(";", (_body(args[0], s0, s), _body(args[1], s0, s)))
    if name == "->" and len(args) == 2:
        mid = Var()
        return Struct("->", (_body(args[0], s0, mid), _body(args[1], mid, s)))
    if name == "\\+" and len(args) == 1:
        return _conj(Struct("\\+", (_body(args[0], s0, Var()),)), _eq(s0, s))
    if name == "{}" and len(args) == 1:
        return _conj(args[0], _eq(s0, s))
    if name == "call":
        return Struct("call", args + (s0, s))
    return _nonterminal(b, s0, s)


def dcg_transform(rule):
    """`H --> B` as the clause `H(S0, S) :- B(S0, S)`."""
    head, body = rule.args
    head = deref(head)
    s0, s = Var(), Var()
    pushback = None
    if type(head) is Struct and head.name == "," and len(head.args) == 2:
        head, pushback = deref(head.args[0]), head.args[1]
    if type(head) is Var:
        raise instantiation_error()
    if pushback is not None:
        mid = Var()
        new_head = _nonterminal(head, s0, s)
        new_body = _conj(_body(body, s0, mid), _body(pushback, s, mid))
    else:
        new_head = _nonterminal(head, s0, s)
        new_body = _body(body, s0, s)
    return Struct(":-", (new_head, new_body))
