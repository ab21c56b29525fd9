"""Bayesian-network MCMC speed: iterations per second of proof-tree MH with the network
prior (priors/bn.slp, max 3 parents) and BDeu, one chain, the family's default moves,
on Asia (8 nodes, examples/data/asia.csv) and on a 20-node random network (1,000
forward samples, slpy.bn.sample, seed 20); then the compiled path's `change` moves per
second through the run's kernel (slpy.compiled.network: `change`, one move an
iteration as the engine's, and `sweep`, one a pair) and their ratio to the engine's
iterations. The clock starts after a warm-up of a fifth of the iterations (the
family-score cache fills as a long run's would). Prints the median of --repeat runs
(seeds 0, 1, ...).

    python benchmarks/bn_speed.py [--iterations N] [--repeat R] [--only asia net20]
"""
from __future__ import annotations

import sys
import time
from pathlib import Path

import numpy as np

if __name__ == "__main__" and not __package__:  # python benchmarks/bn_speed.py
    sys.path.insert(0, str(Path(__file__).resolve().parents[1]))

from benchmarks.lib.cli import add_repeat, parser  # noqa: E402
from benchmarks.lib.env import BUNDLED, PRIORS  # noqa: E402
from benchmarks.lib.timing import median_over_seeds  # noqa: E402
from slpy.bn.data import discrete_from_arrays, load_discrete_csv  # noqa: E402
from slpy.bn.sample import forward_sample, random_network  # noqa: E402
from slpy.mcmc.kernel import build_kernel  # noqa: E402
from slpy.mcmc.run import build_model  # noqa: E402

TARGET = {"asia": 2000}     # issue: at least 2,000 it/s on Asia


def data(name: str):
    if name == "asia":
        return load_discrete_csv(BUNDLED / "asia.csv")
    rng = np.random.default_rng(20)
    parents, cpts, arities = random_network(rng, 20, max_parents=3, arity=(2, 4))
    codes = forward_sample(rng, parents, cpts, arities, 1000)
    return discrete_from_arrays(codes, names=[f"v{i}" for i in range(20)],
                                levels=[int(a) for a in arities])


def rate(name: str, iterations: int, seed: int, compiled: str | None = None) -> float:
    """Iterations a second: the engine's, or with `compiled` (change or sweep) the
    compiled path's."""
    train = data(name)
    cfg = dict(prior=str(PRIORS / "bn.slp"), family="bn", params={})
    m = build_model(cfg, train)
    rng = np.random.default_rng(seed)
    if compiled:
        from slpy.mcmc.config import RunConfig
        from slpy.mcmc.paths import fast_path, resolve_path
        run_cfg = resolve_path(m, RunConfig(proposal=compiled))[0]
        path = fast_path(run_cfg, m)
        k, s = path.kernel(m, run_cfg), path.start(m, run_cfg, rng)
    else:
        k = build_kernel(m, m.scorer.proposal)
        s = m.sample_prior(rng)
    warm = iterations // 5
    t0 = 0.0
    for it in range(warm + iterations):
        if it == warm:
            t0 = time.perf_counter()
        s, _ = k(rng, s, it)
    return iterations / (time.perf_counter() - t0)


def main(argv=None):
    ap = parser(__doc__)
    ap.add_argument("--iterations", type=int, default=20000)
    add_repeat(ap, 3)
    ap.add_argument("--only", nargs="*", default=["asia", "net20"])
    a = ap.parse_args(argv)
    for name in a.only:
        n = a.iterations if name == "asia" else max(1000, a.iterations // 10)
        med, rates = median_over_seeds(lambda seed: rate(name, n, seed), a.repeat)
        target = TARGET.get(name)
        note = f" (target {target}: {'met' if med >= target else 'NOT met'})" if target else ""
        print(f"{name}: {med:,.0f} it/s, median of {a.repeat} runs of {n} iterations "
              f"[{', '.join(f'{r:,.0f}' for r in rates)}]{note}")
        for spec, n in (("change", 20 * a.iterations), ("sweep", a.iterations)):
            fast, rates = median_over_seeds(lambda seed: rate(name, n, seed, spec),
                                            a.repeat)
            per = len(data(name).names) * (len(data(name).names) - 1) // 2 \
                if spec == "sweep" else 1
            print(f"{name}, compiled {spec}: {fast * per:,.0f} change moves/s "
                  f"({fast:,.0f} it/s), median of {a.repeat} runs of {n} iterations: "
                  f"{fast * per / med:.1f}x the engine's iterations")


if __name__ == "__main__":
    main()
