"""`slpy report`: figures, trees and one Markdown page for one or more run directories.

Writes into the output directory:

    report.md               the page: runs, convergence, top trees per run side by side
                            (each drawn), class-probability agreement, the exact
                            comparison, trees
    report.json             the page's numbers
    trace_log_lik.png       log-likelihood trajectories (and trace_leaves, trace_depth)
    seed_scatter.png        class probabilities of each pair of runs (with test rows)
    seed_differences.png    histogram of their differences
    feature_inclusion.png   posterior inclusion probability of each feature (interpret.py)
    partial_dependence.png  partial dependence with credible bands
    trees/tree_K.svg        the runs' most visited, highest-likelihood and MAP trees
                            drawn (slpy.trees.svg), with tree_K.png (matplotlib),
                            tree_K.dot (Graphviz) and tree_K.txt (export_text)
    trees/top_K.svg         the K-th tree of the top-trees table drawn
"""
from __future__ import annotations

import json
from pathlib import Path

from ..family import FamilyError, get as get_family
from ..runs import RunDir, RunDirError
from . import ReportError, figures, md_code, md_table as _table
from .compare import (EXACT, TRACES, agreement, comparison_units, convergence,
                      exact_distance, exact_for, prediction_sets, top_trees)
from .generic import family_report
from .interpret import interpretation_section
from .predict import load_run_data
from .rundir import load_run
from .sections import (chain_runs, convergence_section, evidence_section, fmt,
                       runs_section, trace_section, unique_labels)

__all__ = ["make_report"]

ROLES = {"top": "most visited (MAP estimate)", "best": "highest likelihood",
         "map": "exact MAP"}
TREE_FONT = 13       # px, of the trees drawn in SVG (report.html shows them at full size)


def _top_section(table, drawings) -> list[str]:
    head = ["tree", "leaves", "log-likelihood"] + table["labels"]
    rows, keys = [], []
    for k, row in enumerate(table["rows"], 1):
        rows.append([f"T{k}", fmt(row["leaves"], ".0f"), fmt(row["log_lik"], ".3f")]
                    + [_prob(p, se) for p, se in zip(row["probs"], row["mcse"])])
        keys.append(f"- T{k}: {md_code(row['model'])}")
    return (["## Top trees per run", "",
             "Estimated posterior probability of each run's most probable trees, side by "
             "side (paper 002, Tables 2-5; the chains, or SMC islands, of a single run "
             "are compared as runs, beside the run's own estimate): 0 is a tree the run "
             "never visited, - one the run does not list. A run's estimates of its --top "
             "most probable trees have the Monte Carlo standard error (MCSE) of its "
             "summary.json, as summary.txt prints it.", ""]
            + _table(head, rows) + [""] + drawings
            + ["Their model terms, as models.csv writes them:", ""] + keys)


def _prob(p, se) -> str:
    if p is None:
        return "-"
    return fmt(p, ".5f") + (f" (MCSE {se:.4f})" if se is not None else "")


def _with_mcse(table, runs, units) -> None:
    """Each row's MCSE per column (row["mcse"]: summary.json's, None where it has
    none). When the columns are one run's chains, the run's own estimate (its chains
    pooled, as models.csv has it) becomes a column after theirs: the MCSE are of it."""
    ses = [u.model_mcse() if any(u is r for r in runs) else {} for u in units]
    split = next((r for r in runs if not any(r is u for u in units)), None)
    if split is not None:
        at = len(units)
        table["labels"].insert(at, f"{split.label}, {'islands' if split.smc else 'chains'}"
                                   f" pooled")
        probs = split.model_probs()
        for row in table["rows"]:
            row["probs"].insert(at, probs.get(row["model"], 0.0))
        ses.append(split.model_mcse())
    others = len(table["labels"]) - len(ses)          # the exact posterior's column
    for row in table["rows"]:
        row["mcse"] = [s.get(row["model"]) for s in ses] + [None] * others


def _draw_top(table, runs, out, data_of) -> list[str]:
    """Each tree of the top-trees table drawn (trees/top_K.svg), its leaves showing
    the training rows of the first run whose data can be read; nothing without."""
    from ..trees.model import Tree
    from ..trees.svg import tree_svg
    from ..trees.term import ModelTermError
    for r in runs:
        try:
            data = data_of(r)
        except ReportError:
            continue
        images = []
        for k, row in enumerate(table["rows"], 1):
            try:
                tree = Tree.from_canonical(row["model"], data.rowsets, data.train,
                                           data.alpha)
            except ModelTermError:
                continue                          # another data set's tree
            (out / f"trees/top_{k}.svg").write_text(
                tree_svg(tree, f"T{k}", font=TREE_FONT, fit=False) + "\n")
            images.append(f"![T{k}](trees/top_{k}.svg)")
        if not images:
            return []
        return [f"The trees drawn, \"yes\" to the left; their leaves show the training "
                f"rows of {r.label} (of each class, or their mean and number).", "",
                " ".join(images), ""]
    return []


def _cached(load):
    """`load(run)` remembered per run, its ReportError too."""
    got: dict = {}

    def data_of(run):
        key = id(run)
        if key not in got:
            try:
                got[key] = (load(run), None)
            except ReportError as e:
                got[key] = (None, e)
        value, err = got[key]
        if err is not None:
            raise err
        return value
    return data_of


def _agreement_section(pred, agree, figs) -> list[str]:
    lines = ["## Class probabilities between runs", ""]
    if not agree:
        return lines + ["No two runs have test-set predictions to compare (run with "
                        "`--test` or `--holdout`, or give `slpy report --test CSV`)."]
    lines += [f"Rows compared: {pred['note']}. Mean and max absolute difference of the "
              f"class probabilities (over rows and classes) for each pair (paper 002, "
              f"section 7.2).", ""]
    lines += _table(["run", "run", "rows", "mean abs diff", "max abs diff"],
                    [[a["a"], a["b"], a["rows"], fmt(a["mean_abs_diff"]),
                      fmt(a["max_abs_diff"])] for a in agree])
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
                          [[d["run"], d["visited"], fmt(d["exact_mass_visited"]),
                            fmt(d["total_variation"])] for d in dist])


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


def make_report(run_dirs, out=None, top: int = 5, test=None, exact: bool = False,
                allow_load=(), query: str | None = None) -> tuple[Path, list[str]]:
    """Write the report of the runs at run_dirs into out (default RUN_DIR/report of
    the first); returns its path and the R-hat warnings. `allow_load`: folders the
    priors may load files from, when they are compiled again (--exact). `query`: a
    question for a family that answers them (ModelFamily.queries)."""
    family = _family_of(run_dirs)
    if family != "tree":
        try:
            fam = get_family(family)
        except FamilyError as e:
            raise ReportError(f"{run_dirs[0]}: {e}") from None
        return family_report(fam, run_dirs, out, top, query)
    if query is not None:
        raise ReportError("--query is for model families that answer queries "
                          "(networks), not trees")
    runs = [load_run(d) for d in run_dirs]
    unique_labels(runs)
    out = Path(out) if out is not None else Path(run_dirs[0]) / "report"
    try:
        (out / "trees").mkdir(parents=True, exist_ok=True)
    except OSError as e:
        raise ReportError(f"{out}: cannot create the report directory ({e.strerror})")
    exact_post = exact_for(runs, allow_load) if exact else None
    conv = convergence(runs)
    extra = None
    if exact_post is not None:
        extra = {EXACT: dict(exact_post.top(top))}
    units = comparison_units(runs)
    table = top_trees(units, top, extra)
    if exact_post is not None:
        for row in table["rows"]:
            row["probs"][-1] = exact_post.prob(row["model"])
    _with_mcse(table, runs, units)
    pred = prediction_sets(units, test, exact_post, allow_load)
    agree = agreement(pred)
    dist = exact_distance(runs, exact_post) if exact_post is not None else []

    lines = ["# slpy report", ""] + runs_section(runs) + [""]
    conv_lines, warnings = convergence_section(conv)
    if conv["runs"]:
        lines += conv_lines + [""]
    ev_lines, evidence = evidence_section(runs)
    lines += ev_lines + ([""] if ev_lines else [])
    if chain_runs(runs):
        lines += trace_section(chain_runs(runs), TRACES, out, " of the tree")
    data_of = _cached(load_run_data)
    lines += _top_section(table, _draw_top(table, runs, out, data_of)) + [""]
    figs = []
    if len(pred.get("sets", [])) > 1:
        figures.scatter_figure(pred, out / "seed_scatter.png")
        figures.difference_figure(pred, out / "seed_differences.png")
        figs = [("seed_scatter.png", "class probabilities, run against run"),
                ("seed_differences.png", "differences in class probabilities")]
    lines += _agreement_section(pred, agree, figs) + [""]
    if dist:
        lines += _exact_section(dist) + [""]
    feature_lines, features = interpretation_section(runs, out, data_of)
    lines += feature_lines
    lines += ["## Trees", "",
              "Each tree as a drawing, as Graphviz DOT and as text; \"yes\" (the test "
              "holds) goes left, leaves show the training rows of each class.", ""]
    from ..trees.svg import tree_svg
    for k, (title, tree) in enumerate(_trees(runs, exact_post), 1):
        stem = f"trees/tree_{k}"
        (out / f"{stem}.svg").write_text(tree_svg(tree, font=TREE_FONT, fit=False) + "\n")
        figures.tree_figure(tree, out / f"{stem}.png", title.replace(" = ", "\n"))
        (out / f"{stem}.dot").write_text(tree.to_dot() + "\n")
        (out / f"{stem}.txt").write_text(tree.export_text() + "\n")
        lines += [f"### {title}", "", f"![{title}]({stem}.svg)", "",
                  f"[DOT]({stem}.dot), [text]({stem}.txt), [PNG]({stem}.png), "
                  f"{tree.n_leaves} leaves, depth {tree.depth}", "", "```",
                  tree.export_text(), "```", ""]
    (out / "report.md").write_text("\n".join(lines).rstrip() + "\n")
    numbers = {"runs": [{"run": r.label, "path": str(r.path), "kind": r.kind} for r in runs],
               "convergence": conv, "top_trees": table,
               "prediction_rows": pred.get("note"), "agreement": agree,
               "exact": dist or None, "features": features or None,
               "evidence": evidence or None}
    (out / "report.json").write_text(json.dumps(numbers, indent=2, sort_keys=True) + "\n")
    return out, warnings
