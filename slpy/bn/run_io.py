"""A network run directory read back as a posterior (slpy.bn.posterior.BNPosterior):
its kept DAGs with their visit counts, each chain's draws, and its training data read
again as the run read them (the --holdout split redone), which must hash as they did.
Every problem is a one-line ReportError."""
from __future__ import annotations

from ..data.dataset import DataError
from ..errors import RunError
from ..report import ReportError
from .dag import parse_key

__all__ = ["posterior_of_runs", "run_data"]


def run_data(run):
    """The training data of a network run (slpy.report.rundir.Run)."""
    from ..runs import resolve_input
    from .family import BN
    cfg = dict(run.config)
    if (cfg.get("family") or "tree") != "bn":
        raise ReportError(f"{run.path}: not a Bayesian-network run (its family is "
                          f"{cfg.get('family') or 'tree'})")
    path = resolve_input(run.path, cfg, "data")
    if not path:
        raise ReportError(f"{run.path}: the run names no training data")
    cfg.update(data=path, test=None)
    try:
        train, _ = BN.load_data(cfg)
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
    from .posterior import BNPosterior
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
