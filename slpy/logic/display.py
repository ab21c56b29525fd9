"""Rich display in notebooks (Jupyter calls ``_repr_html_``): samples, proofs and proof
trees as HTML. A proof tree is a nested list, one item per choice point (the call, the
clause or value chosen, its probability), each subtree folding away (``<details>``);
trees (slpy.trees.model.Tree) draw themselves as SVG (slpy.trees.svg)."""
from __future__ import annotations

import html
import math
import os

from ..terms.writer import term_to_text
from .proof_text import proof_json

__all__ = ["proof_html", "sample_html"]

_STYLE = ("font-family: ui-monospace, SFMono-Regular, Menlo, Consolas, monospace; "
          "font-size: 12px; line-height: 1.45")


def _item(node) -> str:
    what = (f"&rarr; <b>{html.escape(node['value'])}</b>" if "value" in node else
            f"clause {node['clause']}" + (f" <span style='color:#777'>("
                                           f"{html.escape(os.path.basename(node['file']))}:"
                                           f"{node['line']})</span>" if "file" in node else ""))
    text = (f"<code>{html.escape(node['call'] or '?')}</code> &nbsp;{what} &nbsp;"
            f"<span style='color:#1f4e79'>p = {node['prob']:.4g}</span>")
    if not node["children"]:
        return f"<li>{text}</li>"
    inner = "".join(_item(c) for c in node["children"])
    return (f"<li><details open><summary>{text}</summary>"
            f"<ul style='margin:0; padding-left:1.4em'>{inner}</ul></details></li>")


def proof_html(tree, logp: float | None = None) -> str:
    """A proof tree (slpy.logic.proof.ProofNode, the root) as HTML."""
    k = tree.size()
    if logp is None:
        logp = tree.log_prob()
    head = (f"proof tree: {k} choice point{'s' if k != 1 else ''}, p = "
            f"{math.exp(logp):.4g} (log p = {logp:.4g})")
    items = "".join(_item(n) for n in proof_json(tree))
    return (f"<div style='{_STYLE}'><div><b>{html.escape(head)}</b></div>"
            f"<ul style='margin:0; padding-left:1.4em'>{items}</ul></div>")


def sample_html(answer) -> str:
    """A Sample (Program.sample) or a Proof (Program.proofs): its bindings, its
    probability and its proof tree."""
    rows = "".join(f"<tr><td style='text-align:left'><b>{html.escape(name)}</b></td>"
                   f"<td style='text-align:left'><code>"
                   f"{html.escape(term_to_text(value, quoted=True))}</code></td></tr>"
                   for name, value in answer.bindings.items())
    logp = getattr(answer, "log_prob", None)
    if logp is None:
        prob = answer.prob
        logp = math.log(prob) if prob > 0 else -math.inf
    kind = type(answer).__name__.lower()
    head = f"{kind}: p = {math.exp(logp):.4g} (log p = {logp:.4g})"
    table = f"<table>{rows}</table>" if rows else "<div>(no variables)</div>"
    tree = proof_html(answer.tree, logp) if answer.tree is not None else ""
    return (f"<div style='{_STYLE}'><div><b>{html.escape(head)}</b></div>{table}"
            f"<details open><summary>proof tree</summary>{tree}</details></div>")
