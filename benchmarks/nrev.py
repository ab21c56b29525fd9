"""Naive reverse of a 30-element list (496 logical inferences per call): prints LIPS.

    python benchmarks/nrev.py [--calls N] [--repeat R]

Runs the classic nrev30 from ../shared/prolog-suites/vanroy_bench_public_domain, times
N calls per repeat, subtracts the cost of N calls of a dummy query (the harness
overhead, as nrev_lips.pl does), and prints the median LIPS over the repeats. When
SWI-Prolog (`swipl`) is installed it runs the same harness there and prints the ratio.
"""
from __future__ import annotations

import shutil
import statistics
import subprocess
import sys
import time
from pathlib import Path

if __name__ == "__main__" and not __package__:  # python benchmarks/nrev.py
    sys.path.insert(0, str(Path(__file__).resolve().parents[1]))

from benchmarks.lib.cli import add_repeat, parser  # noqa: E402
from benchmarks.lib.env import VANROY as BENCH  # noqa: E402
from benchmarks.lib.timing import median_of  # noqa: E402
from slpy import Program  # noqa: E402


def measure(calls: int) -> float:
    p = Program()
    p.consult(BENCH / "nrev.pl")
    p.consult_text("dummy(_, _).")
    goal, _ = p.parse_query("numlist30(L), nrev(L, _)")
    dummy, _ = p.parse_query("numlist30(L), dummy(L, _)")
    eng = p.engine

    def run(g):
        t0 = time.perf_counter()
        for _ in range(calls):
            for _ in eng.solve(g):
                break
        return time.perf_counter() - t0

    run(goal)  # warm up
    net = run(goal) - run(dummy)
    return 496 * calls / net


def swi_lips(calls: int):
    swipl = shutil.which("swipl")
    if swipl is None:
        return None
    out = subprocess.run([swipl, str(BENCH / "nrev_lips.pl"), str(calls * 100)],
                         capture_output=True, text=True, timeout=600).stdout
    vals = [float(line.split("->")[1].split()[0]) for line in out.splitlines() if "->" in line]
    return statistics.median(vals) if vals else None


def main():
    ap = parser(__doc__)
    ap.add_argument("--calls", type=int, default=2000)
    add_repeat(ap, 5)
    a = ap.parse_args()
    lips, _ = median_of(measure, a.repeat, a.calls)
    print(f"slpy nrev30: {lips:,.0f} LIPS (median of {a.repeat} x {a.calls} calls)")
    swi = swi_lips(a.calls)
    if swi:
        print(f"SWI-Prolog nrev30: {swi:,.0f} LIPS; slpy/SWI = {lips / swi:.4f}")
    else:
        print("SWI-Prolog not installed here: reference 62,000,000 LIPS "
              f"(ratio {lips / 62e6:.4f})")


if __name__ == "__main__":
    main()
