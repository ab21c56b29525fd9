"""A small stand-in for the engine, to test builtins one call at a time: the engine
undoes the trail before asking a nondeterministic builtin for its next solution, and so
does `solve`."""
import pytest

from slpy.terms.ops import OpTable
from slpy.logic.builtins import BUILTINS
from slpy.terms.term import PrologError, Struct
from slpy.terms.walk import resolve
from slpy.terms.unify import undo_to, unify


class FakeEngine:
    def __init__(self):
        self.trail = []
        self.flags = {}
        self.ops = OpTable()
        self.output = []

    def unify(self, a, b):
        return unify(a, b, self.trail)

    def try_unify(self, a, b):
        mark = len(self.trail)
        if unify(a, b, self.trail):
            return True
        undo_to(self.trail, mark)
        return False

    def write(self, text):
        self.output.append(text)


def once(name, *args):
    """Run a builtin to its first solution, keeping the bindings."""
    eng = FakeEngine()
    kind, fn = BUILTINS[(name, len(args))]
    if kind == "det":
        return fn(eng, *args)
    return next(iter(fn(eng, *args)), False) is not False


def solve(name, *args, limit=1000):
    """All solutions as tuples of resolved arguments (bindings undone as the engine does)."""
    eng = FakeEngine()
    kind, fn = BUILTINS[(name, len(args))]
    if kind == "det":
        return [tuple(resolve(a) for a in args)] if fn(eng, *args) else []
    out = []
    for _ in fn(eng, *args):
        out.append(tuple(resolve(a) for a in args))
        undo_to(eng.trail, 0)
        if len(out) >= limit:
            break
    return out


def formal(name, *args):
    """The formal part of the error(F, _) the builtin raises."""
    with pytest.raises(PrologError) as ei:
        solve(name, *args)
    ball = ei.value.term
    assert type(ball) is Struct and ball.name == "error"
    return ball.args[0]
