"""Diagnostics over chains and runs, and agreement between seeds (paper 002, section 7).

- ``convergence``: per run, R-hat and bulk ESS of the log-likelihood, leaves and depth
  traces over its chains, acceptance rates per chain and swap rates; and pooled over
  the chains of all MCMC runs (runs with different seeds are more chains of the same
  target when they share prior, settings and data).
- ``top_trees``: the estimated posterior probability of the most probable trees in
  each run, side by side (paper 002, Tables 2-5).
- ``prediction_sets`` / ``agreement``: test-set class probabilities of each run on the
  same rows, and the mean and max absolute difference between each pair (section 7.2,
  Figs 1-9).
- ``exact_distance``: where the exact back end applies, the total variation distance
  between the MCMC visit frequencies and the exact posterior over trees, and the exact
  posterior mass of the trees visited.
"""
from __future__ import annotations

import itertools
from pathlib import Path

import numpy as np

from . import ReportError
from ..diagnostics import equal_length, trace_diagnostics

__all__ = ["TRACES", "convergence", "comparison_units", "top_trees", "prediction_sets",
           "agreement", "exact_distance", "exact_for", "same_posterior"]

TRACES = (("log_lik", "log-likelihood"), ("leaves", "leaves"), ("depth", "depth"))
EXACT = "exact posterior"       # the label of the exact back end's column


def _diag(chains, traces=TRACES, min_chains=2) -> dict | None:
    chains = [c for c in chains if c.n]
    n = min((c.n for c in chains), default=0)
    if len(chains) < min_chains or n < 4:
        return None
    d = trace_diagnostics({k: equal_length([getattr(c, k) for c in chains])
                           for k, _ in traces}, min_chains=min_chains)
    return {"chains": len(chains), "draws": n, **d}


def convergence(runs, traces=TRACES) -> dict:
    """{"runs": [per MCMC run: label, R-hat/ESS (one chain: of its halves), the verdict
    (converged, its line) under the run's --target-rhat/--target-ess, acceptance rate
    per chain, swap rates], "pooled": R-hat/ESS over every chain of every run (None
    with one run)}. `traces`: (key, name) of the traces diagnosed. SMC runs are left
    out: an island's particles are not a chain, and R-hat over them says nothing."""
    from ..mcmc.convergence import criterion_of, verdict
    out = []
    mcmc = [r for r in runs if r.kind == "mcmc" and not r.smc]
    for r in mcmc:
        swaps = r.summary.get("swap_rates") or {}
        diag = _diag(r.chains, traces, min_chains=1)     # one chain: its halves, as
        ok, line = verdict(diag, traces, criterion_of(r.config), 2)     # slpy run's
        out.append({"run": r.label, "path": str(r.path),
                    "diagnostics": diag, "converged": ok, "verdict": line,
                    "acceptance": [c.acceptance_rate for c in r.chains],
                    "acceptance_rate": r.summary.get("acceptance_rate"),
                    "swap_rates": {k: v for k, v in sorted(swaps.items())}})
    pooled = _diag([c for r in mcmc for c in r.chains], traces) if len(mcmc) > 1 else None
    return {"runs": out, "pooled": pooled}


def same_posterior(runs) -> bool:
    """Whether the MCMC runs target one posterior: same prior, query, parameters,
    likelihood and training data (only seeds, lengths and sampler settings differ)."""
    keys = {(r.config.get("prior"), r.config.get("query"),
             tuple(sorted((r.config.get("params") or {}).items())),
             r.config.get("likelihood"), r.config.get("alpha", 1.0),
             r.config.get("data_hash")) for r in runs if r.kind == "mcmc"}
    return len(keys) <= 1


def comparison_units(runs) -> list:
    """What the seed comparisons compare: the runs, or, when there is one MCMC run with
    several chains, its chains (as runs of one chain each, labelled "chain I", or
    "island I" under SMC)."""
    from dataclasses import replace
    mcmc = [r for r in runs if r.kind == "mcmc"]
    if len(mcmc) != 1 or len(mcmc[0].chains) < 2:
        return list(runs)
    run = mcmc[0]
    info = {m["model"]: m for m in run.models}
    units = []
    for c in run.chains:
        kept = sum(n for _, n in c.models) or 1
        models = sorted(({**info.get(m, {"leaves": None, "log_lik": None, "depth": None}),
                          "model": m, "count": n, "prob": n / kept} for m, n in c.models),
                        key=lambda m: (-m["prob"], m["model"]))
        units.append(replace(run, chains=[c], models=models, predictions=None,
                             predictions_exact=None, trees={},
                             name=f"{'island' if run.smc else 'chain'} {c.index}"))
    return [r for r in runs if r.kind != "mcmc"] + units


def top_trees(runs, k: int = 5, extra: dict | None = None) -> dict:
    """The union of each run's k most probable trees, by their largest probability in
    any run, first k * len(runs) at most: {"labels": [...], "rows": [{"model", "leaves",
    "log_lik", "probs": [p or None per column]}]}. An MCMC run gives 0 to a tree it
    never visited; an exact run's models.csv lists its top trees only (None
    elsewhere). ``extra`` adds a column {label: {canonical: probability}} (the exact
    posterior)."""
    labels = [r.label for r in runs] + list(extra or {})
    tables = [r.model_probs() for r in runs] + list((extra or {}).values())
    info = {}
    for r in runs:
        for m in r.models:
            info.setdefault(m["model"], m)
    cand = set()
    for r in runs:
        cand.update(m["model"] for m in r.models[:k])
    for t in (extra or {}).values():
        cand.update(sorted(t, key=lambda m: -t[m])[:k])
    rows = []
    for model in cand:
        probs = []
        for r, t in zip(list(runs) + [None] * len(extra or {}), tables):
            if model in t:
                probs.append(t[model])
            else:
                probs.append(0.0 if r is not None and r.kind == "mcmc" else None)
        m = info.get(model, {})
        rows.append({"model": model, "leaves": m.get("leaves"), "log_lik": m.get("log_lik"),
                     "probs": probs})
    rows.sort(key=lambda x: (-max(p or 0.0 for p in x["probs"]), x["model"]))
    return {"labels": labels, "rows": rows[:k * max(1, len(labels))]}


# -- test-set predictions --------------------------------------------------------------------

def _test_key(r):
    from ..runs import resolve_input
    from .predict import _target
    cfg = r.config
    if cfg.get("test"):
        return ("file", str(Path(resolve_input(r.path, cfg, "test")).resolve()))
    if r.kind == "mcmc" and cfg.get("holdout"):
        split_seed = cfg["split_seed"] if "split_seed" in cfg else cfg.get("seed")
        return ("holdout", str(Path(resolve_input(r.path, cfg, "data")).resolve()),
                cfg["holdout"], split_seed, _target(cfg))
    return None


def prediction_sets(runs, test_csv=None, exact=None, allow_load=()) -> dict:
    """Class probabilities of each run on the same test rows.

    With ``test_csv``: every run's predictive is computed for its rows. Otherwise, when
    the runs share their test rows, each run's predictions file is used (or its
    predictive recomputed for the rows, for a run without one); when the runs held out
    different rows (`--holdout` with different split seeds), every MCMC run's predictive is
    computed for the first run's test rows (and the note says so). ``exact``: an
    ExactPosterior whose predictive joins as the column EXACT. Returns {"classes",
    "sets": [(label, probs [n, C])], "note", "true"}, or {} when there is nothing to
    compare.
    """
    from .predict import load_run_data, mcmc_predictive, exact_posterior, read_rows, _target
    cache: dict = {}

    def data_of(r):
        key = str(r.path)
        if key not in cache:
            cache[key] = (load_run_data(r), {})
        return cache[key]

    def predictive(r, X):
        data, trees = data_of(r)
        return mcmc_predictive(r, data, X, trees) if r.kind == "mcmc" else \
            exact_posterior(r, data, allow_load).predict(X)

    sets = []
    if test_csv is not None:
        ref = next((r for r in runs if r.kind == "mcmc"), runs[0])
        X, true, _, _ = read_rows(test_csv, data_of(ref)[0].train, _target(ref.config))
        sets = [(r.label, predictive(r, X)) for r in runs]
        note = f"the rows of {test_csv}"
        classes = data_of(ref)[0].train.classes
    else:
        keys = {_test_key(r) for r in runs if _test_key(r) is not None}
        ref = next((r for r in runs if r.kind == "mcmc" and _test_key(r)), None)
        if ref is None or data_of(ref)[0].train.task != "classification":
            return {}
        X = data_of(ref)[0].test.X
        classes = data_of(ref)[0].train.classes
        true = [classes[c] for c in data_of(ref)[0].test.y]
        for r in runs:
            own = r.predictions if r.kind == "mcmc" else r.predictions_exact
            if own is not None and _test_key(r) == _test_key(ref):
                sets.append((r.label, own[1]))
            elif r.kind == "mcmc":
                sets.append((r.label, predictive(r, X)))
        note = "the runs' own test rows"
        if len(keys) > 1:
            note = (f"the test rows of {ref.label}: the runs held out different rows, so "
                    f"each run's predictive is computed for these rows (a run trained on "
                    f"other rows has seen some of them)")
    if exact is not None:
        sets.append((EXACT, exact.predict(X)))
    return {"classes": list(classes), "sets": sets, "note": note, "true": true}


def agreement(pred: dict) -> list[dict]:
    """Mean and max absolute difference of class probabilities for each pair of
    prediction sets (over rows and classes)."""
    out = []
    for (la, pa), (lb, pb) in itertools.combinations(pred.get("sets", []), 2):
        d = np.abs(np.asarray(pa) - np.asarray(pb))
        out.append({"a": la, "b": lb, "rows": int(d.shape[0]),
                    "mean_abs_diff": float(d.mean()), "max_abs_diff": float(d.max())})
    return out


# -- exact posterior -------------------------------------------------------------------------

def exact_distance(runs, exact) -> list[dict]:
    """Per MCMC run: total variation distance between its tree frequencies p^ and the
    exact posterior p, 1/2 (sum over visited T of |p^(T) - p(T)| + 1 - sum over visited
    T of p(T)), and the exact mass of the visited trees."""
    out = []
    cache: dict = {}
    for r in runs:
        if r.kind != "mcmc":
            continue
        diff = mass = 0.0
        for model, p_hat in r.model_probs().items():
            p = cache.get(model)
            if p is None:
                p = cache[model] = exact.prob(model)
            diff += abs(p_hat - p)
            mass += p
        out.append({"run": r.label, "visited": len(r.models),
                    "exact_mass_visited": mass,
                    "total_variation": 0.5 * (diff + max(0.0, 1.0 - mass))})
    return out


def exact_for(runs, allow_load=()):
    """The exact posterior of the MCMC runs' common target (ReportError when the runs
    target different posteriors or the back end does not apply)."""
    from .predict import load_run_data, exact_posterior
    mcmc = [r for r in runs if r.kind == "mcmc"]
    if not mcmc:
        raise ReportError("--exact compares MCMC runs with the exact posterior: give an "
                          "`slpy run` directory")
    if not same_posterior(mcmc):
        raise ReportError("--exact needs runs of one posterior (same prior, parameters and "
                          "training data)")
    return exact_posterior(mcmc[0], load_run_data(mcmc[0]), allow_load)
