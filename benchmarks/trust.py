"""Can one run be trusted on its own? Samplers side by side, at equal sweeps and at
equal CPU.

Each sampler runs `slpy run` (in this process, --jobs 1, so CPU time is this process's)
on a fixed 80/20 split (--split-seed 2005) with seeds 1-3. Per data set and sampler:

- sweeps a chain, chains x replicas, CPU-seconds a seed;
- mean and max |dp| of the held-out class probabilities between each pair of seeds;
- the run's own verdict: R-hat of the log-likelihood over its chains (the largest of the
  seeds), bulk ESS per CPU-second, how many seeds said "converged";
- for a sampler of one chain (no R-hat of its own), R-hat over the seeds' chains;
- SMC: the log evidence of each seed and their spread.

"Equal sweeps" runs every MCMC sampler for --iterations iterations a chain; "equal
CPU" runs again each sampler whose CPU-seconds differ from the reference sampler's
(the first of --samplers) by more than 20%, with its iterations scaled to the
reference's CPU time (with --modes cpu alone, from pilots of a tenth and a fifth of
the iterations, whose difference is the CPU of a sweep without the start-up, and
without the equal-sweeps runs). SMC has no sweeps: it runs at equal CPU only, its
particles set from pilots of 50 and 100 particles the same way. WF and LR are the
first 600 rows of waveform and the first 2,000 of letter; CHILD is a 20-node network
(benchmarks/trust_net.py, needs pgmpy).

    python benchmarks/trust.py [--data BCW,PIMA,WF,LR,CHILD] [--samplers default,before,smc]
        [--iterations 10000] [--seeds 1,2,3] [--modes sweeps,cpu] [--ref-cpu S] [--json FILE]
"""
from __future__ import annotations

import argparse
import contextlib
import io
import itertools
import json
import resource
import sys
import tempfile
from pathlib import Path

import numpy as np

if __name__ == "__main__" and not __package__:  # python benchmarks/trust.py
    sys.path.insert(0, str(Path(__file__).resolve().parents[1]))

from benchmarks.lib.env import PRIORS, ROOT, SHARED_DATA, cpu_model  # noqa: E402

# (file, rows kept: the first N, or None for all)
DATA = {"BCW": ("examples/data/bcw.csv", None), "PIMA": ("examples/data/pima.csv", None),
        # subsets of the large data sets, so a seed takes minutes, not hours
        "WF": (str(SHARED_DATA / "waveform.csv"), 600),
        "LR": ("examples/data/letter.csv", 2000)}

# what each sampler changes from slpy run's defaults
SAMPLERS = {
    "default": {},
    # the default before issue 25: one chain of 8 tempered replicas
    "before": dict(chains=1, temper=8),
    "4x1": dict(chains=4, temper=1),
    "4x2": dict(chains=4, temper=2),
    "4x4": dict(chains=4, temper=4),
    "4x8": dict(chains=4, temper=8),
    "4x16": dict(chains=4, temper=16),
    "4x12": dict(chains=4, temper=12),
    "4x24": dict(chains=4, temper=24),
    # networks: every chain from the hill-climbed DAG (slpy.bn.greedy)
    "4x8g": dict(chains=4, temper=8, init="greedy"),
    "1x8g": dict(chains=1, temper=8, init="greedy"),
    "smc": dict(method="smc", chains=4),
    # trees: the engine's moves on proof trees (the default before the compiled path),
    # and the compiled path's mixtures (issue 27)
    "engine": dict(path="engine"),
    "c-noexact": dict(proposal="regrow:0.5,change:0.3,swap:0.2"),
    "c-exact0.1": dict(proposal="regrow:0.4,change:0.3,swap:0.2,exact:1:0.1"),
    "c-exact0.2": dict(proposal="regrow:0.35,change:0.3,swap:0.15,exact:1:0.2"),
    "c-perturb": dict(proposal="regrow:0.35,change:0.2,swap:0.15,perturb:0.2,exact:1:0.1"),
    "c-perturb2": dict(proposal="regrow:0.3,change:0.1,swap:0.1,perturb:0.4,exact:1:0.1"),
    # more of the exact move, now that its last level is a sweep (a third of the cost)
    "c-exact0.3": dict(proposal="regrow:0.25,change:0.15,swap:0.15,perturb:0.15,exact:1:0.3"),
    "c-exact2": dict(proposal="regrow:0.35,change:0.2,swap:0.15,perturb:0.2,exact:2:0.1"),
}


def cpu() -> float:
    r = resource.getrusage(resource.RUSAGE_SELF)
    return r.ru_utime + r.ru_stime


def data_file(name: str) -> str:
    """The CSV of a data set, its first rows written to a file once where it is a subset."""
    path, rows = DATA[name]
    path = ROOT / path
    if rows is None:
        return str(path)
    out = Path(tempfile.gettempdir()) / f"slpy_trust_{name}_{rows}.csv"
    if not out.exists():
        with open(path) as f:
            out.write_text("".join(itertools.islice(f, rows + 1)))
    return str(out)


def one_run(data: str, settings: dict, seed: int, iterations: int) -> dict:
    from slpy.mcmc.run import run
    cfg = dict(prior=str(PRIORS / "growtree.slp"), data=data_file(data),
               holdout=0.2, split_seed=2005, seed=seed, iterations=iterations, jobs=1,
               **settings)
    particles = settings.get("particles", 1000)
    with tempfile.TemporaryDirectory() as out, contextlib.redirect_stderr(io.StringIO()):
        t0 = cpu()
        s = run(cfg, out, quiet=True, force=True)
        seconds = cpu() - t0
        p = np.loadtxt(Path(out) / "predictions.csv", delimiter=",", skiprows=1,
                       usecols=_prob_columns(Path(out) / "predictions.csv"))
        trace = [np.loadtxt(f, delimiter=",", skiprows=1, usecols=2, ndmin=1)
                 for f in sorted(Path(out).glob("chain_*/trace.csv"))]
    conv = s.get("convergence") or {}
    return {"seconds": seconds, "p": p, "sweeps": iterations,
            "rhat": (conv.get("log_lik") or {}).get("rhat"),
            "ess": (conv.get("log_lik") or {}).get("ess_bulk"),
            "converged": s.get("converged"), "chains": s["chains"],
            "log_evidence": s.get("log_evidence"), "trace": trace,
            "smc": settings.get("method") == "smc", "particles": particles}


def _prob_columns(path: Path) -> list[int]:
    head = path.read_text().split("\n", 1)[0].split(",")
    return [i for i, h in enumerate(head) if h.startswith("p_")]


def summarise(runs: list[dict]) -> dict:
    from slpy.diagnostics import equal_length, ess, rhat
    dps = [np.abs(a["p"] - b["p"]) for a, b in itertools.combinations(runs, 2)]
    out = {"cpu_s": float(np.median([r["seconds"] for r in runs])),
           "sweeps": runs[0]["sweeps"],
           "mean_dp": float(np.mean([d.mean() for d in dps])),
           "max_dp": float(max(d.max() for d in dps)),
           "converged": sum(bool(r["converged"]) for r in runs), "seeds": len(runs)}
    if runs[0]["smc"]:
        out["particles"] = runs[0]["particles"]
    if runs[0]["smc"]:        # particles, not chains: no R-hat or ESS
        pass
    elif runs[0]["chains"] > 1 and runs[0]["rhat"] is not None:
        out["rhat"] = max(r["rhat"] or np.inf for r in runs)
        out["ess_per_cpu_s"] = float(np.median([(r["ess"] or 0) / r["seconds"]
                                                for r in runs]))
    else:                     # one chain a run: the seeds' chains against each other
        chains = equal_length([r["trace"][0] for r in runs])
        out["rhat_seeds"] = float(rhat(chains))
        out["ess_per_cpu_s"] = float(ess(chains) / sum(r["seconds"] for r in runs))
    ev = [r["log_evidence"] for r in runs if r["log_evidence"] is not None]
    if ev:
        out["log_evidence"] = ev
        out["evidence_spread"] = float(np.ptp(ev))
    return out


def row(data, name, mode, s) -> str:
    r = s.get("rhat", s.get("rhat_seeds"))
    r = "n/a" if r is None else f"{r:.3f}" + ("" if "rhat" in s else " (seeds)")
    ess = f"{s['ess_per_cpu_s']:.2f}" if "ess_per_cpu_s" in s else "n/a"
    ev = f" | {s['evidence_spread']:.3f}" if "evidence_spread" in s else " | "
    sweeps = f"{s['particles']:,} particles" if "particles" in s else f"{s['sweeps']:,}"
    return (f"| {data} | {name} | {mode} | {sweeps} | {s['cpu_s']:.1f} | "
            f"{s['mean_dp']:.4f} | {s['max_dp']:.3f} | {r} | {ess} | "
            f"{s['converged']}/{s['seeds']}{ev} |")


TREE_HEADER = ("| data | sampler | mode | sweeps | CPU s/seed | mean |dp| | max |dp| "
               "| R-hat | ESS/CPU-s | converged | evidence spread |\n"
               "|---|---|---|---|---|---|---|---|---|---|---|")


def compare(data, names, seeds, modes, iterations, one_run, summarise, row,
            ref_cpu=None) -> dict:
    """Every sampler on one data set: the first (the reference) at `iterations`, the
    others at equal sweeps and/or at the reference's CPU time (`ref_cpu` when given, a
    reference measured before: then every sampler is set to it)."""
    results = {}

    def at(settings, iters, mode):
        s = summarise([one_run(data, settings, x, iters) for x in seeds])
        results[(data, name, mode)] = s
        return s
    for name in names:
        settings = SAMPLERS[name]
        if settings.get("method") == "smc":
            # SMC has no sweeps: its particles are set to the reference's CPU time,
            # from pilots of 50 and 100 particles, so that the fixed costs (start-up,
            # the first scores) count once
            one_run(data, dict(settings, particles=20), seeds[0], iterations)  # imports
            one = one_run(data, dict(settings, particles=50), seeds[0], iterations)
            two = one_run(data, dict(settings, particles=100), seeds[0], iterations)
            per = max(two["seconds"] - one["seconds"], 1e-3) / 50
            fixed = max(one["seconds"] - 50 * per, 0.0)
            n = max(20, int(max((ref_cpu or one["seconds"]) - fixed, per) / per))
            print(row(data, name, "equal CPU", at(dict(settings, particles=n), iterations,
                                                  "cpu")), flush=True)
            continue
        if ref_cpu is not None and "sweeps" not in modes:
            # equal CPU only: the iterations from two pilots' CPU, n and 2n sweeps,
            # so that the start-up (loading, the first kernels) counts once
            n = max(100, iterations // 10)
            one_run(data, settings, seeds[0], 20)        # imports and kernels: once
            one = one_run(data, settings, seeds[0], n)["seconds"]
            two = one_run(data, settings, seeds[0], 2 * n)["seconds"]
            per = max(two - one, 1e-3) / n
            iters = max(100, int(max(ref_cpu - (one - n * per), per) / per))
            print(row(data, name, "equal CPU", at(settings, iters, "cpu")), flush=True)
            continue
        s = at(settings, iterations, "sweeps")
        if "sweeps" in modes:
            print(row(data, name, "equal sweeps", s), flush=True)
        if ref_cpu is None:
            ref_cpu = s["cpu_s"]
            if "sweeps" not in modes:
                print(row(data, name, "equal CPU", s), flush=True)
            continue
        if "cpu" in modes and abs(s["cpu_s"] / ref_cpu - 1) > 0.2:
            iters = max(100, int(iterations * ref_cpu / s["cpu_s"]))
            print(row(data, name, "equal CPU", at(settings, iters, "cpu")), flush=True)
    return results


def main(argv=None) -> int:
    ap = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    ap.add_argument("--data", default="BCW,PIMA",
                    help="of BCW, PIMA, WF, LR (subsets) and CHILD (a network)")
    ap.add_argument("--samplers", default="default,before,smc")
    ap.add_argument("--iterations", type=int, default=10000)
    ap.add_argument("--seeds", default="1,2,3")
    ap.add_argument("--modes", default="sweeps,cpu")
    ap.add_argument("--ref-cpu", type=float,
                    help="CPU-seconds a seed to give every sampler (with --modes cpu), "
                         "instead of the first sampler's: a reference already measured")
    ap.add_argument("--json")
    a = ap.parse_args(argv)
    if a.ref_cpu and "sweeps" in a.modes.split(","):
        ap.error("--ref-cpu goes with --modes cpu")
    seeds = [int(x) for x in a.seeds.split(",")]
    modes = a.modes.split(",")
    names = a.samplers.split(",")
    print(f"# {cpu_model()}; iterations {a.iterations} a chain; seeds {a.seeds}")
    results, header = {}, False
    for data in a.data.split(","):
        if data == "CHILD":
            from benchmarks import trust_net as net
            csv, truth = net.child_csv()
            ref = net.reference(csv, truth)
            print(f"\nCHILD: pgmpy hill climbing BDeu {ref['hc_score']:.1f} (SHD "
                  f"{ref['hc_shd']}, {ref['hc_cpu_s']:.1f} CPU-s); the true DAG "
                  f"{ref['true_score']:.1f}\n{net.HEADER}", flush=True)
            results[("CHILD", "reference", "")] = ref
            bench = (lambda d, st, x, n: net.one_run(csv, st, x, n, cpu),
                     lambda runs: net.summarise(csv, truth, runs),
                     lambda d, name, mode, st: net.row(name, mode, st))
        else:
            if not header:
                print(TREE_HEADER)
                header = True
            bench = (one_run, summarise, row)
        results.update(compare(data, names, seeds, modes, a.iterations, *bench,
                               ref_cpu=a.ref_cpu))
    if a.json:
        Path(a.json).write_text(json.dumps(
            {" ".join(k): v for k, v in results.items()}, indent=1))
    return 0


if __name__ == "__main__":
    sys.exit(main())
