"""Arithmetic builtins: is/2 and the six comparisons.

Each is a thin wrapper over slpy.logic.arith; the comparisons evaluate both sides
(left first, so the left side's error wins, as in ISO) and compare exactly.
"""
from __future__ import annotations

from . import det
from ..arith import eval_arith


@det("is", 2)
def bi_is(eng, result, expr):
    return eng.unify(result, eval_arith(expr))


@det("=:=", 2)
def bi_num_eq(eng, a, b):
    return eval_arith(a) == eval_arith(b)


@det("=\\=", 2)
def bi_num_ne(eng, a, b):
    return eval_arith(a) != eval_arith(b)


@det("<", 2)
def bi_num_lt(eng, a, b):
    return eval_arith(a) < eval_arith(b)


@det(">", 2)
def bi_num_gt(eng, a, b):
    return eval_arith(a) > eval_arith(b)


@det("=<", 2)
def bi_num_le(eng, a, b):
    return eval_arith(a) <= eval_arith(b)


@det(">=", 2)
def bi_num_ge(eng, a, b):
    return eval_arith(a) >= eval_arith(b)
