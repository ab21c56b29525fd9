"""Bayesian-network structure learning on Asia (examples/data/asia.csv, 5,000 forward
samples of Lauritzen & Spiegelhalter's network): do independent seeds agree, and does
the sampler find DAGs at least as good as pgmpy's hill climbing?

Runs `slpy run priors/bn.slp` (BDeu, ess 1, max 3 parents, default moves and
tempering) with seeds 1, 2, 3 and prints:

- each pair of seeds' largest difference in an edge's posterior marginal (target:
  within 0.02) and the edge marginals of seed 1;
- the best DAG the runs found, its BDeu score from slpy, and pgmpy's hill climbing
  with BDeu (ess 1) and its score by pgmpy, side by side (pgmpy installed as
  benchmarks/_pgmpy_ref.py says; skipped without it);
- the true Asia DAG's score, for scale.

With --bims, the same on the Asia samples of the papers' authors' later system (bims,
../shared/data/bims/asia.pl: 2,295 samples as counts, variables unnamed: v1..v8 in
its order), for a side-by-side run.

    python benchmarks/bn_asia.py [--iterations N] [--seeds 1 2 3] [--jobs J] [--bims]
"""
from __future__ import annotations

import itertools
import json
import sys
import tempfile
from pathlib import Path

if __name__ == "__main__" and not __package__:  # python benchmarks/bn_asia.py
    sys.path.insert(0, str(Path(__file__).resolve().parents[1]))

from benchmarks.lib.cli import parser  # noqa: E402
from benchmarks.lib.env import BUNDLED, PRIORS, SHARED_DATA  # noqa: E402

DATA = BUNDLED / "asia.csv"
TRUE_EDGES = [("asia", "tub"), ("smoke", "lung"), ("smoke", "bronc"), ("tub", "either"),
              ("lung", "either"), ("either", "xray"), ("either", "dysp"), ("bronc", "dysp")]


BIMS = SHARED_DATA / "bims" / "asia.pl"


def bims_csv(out: Path) -> Path:
    """bims's data([x1, ..., x8], Count) facts as a CSV with a count column."""
    import re
    rows = re.findall(r"^data\(\[([01,]+)\],\s*(\d+)\)\.", BIMS.read_text(), re.M)
    path = out / "bims_asia.csv"
    path.write_text("v1,v2,v3,v4,v5,v6,v7,v8,count\n"
                    + "".join(f"{xs},{n}\n" for xs, n in rows))
    return path


def run_seed(seed: int, iterations: int, out: Path, temper: int, data: Path,
             proposal: str) -> dict:
    from slpy.mcmc.run import run
    cfg = dict(prior=str(PRIORS / "bn.slp"), data=str(data), iterations=iterations,
               seed=seed, top=1, temper=temper, proposal=proposal, chains=1)
    return run(cfg, out / f"seed{seed}", quiet=True)


def main(argv=None):
    ap = parser(__doc__)
    ap.add_argument("--iterations", type=int, default=20000)
    ap.add_argument("--seeds", type=int, nargs="*", default=[1, 2, 3])
    ap.add_argument("--jobs", type=int, default=1)
    ap.add_argument("--temper", type=int, default=8, help="tempered chains per seed")
    ap.add_argument("--bims", action="store_true", help="bims's Asia samples instead")
    ap.add_argument("--proposal", default="default", help="the moves (slpy run --proposal)")
    a = ap.parse_args(argv)
    from joblib import Parallel, delayed
    from slpy.bn.data import load_discrete_csv
    from slpy.bn.family import parse_key
    from slpy.bn.score import FamilyScorer
    tmp = tempfile.TemporaryDirectory()
    data = bims_csv(Path(tmp.name)) if a.bims else DATA
    sums = Parallel(n_jobs=a.jobs)(delayed(run_seed)(s, a.iterations, Path(tmp.name), a.temper,
                                                     data, a.proposal) for s in a.seeds)
    names = sums[0]["variables"]
    marg = [s["edge_marginals"] for s in sums]
    edges = sorted(set().union(*marg))
    print(f"Asia{' (bims)' if a.bims else ''}: {a.iterations} iterations ({a.temper} tempered "
          f"chain(s), proposal {sums[0]['moves'] and ','.join(sums[0]['moves'])}) per seed, "
          f"seeds {', '.join(map(str, a.seeds))}; seconds per seed: "
          + ", ".join(f"{s['seconds']:.0f}" for s in sums))
    worst = 0.0
    for (i, x), (j, y) in itertools.combinations(enumerate(marg), 2):
        d, e = max((abs(x.get(e, 0.0) - y.get(e, 0.0)), e) for e in edges)
        worst = max(worst, d)
        print(f"  seeds {a.seeds[i]} and {a.seeds[j]}: largest edge-marginal difference "
              f"{d:.4f} ({e})")
    print(f"edge marginals agree within {worst:.4f} (target 0.02: "
          f"{'met' if worst <= 0.02 else 'NOT met'})")
    print(f"edge marginals above 0.05, seed {a.seeds[0]}: " + ", ".join(
        f"{e} {p:.3f}" for e, p in sorted(marg[0].items(), key=lambda kv: -kv[1])
        if p > 0.05))
    fs = FamilyScorer(load_discrete_csv(data), "bdeu", 1.0)
    best = max(sums, key=lambda s: s["best_log_lik"])
    ps = parse_key(best["best_model"], names)
    found = sorted((names[j], names[i]) for i, p in enumerate(ps) for j in p)
    print(f"\nbest DAG found by slpy: BDeu {fs.total(ps):.3f}, {len(found)} edges: "
          + ", ".join(f"{x}->{y}" for x, y in found))
    if not a.bims:
        truth = [tuple(sorted(names.index(x) for x, y in TRUE_EDGES if y == n)) for n in names]
        print(f"the true Asia DAG:      BDeu {fs.total(truth):.3f}, {len(TRUE_EDGES)} edges")
    try:
        from benchmarks._pgmpy_ref import bdeu_score, hill_climb
    except ImportError:
        print("pgmpy: not installed (see benchmarks/_pgmpy_ref.py), no comparison")
        return
    try:
        hc, score = hill_climb(data, ess=1.0, max_indegree=3)
    except ImportError:
        print("pgmpy: not installed (see benchmarks/_pgmpy_ref.py), no comparison")
        return
    ours = bdeu_score(data, found, ess=1.0)
    print(f"pgmpy hill climbing:    BDeu {score:.3f} (pgmpy's), {len(hc)} edges: "
          + ", ".join(f"{x}->{y}" for x, y in hc))
    print(f"slpy's best by pgmpy's BDeu: {ours:.3f}; slpy - pgmpy = {ours - score:+.3f} "
          f"({'at least as good' if ours >= score - 1e-6 else 'WORSE'})")
    print(json.dumps({"agreement": worst, "slpy_best": ours, "pgmpy_hc": score}))


if __name__ == "__main__":
    main()
