"""An independent brute-force GROWTREE: every tree of a small data set with its exact
prior probability (backtrackable semantics: a node without a valid split is a leaf)."""
from __future__ import annotations

from slpy.trees.term import canonical


def enumerate_trees(rowsets, names, alpha, beta, min_leaf, rid=None, depth=0):
    """[(canonical structure, prior probability, leaf row ids)]"""
    if rid is None:
        rid = rowsets.root()
    splits = list(rowsets.valid_splits(rid, min_leaf))
    if not splits:
        return [("leaf", 1.0, [rid])]
    ps = alpha * (1 + depth) ** (-beta)
    out = [("leaf", 1.0 - ps, [rid])]
    for f, t, l, r in splits:
        lefts = enumerate_trees(rowsets, names, alpha, beta, min_leaf, l, depth + 1)
        rights = enumerate_trees(rowsets, names, alpha, beta, min_leaf, r, depth + 1)
        thr = int(t) if float(t).is_integer() else float(t)
        for ls, lp, lr in lefts:
            for rs, rp, rr in rights:
                out.append((f"node({names[f]},{thr!r},{ls},{rs})", ps / len(splits) * lp * rp,
                            lr + rr))
    return out
