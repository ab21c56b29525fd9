"""The domains of a prior's parameters: ``:- param(Name, Default, Domain).``

A domain says which values make sense, so that ``-p max_parents=-1`` is refused with
one line instead of giving a confident answer to a question nobody asked. The forms
follow the types of SWI-Prolog's ``must_be/2`` (library(error)), with intervals:

- ``integer``, ``number``, ``atom``, ``callable``, ``list``, ``boolean``, ``any``,
  ``positive_integer`` (>= 1), ``nonneg`` (an integer >= 0);
- ``integer(Low, High)``: an integer with Low =< V =< High (``inf``/``-inf``: no bound);
- ``number(Low, High)``: a finite number, or an arithmetic expression whose value is
  one (``2/3``), with Low =< V =< High; a bound ``open(B)`` leaves B out, so
  ``number(open(0), 1)`` is the interval (0, 1];
- ``oneof(List)``: one of the terms of List; ``list(D)``: a list of values of D;
  ``D1-D2``: a pair ``A-B`` with A of D1 and B of D2; ``(D1 ; D2)``: either.

:func:`parse_domain` checks a domain's form (a Prolog domain_error when it has none of
these), :func:`admits` tests a value, :func:`describe` gives the domain in words.
"""
from __future__ import annotations

import math

from ..terms.errors import domain_error
from ..terms.rational import Rational
from ..terms.term import NIL, Atom, PrologError, Struct, Var, compare, deref, list_items
from ..terms.writer import term_to_text
from .arith import eval_arith

__all__ = ["ParamError", "parse_domain", "admits", "describe", "domain_text",
           "check_value"]

_SIMPLE = {
    "any": "any term", "integer": "an integer", "number": "a number",
    "atom": "an atom", "callable": "an atom or a compound term", "list": "a list",
    "boolean": "true or false", "positive_integer": "an integer >= 1",
    "nonneg": "an integer >= 0",
}


class ParamError(ValueError):
    """A parameter value outside its declared domain (one line: the parameter, the
    value and the domain)."""


def _bound(t, integer: bool):
    """A bound of an interval: (value, open) with value a number or +-inf."""
    t = deref(t)
    is_open = False
    if type(t) is Struct and t.name == "open" and len(t.args) == 1 and not integer:
        t, is_open = deref(t.args[0]), True
    if type(t) is Atom and t.name in ("inf", "infinite"):
        return math.inf, is_open
    if type(t) is Struct and t.name == "-" and len(t.args) == 1 \
            and type(deref(t.args[0])) is Atom and deref(t.args[0]).name in ("inf",
                                                                              "infinite"):
        return -math.inf, is_open
    if type(t) is int or (not integer and type(t) in (float, Rational)):
        v = float(t) if type(t) is Rational else t
        if type(v) is float and not math.isfinite(v):
            return None
        return v, is_open
    return None


def parse_domain(t):
    """The domain term t, checked: a PrologError domain_error(param_domain, T) when it
    is not one of the forms above."""
    t = deref(t)
    bad = domain_error("param_domain", t)
    if type(t) is Atom:
        if t.name not in _SIMPLE:
            raise bad
        return t
    if type(t) is not Struct:
        raise bad
    name, args = t.name, t.args
    if name in ("integer", "number") and len(args) == 2:
        lo, hi = _bound(args[0], name == "integer"), _bound(args[1], name == "integer")
        if lo is None or hi is None or lo[0] > hi[0]:
            raise bad
        return t
    if name == "oneof" and len(args) == 1:
        _, tail = list_items(args[0])
        if tail is not NIL:
            raise bad
        return t
    if name == "list" and len(args) == 1:
        parse_domain(args[0])
        return t
    if name in ("-", ";") and len(args) == 2:
        parse_domain(args[0])
        parse_domain(args[1])
        return t
    raise bad


def _number(v):
    """The finite value of a number or an arithmetic expression, else None."""
    v = deref(v)
    if type(v) is Var:
        return None
    if type(v) not in (int, float, Rational):
        if type(v) is not Struct:
            return None
        try:
            v = eval_arith(v)
        except (PrologError, RecursionError):
            return None
    if type(v) is Rational:
        v = float(v)
    if type(v) is float and not math.isfinite(v):
        return None
    return v


def _in(v, lo, hi) -> bool:
    (a, a_open), (b, b_open) = lo, hi
    return (a < v if a_open else a <= v) and (v < b if b_open else v <= b)


def admits(domain, value) -> bool:
    """Whether `value` (a term; Python numbers are terms) is in the parsed `domain`."""
    d = deref(domain)
    v = deref(value)
    if type(d) is Atom:
        n = d.name
        if n == "any":
            return True
        if n in ("integer", "positive_integer", "nonneg"):
            return type(v) is int and (n == "integer" or v >= (1 if n[0] == "p" else 0))
        if n == "number":
            return _number(v) is not None
        if n == "atom":
            return type(v) is Atom
        if n == "callable":
            return type(v) in (Atom, Struct)
        if n == "list":
            return list_items(v)[1] is NIL
        if n == "boolean":
            return type(v) is Atom and v.name in ("true", "false")
        return False
    name, args = d.name, d.args
    if name == "integer":
        return type(v) is int and _in(v, _bound(args[0], True), _bound(args[1], True))
    if name == "number":
        x = _number(v)
        return x is not None and _in(x, _bound(args[0], False), _bound(args[1], False))
    if name == "oneof":
        return any(compare(v, x) == 0 for x in list_items(args[0])[0])
    if name == "list":
        items, tail = list_items(v)
        return tail is NIL and all(admits(args[0], x) for x in items)
    if name == "-":
        return type(v) is Struct and v.name == "-" and len(v.args) == 2 \
            and admits(args[0], v.args[0]) and admits(args[1], v.args[1])
    if name == ";":
        return admits(args[0], v) or admits(args[1], v)
    return False


def _num_text(x) -> str:
    if x == math.inf:
        return "inf"
    if x == -math.inf:
        return "-inf"
    return term_to_text(x)


def describe(domain) -> str:
    """The domain in words: ``an integer >= 0``, ``a number in (0, 1]``."""
    d = deref(domain)
    if type(d) is Atom:
        return _SIMPLE.get(d.name, d.name)
    name, args = d.name, d.args
    if name in ("integer", "number"):
        what = "an integer" if name == "integer" else "a number"
        (a, ao), (b, bo) = _bound(args[0], name == "integer"), _bound(args[1],
                                                                      name == "integer")
        if a == -math.inf and b == math.inf:
            return what
        if b == math.inf:
            return f"{what} {'>' if ao else '>='} {_num_text(a)}"
        if a == -math.inf:
            return f"{what} {'<' if bo else '=<'} {_num_text(b)}"
        if name == "integer":
            return f"{what} from {_num_text(a)} to {_num_text(b)}"
        return (f"{what} in {'(' if ao else '['}{_num_text(a)}, {_num_text(b)}"
                f"{')' if bo else ']'}")
    if name == "oneof":
        return "one of " + ", ".join(term_to_text(x, quoted=True, spacing=True)
                                     for x in list_items(args[0])[0])
    if name == "list":
        return f"a list, each element {describe(args[0])}"
    if name == "-":
        return f"a pair A-B with A {describe(args[0])} and B {describe(args[1])}"
    return f"{describe(args[0])} or {describe(args[1])}"


def domain_text(domain) -> str:
    """The domain term as the prior writes it."""
    return term_to_text(domain, quoted=True, spacing=True)


def check_value(name: str, value, domain, where: str = "") -> None:
    """Raise ParamError when `value` is not in `domain` (`where`: the prior's file)."""
    if admits(domain, value):
        return
    shown = term_to_text(value, quoted=True, spacing=True)
    src = f", {where}" if where else ""
    raise ParamError(f"{name}={shown}: expected {describe(domain)} (domain "
                     f"{domain_text(domain)}{src})")
