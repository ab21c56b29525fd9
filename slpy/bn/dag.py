"""A Bayesian network's model term ``dag([Node-Parents, ...])``: its scorer, its key
(the parent sets in the data's order, read back by :func:`parse_key`) and the
:class:`DAG` it names, with the edges' posterior marginals over visited keys. The
family (slpy.bn.family), its move (slpy.bn.moves), its predictions and its report
sections all build on this module.
"""
from __future__ import annotations

import json

import numpy as np

from ..family import Scorer
from ..lang.reader import read_term_from_text
from ..terms.ops import OpTable
from ..terms.term import Atom, Struct, deref, list_items
from ..terms.writer import term_to_text
from .score import FamilyScorer

__all__ = ["BNScorer", "DAG", "parse_key", "edge_marginals", "variables_of"]


class BNScorer(Scorer):
    """Scores ``dag([Node-Parents, ...])`` terms with a FamilyScorer (None: the
    prior alone) on the variables `names`."""

    stats = ("edges",)
    # every choice is a pair's link: redraw it from the prior or among the other two
    # (no stochastic builtins, so perturb and swap would never move)
    proposal = "uc:0.5,change:0.5"

    def __init__(self, names, families: FamilyScorer | None):
        self.names = list(names)
        self.index = {n: i for i, n in enumerate(self.names)}
        self.families = families
        self._quoted = {n: _quote(n) for n in self.names}

    def parent_sets(self, term) -> list:
        """Node i's parents as a sorted tuple of indices, for every node."""
        t = deref(term)
        if not (type(t) is Struct and t.name == "dag" and len(t.args) == 1):
            raise ValueError(f"not a model term dag([Node-Parents, ...]): {t}")
        index = self.index
        out = [()] * len(index)
        cell = deref(t.args[0])
        while type(cell) is Struct:         # '.'(Family, Rest)
            fam = deref(cell.args[0])
            node = index[deref(fam.args[0]).name]
            ps = []
            pc = deref(fam.args[1])
            while type(pc) is Struct:
                ps.append(index[deref(pc.args[0]).name])
                pc = deref(pc.args[1])
            out[node] = tuple(sorted(ps))
            cell = deref(cell.args[1])
        return out

    def score(self, term):
        ps = self.parent_sets(term)
        edges = sum(len(p) for p in ps)
        if self.families is None:
            return 0.0, (edges,)
        local = self.families.local
        return sum(local(i, p) for i, p in enumerate(ps)), (edges,)

    def key(self, term) -> str:
        return self.key_of(self.parent_sets(term))

    def key_of(self, parent_sets) -> str:
        q, names = self._quoted, self.names
        return "dag([" + ",".join(
            f"{q[names[i]]}-[{','.join(q[names[j]] for j in ps)}]"
            for i, ps in enumerate(parent_sets)) + "])"

    def check(self, term):
        bad = f"not a DAG dag([Node-Parents, ...]) on this data's variables " \
              f"({', '.join(self.names)}): {term_to_text(term, quoted=True)[:60]}"
        try:
            ps = self.parent_sets(term)
            fams = list_items(deref(term).args[0])[0]
            nodes = [deref(deref(f).args[0]).name for f in fams]
        except (ValueError, KeyError, AttributeError, IndexError, TypeError):
            return bad
        if sorted(nodes) != sorted(self.names):
            return bad + " (each variable must have one family)"
        if not _acyclic(ps):
            return "the graph has a directed cycle"
        return None

    def pattern(self, term):
        return term


def _quote(name: str) -> str:
    return term_to_text(Atom(name), quoted=True)


def _acyclic(parent_sets) -> bool:
    left = {i: set(p) for i, p in enumerate(parent_sets)}
    while left:
        free = [i for i, p in left.items() if not p & left.keys()]
        if not free:
            return False
        for i in free:
            del left[i]
    return True


def _key_term(key: str):
    """A BN key (BNScorer.key_of) read back as a term."""
    return read_term_from_text(key, OpTable(), {})[0]


def parse_key(key: str, names) -> list:
    """The parent sets (sorted index tuples) of a BN key (BNScorer.key_of)."""
    return BNScorer(names, None).parent_sets(_key_term(key))


class DAG:
    """A visited network, for the summary (text), the run directory (JSON) and the
    report (drawn)."""

    def __init__(self, names, parent_sets, log_lik=None):
        self.names = list(names)
        self.parents = [tuple(p) for p in parent_sets]
        self.log_lik = log_lik

    @property
    def edges(self) -> list:
        return [(self.names[j], self.names[i]) for i, ps in enumerate(self.parents)
                for j in ps]

    def __str__(self):
        lines = []
        for i, ps in enumerate(self.parents):
            src = ", ".join(self.names[j] for j in ps)
            lines.append(f"  {self.names[i]} <- {src}" if ps else f"  {self.names[i]}")
        return "\n".join(lines)

    def to_json(self) -> str:
        return json.dumps({"format": "slpy-dag/1", "variables": self.names,
                           "parents": {self.names[i]: [self.names[j] for j in ps]
                                       for i, ps in enumerate(self.parents)},
                           "log_lik": self.log_lik}, indent=1)

    def to_dot(self) -> str:
        body = "".join(f'  "{a}" -> "{b}";\n' for a, b in self.edges)
        nodes = "".join(f'  "{n}";\n' for n in self.names)
        return "digraph dag {\n" + nodes + body + "}\n"


def edge_marginals(names, merged: dict, kept: int) -> np.ndarray:
    """[i, j] = posterior probability of the edge i -> j, from visit counts
    (key -> {"count", ...})."""
    m = np.zeros((len(names), len(names)))
    for key, v in merged.items():
        for i, ps in enumerate(parse_key(key, names)):
            for j in ps:
                m[j, i] += v["count"]
    return m / max(kept, 1)


def variables_of(merged):
    """The variables, in order, read off any key (each key names every variable)."""
    for key in merged:
        fams = list_items(deref(_key_term(key)).args[0])[0]
        return [deref(deref(f).args[0]).name for f in fams]
    return None
