"""The checks every arithmetic result passes, as SWI-Prolog makes them with its default
flags: integers stay below a size limit (and a long computation on huge ones stops at
the query's time limit), floats do not overflow or become undefined from finite
inputs, and float-to-integer conversions refuse inf and nan.
"""
from __future__ import annotations

import math
import time

from ..terms.errors import evaluation_error, resource_error, type_error
from ..terms.term import PrologError

__all__ = ["MAX_INT_BITS", "DEADLINE", "need_int", "fcheck", "to_float",
           "check_bits", "float_to_int", "round_half_away", "round_iso"]

# Integers are unbounded; refuse results above this many bits instead of hanging: on
# CPython a product of two such numbers takes some 50 ms, printing one about a second.
MAX_INT_BITS = 1 << 20
# Above this many bits an operation checks the running query's time limit, which the
# engine keeps in DEADLINE (a time.monotonic() value, or None): one long computation
# on huge integers cannot outlast --timeout.
_SLOW_BITS = 1 << 16
DEADLINE = [None]

_INF = math.inf


def need_int(x):
    if type(x) is not int:
        raise type_error("integer", x)
    return x


def fcheck(r, *inputs):
    """Reject inf/nan results that did not come from inf/nan inputs (SWI's flags = error)."""
    if r - r == 0.0:            # finite: the common case costs one subtraction
        return r
    if r != r:
        if any(type(x) is float and x != x for x in inputs):
            return r
        raise evaluation_error("undefined")
    if any(type(x) is float and math.isinf(x) for x in inputs):
        return r
    raise evaluation_error("float_overflow")


def to_float(x):
    if type(x) is float:
        return x
    try:
        return float(x)
    except OverflowError:
        raise evaluation_error("float_overflow") from None


def check_bits(bits):
    if bits > MAX_INT_BITS:
        raise PrologError(resource_error("memory").term, f"Resource error: an integer of "
                                                         f"more than {MAX_INT_BITS} bits")
    if bits > _SLOW_BITS:
        d = DEADLINE[0]
        if d is not None and time.monotonic() > d:
            raise PrologError(resource_error("time").term,
                              "Resource error: time limit exceeded (integer arithmetic)")


def float_to_int(f, how):
    if f != f or f in (_INF, -_INF):
        raise evaluation_error("undefined")
    return how(f)


def round_half_away(f):
    if f >= 0:
        r = math.floor(f)
        return r + 1 if f - r >= 0.5 else r   # f - floor(f) is exact for doubles
    r = math.ceil(f)
    return r - 1 if r - f >= 0.5 else r


def round_iso(f):
    r = math.floor(f)
    return r + 1 if f - r >= 0.5 else r
