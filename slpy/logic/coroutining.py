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

from . import builtins as _bi
from ..terms.term import Var, Struct, atom, deref
from ..terms.unify import unify, undo_to
from ..terms.walk import term_variables
from ..terms.errors import instantiation_error, domain_error

__all__ = ["Coroutining", "StartCoroutining", "residual_goals"]


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


# -- the predicates ---------------------------------------------------------------------

def _trial(x, y, trail):
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


@_bi.det("$suspend", 2)
def bi_suspend(eng, var, goal):
    """'$suspend'(+Var, +Goal): run Goal when Var is bound."""
    v = deref(var)
    if type(v) is not Var:
        raise domain_error("variable", v)
    _suspend_all(eng, [v], goal)
    return True


@_bi.det("dif", 2)
def bi_dif(eng, x, y):
    """dif(@X, @Y): X and Y are different terms, now and after any later binding
    (fails at once when they are identical; suspends while they might unify)."""
    ok, bound = _trial(x, y, eng.trail)
    if not ok:
        return True
    if not bound:
        return False
    _suspend_all(eng, bound, Struct("$dif", (x, y)))
    return True


_CONDS = {("nonvar", 1), ("ground", 1), ("?=", 2), (",", 2), (";", 2)}


def _check_condition(c):
    c = deref(c)
    if type(c) is Var:
        raise instantiation_error()
    if not (type(c) is Struct and (c.name, len(c.args)) in _CONDS):
        raise domain_error("when_condition", c)
    if c.name in (",", ";"):
        _check_condition(c.args[0])
        _check_condition(c.args[1])


def _holds(c, trail):
    """Whether condition c holds now, and the variables whose binding may change that."""
    c = deref(c)
    if c.name == "nonvar":
        a = deref(c.args[0])
        return (True, []) if type(a) is not Var else (False, [a])
    if c.name == "ground":
        vs = term_variables(c.args[0])
        return (not vs), vs[:1]
    if c.name == "?=":
        ok, bound = _trial(c.args[0], c.args[1], trail)
        return (not ok or not bound), bound
    a, va = _holds(c.args[0], trail)
    b, vb = _holds(c.args[1], trail)
    if c.name == ",":
        return a and b, (va if not a else vb)
    return a or b, va + vb


@_bi.det("$when_cond", 4)
def bi_when_cond(eng, cond, goal, done, result):
    """'$when_cond'(+Cond, +Goal, ?Done, -R): R = true when Cond holds; else
    '$when'(Cond, Goal, Done) is suspended on the variables it waits for."""
    _check_condition(cond)
    ok, wait = _holds(cond, eng.trail)
    if not eng.unify(result, atom("true" if ok else "false")):
        return False
    if not ok:
        _suspend_all(eng, wait, Struct("$when", (cond, goal, done)))
    return True


def _suspend_all(eng, vs, goal):
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


@_bi.det("frozen", 2)
def bi_frozen(eng, t, goal):
    """frozen(@Term, -Goal): Goal is the conjunction of the goals suspended on the
    variables of Term (freeze/2, dif/2, when/2), or true."""
    gs = residual_goals(eng, t)
    conj = atom("true")
    for g in reversed(gs):
        conj = g if conj is atom("true") else Struct(",", (g, conj))
    return eng.unify(goal, conj)

