"""The run directory: what `slpy run` and `slpy exact` write, in one format.

    manifest.json     the format version, slpy's version, and each input file (prior,
                      data, test, init) with its path, absolute path and SHA-256
    config.json       every setting, the seed, slpy's version, a hash of the data
    timing.json       how long it took: the one file that differs between same-seed runs
    trace.csv         (MCMC) one row per kept iteration
    models.csv        one row per model: canonical term, count / probability, log-lik
    summary.json      the run's figures; summary.txt the same for people
    predictions.csv   per test row: true class, posterior class probabilities
    trees/*.json      the top trees (slpy-tree/1 JSON)

Files are written with a fixed column order and number formatting so that the same
run gives the same bytes (all but timing.json).
"""
from __future__ import annotations

import csv
import hashlib
import json
import os
import shutil
import tempfile
from pathlib import Path

from .errors import PicklableError

FORMAT = "slpy-run/2"
FORMATS = ("slpy-run/1", FORMAT)   # 1: the runs written before the manifest
# what a run writes: a new run into a directory holding any of these needs --force
RUN_FILES = ("manifest.json", "config.json", "timing.json", "models.csv", "summary.json",
             "summary.txt", "predictions.csv", "predictions_exact.csv", "samples_exact.csv")
RUN_DIRS = ("trees", "report")
MODEL_COLUMNS = ["rank", "model", "count", "prob", "log_lik", "leaves", "depth"]


def model_columns(stats=("leaves", "depth")) -> list:
    """models.csv's columns: the family's traced integers after log_lik (trees:
    MODEL_COLUMNS)."""
    return MODEL_COLUMNS[:5] + list(stats)


def _fmt(x):
    if isinstance(x, float):
        return repr(round(x, 12))
    return x


class RunDirError(PicklableError):
    """A run directory that cannot be used as asked: one line for the user."""


class RunDir:
    def __init__(self, path, create: bool = True):
        self.path = Path(path)
        if create:
            self.create()

    def create(self) -> None:
        """Make the directory (and its parents), and check that it can be written."""
        try:
            self.path.mkdir(parents=True, exist_ok=True)
            tempfile.TemporaryFile(dir=self.path).close()
        except OSError as e:
            raise RunDirError(f"{self.path}: cannot write the run directory "
                              f"({e.strerror or e})") from None

    def used(self) -> list[str]:
        """The run files and folders already in the directory."""
        if not self.path.is_dir():
            return []
        return sorted(p.name for p in self.path.iterdir()
                      if p.name in RUN_FILES or p.name in RUN_DIRS
                      or p.name.startswith("chain_") and p.is_dir())

    def check_new(self, force: bool = False) -> list[str]:
        """The old run's files, for a new run here; a RunDirError when there are some
        and not `force`."""
        old = self.used()
        if old and not force:
            raise RunDirError(f"{self.path} holds a run already ({', '.join(old[:3])}"
                              f"{', ...' if len(old) > 3 else ''}): give --force to "
                              f"replace it, or another --out")
        return old

    def start_new(self, force: bool = False) -> None:
        """Make the directory ready for a new run: refuse one that holds a run unless
        `force`, which removes the old run's files (and nothing else)."""
        old = self.check_new(force)
        self.create()
        for name in old:
            p = self.path / name
            shutil.rmtree(p) if p.is_dir() else p.unlink()

    def file(self, name: str) -> Path:
        return self.path / name

    def write_json(self, name: str, data: dict) -> None:
        tmp = self.file(name + ".tmp")
        tmp.write_text(json.dumps(data, indent=2, sort_keys=True, default=_json_default)
                       + "\n")
        os.replace(tmp, self.file(name))

    def read_json(self, name: str) -> dict:
        return json.loads(self.file(name).read_text())

    def write_config(self, config: dict) -> None:
        self.write_json("config.json", config)

    def write_manifest(self, command: str, inputs: dict) -> None:
        """manifest.json: the format, slpy's version and the input files
        (role -> path, or None for an absent input)."""
        from ._version import __version__
        self.write_json("manifest.json", {
            "format": FORMAT, "command": command, "slpy_version": __version__,
            "inputs": {role: input_record(p) for role, p in inputs.items() if p}})

    def read_manifest(self) -> dict | None:
        """manifest.json (None for a run written before it existed); a format this
        slpy does not know is an error."""
        f = self.file("manifest.json")
        if not f.is_file():
            return None
        try:
            m = json.loads(f.read_text())
            fmt = m["format"]
        except (OSError, ValueError, KeyError, TypeError) as e:
            raise RunDirError(f"{f}: not a run manifest ({e})") from None
        if fmt not in FORMATS:
            raise RunDirError(f"{self.path}: run directory format {fmt!r}, which this slpy "
                              f"does not know (it reads {', '.join(FORMATS)})")
        return m

    def write_timing(self, timing: dict) -> None:
        self.write_json("timing.json", timing)

    def write_summary(self, summary: dict, text: str) -> None:
        self.write_json("summary.json", summary)
        self.file("summary.txt").write_text(text.rstrip("\n") + "\n")

    def write_models(self, rows: list[dict], stats=("leaves", "depth")) -> None:
        """rows: dicts with the keys of model_columns(stats) (count or prob may be
        empty)."""
        cols = model_columns(stats)
        tmp = self.file("models.csv.tmp")
        with open(tmp, "w", newline="") as f:
            w = csv.writer(f, lineterminator="\n")
            w.writerow(cols)
            for i, r in enumerate(rows, 1):
                w.writerow([i] + [_fmt(r.get(k, "")) for k in cols[1:]])
        os.replace(tmp, self.file("models.csv"))

    def write_predictions(self, classes, probs, y_true=None, method: str = "mcmc") -> None:
        """Per-row posterior class probabilities (columns follow `classes`)."""
        name = "predictions.csv" if method == "mcmc" else f"predictions_{method}.csv"
        with open(self.file(name), "w", newline="") as f:
            w = csv.writer(f, lineterminator="\n")
            w.writerow(["row", "true"] + [f"p_{c}" for c in classes])
            for i, p in enumerate(probs):
                t = classes[y_true[i]] if y_true is not None else ""
                w.writerow([i, t] + [repr(round(float(x), 12)) for x in p])

    def write_tree(self, name: str, tree) -> None:
        self.write_model("trees", name, tree)

    def write_model(self, folder: str, name: str, model) -> None:
        """A drawn model (ModelFamily.describe) as folder/name.json, if it has a
        to_json()."""
        if not hasattr(model, "to_json"):
            return
        (self.path / folder).mkdir(exist_ok=True)
        (self.path / folder / f"{name}.json").write_text(model.to_json() + "\n")


def file_sha256(path) -> str:
    h = hashlib.sha256()
    with open(path, "rb") as f:
        for block in iter(lambda: f.read(1 << 20), b""):
            h.update(block)
    return h.hexdigest()


def input_record(path) -> dict:
    p = Path(path)
    return {"path": str(path), "abspath": str(p.resolve()), "sha256": file_sha256(p)}


def changed_inputs(manifest: dict) -> list[str]:
    """The inputs the manifest records whose file is gone or differs from the record,
    as one-line reasons."""
    out = []
    for role, rec in (manifest.get("inputs") or {}).items():
        path = rec.get("abspath") or rec.get("path")
        try:
            same = file_sha256(path) == rec.get("sha256")
        except OSError:
            out.append(f"the {role} file {rec.get('path')} is not there")
            continue
        if not same:
            out.append(f"the {role} file {rec.get('path')} changed since the run started")
    return out


def resolve_input(run_path, config: dict, role: str) -> str | None:
    """The file of an input of a run: where the manifest recorded it (absolute), else
    the path as given, relative to the current directory (older runs). Lets
    `slpy predict` and `slpy report` work from any directory."""
    given = config.get(role)
    if not given:
        return None
    try:
        m = RunDir(run_path, create=False).read_manifest() or {}
    except RunDirError:
        m = {}
    rec = (m.get("inputs") or {}).get(role) or {}
    for cand in (rec.get("abspath"), given):
        if cand and Path(cand).is_file():
            return str(cand)
    return str(given)


def _json_default(o):
    import numpy as np
    if isinstance(o, np.integer):
        return int(o)
    if isinstance(o, np.floating):
        return float(o)
    if isinstance(o, np.ndarray):
        return o.tolist()
    if isinstance(o, Path):
        return str(o)
    raise TypeError(f"not JSON serialisable: {type(o).__name__}")


def accuracy_figures(probs, y_true, model_probs=None):
    """acc_prob and acc_max of paper 002 (section 7.3).

    acc_prob: mean over test rows of the posterior probability of the true class;
    acc_max: fraction of rows whose most probable class (averaged over the posterior)
    is the true class.
    """
    import numpy as np
    probs = np.asarray(probs)
    y = np.asarray(y_true)
    acc_prob = float(probs[np.arange(len(y)), y].mean())
    acc_max = float((probs.argmax(axis=1) == y).mean())
    return {"acc_prob": acc_prob, "acc_max": acc_max}
