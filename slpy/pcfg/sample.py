"""Exact samples from a tree grammar's prior or posterior.

Top-down sampling of a PCFG: at nonterminal N draw a production with its posterior
probability (paper 004, eqs. 15-16, in general form)

    P(stop | N)    = stop(N) L(N) / I(N),
    P(split s | N) = split(N) I(N_s) I(N_s-bar) / I(N),

then expand the children. Every tree is drawn with probability w(T) L(T) / I(root)
exactly: the ratios telescope (the proof of paper 004's Theorem 5.1). Path sampling
for one row (Algorithm 1) lives in the kernel ``_path_sample``: it follows the
row's side of each drawn split instead of expanding both children.
"""
from __future__ import annotations

import math

import numpy as np

__all__ = ["sample_derivations", "production_probs"]


def production_probs(post, j: int, d: int) -> np.ndarray:
    """Cumulative posterior probabilities of the productions of (j, d): index 0 is
    stop, index 1 + k the k-th split of j. Cached per nonterminal."""
    key = (j, d)
    cum = post._cum.get(key)
    if cum is not None:
        return cum
    g = post.grammar
    ins = post.inside
    z = ins[j, d]
    lo, hi = int(g.ptr[j]), int(g.ptr[j + 1])
    w = g.log_split[j, d]
    logs = np.empty(1 + (hi - lo if w > -math.inf else 0))
    logs[0] = g.log_stop[j, d] + post.leaf[j] - z
    if w > -math.inf:
        dc = g.child_depth(d)
        logs[1:] = w + ins[g.left[lo:hi], dc] + ins[g.right[lo:hi], dc] - z
    with np.errstate(under="ignore"):
        cum = np.cumsum(np.exp(logs))
    post._cum[key] = cum
    return cum


def sample_derivations(post, rng, n: int = 1) -> list:
    """``n`` derivations drawn exactly; each is a pre-order tuple of (j, d, s)."""
    if n < 0:
        raise ValueError("the number of samples must be >= 0")
    g = post.grammar
    out = []
    for _ in range(n):
        deriv = []
        stack = [(0, 0)]
        while stack:
            j, d = stack.pop()
            cum = production_probs(post, j, d)
            u = rng.random() * cum[-1]
            k = min(int(np.searchsorted(cum, u, side="right")), len(cum) - 1)
            while cum[k] == (cum[k - 1] if k else 0.0):   # never land on a dead production
                k -= 1
            if k == 0:
                deriv.append((j, d, -1))
                continue
            s = int(g.ptr[j]) + k - 1
            deriv.append((j, d, s))
            dc = g.child_depth(d)
            stack.append((int(g.right[s]), dc))
            stack.append((int(g.left[s]), dc))
        out.append(tuple(deriv))
    return out
