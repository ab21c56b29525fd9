"""The coroutining builtins: dif/2, frozen/2, and the steps of freeze/2 and when/2
('$suspend'/2, '$when_cond'/4; lib/coroutining.pl), over the suspended goals of
slpy.logic.coroutining.
"""
from __future__ import annotations

from . import det
from ..coroutining import residual_goals, suspend_all, trial
from ...terms.term import Var, Struct, atom, deref
from ...terms.walk import term_variables
from ...terms.errors import instantiation_error, domain_error

@det("$suspend", 2)
def bi_suspend(eng, var, goal):
    """'$suspend'(+Var, +Goal): run Goal when Var is bound."""
    v = deref(var)
    if type(v) is not Var:
        raise domain_error("variable", v)
    suspend_all(eng, [v], goal)
    return True


@det("dif", 2)
def bi_dif(eng, x, y):
    """dif(@X, @Y): X and Y are different terms, now and after any later binding
    (fails at once when they are identical; suspends while they might unify)."""
    ok, bound = trial(x, y, eng.trail)
    if not ok:
        return True
    if not bound:
        return False
    suspend_all(eng, bound, Struct("$dif", (x, y)))
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
        ok, bound = trial(c.args[0], c.args[1], trail)
        return (not ok or not bound), bound
    a, va = _holds(c.args[0], trail)
    b, vb = _holds(c.args[1], trail)
    if c.name == ",":
        return a and b, (va if not a else vb)
    return a or b, va + vb


@det("$when_cond", 4)
def bi_when_cond(eng, cond, goal, done, result):
    """'$when_cond'(+Cond, +Goal, ?Done, -R): R = true when Cond holds; else
    '$when'(Cond, Goal, Done) is suspended on the variables it waits for."""
    _check_condition(cond)
    ok, wait = _holds(cond, eng.trail)
    if not eng.unify(result, atom("true" if ok else "false")):
        return False
    if not ok:
        suspend_all(eng, wait, Struct("$when", (cond, goal, done)))
    return True




@det("frozen", 2)
def bi_frozen(eng, t, goal):
    """frozen(@Term, -Goal): Goal is the conjunction of the goals suspended on the
    variables of Term (freeze/2, dif/2, when/2), or true."""
    gs = residual_goals(eng, t)
    conj = atom("true")
    for g in reversed(gs):
        conj = g if conj is atom("true") else Struct(",", (g, conj))
    return eng.unify(goal, conj)

