"""`slpy report` sections for clustering runs: the co-clustering matrix (a figure per
run, rows in the order of the point estimate's clusters, and a table of its mean within
and between those clusters), how far the runs' matrices are apart, the posterior of the
number of clusters, and the most probable partitions."""
from __future__ import annotations

import numpy as np

from ..report import md_table as _table
from ..report.figures import _figure, _save
from ..report.generic import top_models
from .partition import Partition, block_names, parse_key, ranges

__all__ = ["report_sections", "co_clustering_figure"]

# the whole matrix is a table too up to this many rows
TABLE_ROWS = 20


def report_sections(runs, out, top: int) -> list:
    runs = [r for r in runs if r.summary.get("co_clustering")]
    if not runs:
        return []
    mats = [np.array(r.summary["co_clustering"], dtype=float) for r in runs]
    n = mats[0].shape[0]
    if any(m.shape != (n, n) for m in mats):
        return ["## Co-clustering", "", "The runs cluster different numbers of rows.", ""]
    best = parse_key(runs[0].summary["point_estimate"])
    order = [i for b in best for i in b]
    names = block_names(len(best))
    lines = ["## Co-clustering", "",
             "P(rows i and j in one cluster): the fraction of kept iterations whose "
             "partition puts them together. Rows are ordered by the clusters of the point "
             f"estimate of {runs[0].label} (the visited partition with the least expected "
             "Binder loss), lines mark its clusters.", ""]
    for k, (r, m) in enumerate(zip(runs, mats), 1):
        f = f"co_clustering_{k}.png"
        co_clustering_figure(m, order, [len(b) for b in best], out / f,
                             f"Co-clustering, {r.label}")
        lines += [f"![co-clustering, {r.label}]({f})", ""]
    mean = np.mean(mats, axis=0)
    lines += ["Its clusters, and the mean co-clustering within and between them"
              + (f" (the mean over the {len(runs)} runs)" if len(runs) > 1 else "") + ":",
              ""]
    rows = []
    for a, b in zip(names, best):
        cells = []
        for c in best:
            sub = mean[np.ix_(b, c)]
            if b is c:
                sub = sub[~np.eye(len(b), dtype=bool)] if len(b) > 1 else np.ones(1)
            cells.append(f"{float(sub.mean()):.3f}")
        rows.append([a, ranges(i + 1 for i in b)] + cells)
    lines += _table(["cluster", "rows"] + names, rows) + [""]
    if n <= TABLE_ROWS:
        lines += _table(["row"] + [str(i + 1) for i in order],
                        [[str(i + 1)] + [f"{mean[i, j]:.2f}" for j in order]
                         for i in order]) + [""]
    if len(mats) > 1:
        diffs = [float(np.abs(a - b).max())
                 for k, a in enumerate(mats) for b in mats[k + 1:]]
        lines += [f"The largest difference between two runs' co-clustering of a pair of "
                  f"rows is {max(diffs):.4f}.", ""]
    ks = sorted({int(k) for r in runs for k in r.summary.get("clusters_posterior", {})})
    if ks:
        lines += ["## Number of clusters", ""]
        post = [r.summary.get("clusters_posterior", {}) for r in runs]
        lines += _table(["clusters"] + [r.label for r in runs],
                        [[str(k)] + [f"{p.get(str(k), 0.0):.4f}" for p in post]
                         for k in ks]) + [""]
    lines += ["## Most probable partitions", ""]
    for k, m in enumerate(top_models(runs, min(top, 3)), 1):
        part = Partition(parse_key(m["model"]))
        lines += [f"### M{k}", "",
                  f"posterior {', '.join(f'{p:.3f}' for p in m['probs'])}", "",
                  "```", str(part), "```", ""]
    return lines


def co_clustering_figure(m, order, sizes, path, title):
    """The matrix with rows and columns in `order` (row numbers from 1), lines between
    clusters of the given sizes."""
    n = len(order)
    sub = m[np.ix_(order, order)]
    side = min(9.0, 2.0 + 0.18 * n)
    fig = _figure(side + 1.0, side)
    ax = fig.subplots()
    im = ax.imshow(sub, vmin=0, vmax=1, cmap="Blues", interpolation="nearest")
    ticks = range(n) if n <= 40 else range(0, n, max(1, n // 20))
    ax.set_xticks(list(ticks), [str(order[t] + 1) for t in ticks], rotation=90, fontsize=6)
    ax.set_yticks(list(ticks), [str(order[t] + 1) for t in ticks], fontsize=6)
    edge = -0.5
    for s in sizes[:-1]:
        edge += s
        ax.axhline(edge, color="#d62728", lw=0.8)
        ax.axvline(edge, color="#d62728", lw=0.8)
    fig.colorbar(im, ax=ax, fraction=0.046)
    ax.set_title(title, fontsize=10)
    fig.tight_layout()
    return _save(fig, path)
