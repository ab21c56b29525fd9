"""Time to load a CSV file into a Dataset: the csv-module reader slpy had before pandas
(taken from git history, run unchanged) against today's load_csv, in one run.

    python benchmarks/csv_load.py [--repeat R] [--rows N]

Loads ../shared/data/letter.csv (20,000 rows, 16 integer predictors) and a CSV of N
rows (default 200,000) that the script writes into a temporary directory with a fixed
seed (8 predictors with 3 decimals, 4 integer ones, 3 classes), R times each reader,
alternating, and prints the median seconds and the ratio old / new; for scale, also
pandas.read_csv alone (what the new reader spends its time in) and, when pyarrow is
installed, pyarrow.csv.read_csv (the other parser considered). The old reader is
slpy/data/dataset.py at commit OLD (needs the repository's git history).
"""
from __future__ import annotations

import statistics
import subprocess
import sys
import tempfile
import time
import types
from pathlib import Path

import numpy as np

if __name__ == "__main__" and not __package__:  # python benchmarks/csv_load.py
    sys.path.insert(0, str(Path(__file__).resolve().parents[1]))

from benchmarks.lib.cli import add_repeat, parser  # noqa: E402
from benchmarks.lib.data import write_random_rows  # noqa: E402
from benchmarks.lib.env import ROOT, SHARED_DATA  # noqa: E402
from slpy.data import load_csv  # noqa: E402

LETTER = SHARED_DATA / "letter.csv"
OLD = "63e2e8f"      # the last commit whose load_csv read with the csv module


def old_reader():
    """load_csv of slpy/data/dataset.py at commit OLD, as a module of the slpy.data
    package (its relative imports resolve against today's slpy)."""
    src = subprocess.run(["git", "-C", str(ROOT), "show", f"{OLD}:slpy/data/dataset.py"],
                         capture_output=True, text=True, check=True).stdout
    mod = types.ModuleType("slpy.data._dataset_before_pandas")
    mod.__package__ = "slpy.data"
    sys.modules[mod.__name__] = mod       # dataclasses look their module up
    exec(compile(src, f"{OLD}:slpy/data/dataset.py", "exec"), mod.__dict__)
    return mod.load_csv


def main() -> None:
    import pandas as pd
    try:
        import pyarrow.csv as pa_csv
    except ImportError:
        pa_csv = None
    ap = parser(__doc__)
    add_repeat(ap, 5)
    ap.add_argument("--rows", type=int, default=200_000, help="rows of the generated CSV")
    args = ap.parse_args()
    if not LETTER.exists():
        sys.exit(f"csv_load.py: {LETTER} is missing (letter.csv lives in ../shared/data)")
    old = old_reader()
    with tempfile.TemporaryDirectory(prefix="slpy-csv-") as tmp:
        big = Path(tmp) / f"rows{args.rows}.csv"   # the name of the table's row
        write_random_rows(big, args.rows)
        print(f"{'file':<24} {'rows':>7} {'old (s)':>9} {'new (s)':>9} {'old/new':>8} "
              f"{'read_csv (s)':>13} {'pyarrow (s)':>12}")
        for path in (LETTER, big):
            a = old(path)
            b = load_csv(path)     # the same data, and the kernels warm
            assert np.array_equal(a.X, b.X) and np.array_equal(a.y, b.y) \
                and a.classes == b.classes, path
            readers = [("old", old), ("new", load_csv), ("pandas", pd.read_csv)]
            if pa_csv is not None:
                readers.append(("pyarrow", pa_csv.read_csv))
            times = {name: [] for name, _ in readers}
            for _ in range(args.repeat):
                for name, f in readers:
                    t0 = time.perf_counter()
                    f(path)
                    times[name].append(time.perf_counter() - t0)
            t = {k: statistics.median(v) for k, v in times.items()}
            pa = f"{t['pyarrow']:>12.3f}" if "pyarrow" in t else f"{'-':>12}"
            print(f"{path.name:<24} {b.n_rows:>7} {t['old']:>9.3f} {t['new']:>9.3f} "
                  f"{t['old'] / t['new']:>7.1f}x {t['pandas']:>13.3f} {pa}")


if __name__ == "__main__":
    main()
