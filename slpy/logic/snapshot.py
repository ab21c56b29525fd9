"""Snapshots of a stochastic call as it was made (a proof node's ``call`` and ``guard``):
copies whose unbound variables are fresh, so that later bindings do not change them.
Replay compares a new call with its recorded snapshot (slpy.logic.replay)."""
from __future__ import annotations

from ..terms.term import NIL, Atom, Struct, Var, atom
from ..terms.walk import copy_term


def _snapshot(pred, args, target=None):
    """The call as it was made: a copy whose unbound variables are fresh (and `target`,
    a builtin's output argument, a fresh variable). Calls are mostly atomic arguments
    and unbound outputs, so those are done without copy_term."""
    if not args:
        return atom(pred.name)
    out = []
    mapping = None
    for a in args:
        if a is target:
            out.append(Var())
            continue
        while type(a) is Var:
            r = a.ref
            if r is None:
                break
            a = r
        ta = type(a)
        if ta is Var:
            if mapping is None:
                mapping = {}
            v = mapping.get(a)
            if v is None:
                v = mapping[a] = Var()
            a = v
        elif ta is Struct:
            if mapping is None:
                mapping = {}
            a = copy_term(a, mapping)
        out.append(a)
    return Struct(pred.name, tuple(out))


def _snapshot_guard(g):
    """copy_term(g) for a guard; the usual guard, a list of numbers or atoms, is rebuilt
    from its values without a walk for variables."""
    items = []
    t = g
    while True:
        while type(t) is Var:
            r = t.ref
            if r is None:
                return copy_term(g)
            t = r
        if type(t) is not Struct or t.name != "." or len(t.args) != 2:
            break
        x = t.args[0]
        while type(x) is Var:
            r = x.ref
            if r is None:
                return copy_term(g)
            x = r
        tx = type(x)
        if tx is not int and tx is not float and tx is not Atom:
            return copy_term(g)
        items.append(x)
        t = t.args[1]
    if t is not NIL:
        return copy_term(g)
    for x in reversed(items):
        t = Struct(".", (x, t))
    return t
