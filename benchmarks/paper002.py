"""Reproduce paper 002 (Angelopoulos & Cussens, "Tempering for Bayesian C&RT", ICML 2005).

The grid: K, BCW and PIMA x 50k/125k/250k iterations x tempering off/on x 3 seeds, and
LR and WF at 50k with and without tempering (3 seeds), GROWTREE alpha 0.95, beta 1,
min_leaf 5, Dirichlet(1, ..., 1) leaves, `uc` proposal, 4 tempered chains with
delta T = 0.2, no burn-in (every tree is kept, as in the paper).

The paper uses no burn-in, and a chain's random stream does not depend on its length,
so the 50k and 125k runs of a seed are the first 50k and 125k iterations of its 250k
run (checked by `check_prefix`). One 250k chain is run per (dataset, tempering, seed)
and the shorter runs are read from prefixes of its trace.

    python benchmarks/paper002.py              # run the grid (resumable), then report
    python benchmarks/paper002.py --run-only   # just the grid
    python benchmarks/paper002.py --report     # just the report, from finished runs
    python benchmarks/paper002.py --quick      # seconds: tiny chains, bundled data only

Runs go to benchmarks/out/paper002/ (git-ignored); the report to
docs/results/paper002_tables.md and docs/results/figures/paper002_*.png (with --quick,
everything stays under the output directory).
"""
from __future__ import annotations

import argparse
import csv
import json
import os
import platform
import sys
import time
from datetime import datetime
from pathlib import Path

import numpy as np

ROOT = Path(__file__).resolve().parent.parent
sys.path.insert(0, str(Path(__file__).resolve().parent))
from _common import cpu_model  # noqa: E402
SHARED = ROOT.parent / "shared" / "data"
PRIOR = ROOT / "priors" / "growtree.slp"
SPLIT_SEED = 2005
SEEDS = (1, 2, 3)
TEMPERS = (1, 4)          # 1: no tempering; 4: four chains, heats 1/(1 + 0.2 (i-1))
DELTA_T = 0.2

# name -> source CSV, fraction held out, the class called 'positive' (paper, Table 1)
DATASETS = {
    "K": dict(src=ROOT / "examples/data/kyphosis.csv", holdout=0.2, positive="absent"),
    "BCW": dict(src=ROOT / "examples/data/bcw.csv", holdout=0.2, positive="benign"),
    "PIMA": dict(src=ROOT / "examples/data/pima.csv", holdout=0.2, positive="neg"),
    "LR": dict(src=ROOT / "examples/data/letter.csv", holdout=0.2, positive="A"),
    # the paper's "unfortunate error": 20% train, 80% hold-out
    "WF": dict(src=SHARED / "waveform.csv", holdout=0.8, positive="0"),
}

# the full grid: (dataset, longest chain, prefixes reported)
FULL = [("K", 250_000, (50_000, 125_000, 250_000)),
        ("BCW", 250_000, (50_000, 125_000, 250_000)),
        ("PIMA", 250_000, (50_000, 125_000, 250_000)),
        ("LR", 50_000, (50_000,)),
        ("WF", 50_000, (50_000,))]
# --quick: tiny chains (the same 1 : 2.5 : 5 ratio), bundled data and a synthetic
# waveform sample made by the generator (Breiman et al. 1984), no letter data
QUICK = [("K", 200, (40, 100, 200)),
         ("BCW", 200, (40, 100, 200)),
         ("PIMA", 200, (40, 100, 200)),
         ("WF", 40, (40,))]


# -- data -----------------------------------------------------------------------------

def waveform_rows(n: int, seed: int = 0) -> list[list[str]]:
    """Waveform version 2 (with noise): 21 signal + 19 noise attributes, 3 classes."""
    rng = np.random.default_rng(seed)
    i = np.arange(21)
    h = lambda c: np.maximum(6 - np.abs(i - c), 0)
    A, B, C = h(6), h(14), h(10)
    pairs = [(A, B), (A, C), (B, C)]
    rows = []
    for _ in range(n):
        cls = int(rng.integers(3))
        u = rng.random()
        P, Q = pairs[cls]
        x = u * P + (1 - u) * Q + rng.standard_normal(21)
        x = np.concatenate([x, rng.standard_normal(19)])
        rows.append([f"{v:.2f}" for v in x] + [str(cls)])
    return rows


def split_data(name: str, out: Path, quick: bool = False) -> tuple[Path, Path]:
    """Write out/splits/NAME_train.csv and NAME_test.csv (once): a fixed random split
    (not stratified) by numpy's default_rng(2005), the same rows as
    slpy.data.train_test_split(ds, holdout, 2005) would give."""
    d = DATASETS[name]
    sdir = out / "splits"
    tr, te = sdir / f"{name}_train.csv", sdir / f"{name}_test.csv"
    if tr.exists() and te.exists():
        return tr, te
    sdir.mkdir(parents=True, exist_ok=True)
    if name == "WF" and quick:
        header = [f"x{j}" for j in range(1, 41)] + ["class"]
        rows = waveform_rows(250, seed=SPLIT_SEED)
    else:
        with open(d["src"], newline="") as f:
            r = list(csv.reader(f))
        header, rows = r[0], r[1:]
    n = len(rows)
    n_test = int(round(d["holdout"] * n))
    test = np.zeros(n, dtype=bool)
    test[np.random.default_rng(SPLIT_SEED).permutation(n)[:n_test]] = True
    for path, keep in ((tr, ~test), (te, test)):
        with open(path, "w", newline="") as f:
            w = csv.writer(f, lineterminator="\n")
            w.writerow(header)
            w.writerows(row for row, k in zip(rows, keep) if k)
    return tr, te


# -- the grid -------------------------------------------------------------------------

def run_dir(out: Path, name: str, temper: int, seed: int) -> Path:
    return out / "runs" / f"{name}_t{'T' if temper > 1 else 'F'}_s{seed}"


def grid(plan):
    """(dataset, iterations, temper, seed) in running order: cheap datasets first,
    tempering off then on, seeds 1-3."""
    return [(name, n, t, s) for name, n, _ in plan for t in TEMPERS for s in SEEDS]


def run_one(out: Path, name: str, iterations: int, temper: int, seed: int,
            quick: bool = False, log=print) -> Path:
    from slpy.mcmc.run import run
    rd = run_dir(out, name, temper, seed)
    if (rd / "summary.json").exists():
        log(f"skip {rd.name} (done)")
        return rd
    tr, te = split_data(name, out, quick)
    cfg = dict(prior=str(PRIOR), data=str(tr), test=str(te), iterations=iterations,
               temper=temper, delta_t=DELTA_T, ladder="paper", swap="random", seed=seed,
               proposal="uc", burn_in=0,
               thin=1, params={"alpha": 0.95, "beta": 1, "min_leaf": 5})
    started = datetime.now().isoformat(timespec="seconds")
    load0 = os.getloadavg()
    w0, c0 = time.perf_counter(), time.process_time()
    summary = run(cfg, rd, quiet=True, force=True)   # an unfinished run starts again
    wall, cpu = time.perf_counter() - w0, time.process_time() - c0
    timing = dict(started=started, finished=datetime.now().isoformat(timespec="seconds"),
                  iterations=iterations, temper=temper, wall_seconds=round(wall, 2),
                  cpu_seconds=round(cpu, 2),
                  sec_per_1000_wall=round(1000 * wall / iterations, 3),
                  sec_per_1000_cpu=round(1000 * cpu / iterations, 3),
                  chain_seconds=summary["seconds"],
                  loadavg_start=load0, loadavg_end=os.getloadavg(),
                  machine=machine())
    # the run's own timing.json, with the benchmark's figures added
    timing = {**json.loads((rd / "timing.json").read_text()), **timing}
    (rd / "timing.json").write_text(json.dumps(timing, indent=2) + "\n")
    log(f"done {rd.name}: {iterations} it, wall {wall:.0f} s, cpu {cpu:.0f} s, "
        f"acc_max {summary.get('acc_max', float('nan')):.3f} "
        f"acc_prob {summary.get('acc_prob', float('nan')):.3f}")
    return rd


def machine() -> dict:
    return dict(processor=cpu_model(),
                python=platform.python_version(), system=platform.platform(),
                cpus=os.cpu_count())


def run_grid(out: Path, plan, quick: bool = False, only=None):
    out.mkdir(parents=True, exist_ok=True)
    t0 = time.perf_counter()
    for name, _, _ in plan:
        if not (name == "WF" and not quick and not DATASETS["WF"]["src"].exists()):
            split_data(name, out, quick)
    for name, n, t, s in grid(plan):
        if only and name not in only:
            continue
        if name == "WF" and not quick and not DATASETS["WF"]["src"].exists():
            print(f"skip WF: {DATASETS['WF']['src']} not found", flush=True)
            continue
        run_one(out, name, n, t, s, quick, log=lambda m: print(
            f"[{datetime.now():%H:%M:%S}] {m}", flush=True))
    print(f"grid finished in {time.perf_counter() - t0:.0f} s", flush=True)


def check_prefix(out: Path, n: int = 2000) -> bool:
    """A chain of n iterations is the first n iterations of a chain of 2n."""
    from slpy.mcmc.run import run
    tr, te = split_data("K", out)
    res = []
    for it in (n, 2 * n):
        rd = out / "prefix_check" / f"K_{it}"
        run(dict(prior=str(PRIOR), data=str(tr), test=str(te), iterations=it, temper=4,
                 ladder="paper", swap="random", proposal="uc", burn_in=0, seed=7), rd,
            quiet=True, force=True)
        res.append((rd / "chain_0" / "trace.csv").read_text().splitlines())
    same = res[0] == res[1][:n + 1]
    print(f"prefix check ({n} vs {2 * n} iterations, tempered): "
          f"{'identical' if same else 'DIFFERENT'}")
    return same


def main(argv=None):
    ap = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    ap.add_argument("--quick", action="store_true", help="tiny smoke-test grid")
    ap.add_argument("--out", type=Path, default=None, help="runs directory")
    ap.add_argument("--run-only", action="store_true")
    ap.add_argument("--report", action="store_true", help="only write the report")
    ap.add_argument("--only", default=None, help="comma-separated datasets to run")
    ap.add_argument("--check-prefix", action="store_true")
    a = ap.parse_args(argv)
    out = a.out or ROOT / "benchmarks" / "out" / ("paper002_quick" if a.quick
                                                   else "paper002")
    plan = QUICK if a.quick else FULL
    if a.check_prefix:
        return 0 if check_prefix(out) else 1
    if not a.report:
        run_grid(out, plan, a.quick, a.only.split(",") if a.only else None)
    if not a.run_only:
        report(out, plan, a.quick)
    return 0


# -- reading runs -----------------------------------------------------------------------

PAPER = {
    # Table 6: (acc_max mean, sd, acc_prob mean, sd) in %
    "table6": {
        # K: not in Table 6; section 7.3 says acc_max = 68.8% always, acc_prob 67.4-67.5%
        **{("K", n, t): (68.8, "0", "67.4-67.5", "~0") for n in (50_000, 125_000, 250_000)
           for t in (False, True)},
        ("BCW", 50_000, False): (96.1, 1.9, 93.2, 1.2), ("BCW", 50_000, True): (96.6, 0.9, 93.1, 0.4),
        ("BCW", 125_000, False): (95.1, 0.3, 92.9, 0.7), ("BCW", 125_000, True): (97.1, 1.2, 93.5, 0.5),
        ("BCW", 250_000, False): (96.1, 1.2, 92.8, 1.4), ("BCW", 250_000, True): (95.8, 0.3, 93.3, 0.1),
        ("PIMA", 50_000, False): (76.5, 2.3, 67.2, 0.7), ("PIMA", 50_000, True): (73.4, 1.7, 66.3, 0.4),
        ("PIMA", 125_000, False): (73.8, 2.4, 66.4, 1.0), ("PIMA", 125_000, True): (74.3, 1.9, 66.5, 0.8),
        ("PIMA", 250_000, False): (76.9, 3.2, 66.7, 0.5), ("PIMA", 250_000, True): (73.6, 1.6, 66.9, 0.3),
        ("LR", 50_000, False): (62.4, 3.6, 30.3, 1.1), ("LR", 50_000, True): (66.9, 0.1, 32.9, 0.5),
        ("WF", 50_000, False): (71.0, 3.7, 55.6, 1.2), ("WF", 50_000, True): (72.5, 2.9, 57.5, 0.8),
    },
    # Tables 2-5: the 5 most frequent trees, p-hat per seed
    "tables": {
        ("K", 250_000, True): ("Table 2", [(0.086416, 0.088524, 0.087404), (0.062296, 0.062904, 0.063624),
                                           (0.060360, 0.057648, 0.058220), (0.025808, 0.025200, 0.025764),
                                           (0.024512, 0.024404, 0.025700)]),
        ("PIMA", 250_000, True): ("Table 3", [(0, 0.008112, 0), (0.004612, 0, 0), (0, 0, 0.004048),
                                              (0, 0, 0.003600), (0, 0.003432, 0)]),
        ("BCW", 250_000, True): ("Table 4", [(0, 0, 0.088856), (0, 0, 0.070996), (0, 0.04732, 0),
                                             (0, 0, 0.04316), (0, 0.03998, 0)]),
        ("K", 50_000, False): ("Table 5", [(0.08326, 0.07898, 0.08338), (0.05900, 0.06154, 0.06170),
                                           (0.05574, 0.05664, 0.05610), (0.02466, 0.02724, 0.02790),
                                           (0.02564, 0.02674, 0.02504)]),
    },
    # seconds per 1000 iterations (section 7), untempered / tempered
    "timing": {"K": (1.8, 4.9), "BCW": (8.1, 17), "PIMA": (39, 129), "LR": (530, 2368),
               "WF": (291, 1151)},
    # rpart, default settings but minbucket = 5 (section 8), hold-out accuracy %
    "rpart": {"K": 75.0, "BCW": 95.5, "PIMA": 76.4, "LR": 46.1, "WF": 74.1},
    # Table 1: size, |x|, |Y|, Pos%(Tr), Pos%(HO)
    "table1": {"K": (81, 3, 2, 81.5, 68.8), "BCW": (683, 9, 2, 66.2, 60.3),
               "PIMA": (768, 8, 2, 65.4, 64.1), "LR": (20000, 16, 26, 3.85, 4.3),
               "WF": (5000, 40, 3, 35.6, 33.4)},
}


class Split_:
    """The train/test split of a dataset, as slpy loads it (test classes mapped by name)."""

    def __init__(self, out: Path, name: str):
        from slpy.data import RowSets, load_csv
        self.train = load_csv(out / "splits" / f"{name}_train.csv")
        self.rowsets = RowSets(self.train)
        test = load_csv(out / "splits" / f"{name}_test.csv")
        m = {c: self.train.classes.index(c) for c in test.classes}
        self.X_test = test.X
        self.y_test = np.array([m[test.classes[c]] for c in test.y])
        self.pos = self.train.classes.index(DATASETS[name]["positive"])


class Run:
    """One finished run directory, read back for prefixes of its chain."""

    def __init__(self, path: Path):
        import pandas as pd
        self.path = path
        self.config = json.loads((path / "config.json").read_text())
        self.summary = json.loads((path / "summary.json").read_text())
        t = path / "timing.json"
        self.timing = json.loads(t.read_text()) if t.exists() else None
        tr = pd.read_csv(path / "chain_0" / "trace.csv",
                         usecols=["model", "log_lik", "leaves", "depth"])
        self.ids = tr["model"].to_numpy(np.int64)
        self.log_lik = tr["log_lik"].to_numpy(float)
        self.leaves = tr["leaves"].to_numpy(np.int64)
        self.depth = tr["depth"].to_numpy(np.int64)
        m = pd.read_csv(path / "chain_0" / "models.csv", usecols=["id", "model"],
                        keep_default_na=False)
        self.models = dict(zip(m["id"].to_numpy(np.int64), m["model"]))

    def tree_probs(self, n: int) -> dict:
        """canonical model -> estimated posterior probability over the first n."""
        c = np.bincount(self.ids[:n])
        nz = np.nonzero(c)[0]
        return {self.models[i]: c[i] / n for i in nz}

    def predictions(self, split: Split_, prefixes) -> dict:
        """n -> test class probabilities averaged over the first n kept trees (cached)."""
        cache = self.path / "paper002_pred.npz"
        prefixes = sorted(set(int(n) for n in prefixes))
        if cache.exists():
            z = np.load(cache)
            if all(f"n{n}" in z for n in prefixes):
                return {n: z[f"n{n}"] for n in prefixes}
        from slpy.trees.model import Tree
        counts = np.stack([np.bincount(self.ids[:n], minlength=len(self.models))
                           for n in prefixes])
        acc = np.zeros((len(prefixes), len(split.X_test), split.train.n_classes))
        for i in np.nonzero(counts[-1])[0]:
            p = Tree.from_canonical(self.models[i], split.rowsets,
                                    split.train).predict_proba(split.X_test)
            acc += counts[:, i, None, None] * p
        res = {n: acc[k] / n for k, n in enumerate(prefixes)}
        np.savez_compressed(cache, **{f"n{n}": v for n, v in res.items()})
        return res


def accuracies(probs, y):
    from slpy.runs import accuracy_figures
    return accuracy_figures(probs, y)


def rhat_fn():
    try:
        from slpy.diagnostics import rhat
        return rhat, "slpy.diagnostics.rhat"
    except ImportError:
        import arviz as az
        return (lambda x: float(az.rhat(np.asarray(x)))), "arviz.rhat (rank-normalised split R-hat)"


# -- the report ------------------------------------------------------------------------

def pct(x, d=1):
    return "—" if x is None or (isinstance(x, float) and np.isnan(x)) else f"{100 * x:.{d}f}"


def kfmt(n):
    return f"{n // 1000}k" if n >= 1000 and n % 1000 == 0 else str(n)


def collect(out: Path, plan):
    """Everything the tables and figures need, for the runs that have finished."""
    data = {}
    for name, nmax, prefixes in plan:
        runs = {}
        for t in TEMPERS:
            for s in SEEDS:
                rd = run_dir(out, name, t, s)
                if (rd / "summary.json").exists():
                    runs[(t > 1, s)] = Run(rd)
        if not runs:
            continue
        split = Split_(out, name)
        preds = {k: r.predictions(split, prefixes) for k, r in runs.items()}
        data[name] = dict(runs=runs, split=split, preds=preds, prefixes=prefixes,
                          nmax=nmax)
    return data


def greedy_baseline(split: Split_):
    from slpy.logic.program import Program
    from slpy.trees.greedy import greedy_tree
    from slpy.trees.model import Tree
    from sklearn.tree import DecisionTreeClassifier
    p = Program()
    p.consult(str(PRIOR))
    p.attach_data(split.train)
    rowsets = p.rowsets
    term = greedy_tree(rowsets, split.train, min_leaf=5)
    tree = Tree.from_term(term, rowsets, split.train)
    ours = float((tree.predict_proba(split.X_test).argmax(1) == split.y_test).mean())
    sk = DecisionTreeClassifier(min_samples_leaf=5, random_state=0).fit(split.train.X,
                                                                        split.train.y)
    skacc = float((sk.predict(split.X_test) == split.y_test).mean())
    return ours, tree.n_leaves, skacc, sk.get_n_leaves()


def report(out: Path, plan, quick: bool = False, md_path: Path | None = None,
           fig_dir: Path | None = None) -> Path:
    import warnings
    t0 = time.perf_counter()
    if md_path is None:
        md_path = out / "paper002.md" if quick else ROOT / "docs" / "results" / "paper002.md"
    if fig_dir is None:
        fig_dir = out / "figures" if quick else ROOT / "docs" / "results" / "figures"
    fig_dir.mkdir(parents=True, exist_ok=True)
    data = collect(out, plan)
    splits = {name: (data[name]["split"] if name in data else Split_(out, name))
              for name, _, _ in plan if (out / "splits" / f"{name}_test.csv").exists()}
    rhat, rhat_name = rhat_fn()
    L = []
    cmd = "python benchmarks/paper002.py" + (" --quick" if quick else "")
    done = sum(len(d["runs"]) for d in data.values())
    total = len(grid(plan))
    mach = machine()
    L.append(f"Generated by `{cmd} --report` on {datetime.now():%Y-%m-%d %H:%M} "
             f"from {done} of {total} runs in `{out.relative_to(ROOT) if out.is_relative_to(ROOT) else out}`. "
             f"Machine: {mach['processor']}, {mach['cpus']} cores shared with other jobs, "
             f"{mach['system']}, Python {mach['python']}; slpy "
             f"{_slpy_version()}.")
    tms = [r.timing for d in data.values() for r in d["runs"].values() if r.timing]
    if tms:
        L.append("")
        L.append(f"The finished runs took {sum(t['wall_seconds'] for t in tms) / 3600:.2f} h "
                 f"wall-clock and {sum(t['cpu_seconds'] for t in tms) / 3600:.2f} h CPU in "
                 f"total, summed over runs (first started {min(t['started'] for t in tms)}, "
                 f"last finished {max(t['finished'] for t in tms)}; runs that shared the "
                 f"machine's 2 cores with other jobs or with each other took more wall-clock "
                 f"than CPU time).")
    if done < total:
        missing = [run_dir(out, n, t, s).name for n, _, t, s in grid(plan)
                   if not (run_dir(out, n, t, s) / "summary.json").exists()]
        L.append("")
        L.append(f"**Runs not finished when this was generated ({len(missing)}):** "
                 + ", ".join(missing) + ". Their cells show —.")
    L.append("")

    # Table 1 ------------------------------------------------------------------------
    L.append("### Datasets and split (paper Table 1)")
    L.append("")
    L.append("| data | size | \\|x\\| | \\|Y\\| | train / hold-out rows | positive | "
             "Pos% (Tr) paper / ours | Pos% (HO) paper / ours |")
    L.append("|---|---|---|---|---|---|---|---|")
    for name, _, _ in plan:
        if name not in splits:
            continue
        sp = splits[name]
        pp = PAPER["table1"][name]
        ptr = (sp.train.y == sp.pos).mean()
        pte = (sp.y_test == sp.pos).mean()
        n = sp.train.n_rows + len(sp.y_test)
        L.append(f"| {name} | {n} | {sp.train.n_features} | {sp.train.n_classes} | "
                 f"{sp.train.n_rows} / {len(sp.y_test)} | {DATASETS[name]['positive']} | "
                 f"{pp[3]} / {pct(ptr)} | {pp[4]} / {pct(pte)} |")
    L.append("")

    # Table 6 ------------------------------------------------------------------------
    L.append("### Hold-out accuracy across 3 seeds (paper Table 6)")
    L.append("")
    L.append("Mean and standard deviation (n-1 denominator) over seeds 1-3 of acc_max "
             "(most probable class) and acc_prob (mean posterior probability of the true "
             "class), in %. Paper / ours. The 50k and 125k rows are the first 50k and "
             "125k iterations of each seed's 250k chain.")
    L.append("")
    L.append("| data | iter | t | acc_max paper | acc_max ours | sd paper | sd ours | "
             "acc_prob paper | acc_prob ours | sd paper | sd ours | seeds |")
    L.append("|---|---|---|---|---|---|---|---|---|---|---|---|")
    acc_table = {}
    for name, _, prefixes in plan:
        if name not in data:
            continue
        d = data[name]
        for n in prefixes:
            for temp in (False, True):
                am, ap = [], []
                for s in SEEDS:
                    if (temp, s) in d["preds"]:
                        a = accuracies(d["preds"][(temp, s)][n], d["split"].y_test)
                        am.append(a["acc_max"])
                        ap.append(a["acc_prob"])
                acc_table[(name, n, temp)] = (am, ap)
                pp = PAPER["table6"].get((name, n, temp)) if not quick else None
                sd = (lambda v: float(np.std(v, ddof=1)) if len(v) > 1 else None)
                mn = (lambda v: float(np.mean(v)) if v else None)
                L.append(f"| {name} | {kfmt(n)} | {'T' if temp else 'F'} | "
                         f"{pp[0] if pp else '—'} | {pct(mn(am))} | {pp[1] if pp else '—'} | "
                         f"{pct(sd(am))} | {pp[2] if pp else '—'} | {pct(mn(ap))} | "
                         f"{pp[3] if pp else '—'} | {pct(sd(ap))} | {len(am)} |")
    L.append("")
    L.append("Per-seed values (acc_max / acc_prob, %):")
    L.append("")
    L.append("| data | iter | t | seed 1 | seed 2 | seed 3 |")
    L.append("|---|---|---|---|---|---|")
    for (name, n, temp), (am, ap) in acc_table.items():
        cells = []
        d = data[name]
        k = 0
        for s in SEEDS:
            if (temp, s) in d["preds"]:
                cells.append(f"{pct(am[k])} / {pct(ap[k])}")
                k += 1
            else:
                cells.append("—")
        L.append(f"| {name} | {kfmt(n)} | {'T' if temp else 'F'} | " + " | ".join(cells) + " |")
    L.append("")

    # Tables 2-5 ---------------------------------------------------------------------
    L.append("### Estimated probabilities of the 5 most visited trees (paper Tables 2-5)")
    L.append("")
    L.append("Trees are matched across seeds by slpy's canonical model string; the 5 rows "
             "are the trees with the highest probability averaged over the 3 seeds (the "
             "paper does not say how it picked its rows; its Tables 3-4 show trees visited "
             "by one seed only). The tables the paper does not have (BCW and PIMA "
             "without tempering, K 250k without tempering, LR and WF) are added for "
             "comparison.")
    L.append("")
    wanted = []
    for name, nmax, prefixes in plan:
        if quick:
            wanted += [(name, nmax, True), (name, prefixes[0], False)]
        elif name == "K":
            wanted += [(name, nmax, True), (name, prefixes[0], False), (name, nmax, False)]
        else:
            wanted += [(name, nmax, True), (name, nmax, False)]
    seen = set()
    for name, n, temp in wanted:
        if (name, n, temp) in seen or name not in data:
            continue
        seen.add((name, n, temp))
        d = data[name]
        label = PAPER["tables"].get((name, n, temp), (None, None))[0] if not quick else None
        L.append(f"**{name}, {kfmt(n)} iterations, tempering={'TRUE' if temp else 'FALSE'}**"
                 + (f" (paper {label})" if label else ""))
        L.append("")
        probs = {s: d["runs"][(temp, s)].tree_probs(n) for s in SEEDS if (temp, s) in d["runs"]}
        if not probs:
            L.append("(no finished runs)")
            L.append("")
            continue
        keys = set().union(*[set(p) for p in probs.values()])
        mean = {k: sum(p.get(k, 0.0) for p in probs.values()) / len(SEEDS) for k in keys}
        top = sorted(keys, key=lambda k: (-mean[k], k))[:5]
        paper_rows = PAPER["tables"].get((name, n, temp), (None, None))[1] if not quick else None
        hdr = "| tree | " + " | ".join(f"p̂ seed{s}" for s in SEEDS)
        hdr += " | paper p̂ seed1, seed2, seed3 |" if paper_rows else " |"
        L.append(hdr + " leaves | model |")
        L.append("|---" * (len(SEEDS) + (3 if paper_rows else 2)) + "|---|")
        for i, k in enumerate(top):
            cells = [f"{probs[s].get(k, 0.0):.6f}" if s in probs else "—" for s in SEEDS]
            pr = ""
            if paper_rows:
                pr = " | " + ", ".join(f"{v:g}" for v in paper_rows[i])
            leaves = k.count("leaf")
            short = k if len(k) <= 90 else k[:87] + "..."
            L.append(f"| T{i + 1} | " + " | ".join(cells) + pr + f" | {leaves} | `{short}` |")
        L.append("")

    # agreement ------------------------------------------------------------------------
    L.append("### Cross-seed agreement")
    L.append("")
    L.append(f"Over the 3 seed pairs: mean and max |p̂_i - p̂_j| of the hold-out "
             f"class=positive probabilities (the quantity of paper Figs 1-9), the total "
             f"variation distance between the seeds' tree distributions "
             f"(½ Σ_T |p̂_i(T) - p̂_j(T)|; 0 = identical, 1 = disjoint), the mean number of "
             f"distinct trees visited, the mean and sd over seeds of the mean log "
             f"marginal likelihood of the visited trees, and R-hat of the log marginal "
             f"likelihood trace across the 3 seeds ({rhat_name}; about 1.00 means the "
             f"seeds agree, above 1.1 means they do not).")
    L.append("")
    L.append("| data | iter | t | mean \\|Δp\\| | max \\|Δp\\| | TV(trees) | distinct trees | "
             "mean log-lik (sd) | best log-lik | R-hat log-lik |")
    L.append("|---|---|---|---|---|---|---|---|---|---|")
    agree = {}
    for name, _, prefixes in plan:
        if name not in data:
            continue
        d = data[name]
        for n in prefixes:
            for temp in (False, True):
                ss = [s for s in SEEDS if (temp, s) in d["runs"]]
                if len(ss) < 2:
                    L.append(f"| {name} | {kfmt(n)} | {'T' if temp else 'F'} | — | — | — | — "
                             f"| — | — | — |")
                    continue
                pos = d["split"].pos
                pp = {s: d["preds"][(temp, s)][n][:, pos] for s in ss}
                tp = {s: d["runs"][(temp, s)].tree_probs(n) for s in ss}
                diffs, tvs = [], []
                for a_ in range(len(ss)):
                    for b_ in range(a_ + 1, len(ss)):
                        i, j = ss[a_], ss[b_]
                        diffs.append(np.abs(pp[i] - pp[j]))
                        ks = set(tp[i]) | set(tp[j])
                        tvs.append(0.5 * sum(abs(tp[i].get(k, 0) - tp[j].get(k, 0)) for k in ks))
                diffs = np.concatenate(diffs)
                lls = np.stack([d["runs"][(temp, s)].log_lik[:n] for s in ss])
                with warnings.catch_warnings():
                    warnings.simplefilter("ignore")
                    r = rhat(lls)
                means = lls.mean(axis=1)
                best = max(float(d["runs"][(temp, s)].log_lik[:n].max()) for s in ss)
                agree[(name, n, temp)] = dict(mean=float(diffs.mean()), max=float(diffs.max()),
                                              tv=float(np.mean(tvs)), rhat=float(r))
                L.append(f"| {name} | {kfmt(n)} | {'T' if temp else 'F'} | {diffs.mean():.4f} | "
                         f"{diffs.max():.4f} | {np.mean(tvs):.3f} | "
                         f"{np.mean([len(tp[s]) for s in ss]):.0f} | {means.mean():.1f} "
                         f"({means.std(ddof=1):.1f}) | {best:.2f} | {r:.3f} |")
    L.append("")

    # timing -------------------------------------------------------------------------
    L.append("### Time per 1,000 iterations")
    L.append("")
    L.append("Seconds per 1,000 iterations of the longest chain, mean over the finished "
             "seeds: wall-clock (the machine was shared with other jobs, so this is "
             "inflated) and CPU time of the process (time.process_time). Paper: the "
             "authors' Prolog system in 2005.")
    L.append("")
    L.append("| data | chain | paper, no tempering | ours wall | ours CPU | paper, tempering | "
             "ours wall | ours CPU |")
    L.append("|---|---|---|---|---|---|---|---|")
    for name, nmax, _ in plan:
        d = data.get(name, {"runs": {}})
        cells = []
        for temp in (False, True):
            tm = [d["runs"][(temp, s)].timing for s in SEEDS if (temp, s) in d["runs"]]
            tm = [t for t in tm if t]
            pp = PAPER["timing"][name][int(temp)] if not quick else "—"
            if tm:
                cells += [str(pp), f"{np.mean([t['sec_per_1000_wall'] for t in tm]):.2f}",
                          f"{np.mean([t['sec_per_1000_cpu'] for t in tm]):.2f}"]
            else:
                cells += [str(pp), "—", "—"]
        L.append(f"| {name} | {kfmt(nmax)} | " + " | ".join(cells) + " |")
    L.append("")

    # greedy -------------------------------------------------------------------------
    L.append("### Greedy baseline (paper section 8)")
    L.append("")
    L.append("Hold-out accuracy (%) of one greedy tree on the same split: the paper's "
             "rpart (defaults, minbucket = 5), slpy's greedy CART (`slpy.trees.greedy`: "
             "Gini, min_leaf 5, cp 0.01 like rpart, no pruning by cross-validation) and "
             "scikit-learn's DecisionTreeClassifier(min_samples_leaf=5, random_state=0) "
             "(unpruned). Beside them, our longest tempered MCMC runs (mean acc_max over "
             "seeds).")
    L.append("")
    L.append("| data | rpart (paper) | slpy greedy (leaves) | sklearn (leaves) | "
             "MCMC acc_max, longest, tempered |")
    L.append("|---|---|---|---|---|")
    for name, nmax, _ in plan:
        if name not in splits:
            continue
        g, gl, sk, skl = greedy_baseline(splits[name])
        am = acc_table.get((name, nmax, True), ([], []))[0]
        L.append(f"| {name} | {PAPER['rpart'][name] if not quick else '—'} | {pct(g)} ({gl}) | "
                 f"{pct(sk)} ({skl}) | {pct(float(np.mean(am))) if am else '—'} |")
    L.append("")

    # figures ------------------------------------------------------------------------
    figs = make_figures(data, fig_dir, agree)
    L.append("### Figures")
    L.append("")
    rel = os.path.relpath(fig_dir, md_path.parent)
    for f, caption in figs:
        L.append(f"![{caption}]({rel}/{f.name})")
        L.append("")
        L.append(f"*{caption}*")
        L.append("")
    L.append(f"(report written in {time.perf_counter() - t0:.0f} s)")
    write_between_markers(md_path, "\n".join(L))
    print(f"wrote {md_path} and {len(figs)} figures in {fig_dir}")
    return md_path


def _slpy_version():
    try:
        import slpy
        return slpy.__version__
    except Exception:
        return "?"


BEGIN = "<!-- paper002 report: begin (generated by benchmarks/paper002.py --report) -->"
END = "<!-- paper002 report: end -->"


def write_between_markers(path: Path, body: str):
    """Replace the generated part of `path`, keeping the hand-written text around it."""
    path.parent.mkdir(parents=True, exist_ok=True)
    text = path.read_text() if path.exists() else ""
    block = f"{BEGIN}\n\n{body}\n\n{END}"
    if BEGIN in text and END in text:
        head, rest = text.split(BEGIN, 1)
        tail = rest.split(END, 1)[1]
        text = head + block + tail
    else:
        text = (text.rstrip("\n") + "\n\n" if text else "# Paper 002\n\n") + block + "\n"
    path.write_text(text)


def make_figures(data, fig_dir: Path, agree):
    import matplotlib
    matplotlib.use("Agg")
    import matplotlib.pyplot as plt
    plt.rcParams.update({"font.size": 11, "axes.titlesize": 11})
    figs = []
    colors = {1: "tab:blue", 2: "tab:orange", 3: "tab:green"}
    for name, d in data.items():
        # scatter: seed 2 and seed 3 against seed 1, as paper Figs 1-9
        configs = [(n, t) for t in (False, True) for n in d["prefixes"]]
        nrow, ncol = (2, len(d["prefixes"])) if len(d["prefixes"]) > 1 else (1, 2)
        fig, axes = plt.subplots(nrow, ncol, figsize=(3.7 * ncol + 0.6, 3.9 * nrow + 1.2),
                                 squeeze=False, layout="constrained")
        pos = d["split"].pos
        for ax, (n, temp) in zip(axes.ravel(), configs):
            ax.plot([0, 1], [0, 1], color="0.6", lw=0.8, zorder=0)
            base = d["preds"].get((temp, 1))
            if base is not None:
                for s, mk in ((2, "o"), (3, "^")):
                    if (temp, s) in d["preds"]:
                        ax.scatter(base[n][:, pos], d["preds"][(temp, s)][n][:, pos], s=14,
                                   marker=mk, alpha=0.6, color=colors[s],
                                   label=f"seed {s}", linewidths=0)
            if base is None or not any((temp, s) in d["preds"] for s in (2, 3)):
                ax.text(0.5, 0.5, "runs not finished", ha="center", va="center",
                        color="0.4")
            a = agree.get((name, n, temp))
            sub = f"\nmean |Δp| {a['mean']:.3f}, R-hat {a['rhat']:.2f}" if a else ""
            ax.set_title(f"{name}, {kfmt(n)}, tempering {'T' if temp else 'F'}{sub}")
            ax.set_xlim(-0.02, 1.02)
            ax.set_ylim(-0.02, 1.02)
            ax.set_aspect("equal")
            ax.set_xlabel(f"p({DATASETS[name]['positive']}), seed 1")
            ax.set_ylabel(f"p({DATASETS[name]['positive']}), seed 2 / 3")
        fig.suptitle(f"{name}: posterior probability of class {DATASETS[name]['positive']!r}"
                     f" per hold-out row,\nseed 2 and seed 3 against seed 1", fontsize=12)
        handles = [plt.Line2D([], [], ls="", marker=mk, color=colors[s], label=f"seed {s}")
                   for s, mk in ((2, "o"), (3, "^"))]
        fig.legend(handles=handles, loc="outside lower center", ncol=2, frameon=False)
        f = fig_dir / f"paper002_scatter_{name}.png"
        fig.savefig(f, dpi=110)
        plt.close(fig)
        figs.append((f, f"{name}: seed-vs-seed class=positive probabilities on the "
                        f"hold-out set (paper Figs 1-9); rows: tempering off / on"))
        # trajectories of the longest chains
        fig, axes = plt.subplots(3, 2, figsize=(12, 8.5), sharex=True, sharey="row",
                                 squeeze=False)
        for c, temp in enumerate((False, True)):
            for s in SEEDS:
                r = d["runs"].get((temp, s))
                if r is None:
                    continue
                n = len(r.log_lik)
                step = max(1, n // 4000)
                x = np.arange(0, n, step)
                for k, (ys, lab) in enumerate(((r.log_lik, "log marginal likelihood"),
                                               (r.leaves, "leaves"), (r.depth, "depth"))):
                    axes[k, c].plot(x, ys[::step], lw=0.5, color=colors[s], alpha=0.3)
                    w = max(1, n // 100)      # running mean over 1% of the chain
                    rm = np.convolve(ys.astype(float), np.ones(w) / w, mode="valid")
                    axes[k, c].plot(np.arange(w - 1, n)[::step], rm[::step], lw=1.4,
                                    color=colors[s], label=f"seed {s}")
                    axes[k, 0].set_ylabel(lab)
            axes[0, c].set_title(f"{name}, tempering {'on (cold chain)' if temp else 'off'}")
            if not any((temp, s) in d["runs"] for s in SEEDS):
                axes[0, c].text(0.5, 0.5, "runs not finished", ha="center", va="center",
                                color="0.4", transform=axes[0, c].transAxes)
            axes[2, c].set_xlabel("iteration")
            if axes[0, c].get_lines():
                axes[0, c].legend(loc="lower right", fontsize=9)
        lls = [r.log_lik for r in d["runs"].values()]
        allv = np.concatenate([v[len(v) // 100:] for v in lls])
        lo, hi = np.percentile(allv, 0.5), allv.max()
        axes[0, 0].set_ylim(lo - 0.05 * (hi - lo), hi + 0.05 * (hi - lo))
        fig.tight_layout()
        f = fig_dir / f"paper002_trace_{name}.png"
        fig.savefig(f, dpi=100)
        plt.close(fig)
        figs.append((f, f"{name}: trajectories of the {kfmt(d['nmax'])}-iteration chains "
                        f"(faint: the trace, at most 4,000 points per seed; solid: running "
                        f"mean over 1% of the chain): log marginal likelihood (y-axis cut at "
                        f"the 0.5th percentile after the first 1% of iterations), leaves, "
                        f"depth"))
    return figs


if __name__ == "__main__":
    sys.exit(main())
