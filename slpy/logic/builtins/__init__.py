"""The core builtins: the predicates written in Python that every program has, one
module a family (type checks, term construction, atoms and strings, sorting, lists,
arithmetic comparison, output and format/2, reading, the clause store and all-solutions,
uniform draws).

Each module registers its predicates in ``CORE`` with the ``det``, ``nondet`` and
``stochastic`` decorators when it is imported (the Program imports them all); how a
builtin is written is explained in :mod:`slpy.logic.plugins`. ``BUILTINS`` is the table:
``(name, arity) -> (kind, function)``.
"""
from __future__ import annotations

from ..plugins import LAST, Plugin  # noqa: F401

CORE = Plugin("core")
BUILTINS = CORE.builtins
det = CORE.det
nondet = CORE.nondet
stochastic = CORE.stochastic
