"""A proof tree's choice points as text and as JSON-ready data: what the top level
prints (slpy.repl_commands), `slpy sample --json` writes and a notebook shows
(slpy.logic.display)."""
from __future__ import annotations

from ..terms.term import Struct, Var, deref
from ..terms.text import var_letter_name
from ..terms.writer import term_to_text

__all__ = ["proof_json", "fresh_var_names"]


def fresh_var_names(*terms) -> dict:
    """Names _A, _B, ... for the variables of terms, in order of first occurrence."""
    names = {}
    stack = list(reversed(terms))
    while stack:
        x = deref(stack.pop())
        if type(x) is Var:
            if x not in names:
                names[x] = "_" + var_letter_name(len(names))
        elif type(x) is Struct:
            stack.extend(reversed(x.args))
    return names


def _text(t, ops=None, priority=999, names=None, spacing=True) -> str:
    return term_to_text(t, quoted=True, spacing=spacing, ops=ops, priority=priority,
                        var_names=fresh_var_names(t) if names is None else names)


def _call_text(n, ops=None, spacing=True) -> str:
    """The call of a choice point, with its guard when the proof node keeps one
    (``[3] :: cart(_A)``)."""
    if n.call is None:
        return "?"
    guard = getattr(n, "guard", None)
    if guard is not None:
        t = Struct("::", (guard, n.call))
        return term_to_text(t, quoted=True, spacing=spacing, ops=ops,
                            var_names=fresh_var_names(t))
    return _text(n.call, ops, spacing=spacing)


def proof_json(tree, ops=None) -> list:
    """The choice points below tree as JSON-ready dicts (children nested)."""
    def node(n):
        d = {"call": _call_text(n, ops, spacing=False) if n.call is not None else None,
             "prob": n.prob}
        if n.value is not None:
            d["value"] = _text(n.value, ops, spacing=False)
            ch = n.chosen
            d["choice"] = ch if isinstance(ch, (int, str)) else str(ch)
        else:
            d["clause"] = n.chosen
            c = n.key
            if getattr(c, "file", None):
                d["file"] = c.file
                d["line"] = c.line
        d["children"] = [node(c) for c in n.children]
        return d
    # recursion depth is the proof's depth; priors deep enough to matter print as lines
    return [node(c) for c in tree.children]
