"""The aggregation of library(aggregate): templates and the operations on the list of
solutions, as SWI-Prolog defines them. aggregate_all/3,4 and aggregate/3,4 (in Prolog,
in the core library and lib/aggregate.pl) collect the solutions with findall/3,
bagof/3 or setof/3 and call these two.

A template is ``count``, ``sum(E)``, ``max(E)``, ``min(E)``, ``max(E, W)``,
``min(E, W)``, ``bag(X)``, ``set(X)``, or any other compound whose arguments are
templates (``r(count, max(X))`` answers ``r(N, Max)``). Expressions E are evaluated
as by is/2; max and min of no solutions fail.
"""
from __future__ import annotations

from . import det
from ..arith_functions import FUNCTIONS
from ..arith import eval_arith
from ...terms.term import Var, Atom, Struct, deref, atom, list_items, mklist
from ...terms.errors import instantiation_error, type_error, domain_error
from .sorting import sorted_terms

_SIMPLE = {"sum": 1, "max": 1, "min": 1, "bag": 1, "set": 1}
_ADD = FUNCTIONS[("+", 2)]
_MAX = FUNCTIONS[("max", 2)]
_MIN = FUNCTIONS[("min", 2)]
_COUNT = atom("count")


def _simple(t):
    """(pattern, operation) for a template that is one aggregation, else None."""
    if t is _COUNT:
        return 1, "count"
    if type(t) is Struct:
        n = len(t.args)
        if n == 1 and t.name in _SIMPLE:
            return t.args[0], t.name
        if n == 2 and t.name in ("max", "min"):
            return Struct("-", t.args), t.name + "_witness"
    return None


def _bad_template(t):
    if type(t) is Atom or type(t) is Struct:
        return domain_error("aggregate_template", t)
    return type_error("aggregate_template", t)


@det("$aggr_template", 3)
def bi_aggr_template(eng, template, pattern, spec):
    """'$aggr_template'(+Template, -Pattern, -Spec): what findall/bagof collects and
    how the list is then aggregated."""
    t = deref(template)
    if type(t) is Var:
        raise instantiation_error()
    s = _simple(t)
    if s is not None:
        return eng.unify(pattern, s[0]) and eng.unify(spec, atom(s[1]))
    if type(t) is not Struct:
        raise _bad_template(t)
    pats, ops = [], []
    for a in t.args:
        a = deref(a)
        if type(a) is Var:
            raise instantiation_error()
        s = _simple(a)
        if s is None:
            raise _bad_template(a)
        pats.append(s[0])
        ops.append(atom(s[1]))
    return (eng.unify(pattern, Struct(t.name, tuple(pats)))
            and eng.unify(spec, Struct("$term", (atom(t.name), mklist(ops)))))


def _aggregate(op, items):
    """The aggregate of the solutions (a Python list of terms), or None (fail)."""
    if op == "count":
        return len(items)
    if op == "bag":
        return mklist(items)
    if op == "set":
        return mklist(sorted_terms([deref(x) for x in items], dedupe=True))
    if op == "sum":
        total = 0
        for x in items:
            total = _ADD(total, eval_arith(x))
        return total
    if not items:
        return None
    if op in ("max", "min"):
        fn = _MAX if op == "max" else _MIN
        best = eval_arith(items[0])
        for x in items[1:]:
            best = fn(best, eval_arith(x))
        return best
    # max_witness / min_witness: the first solution with the extreme value
    sign = 1 if op == "max_witness" else -1
    best = witness = None
    for pair in items:
        pair = deref(pair)
        v = eval_arith(pair.args[0])
        if best is None or sign * _cmp(v, best) > 0:
            best, witness = v, pair.args[1]
    return Struct(op[:3], (best, witness))


def _cmp(a, b) -> int:
    return (a > b) - (a < b)


@det("$aggr_list", 3)
def bi_aggr_list(eng, spec, solutions, result):
    """'$aggr_list'(+Spec, +Solutions, -Result)."""
    spec = deref(spec)
    items = list_items(solutions)[0]
    if type(spec) is Atom:
        r = _aggregate(spec.name, items)
        return r is not None and eng.unify(result, r)
    name = deref(spec.args[0]).name
    ops = [deref(o).name for o in list_items(spec.args[1])[0]]
    columns = [[deref(s).args[i] for s in items] for i in range(len(ops))]
    out = []
    for op, col in zip(ops, columns):
        r = _aggregate(op, col)
        if r is None:
            return False
        out.append(r)
    return eng.unify(result, Struct(name, tuple(out)))

