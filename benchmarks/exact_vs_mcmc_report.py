"""The report of benchmarks/exact_vs_mcmc.py: docs/results/exact_vs_mcmc.md (its
prose in benchmarks/templates/exact_vs_mcmc.md, a hand-written discussion below it
kept) and the figures of distance against iterations and of the top trees."""
from __future__ import annotations

import numpy as np

from benchmarks.lib.env import machine, rel
from benchmarks.lib.pages import Page, Prose, keep_discussion, pyplot

DATE = "2026-11-21"

METRICS = [("tv_trees", "TV over all trees"), ("err_top", "max |error|, top-K trees"),
           ("pred_max", "max |error|, predictive p(y|x)"),
           ("tv_leaves", "TV, number of leaves")]



def figure(results, path, top_k):
    plt = pyplot()
    nr = len(results)
    fig, axes = plt.subplots(nr, 4, figsize=(15, 3.7 * nr), squeeze=False)
    for i, res in enumerate(results):
        for j, (key, title) in enumerate(METRICS):
            ax = axes[i][j]
            if key == "err_top" and res["top"][0][0] < 1e-3:
                ax.text(0.5, 0.5, f"not estimable from visits:\nthe most probable tree has\n"
                        f"p = {res['top'][0][0]:.1e}", ha="center", va="center",
                        transform=ax.transAxes, fontsize=10)
                ax.set_title(title.replace("top-K", f"top-{top_k}"), fontsize=10)
                ax.set_xticks([])
                ax.set_yticks([])
                continue
            for cname, rows in res["curves"].items():
                n = [r["n"] for r in rows]
                y = [max(r[key], 1e-5) for r in rows]
                if cname == "iid":
                    ax.plot(n, y, "k--", marker=".", lw=1.5, label="iid exact samples")
                else:
                    ax.plot(n, y, marker="o", ms=3, lw=1.5,
                            label=f"MCMC, seed {cname[4:]}")
            ax.set_xscale("log")
            if key == "tv_trees":
                ax.set_ylim(0, 1.05)      # TV over trees: linear, in [0, 1]
            else:
                ax.set_yscale("log")
            t = title.replace("top-K", f"top-{top_k}")
            ax.set_title(t, fontsize=10)
            ax.set_xlabel("iterations / samples")
            ax.grid(True, which="major", alpha=0.3)
            if j == 0:
                ax.set_ylabel(res["name"].replace("_", " "), fontsize=11)
            if i == 0 and j == 0:
                ax.legend(fontsize=8)
    fig.suptitle("MCMC (slpy run) against the exact posterior: distance vs iterations",
                 fontsize=12)
    fig.tight_layout()
    fig.savefig(path, dpi=100)
    plt.close(fig)


def top_figure(res, path, k=10):
    plt = pyplot()
    top = res["top"][:k]
    fig, ax = plt.subplots(figsize=(10, 4.2))
    x = np.arange(len(top))
    ax.bar(x - 0.2, [p for p, _ in top], 0.4, color="#08306b", label="exact")
    seeds = list(res["mcmc"])
    w = 0.4 / len(seeds)
    for i, s in enumerate(seeds):
        est = res["mcmc"][s]["top_estimates"]
        ax.bar(x + w * (i + 0.5), [est.get(key, 0.0) for _, key in top], w,
               color=["#6baed6", "#fd8d3c", "#74c476"][i % 3],
               label=f"MCMC seed {s}, {res['iterations']:,} iterations")
    ax.set_xticks(x)
    ax.set_xticklabels([f"#{i + 1}" for i in x])
    ax.set_ylabel("posterior probability")
    ax.set_xlabel("tree (rank under the exact posterior; the trees are listed in the report)")
    ax.set_title(res["label"] + ": the 10 most probable trees")
    ax.legend(fontsize=9)
    fig.tight_layout()
    fig.savefig(path, dpi=100)
    plt.close(fig)



def markdown(results, cfg, wall, out) -> str:
    page = Page(Prose("exact_vs_mcmc"))
    page.para("head", date=DATE, m=machine(), quick=" --quick" if cfg.quick else "",
              wall_min=wall / 60, out=rel(out), top=cfg.top)
    for res in results:
        g = res["grammar"]
        page.para("case", r=res, g=g, row_sets=g.get("row_sets", g.get("rowsets", "?")))
        for s, info in res["mcmc"].items():
            page.add("run", seed=s, i=info)
        page.raw("")
        page.add("curves", top=cfg.top)
        allpts = sorted({r["n"] for rows in res["curves"].values() for r in rows})
        show = [p for p in allpts if p in (allpts[0], allpts[-1], res["n_iid"]) or
                any(p == 10 ** e for e in range(2, 9))]
        for n in show:
            for cname, rows in res["curves"].items():
                r = next((r for r in rows if r["n"] == n), None)
                if r is None:
                    continue
                src = page("iid") if cname == "iid" else page("mcmc", seed=cname[4:])
                page.add("curves-row", n=n, source=src, c=r)
        page.raw("")
        if res["top"][0][0] > 1e-3:
            page.para("top", iterations=res["iterations"])
            seeds = list(res["mcmc"])
            page.raw("| # | tree | exact | " + " | ".join(page("mcmc", seed=s) for s in seeds)
                     + " |")
            page.raw("|---|---|---|" + "---|" * len(seeds))
            for i, (p, key) in enumerate(res["top"][:10], 1):
                page.raw(f"| {i} | `{key}` | {p:.4f} | " + " | ".join(
                    f"{res['mcmc'][s]['top_estimates'].get(key, 0.0):.4f}" for s in seeds)
                    + " |")
            page.raw("")
    page.para("figure-convergence")
    if any(r["top"][0][0] > 1e-3 for r in results):
        page.para("figure-top")
    return page.text()


def report(results, cfg, wall, out, md, figdir):
    figdir.mkdir(parents=True, exist_ok=True)
    figure(results, figdir / "exact_convergence.png", cfg.top)
    for res in results:
        if res["top"][0][0] > 1e-3:
            top_figure(res, figdir / "exact_top_trees.png")
            break
    text = markdown(results, cfg, wall, out)
    if not cfg.quick:
        text = keep_discussion(md, text)      # the hand-written discussion below
    md.parent.mkdir(parents=True, exist_ok=True)
    md.write_text(text + "\n")
    print(f"wrote {md}, {figdir}/exact_*.png ({wall:.0f} s)")
    return results
