"""How long a first run takes to reach its first iteration. A script, not a test: prints
its figures.

    python benchmarks/first_iteration.py [--runs 5]

Each run is a fresh process of the README's first command cut to one iteration,
`slpy run priors/growtree.slp --data examples/data/bcw.csv -n 1`, timed from the start
of the process to its exit (the one iteration and the run directory included):

- cold: an empty numba cache directory (NUMBA_CACHE_DIR), as on a fresh install, so
  the kernels the run needs are compiled;
- warm: the same cache directory again, so they are loaded from it.

Prints the median, min and max of each (the machine is shared: quote medians). The
target (issue 14): a cold first run reaches its first iteration in under 5 s.
"""
from __future__ import annotations

import os
import sys
import tempfile
import time
from pathlib import Path

if __name__ == "__main__" and not __package__:  # python benchmarks/first_iteration.py
    sys.path.insert(0, str(Path(__file__).resolve().parents[1]))

from benchmarks.lib.cli import parser  # noqa: E402
from benchmarks.lib.env import ROOT, cpu_model  # noqa: E402
from benchmarks.lib.runs import slpy  # noqa: E402
from benchmarks.lib.timing import spread  # noqa: E402

COMMAND = ["run", "priors/growtree.slp", "--data", "examples/data/bcw.csv", "-n", "1", "-q"]


def one_run(cache: Path, out: Path) -> float:
    env = dict(os.environ, NUMBA_CACHE_DIR=str(cache))
    t0 = time.perf_counter()
    slpy(*COMMAND, "--out", out, "--force", cwd=ROOT, env=env, check=True)
    return time.perf_counter() - t0


def main() -> None:
    ap = parser(__doc__)
    ap.add_argument("--runs", type=int, default=5)
    args = ap.parse_args()
    cold, warm = [], []
    for _ in range(args.runs):
        with tempfile.TemporaryDirectory(prefix="slpy-first-") as tmp:
            cache, out = Path(tmp) / "numba", Path(tmp) / "run"
            cold.append(one_run(cache, out))
            warm.append(one_run(cache, out))
    print(f"cpu: {cpu_model()}")
    print(f"first iteration, empty numba cache: {spread(cold)}")
    print(f"first iteration, warm numba cache:  {spread(warm)}")


if __name__ == "__main__":
    main()
