"""Paper 000's figures: the trajectories of Figs 6-8, the seed differences of Fig 5 and
the box experiment's accuracies."""
from __future__ import annotations

from pathlib import Path

import numpy as np

from benchmarks.lib.pages import pyplot
from benchmarks.paper000_analysis import trace

RC = {"font.size": 10, "axes.titlesize": 10.5, "figure.dpi": 110}


def _plt():
    return pyplot(RC)


def _ylim(lls, lo_q=0.002, skip=0.01):
    """The paper truncates the initial very low log-likelihoods: limits from the
    values after the first 1% of iterations."""
    vals = np.concatenate([ll[int(len(ll) * skip):] for ll in lls])
    lo, hi = np.quantile(vals, lo_q), vals.max()
    pad = 0.06 * (hi - lo + 1)
    return lo - pad, hi + pad


def _trajectories(path: Path, panels, title: str, hline=None, hlabel=None, ylim=None):
    plt = _plt()
    fig, axes = plt.subplots(1, len(panels), figsize=(5.2 * len(panels), 3.9),
                             sharey=True, squeeze=False)
    data = [trace(rd) for rd, _ in panels]
    lo, hi = ylim or _ylim([d[1] for d in data])
    if hline is not None and not ylim:
        lo, hi = min(lo, hline - 2), max(hi, hline + 2)
    for ax, (rd, label), (it, ll, _) in zip(axes[0], panels, data):
        ax.plot(it, ll, lw=0.4, color="tab:blue", label="log-likelihood of the current tree")
        if hline is not None:
            ax.axhline(hline, color="tab:red", ls="--", lw=1, label=hlabel)
        below = int((ll < lo).sum())
        ax.set_title(label)
        ax.set_xlabel("iteration" + (f"  ({below} early values below the axis not shown)"
                                     if below else ""))
        ax.set_ylim(lo, hi)
        ax.grid(alpha=0.3)
        if hline is not None and ax is axes[0][0]:
            ax.legend(loc="best", fontsize=8, framealpha=0.9)
    axes[0][0].set_ylabel("marginal log-likelihood")
    fig.suptitle(title)
    fig.tight_layout()
    fig.savefig(path)
    plt.close(fig)


def make_figures(fig_dir: Path, out: Path, runs: dict, res: dict, done: set) -> list:
    fig_dir.mkdir(parents=True, exist_ok=True)
    R = out / "runs"
    made = []
    if "fig6" in done:
        p = fig_dir / "paper000_fig6_q07_vs_quc.png"
        _trajectories(p, [(R / "bcw_grow_q07_s1", "q0-7 (cut at choice point it mod 8)"),
                          (R / "bcw_grow_s1", "quc (uniform cut)")],
                      "Fig 6: BCW, GROWTREE (alpha 0.95, beta 1), seed 1")
        made.append(p)
    if "fig7" in done:
        p = fig_dir / "paper000_fig7_edittree_vs_growtree.png"
        _trajectories(p, [(R / "bcw_edit_s1", "EDITTREE (initial tree: greedy CART)"),
                          (R / "bcw_grow_s1", "GROWTREE (alpha 0.95, beta 1)")],
                      "Fig 7: BCW, quc, seed 1", hline=res["fig7"]["init_log_lik"],
                      hlabel=f"EDITTREE's initial tree ({res['fig7']['init_log_lik']:.1f})")
        made.append(p)
    if "fig8" in done:
        p = fig_dir / "paper000_fig8_high_likelihood_start.png"
        f8 = res["fig8"]
        lls = [trace(R / n)[1] for n, _ in runs["fig8"]]
        lo = min(-390, min(ll.min() for ll in lls) - 3)
        hi = max(-340, max(ll.max() for ll in lls) + 3)
        _trajectories(p, [(R / "pima_init_b08_s1", "GROWTREE alpha 0.95, beta 0.8"),
                          (R / "pima_init_b1_s1", "GROWTREE alpha 0.95, beta 1")],
                      "Fig 8: Pima, quc, started from the greedy tree",
                      hline=f8["init_log_lik"],
                      hlabel=f"initial tree ({f8['init_log_lik']:.1f}, "
                             f"{f8['init_leaves']} leaves)", ylim=(lo, hi))
        made.append(p)
    if "fig5" in done:
        plt = _plt()
        f5 = res["fig5"]
        d = np.asarray(f5["diff"])
        fig, (a1, a2) = plt.subplots(1, 2, figsize=(10.4, 4.1))
        bw = f5["bandwidth"]
        span = max(0.45, np.abs(d).max() + 0.05)
        a1.hist(d, bins=np.arange(-span, span + 1e-9, 0.02), density=True,
                color="tab:blue", alpha=0.45, label="histogram (bins 0.02)")
        xs = np.linspace(-span, span, 800)
        dens = np.exp(-0.5 * ((xs[:, None] - d[None, :]) / bw) ** 2).sum(1) / (
            len(d) * bw * np.sqrt(2 * np.pi))
        a1.plot(xs, dens, color="tab:red", lw=1.2,
                label=f"Gaussian kernel density (bandwidth {bw:.4f})")
        a1.set_xlabel(f"difference of the class-0 ({f5['class0']}) probabilities, "
                      f"seed 1 - seed 2")
        a1.set_ylabel("density")
        a1.set_title(f"Fig 5: N = {len(d)} held-out Pima rows")
        a1.legend(fontsize=8, loc="upper left")
        a1.grid(alpha=0.3)
        a1.set_xlim(-span, span)
        a2.scatter(f5["p_a"], f5["p_b"], s=10, alpha=0.6, color="tab:blue",
                   edgecolor="none")
        a2.plot([0, 1], [0, 1], color="0.4", lw=0.8, ls="--", label="equal")
        a2.set_xlabel("class-0 probability, run with seed 1")
        a2.set_ylabel("class-0 probability, run with seed 2")
        a2.set_title("The same rows: run 1 against run 2")
        a2.set_xlim(-0.02, 1.02)
        a2.set_ylim(-0.02, 1.02)
        a2.set_aspect("equal")
        a2.legend(fontsize=8, loc="upper left")
        a2.grid(alpha=0.3)
        fig.suptitle("Two 50k-iteration runs on 2/3 of Pima differing only in the seed "
                     "(GROWTREE alpha 0.95, beta 0.8, quc)" if len(d) else "")
        fig.tight_layout()
        p = fig_dir / "paper000_fig5_seed_differences.png"
        fig.savefig(p)
        plt.close(fig)
        made.append(p)
    if "boxes" in done:
        plt = _plt()
        bx = res["boxes"]
        tags = sorted({n.split("_")[0] for n in bx["runs"]}, key=len)
        fig, axes = plt.subplots(1, len(tags), figsize=(max(6.4, 5.0 * len(tags)), 4.4),
                                 sharey=True, squeeze=False)
        paper = {"nobox": {1: 74.8, 2: 76.2, 3: 74.4}, "box": {1: 78.6, 2: 78.6, 3: 78.6}}
        for ax, tag in zip(axes[0], tags):
            for k, (arm, colour, lab) in enumerate((("nobox", "tab:blue", "no boxes"),
                                                    ("box", "tab:orange",
                                                     "Fig 1 boxes"))):
                rs = sorted((n, r) for n, r in bx["runs"].items()
                            if n.startswith(f"{tag}_{arm}_"))
                seeds = np.array([int(n.rsplit("_s", 1)[1]) for n, _ in rs])
                x = seeds + (k - 0.5) * 0.16
                ax.plot(x, [100 * r["acc"] for _, r in rs], "o", color=colour,
                        label=f"ours, {lab}", ms=7)
                if tag == "synth":
                    ax.plot(x, [paper[arm][sd] for sd in seeds], "x", color=colour,
                            label=f"paper, {lab}", ms=8, mew=2)
            ax.axhline(100 * bx["true_tree_acc"], color="0.3", ls="--", lw=1,
                       label="the true tree (Bayes rule), ours")
            n_train = next(r["n_train"] for n, r in bx["runs"].items()
                           if n.startswith(tag + "_"))
            ax.set_title(f"{n_train} training rows, 500 test rows"
                         + ("" if tag == "synth" else " (our addition)"))
            ax.set_xlabel("MCMC seed")
            ax.set_xticks(sorted({int(n.rsplit('_s', 1)[1]) for n in bx["runs"]}))
            ax.set_xlim(0.5, 3.5)
            ax.grid(alpha=0.3)
        axes[0][0].set_ylabel("test accuracy (%)")
        handles, labels = axes[0][0].get_legend_handles_labels()
        fig.legend(handles, labels, loc="lower center", ncol=3, fontsize=8.5,
                   frameon=False)
        fig.suptitle("Box experiment: synthetic data from a known true tree")
        fig.tight_layout(rect=(0, 0.13, 1, 1))
        p = fig_dir / "paper000_boxes_accuracy.png"
        fig.savefig(p)
        plt.close(fig)
        made.append(p)
    return made
