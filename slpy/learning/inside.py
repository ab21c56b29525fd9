"""Inside probabilities, expected clause counts and Viterbi scores over a frozen
explanation graph (slpy.learning.graph), as array arithmetic over all edges at once.

With s_e = log c_e + sum_j n_ej log theta_j + sum over e's children log I(child):

    inside     log I(v) = logsumexp over v's edges of s_e
    flow       F(v) = w(v) + sum over edges e with v among their children of f_e,
               f_e = F(head e) * exp(s_e - log I(head e))

where w(v) is an observation's count (0 for a table answer). f_e is the expected
number of times derivation e is used, so the expected count of clause j is
sum_e f_e n_ej (the E-step of inside-outside: F is the outside probability times the
inside one, divided by the observation's probability, summed over the data; in that
form nothing underflows on long strings). Both are solved by repeating the update
from I = 0 and F = w: on an acyclic graph the values are exact (and stop changing)
after as many rounds as the graph is deep; a recursive one (left recursion under
tabling) converges to the least solution geometrically.
"""
from __future__ import annotations

import numpy as np

from .params import LearnError

__all__ = ["edge_scores", "inside", "flow", "viterbi"]

_TOL = 1e-14
_MAX_ROUNDS = 100_000


def _logsumexp_by_head(g, s):
    m = np.maximum.reduceat(s, g.start) if g.n_edges else np.zeros(0)
    fin = np.isfinite(m)
    shift = np.where(fin, m, 0.0)
    tot = np.add.reduceat(np.exp(s - shift[g.head]), g.start) if g.n_edges else m
    with np.errstate(divide="ignore"):
        return np.where(fin, shift + np.log(tot), -np.inf)


def edge_scores(g, logtheta, values):
    """s_e for node values (log I, or Viterbi scores) of the children."""
    with np.errstate(invalid="ignore"):
        base = g.logc + (g.C @ logtheta if g.C.shape[1] else 0.0)
    base = np.nan_to_num(base, nan=-np.inf)
    if len(g.slot_edge):
        base = base + np.bincount(g.slot_edge, weights=values[g.slot_node],
                                  minlength=g.n_edges)
    return base


def _solve(g, logtheta, reduce):
    vals = np.full(g.n_nodes, -np.inf)
    for _ in range(_MAX_ROUNDS):
        s = edge_scores(g, logtheta, vals)
        new = reduce(g, s)
        if np.array_equal(new, vals):
            return new, s
        fin = np.isfinite(new) & np.isfinite(vals)
        if fin.all() and np.max(np.abs(new - vals)) <= _TOL * (1 + np.max(np.abs(new))):
            return new, edge_scores(g, logtheta, new)
        vals = new
    raise LearnError("the probabilities of the explanation graph do not converge")


def inside(g, logtheta):
    """(log I per node, s per edge)."""
    return _solve(g, logtheta, _logsumexp_by_head)


def viterbi(g, logtheta):
    """(best log probability of a derivation per node, s per edge with the children's
    best scores); probabilities are at most 1, so a cycle never improves a score and
    the rounds end."""
    return _solve(g, logtheta, lambda g, s: np.maximum.reduceat(s, g.start)
                  if g.n_edges else np.zeros(0))


def flow(g, logI, s, weights):
    """Expected uses f per edge, given the node weights w (observation counts)."""
    with np.errstate(invalid="ignore"):
        ratio = np.exp(s - logI[g.head])
    ratio = np.nan_to_num(ratio, nan=0.0)
    F = weights.astype(np.float64)
    for _ in range(_MAX_ROUNDS):
        f = F[g.head] * ratio
        new = weights + (np.bincount(g.slot_node, weights=f[g.slot_edge],
                                     minlength=g.n_nodes) if len(g.slot_node) else 0.0)
        if np.array_equal(new, F) or np.max(np.abs(new - F)) <= _TOL * (1 + np.max(new)):
            return F[g.head] * ratio if np.array_equal(new, F) else new[g.head] * ratio
        F = new
    raise LearnError("the expected counts of the explanation graph do not converge")
