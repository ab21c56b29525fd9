"""Builtins that give a clustering prior the items it partitions.

A prior over partitions needs only how many items there are (not their values):

    cluster_items(Is)    Is = [1, 2, ..., n]: the data's rows, numbered in their order
    cluster_count(N)     N: the number of items

They are the "cluster" plugin (slpy.logic.plugins): ``program.attach("cluster", n)``
(or any data object with ``n_rows``) gives a program the items, kept in
``engine.plugin_state["cluster"]``. A program given data for the tree priors instead
(``program.attach_data``: what `slpy sample` and `slpy repl --data` do) has its rows.
"""
from __future__ import annotations

from ..logic.plugins import Plugin, register
from ..terms.term import Struct, Var, atom, mklist
from ..terms.errors import existence_error


def _attach(program, data) -> None:
    n = data if isinstance(data, int) else int(data.n_rows)
    if n < 1:
        raise ValueError("a partition needs at least one item")
    program.engine.plugin_state["cluster"] = n


CLUSTER = register(Plugin("cluster", attach=_attach))


def _n(eng) -> int:
    n = eng.plugin_state.get("cluster")
    if n is None and getattr(eng.program, "dataset", None) is not None:
        n = eng.program.dataset.n_rows
    if n is None:
        raise existence_error("data", atom("clustering_data"), Struct("context", (
            Var(), atom("this prior needs data: give --data FILE"))))
    return n


@CLUSTER.det("cluster_items", 1)
def cluster_items(eng, items):
    return eng.unify(items, mklist(list(range(1, _n(eng) + 1))))


@CLUSTER.det("cluster_count", 1)
def cluster_count(eng, n):
    return eng.unify(n, _n(eng))
