"""Builtins of the clause database: assert, retract, clause/2, abolish, dynamic,
current_predicate/1 and predicate_property/2."""
from __future__ import annotations

from . import det, nondet
from ...terms.term import (Var, Atom, Struct, deref, atom, list_items, NIL, TRUE,
                           PrologError, indicator)
from ...terms.unify import undo_to
from ...terms.walk import copy_term
from ...terms.errors import (type_error, domain_error, instantiation_error,
                             permission_error)
from ..compile import check_body
from ..db import STOCH, SBUILTIN
from ..kinds import CONTROL_PREDS
from ...lang.clauses import split_clause


def _clause_parts(t):
    t = deref(t)
    if type(t) is Var:
        raise instantiation_error()
    if type(t) is Struct and t.name == ":-" and len(t.args) == 2:
        h, b = deref(t.args[0]), deref(t.args[1])
    else:
        h, b = t, TRUE
    if type(h) is Var:
        raise instantiation_error()
    if type(h) is not Atom and type(h) is not Struct:
        raise type_error("callable", h)
    return h, b


def _assert(eng, t, first):
    t = deref(t)
    h, b = _clause_parts(t)
    if type(b) is not Var and type(b) is not Atom and type(b) is not Struct:
        raise type_error("callable", b)
    try:
        check_body(b, b)
    except PrologError:
        raise type_error("callable", b)
    h = split_clause(h).head  # `Label :: Head :- Body` adds a clause of Head's predicate
    name = h.name
    arity = len(h.args) if type(h) is Struct else 0
    pred = eng.db.get(name, arity)
    if pred.builtin or (name, arity) in CONTROL_PREDS:
        raise permission_error("modify", "static_procedure", indicator(name, arity))
    if not pred.clauses and not pred.dynamic:
        pred.dynamic = True
    elif not pred.dynamic and pred.clauses and eng.flags.get("iso_static", False):
        raise permission_error("modify", "static_procedure", indicator(name, arity))
    eng.program.add_clause(copy_term(t), first=first)
    return True


@det("assert", 1)
def assert_(eng, t):
    return _assert(eng, t, False)


@det("assertz", 1)
def assertz(eng, t):
    return _assert(eng, t, False)


@det("asserta", 1)
def asserta(eng, t):
    return _assert(eng, t, True)


def _pred_for_access(eng, h, action):
    name = h.name
    arity = len(h.args) if type(h) is Struct else 0
    if (name, arity) in CONTROL_PREDS:
        raise permission_error(action, "private_procedure", indicator(name, arity))
    pred = eng.db.lookup(name, arity)
    if pred is not None and pred.builtin:
        raise permission_error(action, "private_procedure", indicator(name, arity))
    return pred


def _clause_term(c, labelled=False):
    body = c.body if c.body is not None else TRUE
    head = c.head
    if labelled and c.label is not None:
        if c.guard is not None:
            head = Struct("::", (c.guard, head))
        head = Struct("::", (c.label, head))
    return copy_term(Struct(":-", (head, body)))


@nondet("clause", 2)
def clause(eng, h, b):
    h = deref(h)
    if type(h) is Var:
        raise instantiation_error()
    if type(h) is not Atom and type(h) is not Struct:
        raise type_error("callable", h)
    bb = deref(b)
    if type(bb) is not Var and type(bb) is not Atom and type(bb) is not Struct:
        raise type_error("callable", bb)
    pred = _pred_for_access(eng, h, "access")
    if pred is None:
        return
    for c in list(pred.clauses):
        t = _clause_term(c)
        if eng.try_unify(Struct(":-", (h, b)), t):
            yield


@nondet("retract", 1)
def retract(eng, t):
    h, b = _clause_parts(t)
    # `retract((Label :: Head :- Body))` also matches the label (and guard) of an SLP
    # clause; `retract((Head :- Body))` matches any label
    parts = split_clause(h)
    labelled = parts.label is not None
    if labelled:
        g = parts.head if parts.guard is None else Struct("::", (parts.guard, parts.head))
        pattern = Struct(":-", (Struct("::", (parts.label, g)), b))
    else:
        pattern = Struct(":-", (h, b))
    h = parts.head
    name = h.name
    arity = len(h.args) if type(h) is Struct else 0
    pred = eng.db.lookup(name, arity)
    if pred is not None and (pred.builtin or (not pred.dynamic and pred.clauses)):
        raise permission_error("modify", "static_procedure", indicator(name, arity))
    if (name, arity) in CONTROL_PREDS:
        raise permission_error("modify", "static_procedure", indicator(name, arity))
    if pred is None:
        return
    for c in list(pred.clauses):
        if c.erased:
            continue
        if eng.try_unify(pattern, _clause_term(c, labelled)):
            pred.remove(c)
            yield


@det("retractall", 1)
def retractall(eng, h):
    h = deref(h)
    if type(h) is Var:
        raise instantiation_error()
    if type(h) is not Atom and type(h) is not Struct:
        raise type_error("callable", h)
    name = h.name
    arity = len(h.args) if type(h) is Struct else 0
    pred = eng.db.get(name, arity)
    if pred.builtin or (pred.clauses and not pred.dynamic):
        raise permission_error("modify", "static_procedure", indicator(name, arity))
    if not pred.clauses:
        pred.dynamic = True
        pred.defined = True
    for c in list(pred.clauses):
        mark = len(eng.trail)
        if eng.try_unify(h, copy_term(c.head)):
            pred.remove(c)
            undo_to(eng.trail, mark)  # retractall/1 binds nothing
    return True


def indicator_parts(name, arity):
    """(name, arity) of the two halves of Name/Arity, with the ISO errors."""
    n, a = deref(name), deref(arity)
    if type(n) is Var or type(a) is Var:
        raise instantiation_error()
    if type(n) is not Atom:
        raise type_error("atom", n)
    if type(a) is not int:
        raise type_error("integer", a)
    return n.name, a


def _pi(t):
    t = deref(t)
    if type(t) is Var:
        raise instantiation_error()
    if not (type(t) is Struct and t.name == "/" and len(t.args) == 2):
        raise type_error("predicate_indicator", t)
    name, a = indicator_parts(*t.args)
    if a < 0:
        raise domain_error("not_less_than_zero", a)
    return name, a


@det("abolish", 1)
def abolish(eng, t):
    name, arity = _pi(t)
    pred = eng.db.lookup(name, arity)
    if (name, arity) in CONTROL_PREDS or (pred is not None and (pred.builtin or (
            pred.clauses and not pred.dynamic))):
        raise permission_error("modify", "static_procedure", indicator(name, arity))
    if pred is not None:
        pred.clear()
        pred.defined = False
        pred.dynamic = False
    return True


def _each_pi(t):
    t = deref(t)
    stack = [t]
    while stack:
        x = deref(stack.pop())
        if type(x) is Struct and x.name in (",", "/") and x.name == "," and len(x.args) == 2:
            stack.append(x.args[1])
            stack.append(x.args[0])
        elif type(x) is Struct and x.name == "." and len(x.args) == 2:
            items, _ = list_items(x)
            stack.extend(reversed(items))
        elif x is NIL:
            continue
        else:
            yield _pi(x)


@det("dynamic", 1)
def dynamic(eng, t):
    for name, arity in _each_pi(t):
        p = eng.db.get(name, arity)
        if p.builtin:
            raise permission_error("modify", "static_procedure", indicator(name, arity))
        p.dynamic = True
        p.defined = True
    return True


@det("discontiguous", 1)
def discontiguous(eng, t):
    for name, arity in _each_pi(t):
        eng.db.get(name, arity).discontiguous = True
    return True


@nondet("current_predicate", 1)
def current_predicate(eng, t):
    t = deref(t)
    if type(t) is not Var and not (type(t) is Struct and t.name == "/" and len(t.args) == 2):
        raise type_error("predicate_indicator", t)
    if type(t) is Struct:
        n, a = deref(t.args[0]), deref(t.args[1])
        if type(n) is not Var and type(n) is not Atom:
            raise type_error("predicate_indicator", t)
        if type(a) is not Var and (type(a) is not int or a < 0):
            raise type_error("predicate_indicator", t)
    for (name, arity), p in sorted(eng.db.preds.items()):
        if p.builtin or p.library or not (p.clauses or p.dynamic):
            continue
        if eng.try_unify(t, indicator(name, arity)):
            yield


@nondet("predicate_property", 2)
def predicate_property(eng, h, prop):
    h = deref(h)
    items = eng.db.preds.items()
    for (name, arity), p in list(items):
        if not (p.defined or p.clauses):
            continue
        head = atom(name) if arity == 0 else Struct(name, tuple(Var() for _ in range(arity)))
        props = []
        if p.builtin:
            props.append(atom("built_in"))
            props.append(atom("static"))
        else:
            props.append(atom("dynamic") if p.dynamic else atom("static"))
            props.append(Struct("number_of_clauses", (len(p.clauses),)))
            props.append(atom("defined"))
        if p.kind == STOCH or p.kind == SBUILTIN:
            props.append(atom("stochastic"))
        for pr in props:
            if eng.try_unify(Struct("-", (h, prop)), Struct("-", (head, pr))):
                yield
