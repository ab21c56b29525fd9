"""`slpy report`: figures, trees and one Markdown page for one or more run directories.

Writes into the output directory:

    report.md               the page: runs, convergence, top trees per run side by side,
                            class-probability agreement, the exact comparison, trees
    report.json             the page's numbers
    trace_log_lik.png       log-likelihood trajectories (and trace_leaves, trace_depth)
    seed_scatter.png        class probabilities of each pair of runs (with test rows)
    seed_differences.png    histogram of their differences
    feature_inclusion.png   posterior inclusion probability of each feature (interpret.py)
    partial_dependence.png  partial dependence with credible bands
    trees/tree_K.png        the runs' most visited, highest-likelihood and MAP trees,
                            with tree_K.dot (Graphviz) and tree_K.txt (export_text)
"""
from __future__ import annotations

import json
from pathlib import Path

from . import ReportError, md_table as _table
from .compare import (EXACT, TRACES, agreement, comparison_units, convergence,
                      exact_distance, exact_for, prediction_sets, top_trees)
from .rundir import load_run

__all__ = ["make_report"]

ROLES = {"top": "most visited (MAP estimate)", "best": "highest likelihood",
         "map": "exact MAP"}


def _unique_labels(runs) -> None:
    labels = [r.label for r in runs]
    for r in runs:
        if labels.count(r.label) > 1:
            r.name = f"{r.label} ({r.path.name})"
    labels = [r.label for r in runs]
    for k, r in enumerate(runs):
        if labels.count(r.label) > 1:
            r.name = f"{r.label} #{k + 1}"


def _f(x, spec=".4f") -> str:
    return "" if x is None else format(x, spec)


def _runs_section(runs) -> list[str]:
    rows = []
    for r in runs:
        c = r.config
        if r.kind == "mcmc":
            what = (f"{c.get('iterations')} it x {c.get('chains')} chain(s), "
                    f"temper {c.get('temper')}, proposal {c.get('proposal')}"
                    + (f", bucket {c.get('bucket')}" if c.get("bucket") else ""))
            test = c.get("test") or (f"holdout {c.get('holdout')}" if c.get("holdout") else "")
        else:
            what = "exact (PCFG)" + (f", bucket {c.get('bucket')}" if c.get("bucket") else "")
            test = c.get("test") or ""
        rows.append([r.label, f"`{r.path}`", c.get("prior", ""), c.get("data", ""), what,
                     test, (c.get("data_hash") or "")[:10]])
    out = ["## Runs", ""] + _table(["run", "directory", "prior", "data", "sampler",
                                    "test rows", "data hash"], rows)
    if len({r.config.get("data_hash") for r in runs}) > 1:
        out += ["", "**Note**: the runs were trained on different data (their data hashes "
                    "differ), so they sample different posteriors: their differences are "
                    "not only Monte Carlo error."]
    return out


def _conv_row(label, d, acc="", swaps="", traces=TRACES):
    if d is None:
        return [label, "1 chain"] + [""] * (2 * len(traces)) + [acc, swaps]
    def rh(k):
        v = d[k]["rhat"]
        s = "inf" if v is None and k in d["rhat_warning"] else _f(v, ".3f")
        return f"**{s}**" if k in d["rhat_warning"] else s
    return ([label, f"{d['chains']} x {d['draws']}"] + [rh(k) for k, _ in traces]
            + [_f(d[k]["ess_bulk"], ".0f") for k, _ in traces] + [acc, swaps])


def _convergence_section(conv, traces=TRACES) -> tuple[list[str], list[str]]:
    rows, warnings = [], []
    for r in conv["runs"]:
        acc = ", ".join(_f(a, ".3f") for a in r["acceptance"])
        swaps = ", ".join(f"{k}: {_f(v, '.3f')}" for k, v in r["swap_rates"].items())
        rows.append(_conv_row(r["run"], r["diagnostics"], acc, swaps, traces))
        if r["diagnostics"] and r["diagnostics"]["rhat_warning"]:
            warnings.append(f"{r['run']}: R-hat above 1.01 for "
                            + ", ".join(r["diagnostics"]["rhat_warning"]))
    if conv["pooled"] is not None:
        rows.append(_conv_row("all runs pooled", conv["pooled"], traces=traces))
        if conv["pooled"]["rhat_warning"]:
            warnings.append("all runs pooled: R-hat above 1.01 for "
                            + ", ".join(conv["pooled"]["rhat_warning"]))
    head = ["run", "chains x draws"] + [f"R-hat {n}" for _, n in traces] + \
        [f"ESS {n}" for _, n in traces] + ["acceptance per chain", "swap rates"]
    lines = ["## Convergence", "",
             "Rank-normalised split R-hat and bulk effective sample size (Vehtari et al. "
             "2021, as ArviZ computes them) of each run's chains, and of the chains of all "
             "runs pooled; chains are cut to the shortest. R-hat above 1.01 (bold) says "
             "the chains disagree. Acceptance is over kept iterations.", ""]
    lines += _table(head, rows)
    if warnings:
        lines += [""] + [f"**Warning**: {w}: the chains have not mixed." for w in warnings]
    return lines, warnings


def _trace_section(runs, traces, out, of: str = "") -> list[str]:
    """A trajectory figure per trace (figures.trace_figure) and its Markdown line;
    `of`: what the traced integers are of (" of the tree")."""
    from . import figures
    lines = []
    for key, name in traces:
        f = f"trace_{key}.png"
        figures.trace_figure(runs, key, name, out / f,
                             "Log-likelihood trajectories" if key == "log_lik" else
                             f"{name.capitalize()}{of}, by iteration")
        lines += [f"![{name} trajectories]({f})", ""]
    return lines


def _top_section(table) -> list[str]:
    head = ["tree", "leaves", "log-likelihood"] + table["labels"]
    rows, keys = [], []
    for k, row in enumerate(table["rows"], 1):
        rows.append([f"T{k}", _f(row["leaves"], ".0f"), _f(row["log_lik"], ".3f")]
                    + [_f(p, ".5f") if p is not None else "-" for p in row["probs"]])
        keys.append(f"- T{k}: `{row['model']}`")
    return (["## Top trees per run", "",
             "Estimated posterior probability of each run's most probable trees, side by "
             "side (paper 002, Tables 2-5; the chains of a single run are compared as "
             "runs): 0 is a tree the run never visited, - one the run does not list.", ""]
            + _table(head, rows) + [""] + keys)


def _agreement_section(pred, agree, figs) -> list[str]:
    lines = ["## Class probabilities between runs", ""]
    if not agree:
        return lines + ["No two runs have test-set predictions to compare (run with "
                        "`--test` or `--holdout`, or give `slpy report --test CSV`)."]
    lines += [f"Rows compared: {pred['note']}. Mean and max absolute difference of the "
              f"class probabilities (over rows and classes) for each pair (paper 002, "
              f"section 7.2).", ""]
    lines += _table(["run", "run", "rows", "mean abs diff", "max abs diff"],
                    [[a["a"], a["b"], a["rows"], _f(a["mean_abs_diff"]),
                      _f(a["max_abs_diff"])] for a in agree])
    for name, alt in figs:
        lines += ["", f"![{alt}]({name})"]
    return lines


def _exact_section(dist) -> list[str]:
    lines = ["## MCMC against the exact posterior", "",
             "Total variation distance between each run's tree frequencies and the exact "
             "posterior (PCFG back end), and the exact posterior mass of the trees the run "
             "visited. The exact predictive is the column `exact posterior` above.", ""]
    return lines + _table(["run", "trees visited", "exact mass of visited",
                           "total variation"],
                          [[d["run"], d["visited"], _f(d["exact_mass_visited"]),
                            _f(d["total_variation"])] for d in dist])


def _trees(runs, exact_post) -> list:
    """[(title, Tree)] of the runs' tree files (and the exact MAP), identical trees
    drawn once with all their titles."""
    found: dict = {}
    for r in runs:
        for name in ("top", "best", "map"):
            t = r.trees.get(name)
            if t is not None:
                found.setdefault(t.to_json(), [t, []])[1].append(
                    f"{ROLES[name]}, {r.label}")
    if exact_post is not None:
        post = exact_post.model.post
        t = exact_post.tree(post.map())
        found.setdefault(t.to_json(), [t, []])[1].append("exact MAP (PCFG back end)")
    return [(" = ".join(titles), t) for t, titles in found.values()]


def _family_of(run_dirs) -> str:
    """The model family of the runs (one for all of them)."""
    from ..runs import RunDir, RunDirError
    fams = set()
    for d in run_dirs:
        try:
            fams.add(RunDir(d, create=False).read_config().get("family") or "tree")
        except RunDirError:
            fams.add("tree")      # load_run says what is wrong with it
    if len(fams) > 1:
        raise ReportError(f"the runs learn different kinds of model ({', '.join(sorted(fams))})"
                          f": report them apart")
    return fams.pop()


def make_report(run_dirs, out=None, top: int = 5, test=None, exact: bool = False
                ) -> tuple[Path, list[str]]:
    """Write the report of the runs at run_dirs into out (default RUN_DIR/report of
    the first); returns its path and the R-hat warnings."""
    from . import figures
    family = _family_of(run_dirs)
    if family != "tree":
        from ..family import get, FamilyError
        from .generic import family_report
        try:
            fam = get(family)
        except FamilyError as e:
            raise ReportError(f"{run_dirs[0]}: {e}") from None
        return family_report(fam, run_dirs, out, top)
    runs = [load_run(d) for d in run_dirs]
    _unique_labels(runs)
    out = Path(out) if out is not None else Path(run_dirs[0]) / "report"
    try:
        (out / "trees").mkdir(parents=True, exist_ok=True)
    except OSError as e:
        raise ReportError(f"{out}: cannot create the report directory ({e.strerror})")
    exact_post = exact_for(runs) if exact else None
    conv = convergence(runs)
    extra = None
    if exact_post is not None:
        extra = {EXACT: dict(exact_post.top(top))}
    units = comparison_units(runs)
    table = top_trees(units, top, extra)
    if exact_post is not None:
        for row in table["rows"]:
            row["probs"][-1] = exact_post.prob(row["model"])
    pred = prediction_sets(units, test, exact_post)
    agree = agreement(pred)
    dist = exact_distance(runs, exact_post) if exact_post is not None else []

    lines = ["# slpy report", ""] + _runs_section(runs) + [""]
    conv_lines, warnings = _convergence_section(conv)
    if conv["runs"]:
        lines += conv_lines + [""]
    if any(r.kind == "mcmc" for r in runs):
        lines += _trace_section(runs, TRACES, out, " of the tree")
    lines += _top_section(table) + [""]
    figs = []
    if len(pred.get("sets", [])) > 1:
        figures.scatter_figure(pred, out / "seed_scatter.png")
        figures.difference_figure(pred, out / "seed_differences.png")
        figs = [("seed_scatter.png", "class probabilities, run against run"),
                ("seed_differences.png", "differences in class probabilities")]
    lines += _agreement_section(pred, agree, figs) + [""]
    if dist:
        lines += _exact_section(dist) + [""]
    from .interpret import interpretation_section
    from .predict import load_run_data
    feature_lines, features = interpretation_section(runs, out, load_run_data)
    lines += feature_lines
    lines += ["## Trees", "",
              "Each tree as a drawing, as Graphviz DOT and as text; \"yes\" (feature <= "
              "threshold) goes left, leaves show the training rows of each class.", ""]
    for k, (title, tree) in enumerate(_trees(runs, exact_post), 1):
        stem = f"trees/tree_{k}"
        figures.tree_figure(tree, out / f"{stem}.png", title.replace(" = ", "\n"))
        (out / f"{stem}.dot").write_text(tree.to_dot() + "\n")
        (out / f"{stem}.txt").write_text(tree.export_text() + "\n")
        lines += [f"### {title}", "", f"![{title}]({stem}.png)", "",
                  f"[DOT]({stem}.dot), [text]({stem}.txt), {tree.n_leaves} leaves, "
                  f"depth {tree.depth}", "", "```", tree.export_text(), "```", ""]
    (out / "report.md").write_text("\n".join(lines).rstrip() + "\n")
    numbers = {"runs": [{"run": r.label, "path": str(r.path), "kind": r.kind} for r in runs],
               "convergence": conv, "top_trees": table,
               "prediction_rows": pred.get("note"), "agreement": agree,
               "exact": dist or None, "features": features or None}
    (out / "report.json").write_text(json.dumps(numbers, indent=2, sort_keys=True) + "\n")
    return out, warnings
