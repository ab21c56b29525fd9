"""Timings of the data and likelihood kernels. A script, not a test: prints its figures.

    python benchmarks/kernels.py

(a) Dirichlet log-likelihood of a 10-leaf tree on letter.csv (20,000 rows, 26
    classes) from scratch, no cache: median of 200 runs (target < 200 us).
(b) A fresh process imports the kernels and scores one tree: wall time from
    process start to the first score, numba cache hit (target < 2 s).
(c) valid_splits of the BCW root: first call on a new table, then a cached call.
"""
from __future__ import annotations

import statistics
import subprocess
import sys
import time
from pathlib import Path

import numpy as np

if __name__ == "__main__" and not __package__:  # python benchmarks/kernels.py
    sys.path.insert(0, str(Path(__file__).resolve().parents[1]))

from benchmarks.lib.env import BUNDLED as DATA, ROOT, SHARED_DATA  # noqa: E402
from slpy.data import RowSets, load_csv  # noqa: E402
from slpy.trees import tree_log_likelihood  # noqa: E402

CHILD = r"""
import time
t0 = time.perf_counter()
import numpy as np
from slpy.trees.likelihood import tree_log_likelihood
y = np.arange(1000, dtype=np.int32) % 3
leaves = [np.arange(0, 400, dtype=np.int32), np.arange(400, 1000, dtype=np.int32)]
v = tree_log_likelihood(y, leaves)
print(time.perf_counter() - t0, v)
"""


def ten_leaf_tree(rs: RowSets, rng) -> list[int]:
    """Leaves of a random 10-leaf tree, splitting the largest leaf each time."""
    leaves = [rs.root()]
    while len(leaves) < 10:
        i = max(range(len(leaves)), key=lambda j: rs.size(leaves[j]))
        vs = rs.valid_splits(leaves[i], 5)
        _, _, left, right = vs[int(rng.integers(len(vs)))]
        leaves[i:i + 1] = [left, right]
    return leaves


def bench_letter(runs: int = 200) -> None:
    ds = load_csv(DATA / "letter.csv")
    rs = RowSets(ds)
    leaf_rows = [rs.rows(r) for r in ten_leaf_tree(rs, np.random.default_rng(0))]
    tree_log_likelihood(ds.y, leaf_rows)   # compile / load from the cache
    times = []
    for _ in range(runs):
        t = time.perf_counter()
        tree_log_likelihood(ds.y, leaf_rows)
        times.append(time.perf_counter() - t)
    med = statistics.median(times) * 1e6
    print(f"(a) letter 10-leaf tree log-likelihood from scratch: {med:.1f} us median "
          f"of {runs} (target < 200 us)")


def bench_start() -> None:
    # First run warms the numba cache in case this checkout never compiled.
    subprocess.run([sys.executable, "-c", CHILD], cwd=ROOT, check=True,
                   capture_output=True)
    t = time.perf_counter()
    out = subprocess.run([sys.executable, "-c", CHILD], cwd=ROOT, check=True,
                         capture_output=True, text=True).stdout
    wall = time.perf_counter() - t
    inner = float(out.split()[0])
    print(f"(b) fresh process to first score (numba cache hit): {wall:.3f} s wall, "
          f"{inner:.3f} s after interpreter start (target < 2 s)")


def _first_calls(ds, repeats: int) -> tuple[float, float, int]:
    """Median first-call time of valid_splits(root) without and with reading every item."""
    RowSets(ds).valid_splits(0, 1)          # load the kernels once
    scan, full = [], []
    for _ in range(repeats):
        rs = RowSets(ds)
        t = time.perf_counter()
        vs = rs.valid_splits(rs.root(), 1)
        scan.append(time.perf_counter() - t)
        rs = RowSets(ds)
        t = time.perf_counter()
        list(rs.valid_splits(rs.root(), 1))
        full.append(time.perf_counter() - t)
    return statistics.median(scan), statistics.median(full), len(vs)


def bench_bcw_splits(repeats: int = 20) -> None:
    ds = load_csv(DATA / "bcw.csv")
    scan, full, m = _first_calls(ds, repeats)
    rs = RowSets(ds)
    list(rs.valid_splits(0, 1))
    n = 100_000
    t = time.perf_counter()
    for _ in range(n):
        rs.valid_splits(0, 1)
    cached = (time.perf_counter() - t) / n
    print(f"(c) BCW root valid_splits ({m} splits), first call on a new table: "
          f"{scan * 1e6:.1f} us; with every child interned: {full * 1e6:.1f} us")
    print(f"(c) BCW root valid_splits, cached call: {cached * 1e9:.0f} ns")
    wave = SHARED_DATA / "waveform.csv"
    if wave.exists():                       # continuous features: many splits
        scan, full, m = _first_calls(load_csv(wave), 5)
        print(f"(c') waveform root valid_splits ({m} splits), first call: "
              f"{scan * 1e3:.2f} ms; with every child interned: {full * 1e3:.2f} ms")


if __name__ == "__main__":
    bench_letter()
    bench_start()
    bench_bcw_splits()
