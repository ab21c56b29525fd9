"""Figures of runs with matplotlib (the optional extra `slpy[plots]`).

Figures are drawn on matplotlib's Agg canvas without pyplot, so nothing global
(backend, open figures) changes. Each function writes one PNG and returns its path.

- ``trace_figure``: log-likelihood (paper 000, Figs 6-8), leaves or depth against the
  iteration, one panel per run, one line per chain.
- ``scatter_figure``: one run's class probabilities against another's for the same
  test rows, one panel per pair (paper 002, Figs 1-9).
- ``difference_figure``: histogram of the differences (paper 000, Fig 5).
- ``tree_figure``: a tree drawn as a tree: splits as boxes, leaves with their class
  counts (or mean), "yes" (x <= t) to the left.
"""
from __future__ import annotations

import itertools

import numpy as np

__all__ = ["trace_figure", "scatter_figure", "difference_figure", "tree_figure"]

DPI = 110
COLORS = ["#1f77b4", "#d62728", "#2ca02c", "#9467bd", "#ff7f0e", "#8c564b", "#e377c2",
          "#7f7f7f", "#bcbd22", "#17becf"]


def _figure(w, h):
    from matplotlib.figure import Figure
    from matplotlib.backends.backend_agg import FigureCanvasAgg
    fig = Figure(figsize=(w, h), dpi=DPI)
    FigureCanvasAgg(fig)
    return fig


def _save(fig, path):
    fig.savefig(path, dpi=DPI, metadata={"Software": None})
    return path


def trace_figure(runs, key: str, label: str, path, title: str | None = None):
    """``key`` (log_lik, leaves or depth) against the iteration: one panel per MCMC run,
    one line per chain. The log-likelihood's first iterations (from a prior draw) can be
    far below the rest: the axis then starts at the lowest value after the first 2% of
    iterations, and the title says so."""
    runs = [r for r in runs if r.kind == "mcmc"]
    fig = _figure(9, 1.2 + 2.1 * len(runs))
    axes = fig.subplots(len(runs), 1, sharex=True, squeeze=False)[:, 0]
    step = key != "log_lik"
    clipped = False
    for ax, r in zip(axes, runs):
        lo = np.inf
        for c in r.chains:
            y = getattr(c, key)
            ax.plot(c.iters, y, lw=0.8, color=COLORS[c.index % len(COLORS)],
                    drawstyle="steps-post" if step else "default",
                    label=f"chain {c.index}")
            if len(y):
                lo = min(lo, float(np.min(y[len(y) // 50:])))
        if key == "log_lik" and np.isfinite(lo):
            full = min(float(np.min(getattr(c, key))) for c in r.chains if c.n)
            hi = max(float(np.max(getattr(c, key))) for c in r.chains if c.n)
            if full < lo - 0.5 * (hi - lo) and hi > lo:
                ax.set_ylim(lo - 0.08 * (hi - lo), hi + 0.08 * (hi - lo))
                clipped = True
        ax.set_ylabel(label)
        ax.set_title(r.label, fontsize=10, loc="left")
        ax.grid(alpha=0.3)
        if len(r.chains) > 1:
            ax.legend(fontsize=8, loc="lower right", bbox_to_anchor=(1.0, 1.0), frameon=False,
                      ncol=min(6, len(r.chains)), borderaxespad=0.1)
        if step:
            ax.yaxis.get_major_locator().set_params(integer=True)
    axes[-1].set_xlabel("iteration")
    head = title or f"{label} trajectories"
    if clipped:
        head += " (first iterations below the axis)"
    fig.suptitle(head, fontsize=12)
    fig.tight_layout()
    return _save(fig, path)


def _pairs(pred):
    return list(itertools.combinations(pred["sets"], 2))


def _columns(classes):
    """The class columns to plot: one for two classes (the other is 1 - it), else all."""
    return [0] if len(classes) == 2 else list(range(len(classes)))


def scatter_figure(pred, path):
    """Class probabilities of one run against another's, for each pair of runs."""
    pairs = _pairs(pred)
    classes = pred["classes"]
    cols = _columns(classes)
    ncol = min(3, len(pairs))
    nrow = -(-len(pairs) // ncol)
    legend = len(cols) > 1
    fig = _figure(max(4.0 * ncol, 5.5), 4.1 * nrow + 0.5 + 0.4 * legend)
    axes = fig.subplots(nrow, ncol, squeeze=False).ravel()
    for ax, ((la, pa), (lb, pb)) in zip(axes, pairs):
        for j, c in enumerate(cols):
            ax.scatter(pa[:, c], pb[:, c], s=12, alpha=0.6, color=COLORS[j % len(COLORS)],
                       edgecolors="none", label=classes[c] if len(cols) > 1 else None)
        ax.plot([0, 1], [0, 1], color="black", lw=0.8, ls="--")
        ax.set_xlim(-0.02, 1.02)
        ax.set_ylim(-0.02, 1.02)
        ax.set_aspect("equal")
        what = f"P(class = {classes[cols[0]]})" if len(cols) == 1 else "class probability"
        ax.set_xlabel(f"{what}, {la}", fontsize=9)
        ax.set_ylabel(f"{what}, {lb}", fontsize=9)
        d = np.abs(pa - pb)
        ax.set_title(f"mean |diff| {d.mean():.4f}, max {d.max():.4f}", fontsize=9)
        ax.grid(alpha=0.3)
    for ax in axes[len(pairs):]:
        ax.set_visible(False)
    if legend:                          # below the panels, clear of the points
        handles, names = axes[0].get_legend_handles_labels()
        fig.legend(handles, names, loc="lower center", ncol=len(cols), fontsize=9,
                   title="class", title_fontsize=9, frameon=False)
    n_rows = len(pred["sets"][0][1])
    fig.suptitle(f"Class probabilities, run against run ({n_rows} test rows)", fontsize=12)
    fig.tight_layout(rect=(0, 0.1 / nrow if legend else 0, 1, 1))
    return _save(fig, path)


def difference_figure(pred, path):
    """Histogram of the differences in class probabilities, one per pair of runs."""
    pairs = _pairs(pred)
    cols = _columns(pred["classes"])
    fig = _figure(7, 4.2)
    ax = fig.subplots()
    diffs = [(pa[:, cols] - pb[:, cols]).ravel() for (_, pa), (_, pb) in pairs]
    span = max(0.02, max(float(np.max(np.abs(d))) for d in diffs))
    bins = np.linspace(-span, span, 41)
    for k, (((la, _), (lb, _)), d) in enumerate(zip(pairs, diffs)):
        ax.hist(d, bins=bins, histtype="step", lw=1.5, color=COLORS[k % len(COLORS)],
                label=f"{la} - {lb}")
    ax.axvline(0, color="black", lw=0.8, ls="--")
    what = f"P(class = {pred['classes'][0]})" if len(cols) == 1 else "class probability"
    ax.set_xlabel(f"difference in {what}")
    ax.set_ylabel("test rows" if len(cols) == 1 else "test rows x classes")
    ax.set_title("Differences in estimated class probabilities between runs", fontsize=11)
    ax.legend(fontsize=8)
    ax.grid(alpha=0.3)
    fig.tight_layout()
    return _save(fig, path)


# -- trees -----------------------------------------------------------------------------------

def _leaf_label(tree, leaf) -> str:
    c = leaf.counts
    if tree.task == "regression":
        return f"mean {c[1] / c[0]:.4g}\nn = {int(c[0])}" if c[0] else "empty"
    return "\n".join(f"{name}: {int(k)}" for name, k in zip(tree.classes, c))


def _layout(tree):
    from ..trees.svg import layout     # the same layout as the SVG drawings
    return layout(tree)


def _text_size(label: str, fs: float) -> tuple[float, float]:
    """(width, height) in inches of a boxed label (DejaVu Sans: about 0.62 em a
    character, with the box's padding)."""
    rows = label.split("\n")
    return (max(len(r) for r in rows) * 0.62 * fs / 72 + 0.12,
            len(rows) * 1.25 * fs / 72 + 0.12)


def tree_figure(tree, path, title: str):
    """Draw ``tree`` under ``title`` (lines split at newlines): each split a box
    "feature <= t" (yes: left), each leaf a rounded box with its class counts (or mean
    and size). The horizontal unit is the smallest that keeps neighbouring boxes of a
    level apart."""
    from ..trees.model import Split
    nodes, x, depth, parent = _layout(tree)
    fs = 9
    labels = []
    for n in nodes:
        if isinstance(n, Split):
            labels.append(n.test_text())
        else:
            labels.append(_leaf_label(tree, n))
    sizes = [_text_size(lab, fs) for lab in labels]
    unit = max(s[0] for s in sizes) * 0.5 + 0.15
    by_level: dict = {}
    for k in np.argsort(x, kind="stable"):
        by_level.setdefault(depth[k], []).append(k)
    for level in by_level.values():
        for a, b in zip(level, level[1:]):
            unit = max(unit, ((sizes[a][0] + sizes[b][0]) / 2 + 0.15) / (x[b] - x[a]))
    n_leaves = int(x.max()) + 1
    max_d = max(depth)
    row = max(s[1] for s in sizes) + 0.45          # inches between levels
    width = unit * n_leaves
    tw, th = _text_size(title, 11)
    w = min(60.0, max(width, tw) + 0.3)
    h = min(40.0, row * (max_d + 1) + th + 0.35)
    fig = _figure(w, h)
    ax = fig.add_axes([(w - width) / 2 / w, 0.1 / h, width / w, (row * (max_d + 1)) / h])
    ax.set_xlim(-0.5, n_leaves - 0.5)
    ax.set_ylim(max_d + 0.5, -0.5)
    ax.axis("off")
    for k, n in enumerate(nodes):
        p = parent[k]
        if p >= 0:
            ax.plot([x[p], x[k]], [depth[p], depth[k]], color="#555555", lw=1, zorder=1)
            yes = nodes[p].left is n
            ax.text((x[p] + x[k]) / 2, (depth[p] + depth[k]) / 2, "yes" if yes else "no",
                    fontsize=fs - 2, ha="center", va="center", color="#555555",
                    bbox=dict(boxstyle="round,pad=0.1", fc="white", ec="none"), zorder=2)
        box = dict(boxstyle="square,pad=0.3", fc="#dbe8f5", ec="#1f4e79") \
            if isinstance(n, Split) else dict(boxstyle="round,pad=0.3", fc="#f3f3f3",
                                              ec="#555555")
        ax.text(x[k], depth[k], labels[k], fontsize=fs, ha="center", va="center", bbox=box,
                zorder=3)
    fig.text(0.5, 1 - 0.08 / h, title, fontsize=11, ha="center", va="top")
    return _save(fig, path)
