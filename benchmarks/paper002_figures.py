"""Paper 002's figures: seed against seed (paper Figs 1-9) and the trajectories of the
longest chains, per data set."""
from __future__ import annotations

from pathlib import Path

import numpy as np

from benchmarks.lib.pages import pyplot
from benchmarks.paper002_data import DATASETS, SEEDS, kfmt

def make_figures(data, fig_dir: Path, agree) -> list:
    """[(file, caption block, data set, chain length)] of the figures made."""
    plt = pyplot({"font.size": 11, "axes.titlesize": 11})
    figs = []
    colors = {1: "tab:blue", 2: "tab:orange", 3: "tab:green"}
    for name, d in data.items():
        # scatter: seed 2 and seed 3 against seed 1, as paper Figs 1-9
        configs = [(n, t) for t in (False, True) for n in d["prefixes"]]
        nrow, ncol = (2, len(d["prefixes"])) if len(d["prefixes"]) > 1 else (1, 2)
        fig, axes = plt.subplots(nrow, ncol, figsize=(3.7 * ncol + 0.6, 3.9 * nrow + 1.2),
                                 squeeze=False, layout="constrained")
        pos = d["split"].pos
        for ax, (n, temp) in zip(axes.ravel(), configs):
            ax.plot([0, 1], [0, 1], color="0.6", lw=0.8, zorder=0)
            base = d["preds"].get((temp, 1))
            if base is not None:
                for s, mk in ((2, "o"), (3, "^")):
                    if (temp, s) in d["preds"]:
                        ax.scatter(base[n][:, pos], d["preds"][(temp, s)][n][:, pos], s=14,
                                   marker=mk, alpha=0.6, color=colors[s],
                                   label=f"seed {s}", linewidths=0)
            if base is None or not any((temp, s) in d["preds"] for s in (2, 3)):
                ax.text(0.5, 0.5, "runs not finished", ha="center", va="center",
                        color="0.4")
            a = agree.get((name, n, temp))
            sub = f"\nmean |Δp| {a['mean']:.3f}, R-hat {a['rhat']:.2f}" if a else ""
            ax.set_title(f"{name}, {kfmt(n)}, tempering {'T' if temp else 'F'}{sub}")
            ax.set_xlim(-0.02, 1.02)
            ax.set_ylim(-0.02, 1.02)
            ax.set_aspect("equal")
            ax.set_xlabel(f"p({DATASETS[name]['positive']}), seed 1")
            ax.set_ylabel(f"p({DATASETS[name]['positive']}), seed 2 / 3")
        fig.suptitle(f"{name}: posterior probability of class {DATASETS[name]['positive']!r}"
                     f" per hold-out row,\nseed 2 and seed 3 against seed 1", fontsize=12)
        handles = [plt.Line2D([], [], ls="", marker=mk, color=colors[s], label=f"seed {s}")
                   for s, mk in ((2, "o"), (3, "^"))]
        fig.legend(handles=handles, loc="outside lower center", ncol=2, frameon=False)
        f = fig_dir / f"paper002_scatter_{name}.png"
        fig.savefig(f, dpi=110)
        plt.close(fig)
        figs.append((f, "caption-scatter", name, d["nmax"]))
        # trajectories of the longest chains
        fig, axes = plt.subplots(3, 2, figsize=(12, 8.5), sharex=True, sharey="row",
                                 squeeze=False)
        for c, temp in enumerate((False, True)):
            for s in SEEDS:
                r = d["runs"].get((temp, s))
                if r is None:
                    continue
                n = len(r.log_lik)
                step = max(1, n // 4000)
                x = np.arange(0, n, step)
                for k, (ys, lab) in enumerate(((r.log_lik, "log marginal likelihood"),
                                               (r.leaves, "leaves"), (r.depth, "depth"))):
                    axes[k, c].plot(x, ys[::step], lw=0.5, color=colors[s], alpha=0.3)
                    w = max(1, n // 100)      # running mean over 1% of the chain
                    rm = np.convolve(ys.astype(float), np.ones(w) / w, mode="valid")
                    axes[k, c].plot(np.arange(w - 1, n)[::step], rm[::step], lw=1.4,
                                    color=colors[s], label=f"seed {s}")
                    axes[k, 0].set_ylabel(lab)
            axes[0, c].set_title(f"{name}, tempering {'on (cold chain)' if temp else 'off'}")
            if not any((temp, s) in d["runs"] for s in SEEDS):
                axes[0, c].text(0.5, 0.5, "runs not finished", ha="center", va="center",
                                color="0.4", transform=axes[0, c].transAxes)
            axes[2, c].set_xlabel("iteration")
            if axes[0, c].get_lines():
                axes[0, c].legend(loc="lower right", fontsize=9)
        lls = [r.log_lik for r in d["runs"].values()]
        allv = np.concatenate([v[len(v) // 100:] for v in lls])
        lo, hi = np.percentile(allv, 0.5), allv.max()
        axes[0, 0].set_ylim(lo - 0.05 * (hi - lo), hi + 0.05 * (hi - lo))
        fig.tight_layout()
        f = fig_dir / f"paper002_trace_{name}.png"
        fig.savefig(f, dpi=100)
        plt.close(fig)
        figs.append((f, "caption-trace", name, d["nmax"]))
    return figs

