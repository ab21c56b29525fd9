"""A hill-climbed DAG, the network family's ``--init greedy`` start.

From the empty graph, each step makes the single edge addition, deletion or reversal
that raises the log posterior score most, and stops when none raises it (the
classical search of Heckerman, Geiger & Chickering 1995, as bnlearn's and pgmpy's
hill climbing, without their tabu list). The score is the family scores (BDeu or K2)
plus the log of priors/bn.slp's structure prior up to its constant: each linked pair
adds log(link / 2) - log(1 - link). Only DAGs the prior can produce are visited
(acyclic, at most max_parents parents a node), so the chains can start from it.

A start changes how soon a chain reaches the posterior's mass, never what it samples:
a network's chain from the prior spends its first thousand sweeps climbing, which
several short chains cannot afford (docs/benchmarks.md, issue 25).
"""
from __future__ import annotations

import math

__all__ = ["greedy_dag"]


def _reaches(children: list[set], src: int, dst: int) -> bool:
    """A directed path src -> ... -> dst."""
    stack, seen = [src], {src}
    while stack:
        for c in children[stack.pop()]:
            if c == dst:
                return True
            if c not in seen:
                seen.add(c)
                stack.append(c)
    return False


def greedy_dag(local, n: int, max_parents: int, link: float,
               max_steps: int = 10_000) -> list[tuple[int, ...]]:
    """The parent sets (sorted index tuples) of the hill-climbed DAG on n nodes.
    `local(node, parents)` is the family score (parents a sorted tuple); 0 < link < 1."""
    if not 0 < link < 1:
        raise ValueError(f"a greedy start needs 0 < link < 1, not {link}")
    edge = math.log(link / 2) - math.log1p(-link)
    parents = [set() for _ in range(n)]
    children = [set() for _ in range(n)]
    here = [local(i, ()) for i in range(n)]

    def gain(j, ps):           # new family score of j minus its current one
        return local(j, tuple(sorted(ps))) - here[j]

    for _ in range(max_steps):
        best, move = 1e-9, None
        for j in range(n):
            for i in range(n):
                if i == j:
                    continue
                if i in parents[j]:
                    d = gain(j, parents[j] - {i}) - edge                 # delete i -> j
                    if d > best:
                        best, move = d, ("del", i, j)
                    # reverse to j -> i: acyclic unless another path i ~> j exists
                    if len(parents[i]) < max_parents:
                        children[i].discard(j)
                        cyclic = _reaches(children, i, j)
                        children[i].add(j)
                        if not cyclic:
                            d = gain(j, parents[j] - {i}) + gain(i, parents[i] | {j})
                            if d > best:
                                best, move = d, ("rev", i, j)
                elif (j not in parents[i] and len(parents[j]) < max_parents
                      and not _reaches(children, j, i)):
                    d = gain(j, parents[j] | {i}) + edge                 # add i -> j
                    if d > best:
                        best, move = d, ("add", i, j)
        if move is None:
            break
        kind, i, j = move
        if kind in ("del", "rev"):
            parents[j].discard(i)
            children[i].discard(j)
        if kind == "add":
            parents[j].add(i)
            children[i].add(j)
        if kind == "rev":
            parents[i].add(j)
            children[j].add(i)
            here[i] = local(i, tuple(sorted(parents[i])))
        here[j] = local(j, tuple(sorted(parents[j])))
    return [tuple(sorted(p)) for p in parents]
