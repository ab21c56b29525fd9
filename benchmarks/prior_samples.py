"""Prior samples per second: GROWTREE (alpha 0.95, beta 1, min_leaf 5) on BCW.

    python benchmarks/prior_samples.py [--samples N] [--repeat R]
"""
from __future__ import annotations

import sys
import time
from pathlib import Path

import numpy as np

if __name__ == "__main__" and not __package__:  # python benchmarks/prior_samples.py
    sys.path.insert(0, str(Path(__file__).resolve().parents[1]))

from benchmarks.lib.cli import add_repeat, parser  # noqa: E402
from benchmarks.lib.env import BUNDLED, PRIORS  # noqa: E402
from benchmarks.lib.timing import median_over_seeds  # noqa: E402
from slpy import Program  # noqa: E402
from slpy.data import load_csv  # noqa: E402


def rate(samples: int, seed: int) -> float:
    ds = load_csv(BUNDLED / "bcw.csv")
    p = Program()
    p.consult(PRIORS / "growtree.slp")
    p.attach_data(ds)
    goal, _ = p.parse_query("cart(T)")
    eng = p.engine
    rng = np.random.default_rng(seed)
    from slpy.terms.walk import copy_term
    for _ in range(samples // 5):  # warm the row-set caches
        eng.run_sampling(copy_term(goal), rng)
    t0 = time.perf_counter()
    for _ in range(samples):
        ok, _, _ = eng.run_sampling(copy_term(goal), rng)
        assert ok
    return samples / (time.perf_counter() - t0)


def main():
    ap = parser(__doc__)
    ap.add_argument("--samples", type=int, default=3000)
    add_repeat(ap, 3)
    a = ap.parse_args()
    r, _ = median_over_seeds(lambda seed: rate(a.samples, seed), a.repeat)
    print(f"GROWTREE prior on BCW: {r:,.0f} trees/s (median of {a.repeat}; target 2,000)")


if __name__ == "__main__":
    main()
