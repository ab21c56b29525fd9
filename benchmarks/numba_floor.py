"""What any process that runs a numba kernel costs: CPU-seconds and peak memory of a
script that calls one cached `@njit` function, the floor under `slpy run`'s first
iteration and a chain's memory (issue 27). A script, not a test: prints its figures.

    python benchmarks/numba_floor.py [--runs 5]

Each run is a fresh process of the script below, its numba cache warm (a first,
untimed run compiles it into a temporary cache directory); the process reports its
own CPU time and peak resident memory (getrusage) as it exits. Prints the medians,
and the load average before and after (the machine is shared: quote medians).
"""
from __future__ import annotations

import os
import statistics
import subprocess
import sys
import tempfile
from pathlib import Path

if __name__ == "__main__" and not __package__:  # python benchmarks/numba_floor.py
    sys.path.insert(0, str(Path(__file__).resolve().parents[1]))

from benchmarks.lib.cli import parser  # noqa: E402

SCRIPT = """\
import resource
import numba
import numpy as np


@numba.njit(cache=True)
def total(a):
    s = 0.0
    for x in a:
        s += x
    return s


total(np.ones(3))
r = resource.getrusage(resource.RUSAGE_SELF)
print(r.ru_utime + r.ru_stime, r.ru_maxrss / 1024)
"""


def main() -> None:
    ap = parser(__doc__)
    ap.add_argument("--runs", type=int, default=5)
    args = ap.parse_args()
    with tempfile.TemporaryDirectory() as tmp:
        script = Path(tmp) / "floor.py"
        script.write_text(SCRIPT)
        env = dict(os.environ, NUMBA_CACHE_DIR=str(Path(tmp) / "cache"))
        load = " ".join(f"{x:.2f}" for x in os.getloadavg())

        def one() -> tuple[float, float]:
            out = subprocess.run([sys.executable, str(script)], env=env, check=True,
                                 capture_output=True, text=True).stdout.split()
            return float(out[0]), float(out[1])

        one()                                   # compiles into the cache
        runs = [one() for _ in range(args.runs)]
    cpu = statistics.median(r[0] for r in runs)
    mem = statistics.median(r[1] for r in runs)
    after = " ".join(f"{x:.2f}" for x in os.getloadavg())
    print(f"load average before {load}, after {after}")
    print(f"one cached numba kernel: median {cpu:.2f} CPU-s, {mem:.1f} MiB peak "
          f"(min {min(r[1] for r in runs):.1f}, max {max(r[1] for r in runs):.1f}; "
          f"{args.runs} runs)")


if __name__ == "__main__":
    main()
