"""Reading run directories back: diagnostics, cross-seed agreement, figures, predictions.

    rundir    load a run directory (slpy/runs.py format) into a Run: config, summary,
              chain traces, visited models, predictions
    predict   rebuild visited trees from their canonical terms; MCMC and exact
              posterior predictive of new rows (`slpy predict`)
    compare   per-run and pooled R-hat/ESS, acceptance and swap rates, top trees per
              seed side by side, class-probability differences between seeds, and
              the distance between MCMC estimates and the exact posterior
    figures   matplotlib figures (optional extra `slpy[plots]`, Agg backend)
    page      `slpy report`: the figures, .dot and text trees and report.md

The R-hat and ESS estimators themselves are in slpy.diagnostics. Nothing here
imports matplotlib until a figure is drawn.
"""
from ..errors import PicklableError


class ReportError(PicklableError):
    """A bad run directory or input: the message is one line for the user."""


def md_table(header, rows) -> list[str]:
    """A Markdown table's lines (the sections of report.md share it)."""
    out = ["| " + " | ".join(header) + " |", "|" + "---|" * len(header)]
    out += ["| " + " | ".join(str(c) for c in row) + " |" for row in rows]
    return out
