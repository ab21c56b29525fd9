"""Running slpy, and reading back what a run wrote in its run directory (see
docs/cli.md for the files): models.csv, chain_N/trace.csv and models.csv,
summary.json, timing.json, predictions.csv."""
from __future__ import annotations

import csv
import json
import subprocess
import sys
import time
from pathlib import Path

import numpy as np

from .env import ROOT
from .timing import child_cpu


def slpy(*args, **kw) -> subprocess.CompletedProcess:
    """`slpy ARGS` in a fresh process, with this interpreter (so this checkout's slpy)."""
    return subprocess.run([sys.executable, "-m", "slpy.cli", *map(str, args)], **kw)


_RUNNER = ("import json, sys\n"
           "from slpy.mcmc.run import run\n"
           "run(json.loads(sys.argv[1]), sys.argv[2], resume=sys.argv[3] == '1', "
           "quiet=True, force=True)\n")


def run_chain(cfg: dict, rundir: Path, resume: bool = False, child: bool = True) -> float:
    """One `slpy run` of the configuration `cfg` into `rundir` (replacing an unfinished
    one, or resuming it); returns its CPU seconds. `child`: in a process of its own, as
    a long series of runs in one process grows to gigabytes (caches of row sets and
    terms) and takes minutes to tear down; a short run costs less than a process."""
    if not child:
        from slpy.mcmc.run import run
        t = time.process_time()
        run(cfg, rundir, resume=resume, quiet=True, force=True)
        return time.process_time() - t
    c0 = child_cpu()
    r = subprocess.run([sys.executable, "-c", _RUNNER, json.dumps(cfg), str(rundir),
                        "1" if resume else "0"], cwd=ROOT)
    if r.returncode != 0:
        raise SystemExit(f"run {Path(rundir).name} failed (exit status {r.returncode})")
    return child_cpu() - c0


def read_json(path: Path) -> dict:
    return json.loads(Path(path).read_text())


def read_summary(rundir: Path) -> dict:
    return read_json(Path(rundir) / "summary.json")


def read_models(rundir: Path) -> list[dict]:
    """models.csv: the distinct models, most visited first, with count, log_lik and
    leaves as numbers."""
    with open(Path(rundir) / "models.csv", newline="") as f:
        rows = list(csv.DictReader(f))
    for r in rows:
        r["count"] = int(r["count"])
        r["log_lik"] = float(r["log_lik"])
        r["leaves"] = int(r["leaves"])
    return rows


def chain_models(rundir: Path, chain: int = 0) -> dict[int, str]:
    """A chain's model ids (trace.csv's `model` column) -> canonical model strings."""
    with open(Path(rundir) / f"chain_{chain}" / "models.csv", newline="") as f:
        return {int(r["id"]): r["model"] for r in csv.DictReader(f)}


def read_trace(rundir: Path, *columns: str, chain: int = 0) -> tuple[np.ndarray, ...]:
    """Columns of a chain's trace.csv by name, one array each (as floats)."""
    path = Path(rundir) / f"chain_{chain}" / "trace.csv"
    with open(path) as f:
        header = f.readline().strip().split(",")
    a = np.loadtxt(path, delimiter=",", skiprows=1, ndmin=2,
                   usecols=[header.index(c) for c in columns])
    return tuple(a[:, k] for k in range(len(columns)))


def read_predictions(rundir: Path) -> np.ndarray:
    """predictions.csv: the test rows' class probabilities (its p_* columns)."""
    with open(Path(rundir) / "predictions.csv", newline="") as f:
        return np.array([[float(v) for k, v in r.items() if k.startswith("p_")]
                         for r in csv.DictReader(f)])
