"""Bayesian networks over discrete data as a model family (slpy.family).

A model term is ``dag([Node-Parents, ...])``, one family per variable of the data
(priors/bn.slp). Its score is the sum of its families' BDeu or K2 log marginal
likelihoods (slpy.bn.score), cached per (node, parent set), so a move rescores only
the families it changed; it is traced by its number of edges; its key lists the
parent sets in the data's order. After a run the edges' posterior marginals are
summarised beside the top DAGs.
"""
from __future__ import annotations

import json

import numpy as np

from ..family import ModelFamily, Scorer, holdout_rng, register
from ..terms.term import Atom, Struct, deref, list_items
from .data import load_discrete_csv
from .score import FamilyScorer

__all__ = ["BNFamily", "BNScorer", "DAG", "BN", "parse_key"]


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
        from ..terms.writer import term_to_text
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
    from ..terms.writer import term_to_text
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
    from ..lang.reader import read_term_from_text
    from ..terms.ops import OpTable
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


class BNFamily(ModelFamily):
    name = "bn"
    query = "bn(G)"
    stats = BNScorer.stats
    folder = "dags"

    def load_data(self, cfg):
        from ..errors import RunError
        from .predict import holdout_split, read_rows_like
        if cfg.get("bucket"):
            raise RunError("--bucket is for trees: a network's variables are categories")
        data = load_discrete_csv(cfg["data"], count=cfg.get("count"))
        test = None
        if cfg.get("test"):
            test = read_rows_like(cfg["test"], data, cfg.get("target"))
        elif cfg.get("holdout"):
            rng = holdout_rng(cfg)
            data, test = holdout_split(data, cfg["holdout"], rng, cfg.get("target"))
        return data, test

    def data_hash(self, train) -> str:
        return train.hash()

    def bind(self, program, train, cfg) -> BNScorer:
        from ..errors import RunError
        program.attach("bn", train)
        try:
            fs = FamilyScorer(train, score=cfg.get("score") or "bdeu",
                              ess=float(cfg.get("ess") or 1.0))
        except ValueError as e:
            raise RunError(str(e)) from None
        return BNScorer(train.names, fs)

    def predict(self, scorer, train, test, visits, kept, models):
        """P(target | the other variables), averaged over the visited DAGs
        (slpy.bn.predict)."""
        if test is None or not kept:
            return None
        from .predict import predict_proba
        fs = scorer.families
        dags = [(parse_key(k, scorer.names), v.count) for k, v in visits.items()]
        return predict_proba(train, fs.score, fs.ess, dags, test)

    def describe(self, scorer, train, key, term=None):
        ps = scorer.parent_sets(term) if term is not None else parse_key(key, scorer.names)
        lik = scorer.families.total(ps) if scorer.families is not None else None
        return DAG(scorer.names, ps, lik)

    def summary(self, merged, kept):
        names = _names_of(merged)
        if names is None:
            return {}, []
        m = edge_marginals(names, merged, kept)
        table = {f"{names[i]}->{names[j]}": round(float(m[i, j]), 6)
                 for i in range(len(names)) for j in range(len(names)) if m[i, j] > 0}
        w = max(len(n) for n in names)
        lines = ["", "edge posterior marginals (row -> column):",
                 " " * (w + 1) + " ".join(f"{n[:6]:>6}" for n in names)]
        for i, n in enumerate(names):
            lines.append(f"{n:<{w}} " + " ".join(
                "     ." if i == j else f"{m[i, j]:6.3f}" for j in range(len(names))))
        return {"variables": names, "edge_marginals": table}, lines

    def label(self, stats) -> str:
        return f"{stats['edges']} edges"

    def report_sections(self, runs, out, top):
        from .report import report_sections
        return report_sections(runs, out, top)


def _names_of(merged):
    """The variables, in order, read off any key (each key names every variable)."""
    for key in merged:
        fams = list_items(deref(_key_term(key)).args[0])[0]
        return [deref(deref(f).args[0]).name for f in fams]
    return None


BN = register(BNFamily())


def _register_parents_move():
    from ..mcmc.moves import FamilyMove, register_move
    from . import moves
    register_move(FamilyMove("parents", moves.check_name, moves.parents_applies,
                             moves.parents_move))


_register_parents_move()
