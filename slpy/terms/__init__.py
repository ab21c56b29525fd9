"""Prolog terms, at the bottom of slpy: every other part builds on this package and it
imports nothing of slpy but :mod:`slpy.errors` (the base of exceptions that cross
processes).

    term.py      Var, Atom, Struct, lists, the standard order, and PrologError (a term
                 thrown)
    unify.py     unification on a trail, variant/2
    walk.py      copy_term, resolve, term_variables, groundness
    errors.py    the ISO error constructors (type_error, ...)
    ops.py       the operator table
    text.py      the text of single tokens (quoted atoms, floats, variable names,
                 fresh names _A, _B, ...)
    writer.py    terms as text (write, writeq, print, write_canonical)
    messages.py  the one-line message of an error ball
    args.py      argument checks of builtins (the value, or the ISO error)
    control.py   the control constructs and meta-predicates (which arguments are goals)
    rational.py  rational numbers (1r3), Fractions that stay integers when integral

Import names from the module that defines them (``from slpy.terms.term import Var``).
"""
from __future__ import annotations

from . import term as _term
from .messages import describe_error
from .writer import term_to_text


def _quoted(t) -> str:
    return term_to_text(t, quoted=True)


# term.py is below the writer and the messages; give its str() methods their text here.
_term._text = _quoted
_term._describe = describe_error
