"""Sections of `slpy report` that every model family's page has: the runs, the
convergence of the traces, their trajectories (slpy.report.page for trees,
slpy.report.generic for the other families)."""
from __future__ import annotations

import math

from . import figures, md_code, md_table as _table
from .compare import TRACES

__all__ = ["fmt", "unique_labels", "runs_section", "convergence_section", "trace_section",
           "evidence_section", "chain_runs"]


def unique_labels(runs) -> None:
    labels = [r.label for r in runs]
    for r in runs:
        if labels.count(r.label) > 1:
            r.name = f"{r.label} ({r.path.name})"
    labels = [r.label for r in runs]
    for k, r in enumerate(runs):
        if labels.count(r.label) > 1:
            r.name = f"{r.label} #{k + 1}"


def fmt(x, spec=".4f") -> str:
    return "" if x is None else format(x, spec)


def _code(text) -> str:
    return md_code(text, table=True) if text else ""


def runs_section(runs) -> list[str]:
    rows = []
    for r in runs:
        c = r.config
        if r.kind == "mcmc":
            # a space after each comma of the mixture lets the column wrap
            proposal = ", ".join(str(c.get("proposal")).split(","))
            if r.smc:
                what = (f"SMC, {c.get('chains')} island(s) of {c.get('particles')} "
                        f"particles, {c.get('smc_steps')} moves a heat, "
                        f"proposal {proposal}")
            else:
                what = (f"{c.get('iterations')} it x {c.get('chains')} chain(s), "
                        f"temper {c.get('temper')}, proposal {proposal}")
            what += f", bucket {c.get('bucket')}" if c.get("bucket") else ""
            test = c.get("test") or (f"holdout {c.get('holdout')}" if c.get("holdout") else "")
        else:
            what = "exact (PCFG)" + (f", bucket {c.get('bucket')}" if c.get("bucket") else "")
            test = c.get("test") or ""
        # paths as code, which report.html may break anywhere to fit the page
        rows.append([r.label, _code(r.path), _code(c.get("prior")), _code(c.get("data")),
                     what, test, (c.get("data_hash") or "")[:10]])
    out = ["## Runs", ""] + _table(["run", "directory", "prior", "data", "sampler",
                                    "test rows", "data hash"], rows)
    if len({r.config.get("data_hash") for r in runs}) > 1:
        out += ["", "**Note**: the runs were trained on different data (their data hashes "
                    "differ), so they sample different posteriors: their differences are "
                    "not only Monte Carlo error."]
    return out


def _conv_row(label, d, acc="", swaps="", traces=TRACES, converged=None):
    if d is None:
        return [label, "too few draws", "not checked"] + [""] * (2 * len(traces)) + [acc,
                                                                                 swaps]
    said = "" if converged is None else "converged" if converged else "**not converged**"
    def rh(k):
        v = d[k]["rhat"]
        s = "inf" if v is None and k in d["rhat_warning"] else fmt(v, ".3f")
        return f"**{s}**" if k in d["rhat_warning"] else s
    return ([label, f"{d['chains']} x {d['draws']}", said] + [rh(k) for k, _ in traces]
            + [f"{fmt(d[k]['ess_bulk'], '.0f')} / {fmt(d[k].get('ess_tail'), '.0f')}"
               for k, _ in traces] + [acc, swaps])


def convergence_section(conv, traces=TRACES) -> tuple[list[str], list[str]]:
    rows, warnings = [], []
    for r in conv["runs"]:
        acc = ", ".join(fmt(a, ".3f") for a in r["acceptance"])
        swaps = ", ".join(f"{k}: {fmt(v, '.3f')}" for k, v in r["swap_rates"].items())
        rows.append(_conv_row(r["run"], r["diagnostics"], acc, swaps, traces,
                              r.get("converged")))
        if r["diagnostics"] and r["diagnostics"]["rhat_warning"]:
            warnings.append(f"{r['run']}: R-hat above 1.01 for "
                            + ", ".join(r["diagnostics"]["rhat_warning"]))
    if conv["pooled"] is not None:
        rows.append(_conv_row("all runs pooled", conv["pooled"], traces=traces))
        if conv["pooled"]["rhat_warning"]:
            warnings.append("all runs pooled: R-hat above 1.01 for "
                            + ", ".join(conv["pooled"]["rhat_warning"]))
    head = ["run", "chains x draws", "verdict"] + [f"R-hat {n}" for _, n in traces] + \
        [f"ESS {n}" for _, n in traces] + ["acceptance per chain", "swap rates"]
    lines = ["## Convergence", "",
             "Rank-normalised split R-hat and bulk / tail effective sample sizes (Vehtari "
             "et al. 2021, as ArviZ computes them) of each run's chains, and of the chains "
             "of all runs pooled; chains are cut to the shortest. R-hat above 1.01 (bold) "
             "says the chains disagree. A run has converged when every R-hat is at most "
             "its --target-rhat (1.01) and every ESS at least its --target-ess (400); "
             "one chain cannot be checked. Acceptance is over kept iterations.", ""]
    lines += _table(head, rows)
    said = [f"{r['run']}: {r['verdict']}" for r in conv["runs"]
            if r.get("converged") is False and r["diagnostics"] is not None]
    if said:
        lines += [""] + said
    if warnings:
        lines += [""] + [f"**Warning**: {w}: the chains have not mixed." for w in warnings]
    return lines, warnings


def trace_section(runs, traces, out, of: str = "") -> list[str]:
    """A trajectory figure per trace (figures.trace_figure) and its Markdown line;
    `of`: what the traced integers are of (" of the tree")."""
    lines = []
    for key, name in traces:
        f = f"trace_{key}.png"
        figures.trace_figure(runs, key, name, out / f,
                             "Log-likelihood trajectories" if key == "log_lik" else
                             f"{name.capitalize()}{of}, by iteration")
        lines += [f"![{name} trajectories]({f})", ""]
    return lines


def chain_runs(runs) -> list:
    """The runs whose chains are Markov chains (MCMC, not SMC islands or exact)."""
    return [r for r in runs if r.kind == "mcmc" and not r.smc]


def _number(x, spec) -> str:
    """A number of summary.json formatted; "-" for one missing, not finite or not a
    number (one island has no standard error: NaN)."""
    ok = isinstance(x, (int, float)) and not isinstance(x, bool) and math.isfinite(x)
    return format(x, spec) if ok else "-"


def evidence_section(runs) -> tuple[list[str], list[dict]]:
    """(Markdown lines, numbers for report.json) of the SMC runs' log evidence, pooled
    over the islands and island by island (summary.json); nothing without SMC runs."""
    rows, numbers = [], []
    for r in runs:
        if not r.smc:
            continue
        s = r.summary
        isl = [i for i in s.get("islands") or [] if isinstance(i, dict)]

        def each(key, spec):
            return ", ".join(_number(i.get(key), spec) for i in isl)
        rows.append([r.label, _number(s.get("log_evidence"), ".4f"),
                     _number(s.get("log_evidence_se"), ".3f"), str(len(isl) or "-"),
                     _number(r.config.get("particles"), ".0f"), each("log_evidence", ".4f"),
                     each("heats", ".0f"), each("resampled", ".0f"),
                     each("final_ess", ",.0f")])
        se = s.get("log_evidence_se")       # NaN (one island) is null in report.json
        numbers.append({"run": r.label, "log_evidence": s.get("log_evidence"),
                        "log_evidence_se": None if _number(se, "f") == "-" else se,
                        "islands": isl,
                        "particles": r.config.get("particles")})
    if not rows:
        return [], []
    lines = ["## Evidence", "",
             "Each chain of an SMC run is an island: particles annealed from the prior to "
             "the posterior through a ladder of heats. The log evidence (log marginal "
             "likelihood of the data under the prior) is the log of the islands' mean "
             "evidence, its standard error from their spread (- with one island; more "
             "islands, `--chains`, shrink it). The particles are draws, not a Markov "
             "chain's iterations, so no R-hat, acceptance rate or trajectory is shown for "
             "them; `slpy compare` ranks priors by their evidence. The final ESS is that "
             "of each island's final weights (its particles resampled to equal weights "
             "are the run's draws).", ""]
    lines += _table(["run", "log evidence", "standard error", "islands", "particles each",
                     "log evidence of each island", "heats", "resampled",
                     "final ESS"], rows)
    return lines, numbers
