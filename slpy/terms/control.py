"""The control constructs and meta-predicates, for every reader of clause bodies: the
clause and DCG translations, the compiler, tabling's reachability walk, the static
checker and the PCFG compiler.

CONNECTIVES are the binary constructs whose arguments are goals of the same body, so
a cut inside them cuts the clause: ``,`` ``;`` ``|`` ``->`` ``*->``. META_ARGS gives,
for each control construct and meta-predicate, its goal arguments with the number of
arguments each gets when it is called: ``maplist(G, L)`` calls ``G`` with one more,
``findall(T, G, L)`` calls ``G`` as it is.
"""
from __future__ import annotations

from .term import Struct

__all__ = ["CONNECTIVES", "META_ARGS", "goal_args", "is_connective"]

CONNECTIVES = frozenset({",", ";", "|", "->", "*->"})

META_ARGS: dict = {(name, 2): ((0, 0), (1, 0)) for name in CONNECTIVES}
META_ARGS.update({
    ("\\+", 1): ((0, 0),), ("not", 1): ((0, 0),), ("once", 1): ((0, 0),),
    ("ignore", 1): ((0, 0),), ("forall", 2): ((0, 0), (1, 0)),
    ("findall", 3): ((1, 0),), ("findall", 4): ((1, 0),),
    ("bagof", 3): ((1, 0),), ("setof", 3): ((1, 0),),
    ("aggregate_all", 3): ((1, 0),), ("aggregate_all", 4): ((2, 0),),
    ("aggregate", 3): ((1, 0),), ("aggregate", 4): ((2, 0),),
    ("catch", 3): ((0, 0), (2, 0)),
    ("::", 2): ((1, 0),),     # Guard :: Goal
    (":", 2): ((1, 0),),      # Guard : Goal, Module : Goal
    ("include", 3): ((0, 1),), ("exclude", 3): ((0, 1),), ("partition", 4): ((0, 1),),
    ("foldl", 4): ((0, 3),), ("foldl", 5): ((0, 4),), ("foldl", 6): ((0, 5),),
    ("predsort", 3): ((0, 3),), ("phrase", 2): ((0, 2),), ("phrase", 3): ((0, 2),),
})
for _n in range(1, 9):
    META_ARGS[("call", _n)] = ((0, _n - 1),)
for _n in range(2, 8):
    META_ARGS[("maplist", _n)] = ((0, _n - 1),)


def goal_args(name: str, arity: int) -> tuple:
    """The indices of the arguments of name/arity that are called as they are (no
    added arguments): ``(1,)`` for findall/3, ``()`` for an ordinary predicate."""
    return tuple(i for i, extra in META_ARGS.get((name, arity), ()) if extra == 0)


def is_connective(t) -> bool:
    """Is t (dereferenced) a conjunction, disjunction, if-then or soft-cut?"""
    return type(t) is Struct and len(t.args) == 2 and t.name in CONNECTIVES
