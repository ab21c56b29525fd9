"""The report's section on what the posterior says about the features: the posterior
inclusion probability of each feature per run (the estimated posterior mass of the
trees that split on it: models.csv's probabilities), partial dependence with 90%
credible bands over the visited trees for the most included features, and for
regression runs with test rows the coverage of 90% predictive intervals. The numbers
come from slpy.trees.interpret; MCMC tree runs only (an exact run's models.csv lists
only its most probable trees)."""
from __future__ import annotations

import numpy as np

from . import md_code, md_table as _table, md_text
from .figures import COLORS, _figure, _save

__all__ = ["run_posterior", "interpretation_section", "COVERAGE", "PD_FEATURES"]

COVERAGE = 0.9       # of the bands and intervals
PD_FEATURES = 3      # partial dependence of this many features, most included first
GRID = 30            # grid values per feature


def run_posterior(run, data):
    """The run's posterior as WeightedTrees: every model of models.csv (every visited
    tree, for MCMC) with its estimated probability."""
    from ..trees.interpret import WeightedTrees
    from ..trees.model import Tree
    from ..trees.term import ModelTermError
    from ..trees.interpret import normal_prior
    from . import ReportError
    models = [m for m in run.models if m["prob"]]
    try:
        trees = [Tree.from_canonical(m["model"], data.rowsets, data.train, data.alpha)
                 for m in models]
    except ModelTermError as e:
        raise ReportError(f"{run.path}/models.csv: {e}") from None
    train = data.train
    return WeightedTrees(trees, np.array([m["prob"] for m in models]), train.task,
                         train.n_features, alpha=data.alpha if train.task ==
                         "classification" else None, normal=normal_prior(train))


def interpretation_section(runs, out, load_data) -> tuple[list[str], dict]:
    """(Markdown lines, numbers for report.json); figures into `out`. `load_data(run)`:
    the run's RunData (slpy.report.predict.load_run_data, passed in so that this
    section imports none of the prediction code and the model families under it)."""
    runs = [r for r in runs if r.kind == "mcmc" and r.models]
    if not runs:
        return [], {}
    lines = ["## Features", ""]
    runs, datas, left_out = _with_data(runs, load_data)
    if not runs:
        return lines + left_out + [""], {}
    posts = [run_posterior(r, d) for r, d in zip(runs, datas)]
    names = datas[0].train.feature_names
    inc = np.array([p.inclusion() for p in posts])              # [runs, features]
    order = np.argsort(-inc.mean(axis=0), kind="stable")
    lines += ["Posterior inclusion probability of each feature: the estimated posterior "
              "probability that the tree splits on it (the summed probabilities of the "
              "visited trees that do, from models.csv).", ""]
    head = ["feature"] + [r.label for r in runs]
    lines += _table(head, [[md_code(names[j], table=True)] + [f"{inc[k, j]:.4f}" for k in range(len(runs))]
                           for j in order])
    _inclusion_figure(runs, names, inc, order, out / "feature_inclusion.png")
    lines += ["", "![posterior inclusion probabilities](feature_inclusion.png)", ""]
    top = [int(j) for j in order[:PD_FEATURES]]
    _pd_figure(runs, datas, posts, top, out / "partial_dependence.png")
    task = datas[0].train.task
    what = "the posterior mean response" if task == "regression" else \
        f"the probability of class {md_text(datas[0].train.classes[-1])}"
    lines += [f"Partial dependence of {what} on the {len(top)} most included features "
              f"(the mean over the training rows of the prediction with the feature set "
              f"to each value), with the central {COVERAGE:.0%} band over the visited "
              f"trees.", "", "![partial dependence](partial_dependence.png)", ""]
    lines += left_out + ([""] if left_out else [])
    numbers = {"features": list(names),
               "inclusion": {r.label: [round(float(x), 12) for x in inc[k]]
                             for k, r in enumerate(runs)}}
    if task == "regression":
        cov = _coverage_rows(runs, datas, posts)
        if cov:
            lines += [f"Coverage of the {COVERAGE:.0%} posterior predictive intervals on "
                      f"the test rows:", ""]
            lines += _table(["run", "test rows", "inside", "mean width"], cov) + [""]
            numbers["interval_coverage"] = cov
    return lines, numbers


def _with_data(runs, load_data) -> tuple[list, list, list]:
    """(runs, their RunData, Markdown lines on the runs left out): a run whose training
    data cannot be read, or whose features differ from the first run's, is left out
    of the section rather than failing the report."""
    from . import ReportError
    kept, datas, out = [], [], []
    for r in runs:
        try:
            d = load_data(r)
        except ReportError as e:
            out.append(f"- {r.label}: left out, {e}")
            continue
        if datas and d.train.feature_names != datas[0].train.feature_names:
            out.append(f"- {r.label}: left out, its features differ from {kept[0].label}'s")
            continue
        kept.append(r)
        datas.append(d)
    return kept, datas, out


def _coverage_rows(runs, datas, posts) -> list:
    out = []
    for r, d, p in zip(runs, datas, posts):
        if d.test is None or not d.test.n_rows:
            continue
        lohi = p.predict_interval(d.test.X, COVERAGE)
        y = np.asarray(d.test.y, dtype=float)
        inside = float(((y >= lohi[:, 0]) & (y <= lohi[:, 1])).mean())
        out.append([r.label, d.test.n_rows, f"{inside:.3f}",
                    f"{float((lohi[:, 1] - lohi[:, 0]).mean()):.4g}"])
    return out


def _inclusion_figure(runs, names, inc, order, path):
    fig = _figure(7, 1.0 + 0.32 * len(names) * max(1, len(runs) * 0.6))
    ax = fig.subplots()
    h = 0.8 / len(runs)
    ypos = np.arange(len(order))
    for k, r in enumerate(runs):
        ax.barh(ypos + (k - (len(runs) - 1) / 2) * h, inc[k, order], height=h,
                color=COLORS[k % len(COLORS)], label=r.label)
    ax.set_yticks(ypos, [names[j] for j in order], fontsize=9)
    ax.invert_yaxis()
    ax.set_xlim(0, 1.02)
    ax.set_xlabel("posterior inclusion probability")
    ax.grid(alpha=0.3, axis="x")
    if len(runs) > 1:
        ax.legend(fontsize=8, loc="lower right")
    ax.set_title("Posterior inclusion probability of each feature", fontsize=11)
    fig.tight_layout()
    return _save(fig, path)


def _pd_figure(runs, datas, posts, features, path):
    fig = _figure(3.6 * len(features) + 0.6, 3.4)
    axes = fig.subplots(1, len(features), squeeze=False)[0]
    from ..trees.interpret import level_grid, make_grid
    for ax, j in zip(axes, features):
        for k, (r, d, p) in enumerate(zip(runs, datas, posts)):
            X = d.train.X
            levels = (d.train.levels or [None] * len(d.train.feature_names))[j]
            grid = make_grid(X[:, j], GRID) if levels is None else \
                level_grid(X[:, j], levels)[0]
            pdp = p.partial_dependence(X, j, grid, COVERAGE)
            row = -1 if d.train.task == "classification" else 0
            c = COLORS[k % len(COLORS)]
            if levels is not None:            # levels have no order: a point per level
                at = np.arange(len(grid)) + (k - (len(runs) - 1) / 2) * 0.12
                avg = pdp["average"][row]
                ax.errorbar(at, avg, yerr=[avg - pdp["lower"][row], pdp["upper"][row] - avg],
                            fmt="o", color=c, ms=5, capsize=3, label=r.label)
                ax.set_xticks(np.arange(len(grid)), pdp["grid_values"][0], rotation=30,
                              ha="right", fontsize=8)
                continue
            ax.fill_between(grid, pdp["lower"][row], pdp["upper"][row], step="mid",
                            color=c, alpha=0.25, lw=0)
            ax.step(grid, pdp["average"][row], where="mid", color=c, lw=1.5, label=r.label)
        ax.set_xlabel(datas[0].train.feature_names[j])
        ax.grid(alpha=0.3)
    task = datas[0].train.task
    axes[0].set_ylabel("mean response" if task == "regression"
                       else f"P(class = {datas[0].train.classes[-1]})")
    if len(runs) > 1:
        axes[0].legend(fontsize=8)
    fig.suptitle(f"Partial dependence, with {COVERAGE:.0%} bands over the trees", fontsize=11)
    fig.tight_layout()
    return _save(fig, path)
