"""`slpy report` for runs of a model family other than trees (slpy.family): the runs,
convergence of the log-likelihood and of the family's traced integers, their
trajectories, the most visited models side by side, then the family's own sections
(ModelFamily.report_sections: for networks, the edge-marginal matrix and the top DAGs
drawn)."""
from __future__ import annotations

import json
from pathlib import Path

from . import ReportError, md_code, md_table as _table
from .compare import convergence
from .rundir import load_run
from .sections import convergence_section, fmt, runs_section, trace_section, unique_labels

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
    lines += trace_section(runs, traces, out)
    table = top_models(runs, top)
    lines += ["## Most probable models", "",
              "Estimated posterior probability of the most visited models (by the runs' "
              "visit counts), run by run.", ""]
    head = ["model", "log-likelihood", *family.stats] + [r.label for r in runs]
    lines += _table(head, [[f"M{k}", fmt(m["log_lik"], ".3f"),
                            *[fmt(m.get(s), ".0f") for s in family.stats],
                            *[fmt(p) for p in m["probs"]]]
                           for k, m in enumerate(table, 1)])
    lines += [""] + [f"- M{k}: {md_code(m['model'])}" for k, m in enumerate(table, 1)] + [""]
    lines += own
    (out / "report.md").write_text("\n".join(lines).rstrip() + "\n")
    numbers = {"family": family.name,
               "runs": [{"run": r.label, "path": str(r.path), "kind": r.kind} for r in runs],
               "convergence": conv, "top_models": table}
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
