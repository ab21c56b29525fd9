"""`slpy report` for runs of a model family other than trees (slpy.family): the runs,
convergence of the log-likelihood and of the family's traced integers, their
trajectories, the most visited models side by side, then the family's own sections
(ModelFamily.report_sections: for networks, the edge-marginal matrix and the top DAGs
drawn)."""
from __future__ import annotations

import json
from pathlib import Path

from . import ReportError, md_code, md_table as _table, md_text
from .compare import convergence
from .rundir import load_run
from .sections import (chain_runs, convergence_section, evidence_section, fmt,
                       runs_section, trace_section, unique_labels)

__all__ = ["family_report"]


def family_report(family, run_dirs, out=None, top: int = 5, query=None):
    if query is not None and not family.queries:
        raise ReportError(f"--query: the model family {family.name} answers no queries")
    runs = [load_run(d) for d in run_dirs]
    unique_labels(runs)
    out = Path(out) if out is not None else Path(run_dirs[0]) / "report"
    try:
        out.mkdir(parents=True, exist_ok=True)
    except OSError as e:
        raise ReportError(f"{out}: cannot create the report directory ({e.strerror})")
    traces = (("log_lik", "log-likelihood"),) + tuple((k, k) for k in family.stats)
    # the family's sections first: a bad --query stops the report before any figure
    own = (family.report_sections(runs, out, top) if query is None else
           family.report_sections(runs, out, top, query=query))
    conv = convergence(runs, traces)
    lines = ["# slpy report", "", f"Model family: {family.name}.", ""]
    lines += runs_section(runs) + [""]
    conv_lines, warnings = convergence_section(conv, traces)
    if conv["runs"]:
        lines += conv_lines + [""]
    ev_lines, evidence = evidence_section(runs)
    lines += ev_lines + ([""] if ev_lines else [])
    if chain_runs(runs):
        lines += trace_section(chain_runs(runs), traces, out)
    table = top_models(runs, top)
    ses = [r.model_mcse() for r in runs]
    for m in table:
        m["mcse"] = [s.get(m["model"]) for s in ses]
    lines += ["## Most probable models", "",
              "Estimated posterior probability of the most visited models (by the runs' "
              "visit counts), run by run; a run's estimates of its --top models have the "
              "Monte Carlo standard error (MCSE) of its summary.json, as summary.txt "
              "prints it.", ""]
    head = ["model", "log-likelihood", *family.stats] + [r.label for r in runs]
    lines += _table(head, [[f"M{k}", fmt(m["log_lik"], ".3f"),
                            *[fmt(m.get(s), ".0f") for s in family.stats],
                            *[fmt(p) + (f" (MCSE {se:.4f})" if se is not None else "")
                              for p, se in zip(m["probs"], m["mcse"])]]
                           for k, m in enumerate(table, 1)])
    lines += [""] + [f"- M{k}: {md_code(m['model'])}" for k, m in enumerate(table, 1)] + [""]
    lines += _family_mcse(runs)
    lines += own
    (out / "report.md").write_text("\n".join(lines).rstrip() + "\n")
    numbers = {"family": family.name,
               "runs": [{"run": r.label, "path": str(r.path), "kind": r.kind} for r in runs],
               "convergence": conv, "top_models": table, "evidence": evidence or None}
    (out / "report.json").write_text(json.dumps(numbers, indent=2, sort_keys=True) + "\n")
    return out, warnings


def top_models(runs, top: int) -> list:
    """The `top` models most probable over the runs (mean of their estimates), with
    each run's estimate."""
    probs = [r.model_probs() for r in runs]
    info = {}
    for r in runs:
        for m in r.models:
            info.setdefault(m["model"], m)
    mean = {k: sum(p.get(k, 0.0) for p in probs) / len(runs) for k in info}
    keys = sorted(mean, key=lambda k: (-mean[k], k))[:top]
    return [{**{k2: v for k2, v in info[k].items() if k2 not in ("prob", "count")},
             "probs": [p.get(k, 0.0) for p in probs]} for k in keys]


def _family_mcse(runs) -> list[str]:
    """A line per run and family probability that summary.json has an MCSE of
    (`<name>_mcse`: edge marginals, co-clustering, the number of clusters), as
    summary.txt prints it: the largest, and where."""
    lines = []
    for r in runs:
        for key, se in sorted(r.summary.items()):
            if not key.endswith("_mcse"):
                continue
            if isinstance(se, dict):
                cells = [(v, k) for k, v in se.items()]
            elif isinstance(se, list):
                cells = [(v, f"{i + 1}, {j + 1}") for i, row in enumerate(se)
                         if isinstance(row, list) for j, v in enumerate(row)]
            else:
                continue
            # NaN (a pair no chain saw) and anything not a number are left out
            cells = [(v, at) for v, at in cells if isinstance(v, (int, float)) and v == v]
            if not cells:
                continue
            v, at = max(cells, key=lambda c: c[0])   # the first of the largest
            name = key[:-len("_mcse")].replace("_", " ")
            who = f"{r.label}: " if len(runs) > 1 else ""
            lines.append(f"- {who}Monte Carlo standard error of the {name}: at most "
                         f"{v:.4f} ({md_text(at)}; each in summary.json)")
    if not lines:
        return []
    return ["The Monte Carlo standard errors of the probabilities below (their standard "
            "deviation over the chains, over the square root of their number), as "
            "summary.txt prints them:", ""] + lines + [""]
