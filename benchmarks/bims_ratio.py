"""Iterations per CPU-second of one GROWTREE chain and the default run's CPU per kept
draw, this checkout against another commit, alternating, with the ratio to bims.

Each figure is a marginal cost: a run of N iterations and one of 2N (same settings,
seed and data), the difference in the process's CPU time over the difference in
iterations (or kept draws), so start-up, compiling from the cache, loading and
predicting cancel out. Every run is `slpy.mcmc.run.run` with --jobs 1 in a fresh
process whose PYTHONPATH is the checkout, the two checkouts taking turns (A B A B),
--repeat times; the medians are printed.

- one chain, no tempering: `uc` on the engine (the papers' sampler, both checkouts)
  and `regrow` on the compiled path (this checkout's counterpart of uc: prune at a
  tree node drawn uniformly and regrow from the prior);
- the default run (4 chains of 8 tempered replicas and the default mixture, on the
  compiled path where the new checkout takes it): kept draws of the cold chains per
  CPU-second, from runs of --n / 4 and --n / 2 iterations.

bims cannot be installed here (a SWI-Prolog pack, and this machine reaches only the
Python package registries), so its figures are those of issue 27, measured by the
same alternation on another machine: BCW 108, Pima 32, Kyphosis 547 it/CPU-s, when
slpy's engine `uc` ran 1,125, 861 and 1,776 there. Two ratios are printed: against
those figures as they are, and against them scaled by how much faster this machine
runs the old checkout's engine `uc` than that machine ran slpy's (an estimate of
bims here, assuming both programs speed up alike).

    python benchmarks/bims_ratio.py --old /path/to/checkout [--repeat 3] [--n 2000]
        [--only bcw,pima,kyphosis]
"""
from __future__ import annotations

import json
import os
import statistics
import subprocess
import sys
import tempfile
from pathlib import Path

if __name__ == "__main__" and not __package__:  # python benchmarks/bims_ratio.py
    sys.path.insert(0, str(Path(__file__).resolve().parents[1]))

from benchmarks.lib.cli import add_repeat, parser  # noqa: E402
from benchmarks.lib.env import BUNDLED, PRIORS, ROOT, cpu_model  # noqa: E402

BIMS = {"bcw": 108.0, "pima": 32.0, "kyphosis": 547.0}   # it/CPU-s, issue 27
SLPY_THERE = {"bcw": 1125.0, "pima": 861.0, "kyphosis": 1776.0}   # engine uc, same runs

# the settings each measured sampler changes (the rest: slpy run's defaults)
ONE_CHAIN = dict(chains=1, temper=1)
SAMPLERS = {
    "engine uc": dict(ONE_CHAIN, proposal="uc", path="engine"),
    "compiled regrow": dict(ONE_CHAIN, proposal="regrow", path="compiled"),
    "default run": {},
}

_CHILD = """
import json, sys, time
from slpy.mcmc.run import run
cfg, out = json.loads(sys.argv[1]), sys.argv[2]
c0 = time.process_time()
s = run(cfg, out, quiet=True, force=True)
print(json.dumps({"cpu": time.process_time() - c0, "iterations": s["iterations"],
                  "kept": s["kept"], "path": s.get("path", "engine")}))
"""


def one(checkout: Path, data: str, settings: dict, iterations: int) -> dict:
    cfg = dict(prior=str(PRIORS / "growtree.slp"), data=str(BUNDLED / f"{data}.csv"),
               iterations=iterations, burn_in=iterations // 10, seed=1, jobs=1, **settings)
    env = dict(os.environ, PYTHONPATH=str(checkout))
    with tempfile.TemporaryDirectory() as tmp:
        r = subprocess.run([sys.executable, "-c", _CHILD, json.dumps(cfg), tmp + "/run"],
                           capture_output=True, text=True, env=env, cwd=tmp)
    if r.returncode != 0:
        raise SystemExit(f"{checkout}: {r.stderr.strip().splitlines()[-1]}")
    return json.loads(r.stdout.strip().splitlines()[-1])


def marginal(checkout: Path, data: str, settings: dict, n: int) -> tuple[float, float]:
    """(iterations, kept draws) per CPU-second between a run of n and one of 2n."""
    a, b = one(checkout, data, settings, n), one(checkout, data, settings, 2 * n)
    cpu = max(b["cpu"] - a["cpu"], 1e-9)
    return (b["iterations"] - a["iterations"]) / cpu, (b["kept"] - a["kept"]) / cpu


def main() -> int:
    ap = parser(__doc__)
    ap.add_argument("--old", required=True, help="another checkout of slpy (a commit)")
    ap.add_argument("--n", type=int, default=2000, help="iterations of the shorter run")
    ap.add_argument("--only", default="bcw,pima,kyphosis")
    add_repeat(ap, 3)
    a = ap.parse_args()
    checkouts = {"old": Path(a.old).resolve(), "new": ROOT}
    print(f"# {cpu_model()}; old {checkouts['old']}, new {ROOT}; load "
          f"{os.getloadavg()[0]:.1f}; medians of {a.repeat}, alternating old/new")
    print("| data | sampler | old | new | new/old | new/bims | new/bims scaled |")
    print("|---|---|---|---|---|---|---|")
    for data in a.only.split(","):
        here = BIMS[data]
        for c in checkouts.values():      # compile or load the kernels, not timed
            one(c, data, dict(ONE_CHAIN, proposal="uc"), 50)
        for name, settings in SAMPLERS.items():
            n = a.n // 4 if name == "default run" else a.n     # 32 replicas a sweep
            runs = {"old": [], "new": []}
            for _ in range(a.repeat):
                for which in ("old", "new"):
                    if which == "old" and settings.get("path") == "compiled":
                        continue       # the old checkout has no compiled path
                    runs[which].append(marginal(checkouts[which], data, settings, n))
            col = 1 if name == "default run" else 0       # kept draws, or iterations
            med = {k: statistics.median(r[col] for r in v) if v else None
                   for k, v in runs.items()}
            unit = "kept draws/CPU-s" if col else "it/CPU-s"
            old = "" if med["old"] is None else f"{med['old']:,.0f}"
            ratio = "" if med["old"] is None else f"{med['new'] / med['old']:.2f}x"
            if name == "engine uc" and med["old"]:
                here = BIMS[data] * med["old"] / SLPY_THERE[data]
            bims = "" if col else f"{med['new'] / BIMS[data]:.1f}x"
            scaled = "" if col else f"{med['new'] / here:.1f}x"
            print(f"| {data} | {name} ({unit}) | {old} | {med['new']:,.0f} | {ratio} | "
                  f"{bims} | {scaled} |", flush=True)
    return 0


if __name__ == "__main__":
    sys.exit(main())
