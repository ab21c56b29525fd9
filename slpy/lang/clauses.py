"""From a read term to clause parts: head, body, SLP label and guard.

SLP clauses read with `::` and `:` at priority 200 (as the IJCAI paper's reader had
`:`), so in ``1 - 1/D :: [D] :: cart(leaf)`` the operator binds tighter than the label's
arithmetic: the reader gives ``1 - (1 / (D :: ([D] :: cart(leaf))))``. The label is
recovered by walking down the rightmost operand of the label's operators to the
`::` node and rotating it to the top: label ``1 - 1/D``, rest ``[D] :: cart(leaf)``.
"""
from __future__ import annotations

from ..terms.term import Var, Atom, Struct, deref, NIL, PrologError
from ..terms.errors import type_error, instantiation_error
from ..terms.control import is_connective

LABEL_OPS = ("::", ":")
# atoms that are arithmetic constants, so `pi : h` is a label and `lists : h` a module
_EVAL_ATOMS = {"pi", "e", "inf", "infinite", "nan", "epsilon", "max_tagged_integer",
               "random", "cputime", "realtime", "max_integer", "min_integer"}


def _rotate_label(h):
    """(label, rest) when h is `Label :: Rest` up to operator re-association, else None."""
    h = deref(h)
    if type(h) is not Struct:
        return None
    if h.name in LABEL_OPS and len(h.args) == 2:
        return h.args[0], h.args[1]
    # descend along the last argument of operator terms
    path = []
    t = h
    while type(t) is Struct and 1 <= len(t.args) <= 2 and t.name not in LABEL_OPS:
        if not _is_arith_op(t):
            return None
        path.append(t)
        t = deref(t.args[-1])
    if not (type(t) is Struct and t.name in LABEL_OPS and len(t.args) == 2):
        return None
    label_end, rest = t.args
    # rebuild the path with the `::` node replaced by its left operand
    new = label_end
    for node in reversed(path):
        new = Struct(node.name, node.args[:-1] + (new,))
    return new, rest


_ARITH_OPS = {"+", "-", "*", "/", "//", "mod", "rem", "div", "**", "^", "min", "max",
              ">>", "<<", "/\\", "\\/", "xor", "\\", "exp", "log", "sqrt", "abs"}


def _is_arith_op(t):
    return t.name in _ARITH_OPS


class ClauseParts:
    __slots__ = ("head", "body", "label", "guard")

    def __init__(self, head, body, label, guard):
        self.head = head
        self.body = body
        self.label = label
        self.guard = guard


def split_clause(term) -> ClauseParts:
    """Split a clause term into head, body, label and guard (raising ISO errors for
    heads that cannot be clauses)."""
    term = deref(term)
    if type(term) is Var:
        raise instantiation_error()
    body = None
    head = term
    if type(term) is Struct and term.name == ":-" and len(term.args) == 2:
        head, body = deref(term.args[0]), convert_body(term.args[1])
    label = guard = None
    rot = _rotate_label(head)
    if rot is not None:
        lab, rest = rot
        lab = deref(lab)
        if type(lab) is Atom and lab.name not in _EVAL_ATOMS:
            if deref(head).name == "::":
                # `abc :: coin(head)` is no module qualification: a label that cannot
                # be a number (which would otherwise be dropped without a word)
                h = deref(rest)
                if type(h) is Struct and h.name in LABEL_OPS and len(h.args) == 2:
                    h = deref(h.args[1])     # Guard :: Head
                what = f" of {h.name}/{len(h.args)}" if type(h) is Struct else ""
                raise PrologError(type_error("evaluable", Struct("/", (lab, 0))).term,
                                  f"the label {lab.name}{what} is not a number or an "
                                  f"arithmetic expression")
            head = deref(rest)  # Module:Head, modules are not supported
        else:
            label = lab
            head = deref(rest)
            if type(head) is Struct and head.name in LABEL_OPS and len(head.args) == 2:
                g = deref(head.args[0])
                if g is NIL or type(g) is Var or (type(g) is Struct and g.name == "."):
                    guard = g
                    head = deref(head.args[1])
    if type(head) is Var:
        raise instantiation_error()
    if type(head) is not Atom and type(head) is not Struct:
        raise type_error("callable", head)
    return ClauseParts(head, body, label, guard)


def convert_body(body):
    """ISO clause conversion: a variable in a goal position becomes call(V)."""
    body = deref(body)
    if type(body) is Var:
        return Struct("call", (body,))
    if is_connective(body):
        return Struct(body.name, (convert_body(body.args[0]), convert_body(body.args[1])))
    if type(body) is Struct and body.name == "\\+" and len(body.args) == 1:
        return Struct("\\+", (convert_body(body.args[0]),))
    return body
