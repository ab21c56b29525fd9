"""Whether an estimator's chains have converged: ``convergence_``, the
:class:`ConvergenceWarning` of ``fit``, and the rounds of ``until_converged``.

The verdict is ``slpy run``'s (slpy.mcmc.convergence, figures from
slpy.diagnostics over the chains cut to one length), computed from ``trace_``;
``until_converged`` applies ``slpy run --until-converged``'s rule in memory: while
not converged and within the budget, fit again from the start with twice the
iterations, the same seed and the first round's burn-in, so a fit that stops at N
iterations equals a plain fit of N iterations with that burn-in.
"""
from __future__ import annotations

import time

from sklearn.exceptions import ConvergenceWarning as _SklearnConvergenceWarning

__all__ = ["ConvergenceWarning", "TRACES", "diagnose", "fit_rounds"]

# the traced quantities the verdict reads: (trace_ column, label)
TRACES = (("log_lik", "log-lik"), ("leaves", "leaves"), ("depth", "depth"))


class ConvergenceWarning(_SklearnConvergenceWarning):
    """``fit``'s chains were checked and have not converged (the message is the
    verdict line). A subclass of scikit-learn's ConvergenceWarning, so the filters
    that silence or raise scikit-learn's apply to it too."""


def diagnose(trace: dict, n_chains: int, rhat: float, ess: float) -> dict:
    """convergence_ without the rounds: R-hat, bulk and tail ESS of each of TRACES
    over the chains of ``trace`` (a trace_ dict), "rhat_warning", "chains", "draws",
    "checked" (two chains or more, four draws or more), "converged" and "verdict"."""
    from ..diagnostics import equal_length, trace_diagnostics
    from ..mcmc.convergence import Criterion, verdict
    chain = trace["chain"]
    columns = {k: equal_length([trace[k][chain == i] for i in range(n_chains)])
               for k, _ in TRACES}
    diag = trace_diagnostics(columns)
    draws = int(columns["log_lik"].shape[1])
    conv = {"chains": int(n_chains), "draws": draws, **diag}
    checked = n_chains >= 2 and draws >= 4
    # rhat_warning is R-hat > 1.01 whatever the target; verdict reads it for the
    # infinite R-hats (None in the figures), and target_rhat decides the rest
    inf_only = dict(conv, rhat_warning=[k for k in diag["rhat_warning"]
                                         if diag[k]["rhat"] is None])
    ok, line = verdict(inf_only if checked else None, TRACES,
                       Criterion(float(rhat), float(ess)), n_chains)
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

