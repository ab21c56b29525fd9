"""Rational arithmetic, as SWI-Prolog (with GMP) has it: rdiv/2, rational/1,
rationalize/1, and numerator/1, denominator/1, sign/1, **/2 and ^/2 on rationals.

The numbers themselves are slpy.terms.rational.Rational, whose operators keep an
integral result an integer, so +, -, *, / and the rounding functions of
slpy.logic.arith need nothing more. Integer division of two integers stays as
SWI-Prolog's default (prefer_rationals false): 1/3 is a float, 1 rdiv 3 is 1r3.
Registered with arith.register_function when slpy.logic.program loads.
"""
from __future__ import annotations

import math
from fractions import Fraction

from .arith_functions import FUNCTIONS, register_function
from ..terms.errors import type_error, evaluation_error
from ..terms.rational import Rational, rational, is_rational

__all__ = ["rationalize"]


def _need_rational(x):
    if not is_rational(x):
        raise type_error("rational", x)
    return x


def _rdiv(a, b):
    _need_rational(a)
    _need_rational(b)
    if b == 0:
        raise evaluation_error("zero_divisor")
    q = Fraction(a) / Fraction(b)
    return rational(q.numerator, q.denominator)


def _exact(x):
    """rational/1: the exact value of a float as a rational."""
    if type(x) is float:
        if not math.isfinite(x):
            raise evaluation_error("undefined")
        n, d = x.as_integer_ratio()
        return rational(n, d)
    return x


def rationalize(x):
    """rationalize/1: the rational with the smallest denominator that reads back as
    the float x (the first continued-fraction convergent of x that does)."""
    if type(x) is not float:
        return x
    if not math.isfinite(x):
        raise evaluation_error("undefined")
    exact = Fraction(x)
    # convergents p/q of the continued fraction of the exact value
    p0, q0, p1, q1 = 0, 1, 1, 0
    rest = exact
    while True:
        a = math.floor(rest)
        p0, q0, p1, q1 = p1, q1, a * p1 + p0, a * q1 + q0
        if p1 / q1 == x or rest == a:
            return rational(p1, q1)
        rest = 1 / (rest - a)


def _numerator(x):
    _need_rational(x)
    return x if type(x) is int else x.numerator


def _denominator(x):
    _need_rational(x)
    return 1 if type(x) is int else x.denominator


def _on_rationals(name, arity, fn):
    """Register fn for (name, arity), falling back to the current function unless an
    argument is a Rational."""
    base = FUNCTIONS[(name, arity)]
    if arity == 1:
        def f(a):
            return fn(a) if type(a) is Rational else base(a)
    else:
        def f(a, b):
            return fn(a, b) if type(a) is Rational else base(a, b)
    register_function(name, arity, f)


def install():
    register_function("rdiv", 2, _rdiv)
    register_function("rational", 1, _exact)
    register_function("rationalize", 1, rationalize)
    register_function("numerator", 1, _numerator)
    register_function("denominator", 1, _denominator)
    _on_rationals("sign", 1, lambda a: (a > 0) - (a < 0))
    for op in ("**", "^"):
        base = FUNCTIONS[(op, 2)]
        _on_rationals(op, 2, lambda a, b, base=base: a ** b if type(b) is int else base(a, b))


install()
