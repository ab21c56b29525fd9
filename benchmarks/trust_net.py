"""The network part of benchmarks/trust.py: CHILD (20 nodes, 25 edges, Spiegelhalter
1992), read from the BIF file pgmpy bundles (not downloaded), forward-sampled by pgmpy
(5,000 rows, seed 2005), learnt by `slpy run priors/bn.slp` (BDeu, ess 1, at most 3
parents) with each sampler and seed, beside pgmpy's hill climbing (BDeu, ess 1, at most
3 parents) and the true network.

Per sampler: sweeps a chain, CPU-seconds a seed, the largest difference of an edge's
posterior marginal between two seeds, and of a link's either way and of a compelled
arrow's in the equivalence classes (the CPDAGs of slpy.bn.cpdag), R-hat of the log-likelihood over a run's chains,
the best DAG's BDeu score (pgmpy's scorer, the median and best over the seeds) and its
structural Hamming distance to the true DAG (a missing, extra or reversed edge counts
1); for SMC its particles an island and the spread of its log evidence over the seeds.
Needs pgmpy (benchmarks/_pgmpy_ref.py says how to install it).
"""
from __future__ import annotations

import contextlib
import gzip
import io
import itertools
import tempfile
import warnings
from pathlib import Path

import numpy as np

from benchmarks.lib.env import PRIORS

ROWS, DATA_SEED = 5000, 2005


def child_csv() -> tuple[str, list]:
    """(the CSV of CHILD's forward samples, the true network's (parent, child) edges)."""
    with warnings.catch_warnings():
        warnings.simplefilter("ignore", FutureWarning)
        import pgmpy
        from pgmpy.readwrite import BIFReader
        from pgmpy.sampling import BayesianModelSampling
    bif = Path(pgmpy.__file__).parent / "utils" / "example_models" / "child.bif.gz"
    model = BIFReader(string=gzip.open(bif, "rt").read()).get_model()
    out = Path(tempfile.gettempdir()) / f"slpy_trust_child_{ROWS}_{DATA_SEED}.csv"
    if not out.exists():
        df = BayesianModelSampling(model).forward_sample(size=ROWS, seed=DATA_SEED,
                                                         show_progress=False)
        df.to_csv(out, index=False)
    return str(out), sorted(model.edges())


def shd(found, truth) -> int:
    """Structural Hamming distance: edges to add, delete or reverse."""
    f, t = set(found), set(truth)
    reversed_ = {(a, b) for a, b in f - t if (b, a) in t}
    return len(f - t - reversed_) + len(t - f - {(b, a) for a, b in reversed_}) \
        + len(reversed_)


def one_run(csv: str, settings: dict, seed: int, iterations: int, cpu) -> dict:
    from slpy.bn.family import parse_key
    from slpy.mcmc.run import run
    cfg = dict(prior=str(PRIORS / "bn.slp"), data=csv, seed=seed, iterations=iterations,
               jobs=1, top=1, **settings)
    with tempfile.TemporaryDirectory() as out, contextlib.redirect_stderr(io.StringIO()):
        t0 = cpu()
        s = run(cfg, out, quiet=True, force=True)
        seconds = cpu() - t0
        classes = _classes(Path(out) / "models.csv", s["variables"])
    names = s["variables"]
    ps = parse_key(s["best_model"], names)
    best = sorted((names[j], names[i]) for i, p in enumerate(ps) for j in p)
    conv = (s.get("convergence") or {}).get("log_lik") or {}
    return {"seconds": seconds, "sweeps": iterations, "marg": s["edge_marginals"],
            "links": classes["adjacent"], "compelled": classes["compelled"],
            "best": best, "rhat": conv.get("rhat"), "converged": s.get("converged"),
            "particles": settings.get("particles", 1000) if settings.get("method") == "smc"
            else None, "log_evidence": s.get("log_evidence")}


def _classes(models_csv: Path, names) -> dict:
    """The posterior marginals of the run's equivalence classes (slpy.bn.cpdag): a
    link either way, and an arrow compelled in the class."""
    import csv as _csv
    from slpy.bn.cpdag import cpdag_marginals
    from slpy.bn.family import parse_key
    with open(models_csv, newline="") as f:
        rows = [r for r in _csv.DictReader(f) if float(r["prob"]) > 0]
    return cpdag_marginals([parse_key(r["model"], names) for r in rows],
                           [float(r["prob"]) for r in rows], len(names))


def summarise(csv: str, truth, runs: list[dict]) -> dict:
    from benchmarks._pgmpy_ref import bdeu_score
    edges = sorted(set().union(*(r["marg"] for r in runs)))
    dmax = max((abs(a["marg"].get(e, 0.0) - b["marg"].get(e, 0.0))
                for a, b in itertools.combinations(runs, 2) for e in edges), default=0.0)
    scores = [bdeu_score(csv, r["best"]) for r in runs]
    rh = [r["rhat"] for r in runs if r["rhat"] is not None]
    ev = [r["log_evidence"] for r in runs if r["log_evidence"] is not None]
    return {"cpu_s": float(np.median([r["seconds"] for r in runs])),
            "sweeps": runs[0]["sweeps"], "max_edge_d": float(dmax),
            "max_link_d": _max_diff(runs, "links"),
            "max_compelled_d": _max_diff(runs, "compelled"),
            "score_median": float(np.median(scores)), "score_best": float(max(scores)),
            "shd": [shd(r["best"], truth) for r in runs],
            "rhat": max(rh) if rh else None,
            "converged": sum(bool(r["converged"]) for r in runs), "seeds": len(runs),
            "particles": runs[0]["particles"],
            "evidence_spread": float(np.ptp(ev)) if ev else None}


def _max_diff(runs, key) -> float:
    return max((float(np.abs(a[key] - b[key]).max())
                for a, b in itertools.combinations(runs, 2)), default=0.0)


def reference(csv: str, truth) -> dict:
    """pgmpy's hill climbing (and its CPU-seconds) and the true DAG's score."""
    from benchmarks._pgmpy_ref import bdeu_score, hill_climb
    import resource

    def cpu():
        r = resource.getrusage(resource.RUSAGE_SELF)
        return r.ru_utime + r.ru_stime
    t0 = cpu()
    hc, score = hill_climb(csv, ess=1.0, max_indegree=3)
    return {"hc_score": score, "hc_cpu_s": cpu() - t0, "hc_shd": shd(hc, truth),
            "true_score": bdeu_score(csv, truth)}


def row(name: str, mode: str, s: dict) -> str:
    r = "n/a" if s["rhat"] is None else f"{s['rhat']:.3f}"
    size = f"{s['particles']:,} particles" if s.get("particles") else f"{s['sweeps']:,}"
    ev = "" if s.get("evidence_spread") is None else f"{s['evidence_spread']:.3f}"
    return (f"| CHILD | {name} | {mode} | {size} | {s['cpu_s']:.1f} | "
            f"{s['max_edge_d']:.3f} | {s['max_link_d']:.3f} | "
            f"{s['max_compelled_d']:.3f} | {r} | {s['score_median']:.1f} "
            f"({s['score_best']:.1f}) | {', '.join(map(str, s['shd']))} | "
            f"{s['converged']}/{s['seeds']} | {ev} |")


HEADER = ("| data | sampler | mode | sweeps | CPU s/seed | max edge-marginal d "
          "| max link d | max compelled d | R-hat "
          "| best DAG's BDeu: median (best) | SHD to truth | converged "
          "| evidence spread |\n"
          "|---|---|---|---|---|---|---|---|---|---|---|---|---|")
