"""Canonical model texts of trees (slpy.trees.model.canonical) read back: the nodes in
pre-order, the Tree they stand for on the training data, and a Prolog term of the same
structure."""
from __future__ import annotations

import numpy as np

from .model import ModelTermError, feature_key

__all__ = ["parse_canonical", "tree_from_canonical", "canonical_term"]


def parse_canonical(text: str, feature_names) -> list:
    """The nodes of a canonical model term (slpy.trees.model.canonical) in pre-order:
    ("node", feature name, threshold) or ("leaf",)."""
    keys = {feature_key(f): f for f in feature_names}
    names = sorted(keys, key=len, reverse=True)  # longest match first
    out = []
    i, n, need, closes = 0, len(text), 1, 0
    while i < n:
        if need == 0:
            raise ModelTermError(f"not a model term: {text[:60]}")
        if text.startswith("leaf", i):
            out.append(("leaf",))
            i += 4
            need -= 1
        elif text.startswith("node(", i):
            i += 5
            name = next((f for f in names if text.startswith(f + ",", i)), None)
            j = text.find(",", i + len(name) + 1) if name is not None else -1
            try:
                thr = float(text[i + len(name) + 1:j]) if j > 0 else None
            except ValueError:
                thr = None
            if thr is None:
                raise ModelTermError(f"not a split of this data at {text[i:i + 40]!r}")
            out.append(("node", keys[name], thr))
            i = j + 1
            need += 1
        else:
            raise ModelTermError(f"not a model term: {text[:60]}")
        while i < n and text[i] in ",)":
            closes += text[i] == ")"
            i += 1
    nodes = sum(1 for t in out if t[0] == "node")
    if need != 0 or closes != nodes:
        raise ModelTermError(f"not a model term: {text[:60]}")
    return out


def tree_from_canonical(text: str, rowsets, train, alpha=1.0):
    """The Tree of a canonical model term, its leaves summarising the training rows
    that reach them (as Tree.from_term builds it)."""
    from .model import Tree, Leaf, Split
    index = {f: k for k, f in enumerate(train.feature_names)}
    regression = train.task == "regression"
    pending = [rowsets.root()]
    items = []
    for tok in parse_canonical(text, train.feature_names):
        rid = pending.pop()
        if tok[0] == "leaf":
            c = rowsets.stats(rid) if regression else rowsets.class_counts(rid)
            items.append(Leaf(np.asarray(c, dtype=float), rid))
        else:
            left, right = rowsets.split(rid, index[tok[1]], tok[2])
            pending.append(right)
            pending.append(left)
            items.append(tok)
    built = []
    for it in reversed(items):            # children before parents
        if isinstance(it, Leaf):
            built.append(it)
        else:
            left, right = built.pop(), built.pop()
            built.append(Split(index[it[1]], it[1], it[2], left, right))
    return Tree(built[0], list(train.feature_names), train.classes, train.task, alpha)


def canonical_term(text: str, feature_names):
    """A Prolog model term with the structure of a canonical term (leaves' row sets
    are placeholders: the structure determines them)."""
    from ..terms.term import Atom, Struct
    built = []
    for tok in reversed(parse_canonical(text, feature_names)):
        if tok[0] == "leaf":
            built.append(Struct("leaf", (Struct("rows", (0,)),)))
        else:
            v = int(tok[2]) if float(tok[2]).is_integer() else tok[2]
            left, right = built.pop(), built.pop()
            built.append(Struct("node", (Atom(tok[1]), v, left, right)))
    return built[0]
