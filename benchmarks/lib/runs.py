"""Running slpy, and reading back what a run wrote in its run directory (see
docs/cli.md for the files) through slpy.runs, the format's one home: models.csv,
chain_N/trace.csv and models.csv, summary.json, timing.json, predictions.csv."""
from __future__ import annotations

import json
import subprocess
import sys
import time
from pathlib import Path

import numpy as np

from slpy.runs import RunDir

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
    return RunDir(rundir, create=False).read_summary()


def read_models(rundir: Path) -> list[dict]:
    """models.csv: the distinct models, most visited first, with count, log_lik and
    leaves as numbers."""
    rows = RunDir(rundir, create=False).read_models()
    for r in rows:
        r["count"] = int(r["count"])
        r["log_lik"] = float(r["log_lik"])
        r["leaves"] = int(r["leaves"])
    return rows


def chain_models(rundir: Path, chain: int = 0) -> dict[int, str]:
    """A chain's model ids (trace.csv's `model` column) -> canonical model strings."""
    return dict(enumerate(m for m, _ in RunDir(rundir, create=False).read_chain_models(chain)))


def read_trace(rundir: Path, *columns: str, chain: int = 0) -> tuple[np.ndarray, ...]:
    """Columns of a chain's trace.csv by name, one array each (as floats)."""
    t = RunDir(rundir, create=False).read_trace(chain)
    return tuple(t[c] for c in columns)


def read_predictions(rundir: Path) -> np.ndarray:
    """predictions.csv: the test rows' class probabilities (its p_* columns)."""
    return RunDir(rundir, create=False).read_predictions()[1]
