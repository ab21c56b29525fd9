"""listing/0,1 and portray_clause/1,2: clauses written as SWI-Prolog's listing writes
them (variables A, B, ..., singletons _, bodies one goal a line, control constructs
laid out in brackets), SLP labels and guards included, so a listing reads back as the
same program. From Python: ``Program.listing()`` and ``Program.portray_clause()``.
"""
from __future__ import annotations

from . import det
from .dbbi import indicator_parts
from ..db import DET, STOCH, USER
from ...terms.term import Atom, Struct, Var, TRUE, atom, deref
from ...terms.walk import copy_term
from ...terms.errors import instantiation_error, type_error
from ...terms.writer import term_to_text
from ...terms.text import canonical_var_names


def _clause_var_names(parts) -> dict:
    """portray_clause's names: A, B, ... for variables occurring twice or more, _ for
    singletons (write_canonical's rule, over all the parts together)."""
    return canonical_var_names(Struct("$", tuple(x for x in parts if x is not None)))


def _is_ctrl(g, name, arity):
    return type(g) is Struct and g.name == name and len(g.args) == arity


def _body_lines(g, depth, w, out):
    """Append the lines of body goal g at indentation depth (4 spaces a level), the
    layout of SWI-Prolog's portray_clause."""
    g = deref(g)
    pad = "    " * depth
    if _is_ctrl(g, ",", 2):
        goals = []
        while _is_ctrl(g, ",", 2):
            goals.append(g.args[0])
            g = deref(g.args[1])
        goals.append(g)
        for i, x in enumerate(goals):
            _body_lines(x, depth, w, out)
            if i < len(goals) - 1:
                out[-1] += ","
        return
    if _is_ctrl(g, ";", 2) or _is_ctrl(g, "->", 2) or _is_ctrl(g, "*->", 2):
        # (   A
        # ->  B
        # ;   C
        # )
        branches = []
        while _is_ctrl(g, ";", 2):
            branches.append(deref(g.args[0]))
            g = deref(g.args[1])
        branches.append(g)
        first = True
        for b in branches:
            lead = "(   " if first else ";   "
            first = False
            if _is_ctrl(b, "->", 2) or _is_ctrl(b, "*->", 2):
                _sub(b.args[0], depth, lead, w, out)
                _sub(b.args[1], depth, f"{b.name:<4}", w, out)
            else:
                _sub(b, depth, lead, w, out)
        out.append(pad + ")")
        return
    out.append(pad + w(g, 999))


def _sub(g, depth, lead, w, out):
    """A goal inside a bracketed control construct: its first line starts with lead."""
    inner = []
    _body_lines(g, depth + 1, w, inner)
    pad = "    " * depth
    inner[0] = pad + lead + inner[0][len(pad) + 4:]
    out.extend(inner)


def portray_clause_text(head, body=None, label=None, guard=None, ops=None) -> str:
    """A clause as listing/0 writes it, ending with ".\\n"."""
    names = _clause_var_names([label, guard, head, body])

    def w(t, pri):
        return term_to_text(t, quoted=True, spacing=True, ops=ops, priority=pri,
                            var_names=names)

    prefix = ""
    head_pri = 1199
    if label is not None:
        prefix = w(label, 999) + " :: "
        if guard is not None:
            prefix += w(guard, 199) + " :: "
        head_pri = 200
    text = prefix + w(head, head_pri)
    body = deref(body) if body is not None else None
    if body is None or body is TRUE:
        return text + ".\n"
    lines = []
    _body_lines(body, 1, w, lines)
    return text + " :-\n" + "\n".join(lines) + ".\n"


def listing_text(pred, ops=None) -> str:
    out = []
    pi = term_to_text(Struct('/', (atom(pred.name), pred.arity)), quoted=True)
    if pred.dynamic:
        out.append(f":- dynamic {pi}.\n\n")
    clauses = pred.clauses
    if pred.tabled is not None:     # the clauses the table's driver calls, as written
        out.append(f":- table {pi}.\n\n")
        clauses = pred.tabled.clauses
    for c in clauses:
        head = c.head
        if pred.tabled is not None:
            head = Struct(pred.name, head.args) if pred.arity else atom(pred.name)
        out.append(portray_clause_text(head, c.body, c.label, c.guard, ops))
    return "".join(out) + "\n"


def _spec(t):
    """listing/help argument: Name or Name/Arity -> (name, arity or None)."""
    t = deref(t)
    if type(t) is Var:
        raise instantiation_error()
    if type(t) is Atom:
        return t.name, None
    if type(t) is Struct and t.name == "/" and len(t.args) == 2:
        return indicator_parts(*t.args)
    raise type_error("predicate_indicator", t)


def _user_pred(pred) -> bool:
    return not pred.builtin and not pred.library and pred.kind in (USER, STOCH) \
        and (pred.clauses or pred.dynamic)


def listing(eng, spec) -> bool:
    """Write the clauses of the user predicates (spec None) or of Name, Name/Arity."""
    db = eng.db
    if spec is None:
        preds = [x for x in db.preds.values() if _user_pred(x)]
    else:
        name, arity = _spec(spec)
        preds = [x for (n, a), x in db.preds.items()
                 if n == name and (arity is None or a == arity)
                 and (x.clauses or x.dynamic or x.builtin or x.kind == DET)]
        preds.sort(key=lambda x: x.arity)
    for pred in preds:
        if pred.kind in (USER, STOCH):
            eng.write(listing_text(pred, eng.ops))
        else:
            eng.write(f"%   {pred.name}/{pred.arity} is a built-in predicate "
                      f"(see help({pred.name}/{pred.arity}))\n\n")
    return True


def clause_text(t, ops=None) -> str:
    """portray_clause/1's text for the clause term t."""
    from ...lang.clauses import split_clause
    parts = split_clause(copy_term(t))
    return portray_clause_text(parts.head, parts.body, parts.label, parts.guard, ops)


@det("listing", 0)
def bi_listing0(eng):
    """listing: the clauses of every user predicate, SLP labels included."""
    return listing(eng, None)


@det("listing", 1)
def bi_listing1(eng, spec):
    """listing(+NameOrIndicator): the clauses of the predicates Name or Name/Arity."""
    return listing(eng, spec)


@det("portray_clause", 1)
def bi_portray_clause(eng, t):
    """portray_clause(+Clause): write Clause as listing/0 writes clauses."""
    eng.write(clause_text(t, eng.ops))
    return True


@det("portray_clause", 2)
def bi_portray_clause2(eng, stream, t):
    from .output import _writer
    _writer(eng, stream)(clause_text(t, eng.ops))
    return True
