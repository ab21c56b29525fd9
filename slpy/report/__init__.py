"""Reading run directories back: diagnostics, cross-seed agreement, figures, predictions.

    rundir    load a run directory (slpy/runs.py format) into a Run: config, summary,
              chain traces, visited models, predictions
    predict   rebuild visited trees from their canonical terms; MCMC and exact
              posterior predictive of new rows (`slpy predict`)
    compare   per-run and pooled R-hat/ESS, acceptance and swap rates, top trees per
              seed side by side, class-probability differences between seeds, and
              the distance between MCMC estimates and the exact posterior
    figures   matplotlib figures (optional extra `slpy[plots]`, Agg backend)
    sections  the sections every family's page has: runs, convergence, trajectories
    page      `slpy report`: the figures, .dot and text trees and report.md
    generic   `slpy report` for the other model families, which add their own
              sections (ModelFamily.report_sections); nothing here names a family

The R-hat and ESS estimators themselves are in slpy.diagnostics. Nothing here
imports matplotlib until a figure is drawn.
"""
import re

from ..errors import PicklableError


class ReportError(PicklableError):
    """A bad run directory or input: the message is one line for the user."""


def md_table(header, rows) -> list[str]:
    """A Markdown table's lines (the sections of report.md share it)."""
    out = ["| " + " | ".join(header) + " |", "|" + "---|" * len(header)]
    out += ["| " + " | ".join(str(c) for c in row) + " |" for row in rows]
    return out


# what Markdown would read as markup in text from the data (a column, a class): HTML,
# entities, emphasis, links, code, a table's cell break; `_` only at a word's edge
_MD_SPECIAL = re.compile(r"[\\`*\[\]<>|&~#!]|(?<![A-Za-z0-9])_|_(?![A-Za-z0-9])")


def md_text(text) -> str:
    """Text from the data as report.md shows it, literally (report.html escapes it
    too): a column called ``<b>x</b>`` is not HTML in the page."""
    return _MD_SPECIAL.sub(lambda m: "\\" + m.group(0), str(text))


def md_code(text, table: bool = False) -> str:
    """Text from the data (a model term, a column) as a code span; in a table cell
    (`table`) its pipes are escaped, as GitHub's tables need."""
    text = str(text).replace("\n", " ")
    ticks = max((len(r) for r in re.findall(r"`+", text)), default=0)
    fence = "`" * (ticks + 1)
    pad = " " if ticks or text.startswith(" ") or text.endswith(" ") else ""
    if table:
        text = text.replace("|", "\\|")
    return f"{fence}{pad}{text}{pad}{fence}"
