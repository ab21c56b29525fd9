"""Paper 000's report, docs/results/paper000.md: the numbers of results.json put into
the prose of benchmarks/templates/paper000.md, section by section."""
from __future__ import annotations

import os
from datetime import date
from pathlib import Path

import numpy as np

from benchmarks.lib.env import machine, rel, slpy_version
from benchmarks.lib.pages import Page, Prose
from benchmarks.paper000_analysis import kde_peak
from benchmarks.paper000_data import SPLIT_SEED, SYNTH_SEED
from benchmarks.paper000_runs import EXPERIMENTS, cmdline

# section 5.1: data set -> (label, the paper's MCMC tree, its number of leaves)
PAPER_BEST = {"bcw": ("BCW", "-86, 5 leaves", 5), "kyph": ("K", "-36, 3 leaves", 3),
              "pima": ("Pima", "-347 (Denison et al.: -343)", None)}
PAPER_RPART = (("bcw", "BCW", "-97, size 7"), ("kyph", "K", "-39, size 5"),
               ("pima", "Pima", "not given"))
PAPER_BOXES = {1: "74.8%", 2: "76.2%", 3: "74.4%"}      # no boxes; with boxes 78.6%


def write_report(doc: Path, fig_dir: Path, out: Path, runs: dict, specs: dict,
                 res: dict, done: set, quick: bool, total_wall) -> None:
    page = Page(Prose("paper000"))
    page.para("title")
    if quick:
        page.para("quick")
    page.para("machine", today=date.today().isoformat(), m=machine(),
              version=slpy_version())
    page.para("commands", quick=" --quick" if quick else "",
              experiments=", ".join(EXPERIMENTS), runs=rel(out / "runs"))
    end = (page("compute-invocation", minutes=total_wall / 60) if total_wall else ".")
    page.para("compute", n_runs=len(specs),
              wall_min=sum(s.get("wall", 0) for s in specs.values()) / 60,
              cpu_min=sum(s.get("cpu", 0) for s in specs.values()) / 60, end=end)
    page.para("protocol")
    if "best" in done:
        _best(page, runs, res)
    if "fig5" in done:
        f = res["fig5"]
        page.para("fig5", f=f, s=f["stats"], sp=f["stats_pp"], split_seed=SPLIT_SEED)
    if "fig6" in done:
        page.para("fig6", a=res["fig6"]["bcw_grow_q07_s1"], b=res["fig6"]["bcw_grow_s1"])
    if "fig7" in done:
        f = res["fig7"]
        page.para("fig7", f=f, e=f["bcw_edit_s1"], g=f["bcw_grow_s1"])
    if "fig8" in done:
        f = res["fig8"]
        a, b = f["pima_init_b08_s1"], f["pima_init_b1_s1"]
        first = lambda x: page("never") if x is None else str(x)
        page.para("fig8", f=f, a=a, b=b, first_a=first(a["first_below_350"]),
                  first_b=first(b["first_below_350"]))
    if "boxes" in done:
        _boxes(page, res["boxes"])
    page.add("runs")
    nan = float("nan")
    for name, s in specs.items():
        page.add("runs-row", name=name, command=cmdline(s["cfg"]), wall=s.get("wall", nan),
                 cpu=s.get("cpu", nan), it_per_s=s.get("it_per_s", 0))
    page.raw("")
    page.para("files")
    if not quick:
        _discussion(page, runs, res, done, specs)
    doc.parent.mkdir(parents=True, exist_ok=True)
    fig_rel = os.path.relpath(fig_dir, doc.parent)
    doc.write_text(page.text().replace("FIGDIR", fig_rel))


def _best(page, runs, res):
    b = res["best"]
    g = res["greedy"]
    page.add("best")
    for key, (label, paper, k) in PAPER_BEST.items():
        names = [n for n, _ in runs["best"] if n.startswith(key + "_")]
        bests = ", ".join(f"{b[n]['log_lik']:.2f} ({b[n]['leaves']})" for n in names)
        if k:
            small = ", ".join(f"{b[n]['small'][k]['log_lik']:.2f} "
                              f"({b[n]['small'][k]['leaves']})"
                              if k in b[n]["small"] else "-" for n in names)
        else:
            small = "n/a"
        page.add("best-row", label=label, paper=paper, bests=bests, small=small,
                 leaves=", ".join(f"{b[n]['leaves_last_half']:.1f}" for n in names),
                 top=b[names[0]], command=cmdline(dict(runs["best"])[names[0]]))
    page.raw("")
    page.para("best-notes")
    for key in ("bcw", "kyph", "pima"):
        n = f"{key}_grow_s1"
        if n in b:
            page.add("best-tree", name=n, model=b[n]["model"])
            k = PAPER_BEST[key][2]
            if k and k in b[n]["small"]:
                page.add("best-tree-small", k=k, model=b[n]["small"][k]["model"])
    page.raw("")
    page.add("greedy")
    for key, label, paper in PAPER_RPART:
        page.add("greedy-row", label=label, paper=paper, a=g[f"{key}_ml5"],
                 c=g[f"{key}_ml7"])
    page.add("greedy-rpart", r=g["kyph_rpart_doc"])
    page.raw("")
    page.para("greedy-trees", trees="; ".join(
        f"{k}: `{v['model']}`" for k, v in g.items()
        if k.endswith("ml7") or k == "kyph_rpart_doc"))


def _boxes(page, bx):
    page.para("boxes", bx=bx, synth_seed=SYNTH_SEED)
    for tag in sorted({n.split("_")[0] for n in bx["runs"]}, key=len):
        rs = {n: r for n, r in bx["runs"].items() if n.startswith(tag + "_")}
        if tag != "synth":
            page.para("boxes-small", n_train=next(iter(rs.values()))["n_train"])
        page.add("boxes-table")
        for sd in sorted({int(n.rsplit("_s", 1)[1]) for n in rs}):
            a, b = rs.get(f"{tag}_nobox_s{sd}"), rs.get(f"{tag}_box_s{sd}")
            if a is None or b is None:
                continue
            page.add("boxes-row", seed=sd, a=a, b=b,
                     paper_a=PAPER_BOXES.get(sd, "") if tag == "synth" else "",
                     paper_b="78.6%" if tag == "synth" else "")
        page.raw("")
        a, b = rs.get(f"{tag}_nobox_s1", {}), rs.get(f"{tag}_box_s1", {})
        page.para("boxes-top", a_model=a.get("top_model", ""), a_prob=a.get("top_prob", 0),
                  b_model=b.get("top_model", ""), b_prob=b.get("top_prob", 0))


def _discussion(page, runs, res, done, specs):
    page.para("discussion")
    g = res["greedy"]
    if "best" in done:
        b = res["best"]
        get = lambda key: [b[n] for n, _ in runs["best"] if n.startswith(key + "_")]
        bcw, ky, pi = get("bcw"), get("kyph"), get("pima")
        fmt = lambda xs: " / ".join(f"{x['log_lik']:.2f}" for x in xs)
        leaves = lambda xs: ", ".join(str(x["leaves"]) for x in xs)
        page.para("discussion-best", bcw=fmt(bcw), bcw_leaves=leaves(bcw),
                  bcw_size=np.mean([x["leaves_last_half"] for x in bcw]),
                  bcw_ll=np.mean([x["ll_last_half"] for x in bcw]),
                  bcw_small=" / ".join(f"{x['small'][5]['log_lik']:.2f}" if 5 in x["small"]
                                       else page("none") for x in bcw),
                  ky_small=fmt([x["small"][3] for x in ky]), ky=fmt(ky),
                  ky_leaves=leaves(ky), ky0=ky[0], pima=fmt(pi),
                  greedy_pima=g["pima_ml5"]["log_lik"])
    page.add("discussion-rpart", g=g)
    if "best" in done:
        top = {k: max(x["log_lik"] for n, x in res["best"].items() if n.startswith(k + "_"))
               for k in ("bcw", "kyph", "pima")}
        each = []
        for key, label in (("bcw", "BCW"), ("kyph", "K"), ("pima", "Pima")):
            m, gr = top[key], g[f"{key}_ml5"]["log_lik"]
            verdict = ("vs-greedy-beats" if m > gr + 0.1 else
                       "vs-greedy-loses" if m < gr - 0.1 else "vs-greedy-ties")
            each.append(page(verdict, label=label, m=m, gr=gr))
        # the paragraph above goes on, on a line of its own
        page.raw(" " + page("discussion-vs-greedy", each="; ".join(each)) + "\n")
    else:
        page.raw("\n")
    if "fig5" in done:
        f = res["fig5"]
        page.para("discussion-fig5", st=f["stats"], pp=f["stats_pp"], peak=kde_peak(f))
    if "fig6" in done:
        page.para("discussion-fig6", a=res["fig6"]["bcw_grow_q07_s1"],
                  b=res["fig6"]["bcw_grow_s1"])
    if "fig7" in done:
        page.para("discussion-fig7", e=res["fig7"]["bcw_edit_s1"],
                  init_log_lik=res["fig7"]["init_log_lik"])
    if "fig8" in done:
        _discussion_fig8(page, res["fig8"])
    if "boxes" in done:
        _discussion_boxes(page, res["boxes"])
    _discussion_speed(page, specs)


def _discussion_fig8(page, f):
    a, b = f["pima_init_b08_s1"], f["pima_init_b1_s1"]
    when = lambda x: page("never") if x is None else page("at-iteration", it=x)
    parts = [page("discussion-fig8", f=f, a=a, b=b, first_a=when(a["first_below_350"]),
                  first_b=when(b["first_below_350"])),
             page("fig8-lower" if b["mean_last_half"] < a["mean_last_half"]
                  else "fig8-not-lower")
             + page("fig8-not-faster" if (a["first_below_350"] or 0)
                    < (b["first_below_350"] or 0) else "fig8-faster")]
    if a["max"] > -343:
        parts.append(page("fig8-visited", a=a))
    page.raw(" ".join(parts) + " \n")


def _discussion_boxes(page, bx):
    def means(rs, arm):
        xs = [r for n, r in sorted(rs.items()) if f"_{arm}_" in n]
        return {k: 100 * np.mean([x[k] for x in xs])
                for k in ("acc", "agree_bayes", "expected_acc")}, xs
    rs = {n: r for n, r in bx["runs"].items() if n.startswith("synth_")}
    page.add("discussion-boxes", bx=bx, nb=means(rs, "nobox")[0], wb=means(rs, "box")[0])
    small = {n: r for n, r in bx["runs"].items() if n.startswith("synth150_")}
    if small:
        (nb, _), (wb, with_boxes) = means(small, "nobox"), means(small, "box")
        same = ("boxes-seeds-identical" if len({round(r["acc"], 6) for r in with_boxes}) == 1
                else "boxes-seeds-close")
        # the paragraph above goes on, on a line of its own
        page.raw(" " + page("discussion-boxes-small", nb=nb, wb=wb, same=page(same)) + "\n")
    else:
        page.raw("\n")


def _discussion_speed(page, specs):
    def ms(name):
        sp = specs.get(name)
        if not sp or not sp.get("cpu"):
            return None
        return 1000 * sp["cpu"] / sp["cfg"]["iterations"]
    cost = {n: ms(n) for n in ("bcw_grow_s1", "pima_grow_s1", "bcw_edit_s1",
                               "synth_nobox_s1", "synth_box_s1")}
    if all(v is not None for v in cost.values()):
        page.para("discussion-speed", c=cost, pima_50k=cost["pima_grow_s1"] * 50)
