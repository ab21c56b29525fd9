"""Reproduce paper 000 (Angelopoulos & Cussens, "Exploiting Informative Priors for
Bayesian Classification and Regression Trees", IJCAI 2005), section 5.

Experiments (``--only NAME[,NAME...]``; default: all, in this order):

    best    best log-likelihoods and tree sizes reached by MCMC on BCW, K and Pima
            (GROWTREE alpha 0.95, beta 1, quc; 60k iterations on BCW and K, 50k on
            Pima, 2 seeds), and the marginal log-likelihood of slpy's greedy CART tree
            (section 5.1; paper: -86 / 5 leaves, -36 / 3 leaves, -347 vs Denison's
            -343; rpart: -97 / size 7, -39 / size 5)
    fig6    q0-7 (cut at choice point it mod 8) against quc on BCW, 60k (Fig 6)
    fig7    EDITTREE (initial tree: slpy's greedy tree) against GROWTREE on BCW, 60k
            (Fig 7)
    fig5    two 50k runs on a seeded 2/3 of Pima differing only in the seed, GROWTREE
            alpha 0.95, beta 0.8; differences of the class-0 probabilities (majority
            vote of the sampled trees) on the other 256 rows (Fig 5)
    fig8    chains started from a high-likelihood Pima tree (slpy's greedy tree,
            log-likelihood -343.65, about Denison et al.'s -343) under beta 0.8 and 1,
            50k each (Fig 8)
    boxes   synthetic data from a known true tree on Pima's predictors, test accuracy
            on 500 rows without and with the boxes of Fig 1, 3 seeds (section 5.4)

    python benchmarks/paper000.py                 # everything (resumable), then report
    python benchmarks/paper000.py --only fig5     # one experiment (and what it needs)
    python benchmarks/paper000.py --report        # the report only, from finished runs
    python benchmarks/paper000.py --quick         # seconds: tiny chains, bundled data

Run directories go to benchmarks/out/paper000/runs/ (git-ignored); a finished run
(its summary.json written, same settings) is skipped, an interrupted one is resumed.
The report goes to docs/results/paper000.md and docs/results/figures/paper000_*.png;
with --quick everything stays under benchmarks/out/paper000_quick/.
"""
from __future__ import annotations

import json
import sys
import time
from pathlib import Path

if __name__ == "__main__" and not __package__:  # python benchmarks/paper000.py
    sys.path.insert(0, str(Path(__file__).resolve().parents[1]))

from benchmarks.lib.cli import add_quick, out_dir, parser  # noqa: E402
from benchmarks.lib.env import FIGURES, RESULTS, rel  # noqa: E402
from benchmarks.paper000_analysis import analyse  # noqa: E402
from benchmarks.paper000_data import prepare_data  # noqa: E402
from benchmarks.paper000_figures import make_figures  # noqa: E402
from benchmarks.paper000_report import write_report  # noqa: E402
from benchmarks.paper000_runs import (EXPERIMENTS, FULL, QUICK, ensure_run,  # noqa: E402
                                      finished, plan)


def main(argv=None) -> int:
    ap = parser(__doc__)
    add_quick(ap, "tiny chains: a smoke test")
    ap.add_argument("--only", default=None,
                    help=f"comma-separated experiments among {', '.join(EXPERIMENTS)}")
    ap.add_argument("--report", action="store_true",
                    help="only write the report from the finished runs")
    ap.add_argument("--out", type=Path, default=None, help="the output directory")
    ap.add_argument("--doc", type=Path, default=None, help="the markdown report")
    ap.add_argument("--figures", type=Path, default=None, help="the figure directory")
    a = ap.parse_args(argv)
    t_start = time.perf_counter()
    out = out_dir(a.out, "paper000_quick" if a.quick else "paper000")
    doc = a.doc or (out / "report" / "paper000.md" if a.quick else RESULTS / "paper000.md")
    fig_dir = a.figures or (out / "report" / "figures" if a.quick else FIGURES)
    only = EXPERIMENTS if a.only is None else tuple(x.strip() for x in a.only.split(","))
    bad = [x for x in only if x not in EXPERIMENTS]
    if bad:
        ap.error(f"unknown experiment(s) {', '.join(bad)}; known: {', '.join(EXPERIMENTS)}")
    log = lambda m: print(m, flush=True)
    paths = prepare_data(out)
    runs = plan(paths, QUICK if a.quick else FULL)
    if not a.report:
        todo = [(exp, n, c) for exp in EXPERIMENTS if exp in only for n, c in runs[exp]]
        todo = ([t for t in todo if t[1] not in runs["extra"]]
                + [t for t in todo if t[1] in runs["extra"]])
        last, ran = None, set()
        for exp, name, cfg in todo:
            tag = exp + (" (extra runs)" if name in runs["extra"] else "")
            if tag != last:
                log(f"{tag}:")
                last = tag
            if name not in ran:
                ensure_run(out, name, cfg, log, in_process=a.quick)
                ran.add(name)
    done, figures = report(out, paths, runs, doc, fig_dir, a.quick,
                           None if a.report else t_start)
    log(f"report: {rel(doc)}; figures: {', '.join(rel(p) for p in figures)}")
    log(f"experiments in the report: {', '.join(e for e in EXPERIMENTS if e in done)}")
    log(f"wall time {time.perf_counter() - t_start:.1f} s")
    return 0


def report(out: Path, paths: dict, runs: dict, doc: Path, fig_dir: Path, quick: bool,
           t_start: float | None = None) -> tuple[set, list]:
    """Analyse the finished runs (of every experiment whose main runs have all
    finished, with the extra runs that have), write results.json, the figures and the
    report; returns the experiments reported and the figures made."""
    done, fin, specs = finished(out, runs)
    order = [n for exp in EXPERIMENTS for n, _ in runs[exp]]
    specs = {n: specs[n] for n in dict.fromkeys(order) if n in specs}
    runs = dict(fin, extra=runs["extra"])
    res = analyse(out, paths, runs, done)
    (out / "results.json").write_text(json.dumps(res, indent=1, default=float) + "\n")
    figures = make_figures(fig_dir, out, runs, res, done)
    total = time.perf_counter() - t_start if t_start is not None else None
    write_report(doc, fig_dir, out, runs, specs, res, done, quick, total)
    return done, figures

if __name__ == "__main__":
    sys.exit(main())
