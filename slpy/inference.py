"""ArviZ InferenceData of a sampled posterior: ``slpy.to_inference_data(run)`` for a run
directory of ``slpy run`` and ``est.to_inference_data()`` for a fitted estimator
(docs/python.md). ArviZ is an optional extra (``pip install 'slpy[diagnostics]'``).

Groups, with dimensions (chain, draw) over the kept iterations of each chain (cut to
the shortest chain):

- ``posterior``: ``log_lik`` (the model's log marginal likelihood) and the family's
  traced integers (trees: ``leaves``, ``depth``; networks: ``edges``);
- ``sample_stats``: ``accepted`` (the iteration's move was accepted),
  ``choice_points`` (d_T, the size of the proof tree), and for tempered runs ``heat``
  (chain, draw, replica: the ladder in use) and ``swap_proposed`` / ``swap_accepted``
  (chain, draw, pair of neighbouring replicas);
- trees only: ``observed_data`` ``y`` (row: the training rows' responses) and
  ``log_likelihood`` ``y`` (chain, draw, row): the pointwise log-likelihood.

The pointwise log-likelihood of a tree draw. The sampler integrates the leaf
parameters out, so a draw is a tree T alone, and the rows are not independent given
T (they are exchangeable within a leaf). Each draw is completed with leaf parameters
theta drawn from their conjugate posterior given T and the data (class probabilities
~ Dirichlet(counts + alpha); for regression sigma^2 and the leaf means of the normal
model), which makes (T, theta) a draw from the joint posterior, given which the rows
are independent; the group holds log p(y_i | T, theta), the standard conditional
likelihood, so that az.loo, az.waic, p_loo and the Pareto k diagnostic mean what
ArviZ says they mean. theta comes from ``random_state``: the same seed gives the same
values. (The leave-one-out predictive within the tree, log p(y_i | T, y_-i), would
estimate the same elpd_loo without theta's noise, but takes few distinct values, on
which PSIS's Pareto fit fails: infinite k, or a NaN elpd_loo.)
"""
from __future__ import annotations

import os

import numpy as np

__all__ = ["to_inference_data", "estimator_inference_data"]


def _arviz():
    try:
        import arviz
    except ImportError:
        raise ImportError("to_inference_data needs ArviZ: pip install 'slpy[diagnostics]'"
                          ) from None
    return arviz


def _rng(random_state):
    if isinstance(random_state, np.random.Generator):
        return random_state
    return np.random.default_rng(random_state)


def to_inference_data(run, *, random_state=0, thin: int = 1, log_likelihood: bool = True):
    """An ``arviz.InferenceData`` of the MCMC run in the run directory ``run`` (a path,
    or a run read by ``slpy.report.rundir.load_run``). ``random_state`` (an int or a
    numpy Generator) draws the leaf parameters of the pointwise log-likelihood; ``thin`` keeps
    every thin-th draw; ``log_likelihood=False`` leaves out the pointwise
    log-likelihood (and the training data it needs)."""
    from .report.rundir import load_run
    from .runs import RunDir
    az = _arviz()
    _check(thin)
    if isinstance(run, (str, os.PathLike)):
        run = load_run(run)
    if run.kind != "mcmc":
        raise ValueError(f"{run.path}: an exact run has no chains to make an "
                         f"InferenceData of (draw from it with slpy sample)")
    rd = RunDir(run.path, create=False)
    traces = [rd.read_trace(c.index) for c in run.chains]
    n = min(len(t["log_lik"]) for t in traces)
    keep = slice(0, n, thin)
    family = run.config.get("family") or "tree"
    stats = [k for k in traces[0] if k not in ("iter", "model", "log_lik", "d", "accepted",
                                               "swap")]
    posterior = {"log_lik": _stack(traces, "log_lik", keep)}
    posterior.update({k: _stack(traces, k, keep).astype(np.int64) for k in stats})
    sample_stats = {"accepted": _stack(traces, "accepted", keep).astype(bool),
                    "choice_points": _stack(traces, "d", keep).astype(np.int64)}
    dims, coords = {}, {}
    swaps = [[_swap_entries(row) for row in t["swap"][keep]] if len(t["swap"]) else []
             for t in traces]
    _tempering(run.summary.get("heats"), swaps, sample_stats, dims, coords)
    groups = {}
    if family == "tree" and log_likelihood:
        draws = []
        for c, t in zip(run.chains, traces):      # chain_I/models.csv: models by trace id
            key = [m for m, _ in rd.read_chain_models(c.index)]
            draws.append([key[int(i)] for i in t["model"][keep]])
        groups = _tree_groups(run, draws, _rng(random_state), dims, coords)
    attrs = {"slpy_run": str(run.path), "family": family}
    return az.from_dict(posterior=posterior, sample_stats=sample_stats, coords=coords,
                        dims=dims, attrs=attrs, **groups)


def _check(thin):
    if not (isinstance(thin, (int, np.integer)) and thin >= 1):
        raise ValueError(f"thin must be an integer >= 1, got {thin!r}")


def _stack(traces, key, keep):
    return np.stack([np.asarray(t[key])[keep] for t in traces])


def _swap_entries(row: str) -> list:
    """[(pair "i-j", accepted)] of a trace.csv swap cell ("0-1:1;2-3:0")."""
    return [(e.partition(":")[0], e.partition(":")[2] == "1") for e in row.split(";") if e]


def _draw_swaps(trace, n: int) -> list:
    """Per draw of the first n of a Trace: [(pair "i-j", accepted)]."""
    rows = [[] for _ in range(n)]
    for d, i, j, a in trace.swaps.tolist():
        if d < n:
            rows[d].append((f"{i}-{j}", bool(a)))
    return rows


def _tempering(heats, swaps, sample_stats, dims, coords):
    """The ladder (heats: per chain) and the swaps (per chain, per draw: [(pair,
    accepted)]) of a tempered run, as sample_stats."""
    shape = sample_stats["accepted"].shape
    if heats and len(heats[0]) > 1:
        sample_stats["heat"] = np.broadcast_to(
            np.asarray(heats, dtype=np.float64)[:, None, :], shape + (len(heats[0]),)).copy()
        dims["heat"] = ["replica"]
    pairs = sorted({p for ch in swaps for row in ch for p, _ in row},
                   key=lambda p: tuple(map(int, p.split("-"))))
    if not pairs:
        return
    index = {p: k for k, p in enumerate(pairs)}
    proposed = np.zeros(shape + (len(pairs),), bool)
    accepted = np.zeros_like(proposed)
    for c, ch in enumerate(swaps):
        for d, row in enumerate(ch):
            for pair, acc in row:
                proposed[c, d, index[pair]] = True
                accepted[c, d, index[pair]] = acc
    sample_stats["swap_proposed"], sample_stats["swap_accepted"] = proposed, accepted
    dims["swap_proposed"] = dims["swap_accepted"] = ["pair"]
    coords["pair"] = pairs


def _tree_groups(run, draws, rng, dims, coords) -> dict:
    from .report.predict import load_run_data
    from .trees.interpret import WeightedTrees, normal_prior
    from .trees.model import Tree
    data = load_run_data(run)
    train = data.train
    like = run.config.get("likelihood") or ("normal" if train.task == "regression"
                                            else "dirichlet")
    if like not in ("dirichlet", "normal"):
        raise ValueError(f"{run.path}: no pointwise log-likelihood for the {like} "
                         f"likelihood (log_likelihood=False leaves it out)")
    keys = list(dict.fromkeys(k for ch in draws for k in ch))
    index = {k: i for i, k in enumerate(keys)}
    trees = [Tree.from_canonical(k, data.rowsets, train, data.alpha) for k in keys]
    wt = WeightedTrees(trees, np.ones(len(trees)), train.task, train.n_features,
                       alpha=data.alpha, normal=normal_prior(train))
    ids = np.array([[index[k] for k in ch] for ch in draws], dtype=np.int64)
    return pointwise_groups(wt, ids, train.X, train.y, _labels(train), rng, dims, coords)


def _labels(train):
    if train.task == "classification":
        return np.asarray(train.classes)[np.asarray(train.y)]
    return np.asarray(train.y, dtype=np.float64)


def pointwise_groups(wt, ids, X, y, observed, rng, dims, coords) -> dict:
    """observed_data and log_likelihood groups: ids [chains, draws] index wt.trees."""
    ll = np.empty(ids.shape + (len(y),))
    first = {}
    for pos, t in enumerate(ids.ravel()):             # trees in order of first draw
        first.setdefault(int(t), pos)
    for t in sorted(first, key=first.get):
        where = np.nonzero(ids == t)
        ll[where] = wt.pointwise_log_lik(t, X, y, len(where[0]), rng)
    dims["y"] = ["row"]
    coords["row"] = np.arange(len(y))
    return {"observed_data": {"y": observed}, "log_likelihood": {"y": ll}}


def estimator_inference_data(est, X=None, y=None, *, random_state=0, thin: int = 1):
    """est.to_inference_data(): the estimator's trace_ and trees_ with the training
    data (given, or kept from fit)."""
    az = _arviz()
    _check(thin)
    if est.trace_ is None:
        raise ValueError(f"{type(est).__name__}: method='exact' has no chains to make an "
                         f"InferenceData of")
    X, y, observed = est._training_rows(X, y)
    tr = est.trace_
    chains = np.unique(tr["chain"])
    n = min(int((tr["chain"] == c).sum()) for c in chains)

    def col(key, dtype=None):
        out = np.stack([tr[key][tr["chain"] == c][:n:thin] for c in chains])
        return out if dtype is None else out.astype(dtype)
    posterior = {"log_lik": col("log_lik"), "leaves": col("leaves", np.int64),
                 "depth": col("depth", np.int64)}
    sample_stats = {"accepted": col("accepted", bool),
                    "choice_points": col("d", np.int64)}
    dims, coords = {}, {}
    outs = est.__dict__.get("chains_")       # in memory after fit; None after load
    if outs:
        _tempering([o.heats for o in outs], [_draw_swaps(o.trace, n)[::thin] for o in outs],
                   sample_stats, dims, coords)
    wt = est._weighted_trees()
    groups = pointwise_groups(wt, col("tree", np.int64), X, y, observed,
                              _rng(random_state), dims, coords)
    attrs = {"estimator": type(est).__name__}
    return az.from_dict(posterior=posterior, sample_stats=sample_stats, coords=coords,
                        dims=dims, attrs=attrs, **groups)
