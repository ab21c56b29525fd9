"""The summary of a run's chains: summary.json's figures and summary.txt's lines."""
from __future__ import annotations

import numpy as np

from ..runs import accuracy_figures
from .config import family_of
from .output import merge_visits

__all__ = ["summarise", "timing_line", "TIMING"]

TIMING = ("seconds", "iterations_per_second")   # in timing.json, not summary.json


def summarise(cfg, outs, seconds, dropped=None, y_test=None):
    """The summary dict and text of the chains' outputs (the text without timings:
    same seed, same bytes; timing_line() has them). With several chains, R-hat and
    bulk ESS of the log-likelihood and the family's traced integers (leaves and depth
    for trees; slpy.diagnostics), and a warning line when an R-hat is above 1.01.
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
    extra, extra_lines = family.summary(merged, kept) if kept else ({}, [])
    summary.update(extra)
    traces = (("log_lik", "log-lik"),) + tuple((n, n) for n in family.stats)
    conv = _convergence(outs, traces) if len(outs) > 1 else None
    if conv is not None:
        summary["chain_acceptance_rates"] = [
            o.accepted / o.iterations if o.iterations else None for o in outs]
        summary["convergence"] = conv
    preds = [o.predictions for o in outs if o.predictions is not None]
    if preds and y_test is not None:
        summary.update(accuracy_figures(np.mean(preds, axis=0), y_test))
    lines = [f"slpy run: {cfg['prior']} on {cfg['data']}",
             f"{iters} iterations, {len(outs)} chain(s)"
             + (" [interrupted]" if summary["interrupted"] else "")]
    lines += [f"{n} rows of {cfg[role]} left out for a missing value"
              for role, n in (dropped or {}).items() if n]
    lines.append(f"acceptance rate {summary['acceptance_rate']:.3f}")
    if conv is not None:
        lines.extend(_convergence_lines(conv, traces))
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
    lines.extend(extra_lines)
    drawn = {}
    for o in outs:
        drawn.update(o.drawn)
    for i, m in enumerate(summary["top_models"], 1):
        lines.append("")
        label = family.label({n: m[n] for n in family.stats})
        lines.append(f"#{i}: posterior {m['prob']:.4f}, log-likelihood {m['log_lik']:.3f}"
                     + (f", {label}" if label else ""))
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
    (log-likelihoods to 10 decimals; chains cut to the shortest)."""
    from ..diagnostics import trace_diagnostics, equal_length
    n = min(o.kept for o in outs)
    if n < 4:
        return None
    columns = {"log_lik": [[round(x, 10) for x in o.trace.log_lik.tolist()] for o in outs]}
    for k, _ in traces[1:]:
        columns[k] = [o.trace.stats[k] for o in outs]
    diag = trace_diagnostics({k: equal_length(v) for k, v in columns.items()})
    return {"chains": len(outs), "draws": n, **diag}


def _convergence_lines(conv, traces):
    def fmt(x, spec, inf=False):   # None: nan, or inf when the name is in the warning
        return ("inf" if inf else "n/a") if x is None else format(x, spec)
    lines = [f"R-hat (bulk ESS) over {conv['chains']} chains of {conv['draws']} draws: "
             + ", ".join(f"{label} {fmt(conv[k]['rhat'], '.3f', k in conv['rhat_warning'])} "
                         f"({fmt(conv[k]['ess_bulk'], '.0f')})" for k, label in traces)]
    if conv["rhat_warning"]:
        names = ", ".join(label for k, label in traces if k in conv["rhat_warning"])
        lines.append(f"warning: R-hat above 1.01 for {names}: the chains disagree (run "
                     f"longer, temper, or start from elsewhere)")
    return lines
