"""ISO / SWI-Prolog arithmetic over slpy terms.

``eval_arith(t)`` evaluates an arithmetic expression to a Python int or float.
Evaluable functors live in one dict from (name, arity) to a Python function, so
adding one (``register_function``) is a dict insertion; the engine adds
``random/1`` and friends that way, with its own generator.

Semantics follow SWI-Prolog 9 with the default flags (``iso`` false,
``prefer_rationals`` false, ``float_overflow``/``float_zero_div``/``float_undefined``
= error): ``7/2`` is 3.5, ``4/2`` is 2, ``2**3`` is 8, ``2** -1`` is 0.5, ``2^ -1`` is
an error. ``set_iso_mode(True)`` switches ``/`` and ``**`` to the ISO float versions
and ``round/1`` to ISO's floor(X+1/2).

Evaluation is recursive for shallow expressions (fast) and switches to an explicit
stack below a fixed depth, so a 100,000-deep sum does not hit the recursion limit.
"""
from __future__ import annotations

import math
import sys
import time

from ..terms.term import Atom, Struct, Var, NIL, PrologError, indicator
from ..terms.errors import type_error, instantiation_error, evaluation_error, resource_error

__all__ = [
    "eval_arith", "register_function", "set_iso_mode", "compare_num",
    "num_eq", "num_ne", "num_lt", "num_gt", "num_le", "num_ge", "FUNCTIONS",
    "CONSTANTS",
]

# '/' on two integers: False = SWI (exact quotient stays an integer), True = ISO (float).
ISO_DIV = False
# '**' on two integers: False = SWI 9 (integer when the exponent is >= 0), True = ISO.
ISO_POW = False
# round/1: False = half away from zero (C round, SWI), True = ISO floor(X + 1/2).
ISO_ROUND = False

# Integers are unbounded; refuse results above this many bits instead of hanging: on
# CPython a product of two such numbers takes some 50 ms, printing one about a second.
MAX_INT_BITS = 1 << 20
# Above this many bits an operation checks the running query's time limit, which the
# engine keeps in DEADLINE (a time.monotonic() value, or None): one long computation
# on huge integers cannot outlast --timeout.
_SLOW_BITS = 1 << 16
DEADLINE = [None]

_INF = math.inf


def set_iso_mode(on: bool) -> None:
    """Follow the ISO standard (set_prolog_flag(iso, true)) instead of SWI defaults."""
    global ISO_DIV, ISO_POW, ISO_ROUND
    ISO_DIV = ISO_POW = ISO_ROUND = bool(on)


# -- helpers -----------------------------------------------------------------------

def _need_int(x):
    if type(x) is not int:
        raise type_error("integer", x)
    return x


def _fcheck(r, *inputs):
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


def _to_float(x):
    if type(x) is float:
        return x
    try:
        return float(x)
    except OverflowError:
        raise evaluation_error("float_overflow") from None


def _check_bits(bits):
    if bits > MAX_INT_BITS:
        raise PrologError(resource_error("memory").term, f"Resource error: an integer of "
                                                         f"more than {MAX_INT_BITS} bits")
    if bits > _SLOW_BITS:
        d = DEADLINE[0]
        if d is not None and time.monotonic() > d:
            raise PrologError(resource_error("time").term,
                              "Resource error: time limit exceeded (integer arithmetic)")


def _float_to_int(f, how):
    if f != f or f in (_INF, -_INF):
        raise evaluation_error("undefined")
    return how(f)


def _round_half_away(f):
    if f >= 0:
        r = math.floor(f)
        return r + 1 if f - r >= 0.5 else r   # f - floor(f) is exact for doubles
    r = math.ceil(f)
    return r - 1 if r - f >= 0.5 else r


def _round_iso(f):
    r = math.floor(f)
    return r + 1 if f - r >= 0.5 else r


# -- the evaluable functions ---------------------------------------------------------

def _add(a, b):
    r = a + b
    return _fcheck(r, a, b) if type(r) is float else r


def _sub(a, b):
    r = a - b
    return _fcheck(r, a, b) if type(r) is float else r


def _mul(a, b):
    if type(a) is int and type(b) is int:
        _check_bits(a.bit_length() + b.bit_length())
        return a * b
    r = a * b
    return _fcheck(r, a, b) if type(r) is float else r


def _div(a, b):
    if type(a) is int and type(b) is int:
        if b == 0:
            raise evaluation_error("undefined" if a == 0 else "zero_divisor")
        if not ISO_DIV and a % b == 0:
            return a // b
        return _fcheck(a / b)     # int/int true division is correctly rounded
    if b == 0:
        if a == 0 or a != a:
            raise evaluation_error("undefined")
        raise evaluation_error("zero_divisor")
    return _fcheck(a / b, a, b)


def _intdiv(a, b):
    _need_int(a)
    _need_int(b)
    if b == 0:
        # 0//0 has no sensible value: iso.tst's preferred 'undefined'
        raise evaluation_error("undefined" if a == 0 else "zero_divisor")
    q = abs(a) // abs(b)
    return -q if (a < 0) != (b < 0) else q


def _mod(a, b):
    _need_int(a)
    _need_int(b)
    if b == 0:
        raise evaluation_error("zero_divisor")
    return a % b                 # Python's % has the sign of the divisor, as mod/2


def _rem(a, b):
    _need_int(a)
    _need_int(b)
    if b == 0:
        raise evaluation_error("zero_divisor")
    r = abs(a) % abs(b)
    return -r if a < 0 else r


def _floordiv(a, b):
    _need_int(a)
    _need_int(b)
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
    return b if b < a else a


def _max(a, b):
    if a != a or b != b:
        return math.nan
    return b if b > a else a


def _int_pow(a, b):
    if b < 0:
        raise AssertionError("negative exponent")
    if a in (0, 1) or b == 0:
        return 1 if b == 0 else a
    if a == -1:
        return 1 if b % 2 == 0 else -1
    _check_bits(b * a.bit_length())
    return a ** b


def _float_pow(a, b):
    a = _to_float(a)
    fb = _to_float(b)
    if a == 0.0 and fb < 0:
        raise evaluation_error("zero_divisor")
    try:
        return _fcheck(math.pow(a, fb), a, fb)
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
    a = _to_float(a)
    if a < 0:
        raise evaluation_error("undefined")
    return math.sqrt(a)


def _log(a):
    a = _to_float(a)
    if a <= 0:
        # SWI: log(0) and log of a negative number are both 'undefined'
        raise evaluation_error("undefined")
    return math.log(a)


def _log2(a):
    a = _to_float(a)
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
    return math.exp(_to_float(a))


def _atan2(y, x):
    if y == 0 and x == 0:
        raise evaluation_error("undefined")
    return math.atan2(_to_float(y), _to_float(x))


def _float_fn(fn):
    """Wrap a math function of one float argument (domain errors become 'undefined')."""
    def f(a):
        return fn(_to_float(a))
    f.__name__ = fn.__name__
    return f


def _cot(a):
    t = math.tan(_to_float(a))
    if t == 0.0:
        raise evaluation_error("zero_divisor")
    return 1.0 / t


def _acot(a):
    a = _to_float(a)
    return math.pi / 2 if a == 0 else math.atan(1.0 / a)


def _float(a):
    return _to_float(a)


def _integer(a):
    if type(a) is int:
        return a
    return _float_to_int(a, _round_half_away)


def _round(a):
    if type(a) is int:
        return a
    return _float_to_int(a, _round_iso if ISO_ROUND else _round_half_away)


def _truncate(a):
    return a if type(a) is int else _float_to_int(a, math.trunc)


def _floor(a):
    return a if type(a) is int else _float_to_int(a, math.floor)


def _ceiling(a):
    return a if type(a) is int else _float_to_int(a, math.ceil)


def _fint_part(a):
    a = _to_float(a)
    return math.copysign(float(math.trunc(a)), a) if math.isfinite(a) else a


def _ffrac_part(a):
    a = _to_float(a)
    return a - math.trunc(a) if math.isfinite(a) else math.nan


def _shift_left(a, b):
    _need_int(a)
    _need_int(b)
    if b < 0:
        return a >> -b
    _check_bits(a.bit_length() + b)
    return a << b


def _shift_right(a, b):
    _need_int(a)
    _need_int(b)
    if b < 0:
        _check_bits(a.bit_length() - b)
        return a << -b
    return a >> b


def _bitand(a, b):
    return _need_int(a) & _need_int(b)


def _bitor(a, b):
    return _need_int(a) | _need_int(b)


def _xor(a, b):
    return _need_int(a) ^ _need_int(b)


def _bitnot(a):
    return ~_need_int(a)


def _positive_int(a):
    _need_int(a)
    if a <= 0:
        raise type_error("not_less_than_one", a)
    return a


def _msb(a):
    return _positive_int(a).bit_length() - 1


def _lsb(a):
    a = _positive_int(a)
    return (a & -a).bit_length() - 1


def _popcount(a):
    a = _need_int(a)
    if a < 0:
        raise type_error("not_less_than_zero", a)
    return bin(a).count("1")


def _gcd(a, b):
    return math.gcd(_need_int(a), _need_int(b))


def _lcm(a, b):
    return math.lcm(_need_int(a), _need_int(b))


def _copysign(a, b):
    return math.copysign(_to_float(a), _to_float(b))


def _nexttoward(a, b):
    return math.nextafter(_to_float(a), _to_float(b))


def _trig_undefined(fn):
    def f(a):
        a = _to_float(a)
        try:
            return fn(a)
        except ValueError:
            raise evaluation_error("undefined") from None
    f.__name__ = fn.__name__
    return f


def _numerator(a):
    return _need_int(a)


def _denominator(a):
    _need_int(a)
    return 1


def _cputime():
    return time.process_time()


def _realtime():
    return int(time.time())


def _powm(b, e, m):
    _need_int(b)
    _need_int(e)
    _need_int(m)
    if m == 0:
        raise evaluation_error("zero_divisor")
    return pow(b, e, m)


FUNCTIONS: dict[tuple[str, int], object] = {
    ("+", 2): _add, ("-", 2): _sub, ("*", 2): _mul, ("/", 2): _div,
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


# -- the evaluator ---------------------------------------------------------------------

_RECURSION_LIMIT = 200      # deeper subexpressions are evaluated with an explicit stack


def _leaf(t):
    """The value of a non-compound, dereferenced term."""
    tt = type(t)
    if tt is Var:
        raise instantiation_error()
    if tt is Atom:
        c = CONSTANTS.get(t.name)
        if c is None:
            raise type_error("evaluable", indicator(t.name, 0))
        return c if type(c) is int or type(c) is float else c()
    if tt is str:
        # SWI: a one-character string evaluates to its code ("a" + 0 =:= 97)
        if len(t) == 1:
            return ord(t)
        raise type_error("evaluable", t)
    raise type_error("evaluable", t)


def _list1(x):
    """Marks "[X]", which evaluates X; the evaluators check for it by identity."""
    return x


def _function(t):
    """The Python function for compound t (_list1 for a one-element list)."""
    args = t.args
    fn = FUNCTIONS.get((t.name, len(args)))
    if fn is not None:
        return fn
    if t.name == "." and len(args) == 2:
        # "[X]" evaluates X (a code list of one character, as in ISO's "a")
        tail = args[1]
        while type(tail) is Var and tail.ref is not None:
            tail = tail.ref
        if tail is NIL:
            return _list1
        raise type_error("evaluable", indicator(".", 2))
    raise type_error("evaluable", indicator(t.name, len(args)))


def _ev(t, depth):
    while type(t) is Var:
        r = t.ref
        if r is None:
            raise instantiation_error()
        t = r
    tt = type(t)
    if tt is int or tt is float:
        return t
    if tt is not Struct:
        return _leaf(t)
    fn = _function(t)
    if depth > _RECURSION_LIMIT:
        return _ev_stack(t)
    args = t.args
    if fn is _list1:
        return _ev(args[0], depth + 1)
    n = len(args)
    if n == 2:
        # numbers in argument position are the common case: skip the call for them
        a = args[0]
        while type(a) is Var and a.ref is not None:
            a = a.ref
        if type(a) is not int and type(a) is not float:
            a = _ev(a, depth + 1)
        b = args[1]
        while type(b) is Var and b.ref is not None:
            b = b.ref
        if type(b) is not int and type(b) is not float:
            b = _ev(b, depth + 1)
        return fn(a, b)
    if n == 1:
        a = args[0]
        while type(a) is Var and a.ref is not None:
            a = a.ref
        if type(a) is not int and type(a) is not float:
            a = _ev(a, depth + 1)
        return fn(a)
    return fn(*[_ev(a, depth + 1) for a in args])


def _ev_stack(t):
    """Post-order evaluation with an explicit stack; (fn, n) tuples mark applications."""
    vals = []
    work = [t]
    push = work.append
    while work:
        x = work.pop()
        if type(x) is tuple:
            fn, n = x
            if n == 1:
                vals[-1] = fn(vals[-1])
            elif n == 2:
                b = vals.pop()
                vals[-1] = fn(vals[-1], b)
            else:
                args = vals[-n:]
                del vals[-n:]
                vals.append(fn(*args))
            continue
        while type(x) is Var:
            r = x.ref
            if r is None:
                raise instantiation_error()
            x = r
        tx = type(x)
        if tx is int or tx is float:
            vals.append(x)
        elif tx is Struct:
            fn = _function(x)
            args = x.args
            if fn is _list1:
                push(args[0])
                continue
            push((fn, len(args)))
            for i in range(len(args) - 1, -1, -1):   # leftmost argument evaluated first
                push(args[i])
        else:
            vals.append(_leaf(x))
    return vals[0]


def eval_arith(t):
    """Evaluate the arithmetic expression t (an int or a float), raising ISO errors."""
    while type(t) is Var:
        r = t.ref
        if r is None:
            raise instantiation_error()
        t = r
    tt = type(t)
    if tt is int or tt is float:
        return t
    if tt is Struct:
        args = t.args
        if len(args) == 2:
            # fast path: integer + - * of two numbers, the bulk of is/2 calls
            a = args[0]
            while type(a) is Var and a.ref is not None:
                a = a.ref
            b = args[1]
            while type(b) is Var and b.ref is not None:
                b = b.ref
            if type(a) is int and type(b) is int:
                n = t.name
                if n == "+":
                    return a + b
                if n == "-":
                    return a - b
                if n == "*":
                    return _mul(a, b)
    try:
        return _ev(t, 0)
    except PrologError:
        raise
    except ZeroDivisionError:
        raise evaluation_error("zero_divisor") from None
    except OverflowError:
        raise evaluation_error("float_overflow") from None
    except ValueError:
        raise evaluation_error("undefined") from None
    except MemoryError:
        raise resource_error("memory") from None


# -- comparison ------------------------------------------------------------------------

def num_eq(a, b) -> bool:
    return eval_arith(a) == eval_arith(b)


def num_ne(a, b) -> bool:
    return eval_arith(a) != eval_arith(b)


def num_lt(a, b) -> bool:
    return eval_arith(a) < eval_arith(b)


def num_gt(a, b) -> bool:
    return eval_arith(a) > eval_arith(b)


def num_le(a, b) -> bool:
    return eval_arith(a) <= eval_arith(b)


def num_ge(a, b) -> bool:
    return eval_arith(a) >= eval_arith(b)


_COMPARE = {"=:=": num_eq, "=\\=": num_ne, "<": num_lt, ">": num_gt,
            "=<": num_le, ">=": num_ge}


def compare_num(op: str, a, b) -> bool:
    """Evaluate a and b and compare them with the Prolog operator op ('<', '=:=', ...).

    Mixed int/float comparison is exact (Python semantics), as in SWI-Prolog.
    """
    return _COMPARE[op](a, b)
