"""The probabilities of tabled answers from their explanations (PRISM's explanation
graphs, Sato & Kameya).

An answer's probability is the sum over its explanations of the product of the
explanation's choice probabilities and of the probabilities of the tabled answers it
used: a system x = F(x) of polynomials with non-negative coefficients, one variable
per answer of a component of tables completed together. Its least solution is the
sum over all (finite) derivations. Answers that do not depend on each other in a
cycle are computed in dependency order, each once; a cycle (left recursion, say) is a
strongly connected set of answers, solved by fixpoint iteration from zero and then
Newton's method (Etessami & Yannakakis 2009), which converges fast where plain
iteration crawls (a grammar near criticality).
"""
from __future__ import annotations

import math
import warnings

import numpy as np
from scipy import sparse
from scipy.sparse import linalg as spla

from ..terms.term import PrologError
from ..terms.errors import evaluation_error

__all__ = ["solve_tables", "least_fixpoint"]

_TOL = 1e-15
_KLEENE = 60           # plain iterations before Newton
_MAX_ROUNDS = 200      # Newton steps (each followed by a check)
_SWEEPS = 100_000      # then plain iteration, before giving up


def solve_tables(tables, by_id) -> None:
    """Set ``prob`` of every answer of the completed tables (their ``expl`` lists)."""
    var = {}
    for t in tables:
        t.prob = [0.0] * len(t.answers)
        for i in range(len(t.answers)):
            var[(t.id, i)] = len(var)
    eqs = []
    for t in tables:
        for i in range(len(t.answers)):
            terms = []
            for w, refs in t.expl[i]:
                ks = []
                for tid, j in refs:
                    k = var.get((tid, j))
                    if k is None:            # a table completed earlier: a constant
                        w *= by_id[tid].prob[j]
                    else:
                        ks.append(k)
                if w > 0.0:
                    terms.append((w, ks))
            eqs.append(terms)
    x = least_fixpoint(eqs)
    for t in tables:
        for i in range(len(t.answers)):
            t.prob[i] = float(x[var[(t.id, i)]])


def least_fixpoint(eqs) -> list:
    """The least non-negative solution of x_v = sum_(w, ks) w * prod_k x_k."""
    n = len(eqs)
    x = [0.0] * n
    for comp in _components(eqs):
        if len(comp) == 1 and comp[0] not in {k for _, ks in eqs[comp[0]] for k in ks}:
            v = comp[0]
            x[v] = _value(eqs[v], x)
        else:
            _solve_cycle(eqs, comp, x)
    return x


def _value(terms, x) -> float:
    s = 0.0
    for w, ks in terms:
        for k in ks:
            w *= x[k]
        s += w
    return s


def _solve_cycle(eqs, comp, x):
    # plain iteration first (exact when the values settle); its change per pass is no
    # measure of the error near criticality, so Newton then runs until its own step,
    # which is the error, is negligible
    for _ in range(_KLEENE):
        if _sweep(eqs, comp, x) == 0.0:
            return
    pos = {v: i for i, v in enumerate(comp)}
    m = len(comp)
    for _ in range(_MAX_ROUNDS):
        fx = np.array([_value(eqs[v], x) for v in comp])
        cur = np.array([x[v] for v in comp])
        rows, cols, vals = [], [], []
        for r, v in enumerate(comp):
            for w, ks in eqs[v]:
                for a, k in enumerate(ks):
                    c = pos.get(k)
                    if c is None:
                        continue
                    d = w
                    for b, k2 in enumerate(ks):
                        if b != a:
                            d *= x[k2]
                    rows.append(r)
                    cols.append(c)
                    vals.append(d)
        jac = sparse.csr_matrix((vals, (rows, cols)), shape=(m, m))
        with warnings.catch_warnings():
            warnings.simplefilter("error", spla.MatrixRankWarning)
            try:
                step = spla.spsolve((sparse.identity(m, format="csr") - jac).tocsc(),
                                    fx - cur)
            except (spla.MatrixRankWarning, RuntimeError):
                step = fx - cur
        step = np.nan_to_num(np.atleast_1d(step))
        if np.min(step) < -1e-9 * max(float(np.max(cur)), 1.0):
            break      # below a finite least solution Newton only climbs: diverging
        new = np.maximum(cur + step, cur)   # the iterates increase to the solution
        for i, v in enumerate(comp):
            x[v] = float(new[i])
        if not np.all(np.isfinite(new)):
            raise _diverges()
        if np.max(new - cur) <= _TOL * max(float(np.max(new)), 1e-300):
            return
    for _ in range(_SWEEPS):                 # Newton did not settle: plain iteration
        if _sweep(eqs, comp, x) <= _TOL:
            return
    raise _diverges()


def _diverges():
    return PrologError(evaluation_error("undefined").term,
                       "the probabilities of the tabled answers do not converge (an "
                       "infinite sum over derivations)")


def _sweep(eqs, comp, x) -> float:
    """One Gauss-Seidel pass; the largest relative change."""
    delta = 0.0
    for v in comp:
        new = _value(eqs[v], x)
        old = x[v]
        if not math.isfinite(new):
            raise _diverges()
        rel = abs(new - old) / max(abs(new), 1e-300)
        if rel > delta:
            delta = rel
        x[v] = new
    return delta


def _components(eqs):
    """Strongly connected components of the dependency graph (v depends on the
    variables of its terms), dependencies first (Tarjan, without recursion)."""
    n = len(eqs)
    succ = [sorted({k for _, ks in eqs[v] for k in ks}) for v in range(n)]
    index = [-1] * n
    low = [0] * n
    on = [False] * n
    stack, out = [], []
    counter = 0
    for root in range(n):
        if index[root] >= 0:
            continue
        work = [(root, 0)]
        index[root] = low[root] = counter
        counter += 1
        stack.append(root)
        on[root] = True
        while work:
            v, i = work[-1]
            if i < len(succ[v]):
                work[-1] = (v, i + 1)
                w = succ[v][i]
                if index[w] < 0:
                    index[w] = low[w] = counter
                    counter += 1
                    stack.append(w)
                    on[w] = True
                    work.append((w, 0))
                elif on[w]:
                    low[v] = min(low[v], index[w])
                continue
            work.pop()
            if work:
                u = work[-1][0]
                low[u] = min(low[u], low[v])
            if low[v] == index[v]:
                comp = []
                while True:
                    w = stack.pop()
                    on[w] = False
                    comp.append(w)
                    if w == v:
                        break
                out.append(comp)
    return out
