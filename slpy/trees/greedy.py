"""A greedy CART tree built by slpy itself (the usual starting point or baseline):
recursive partitioning by Gini impurity, at least `min_leaf` rows in each leaf, and a
split kept only when it lowers the total impurity by at least cp times the root's
(rpart's complexity parameter, default 0.01)."""
from __future__ import annotations

import numpy as np

from ..terms.term import Atom, Struct


def _gini_sum(counts: np.ndarray) -> float:
    """n * Gini impurity of a count vector."""
    n = counts.sum()
    return 0.0 if n == 0 else float(n - (counts ** 2).sum() / n)


def greedy_tree(rowsets, dataset, min_leaf: int = 5, cp: float = 0.01, max_depth: int = 30):
    """The model term node(F, T, L, R) / leaf(rows(Id)) of the greedy tree."""
    if dataset.task != "classification":
        raise ValueError("the greedy tree is built for classification data")
    root = rowsets.root()
    scale = cp * _gini_sum(rowsets.class_counts(root).astype(float))
    names = dataset.feature_names

    def best_split(rid):
        here = _gini_sum(rowsets.class_counts(rid).astype(float))
        best = None
        for f, t, lid, rid2 in rowsets.valid_splits(rid, min_leaf):
            cl = rowsets.class_counts(lid).astype(float)
            cr = rowsets.class_counts(rid2).astype(float)
            gain = here - _gini_sum(cl) - _gini_sum(cr)
            if best is None or gain > best[0] + 1e-12:
                best = (gain, f, t, lid, rid2)
        return best

    # iterative build: (row set, depth, slot to fill)
    out = [None]
    stack = [(root, 0, out, 0)]
    while stack:
        rid, depth, holder, i = stack.pop()
        split = best_split(rid) if depth < max_depth else None
        if split is None or split[0] < scale or split[0] <= 0:
            holder[i] = Struct("leaf", (Struct("rows", (rid,)),))
            continue
        _, f, t, lid, rid2 = split
        kids = [None, None]
        thr = int(t) if float(t).is_integer() else float(t)
        holder[i] = ("node", Atom(names[f]), thr, kids)
        stack.append((rid2, depth + 1, kids, 1))
        stack.append((lid, depth + 1, kids, 0))
    return _freeze(out[0])


def _freeze(x):
    # the placeholders above become terms bottom-up
    work = [(x, False)]
    built = []
    while work:
        n, done = work.pop()
        if isinstance(n, Struct):
            built.append(n)
        elif done:
            r = built.pop()
            l = built.pop()
            built.append(Struct("node", (n[1], n[2], l, r)))
        else:
            work.append((n, True))
            work.append((n[3][1], False))
            work.append((n[3][0], False))
    return built[0]
