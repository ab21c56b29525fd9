"""Coroutining: freeze/2, dif/2, when/2 and frozen/2, on goals suspended on
variables (a part of :class:`slpy.logic.engine.Engine`).

A suspended goal is kept in ``eng.attrs`` (variable -> tuple of goals); every change
to it is recorded on the trail by an entry whose ``ref`` setter restores the old
goals, so backtracking undoes suspensions as it undoes bindings. The engine looks
for bound variables among ``eng.attrs`` before each call of a predicate, after each
builtin and before each control construct, and runs their goals first (SWI-Prolog
wakes them at the next call port). It does so only while coroutining is on: from the
first suspension to the end of the top-level query. Until then the engine's only
cost is the counter compare it already makes for its limits.

A goal woken by a binding re-examines its variables: ``'$freeze'(X, G)`` suspends
again when X was bound to another variable, ``'$dif'(X, Y)`` suspends on what is
left undecided, ``'$when'(C, G, Done)`` runs G once (Done) when C holds.
"""
from __future__ import annotations

from ..terms.term import Var, Struct, deref
from ..terms.unify import unify, undo_to
from ..terms.walk import term_variables

__all__ = ["Coroutining", "StartCoroutining", "residual_goals", "trial", "suspend_all"]


class StartCoroutining(Exception):
    """Raised by the first suspension of a query, after its work is done: the engine
    then checks for woken goals at every step (see Engine._run)."""


class _Undo:
    """A trail entry: undoing it restores a variable's suspended goals."""
    __slots__ = ("attrs", "var", "old")

    def __init__(self, attrs, var, old):
        self.attrs = attrs
        self.var = var
        self.old = old

    @property
    def ref(self):
        return None

    @ref.setter
    def ref(self, _value):
        if self.old is None:
            self.attrs.pop(self.var, None)
        else:
            self.attrs[self.var] = self.old


class Coroutining:
    """The engine's suspended goals (mixed into Engine)."""

    def _wake(self, f):
        """The frame to run next: the goals of the bound suspended variables, then f."""
        attrs = self.attrs
        woken = [v for v in attrs if v.ref is not None]
        if not woken:
            return f
        goals = []
        for v in woken:
            old = attrs.pop(v)
            goals.extend(old)
            self.trail.append(_Undo(attrs, v, old))
        return self._goals_frame(goals, f)

    def _goals_frame(self, goals, f):
        pn = f[4]
        h = len(self.cps)
        for g in reversed(goals):
            f = self.goal_frame(g, f, h, pn)
        return f


def _goal_text(g):
    """The user's view of a suspended goal (frozen/2, the top level's residual goals)."""
    g = deref(g)
    if type(g) is Struct:
        if g.name == "$freeze":
            return Struct("freeze", g.args)
        if g.name == "$dif":
            return Struct("dif", g.args)
        if g.name == "$when":
            return Struct("when", g.args[:2])
    return g


def residual_goals(eng, t) -> list:
    """The goals suspended on the variables of t, each once (a goal suspended on
    several variables, or woken and suspended again, is one), in the order suspended."""
    out = []
    seen = set()
    for v in term_variables(t):
        for g in eng.attrs.get(v, ()):
            dg = deref(g)
            if type(dg) is Struct and dg.name == "$when" and \
                    type(deref(dg.args[2])) is not Var:
                continue            # a disjunctive when/2 that has run
            g = _goal_text(g)
            key = _identity_key(g)
            if key not in seen:
                seen.add(key)
                out.append(g)
    return out


def _identity_key(t) -> tuple:
    """Equal for two terms exactly when they are identical (==)."""
    out = []
    stack = [t]
    while stack:
        x = deref(stack.pop())
        if type(x) is Var:
            out.append(("v", id(x)))
        elif type(x) is Struct:
            out.append(("c", x.name, len(x.args)))
            stack.extend(reversed(x.args))
        else:
            out.append((type(x).__name__, x))
    return tuple(out)


def trial(x, y, trail):
    """Would x and y unify, and which variables would that bind? A variable bound to
    another variable names both: binding either of them later aliases the two."""
    mark = len(trail)
    ok = unify(x, y, trail)
    bound = []
    for v in trail[mark:]:
        if type(v) is Var:
            bound.append(v)
            w = deref(v)
            if type(w) is Var:
                bound.append(w)
    undo_to(trail, mark)
    return ok, bound


def suspend_all(eng, vs, goal):
    """Suspend goal on each variable of vs; the first suspension of the query is
    signalled only after all are recorded."""
    start = not eng.coroutining
    eng.coroutining = True
    attrs = eng.attrs
    for v in vs:
        old = attrs.get(v)
        attrs[v] = (old or ()) + (goal,)
        eng.trail.append(_Undo(attrs, v, old))
    if start:
        raise StartCoroutining()
