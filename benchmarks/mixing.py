"""Mixing at equal CPU time: do independent chains agree?

For each data set, each sampler and each seed, one chain (with its tempered
companions, if any) runs for the same CPU budget, in one process; the first tenth of
the sweeps is burn-in (the tempering ladder adapts there). The GROWTREE prior
(alpha 0.95, beta 1, min_leaf 5), a fixed 80/20 split (--split-seed). Per data set and
sampler it prints:

- mean and max |dp|: held-out class probabilities (posterior predictive) of each pair
  of seeds, |difference| averaged over test rows (and pairs), and the largest;
- R-hat and bulk ESS of the cold chain's log-likelihood over the seeds (slpy's
  rank-normalised split R-hat; the traces cut to the shortest), and ESS per CPU-second
  (bulk ESS over the CPU-seconds of all seeds);
- TV between the seeds' distributions over trees (visit frequencies), mean over pairs;
- for Kyphosis the TV between each seed's visit frequencies and the exact posterior of
  the PCFG back end, mean over seeds, and beside it ("TV iid") the TV of as many
  independent exact draws as the seed kept: the part of the TV that is sampling noise
  alone (the exact posterior spreads over tens of thousands of trees);
- sweeps per seed, acceptance by move and tempering round trips (hottest -> cold).

    python benchmarks/mixing.py [--budget 120] [--kyphosis-budget 60] [--seeds 1,2,3]
        [--data K,BCW,PIMA] [--large] [--samplers uc,default] [--jobs 2] [--quick]
        [--json FILE]

--large adds LR (letter) and WF (waveform, from ../shared/data) with --large-budget
(default 600 s) per seed. --quick: 1 CPU-second per run, Kyphosis and BCW, two seeds
(the test suite runs it).
"""
from __future__ import annotations

import itertools
import json
import math
import sys
import time
from pathlib import Path

import numpy as np

if __name__ == "__main__" and not __package__:  # python benchmarks/mixing.py
    sys.path.insert(0, str(Path(__file__).resolve().parents[1]))

from benchmarks.lib.cli import add_quick, parser  # noqa: E402
from benchmarks.lib.env import PRIORS, ROOT, cpu_model  # noqa: E402

DATA = {"K": ("examples/data/kyphosis.csv", 0.2), "BCW": ("examples/data/bcw.csv", 0.2),
        "PIMA": ("examples/data/pima.csv", 0.2), "LR": ("examples/data/letter.csv", 0.2),
        # the paper's "unfortunate error": 20% train, 80% held out
        "WF": ("../shared/data/waveform.csv", 0.8)}

# the samplers compared: today's (untempered prune-and-regrow) and slpy's default
SAMPLERS = {
    "uc": dict(proposal="uc", temper=1),
    "uc-paper": dict(proposal="uc", temper=4, swap="random", ladder="paper", delta_t=0.2),
}


def default_sampler() -> dict:
    from slpy.mcmc.moves import DEFAULT_PROPOSAL
    from slpy.mcmc.config import RECOMMENDED_TEMPERING
    return dict(proposal=DEFAULT_PROPOSAL, **RECOMMENDED_TEMPERING)


def sampler(name: str) -> dict:
    if name == "default":
        return default_sampler()
    if name in SAMPLERS:
        return SAMPLERS[name]
    return json.loads(name)       # a configuration given as JSON


def split(name: str, split_seed: int):
    from slpy.data import load_csv, train_test_split
    path, holdout = DATA[name]
    path = ROOT / path
    if not path.exists():
        return None
    ds = load_csv(path)
    return train_test_split(ds, holdout, np.random.default_rng(split_seed))


def model(train):
    from slpy import Program
    from slpy.mcmc.model import PosteriorModel
    from slpy.trees.family import TreeScorer
    from slpy.trees import make_likelihood
    p = Program()
    p.consult(PRIORS / "growtree.slp")
    p.attach_data(train)
    return PosteriorModel(p, "cart(T)", TreeScorer(p, make_likelihood("dirichlet", train)))


def one_run(task):
    """One seed of one sampler on one data set, for `budget` CPU-seconds."""
    from slpy.mcmc.sampler import run_chain
    from slpy.trees.model import Tree
    name, sname, seed, budget, split_seed = task
    train, test = split(name, split_seed)
    m = model(train)
    # the engine's samplers (benchmarks/trust.py compares the compiled path's)
    base = dict(iterations=10 ** 12, burn_in=0, thin=1, temper=1, chains=1, seed=seed,
                path="engine")
    cfg = dict(base, **sampler(sname))
    # burn-in: a tenth of the sweeps a calibration run makes in the budget
    rate = _rate(m, dict(cfg, seed=seed + 10 ** 6), min(3.0, budget / 10))
    cfg["burn_in"] = max(1, int(0.1 * budget * rate))
    trace = []
    t0 = time.process_time()

    def observe(sw):
        if sw.kept:
            trace.append(sw.state.log_lik)
        return time.process_time() - t0 > budget
    res = run_chain(m, cfg, 0, [observe])
    cpu = time.process_time() - t0
    pred = np.zeros((test.n_rows, train.n_classes))
    for v in res.visits.values():
        pred += v.count * Tree.from_term(v.term, m.scorer.rowsets, train, 1.0).predict_proba(test.X)
    pred /= max(res.kept, 1)
    tv_exact, tv_iid = _tv_exact(name, train, res, seed) if name == "K" else (None, None)
    return dict(data=name, sampler=sname, seed=seed, cpu=cpu, sweeps=res.iterations,
                kept=res.kept, burn_in=cfg["burn_in"], trace=trace, pred=pred.tolist(),
                visits={k: v.count for k, v in res.visits.items()}, tv_exact=tv_exact,
                tv_iid=tv_iid,
                moves={k: a / n for k, (n, a) in res.moves.items() if n},
                round_trips=res.round_trips, heats=res.heats)


def _rate(m, cfg, seconds) -> float:
    from slpy.mcmc.sampler import run_chain
    t0 = time.process_time()
    res = run_chain(m, cfg, 0, [lambda sw: time.process_time() - t0 > seconds])
    return res.iterations / max(time.process_time() - t0, 1e-9)


_EXACT = {}


def _tv_exact(name, train, res, seed) -> tuple[float, float]:
    """TV between the visit frequencies and the exact posterior (PCFG back end), and
    the TV of as many independent exact draws: what sampling noise alone gives."""
    from slpy import Program
    from slpy.pcfg.compile import compile_exact
    from slpy.pcfg.sample import sample_derivations
    from slpy.trees import make_likelihood
    if name not in _EXACT:
        p = Program()
        p.consult(PRIORS / "growtree.slp")
        p.attach_data(train)
        _EXACT[name] = compile_exact(p, "cart(T)", make_likelihood("dirichlet", train),
                                     family="tree")
    em = _EXACT[name]
    draws: dict = {}
    for d in sample_derivations(em.post, np.random.default_rng(seed), res.kept):
        t = em.term(d)
        key = str(t)
        n, _ = draws.get(key, (0, t))
        draws[key] = (n + 1, t)
    return (_tv(em.post, [(v.count, v.term) for v in res.visits.values()], res.kept),
            _tv(em.post, draws.values(), res.kept))


def _tv(post, counts, total) -> float:
    covered = 0.0
    diff = 0.0
    for count, term in counts:
        p = math.exp(post.log_prob_term(term))
        covered += p
        diff += abs(count / total - p)
    return min(1.0, 0.5 * (diff + max(0.0, 1.0 - covered)))


def summarise(runs) -> dict:
    from slpy.diagnostics import ess, rhat
    preds = [np.asarray(r["pred"]) for r in runs]
    dps = [np.abs(a - b).max(axis=1) for a, b in itertools.combinations(preds, 2)]
    n = min(len(r["trace"]) for r in runs)
    x = np.array([r["trace"][:n] for r in runs])
    cpu = sum(r["cpu"] for r in runs)
    e = ess(x)
    # clipped: disjoint visits sum to 1 plus rounding
    tv = [min(1.0, 0.5 * sum(abs(a["visits"].get(k, 0) / a["kept"]
                                 - b["visits"].get(k, 0) / b["kept"])
                             for k in set(a["visits"]) | set(b["visits"])))
          for a, b in itertools.combinations(runs, 2)]
    moves: dict = {}
    for r in runs:
        for k, v in r["moves"].items():
            moves.setdefault(k, []).append(v)
    te = [r["tv_exact"] for r in runs if r["tv_exact"] is not None]
    ti = [r["tv_iid"] for r in runs if r["tv_iid"] is not None]
    return dict(mean_dp=float(np.mean([d.mean() for d in dps])),
                max_dp=float(max(d.max() for d in dps)), rhat=rhat(x), ess=e,
                ess_per_cpu_s=e / cpu if cpu else float("nan"), tv_seeds=float(np.mean(tv)),
                tv_exact=float(np.mean(te)) if te else None,
                tv_iid=float(np.mean(ti)) if ti else None,
                sweeps=int(np.median([r["sweeps"] for r in runs])),
                cpu=float(np.median([r["cpu"] for r in runs])),
                moves={k: float(np.mean(v)) for k, v in sorted(moves.items())},
                round_trips=[r["round_trips"] for r in runs])


def _f(x, spec):
    return "n/a" if x is None or (isinstance(x, float) and math.isnan(x)) else format(x, spec)


def table(name, rows) -> str:
    head = ("| sampler | CPU s/seed | sweeps/seed | mean \\|dp\\| | max \\|dp\\| | R-hat | "
            "bulk ESS | ESS/CPU-s | TV seeds | TV exact | TV iid | round trips | "
            "acceptance by move |")
    lines = [f"**{name}**", "", head, "|" + "---|" * 13]
    for sname, s in rows:
        acc = ", ".join(f"{k} {v:.2f}" for k, v in s["moves"].items())
        lines.append(
            f"| {sname} | {s['cpu']:.0f} | {s['sweeps']:,} | {s['mean_dp']:.4f} | "
            f"{s['max_dp']:.3f} | {_f(s['rhat'], '.3f')} | {_f(s['ess'], '.0f')} | "
            f"{_f(s['ess_per_cpu_s'], '.2f')} | {s['tv_seeds']:.3f} | "
            f"{_f(s['tv_exact'], '.3f')} | {_f(s['tv_iid'], '.3f')} | "
            f"{', '.join(map(str, s['round_trips']))} | {acc} |")
    if len(rows) >= 2:
        (an, a), (bn, b) = rows[0], rows[-1]
        if a["ess_per_cpu_s"] and b["ess_per_cpu_s"]:
            lines.append("")
            lines.append(f"ESS per CPU-second, {bn} / {an}: "
                         f"{b['ess_per_cpu_s'] / a['ess_per_cpu_s']:.1f}x; mean |dp| "
                         f"{an} / {bn}: {a['mean_dp'] / max(b['mean_dp'], 1e-12):.1f}x")
    return "\n".join(lines)


def main(argv=None):
    ap = parser(__doc__)
    ap.add_argument("--budget", type=float, default=120.0, help="CPU-seconds per seed")
    ap.add_argument("--kyphosis-budget", type=float, default=60.0)
    ap.add_argument("--large-budget", type=float, default=600.0)
    ap.add_argument("--seeds", default="1,2,3")
    ap.add_argument("--data", default="K,BCW,PIMA")
    ap.add_argument("--large", action="store_true", help="add LR and WF")
    ap.add_argument("--samplers", default="uc,default",
                    help="comma-separated: uc, uc-paper, default (JSON configurations "
                         "may be given with --sampler)")
    ap.add_argument("--sampler", action="append", default=[],
                    help="an extra sampler as a JSON configuration")
    ap.add_argument("--split-seed", type=int, default=2005)
    ap.add_argument("--jobs", type=int, default=2, help="runs at a time (each one process)")
    add_quick(ap, "1 CPU-second per run, Kyphosis and BCW, two seeds")
    ap.add_argument("--json", help="write every run's figures to this file")
    a = ap.parse_args(argv)
    names = [d for d in a.data.split(",") if d]
    if a.large:
        names += ["LR", "WF"]
    seeds = [int(s) for s in a.seeds.split(",")]
    budget = {n: a.budget for n in names}
    budget["K"] = a.kyphosis_budget
    for n in ("LR", "WF"):
        budget[n] = a.large_budget
    if a.quick:
        names, seeds = ["K", "BCW"], seeds[:2]
        budget = {n: 1.0 for n in names}
    samplers = [s for s in a.samplers.split(",") if s] + a.sampler
    missing = [n for n in names if not (ROOT / DATA[n][0]).exists()]
    for n in missing:
        print(f"{n}: {DATA[n][0]} not found, skipped")
    names = [n for n in names if n not in missing]
    tasks = [(n, s, seed, budget[n], a.split_seed) for n in names for s in samplers
             for seed in seeds]
    print(f"mixing: {len(tasks)} runs on {cpu_model()}, {a.jobs} at a time; samplers: "
          + "; ".join(f"{s} = {json.dumps(sampler(s))}" for s in samplers), flush=True)
    t0 = time.perf_counter()
    if a.jobs > 1:
        from concurrent.futures import ProcessPoolExecutor
        with ProcessPoolExecutor(a.jobs) as ex:
            runs = list(ex.map(one_run, tasks))
    else:
        runs = [one_run(t) for t in tasks]
    out = {}
    for n in names:
        rows = []
        for s in samplers:
            rs = [r for r in runs if r["data"] == n and r["sampler"] == s]
            rows.append((s, summarise(rs)))
        out[n] = rows
        print()
        print(table(f"{n} ({budget[n]:.0f} CPU-s per seed, seeds "
                    f"{', '.join(map(str, seeds))}, split seed {a.split_seed})", rows))
    print(f"\n{time.perf_counter() - t0:.0f} s wall-clock")
    if a.json:
        Path(a.json).write_text(json.dumps(
            {"runs": [{k: v for k, v in r.items() if k not in ("trace", "pred", "visits")}
                      for r in runs],
             "summary": {n: {s: v for s, v in rows} for n, rows in out.items()}},
            indent=1, default=float))
    return out


if __name__ == "__main__":
    main()
