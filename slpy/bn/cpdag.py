"""The equivalence class of a DAG as its CPDAG (completed partially directed acyclic
graph, or essential graph), and the edges' posterior marginals over the classes.

Two DAGs are Markov equivalent when they have the same skeleton and the same
v-structures a -> c <- b with a and b not adjacent (Verma & Pearl 1990); BDeu gives
them the same score. The CPDAG keeps an edge directed when every DAG of the class
directs it so (it is *compelled*) and leaves it undirected (*reversible*) otherwise
(Chickering 1995, "A transformational characterization of equivalent Bayesian network
structures", UAI). From the skeleton with the v-structures directed, Meek's (1995)
rules, applied until none applies, direct exactly the compelled edges:

    R1  a -> b - c, a and c not adjacent            =>  b -> c
    R2  a -> b -> c and a - c                       =>  a -> c
    R3  a - c -> b, a - d -> b, a - b, c and d
        not adjacent                                =>  a -> b

(R4 is needed only with background knowledge, which a DAG's pattern has not.) Each
rule is a product of boolean matrices, so a DAG of n nodes costs a few n^3 (R3 n^4)
operations per round.
"""
from __future__ import annotations

import numpy as np

__all__ = ["cpdag", "cpdag_marginals"]


def _matrix(parents, n) -> np.ndarray:
    d = np.zeros((n, n), dtype=bool)
    for i, ps in enumerate(parents):
        d[list(ps), i] = True
    return d


def cpdag(parents, rules=(1, 2, 3)) -> tuple[np.ndarray, np.ndarray]:
    """(compelled, reversible) boolean [n, n] matrices of the DAG `parents` (node i's
    parents at i): compelled[a, b] when a -> b is in every DAG of the class,
    reversible[a, b] = reversible[b, a] when a - b is undirected in the CPDAG.
    `rules`: Meek's rules to apply (the tests leave one out to see it is needed)."""
    n = len(parents)
    dag = _matrix(parents, n)
    adj = dag | dag.T
    apart = ~adj & ~np.eye(n, dtype=bool)          # distinct and not adjacent
    # v-structures a -> c <- b, a and b apart: a -> c is compelled
    into = dag.astype(np.int64)
    vee = dag & (np.einsum("ac,bc,ab->ac", into, into, apart) > 0)
    comp = vee.copy()
    und = adj & ~(comp | comp.T)
    while True:
        c, u = comp.astype(np.int64), und.astype(np.int64)
        fire = np.zeros_like(dag)
        if 1 in rules:
            fire |= (c.T @ apart.astype(np.int64)) > 0                # [b, c]
        if 2 in rules:
            fire |= (c @ c) > 0                                        # [a, c]
        if 3 in rules:
            uc = np.einsum("ac,cb->acb", u, c)                        # a - c -> b
            fire |= np.einsum("acb,adb,cd->ab", uc, uc, apart.astype(np.int64)) > 0
        new = und & fire & dag      # a compelled edge keeps the DAG's direction
        if not new.any():
            return comp, und
        comp |= new
        und &= ~(new | new.T)


def cpdag_marginals(dags, weights, n) -> dict:
    """Posterior marginals over DAGs (parent sets) with `weights`: [n, n] matrices
    ``adjacent`` (a and b linked either way, symmetric), ``compelled`` ([a, b]: a -> b
    is compelled in the DAG's class) and ``reversible`` (symmetric: the link is
    undirected in the class's CPDAG)."""
    w = np.asarray(weights, dtype=float)
    w = w / w.sum()
    out = {k: np.zeros((n, n)) for k in ("adjacent", "compelled", "reversible")}
    for parents, wk in zip(dags, w):
        comp, und = cpdag(parents)
        out["compelled"] += wk * comp
        out["reversible"] += wk * und
    out["adjacent"] = out["compelled"] + out["compelled"].T + out["reversible"]
    return out
