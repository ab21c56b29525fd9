"""MCMC speed: iterations per second of proof-tree MH with GROWTREE (alpha 0.95,
beta 1, min_leaf 5), the uc proposal and one chain, on BCW, Pima and letter; and the
cost of 4 tempered chains against one. Prints the median of --repeat runs.

    python benchmarks/mcmc_speed.py [--iterations N] [--repeat R] [--only bcw pima ...] [--cpu]
"""
from __future__ import annotations

import argparse
import statistics
import sys
import time
from pathlib import Path

import numpy as np

ROOT = Path(__file__).resolve().parents[1]
sys.path.insert(0, str(ROOT))

from slpy import Program  # noqa: E402
from slpy.data import load_csv  # noqa: E402
from slpy.trees import make_likelihood  # noqa: E402
from slpy.mcmc.model import PosteriorModel  # noqa: E402
from slpy.mcmc.kernel import build_kernel, make_proposal, heats, swap_step  # noqa: E402

TARGETS = {"bcw": 2500, "pima": 1100, "letter": 100}


def rate(name: str, iterations: int, temper: int, seed: int) -> float:
    ds = load_csv(ROOT / "examples" / "data" / f"{name}.csv")
    p = Program()
    p.consult(ROOT / "priors" / "growtree.slp")
    p.attach_data(ds)
    m = PosteriorModel(p, "cart(T)", make_likelihood("dirichlet", ds))
    rng = np.random.default_rng(seed)
    hs = heats(temper, 0.2) if temper > 1 else [1.0]
    ks = [build_kernel(m, make_proposal("uc"), h) for h in hs]
    states = [m.sample_prior(rng) for _ in hs]
    warm = iterations // 5
    for it in range(warm):  # fill the caches as a long run would have them
        for j, k in enumerate(ks):
            states[j], _ = k(rng, states[j], it)
        states, _ = swap_step(rng, states, hs)
    t0, c0 = time.perf_counter(), time.process_time()
    for it in range(iterations):
        for j, k in enumerate(ks):
            states[j], _ = k(rng, states[j], it)
        states, _ = swap_step(rng, states, hs)
    wall, cpu = time.perf_counter() - t0, time.process_time() - c0
    return iterations / (cpu if CPU_TIME else wall)


# --cpu: iterations per second of this process's CPU time, for a machine shared with
# other jobs (wall-clock rates there measure the other jobs as much as this one)
CPU_TIME = False


def main():
    ap = argparse.ArgumentParser()
    ap.add_argument("--iterations", type=int, default=5000)
    ap.add_argument("--repeat", type=int, default=3)
    ap.add_argument("--only", nargs="*", default=["bcw", "pima", "letter"])
    ap.add_argument("--cpu", action="store_true",
                    help="rates per second of CPU time instead of wall-clock time")
    a = ap.parse_args()
    global CPU_TIME
    CPU_TIME = a.cpu
    clock = "CPU" if a.cpu else "wall-clock"
    for name in a.only:
        n = a.iterations if name != "letter" else max(500, a.iterations // 5)
        r = statistics.median(rate(name, n, 1, s) for s in range(a.repeat))
        print(f"{name}: {r:,.0f} iterations/s {clock} (uc, one chain, median of {a.repeat}; "
              f"target {TARGETS[name]:,})")
    n = a.iterations // 2
    one = statistics.median(rate("bcw", n, 1, s) for s in range(a.repeat))
    four = statistics.median(rate("bcw", n, 4, s) for s in range(a.repeat))
    print(f"bcw: 4 tempered chains cost {one / four:.2f}x one chain (target <= 4.5x)")


if __name__ == "__main__":
    main()
