"""Paper 002's settings and data: the grid of runs, the data sets with their fixed
train / hold-out splits, and where each run's directory is."""
from __future__ import annotations

import csv
from pathlib import Path

import numpy as np

from benchmarks.lib.env import BUNDLED, PRIORS, SHARED_DATA as SHARED

PRIOR = PRIORS / "growtree.slp"
SPLIT_SEED = 2005
SEEDS = (1, 2, 3)
TEMPERS = (1, 4)          # 1: no tempering; 4: four chains, heats 1/(1 + 0.2 (i-1))
DELTA_T = 0.2

# name -> source CSV, fraction held out, the class called 'positive' (paper, Table 1)
DATASETS = {
    "K": dict(src=BUNDLED / "kyphosis.csv", holdout=0.2, positive="absent"),
    "BCW": dict(src=BUNDLED / "bcw.csv", holdout=0.2, positive="benign"),
    "PIMA": dict(src=BUNDLED / "pima.csv", holdout=0.2, positive="neg"),
    "LR": dict(src=BUNDLED / "letter.csv", holdout=0.2, positive="A"),
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

def kfmt(n: int) -> str:
    """An iteration count as the paper writes it: 50k."""
    return f"{n // 1000}k" if n >= 1000 and n % 1000 == 0 else str(n)


def run_dir(out: Path, name: str, temper: int, seed: int) -> Path:
    return out / "runs" / f"{name}_t{'T' if temper > 1 else 'F'}_s{seed}"


def grid(plan):
    """(dataset, iterations, temper, seed) in running order: cheap datasets first,
    tempering off then on, seeds 1-3."""
    return [(name, n, t, s) for name, n, _ in plan for t in TEMPERS for s in SEEDS]

