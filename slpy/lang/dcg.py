"""Definite clause grammar translation (`Head --> Body`), as SWI-Prolog does it.

A rule ``H --> B`` becomes ``H(S0, S) :- B'`` where B' threads the list through the
body: terminal lists (``[a, b]``, and strings) unify the list with them, ``{G}`` calls
G, ``!`` and ``\\+`` as in Prolog, ``call(G, A...)`` calls G with the two list
arguments added, and a variable or anything else is a nonterminal. ``H, PB --> B`` is
a rule with pushback: PB is put back in front of what B leaves.

A labelled grammar rule (the stochastic grammars of the SLP literature) keeps its
label and guard on the translated clause: ``0.4 :: s --> np, vp`` is
``0.4 :: s(S0, S) :- np(S0, S1), vp(S1, S)``, and ``L :: [G] :: s --> ...`` likewise.
"""
from __future__ import annotations

from ..terms.term import Var, Atom, Struct, deref, NIL, mklist, list_items
from ..terms.errors import type_error, instantiation_error
from ..terms.control import CONNECTIVES
from .clauses import LABEL_OPS, _rotate_label

# bodies phrase/2,3 translate rather than call as a nonterminal (SWI's dcg_special/1)
_SPECIAL = {(name, 2) for name in CONNECTIVES} | {
    ("\\+", 1), ("{}", 1), (".", 2), ("::", 2), (":", 2)}


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
    if type(t) is Var:
        raise instantiation_error()
    raise type_error("callable", t)


def dcg_body(b, s0, s):
    """The goal that proves grammar body b on the list pair s0, s."""
    b = deref(b)
    if type(b) is Var:
        return Struct("phrase", (b, s0, s))
    if b is NIL:
        return _eq(s0, s)
    if type(b) is str:  # a string literal: its codes are terminals
        return _eq(s0, mklist([ord(c) for c in b], s))
    if type(b) is Atom:
        if b.name == "!":
            return _conj(b, _eq(s, s0))
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
        return _conj(dcg_body(args[0], s0, mid), dcg_body(args[1], mid, s))
    if name in (";", "|") and len(args) == 2:
        return Struct(";", (dcg_body(args[0], s0, s), dcg_body(args[1], s0, s)))
    if name in ("->", "*->") and len(args) == 2:
        mid = Var()
        return Struct(name, (dcg_body(args[0], s0, mid), dcg_body(args[1], mid, s)))
    if name == "\\+" and len(args) == 1:
        return _conj(Struct("\\+", (dcg_body(args[0], s0, Var()),)), _eq(s, s0))
    if name == "{}" and len(args) == 1:
        return _conj(args[0], _eq(s, s0))
    if name == "call":
        return Struct("call", args + (s0, s))
    if name in LABEL_OPS and len(args) == 2:
        if type(deref(args[0])) is Atom:    # Module:Body
            return Struct(name, (args[0], dcg_body(args[1], s0, s)))
        # a guarded nonterminal: [P] :: s calls s//0 passing the guard
        return Struct(name, (args[0], _nonterminal(args[1], s0, s)))
    return _nonterminal(b, s0, s)


def is_special_body(b) -> bool:
    """Is b a control construct or terminal that phrase/3 must translate?"""
    b = deref(b)
    if b is NIL or type(b) is str or (type(b) is Atom and b.name == "!"):
        return True
    if type(b) is not Struct:
        return False
    return (b.name, len(b.args)) in _SPECIAL or b.name == "call"


def dcg_transform(rule):
    """`H --> B` as the clause `H(S0, S) :- B(S0, S)`; a label and guard on H stay
    on the clause."""
    head, body = rule.args
    head = deref(head)
    s0, s = Var(), Var()
    pushback = None
    if type(head) is Struct and head.name == "," and len(head.args) == 2:
        head, pushback = deref(head.args[0]), head.args[1]
    label = guard = None
    rot = _rotate_label(head)
    if rot is not None and not (type(deref(rot[0])) is Atom and head.name == ":"):
        label, head = rot[0], deref(rot[1])
        if type(head) is Struct and head.name in LABEL_OPS and len(head.args) == 2:
            g = deref(head.args[0])
            if g is NIL or type(g) is Var or (type(g) is Struct and g.name == "."):
                guard, head = g, deref(head.args[1])
    if type(head) is Var:
        raise instantiation_error()
    new_head = _nonterminal(head, s0, s)
    if pushback is not None:
        mid = Var()
        new_body = _conj(dcg_body(body, s0, mid), dcg_body(pushback, s, mid))
    else:
        new_body = dcg_body(body, s0, s)
    if guard is not None:
        new_head = Struct("::", (guard, new_head))
    if label is not None:
        new_head = Struct("::", (label, new_head))
    return Struct(":-", (new_head, new_body))
