"""Rational numbers, as SWI-Prolog has them: ``1r3``, ``X is 1 rdiv 3``.

A rational that is not an integer is a :class:`Rational`, a ``fractions.Fraction``
whose arithmetic keeps the Prolog invariant that an integral value is a Python
``int``: ``1r3 + 2r3`` is the integer 1, ``1r3 * 0.5`` a float, ``1r3 + 1`` the
rational 4r3. So the arithmetic functions of slpy.logic.arith work on rationals as
they are, and the hot paths on integers and floats do not change. A Rational is
atomic, a number, ordered by value with the others (an equal float first), and
written ``NrD`` (``-1r3``).
"""
from __future__ import annotations

from fractions import Fraction

__all__ = ["Rational", "rational", "is_number", "is_rational"]


def rational(n, d=1):
    """The Prolog number n/d (integers): an int when d divides n, else a Rational."""
    q = Fraction(n, d)
    return q.numerator if q.denominator == 1 else Rational(q)


def _norm(r):
    """An arithmetic result: Fraction -> int or Rational; floats and ints as they are."""
    if type(r) is Fraction or type(r) is Rational:
        return r.numerator if r.denominator == 1 else Rational(r)
    return r


def _wrap(name):
    base = getattr(Fraction, name)

    def op(self, *other):
        return _norm(base(self, *other))
    op.__name__ = name
    return op


class Rational(Fraction):
    """A rational number that is not an integer (see the module docstring)."""
    __slots__ = ()

    def __str__(self):
        return f"{self.numerator}r{self.denominator}"

    def __repr__(self):
        return f"Rational({self.numerator}, {self.denominator})"

    def __reduce__(self):
        return (Rational, (self.numerator, self.denominator))

    for _name in ("__add__", "__radd__", "__sub__", "__rsub__", "__mul__", "__rmul__",
                  "__truediv__", "__rtruediv__", "__pow__", "__rpow__", "__neg__",
                  "__pos__", "__abs__", "__mod__", "__rmod__"):
        locals()[_name] = _wrap(_name)
    del _name

    # SWI-Prolog 9.0 compares a rational with a float as floats: 1r3 =:= 0.3333333333333333
    # (Fraction would compare exactly); a float on either side ends up here
    def __eq__(self, other):
        if type(other) is float:
            return float(self) == other
        return Fraction.__eq__(self, other)

    def __lt__(self, other):
        if type(other) is float:
            return float(self) < other
        return Fraction.__lt__(self, other)

    def __le__(self, other):
        if type(other) is float:
            return float(self) <= other
        return Fraction.__le__(self, other)

    def __gt__(self, other):
        if type(other) is float:
            return float(self) > other
        return Fraction.__gt__(self, other)

    def __ge__(self, other):
        if type(other) is float:
            return float(self) >= other
        return Fraction.__ge__(self, other)

    __hash__ = Fraction.__hash__


def is_rational(x) -> bool:
    """An integer or a Rational (SWI's rational/1)."""
    return type(x) is int or type(x) is Rational


def is_number(x) -> bool:
    t = type(x)
    return t is int or t is float or t is Rational
