"""Engine speed: iterations per CPU-second of one GROWTREE chain on the engine path
(proof-tree MH replaying the prior's proof), for a bundled data set and a proposal
(uc, or the run's default mixture). It times the chain alone, after a fifth of the
iterations to fill the caches; the figure to compare across commits, run alternately
with the same arguments (docs/benchmarks.md, issue 27).

    python benchmarks/engine_speed.py bcw [--proposal uc] [--iterations N] [--seed S]
"""
from __future__ import annotations

import sys
import time
from pathlib import Path

import numpy as np

if __name__ == "__main__" and not __package__:  # python benchmarks/engine_speed.py
    sys.path.insert(0, str(Path(__file__).resolve().parents[1]))

from benchmarks.lib.cli import parser  # noqa: E402


def rate(name: str, proposal: str, iterations: int, seed: int) -> float:
    """Iterations per CPU-second of one chain (no tempering) on the data set `name`."""
    from benchmarks.lib.data import growtree_model
    from slpy.mcmc.chain import sample_chain
    from slpy.mcmc.kernel import build_kernel
    m = growtree_model(name)
    rng = np.random.default_rng(seed)
    kernel, state = build_kernel(m, proposal), m.sample_prior(rng)
    warm = iterations // 5
    state = sample_chain(rng, kernel, state, warm).state
    c0 = time.process_time()
    sample_chain(rng, kernel, state, warm + iterations, start=warm)
    return iterations / (time.process_time() - c0)


def main():
    ap = parser(__doc__)
    ap.add_argument("data", help="a bundled data set: bcw, pima, kyphosis, ...")
    ap.add_argument("--proposal", default="uc", help="uc (default), default, or a mixture")
    ap.add_argument("--iterations", type=int, default=5000)
    ap.add_argument("--seed", type=int, default=0)
    a = ap.parse_args()
    print(f"{a.data} {a.proposal}: {rate(a.data, a.proposal, a.iterations, a.seed):.0f} "
          f"it/CPU-s")


if __name__ == "__main__":
    main()
