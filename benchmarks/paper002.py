"""Reproduce paper 002 (Angelopoulos & Cussens, "Tempering for Bayesian C&RT", ICML 2005).

The grid: K, BCW and PIMA x 50k/125k/250k iterations x tempering off/on x 3 seeds, and
LR and WF at 50k with and without tempering (3 seeds), GROWTREE alpha 0.95, beta 1,
min_leaf 5, Dirichlet(1, ..., 1) leaves, `uc` proposal, 4 tempered chains with
delta T = 0.2, no burn-in (every tree is kept, as in the paper).

The paper uses no burn-in, and a chain's random stream does not depend on its length,
so the 50k and 125k runs of a seed are the first 50k and 125k iterations of its 250k
run (checked by `check_prefix`). One 250k chain is run per (dataset, tempering, seed)
and the shorter runs are read from prefixes of its trace.

    python benchmarks/paper002.py              # run the grid (resumable), then report
    python benchmarks/paper002.py --run-only   # just the grid
    python benchmarks/paper002.py --report     # just the report, from finished runs
    python benchmarks/paper002.py --quick      # seconds: tiny chains, bundled data only

Runs go to benchmarks/out/paper002/ (git-ignored); the report to
docs/results/paper002.md and docs/results/figures/paper002_*.png (with --quick,
everything stays under the output directory).
"""
from __future__ import annotations

import json
import os
import sys
from datetime import datetime
from pathlib import Path

if __name__ == "__main__" and not __package__:  # python benchmarks/paper002.py
    sys.path.insert(0, str(Path(__file__).resolve().parents[1]))

from benchmarks.lib.cli import add_quick, out_dir, parser  # noqa: E402
from benchmarks.lib.env import machine as machine_info  # noqa: E402
from benchmarks.lib.runs import read_json  # noqa: E402
from benchmarks.lib.timing import Clock  # noqa: E402
from benchmarks.paper002_data import (DATASETS, DELTA_T, FULL, PRIOR, QUICK,  # noqa: E402
                                      grid, run_dir, split_data)
from benchmarks.paper002_report import report  # noqa: E402


def run_one(out: Path, name: str, iterations: int, temper: int, seed: int,
            quick: bool = False, log=print) -> Path:
    from slpy.mcmc.run import run
    rd = run_dir(out, name, temper, seed)
    if (rd / "summary.json").exists():
        log(f"skip {rd.name} (done)")
        return rd
    tr, te = split_data(name, out, quick)
    cfg = dict(prior=str(PRIOR), data=str(tr), test=str(te), iterations=iterations,
               temper=temper, delta_t=DELTA_T, ladder="paper", swap="random", seed=seed,
               proposal="uc", burn_in=0, chains=1,
               thin=1, params={"alpha": 0.95, "beta": 1, "min_leaf": 5})
    started = datetime.now().isoformat(timespec="seconds")
    load0 = os.getloadavg()
    clock = Clock()
    summary = run(cfg, rd, quiet=True, force=True)   # an unfinished run starts again
    wall, cpu = clock.wall, clock.cpu
    timing = dict(started=started, finished=datetime.now().isoformat(timespec="seconds"),
                  iterations=iterations, temper=temper, wall_seconds=round(wall, 2),
                  cpu_seconds=round(cpu, 2),
                  sec_per_1000_wall=round(1000 * wall / iterations, 3),
                  sec_per_1000_cpu=round(1000 * cpu / iterations, 3),
                  chain_seconds=summary["seconds"],
                  loadavg_start=load0, loadavg_end=os.getloadavg(),
                  machine=machine())
    # the run's own timing.json, with the benchmark's figures added
    timing = {**read_json(rd / "timing.json"), **timing}
    (rd / "timing.json").write_text(json.dumps(timing, indent=2) + "\n")
    log(f"done {rd.name}: {iterations} it, wall {wall:.0f} s, cpu {cpu:.0f} s, "
        f"acc_max {summary.get('acc_max', float('nan')):.3f} "
        f"acc_prob {summary.get('acc_prob', float('nan')):.3f}")
    return rd


def machine() -> dict:
    m = machine_info()
    return dict(processor=m["processor"], python=m["python"], system=m["platform"],
                cpus=m["cpus"])


def run_grid(out: Path, plan, quick: bool = False, only=None):
    out.mkdir(parents=True, exist_ok=True)
    clock = Clock()
    for name, _, _ in plan:
        if not (name == "WF" and not quick and not DATASETS["WF"]["src"].exists()):
            split_data(name, out, quick)
    for name, n, t, s in grid(plan):
        if only and name not in only:
            continue
        if name == "WF" and not quick and not DATASETS["WF"]["src"].exists():
            print(f"skip WF: {DATASETS['WF']['src']} not found", flush=True)
            continue
        run_one(out, name, n, t, s, quick, log=lambda m: print(
            f"[{datetime.now():%H:%M:%S}] {m}", flush=True))
    print(f"grid finished in {clock.wall:.0f} s", flush=True)


def check_prefix(out: Path, n: int = 2000) -> bool:
    """A chain of n iterations is the first n iterations of a chain of 2n."""
    from slpy.mcmc.run import run
    tr, te = split_data("K", out)
    res = []
    for it in (n, 2 * n):
        rd = out / "prefix_check" / f"K_{it}"
        run(dict(prior=str(PRIOR), data=str(tr), test=str(te), iterations=it, temper=4,
                 chains=1, ladder="paper", swap="random", proposal="uc", burn_in=0, seed=7), rd,
            quiet=True, force=True)
        res.append((rd / "chain_0" / "trace.csv").read_text().splitlines())
    same = res[0] == res[1][:n + 1]
    print(f"prefix check ({n} vs {2 * n} iterations, tempered): "
          f"{'identical' if same else 'DIFFERENT'}")
    return same


def main(argv=None):
    ap = parser(__doc__)
    add_quick(ap, "tiny smoke-test grid")
    ap.add_argument("--out", type=Path, default=None, help="runs directory")
    ap.add_argument("--run-only", action="store_true")
    ap.add_argument("--report", action="store_true", help="only write the report")
    ap.add_argument("--only", default=None, help="comma-separated datasets to run")
    ap.add_argument("--check-prefix", action="store_true")
    a = ap.parse_args(argv)
    out = out_dir(a.out, "paper002_quick" if a.quick else "paper002")
    plan = QUICK if a.quick else FULL
    if a.check_prefix:
        return 0 if check_prefix(out) else 1
    if not a.report:
        run_grid(out, plan, a.quick, a.only.split(",") if a.only else None)
    if not a.run_only:
        report(out, plan, a.quick)
    return 0


if __name__ == "__main__":
    sys.exit(main())
