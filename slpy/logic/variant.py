"""What tabling needs to know about goals and predicates, shared by the engine's
tables (slpy.logic.tabling) and the PCFG compiler (slpy.pcfg.tabled): a hashable key
per goal variant, and which predicates reach a stochastic choice."""
from __future__ import annotations

from ..terms.term import Var, Atom, Struct, deref
from ..terms.control import META_ARGS, goal_args
from .db import STOCH, SBUILTIN

__all__ = ["variant_key", "META", "StochasticReach"]

# control constructs and meta-calls: (name, arity) -> the arguments called as they are
META = {key: goal_args(*key) for key in META_ARGS if goal_args(*key)}
META[("$tbl_call", 2)] = (1,)     # a call of a tabled predicate, as compiled


def variant_key(t) -> tuple:
    """A hashable key equal for two terms exactly when they are variants."""
    out = []
    names = {}
    stack = [t]
    while stack:
        x = deref(stack.pop())
        tx = type(x)
        if tx is Var:
            k = names.get(x)
            if k is None:
                k = names[x] = len(names)
            out.append(("v", k))
        elif tx is Struct:
            out.append(("c", x.name, len(x.args)))
            stack.extend(reversed(x.args))
        elif tx is Atom:
            out.append(("a", x.name))
        else:
            out.append((tx.__name__, x))
    return tuple(out)


class StochasticReach:
    """Which predicates reach a stochastic goal (a labelled clause or a stochastic
    builtin) through their bodies: a walk over the call graph, answers cached."""

    def __init__(self, db):
        self.db = db
        self.cache: dict = {}

    def stochastic(self, pred) -> bool:
        key = (pred.name, pred.arity)
        hit = self.cache.get(key)
        if hit is None:
            hit = self.cache[key] = self._walk(pred)
        return hit

    def hides_stochastic(self, body) -> bool:
        """Does a clause body (or any goal term) reach a stochastic goal?"""
        return any(self._is_stoch(p) or self.stochastic(p) for p in self._called(body))

    @staticmethod
    def _is_stoch(pred) -> bool:
        return pred.kind == STOCH or pred.kind == SBUILTIN

    def _walk(self, start) -> bool:
        seen = {id(start)}
        todo = [start]
        while todo:
            pred = todo.pop()
            if self._is_stoch(pred) or self.cache.get((pred.name, pred.arity)):
                return True
            if pred.builtin:
                continue
            for c in pred.clauses:
                if c.body is None:
                    continue
                for q in self._called(c.body):
                    if id(q) not in seen:
                        seen.add(id(q))
                        todo.append(q)
        return False

    def _called(self, body):
        """The predicates a body calls, looking inside control constructs."""
        stack = [body]
        while stack:
            g = deref(stack.pop())
            if type(g) is Atom:
                name, args = g.name, ()
            elif type(g) is Struct:
                name, args = g.name, g.args
            else:
                continue
            meta = META.get((name, len(args)))
            if meta is not None:
                stack.extend(args[k] for k in meta)
                continue
            pred = self.db.lookup(name, len(args))
            if pred is not None:
                yield pred
