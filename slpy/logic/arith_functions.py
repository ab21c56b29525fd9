"""The evaluable functions of ISO / SWI-Prolog arithmetic, in one table.

``FUNCTIONS`` maps (name, arity) to a Python function of the evaluated arguments and
``CONSTANTS`` maps an evaluable atom to a number or a function of no arguments;
``register_function`` adds to them (the engine adds ``random/1`` and friends that way).
The evaluator that walks an expression is in arith.py, the checks on results in
arith_checks.py.

``set_iso_mode(True)`` switches ``/`` and ``**`` to the ISO float versions and
``round/1`` to ISO's floor(X+1/2).
"""
from __future__ import annotations

import math
import sys
import time

from ..terms.errors import evaluation_error, type_error
from .arith_checks import (check_bits, fcheck, float_to_int, need_int, round_half_away,
                           round_iso, to_float)

__all__ = ["FUNCTIONS", "CONSTANTS", "register_function", "set_iso_mode", "mul"]


# '/' on two integers: False = SWI (exact quotient stays an integer), True = ISO (float).
ISO_DIV = False
# '**' on two integers: False = SWI 9 (integer when the exponent is >= 0), True = ISO.
ISO_POW = False
# round/1: False = half away from zero (C round, SWI), True = ISO floor(X + 1/2).
ISO_ROUND = False


def set_iso_mode(on: bool) -> None:
    """Follow the ISO standard (set_prolog_flag(iso, true)) instead of SWI defaults."""
    global ISO_DIV, ISO_POW, ISO_ROUND
    ISO_DIV = ISO_POW = ISO_ROUND = bool(on)


# -- the evaluable functions ---------------------------------------------------------

def _add(a, b):
    r = a + b
    return fcheck(r, a, b) if type(r) is float else r


def _sub(a, b):
    r = a - b
    return fcheck(r, a, b) if type(r) is float else r


def mul(a, b):
    if type(a) is int and type(b) is int:
        check_bits(a.bit_length() + b.bit_length())
        return a * b
    r = a * b
    return fcheck(r, a, b) if type(r) is float else r


def _div(a, b):
    if type(a) is int and type(b) is int:
        if b == 0:
            raise evaluation_error("undefined" if a == 0 else "zero_divisor")
        if not ISO_DIV and a % b == 0:
            return a // b
        return fcheck(a / b)     # int/int true division is correctly rounded
    if b == 0:
        if a == 0 or a != a:
            raise evaluation_error("undefined")
        raise evaluation_error("zero_divisor")
    return fcheck(a / b, a, b)


def _intdiv(a, b):
    need_int(a)
    need_int(b)
    if b == 0:
        # 0//0 has no sensible value: iso.tst's preferred 'undefined'
        raise evaluation_error("undefined" if a == 0 else "zero_divisor")
    q = abs(a) // abs(b)
    return -q if (a < 0) != (b < 0) else q


def _mod(a, b):
    need_int(a)
    need_int(b)
    if b == 0:
        raise evaluation_error("zero_divisor")
    return a % b                 # Python's % has the sign of the divisor, as mod/2


def _rem(a, b):
    need_int(a)
    need_int(b)
    if b == 0:
        raise evaluation_error("zero_divisor")
    r = abs(a) % abs(b)
    return -r if a < 0 else r


def _floordiv(a, b):
    need_int(a)
    need_int(b)
    if b == 0:
        raise evaluation_error("zero_divisor")
    return a // b


def _neg(a):
    return -a


def _pos(a):
    return a


def _abs(a):
    return abs(a)


def _sign(a):
    if type(a) is int:
        return (a > 0) - (a < 0)
    if a != a:
        return a
    return math.copysign(1.0, a) if a != 0 else a


def _min(a, b):
    if a != a or b != b:
        return math.nan
    if b < a or (b == a and type(b) is float):   # equal values: SWI gives the float
        return b
    return a


def _max(a, b):
    if a != a or b != b:
        return math.nan
    if b > a or (b == a and type(b) is float):
        return b
    return a


def _int_pow(a, b):
    if b < 0:
        raise AssertionError("negative exponent")
    if a in (0, 1) or b == 0:
        return 1 if b == 0 else a
    if a == -1:
        return 1 if b % 2 == 0 else -1
    check_bits(b * a.bit_length())
    return a ** b


def _float_pow(a, b):
    a = to_float(a)
    fb = to_float(b)
    if a == 0.0 and fb < 0:
        raise evaluation_error("zero_divisor")
    try:
        return fcheck(math.pow(a, fb), a, fb)
    except ValueError:            # negative base, non-integral exponent
        raise evaluation_error("undefined") from None
    except OverflowError:
        raise evaluation_error("float_overflow") from None


def _power(a, b):
    """'**'/2."""
    if type(a) is int and type(b) is int:
        if not ISO_POW:
            if b >= 0:
                return _int_pow(a, b)
            if a == 0:
                raise evaluation_error("zero_divisor")
        return _float_pow(a, b)
    if ISO_POW and a < 0 and type(b) is float:
        # ISO: ** is defined through exp(b*log(a)), undefined for a < 0
        raise evaluation_error("undefined")
    return _float_pow(a, b)


def _caret(a, b):
    """'^'/2: integer power on integers, float power otherwise."""
    if type(a) is int and type(b) is int:
        if b >= 0:
            return _int_pow(a, b)
        if a == 1:
            return 1
        if a == -1:
            return 1 if b % 2 == 0 else -1
        if a == 0:
            raise evaluation_error("undefined")
        # ISO (Cor.2 as iso.tst reads it): the result would have to be a float
        raise type_error("float", a)
    return _float_pow(a, b)


def _sqrt(a):
    a = to_float(a)
    if a < 0:
        raise evaluation_error("undefined")
    return math.sqrt(a)


def _log(a):
    a = to_float(a)
    if a <= 0:
        # SWI: log(0) and log of a negative number are both 'undefined'
        raise evaluation_error("undefined")
    return math.log(a)


def _log2(a):
    a = to_float(a)
    if a <= 0:
        raise evaluation_error("undefined")
    return math.log2(a)


def _log_base(b, x):
    lb = _log(b)
    lx = _log(x)
    if lb == 0.0:
        raise evaluation_error("zero_divisor")
    return lx / lb


def _exp(a):
    return math.exp(to_float(a))


def _atan2(y, x):
    if y == 0 and x == 0:
        raise evaluation_error("undefined")
    return math.atan2(to_float(y), to_float(x))


def _float_fn(fn):
    """Wrap a math function of one float argument (domain errors become 'undefined')."""
    def f(a):
        return fn(to_float(a))
    f.__name__ = fn.__name__
    return f


def _cot(a):
    t = math.tan(to_float(a))
    if t == 0.0:
        raise evaluation_error("zero_divisor")
    return 1.0 / t


def _acot(a):
    a = to_float(a)
    return math.pi / 2 if a == 0 else math.atan(1.0 / a)


def _float(a):
    return to_float(a)


def _integer(a):
    if type(a) is int:
        return a
    return float_to_int(a, round_half_away)


def _round(a):
    if type(a) is int:
        return a
    return float_to_int(a, round_iso if ISO_ROUND else round_half_away)


def _truncate(a):
    return a if type(a) is int else float_to_int(a, math.trunc)


def _floor(a):
    return a if type(a) is int else float_to_int(a, math.floor)


def _ceiling(a):
    return a if type(a) is int else float_to_int(a, math.ceil)


def _fint_part(a):
    a = to_float(a)
    return math.copysign(float(math.trunc(a)), a) if math.isfinite(a) else a


def _ffrac_part(a):
    a = to_float(a)
    return a - math.trunc(a) if math.isfinite(a) else math.nan


def _shift_left(a, b):
    need_int(a)
    need_int(b)
    if b < 0:
        return a >> -b
    check_bits(a.bit_length() + b)
    return a << b


def _shift_right(a, b):
    need_int(a)
    need_int(b)
    if b < 0:
        check_bits(a.bit_length() - b)
        return a << -b
    return a >> b


def _bitand(a, b):
    return need_int(a) & need_int(b)


def _bitor(a, b):
    return need_int(a) | need_int(b)


def _xor(a, b):
    return need_int(a) ^ need_int(b)


def _bitnot(a):
    return ~need_int(a)


def _positive_int(a):
    need_int(a)
    if a <= 0:
        raise type_error("not_less_than_one", a)
    return a


def _msb(a):
    return _positive_int(a).bit_length() - 1


def _lsb(a):
    a = _positive_int(a)
    return (a & -a).bit_length() - 1


def _popcount(a):
    a = need_int(a)
    if a < 0:
        raise type_error("not_less_than_zero", a)
    return bin(a).count("1")


def _gcd(a, b):
    return math.gcd(need_int(a), need_int(b))


def _lcm(a, b):
    return math.lcm(need_int(a), need_int(b))


def _copysign(a, b):
    return math.copysign(to_float(a), to_float(b))


def _nexttoward(a, b):
    return math.nextafter(to_float(a), to_float(b))


def _trig_undefined(fn):
    def f(a):
        a = to_float(a)
        try:
            return fn(a)
        except ValueError:
            raise evaluation_error("undefined") from None
    f.__name__ = fn.__name__
    return f


def _numerator(a):
    return need_int(a)


def _denominator(a):
    need_int(a)
    return 1


def _cputime():
    return time.process_time()


def _realtime():
    return int(time.time())


def _powm(b, e, m):
    need_int(b)
    need_int(e)
    need_int(m)
    if m == 0:
        raise evaluation_error("zero_divisor")
    return pow(b, e, m)


FUNCTIONS: dict[tuple[str, int], object] = {
    ("+", 2): _add, ("-", 2): _sub, ("*", 2): mul, ("/", 2): _div,
    ("//", 2): _intdiv, ("mod", 2): _mod, ("rem", 2): _rem, ("div", 2): _floordiv,
    ("-", 1): _neg, ("+", 1): _pos, ("abs", 1): _abs, ("sign", 1): _sign,
    ("min", 2): _min, ("max", 2): _max,
    ("**", 2): _power, ("^", 2): _caret, ("exp", 2): _power,   # exp/2: SICStus power
    ("sqrt", 1): _sqrt, ("log", 1): _log, ("log2", 1): _log2, ("log", 2): _log_base,
    ("exp", 1): _exp,
    ("sin", 1): _trig_undefined(math.sin), ("cos", 1): _trig_undefined(math.cos),
    ("tan", 1): _trig_undefined(math.tan), ("asin", 1): _trig_undefined(math.asin),
    ("acos", 1): _trig_undefined(math.acos), ("atan", 1): _float_fn(math.atan),
    ("atan", 2): _atan2, ("atan2", 2): _atan2, ("cot", 1): _cot, ("acot", 1): _acot,
    ("sinh", 1): _float_fn(math.sinh), ("cosh", 1): _float_fn(math.cosh),
    ("tanh", 1): _float_fn(math.tanh), ("asinh", 1): _float_fn(math.asinh),
    ("acosh", 1): _trig_undefined(math.acosh), ("atanh", 1): _trig_undefined(math.atanh),
    ("erf", 1): _float_fn(math.erf), ("erfc", 1): _float_fn(math.erfc),
    ("lgamma", 1): _trig_undefined(math.lgamma),
    ("float", 1): _float, ("integer", 1): _integer,
    ("float_integer_part", 1): _fint_part, ("float_fractional_part", 1): _ffrac_part,
    ("truncate", 1): _truncate, ("trunc", 1): _truncate, ("round", 1): _round,
    ("ceiling", 1): _ceiling, ("floor", 1): _floor,
    (">>", 2): _shift_right, ("<<", 2): _shift_left, ("/\\", 2): _bitand,
    ("\\/", 2): _bitor, ("xor", 2): _xor, ("\\", 1): _bitnot,
    ("msb", 1): _msb, ("lsb", 1): _lsb, ("popcount", 1): _popcount,
    ("gcd", 2): _gcd, ("lcm", 2): _lcm, ("copysign", 2): _copysign,
    ("nexttoward", 2): _nexttoward, ("numerator", 1): _numerator,
    ("denominator", 1): _denominator, ("powm", 3): _powm,
}

# Evaluable atoms: a number, or a function of no arguments (clock readings).
CONSTANTS: dict[str, object] = {
    "pi": math.pi, "e": math.e, "inf": math.inf, "infinite": math.inf,
    "nan": math.nan, "epsilon": sys.float_info.epsilon,
    "max_tagged_integer": (1 << 60) - 1, "min_tagged_integer": -(1 << 60),
    "cputime": _cputime, "realtime": _realtime,
}


def register_function(name: str, arity: int, fn) -> None:
    """Add an evaluable functor; arity 0 registers an atom (fn is called with no args)."""
    if arity == 0:
        CONSTANTS[name] = fn
    else:
        FUNCTIONS[(name, arity)] = fn
