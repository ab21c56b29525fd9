"""The summary of a run's chains: summary.json's figures and summary.txt's lines."""
from __future__ import annotations

import math

import numpy as np

from ..runs import accuracy_figures
from .config import family_of
from .convergence import verdict, criterion_of
from .output import merge_visits

__all__ = ["summarise", "timing_line", "TIMING"]

TIMING = ("seconds", "iterations_per_second")   # in timing.json, not summary.json

# what to add to a run without test rows for a held-out accuracy, by family
HOLDOUT_HINT = {
    "tree": lambda cfg: "--holdout 0.2 (or --test CSV)",
    "bn": lambda cfg: ("" if cfg.get("target") else "--target VARIABLE ")
    + "--holdout 0.2 (or --test CSV)",
}
# neighbours in the ranking closer than this many Monte Carlo standard errors of their
# difference are not told apart
TIED_MCSE = 2.0


def summarise(cfg, outs, seconds, dropped=None, y_test=None):
    """The summary dict and text of the chains' outputs (the text without timings:
    same seed, same bytes; timing_line() has them). R-hat, bulk and tail ESS of the
    log-likelihood and the family's traced integers (leaves and depth for trees;
    slpy.diagnostics) over the chains (one MCMC chain: its halves), of the trees'
    predictions of the test rows, and the convergence verdict of MCMC runs.
    `dropped`: rows left out for a missing value, by input; `y_test`: the test rows'
    classes (for the accuracy of the chains' predictions)."""
    family = family_of(cfg)
    merged = merge_visits(outs, family.stats)
    kept = sum(o.kept for o in outs)
    iters = sum(o.iterations for o in outs)
    accepted = sum(o.accepted for o in outs)
    ranked = sorted(merged.items(), key=lambda kv: (-kv[1]["count"], kv[0]))
    best = max(outs, key=lambda o: o.best_log_lik)
    swaps = {}
    for o in outs:
        for k, (n, a) in o.swaps.items():
            s = swaps.setdefault(k, [0, 0])
            s[0] += n
            s[1] += a
    summary = {
        "iterations": iters, "kept": kept, "chains": len(outs),
        "acceptance_rate": accepted / iters if iters else 0.0,
        "replay_failures": sum(o.replay_failures for o in outs),
        "swap_rates": {k: (a / n if n else None) for k, (n, a) in sorted(swaps.items())},
        "heats": [o.heats for o in outs],
        "round_trips": [o.round_trips for o in outs],
        "moves": _move_rates(outs),
        "best_log_lik": best.best_log_lik, "best_model": best.best_model,
        "unique_models": len(merged),
        "top_models": [{"model": k, "prob": m["count"] / kept, "log_lik": m["log_lik"],
                        **{n: m[n] for n in family.stats}}
                       for k, m in ranked[:cfg["top"]]] if kept else [],
        "seconds": round(seconds, 3),
        # sampling speed: iterations over the chains' own time (loading excluded)
        "iterations_per_second": round(iters / max(sum(o.seconds for o in outs), 1e-9), 1),
        "interrupted": any(o.interrupted for o in outs),
        "rows_with_missing_values": dropped or {},
    }
    keys = [m["model"] for m in summary["top_models"]]
    for m, se in zip(summary["top_models"], _model_mcse(outs, keys)):
        m["mcse"] = se
    extra, extra_lines = family.summary(merged, kept) if kept else ({}, [])
    summary.update(extra)
    extra_lines = extra_lines + _family_mcse(family, outs, extra, summary)
    traces = (("log_lik", "log-lik"),) + tuple((n, n) for n in family.stats)
    # one Markov chain is checked by its two halves; one SMC island's particles are no chain
    conv = _convergence(outs, traces) if len(outs) > 1 or _mcmc(outs) else None
    if conv is not None:
        summary["chain_acceptance_rates"] = [
            o.accepted / o.iterations if o.iterations else None for o in outs]
        summary["convergence"] = conv
    preds = [o.predictions for o in outs if o.predictions is not None]
    if preds and y_test is not None:
        summary.update(accuracy_figures(np.mean(preds, axis=0), y_test))
    checked = traces
    if conv is not None and _mcmc(outs) and preds:
        pred_conv, warned = _prediction_convergence(cfg, family, outs, conv["draws"])
        if pred_conv is not None:
            conv["predictions"] = pred_conv
            if warned:
                conv["rhat_warning"].append("predictions")
            checked = traces + (("predictions", "predictions"),)
    if len(preds) > 1:
        spread = np.ptp(np.stack(preds), axis=0)      # rows x classes
        summary["prediction_spread"] = {"mean": round(float(spread.mean()), 6),
                                        "max": round(float(spread.max()), 6)}
    if _mcmc(outs):
        # one chain's conv is None only for too few draws: say that, not "one chain"
        ok, verdict_line = verdict(conv, checked, criterion_of(cfg), max(2, len(outs)))
        summary["converged"] = ok
    lines = [f"slpy run: {cfg['prior']} on {cfg['data']}",
             f"{iters} iterations, {len(outs)} chain(s)"
             + (" [interrupted]" if summary["interrupted"] else "")]
    lines += [f"{n} rows of {cfg[role]} left out for a missing value"
              for role, n in (dropped or {}).items() if n]
    lines.append(f"acceptance rate {summary['acceptance_rate']:.3f}")
    if conv is not None:
        lines.extend(_convergence_lines(conv, traces, family.predictive_label))
    if "prediction_spread" in summary:
        sp = summary["prediction_spread"]
        lines.append(f"the chains' predicted probabilities differ by {sp['mean']:.4f} on "
                     f"average, {sp['max']:.4f} at most")
    if _mcmc(outs):
        lines.append(verdict_line)
    if len(summary["moves"]) > 1:
        lines.append("acceptance by move " + ", ".join(
            f"{k}: {v:.3f}" for k, v in summary["moves"].items()))
    if summary["swap_rates"]:
        lines.append("heats " + "; ".join(", ".join(f"{h:.3g}" for h in hs)
                                         for hs in summary["heats"])
                     + f" (round trips hottest -> cold: "
                       f"{', '.join(str(n) for n in summary['round_trips'])})")
        lines.append("swap rates " + ", ".join(
            f"{k}: {v:.3f}" for k, v in summary["swap_rates"].items() if v is not None))
    lines.append(f"best log-likelihood {summary['best_log_lik']:.3f} "
                 f"({summary['unique_models']} distinct models visited)")
    if "acc_max" in summary:
        lines.append(f"test accuracy: acc_max {summary['acc_max']:.4f}, "
                     f"acc_prob {summary['acc_prob']:.4f}")
    elif not (cfg.get("test") or cfg.get("holdout")) and family.name in HOLDOUT_HINT:
        lines.append("for held-out accuracy: " + HOLDOUT_HINT[family.name](cfg))
    lines.extend(extra_lines)
    drawn = {}
    for o in outs:
        drawn.update(o.drawn)
    lines.extend(_tied_lines(outs, keys))
    for i, m in enumerate(summary["top_models"], 1):
        lines.append("")
        label = family.label({n: m[n] for n in family.stats})
        se = f" (MCSE {m['mcse']:.4f})" if m["mcse"] is not None else ""
        lines.append(f"#{i}: posterior {m['prob']:.4f}{se}, log-likelihood "
                     f"{m['log_lik']:.3f}" + (f", {label}" if label else ""))
        t = drawn.get(m["model"])
        if t is not None:
            lines.append(str(t))
    bt = best.best_drawn
    if bt is not None:
        lines.append("")
        lines.append(f"highest likelihood (MAP under a uniform prior): "
                     f"{summary['best_log_lik']:.3f}")
        lines.append(str(bt))
    return summary, "\n".join(lines)


def timing_line(summary) -> str:
    return (f"time: {summary['seconds']:.1f} s, {summary['iterations_per_second']} it/s "
            f"(timing.json)")


def _move_rates(outs) -> dict:
    """Acceptance rate of each move of the proposal, over the chains (cold level)."""
    tot: dict = {}
    for o in outs:
        for k, (n, a) in o.moves.items():
            t = tot.setdefault(k, [0, 0])
            t[0] += n
            t[1] += a
    return {k: (a / n if n else 0.0) for k, (n, a) in sorted(tot.items())}


def _convergence(outs, traces):
    """R-hat and bulk ESS of the chains' traces as the run directory holds them
    (log-likelihoods to 10 decimals; chains cut to the shortest). One chain: the R-hat
    of its two halves (Stan's split R-hat; slpy.diagnostics)."""
    from ..diagnostics import trace_diagnostics, equal_length
    n = min(o.kept for o in outs)
    if n < 4:
        return None
    columns = {"log_lik": [[round(x, 10) for x in o.trace.log_lik.tolist()] for o in outs]}
    for k, _ in traces[1:]:
        columns[k] = [o.trace.stats[k] for o in outs]
    diag = trace_diagnostics({k: equal_length(v) for k, v in columns.items()}, min_chains=1)
    return {"chains": len(outs), "draws": n, **diag}


def _prediction_convergence(cfg, family, outs, n):
    """({"rhat", "ess_bulk", "ess_tail", "rows"}, whether an R-hat is above 1.01)
    of the test rows' predictions: per row, the trace over each chain's first n kept
    draws of the probability the drawn model gives the row's true class (its pointwise
    predictive likelihood, whose log ArviZ's elpd sums; R-hat and ESS are the same for
    the log), and of those the largest R-hat and the smallest ESS. (None, False) when
    the family cannot rebuild its models (ModelFamily.pointwise_predictive)."""
    from ..diagnostics import trace_diagnostics
    index = {}
    for o in outs:          # each model once, however many chains visit it
        for key in o.visits:
            index.setdefault(key, len(index))
    p = family.pointwise_predictive(cfg, list(index))        # models x rows
    if p is None:
        return None, False
    draws = []
    for o in outs:
        at = np.zeros(max((v.id for v in o.visits.values()), default=-1) + 1, np.int64)
        for key, v in o.visits.items():
            at[v.id] = index[key]
        draws.append(at[o.trace.model[:n]])
    # rows that every model predicts alike share a trace (or have none that varies):
    # each distinct trace is diagnosed once
    cols = np.unique(p[:, np.ptp(p, axis=0) > 0], axis=1)
    x = np.stack([cols[d] for d in draws])                # chains x draws x traces
    diag = trace_diagnostics({j: x[:, :, j] for j in range(x.shape[2])}, min_chains=1)
    warned = diag.pop("rhat_warning")                     # R-hat > 1.01, inf included
    inf = any(diag[j]["rhat"] is None for j in warned)

    def worst(k, pick):
        return pick((d[k] for d in diag.values() if d[k] is not None), default=None)
    return ({"rhat": None if inf else worst("rhat", max),
             "ess_bulk": worst("ess_bulk", min), "ess_tail": worst("ess_tail", min),
             "rows": p.shape[1]}, bool(warned))


def _fmt(x, spec, inf=False):
    """A figure of summary.json (None: nan, or inf when its name is warned of)."""
    return ("inf" if inf else "n/a") if x is None else format(x, spec)


def _convergence_lines(conv, traces, predictive=None):
    of = (f"{conv['chains']} chains" if conv["chains"] > 1
          else "1 chain (its two halves)")
    lines = [f"R-hat (bulk, tail ESS) over {of} of {conv['draws']} draws: " + ", ".join(
        f"{label} {_fmt(conv[k]['rhat'], '.3f', k in conv['rhat_warning'])} "
        f"({_fmt(conv[k]['ess_bulk'], '.0f')}, {_fmt(conv[k].get('ess_tail'), '.0f')})"
        for k, label in traces)]
    p = conv.get("predictions")
    if p is not None:
        if predictive is None:
            from ..family import ModelFamily
            predictive = ModelFamily.predictive_label
        lines.append(f"R-hat (bulk, tail ESS) of {predictive}, the worst of {p['rows']} "
                     f"rows: "
                     f"{_fmt(p['rhat'], '.3f', 'predictions' in conv['rhat_warning'])} "
                     f"({_fmt(p['ess_bulk'], '.0f')}, {_fmt(p['ess_tail'], '.0f')})")
    return lines


def _family_mcse(family, outs, extra, summary) -> list:
    """Monte Carlo standard errors of the family's posterior probabilities (edge
    marginals, co-clustering, the number of clusters), from the chains' own estimates:
    their standard deviation over sqrt(chains) (independent chains of equal length, or
    SMC's independent islands). Each as `<name>_mcse` in summary.json, the largest in
    a line."""
    if len(outs) < 2 or not extra:
        return []
    own = [family.summary(merge_visits([o], family.stats), o.kept)[0] if o.kept else {}
           for o in outs]
    lines = []
    for name, v in extra.items():
        if isinstance(v, dict) and v and all(isinstance(x, float) for x in v.values()):
            keys = sorted(set(v).union(*(c.get(name, {}) for c in own)))
            est = np.array([[c.get(name, {}).get(k, 0.0) for k in keys] for c in own])
            se = est.std(axis=0, ddof=1) / math.sqrt(len(own))
            summary[f"{name}_mcse"] = {k: round(float(e), 6) for k, e in zip(keys, se)}
            at = keys[int(np.argmax(se))]
        elif isinstance(v, list) and v and isinstance(v[0], list):
            shape = np.shape(v)
            est = np.array([c[name] if name in c and np.shape(c[name]) == shape
                            else np.full(shape, np.nan) for c in own])
            se = np.nanstd(est, axis=0, ddof=1) / math.sqrt(len(own))
            summary[f"{name}_mcse"] = [[round(float(e), 6) for e in r] for r in se]
            i, j = np.unravel_index(int(np.nanargmax(se)), shape)
            at = f"{i + 1}, {j + 1}"
        else:
            continue
        lines.append(f"Monte Carlo standard error of the {name.replace('_', ' ')}: at most "
                     f"{float(np.nanmax(se)):.4f} ({at}; each in summary.json)")
    return lines


def _batch_means_var(x: np.ndarray) -> float | None:
    """The variance of the mean of one chain's series x by batch means (sqrt(n)
    batches of equal size, the first n mod size draws left out); None below 4 draws."""
    n = x.size
    b = int(math.isqrt(n))
    if b < 2:
        return None
    a = n // b
    means = x[n - a * b:].reshape(b, a).mean(axis=1)
    return float(a * np.var(means, ddof=1) / (a * b))


def _series(outs, key, other=None) -> list:
    """Per chain: the indicator of the model `key` at each kept draw (minus that of
    `other`, when given)."""
    out = []
    for o in outs:
        m = o.trace.model
        x = np.zeros(len(m))
        for k, sign in ((key, 1.0), (other, -1.0)):
            v = o.visits.get(k) if k is not None else None
            if v is not None:
                x += sign * (m == v.id)
        out.append(x)
    return out


def pooled_mcse(series) -> float | None:
    """The Monte Carlo standard error of the mean of the chains' series pooled as the
    visit counts pool them: sqrt(sum_c (n_c / N)^2 var_c), var_c each chain's batch
    means variance (independent chains)."""
    total = sum(x.size for x in series)
    if not total:
        return None
    acc = 0.0
    for x in series:
        if x.size:
            v = _batch_means_var(x)
            if v is None:
                return None
            acc += (x.size / total) ** 2 * v
    return math.sqrt(acc)


def _mcmc(outs) -> bool:
    """Whether the outputs are Markov chains (an SMC island's draws are particles, whose
    error batch means do not measure)."""
    return all(getattr(o, "evidence", None) is None for o in outs)


def _model_mcse(outs, keys) -> list:
    """The MCSE of each model's estimated posterior probability (rounded, so that
    summary.json reads the same in every process). SMC: the islands' estimates'
    standard deviation over sqrt(islands) (independent islands of equal size; batch
    means of one island's particles would measure nothing); None for one island."""
    if not _mcmc(outs):
        if len(outs) < 2 or not all(o.kept for o in outs):
            return [None] * len(keys)
        est = np.array([[o.visits[k].count / o.kept if k in o.visits else 0.0
                         for k in keys] for o in outs])
        se = est.std(axis=0, ddof=1) / math.sqrt(len(outs))
        return [round(float(e), 6) for e in se]
    out = []
    for k in keys:
        se = pooled_mcse(_series(outs, k))
        out.append(None if se is None else round(se, 6))
    return out


def _tied_lines(outs, keys) -> list:
    """A line naming the runs of neighbours in the ranking whose probabilities differ by
    less than TIED_MCSE Monte Carlo standard errors of their difference."""
    if not _mcmc(outs):
        return []
    tied = []
    for i in range(len(keys) - 1):
        d = _series(outs, keys[i], keys[i + 1])
        se = pooled_mcse(d)
        diff = abs(sum(float(x.sum()) for x in d)) / max(1, sum(x.size for x in d))
        tied.append(se is None or diff < TIED_MCSE * se)
    groups, start = [], None
    for i, t in enumerate(tied + [False]):
        if t and start is None:
            start = i
        elif not t and start is not None:
            groups.append((start + 1, i + 1))
            start = None
    if not groups:
        return []
    names = "; ".join(f"#{a} and #{b}" if b == a + 1 else f"#{a} to #{b}"
                      for a, b in groups)
    return [f"not told apart (within {TIED_MCSE:g} Monte Carlo standard errors of each "
            f"other): {names}; their order is chance (run longer, or more chains)"]
