"""The classic benchmark programs (../shared/prolog-suites/vanroy_bench_public_domain):
milliseconds per bench/1 call in slpy, checked against expected/1, and SWI-Prolog's
time for the same program in the same run when `swipl` is installed.

    python benchmarks/vanroy.py [--seconds S] [--repeat R]

Each figure is the median over R repeats of (time for k calls)/k, with k chosen so a
repeat takes about S seconds.
"""
from __future__ import annotations

import shutil
import statistics
import subprocess
import sys
import time
from pathlib import Path

if __name__ == "__main__" and not __package__:  # python benchmarks/vanroy.py
    sys.path.insert(0, str(Path(__file__).resolve().parents[1]))

from benchmarks.lib.cli import add_repeat, parser  # noqa: E402
from benchmarks.lib.env import VANROY as BENCH  # noqa: E402
from slpy import Program  # noqa: E402

PROGRAMS = ["nrev", "qsort", "queens", "deriv", "tak", "primes", "fib", "hanoi", "zebra"]
# SWI-Prolog 9.0.4 on this machine, from prolog-suites/README.md (ms per call)
SWI_REFERENCE = {"nrev": 0.0116, "qsort": 0.0368, "queens": 3.39, "deriv": 0.0049,
                 "tak": 4.12, "primes": 1.88, "fib": 2.42, "hanoi": 4.16, "zebra": 1.08}


def slpy_ms(name: str, seconds: float, repeat: int) -> float:
    p = Program()
    p.consult(BENCH / f"{name}.pl")
    ok = p.once("bench(R), expected(E), R == E")
    if ok is None:
        raise SystemExit(f"{name}: bench/1 does not give expected/1")
    goal, _ = p.parse_query("bench(_)")
    eng = p.engine

    def run(k):
        t0 = time.perf_counter()
        for _ in range(k):
            for _ in eng.solve(goal):
                break
        return time.perf_counter() - t0

    once = max(run(1), 1e-6)
    k = max(1, int(seconds / once))
    return statistics.median(run(k) / k for _ in range(repeat)) * 1000


# swipl loads every .pl file named on its command line, so the program comes in that way
SWI_DRIVER = """
:- initialization(main, main).
main :- current_prolog_flag(argv, Argv), last(Argv, KA), atom_number(KA, K),
    statistics(cputime, T0), loop(K), statistics(cputime, T1),
    Ms is (T1 - T0) * 1000 / K, format("~6f~n", [Ms]).
loop(0) :- !.
loop(N) :- ( bench(_) -> true ; true ), N1 is N - 1, loop(N1).
"""


def swi_ms(name: str, seconds: float, repeat: int):
    swipl = shutil.which("swipl")
    if swipl is None:
        return None
    driver = Path("/tmp/slpy_swi_driver.pl")
    driver.write_text(SWI_DRIVER)
    k = max(1, int(seconds / (SWI_REFERENCE[name] / 1000)))
    vals = []
    for _ in range(repeat):
        out = subprocess.run([swipl, str(driver), str(BENCH / f"{name}.pl"), str(k)],
                             capture_output=True, text=True, timeout=600).stdout.strip()
        vals.append(float(out.splitlines()[-1]))
    return statistics.median(vals)


def main():
    ap = parser(__doc__)
    ap.add_argument("--seconds", type=float, default=1.0)
    add_repeat(ap, 3)
    ap.add_argument("--only", nargs="*", default=PROGRAMS)
    a = ap.parse_args()
    print(f"{'program':8} {'slpy ms':>10} {'SWI ms':>10} {'slpy/SWI time':>14}")
    for name in a.only:
        ms = slpy_ms(name, a.seconds, a.repeat)
        swi = swi_ms(name, a.seconds, a.repeat)
        ref = swi if swi is not None else SWI_REFERENCE[name]
        tag = "" if swi is not None else " (README reference)"
        print(f"{name:8} {ms:10.4f} {ref:10.4f} {ms / ref:13.0f}x{tag}")


if __name__ == "__main__":
    main()
