"""Builtin predicates written in Python, registered by name and arity.

Two kinds, both called with the engine first and then the call's arguments
(not dereferenced):

- ``@det("name", N)``: a function returning True (success, bindings made on
  ``eng.trail``) or False (failure; the engine undoes the bindings).
- ``@nondet("name", N)``: a generator. Each ``yield`` is one solution. Before asking
  for the next solution the engine undoes the bindings of the previous one, so the
  generator must not rely on them; use ``eng.try_unify`` (which undoes a partial
  unification itself) for each candidate.

Errors are raised as ``PrologError`` (see slpy.terms.errors for constructors).
The engine interface a builtin may use: ``eng.trail``, ``eng.unify(a, b)``,
``eng.try_unify(a, b)``, ``eng.flags`` (dict of Prolog flags), ``eng.ops`` (the
operator table), ``eng.write(text)`` (current output), ``eng.db`` (the clause store).
"""
from __future__ import annotations

BUILTINS: dict[tuple[str, int], tuple[str, object]] = {}


def det(name: str, arity: int):
    def register(fn):
        BUILTINS[(name, arity)] = ("det", fn)
        return fn
    return register


def nondet(name: str, arity: int):
    def register(fn):
        BUILTINS[(name, arity)] = ("nondet", fn)
        return fn
    return register


def stochastic(name: str, arity: int):
    """A stochastic builtin: a choice point like a labelled call.

    The function returns ``(target, candidates)`` where candidates is a list of
    ``(weight, value, key)``; the engine draws one in proportion to its weight and
    unifies ``target`` with its value. ``key`` (hashable) identifies the candidate in
    proof trees, so replay can force the same choice; on backtracking the engine draws
    again among the untried candidates.
    """
    def register(fn):
        BUILTINS[(name, arity)] = ("stochastic", fn)
        return fn
    return register


class UniformChoice:
    """Candidates of a stochastic builtin drawn uniformly, without building them all.

    ``n`` candidates; ``value(i)`` builds the term of candidate i, ``key(i)`` its
    hashable identity, and ``index_of(key)`` finds a candidate again (for replay), or
    returns None. A builtin returns ``(target, UniformChoice(...))`` instead of a list.
    """
    __slots__ = ("n", "value", "key", "index_of")

    def __init__(self, n, value, key, index_of):
        self.n = n
        self.value = value
        self.key = key
        self.index_of = index_of

    def materialise(self):
        return [(1.0, self.value(i), self.key(i)) for i in range(self.n)]
