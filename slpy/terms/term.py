"""Prolog terms: the representation every part of slpy shares, and PrologError, the
exception that carries one.

Representation (chosen for speed in CPython):
- variable: ``Var`` (``ref`` is None while unbound, else the bound term);
- atom: ``Atom``, interned, so atoms compare with ``is``;
- compound: ``Struct(name, args)`` with ``name`` a Python ``str`` and ``args`` a tuple;
- integer / float: Python ``int`` / ``float`` (never ``bool``);
- string (SWI string object): Python ``str``.
Lists are ``'.'/2`` compounds ending in the atom ``[]``.

The standard order of terms is here too (``Struct.__eq__`` is ``compare(a, b) == 0``).
Unification is in unify.py, walks over whole terms (copying, resolving) in walk.py, the
ISO error constructors in errors.py; the writer (writer.py) gives a term its text.
"""
from __future__ import annotations

import itertools
import math
import sys

from ..errors import PicklableError
from .rational import Rational

__all__ = [
    "Var", "Atom", "Struct", "atom", "deref", "PrologError", "NIL", "TRUE", "FAIL",
    "CURLY", "MINUS", "DOT", "MAX_ATOM_LENGTH", "mklist", "list_items", "is_callable",
    "is_atomic", "is_list_term", "indicator", "compare",
]

# The writer and the error messages import this module, so it cannot import them: the
# package's __init__ plugs them in here (str() of a term, of a PrologError).
_text = None        # term_to_text(t, quoted=True)
_describe = None    # describe_error(ball)

_next_serial = itertools.count(1).__next__


class Var:
    """A logic variable; ``serial`` orders variables by age (the standard order of
    terms) and names them when printed."""
    __slots__ = ("ref", "serial")

    def __init__(self):
        self.ref = None
        self.serial = _next_serial()

    def __repr__(self):
        return f"Var({self.display()})"

    def display(self):
        return f"_G{self.serial}"

    def __str__(self):
        t = deref(self)
        if type(t) is Var:
            return t.display()
        return str(t)


# Atoms are interned for good: refuse longer ones (a resource error) rather than let a
# program that grows an atom fill the memory.
MAX_ATOM_LENGTH = 1 << 24


class Atom:
    __slots__ = ("name", "__weakref__")
    _table: dict[str, "Atom"] = {}

    def __new__(cls, name: str):
        a = cls._table.get(name)
        if a is None:
            if len(name) > MAX_ATOM_LENGTH:
                ball = Struct("error", (Struct("resource_error", (Atom("memory"),)), Var()))
                raise PrologError(ball, f"Resource error: an atom of more than "
                                  f"{MAX_ATOM_LENGTH} characters")
            a = object.__new__(cls)
            a.name = sys.intern(name)
            cls._table[name] = a
        return a

    def __reduce__(self):
        return (Atom, (self.name,))

    def __repr__(self):
        return f"Atom({self.name!r})"

    def __str__(self):
        return _text(self)

    def __lt__(self, other):
        return self.name < other.name


def atom(name: str) -> Atom:
    a = Atom._table.get(name)
    return a if a is not None else Atom(name)


class Struct:
    __slots__ = ("name", "args")

    def __init__(self, name: str, args: tuple):
        self.name = name
        self.args = args

    def __repr__(self):
        return f"Struct({self.name!r}, {self.args!r})"

    def __str__(self):
        return _text(self)

    def __eq__(self, other):
        # Structural equality (==/2 semantics) so Python users can compare answers.
        return type(other) is Struct and compare(self, other) == 0

    def __ne__(self, other):
        return not self.__eq__(other)

    __hash__ = None  # mutable through its variables

    @property
    def indicator(self):
        return (self.name, len(self.args))


NIL = Atom("[]")
TRUE = Atom("true")
FAIL = Atom("fail")
CURLY = Atom("{}")
MINUS = Atom("-")
DOT = "."


def deref(t):
    while type(t) is Var:
        r = t.ref
        if r is None:
            return t
        t = r
    return t


# -- the standard order of terms: Var < Number < Atom < String < Compound ----------------

def _ord_class(t):
    tt = type(t)
    if tt is Var:
        return 0
    if tt is int or tt is float or tt is Rational:
        return 1
    if tt is Atom:
        return 3
    if tt is str:
        return 4
    return 5


def compare(a, b) -> int:
    """Standard order comparison: -1, 0 or 1."""
    stack = [(a, b)]
    while stack:
        a, b = stack.pop()
        a = deref(a)
        b = deref(b)
        if a is b:
            continue
        ca = _ord_class(a)
        cb = _ord_class(b)
        if ca != cb:
            return -1 if ca < cb else 1
        if ca == 1:
            # compare by value; if equal, Float < Int (ISO 7.2.2)
            if a != b:
                if a != a or b != b:  # nan
                    ka, kb = (a != a), (b != b)
                    if ka != kb:
                        return -1 if ka else 1
                    continue
                return -1 if a < b else 1
            ta, tb = type(a), type(b)
            if ta is not tb:
                return -1 if ta is float else 1
            if ta is float:
                sa, sb = math.copysign(1.0, a), math.copysign(1.0, b)
                if sa != sb:
                    return -1 if sa < sb else 1
            continue
        if ca == 0:
            return -1 if a.serial < b.serial else 1
        if ca == 3:
            if a.name != b.name:
                return -1 if a.name < b.name else 1
            continue
        if ca == 4:
            if a != b:
                return -1 if a < b else 1
            continue
        # compound: arity, then name, then args left to right
        la, lb = len(a.args), len(b.args)
        if la != lb:
            return -1 if la < lb else 1
        if a.name != b.name:
            return -1 if a.name < b.name else 1
        stack.extend(reversed(list(zip(a.args, b.args))))
    return 0


# -- lists -------------------------------------------------------------------------

def mklist(items, tail=NIL):
    t = tail
    for x in reversed(items):
        t = Struct(DOT, (x, t))
    return t


def list_items(t):
    """Python list of the items of a Prolog list and its (dereferenced) tail."""
    items = []
    t = deref(t)
    while type(t) is Struct and t.name == DOT and len(t.args) == 2:
        items.append(t.args[0])
        t = deref(t.args[1])
    return items, t


def is_list_term(t) -> bool:
    _, tail = list_items(t)
    return tail is NIL


def is_callable(t) -> bool:
    t = deref(t)
    return type(t) is Atom or type(t) is Struct


def is_atomic(t) -> bool:
    t = deref(t)
    return type(t) is not Var and type(t) is not Struct


def indicator(name: str, arity: int):
    return Struct("/", (atom(name), arity))


# -- the exception that carries a term ---------------------------------------------

class PrologError(PicklableError):
    """A Prolog exception; ``term`` is the ball (for ISO errors ``error(Formal, Context)``)."""

    def __init__(self, term, message: str | None = None):
        self.term = term
        super().__init__(message if message is not None else None)

    def __str__(self):
        if self.args and self.args[0]:
            return self.args[0]
        return _describe(self.term)
