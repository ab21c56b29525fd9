"""Brute-force enumeration of every tree of a tiny data set: the reference the PCFG
back end must equal. Plain Python over frozensets of row indices; shares no code
with slpy.pcfg (splits, weights and the Dirichlet score are recomputed here)."""
from __future__ import annotations

import math

import numpy as np
from scipy.special import gammaln

from slpy.terms.term import Atom, Struct


def splits(X, rows, min_leaf):
    """(f, t, left, right) for x_f <= t, t an observed value but the largest."""
    out = []
    rows = sorted(rows)
    for f in range(X.shape[1]):
        vals = sorted({X[r, f] for r in rows})
        for t in vals[:-1]:
            left = frozenset(r for r in rows if X[r, f] <= t)
            right = frozenset(rows) - left
            if len(left) >= min_leaf and len(right) >= min_leaf:
                out.append((f, t, left, right))
    return out


def dedupe(ss):
    seen = set()
    out = []
    for f, t, l, r in ss:
        key = frozenset((l, r))
        if key not in seen:
            seen.add(key)
            out.append((f, t, l, r))
    return out


def growtree_trees(X, rows, d, alpha, beta, min_leaf, max_depth=None):
    """[(tree, log prior)] of GROWTREE as backtrackable sampling gives it: the split is
    uniform among the splits whose subtrees can be completed, and with none the node
    is a leaf with probability 1 (no tree at all when it must split, p = 1)."""
    p = alpha * (1 + d) ** (-beta)
    ss = [] if max_depth is not None and d >= max_depth else splits(X, rows, min_leaf)
    live = []
    if p > 0:
        for f, t, l, r in ss:
            a = growtree_trees(X, l, d + 1, alpha, beta, min_leaf, max_depth)
            b = growtree_trees(X, r, d + 1, alpha, beta, min_leaf, max_depth)
            if a and b:
                live.append((f, t, a, b))
    if not live:
        return [(("leaf", rows), 0.0)] if p < 1 else []
    out = [(("leaf", rows), math.log1p(-p))] if p < 1 else []
    lw = math.log(p) - math.log(len(live))
    for f, t, a, b in live:
        for tl, wl in a:
            for tr, wr in b:
                out.append((("node", f, t, tl, tr), lw + wl + wr))
    return out


def phi_trees(X, rows, d, log_phi, min_leaf=1, max_depth=None):
    """[(tree, log weight)]: weight phi^-(internal nodes); normalise yourself."""
    out = [(("leaf", rows), 0.0)]
    if max_depth is not None and d >= max_depth:
        return out
    for f, t, l, r in dedupe(splits(X, rows, min_leaf)):
        for tl, wl in phi_trees(X, l, d + 1, log_phi, min_leaf, max_depth):
            for tr, wr in phi_trees(X, r, d + 1, log_phi, min_leaf, max_depth):
                out.append((("node", f, t, tl, tr), -log_phi + wl + wr))
    return out


def leaves(tree):
    if tree[0] == "leaf":
        return [tree[1]]
    return leaves(tree[3]) + leaves(tree[4])


def dirichlet(y, rows, n_classes, alpha=1.0):
    counts = np.bincount(y[sorted(rows)], minlength=n_classes).astype(float)
    a = np.full(n_classes, alpha)
    return float(gammaln(a.sum()) - gammaln(counts.sum() + a.sum())
                 + (gammaln(counts + a) - gammaln(a)).sum())


def log_lik(tree, y, n_classes, alpha=1.0):
    return sum(dirichlet(y, l, n_classes, alpha) for l in leaves(tree))


def term(tree, names):
    """The model term of a tree (leaves as leaf(rows(-1)): ids are not compared)."""
    if tree[0] == "leaf":
        return Struct("leaf", (Struct("rows", (-1,)),))
    _, f, t, l, r = tree
    v = int(t) if float(t).is_integer() else float(t)
    return Struct("node", (Atom(names[f]), v, term(l, names), term(r, names)))


def key(tree, names):
    """canonical() form of a tree."""
    if tree[0] == "leaf":
        return "leaf"
    _, f, t, l, r = tree
    v = int(t) if float(t).is_integer() else float(t)
    return f"node({names[f]},{v!r},{key(l, names)},{key(r, names)})"


def posterior(trees, y=None, n_classes=None, alpha=1.0):
    """{tree: log probability} normalised, with the likelihood when y is given;
    and the log normaliser."""
    scored = [(t, w + (log_lik(t, y, n_classes, alpha) if y is not None else 0.0))
              for t, w in trees]
    m = max(s for _, s in scored)
    z = m + math.log(sum(math.exp(s - m) for _, s in scored))
    return [(t, s - z) for t, s in scored], z


def predictive(post, X, y, n_classes, x, alpha=1.0):
    """Exact posterior predictive of row x: sum_T P(T) (n_k + alpha) / (n + K alpha)."""
    out = np.zeros(n_classes)
    for t, lp in post:
        node = t
        while node[0] == "node":
            node = node[3] if x[node[1]] <= node[2] else node[4]
        counts = np.bincount(y[sorted(node[1])], minlength=n_classes) + alpha
        out += math.exp(lp) * counts / counts.sum()
    return out
