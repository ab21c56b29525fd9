"""The compiled path's speed: iterations per CPU-second of one compiled regrow chain
(slpy.compiled.growtree) beside one engine ``uc`` chain (benchmarks/mcmc_speed.py's
measure), GROWTREE alpha 0.95, beta 1, min_leaf 5, the Dirichlet likelihood, on BCW,
Pima and Kyphosis. Per seed the two alternate in one process; the ratio printed is the
median of the per-seed ratios. The compiled chain runs regrow alone, regrow mixed
with change (probability 1/2 each), and regrow, change and swap (0.4, 0.3, 0.3).

With --agreement it prints instead, per data set and seed, what each path reaches in
the same CPU time: the mean log-likelihood and leaves of an engine ``uc`` chain
(--iterations after as many again of burn-in) and of the two compiled chains given the
engine's CPU time (a fifth of it burn-in), each started from a draw of the prior.

With --exact it prints instead the CPU time of one exact move (`exact:1`, the
default mixture's, at heat 1, called as the chain calls it) per data set: the median
over --repeat seeds of 2,000 moves each, from a tree after 3,000 moves of the default
mixture.

With --moves it prints instead the CPU time of one move of each kind (regrow, change,
swap, perturb, exact:1) and of the default mixture inside one call of many moves
(`GrowtreeChain.run`, as a tempered run's batches make them), from a tree after 20,000
moves of the mixture: the median over --repeat seeds of 20,000 moves each.

With --hash it prints instead a hash of a fixed chain per data set (3,000 moves of the
default mixture at heat 0.7 from a prior draw, seed 3: every move's log-likelihood,
nodes, acceptance and kind, and the last tree), so that a change that must keep the
draws can be checked against the commit before it.

    python benchmarks/compiled_speed.py [--iterations N] [--compiled-iterations M]
                                        [--repeat R] [--only bcw pima kyphosis]
                                        [--agreement] [--exact] [--moves] [--hash]
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


# (label, probability of change, probability of swap); regrow takes the rest
VARIANTS = (("regrow", 0.0, 0.0), ("regrow+change", 0.5, 0.0),
            ("regrow+change+swap", 0.3, 0.3))


def compiled_rate(name: str, iterations: int, seed: int, change: float = 0.0,
                  swap: float = 0.0) -> tuple[float, float]:
    """(iterations per CPU-second, acceptance rate) of one compiled chain, after
    iterations // 5 to warm up (the first call also loads or compiles the kernels,
    outside the clock)."""
    ds = load_csv(BUNDLED / f"{name}.csv")
    c = GrowtreeChain(ds, 0.95, 1.0, 5)
    rng = np.random.default_rng(seed)
    c.sample_prior(rng)
    c.run(max(iterations // 5, 1), rng, change=change, swap=swap)
    c0 = time.process_time()
    tr = c.run(iterations, rng, change=change, swap=swap)
    spent = time.process_time() - c0
    return iterations / spent, float(tr["accepted"].mean())


def engine_means(name: str, iterations: int, seed: int) -> tuple[float, float, float]:
    """(CPU-seconds, mean log-likelihood, mean leaves) of an engine uc chain of
    2 x iterations, the means over the second half."""
    from benchmarks.lib.data import growtree_model
    from slpy.mcmc.chain import sample_chain
    from slpy.mcmc.kernel import build_kernel
    from slpy.trees.term import shape
    m = growtree_model(name)
    rng = np.random.default_rng(seed)
    ll, leaves = [], []

    def keep(sw):
        if sw.it >= iterations:
            ll.append(sw.state.log_lik)
            leaves.append(shape(sw.state.term)[0])
    c0 = time.process_time()
    sample_chain(rng, build_kernel(m, "uc"), m.sample_prior(rng), 2 * iterations,
                 observers=[keep])
    return time.process_time() - c0, float(np.mean(ll)), float(np.mean(leaves))


def compiled_means(name: str, seconds: float, seed: int, change: float, swap: float
                   ) -> tuple[int, float, float]:
    """(iterations, mean log-likelihood, mean leaves) of a compiled chain run for
    ``seconds`` of CPU, the means over the last four fifths."""
    c = GrowtreeChain(load_csv(BUNDLED / f"{name}.csv"), 0.95, 1.0, 5)
    rng = np.random.default_rng(seed)
    c0 = time.process_time()
    c.sample_prior(rng)
    parts = []
    while time.process_time() - c0 < seconds:
        parts.append(c.run(5000, rng, change=change, swap=swap))
    kept = parts[len(parts) // 5:]
    ll = np.concatenate([t["log_lik"] for t in kept])
    nodes = np.concatenate([t["nodes"] for t in kept])
    return 5000 * len(parts), float(ll.mean()), float((nodes.mean() + 1) / 2)


def agreement(a) -> None:
    for name in a.only:
        for seed in range(a.repeat):
            sec, ell, elv = engine_means(name, a.iterations, seed)
            line = (f"{name} seed {seed}: engine uc {2 * a.iterations:,} it in {sec:.1f} "
                    f"CPU-s: log-lik {ell:.1f}, leaves {elv:.2f}")
            for label, ch, sw in VARIANTS:
                n, cll, clv = compiled_means(name, sec, seed, ch, sw)
                line += f"; compiled {label} {n:,} it: {cll:.1f}, {clv:.2f}"
            print(line, flush=True)


def exact_cost(name: str, seed: int, moves: int = 2000) -> float:
    """Microseconds of CPU of one exact move of a compiled chain (exact depth 1)."""
    c = GrowtreeChain(load_csv(BUNDLED / f"{name}.csv"), 0.95, 1.0, 5, exact_depth=1)
    rng = np.random.default_rng(seed)
    c.sample_prior(rng)
    c.run(3000, rng, 1.0, 0.2, 0.15, 0.1, 0.2)
    c0 = time.process_time()
    for _ in range(moves):
        c.step(rng, 1.0, 0.0, 0.0, 1.0)
    return (time.process_time() - c0) / moves * 1e6


MOVE_KINDS = (("regrow", {}), ("change", dict(change=1.0)), ("swap", dict(swap=1.0)),
              ("perturb", dict(perturb=1.0)), ("exact:1", dict(exact=1.0)),
              ("mixture", dict(change=0.2, swap=0.15, exact=0.1, perturb=0.2)))


def move_costs(name: str, seed: int, moves: int = 20_000) -> dict:
    """Microseconds of CPU of one move of each kind within one call of many."""
    c = GrowtreeChain(load_csv(BUNDLED / f"{name}.csv"), 0.95, 1.0, 5, exact_depth=1)
    rng = np.random.default_rng(seed)
    c.sample_prior(rng)
    c.run(moves, rng, 1.0, **MOVE_KINDS[-1][1])
    snap = c.snapshot()
    out = {}
    for kind, probs in MOVE_KINDS:
        c.restore(snap)
        t0 = time.process_time()
        c.run(moves, rng, 1.0, **probs)
        out[kind] = (time.process_time() - t0) / moves * 1e6
    return out


def chain_hash(name: str) -> str:
    """blake2b (8 bytes) of a fixed compiled chain's every move and last tree."""
    import hashlib
    c = GrowtreeChain(load_csv(BUNDLED / f"{name}.csv"), 0.95, 1.0, 5, exact_depth=1)
    rng = np.random.default_rng(3)
    c.sample_prior(rng)
    o = c.run(3000, rng, 0.7, 0.2, 0.15, 0.1, 0.2, 3)
    h = hashlib.blake2b(digest_size=8)
    for k in ("log_lik", "nodes", "accepted", "move"):
        h.update(o[k].tobytes())
    h.update(c.canonical().encode())
    return h.hexdigest()


def main():
    ap = parser(__doc__)
    ap.add_argument("--iterations", type=int, default=3000,
                    help="engine iterations per measure (default 3000)")
    ap.add_argument("--compiled-iterations", type=int, default=200_000,
                    help="compiled iterations per measure (default 200000)")
    add_repeat(ap, 3)
    ap.add_argument("--only", nargs="*", default=["bcw", "pima", "kyphosis"])
    ap.add_argument("--agreement", action="store_true",
                    help="mean log-likelihood and leaves per path in equal CPU time")
    ap.add_argument("--exact", action="store_true",
                    help="the CPU time of one exact move")
    ap.add_argument("--moves", action="store_true",
                    help="the CPU time of one move of each kind within a call of many")
    ap.add_argument("--hash", action="store_true",
                    help="a hash of a fixed chain per data set (same draws?)")
    a = ap.parse_args()
    if a.hash:
        for name in a.only:
            print(f"{name}: {chain_hash(name)}", flush=True)
        return
    if a.exact:
        exact_cost("kyphosis", 0, 10)          # loads or compiles the kernels
        for name in a.only:
            us = [exact_cost(name, seed) for seed in range(a.repeat)]
            print(f"{name}: exact move {statistics.median(us):.1f} us of CPU (per seed "
                  f"{', '.join(f'{x:.1f}' for x in us)})", flush=True)
        return
    if a.moves:
        move_costs("kyphosis", 0, 10)          # loads or compiles the kernels
        for name in a.only:
            per = [move_costs(name, seed) for seed in range(a.repeat)]
            print(f"{name}: us of CPU a move: " + ", ".join(
                f"{k} {statistics.median(p[k] for p in per):.1f}" for k, _ in MOVE_KINDS),
                flush=True)
        return
    if a.agreement:
        agreement(a)
        return
    mcmc_speed.CPU_TIME = True
    t0 = time.process_time()
    GrowtreeChain(load_csv(BUNDLED / "kyphosis.csv")).run(10, np.random.default_rng(0))
    print(f"machine: {cpu_model()}; first compiled call (kernels loaded or compiled): "
          f"{time.process_time() - t0:.2f} CPU-s")
    for name in a.only:
        eng, rates, accs = [], {v[0]: [] for v in VARIANTS}, {v[0]: [] for v in VARIANTS}
        for seed in range(a.repeat):        # alternating: engine, compiled, engine, ...
            eng.append(mcmc_speed.rate(name, a.iterations, 1, seed))
            for label, ch, sw in VARIANTS:
                r, ac = compiled_rate(name, a.compiled_iterations, seed, ch, sw)
                rates[label].append(r)
                accs[label].append(ac)
        rows = load_csv(BUNDLED / f"{name}.csv").n_rows
        med = statistics.median
        line = f"{name} ({rows} rows): engine uc {med(eng):,.0f} it/CPU-s"
        for label, _, _ in VARIANTS:
            ratio = [r / e for r, e in zip(rates[label], eng)]
            line += (f"; compiled {label} {med(rates[label]):,.0f} it/CPU-s, "
                     f"{med(ratio):.0f}x (per seed {', '.join(f'{x:.0f}' for x in ratio)}),"
                     f" acceptance {med(accs[label]):.2f}")
        print(line, flush=True)


if __name__ == "__main__":
    main()
