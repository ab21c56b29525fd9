"""How long a first run takes to reach its first iteration, and `slpy --version`. A
script, not a test: prints its figures.

    python benchmarks/first_iteration.py [--runs 5] [--skip-cold] [--wheel]

Each run is a fresh process of the README's first command cut to one iteration,
`slpy run priors/growtree.slp --data examples/data/bcw.csv -n 1`, timed from the start
of the process to its exit (the one iteration and the run directory included):

- cold: an empty numba cache directory (NUMBA_CACHE_DIR), as on a fresh install, so
  the kernels the run needs are compiled;
- warm: the same cache directory again, so they are loaded from it.

and `slpy --version` alone (the command line's start-up: the imports of every command).

--wheel times an installed wheel instead of this checkout: the wheel is built from it
(`pip wheel .`, which compiles the README's kernels into it: setup.py) and installed
in a new virtual environment, as `pip install .` does; its "cold" runs start from an
empty user cache, which the wheel's kernels fill.

Prints the median, min and max of the wall time of each, the median CPU seconds, and
the load average before and after (the machine is shared: quote medians). The targets
(issue 27, on a quiet machine): `slpy --version` under 0.3 s, a warm first iteration
under 1.5 s, a cold one under 4 s (issue 14 had 5 s).
"""
from __future__ import annotations

import os
import statistics
import subprocess
import sys
import tempfile
import time
from pathlib import Path

if __name__ == "__main__" and not __package__:  # python benchmarks/first_iteration.py
    sys.path.insert(0, str(Path(__file__).resolve().parents[1]))

from benchmarks.lib.cli import parser  # noqa: E402
from benchmarks.lib.env import ROOT, cpu_model  # noqa: E402
from benchmarks.lib.runs import slpy  # noqa: E402
from benchmarks.lib.timing import child_cpu, spread  # noqa: E402

COMMAND = ["run", "priors/growtree.slp", "--data", "examples/data/bcw.csv", "-n", "1", "-q"]


def one_run(cache: Path, out: Path | None, python: Path | None = None
            ) -> tuple[float, float]:
    """(wall, CPU) seconds of one process: the run cut to one iteration, or (out None)
    `slpy --version`; with `python`, that interpreter's installed slpy."""
    env = dict(os.environ, NUMBA_CACHE_DIR=str(cache))
    args = ["--version"] if out is None else [*COMMAND, "--out", out, "--force"]
    c0 = child_cpu()
    t0 = time.perf_counter()
    if python is None:
        slpy(*args, cwd=ROOT, env=env, check=True, stdout=subprocess.DEVNULL)
    else:   # -P: not the checkout's slpy
        subprocess.run([python, "-P", "-m", "slpy.cli",
                        *[ROOT / a if str(a).endswith((".slp", ".csv")) else a for a in args]],
                       cwd=out.parent if out else cache.parent, env=env, check=True,
                       stdout=subprocess.DEVNULL)
    return time.perf_counter() - t0, child_cpu() - c0


def installed(tmp: Path) -> Path:
    """The python of a new virtual environment holding this checkout's wheel."""
    subprocess.run([sys.executable, "-m", "pip", "wheel", "-q", "--no-deps", "-w",
                    tmp / "wheel", ROOT], check=True)
    subprocess.run([sys.executable, "-m", "venv", tmp / "venv"], check=True)
    python = tmp / "venv" / "bin" / "python"
    subprocess.run([python, "-m", "pip", "install", "-q",
                    *sorted((tmp / "wheel").glob("*.whl"))], check=True)
    return python


def _load() -> str:
    return " ".join(f"{x:.2f}" for x in os.getloadavg())


def _line(what: str, runs: list) -> str:
    cpu = statistics.median(c for _, c in runs)
    return f"{what}: {spread([w for w, _ in runs])}, median {cpu:.2f} CPU-s"


def main() -> None:
    ap = parser(__doc__)
    ap.add_argument("--runs", type=int, default=5)
    ap.add_argument("--skip-cold", action="store_true",
                    help="time warm runs only (the cold ones take ten times as long)")
    ap.add_argument("--wheel", action="store_true",
                    help="time this checkout's wheel installed in a new environment")
    args = ap.parse_args()
    version, cold, warm = [], [], []
    with tempfile.TemporaryDirectory(prefix="slpy-first-") as tmp:
        python = installed(Path(tmp)) if args.wheel else None
        load0 = _load()
        shared = Path(tmp) / "numba-shared"
        one_run(shared, Path(tmp) / "run", python)      # fills the warm runs' cache
        for k in range(args.runs):
            version.append(one_run(shared, None, python))
            warm.append(one_run(shared, Path(tmp) / "run", python))
            if not args.skip_cold:
                cold.append(one_run(Path(tmp) / f"numba-{k}", Path(tmp) / "run", python))
    print(f"cpu: {cpu_model()}; load average before {load0}, after {_load()}"
          + ("; an installed wheel" if args.wheel else ""))
    print(_line("slpy --version", version))
    if cold:
        print(_line("first iteration, empty numba cache", cold))
    print(_line("first iteration, warm numba cache", warm))


if __name__ == "__main__":
    main()
