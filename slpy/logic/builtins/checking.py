"""SWI-Prolog's library(error): must_be/2, is_of_type/2 and the predicates that throw
the ISO error terms (type_error/2, domain_error/2, ...).

must_be(Type, X) succeeds when X is of Type; otherwise it raises an instantiation
error when X is not instantiated enough to tell, a type error when X has the wrong
type, and a domain error when it has the right type but not a value of the domain
(between(L, H), oneof(List)). The types are SWI-Prolog's.
"""
from __future__ import annotations

from . import det
from .typecheck import skip_list
from ...terms.term import Var, Atom, Struct, deref, atom, list_items, NIL, PrologError
from ...terms.walk import is_ground, term_variables
from ...terms.errors import instantiation_error, type_error, existence_error
from ...terms.rational import is_number, is_rational


def _is_list(t):
    return list_items(t)[1] is NIL


def _chars(t):
    items, tail = list_items(t)
    return tail is NIL and all(type(x) is Atom and len(x.name) == 1
                               for x in map(deref, items))


def _codes(t):
    items, tail = list_items(t)
    return tail is NIL and all(type(x) is int and 0 <= x <= 0x10FFFF
                               for x in map(deref, items))


@det("rational", 1)
def bi_rational(eng, x):
    """rational(@X): X is an integer or a rational number (1r3)."""
    return is_rational(deref(x))


@det("rational", 3)
def bi_rational3(eng, x, n, d):
    """rational(@X, -N, -D): X is the rational N/D in lowest terms (D > 0)."""
    x = deref(x)
    if not is_rational(x):
        return False
    if type(x) is int:
        return eng.unify(n, x) and eng.unify(d, 1)
    return eng.unify(n, x.numerator) and eng.unify(d, x.denominator)


def _error(name, *args):
    return PrologError(Struct("error", (Struct(name, args), Var())))


# type name -> test of a dereferenced term
_TESTS = {
    "any": lambda x: True,
    "atom": lambda x: type(x) is Atom,
    "symbol": lambda x: type(x) is Atom,
    "atomic": lambda x: type(x) is not Var and type(x) is not Struct,
    "constant": lambda x: type(x) is not Var and type(x) is not Struct,
    "callable": lambda x: type(x) is Atom or type(x) is Struct,
    "compound": lambda x: type(x) is Struct,
    "var": lambda x: type(x) is Var,
    "nonvar": lambda x: type(x) is not Var,
    "ground": is_ground,
    "integer": lambda x: type(x) is int,
    "float": lambda x: type(x) is float,
    "number": is_number,
    "rational": is_rational,
    "string": lambda x: type(x) is str,
    "boolean": lambda x: x is atom("true") or x is atom("false"),
    "nonneg": lambda x: type(x) is int and x >= 0,
    "positive_integer": lambda x: type(x) is int and x > 0,
    "negative_integer": lambda x: type(x) is int and x < 0,
    "list": _is_list,
    "proper_list": _is_list,
    "list_or_partial_list": lambda x: type(list_items(x)[1]) is Var or _is_list(x),
    "chars": _chars,
    "codes": _codes,
    "text": lambda x: type(x) in (Atom, str) or _chars(x) or _codes(x),
    "cyclic": lambda x: False,
    "acyclic": lambda x: True,
}

# types where a partly instantiated value is an instantiation error, not a type error
_GROUND_TYPES = {"ground", "text", "string"}


def has_type(eng, typ, x) -> bool:
    typ = deref(typ)
    x = deref(x)
    if type(typ) is Var:
        raise instantiation_error()
    if type(typ) is Atom:
        test = _TESTS.get(typ.name)
        if test is None:
            raise existence_error("type", typ)
        return test(x)
    if type(typ) is Struct:
        if typ.name == "between" and len(typ.args) == 2:
            lo, hi = deref(typ.args[0]), deref(typ.args[1])
            if type(lo) is int:
                return type(x) is int and lo <= x <= hi
            return is_number(x) and lo <= x <= hi
        if typ.name == "oneof" and len(typ.args) == 1:
            return is_ground(x) and any(deref(y) == x and type(deref(y)) is type(x)
                                        for y in list_items(typ.args[0])[0])
        if typ.name == "list" and len(typ.args) == 1:
            if not _is_list(x):
                return False
            for item in list_items(x)[0]:
                must_be(eng, typ.args[0], item)
            return True
    raise existence_error("type", typ)


@det("must_be", 2)
def must_be(eng, typ, x):
    if has_type(eng, typ, x):
        return True
    typ, x = deref(typ), deref(x)
    name = typ.name
    if name in (("list", "proper_list", "chars", "codes") if type(typ) is Atom else ("list",)):
        _, tail = skip_list(x)
        if type(tail) is Var:
            raise instantiation_error()
        raise type_error("list" if name == "proper_list" else name, x)
    if name == "list_or_partial_list":
        raise type_error("list", x)
    if name == "var":
        raise _error("uninstantiation_error", x)
    if type(x) is Var:
        raise instantiation_error()
    if name in _GROUND_TYPES and term_variables(x):
        raise instantiation_error()
    if type(typ) is Struct and name == "between":
        lo = deref(typ.args[0])
        if type(lo) is int and type(x) is not int:
            raise type_error("integer", x)
        if not is_number(x):
            raise type_error("number", x)
        raise _error("domain_error", typ, x)
    if type(typ) is Struct and name == "oneof":
        if term_variables(x):
            raise instantiation_error()
        raise _error("domain_error", typ, x)
    if type(typ) is Struct:
        raise _error("type_error", typ, x)
    raise type_error(name, x)


@det("is_of_type", 2)
def is_of_type(eng, typ, x):
    return has_type(eng, typ, x)


def _thrower(name):
    def fn(eng, *args):
        raise _error(name, *args)
    return fn


for _name, _n in (("type_error", 2), ("domain_error", 2), ("existence_error", 2),
                  ("permission_error", 3), ("representation_error", 1),
                  ("resource_error", 1), ("syntax_error", 1)):
    det(_name, _n)(_thrower(_name))


@det("instantiation_error", 1)
def bi_instantiation_error(eng, _culprit):
    raise instantiation_error()

