"""Data sets the benchmarks make: CSV files slpy reads (from a data set or random
rows), and the hidden-XOR data."""
from __future__ import annotations

import csv
from pathlib import Path

import numpy as np


def _cell(v) -> str:
    return str(int(v)) if float(v).is_integer() else repr(float(v))


def write_csv(path: Path, names, X, labels) -> None:
    """A data set as slpy reads it: a header of feature names and `class`, whole
    numbers without a decimal point."""
    path = Path(path)
    path.parent.mkdir(parents=True, exist_ok=True)
    with open(path, "w", newline="") as f:
        w = csv.writer(f, lineterminator="\n")
        w.writerow(list(names) + ["class"])
        for row, lab in zip(X, labels):
            w.writerow([_cell(v) for v in row] + [lab])


def write_dataset(ds, path: Path) -> None:
    """An slpy Dataset as a CSV file (class labels by name)."""
    write_csv(path, ds.feature_names, ds.X, [ds.classes[y] for y in ds.y])


def write_random_rows(path: Path, n: int, seed: int = 20261125) -> None:
    """A CSV of n random rows (benchmarks/csv_load.py): 8 predictors with 3 decimals,
    4 integer ones in 0..99, a class among a, b, c."""
    import pandas as pd
    rng = np.random.default_rng(seed)
    frame = pd.DataFrame({f"x{j}": np.round(rng.normal(0, 10, n), 3) for j in range(8)})
    for j in range(8, 12):
        frame[f"x{j}"] = rng.integers(0, 100, n)
    frame["class"] = rng.choice(["a", "b", "c"], n)
    frame.to_csv(path, index=False)


def hidden_xor(n: int, seed: int, source: str | None = None):
    """Paper 004's hidden XOR: 20 binary features, each 1 with probability 1/2; the
    label is x1 xor x2 xor x3 xor x4."""
    from slpy.data.dataset import Dataset
    rng = np.random.default_rng(seed)
    X = rng.integers(0, 2, (n, 20)).astype(float)
    y = (X[:, :4].sum(axis=1) % 2).astype(np.int32)
    kw = {} if source is None else {"source": source}
    return Dataset(X, y, [f"x{j}" for j in range(1, 21)], ["0", "1"], **kw)


def growtree_model(name: str):
    """The GROWTREE posterior on a bundled data set as the engine samples it: a
    slpy.mcmc.model.PosteriorModel of priors/growtree.slp with the Dirichlet likelihood."""
    from slpy import Program
    from slpy.data import load_csv
    from slpy.mcmc.model import PosteriorModel
    from slpy.trees import make_likelihood
    from slpy.trees.family import TreeScorer
    from .env import BUNDLED, PRIORS
    ds = load_csv(BUNDLED / f"{name}.csv")
    p = Program()
    p.consult(PRIORS / "growtree.slp")
    p.attach_data(ds)
    return PosteriorModel(p, "cart(T)", TreeScorer(p, make_likelihood("dirichlet", ds)))
