"""Peak memory of slpy's commands. A script, not a test: prints its figures.

    python benchmarks/memory.py [--runs 1] [--only chain,default,exact,floor]

Each case is a fresh process, `python -m slpy ...` as a user types `slpy ...`:

- chain: one BCW chain of the `uc` move, untempered, 2,000 iterations
  (`slpy run priors/growtree.slp --data examples/data/bcw.csv --chains 1 --temper 1
  --proposal uc -n 2000 -q`);
- default: the default run on BCW (`slpy run priors/growtree.slp --data
  examples/data/bcw.csv -q`: 4 chains of 8 tempered replicas, 2,500 iterations);
- exact: `slpy exact priors/growtree.slp --data examples/data/kyphosis.csv -q`;
- floors: a bare `python -c "import numba"` and `import slpy` with its plugins loaded
  (what any run holds before it reads a row).

For each it prints the peak resident memory (RSS) of the largest single process, as
the kernel counts it (getrusage of the reaped children: what `/usr/bin/time -v`
prints as "Maximum resident set size"), and, for a run that starts worker processes,
the peak of the sum over the process and its workers, sampled every 20 ms (psutil).
The targets (issue 27): one BCW chain <= 120 MB, the default run <= 250 MB.
"""
from __future__ import annotations

import os
import statistics
import subprocess
import sys
import tempfile
import time
from pathlib import Path

if __name__ == "__main__" and not __package__:  # python benchmarks/memory.py
    sys.path.insert(0, str(Path(__file__).resolve().parents[1]))

from benchmarks.lib.cli import parser  # noqa: E402
from benchmarks.lib.env import ROOT, cpu_model  # noqa: E402

RUN = ["run", "priors/growtree.slp", "--data", "examples/data/bcw.csv", "-q", "--force"]
CASES = {
    "chain": ["-m", "slpy", *RUN, "--chains", "1", "--temper", "1", "--proposal", "uc",
              "-n", "2000"],
    "default": ["-m", "slpy", *RUN],
    "exact": ["-m", "slpy", "exact", "priors/growtree.slp", "--data",
              "examples/data/kyphosis.csv", "-q", "--force"],
    "floor-numba": ["-c", "import numba"],
    "floor-slpy": ["-c", "import slpy; slpy.Program()"],
}
MB = 1024 * 1024


def _tree_rss(proc) -> int:
    """Resident bytes of a process and its descendants now (0 once it is gone)."""
    import psutil
    total = 0
    try:
        procs = [proc, *proc.children(recursive=True)]
    except psutil.Error:
        return 0
    for p in procs:
        try:
            total += p.memory_info().rss
        except psutil.Error:
            pass
    return total


def one_run(args: list, out: Path) -> tuple[float, float, float]:
    """(largest single process's peak MB, peak MB of the process tree's sum, CPU s)."""
    import psutil
    argv = [sys.executable, *args]
    if argv[2:3] == ["slpy"]:
        argv += ["--out", str(out)]
    child = subprocess.Popen(argv, cwd=ROOT, stdin=subprocess.DEVNULL,
                             stdout=subprocess.DEVNULL)
    proc = psutil.Process(child.pid)
    peak_sum = 0
    while True:
        # wait4, not poll(): its rusage is this child's (with its workers), alone
        pid, status, usage = os.wait4(child.pid, os.WNOHANG)
        if pid:
            break
        peak_sum = max(peak_sum, _tree_rss(proc))
        time.sleep(0.02)
    child.returncode = os.waitstatus_to_exitcode(status)
    if child.returncode:
        raise SystemExit(f"{' '.join(args)}: exit status {child.returncode}")
    # ru_maxrss is in KiB on Linux
    return usage.ru_maxrss * 1024 / MB, peak_sum / MB, usage.ru_utime + usage.ru_stime


def main() -> None:
    ap = parser(__doc__)
    ap.add_argument("--runs", type=int, default=1)
    ap.add_argument("--only", default=",".join(CASES),
                    help="comma-separated cases (default: all)")
    args = ap.parse_args()
    print(f"cpu: {cpu_model()}, load average {' '.join(f'{x:.2f}' for x in os.getloadavg())}")
    for name in args.only.split(","):
        peaks, sums, cpus = [], [], []
        for _ in range(args.runs):
            with tempfile.TemporaryDirectory(prefix="slpy-mem-") as tmp:
                one, tree, cpu = one_run(CASES[name], Path(tmp) / "run")
            peaks.append(one)
            sums.append(tree)
            cpus.append(cpu)
        print(f"{name:12s} peak RSS {statistics.median(peaks):7.1f} MB (largest process; "
              f"all its processes together {statistics.median(sums):7.1f} MB), "
              f"{statistics.median(cpus):6.1f} CPU-s")
    print(f"load average at the end {' '.join(f'{x:.2f}' for x in os.getloadavg())}")


if __name__ == "__main__":
    main()
