"""Whether an estimator's chains have converged: ``convergence_``, the
:class:`ConvergenceWarning` of ``fit``, and the rounds of ``until_converged``.

The verdict is ``slpy run``'s (slpy.mcmc.convergence, figures from
slpy.diagnostics over the chains cut to one length), computed from ``trace_``;
``until_converged`` applies ``slpy run --until-converged``'s rule in memory: while
not converged and within the budget, fit again from the start with twice the
iterations, the same seed and the first round's burn-in, so a fit that stops at N
iterations equals a plain fit of N iterations with that burn-in.

The predictions have the same figures (``prediction_convergence(X)``: each row's
per-draw predicted probability or mean over the chains) and the trees' weights their
Monte Carlo standard errors (``trees_mcse_``, as ``slpy run``'s summary has them).
``until_converged`` does not read the predictions: which rows matter is the user's to
say, at prediction time, and reading them would change the rounds of existing fits.
"""
from __future__ import annotations

import math
import time

import numpy as np
from sklearn.exceptions import ConvergenceWarning as _SklearnConvergenceWarning

__all__ = ["ConvergenceWarning", "TRACES", "diagnose", "fit_rounds", "weight_mcse",
           "prediction_figures", "diagnose_predictions"]

# the traced quantities the verdict reads: (trace_ column, label)
TRACES = (("log_lik", "log-lik"), ("leaves", "leaves"), ("depth", "depth"))


class ConvergenceWarning(_SklearnConvergenceWarning):
    """``fit``'s chains were checked and have not converged (the message is the
    verdict line). A subclass of scikit-learn's ConvergenceWarning, so the filters
    that silence or raise scikit-learn's apply to it too."""


def diagnose(trace: dict, n_chains: int, rhat: float, ess: float) -> dict:
    """convergence_ without the rounds: R-hat, bulk and tail ESS of each of TRACES
    over the chains of ``trace`` (a trace_ dict; one chain: its two halves, as
    ``slpy run``), "rhat_warning", "chains", "draws", "checked" (four draws or more),
    "converged" and "verdict"."""
    from ..diagnostics import equal_length, trace_diagnostics
    from ..mcmc.convergence import Criterion, verdict
    chain = trace["chain"]
    columns = {k: equal_length([trace[k][chain == i] for i in range(n_chains)])
               for k, _ in TRACES}
    diag = trace_diagnostics(columns, min_chains=1)
    draws = int(columns["log_lik"].shape[1])
    conv = {"chains": int(n_chains), "draws": draws, **diag}
    checked = draws >= 4
    # rhat_warning is R-hat > 1.01 whatever the target; verdict reads it for the
    # infinite R-hats (None in the figures), and target_rhat decides the rest
    inf_only = dict(conv, rhat_warning=[k for k in diag["rhat_warning"]
                                         if diag[k]["rhat"] is None])
    ok, line = verdict(inf_only if checked else None, TRACES,
                       Criterion(float(rhat), float(ess)), max(2, n_chains))
    for k, _ in TRACES:       # numpy scalars -> floats: a JSON-ready dict
        conv[k] = {s: None if v is None else float(v) for s, v in conv[k].items()}
    return dict(conv, checked=checked, converged=bool(ok), verdict=line)


def fit_rounds(fit_round, n_iter: int, n_chains: int, *, until: bool, rhat: float,
               ess: float, max_iter: int | None, max_time: float | None, say=None):
    """(fit_round's result, convergence_): fit_round(n) fits n iterations a chain and
    returns (trees, trace, chains). With `until`, rounds of twice the iterations
    follow while the verdict is not converged, within `max_iter` iterations a chain
    and `max_time` seconds (a round runs only if its expected time, the last round's
    scaled by the iterations, fits); `say(line)` hears of each new round."""
    t0 = time.perf_counter()
    n, rounds, stop = int(n_iter), [], None
    while True:
        t = time.perf_counter()
        result = fit_round(n)
        took = time.perf_counter() - t
        rounds.append(n)
        conv = diagnose(result[1], n_chains, rhat, ess)
        if not until or conv["converged"]:
            break
        nxt = 2 * n if max_iter is None else min(2 * n, int(max_iter))
        if nxt <= n:
            stop = "max_iter"
        elif max_time is not None and \
                time.perf_counter() - t0 + took * nxt / n > max_time:
            stop = "max_time"
        if stop:
            break
        if say is not None:
            say(f"not converged after {n} iterations a chain: fitting again with {nxt}")
        n = nxt
    return result, dict(conv, rounds=rounds, stopped_by=stop)


def weight_mcse(trace: dict, n_trees: int) -> np.ndarray:
    """trees_mcse_: the Monte Carlo standard error of each tree's weight [n_trees],
    computed as ``slpy run``'s summary computes a top model's (batch means of the
    indicator of the tree in each chain, pooled as the weights pool the chains; rounded
    as there); nan where a chain has fewer than 4 draws."""
    from ..mcmc.summary import pooled_mcse      # the summary's own, so the two agree
    chain = trace["chain"]
    chains = [trace["tree"][chain == i] for i in np.unique(chain)]
    out = np.full(int(n_trees), math.nan)
    for k in range(int(n_trees)):
        se = pooled_mcse([(c == k).astype(np.float64) for c in chains])
        if se is not None:
            out[k] = round(se, 6)
    return out


def prediction_figures(draws: np.ndarray, start: int = 0) -> dict:
    """slpy.diagnostics.trace_diagnostics of draws[chain, draw, row, output], keyed
    (start + row, output)."""
    from ..diagnostics import trace_diagnostics
    _, _, n_rows, n_out = draws.shape
    return trace_diagnostics({(start + i, c): draws[:, :, i, c]
                              for i in range(n_rows) for c in range(n_out)}, min_chains=1)


def diagnose_predictions(diag: dict, shape: tuple, n_chains: int, draws: int,
                         rhat: float, ess: float, label) -> dict:
    """prediction_convergence's dict from prediction_figures' (merged over the rows):
    "rhat", "ess_bulk", "ess_tail" as arrays of `shape` [rows, outputs] (nan where
    undefined, inf for an infinite R-hat), "rhat_warning" (the rows with an R-hat
    above 1.01), "worst" (per figure, the row and output furthest from the criterion),
    "chains", "draws", "checked", "converged" and "verdict" (diagnose's rule and line;
    label(row, output) names a prediction in it)."""
    from ..mcmc.convergence import Criterion, verdict
    keys = [(i, c) for i in range(shape[0]) for c in range(shape[1])]
    warned = set(diag["rhat_warning"])
    out = {}
    for s in ("rhat", "ess_bulk", "ess_tail"):
        a = np.array([math.nan if diag[k][s] is None else diag[k][s] for k in keys])
        if s == "rhat":
            a[np.array([diag[k][s] is None and k in warned for k in keys],
                       dtype=bool)] = math.inf
        out[s] = a.reshape(shape)
    worst = {}
    for s in ("rhat", "ess_bulk", "ess_tail"):
        a = out[s]
        if np.isnan(a).all():
            worst[s] = None
            continue
        # nan (undefined) is never the worst
        high = s == "rhat"
        j = np.where(np.isnan(a), -math.inf if high else math.inf, a)
        i, c = np.unravel_index(int(np.argmax(j) if high else np.argmin(j)), shape)
        worst[s] = {"row": int(i), "output": int(c), "value": float(a[i, c])}
    checked = draws >= 4
    labels = [(k, label(*k)) for k in keys]
    # (a set: verdict asks of every key whether it is warned of)
    ok, line = verdict(dict(diag, rhat_warning=warned) if checked else None, labels,
                       Criterion(float(rhat), float(ess)), max(2, n_chains))
    return dict(out, rhat_warning=sorted({i for i, _ in warned}), worst=worst,
                chains=int(n_chains), draws=int(draws), checked=checked,
                converged=bool(ok), verdict=line)
