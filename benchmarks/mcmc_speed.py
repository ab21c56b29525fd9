"""MCMC speed: iterations per second of proof-tree MH with GROWTREE (alpha 0.95,
beta 1, min_leaf 5), the uc proposal and one chain, on BCW, Pima and letter; and the
cost of 4 tempered chains against one, the median of per-seed ratios. Prints the median
of --repeat runs (seeds 0, 1, ...).

    python benchmarks/mcmc_speed.py [--iterations N] [--repeat R] [--only bcw pima ...] [--cpu]
"""
from __future__ import annotations

import argparse
import statistics
import subprocess
import sys
import time
from pathlib import Path

import numpy as np

if __name__ == "__main__" and not __package__:  # python benchmarks/mcmc_speed.py
    sys.path.insert(0, str(Path(__file__).resolve().parents[1]))

from benchmarks.lib.cli import add_repeat, parser  # noqa: E402
from benchmarks.lib.env import BUNDLED, PRIORS  # noqa: E402
from benchmarks.lib.timing import median_of, median_over_seeds  # noqa: E402
from slpy import Program  # noqa: E402
from slpy.data import load_csv  # noqa: E402
from slpy.trees import make_likelihood  # noqa: E402
from slpy.mcmc.model import PosteriorModel  # noqa: E402
from slpy.trees.family import TreeScorer  # noqa: E402
from slpy.mcmc.chain import sample_chain  # noqa: E402
from slpy.mcmc.config import RunConfig  # noqa: E402
from slpy.mcmc.kernel import build_kernel  # noqa: E402
from slpy.mcmc.sampler import chain_kernel  # noqa: E402

TARGETS = {"bcw": 2500, "pima": 1100, "letter": 100}


def rate(name: str, iterations: int, temper: int, seed: int) -> float:
    """Iterations per second on the data set `name` (one chain, or `temper` tempered
    ones), after iterations // 5 to fill the caches as a long run would have them."""
    ds = load_csv(BUNDLED / f"{name}.csv")
    p = Program()
    p.consult(PRIORS / "growtree.slp")
    p.attach_data(ds)
    m = PosteriorModel(p, "cart(T)", TreeScorer(p, make_likelihood("dirichlet", ds)))
    # the kernel and loop of slpy run (the paper's ladder, random swaps when tempered);
    # one chain draws from default_rng(seed), as this benchmark always did
    if temper == 1:
        rng = np.random.default_rng(seed)
        kernel, state = build_kernel(m, "uc"), m.sample_prior(rng)
    else:
        cfg = RunConfig(proposal="uc", temper=temper, ladder="paper", delta_t=0.2,
                        swap="random", seed=seed, burn_in=0)
        rng, kernel, state = chain_kernel(m, cfg, 0)
    warm = iterations // 5
    state = sample_chain(rng, kernel, state, warm).state
    t0, c0 = time.perf_counter(), time.process_time()
    sample_chain(rng, kernel, state, warm + iterations, start=warm)
    spent = time.process_time() - c0 if CPU_TIME else time.perf_counter() - t0
    return iterations / spent


def tempering_cost(iterations: int, seed: int, rounds: int = 3) -> float:
    """Cost of 4 tempered chains over one chain on BCW (same seed): each measured in a
    fresh process, the two alternating, the ratio of the medians of `rounds` rates: a
    shared machine's speed drifts, and two chain systems in one process would share its
    caches and garbage collector."""
    def one_rate(temper):
        cmd = [sys.executable, __file__, "--one-rate", "bcw", str(temper), str(seed),
               str(iterations)] + (["--cpu"] if CPU_TIME else [])
        return float(subprocess.run(cmd, capture_output=True, text=True, check=True).stdout)
    ones, fours = [], []
    for _ in range(rounds):
        ones.append(one_rate(1))
        fours.append(one_rate(4))
    return statistics.median(ones) / statistics.median(fours)


def calibrate() -> float:
    """Seconds for a fixed pure-Python loop (median of 3): how fast the shared machine
    runs Python at the moment, to read the rates against."""
    def once():
        t0 = time.perf_counter()
        x = 0
        for i in range(10_000_000):
            x += i
        return time.perf_counter() - t0
    return median_of(once, 3)[0]


# --cpu: iterations per second of this process's CPU time, for a machine shared with
# other jobs (wall-clock rates there measure the other jobs as much as this one)
CPU_TIME = False


def main():
    ap = parser(__doc__)
    ap.add_argument("--iterations", type=int, default=5000)
    add_repeat(ap, 3)
    ap.add_argument("--only", nargs="*", default=["bcw", "pima", "letter"])
    ap.add_argument("--cpu", action="store_true",
                    help="rates per second of CPU time instead of wall-clock time")
    ap.add_argument("--one-rate", nargs=4, metavar=("DATA", "TEMPER", "SEED", "N"),
                    help=argparse.SUPPRESS)
    a = ap.parse_args()
    global CPU_TIME
    CPU_TIME = a.cpu
    if a.one_rate:
        name, temper, seed, n = a.one_rate
        print(rate(name, int(n), int(temper), int(seed)))
        return
    clock = "CPU" if a.cpu else "wall-clock"
    print(f"machine: a pure-Python loop of 10 million additions took {calibrate():.2f} s "
          f"(0.21 s at the fastest seen here); the rates below scale inversely with it")
    for name in a.only:
        n = a.iterations if name != "letter" else max(500, a.iterations // 5)
        r, _ = median_over_seeds(lambda seed: rate(name, n, 1, seed), a.repeat)
        print(f"{name}: {r:,.0f} iterations/s {clock} (uc, one chain, median of {a.repeat}; "
              f"target {TARGETS[name]:,})")
    # the ratio moves a little with the seed (hot chains that hold bigger trees cost more)
    cost, ratios = median_over_seeds(lambda seed: tempering_cost(a.iterations, seed), a.repeat)
    each = ", ".join(f"{r:.2f}" for r in ratios)
    print(f"bcw: 4 tempered chains cost {cost:.2f}x one chain "
          f"(median over seeds 0-{a.repeat - 1}: {each}; target <= 4.5x)")


if __name__ == "__main__":
    main()
