"""Grammar rules at run time: phrase/2,3's body translation and dcg_translate_rule/2."""
from __future__ import annotations

from . import det
from ...terms.term import Var, Struct, deref, list_items, NIL
from ...terms.errors import instantiation_error, type_error
from ...lang.dcg import dcg_body, dcg_transform


def _list_or_partial(t):
    _, tail = list_items(t)
    if type(tail) is not Var and tail is not NIL:
        raise type_error("list", deref(t))


@det("$dcg_call", 4)
def bi_dcg_call(eng, body, s0, s, goal):
    """'$dcg_call'(+Body, ?S0, ?S, -Goal): the goal phrase(Body, S0, S) runs."""
    b = deref(body)
    if type(b) is Var:
        raise instantiation_error()
    _list_or_partial(s0)
    _list_or_partial(s)
    return eng.unify(goal, dcg_body(b, s0, s))


@det("dcg_translate_rule", 2)
def bi_dcg_translate_rule(eng, rule, clause):
    r = deref(rule)
    if type(r) is Var:
        raise instantiation_error()
    if not (type(r) is Struct and r.name == "-->" and len(r.args) == 2):
        raise type_error("dcg_rule", r)
    return eng.unify(clause, dcg_transform(r))
