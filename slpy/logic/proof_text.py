"""A proof tree's choice points as text and as JSON-ready data: what the top level
prints (``t``, proof_tree/0) and ``str(tree)`` shows, what ``slpy sample --format
json`` writes and a notebook shows (slpy.logic.display). A node's variables are named
``_A``, ``_B``, ... in order of appearance.
"""
from __future__ import annotations

import math
import os

from ..terms.term import Struct
from ..terms.text import letter_var_names
from ..terms.writer import term_to_text

__all__ = ["proof_lines", "format_proof", "proof_json"]


def _text(t, ops=None, spacing=True, priority=999) -> str:
    """writeq text with the variables named _A, _B, ... in order of appearance."""
    return term_to_text(t, quoted=True, spacing=spacing, ops=ops, priority=priority,
                        var_names=letter_var_names(t))


def _call_text(n, ops=None, spacing=True) -> str:
    """The call of a choice point, with its guard when the node keeps one
    (``[3]::cart(_A)``)."""
    if n.call is None:
        return "?"
    if n.guard is not None:
        return _text(Struct("::", (n.guard, n.call)), ops, spacing, priority=1200)
    return _text(n.call, ops, spacing)


def _choice_text(n, ops=None) -> str:
    """What a choice point chose: ``clause K (file:line)`` or ``-> Value``."""
    if n.value is not None:
        return "-> " + _text(n.value, ops)
    c = n.key
    where = ""
    if getattr(c, "file", None):
        where = f" ({os.path.basename(c.file)}:{c.line})"
    return f"clause {n.chosen}{where}"


def proof_lines(tree, ops=None, indent: str = "  "):
    """One line per choice point below tree, indented by depth: the call, the choice,
    its probability."""
    stack = [(c, 0) for c in reversed(tree.children)]
    while stack:
        n, depth = stack.pop()
        yield f"{indent * depth}{_call_text(n, ops)}  {_choice_text(n, ops)}  p = {n.prob:.4g}"
        stack.extend((c, depth + 1) for c in reversed(n.children))


def format_proof(tree, logp: float | None = None, ops=None) -> str:
    """The proof tree as comment lines, as the top level shows it."""
    k = tree.size()
    if logp is None:
        logp = tree.log_prob()
    head = (f"% proof tree: {k} choice point{'s' if k != 1 else ''}, "
            f"p = {math.exp(logp):.4g} (log p = {logp:.4g})")
    return "\n".join([head] + ["%   " + line for line in proof_lines(tree, ops)])


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
