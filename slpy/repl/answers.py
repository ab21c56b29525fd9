"""An answer as SWI-Prolog's top level writes it: the bindings of the query variables,
grouped when they share a value (``X = Y, Y = 1``), cyclic values written with the
variable they contain (``X = f(X)``), the goals still suspended on them, and the
probability line of a stochastic answer.
"""
from __future__ import annotations

import math

from ..logic.builtins.typecheck import is_acyclic
from ..terms.term import Var, Struct, deref, compare
from ..terms.text import letter_var_names
from ..terms.writer import term_to_text

__all__ = ["answer_bindings", "prob_line"]


def _same(a, b, cyclic) -> bool:
    if type(a) is Var or type(b) is Var or id(a) in cyclic or id(b) in cyclic:
        return a is b
    return compare(a, b) == 0


def _break_cycles(t, names: dict, var_names: dict):
    """A copy of the cyclic term t in which each subterm that contains itself is written
    as a variable: ``_S1``, ``_S2``, ..., or the name of the query variable whose value
    it is (``X = f(X)``, as SWI-Prolog writes it; names: id(cyclic value) -> name; such
    a value is written as its name wherever it occurs below t). The new variables'
    names go to var_names."""
    back: dict = {}

    def var_for(x):
        v = back.get(id(x))
        if v is None:
            v = back[id(x)] = Var()
            var_names[v] = names.get(id(x)) or f"_S{len(back)}"
        return v

    on_path = {id(t)}
    stack = [[t, 0, []]]
    while True:
        frame = stack[-1]
        node, i, built = frame
        if i == len(node.args):
            stack.pop()
            on_path.discard(id(node))
            new = Struct(node.name, tuple(built))
            if not stack:
                return new
            stack[-1][2].append(new)
            continue
        frame[1] = i + 1
        a = deref(node.args[i])
        if type(a) is Struct:
            if id(a) in on_path or id(a) in names:
                built.append(var_for(a))
            else:
                on_path.add(id(a))
                stack.append([a, 0, []])
        else:
            built.append(a)


def answer_bindings(varnames: dict, ops=None, residual=()) -> str:
    """The bindings of an answer as SWI-Prolog's top level writes them, without the
    final ``.`` or `` ;``: one line per group of variables with the same value
    (``X = Y, Y = 1``), then the goals still suspended on them (``dif(X, a)``),
    ``true`` when there is neither. Variables whose names start with ``_`` are not
    shown; fresh variables in values are ``_`` (once) or ``_A``, ``_B``, ...
    (shared)."""
    shown = [n for n in varnames if not n.startswith("_")]
    cyclic = set()
    for n in shown:
        v = deref(varnames[n])
        if type(v) is Struct and not is_acyclic(v):
            cyclic.add(id(v))
    groups: list[tuple[list[str], object]] = []
    for n in shown:
        v = deref(varnames[n])
        for names, val in groups:
            if _same(val, v, cyclic):
                names.append(n)
                break
        else:
            groups.append(([n], v))
    names_of: dict = {}
    for names, val in groups:
        if type(val) is Var:
            names_of[val] = names[-1]
    for n, v in varnames.items():
        v = deref(v)
        if n.startswith("_") and type(v) is Var and v not in names_of:
            names_of[v] = n
    if cyclic:
        value_names = {id(val): names[-1] for names, val in groups if id(val) in cyclic}
        groups = [(names, _break_cycles(val, value_names, names_of)
                   if id(val) in cyclic else val) for names, val in groups]
    printed = [val for names, val in groups if type(val) is not Var] + list(residual)
    # the other variables: _ when they occur once in the answer, _A, _B, ... otherwise
    names_of.update(letter_var_names(*printed, singleton="_", named=names_of))
    lines = []
    for names, val in groups:
        eqs = [f"{a} = {b}" for a, b in zip(names, names[1:])]
        if type(val) is not Var:
            eqs.append(f"{names[-1]} = " + term_to_text(
                val, quoted=True, spacing=True, ops=ops, priority=699, var_names=names_of))
        if eqs:
            lines.append(", ".join(eqs))
    for g in residual:
        lines.append(term_to_text(g, quoted=True, spacing=True, ops=ops, priority=999,
                                  var_names=names_of))
    return ",\n".join(lines) if lines else "true"


def prob_line(logp: float) -> str:
    return f"% p = {math.exp(logp):.4g} (log p = {logp:.4g})"
