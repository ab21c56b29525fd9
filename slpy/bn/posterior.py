"""Questions to a learned network: the posterior over DAGs that a run kept, with each
DAG's posterior mean CPTs, averaged over the DAGs (`slpy query`, `slpy export`, the
report's CPT and CPDAG sections, and the Python API)::

    from slpy.bn.posterior import load_posterior
    post = load_posterior("asia-run")
    print(post.query("P(lung | smoke=yes)"))
    post.to_bif("map.bif")                  # the most visited DAG with its CPTs

A run's posterior is a mixture over the DAGs G it kept, weighted by their visit
frequencies w_G (the chains pooled), so an answer is

    P(Q | E, D) = sum_G w_G P(Q | E, G, theta_G),    theta_G = E[theta | G, D]

with P(Q | E, G, theta_G) by exact inference in G (slpy.bn.network). It is computed
once per distinct DAG (once per distinct set of the families the query reaches) and
its Monte Carlo standard error comes from the chains' draws: the standard deviation of
the chains' own estimates over sqrt(chains) when there are several, batch means of the
one chain's series otherwise (as the summary's errors).
"""
from __future__ import annotations

import math
from dataclasses import dataclass
from pathlib import Path

import numpy as np

from ..data.dataset import DataError
from ..errors import RunError
from ..report import ReportError
from .dag import parse_key
from .data import DiscreteData
from .network import CPTCache, Network, ZeroEvidence
from .predict import load_train_test
from .query import Query, QueryError, parse_query

__all__ = ["BNPosterior", "Answer", "load_posterior", "posterior_of_runs", "run_data"]


@dataclass(eq=False)
class Answer:
    """A query's answer: ``table`` has one axis per free target (`variables`, with
    their `levels`), a 0-d array when every target is asked at one value; ``mcse`` is
    its Monte Carlo standard error (None without chains), ``chains`` each chain's own
    estimate."""
    query: Query
    variables: list
    levels: list
    table: np.ndarray
    mcse: np.ndarray | None
    chains: np.ndarray | None
    draws: int
    dags: int
    rank: int | None = None       # the answer of one DAG, not of the posterior

    @property
    def value(self) -> float:
        """The probability of a query whose targets all have a value."""
        if self.table.ndim:
            raise ValueError(f"{self.query.text} is a table, not one probability")
        return float(self.table)

    def rows(self) -> list:
        """[(values of the free targets, probability, MCSE or None)] in C order."""
        out = []
        for idx in np.ndindex(*self.table.shape):
            se = None if self.mcse is None else float(self.mcse[idx])
            out.append(([lv[k] for lv, k in zip(self.levels, idx)], float(self.table[idx]),
                        se))
        return out

    def lines(self, digits: int = 4) -> list:
        if self.rank is not None:
            what = f"the DAG of rank {self.rank} alone"
        else:
            of = (f" of {len(self.chains)} chains" if self.chains is not None
                  and len(self.chains) > 1 else "")
            what = (f"averaged over {self.draws} kept draws{of} ({self.dags} distinct "
                    f"DAGs)" if self.draws else f"averaged over {self.dags} DAGs")
        # the error two decimals finer than the probability: it is often far smaller
        sd = digits + 2
        if not self.table.ndim:
            se = "" if self.mcse is None else f" (MCSE {float(self.mcse):.{sd}f})"
            return [f"{self.query.text} = {self.value:.{digits}f}{se}", what]
        head = list(self.variables) + ["P"] + (["MCSE"] if self.mcse is not None else [])
        body = [vals + [f"{p:.{digits}f}"] + ([f"{se:.{sd}f}"] if se is not None else [])
                for vals, p, se in self.rows()]
        width = [max(len(str(r[k])) for r in [head] + body) for k in range(len(head))]
        fmt = [" ".join(f"{c:<{w}}" if k < len(self.variables) else f"{c:>{w}}"
                        for k, (c, w) in enumerate(zip(r, width))).rstrip()
               for r in [head] + body]
        return [f"{self.query.text}, {what}"] + fmt

    def __str__(self):
        return "\n".join(self.lines())

    def to_dict(self) -> dict:
        return {"query": self.query.text, "variables": list(self.variables),
                "table": self.table.tolist(),
                "mcse": None if self.mcse is None else self.mcse.tolist(),
                "draws": self.draws, "dags": self.dags}


class BNPosterior:
    """DAGs (parent sets, node i's at i) with weights, on the variables of `data`;
    `chains` (optional) are each chain's kept draws as indices into `dags`. The DAGs
    are kept most probable first (rank 1 is the MAP estimate)."""

    def __init__(self, data: DiscreteData, dags, weights, score: str = "bdeu",
                 ess: float = 1.0, chains=None):
        if len(dags) != len(weights) or not len(dags):
            raise ValueError("one weight a DAG, and at least one DAG")
        w = np.asarray(weights, dtype=float)
        if not (np.isfinite(w).all() and (w >= 0).all() and w.sum() > 0):
            raise ValueError("weights must be finite, >= 0, and not all 0")
        order = np.argsort(-w, kind="stable")
        rank_of = np.empty(len(order), dtype=np.intp)
        rank_of[order] = np.arange(len(order))
        self.data = data
        self.names = list(data.names)
        self.dags = [tuple(tuple(sorted(int(p) for p in ps)) for ps in dags[k])
                     for k in order]
        self.weights = w[order] / w.sum()
        self.chains = None if chains is None else [rank_of[np.asarray(c, dtype=np.intp)]
                                                   for c in chains]
        self.cpt = CPTCache(data, score, ess)
        self._nets: dict = {}

    # -- DAGs and their parameters -------------------------------------------------------
    def network(self, rank: int = 1) -> Network:
        """The DAG of this rank (1: the most probable) with its posterior mean CPTs."""
        if not 1 <= rank <= len(self.dags):
            raise ValueError(f"rank {rank}: the posterior has DAGs of rank 1 to "
                             f"{len(self.dags)}")
        return self._network(rank - 1)

    def _network(self, k: int) -> Network:
        net = self._nets.get(k)
        if net is None:
            net = self._nets[k] = Network.from_data(self.data, self.dags[k], cache=self.cpt)
        return net

    def averaged_cpts(self, rank: int = 1) -> list:
        """The CPTs of the DAG of this rank averaged over the posterior: node i's is
        sum_G w_G P(X_i | pa_i, G, theta_G) for the parents pa_i it has in that DAG,
        an array shaped as its CPT."""
        net = self.network(rank)
        out = []
        for i, ps in enumerate(net.parents):
            def cond(g, scope=ps + (i,)):
                joint = g.query(scope, {})
                return joint / joint.sum(axis=-1, keepdims=True)
            out.append(self._average(cond, ps + (i,))[0])
        return out

    # -- queries -----------------------------------------------------------------------------
    def parse(self, text: str) -> Query:
        return parse_query(text, self.names, self.data.levels)

    def query(self, query, rank: int | None = None) -> Answer:
        """The answer to `query` (text, or a parsed Query) averaged over the DAGs, or
        from the DAG of `rank` alone."""
        q = self.parse(query) if isinstance(query, str) else query
        free = q.free
        cut = tuple(q.fixed.get(t, slice(None)) for t in q.targets)

        def one(net):
            return net.query(q.targets, q.evidence)[cut]
        if rank is not None:
            table = one(self.network(rank))
            return Answer(q, [self.names[t] for t in free],
                          [self.data.levels[t] for t in free], table, None, None, 0, 1,
                          rank)
        reach = set(q.targets) | set(q.evidence)
        table, se, per_chain = self._average(one, reach)
        draws = sum(len(c) for c in self.chains) if self.chains is not None else 0
        return Answer(q, [self.names[t] for t in free], [self.data.levels[t] for t in free],
                      table, se, per_chain, draws, len(self.dags))

    def _average(self, fn, reach):
        """(sum_G w_G fn(G), its MCSE, per-chain estimates); fn is computed once per
        distinct set of the families of `reach`'s ancestors, which alone decide it."""
        values, seen = [], {}
        for k, dag in enumerate(self.dags):
            key = _ancestral_families(dag, reach)
            if key not in seen:
                try:
                    seen[key] = fn(self._network(k))
                except ZeroEvidence:
                    raise QueryError("the evidence has probability 0 under the "
                                     "network") from None
            values.append(seen[key])
        vals = np.asarray(values, dtype=float)
        mean = np.tensordot(self.weights, vals, axes=1)
        if self.chains is None:
            return mean, None, None
        series = [vals[c] for c in self.chains if len(c)]
        per_chain = np.array([s.mean(axis=0) for s in series])
        if len(series) > 1:
            se = per_chain.std(axis=0, ddof=1) / math.sqrt(len(series))
        else:
            se = _batch_means_se(series[0])
        return mean, se, per_chain

    # -- the equivalence classes -----------------------------------------------------------
    def edge_marginals(self) -> np.ndarray:
        """[a, b] = P(a -> b): the posterior mass of the DAGs with the arrow."""
        n = len(self.names)
        m = np.zeros((n, n))
        for w, dag in zip(self.weights, self.dags):
            for i, ps in enumerate(dag):
                m[list(ps), i] += w
        return m

    def cpdag_marginals(self) -> dict:
        """slpy.bn.cpdag.cpdag_marginals of the posterior: ``adjacent``, ``compelled``
        and ``reversible`` [n, n] matrices."""
        from .cpdag import cpdag_marginals
        return cpdag_marginals(self.dags, self.weights, len(self.names))

    # -- export ----------------------------------------------------------------------------
    def to_bif(self, path=None, rank: int = 1, name: str = "slpy") -> str:
        """The DAG of this rank with its CPTs as BIF text (written to `path` too)."""
        from .bif import to_bif
        text = to_bif(self.network(rank), name)
        if path is not None:
            Path(path).write_text(text)
        return text

    def to_pgmpy(self, rank: int = 1):
        """The DAG of this rank with its CPTs as a pgmpy model (pgmpy is optional)."""
        from .bif import to_pgmpy
        return to_pgmpy(self.network(rank))


def _ancestral_families(dag, reach) -> tuple:
    keep, todo = set(), list(reach)
    while todo:
        v = todo.pop()
        if v not in keep:
            keep.add(v)
            todo.extend(dag[v])
    return tuple((v, dag[v]) for v in sorted(keep))


def _batch_means_se(x: np.ndarray):
    """The standard error of the mean of one chain's series x (draws on axis 0) by
    batch means: sqrt(n) batches, the first n mod size draws left out; None below 4
    draws (slpy.mcmc.summary's estimate, for a table at once)."""
    n = len(x)
    b = math.isqrt(n)
    if b < 2:
        return None
    a = n // b
    means = x[n - a * b:].reshape((b, a) + x.shape[1:]).mean(axis=1)
    return np.sqrt(means.var(axis=0, ddof=1) / b)


# -- run directories ---------------------------------------------------------------------------

def load_posterior(run_dirs) -> BNPosterior:
    """The posterior of one network run directory (or several of the same data,
    their chains pooled), its training data read again as the run read them (the
    --holdout split redone), which must hash as they did. Problems are ReportErrors."""
    return posterior_of_runs([run_dirs] if isinstance(run_dirs, (str, Path)) else
                             list(run_dirs))


def run_data(run):
    """The training data of a network run (slpy.report.rundir.Run)."""
    from ..runs import resolve_input
    cfg = dict(run.config)
    if (cfg.get("family") or "tree") != "bn":
        raise ReportError(f"{run.path}: not a Bayesian-network run (its family is "
                          f"{cfg.get('family') or 'tree'})")
    path = resolve_input(run.path, cfg, "data")
    if not path:
        raise ReportError(f"{run.path}: the run names no training data")
    cfg.update(data=path, test=None)
    try:
        train, _ = load_train_test(cfg)
    except (DataError, RunError, ValueError) as e:
        raise ReportError(f"{run.path}: cannot read the run's data: {e}") from None
    except OSError as e:
        raise ReportError(f"{run.path}: cannot read the run's data {path} "
                          f"({e.strerror or e})") from None
    if cfg.get("data_hash") and train.hash() != cfg["data_hash"]:
        raise ReportError(f"{run.path}: {path} is not the data the run used (its hash "
                          f"differs from config.json's)")
    return train


def posterior_of_runs(paths, runs=None):
    """The pooled posterior of the network runs at `paths` (already read: `runs`)."""
    from ..report.rundir import load_run
    runs = runs if runs is not None else [load_run(p) for p in paths]
    data = run_data(runs[0])
    for r in runs[1:]:
        if r.config.get("data_hash") != runs[0].config.get("data_hash"):
            raise ReportError(f"{r.path}: learnt from other data than {runs[0].path}")
    cfg = runs[0].config
    score, ess = cfg.get("score") or "bdeu", float(cfg.get("ess") or 1.0)
    index, dags, counts, chains = {}, [], [], []
    smc = any(r.config.get("method") == "smc" for r in runs)

    def number(key, where):
        k = index.get(key)
        if k is None:
            try:
                parents = parse_key(key, data.names)
            except (ValueError, KeyError, AttributeError, TypeError):
                raise ReportError(f"{where}: a model that is not a DAG on the data's "
                                  f"variables: {key[:60]}") from None
            k = index[key] = len(dags)
            dags.append(parents)
            counts.append(0)
        return k
    # models.csv's order first: DAGs visited as often keep its ranks
    for m in runs[0].models:
        number(m["model"], runs[0].path / "models.csv")
    for r in runs:
        if r.kind != "mcmc":
            raise ReportError(f"{r.path}: not an MCMC run")
        for ch in r.chains:
            local = []
            for key, count in ch.models:
                k = number(key, f"{r.path}: chain {ch.index}")
                counts[k] += count
                local.append(k)
            ids = ch.ids if ch.ids is not None else []
            if len(ids) and (ids.min() < 0 or ids.max() >= len(local)):
                raise ReportError(f"{r.path}: chain {ch.index}'s trace names a model its "
                                  f"models.csv does not have")
            chains.append([local[i] for i in ids])
    if not sum(counts):
        raise ReportError(f"{runs[0].path}: the chains kept no DAGs")
    # an SMC island's draws are particles, whose error batch means do not measure
    return BNPosterior(data, dags, counts, score, ess, chains=None if smc else chains)
