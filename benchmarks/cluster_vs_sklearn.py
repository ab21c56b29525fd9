"""Bayesian clustering of the bundled iris petals (examples/data/iris_petals.csv): slpy's
posterior over partitions against scikit-learn's variational Dirichlet-process mixture,
on the same rows, in one run.

slpy: `slpy run priors/crp.slp` (CRP prior, alpha 1; normal columns with the default
normal-inverse-gamma hyperparameters; the family's moves, one chain without
tempering) for each seed. scikit-learn: `BayesianGaussianMixture` with a Dirichlet-
process weight prior (concentration 1, at most 10 components), diagonal covariances
(what slpy's columns assume) and full ones, one fit per seed. Printed for each:

- the number of clusters (slpy: its posterior; scikit-learn: components holding at
  least one row by the hard assignment);
- the adjusted Rand index with the species of the most probable partition (slpy: the
  most visited; scikit-learn: the hard assignment) and of slpy's point estimate (least
  expected Binder loss);
- the co-clustering matrix P(rows i and j together) (scikit-learn's from its
  responsibilities: sum over components of r_ik r_jk), and how far each is from the
  other and from the species' own (1 when two rows are of one species), over the pairs
  of different rows;
- the CPU time of the process for each (slpy's without its start-up).

    python benchmarks/cluster_vs_sklearn.py [--iterations N] [--seeds 1 2 3] [--data CSV]
"""
from __future__ import annotations

import sys
import tempfile
import time
from pathlib import Path

if __name__ == "__main__" and not __package__:  # python benchmarks/cluster_vs_sklearn.py
    sys.path.insert(0, str(Path(__file__).resolve().parents[1]))

import numpy as np  # noqa: E402

from benchmarks.lib.cli import parser  # noqa: E402
from benchmarks.lib.env import BUNDLED, PRIORS  # noqa: E402

DATA = BUNDLED / "iris_petals.csv"


def slpy_runs(data: Path, iterations: int, seeds, proposal: str):
    """(summaries, CPU seconds of each run) of `slpy run priors/crp.slp`."""
    from slpy.mcmc.run import run
    out, cpu = [], []
    with tempfile.TemporaryDirectory() as tmp:
        for seed in seeds:
            t = time.process_time()
            out.append(run(dict(prior=str(PRIORS / "crp.slp"), data=str(data),
                                iterations=iterations, seed=seed, temper=1, chains=1,
                                proposal=proposal, top=1),
                           Path(tmp) / f"seed{seed}", quiet=True))
            cpu.append(time.process_time() - t)
    return out, cpu


def sklearn_fit(x, seed: int, covariance: str):
    """(hard labels, co-clustering matrix, CPU seconds) of one variational fit."""
    from sklearn.mixture import BayesianGaussianMixture
    t = time.process_time()
    m = BayesianGaussianMixture(n_components=10, covariance_type=covariance,
                                weight_concentration_prior_type="dirichlet_process",
                                weight_concentration_prior=1.0, max_iter=2000,
                                random_state=seed).fit(x)
    r = m.predict_proba(x)
    labels = m.predict(x)
    return labels, r @ r.T, time.process_time() - t


def labels_of_key(key: str, n: int) -> np.ndarray:
    from slpy.cluster.partition import parse_key
    z = np.empty(n, dtype=int)
    for k, b in enumerate(parse_key(key)):
        z[b] = k
    return z


def main(argv=None):
    ap = parser(__doc__)
    ap.add_argument("--iterations", type=int, default=200_000)
    ap.add_argument("--seeds", type=int, nargs="*", default=[1, 2, 3])
    ap.add_argument("--data", default=str(DATA))
    ap.add_argument("--proposal", default="default", help="slpy run --proposal")
    a = ap.parse_args(argv)
    from slpy.cluster.data import load_cluster_csv
    from slpy.cluster.partition import adjusted_rand
    data = load_cluster_csv(a.data)
    if data.labels is None:
        raise SystemExit(f"{a.data}: no class column to compare with")
    n = data.n_rows
    x = data.numeric
    species = np.array(data.labels)
    truth = (species[:, None] == species[None, :]).astype(float)

    def off(m):
        return m[~np.eye(n, dtype=bool)]

    sums, cpu = slpy_runs(Path(a.data), a.iterations, a.seeds, a.proposal)
    mats = [np.array(s["co_clustering"]) for s in sums]
    mean = np.mean(mats, axis=0)
    print(f"data: {a.data}, {n} rows, columns {', '.join(data.names)}")
    from slpy.cluster.partition import ClusterScorer
    moves = ClusterScorer.proposal if a.proposal == "default" else a.proposal
    print(f"\nslpy (priors/crp.slp, {a.iterations} iterations a seed, one chain, "
          f"moves {moves}):")
    for seed, s, c in zip(a.seeds, sums, cpu):
        top = s["top_models"][0]
        map_ari = adjusted_rand(labels_of_key(top["model"], n), species)
        pe_ari = adjusted_rand(labels_of_key(s["point_estimate"], n), species)
        ks = ", ".join(f"{k}: {p:.3f}" for k, p in s["clusters_posterior"].items())
        print(f"  seed {seed}: clusters {ks}; ARI of the most visited partition "
              f"(posterior {top['prob']:.3f}) {map_ari:.3f}, of the point estimate "
              f"{pe_ari:.3f}; {c:.1f} s CPU")
    if len(mats) > 1:
        d = max(float(np.abs(p - q).max())
                for k, p in enumerate(mats) for q in mats[k + 1:])
        print(f"  seeds' co-clustering agree within {d:.4f}")
    print(f"  co-clustering (mean of the seeds) vs the species': mean |difference| "
          f"{np.abs(off(mean - truth)).mean():.4f}")
    for cov in ("diag", "full"):
        print(f"\nscikit-learn BayesianGaussianMixture (dirichlet_process, "
              f"covariance_type={cov!r}):")
        sk = []
        for seed in a.seeds:
            labels, m, c = sklearn_fit(x, seed, cov)
            sk.append(m)
            print(f"  seed {seed}: clusters {len(set(labels.tolist()))}; ARI "
                  f"{adjusted_rand(labels, species):.3f}; {c:.2f} s CPU")
        skm = np.mean(sk, axis=0)
        gap = np.abs(off(skm - mean))
        print(f"  co-clustering vs the species': mean |difference| "
              f"{np.abs(off(skm - truth)).mean():.4f}; vs slpy's: largest |difference| "
              f"{gap.max():.4f}, mean {gap.mean():.4f}")


if __name__ == "__main__":
    main()
