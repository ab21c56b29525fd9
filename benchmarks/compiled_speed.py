"""The compiled path's speed: iterations per CPU-second of one compiled regrow chain
(slpy.compiled.growtree) beside one engine ``uc`` chain (benchmarks/mcmc_speed.py's
measure), GROWTREE alpha 0.95, beta 1, min_leaf 5, the Dirichlet likelihood, on BCW,
Pima and Kyphosis. Per seed the two alternate in one process; the ratio printed is the
median of the per-seed ratios.

    python benchmarks/compiled_speed.py [--iterations N] [--compiled-iterations M]
                                        [--repeat R] [--only bcw pima kyphosis]
"""
from __future__ import annotations

import statistics
import sys
import time
from pathlib import Path

import numpy as np

if __name__ == "__main__" and not __package__:  # python benchmarks/compiled_speed.py
    sys.path.insert(0, str(Path(__file__).resolve().parents[1]))

from benchmarks import mcmc_speed  # noqa: E402
from benchmarks.lib.cli import add_repeat, parser  # noqa: E402
from benchmarks.lib.env import BUNDLED, cpu_model  # noqa: E402
from slpy.compiled.growtree import GrowtreeChain  # noqa: E402
from slpy.data import load_csv  # noqa: E402


def compiled_rate(name: str, iterations: int, seed: int) -> tuple[float, float, float]:
    """(iterations per CPU-second, acceptance rate, mean leaves) of one compiled chain,
    after iterations // 5 to warm up (the first call also loads or compiles the
    kernels, outside the clock)."""
    ds = load_csv(BUNDLED / f"{name}.csv")
    c = GrowtreeChain(ds, 0.95, 1.0, 5)
    rng = np.random.default_rng(seed)
    c.run(max(iterations // 5, 1), rng)
    c0 = time.process_time()
    tr = c.run(iterations, rng)
    spent = time.process_time() - c0
    return iterations / spent, float(tr["accepted"].mean()), float((tr["nodes"].mean() + 1) / 2)


def main():
    ap = parser(__doc__)
    ap.add_argument("--iterations", type=int, default=3000,
                    help="engine iterations per measure (default 3000)")
    ap.add_argument("--compiled-iterations", type=int, default=200_000,
                    help="compiled iterations per measure (default 200000)")
    add_repeat(ap, 3)
    ap.add_argument("--only", nargs="*", default=["bcw", "pima", "kyphosis"])
    a = ap.parse_args()
    mcmc_speed.CPU_TIME = True
    t0 = time.process_time()
    GrowtreeChain(load_csv(BUNDLED / "kyphosis.csv")).run(10, np.random.default_rng(0))
    print(f"machine: {cpu_model()}; first compiled call (kernels loaded or compiled): "
          f"{time.process_time() - t0:.2f} CPU-s")
    for name in a.only:
        eng, comp, ratio, acc, leaves = [], [], [], [], []
        for seed in range(a.repeat):        # alternating: engine, compiled, engine, ...
            e = mcmc_speed.rate(name, a.iterations, 1, seed)
            c, ac, lv = compiled_rate(name, a.compiled_iterations, seed)
            eng.append(e)
            comp.append(c)
            ratio.append(c / e)
            acc.append(ac)
            leaves.append(lv)
        rows = load_csv(BUNDLED / f"{name}.csv").n_rows
        print(f"{name} ({rows} rows): compiled {statistics.median(comp):,.0f} it/CPU-s, "
              f"engine uc {statistics.median(eng):,.0f} it/CPU-s, ratio "
              f"{statistics.median(ratio):.0f}x (median of {a.repeat} seeds: "
              f"{', '.join(f'{r:.0f}' for r in ratio)}); compiled acceptance "
              f"{statistics.median(acc):.2f}, mean leaves {statistics.median(leaves):.1f}")


if __name__ == "__main__":
    main()
