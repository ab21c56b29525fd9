"""ISO / SWI-Prolog arithmetic over slpy terms.

``eval_arith(t)`` evaluates an arithmetic expression to a Python int or float.
Evaluable functors live in one dict from (name, arity) to a Python function
(arith_functions.py), so adding one (``register_function``) is a dict insertion; the
engine adds ``random/1`` and friends that way, with its own generator. The checks on
results (integer size, float overflow) are in arith_checks.py.

Semantics follow SWI-Prolog 9 with the default flags (``iso`` false,
``prefer_rationals`` false, ``float_overflow``/``float_zero_div``/``float_undefined``
= error): ``7/2`` is 3.5, ``4/2`` is 2, ``2**3`` is 8, ``2** -1`` is 0.5, ``2^ -1`` is
an error. ``arith_functions.set_iso_mode(True)`` switches ``/`` and ``**`` to the ISO
float versions and ``round/1`` to ISO's floor(X+1/2).

Evaluation is recursive for shallow expressions (fast) and switches to an explicit
stack below a fixed depth, so a 100,000-deep sum does not hit the recursion limit.
"""
from __future__ import annotations

from ..terms.term import Atom, Struct, Var, NIL, PrologError, indicator
from ..terms.errors import type_error, instantiation_error, evaluation_error, resource_error
from ..terms.rational import Rational
from .arith_functions import CONSTANTS, FUNCTIONS, mul

__all__ = ["eval_arith", "compare_num", "num_eq", "num_ne", "num_lt", "num_gt", "num_le",
           "num_ge"]

_RECURSION_LIMIT = 200      # deeper subexpressions are evaluated with an explicit stack


def _leaf(t):
    """The value of a non-compound, dereferenced term."""
    tt = type(t)
    if tt is Rational:
        return t
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
                    return mul(a, b)
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
