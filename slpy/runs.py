"""The run directory: what `slpy run` and `slpy exact` write, in one format, and
the one module that writes and reads it (every other goes through :class:`RunDir`).

    manifest.json     the format version, slpy's version, and each input file (prior,
                      data, test, init) with its path, absolute path and SHA-256
    config.json       every setting, the seed, slpy's version, a hash of the data
    timing.json       how long it took: the one file that differs between same-seed runs
    models.csv        one row per model: canonical term, count / probability, log-lik
    summary.json      the run's figures; summary.txt the same for people
    predictions.csv   per test row: true class, posterior class probabilities
                      (predictions_exact.csv: slpy exact's)
    samples_exact.csv slpy exact's posterior samples
    trees/*.json      the top trees (slpy-tree/1 JSON); models/*.json other families'
    chain_I/trace.csv     (MCMC) one row per kept iteration of chain I: trace_columns
    chain_I/models.csv    the chain's models by id (the trace names them by id), with
                          their visit counts

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

import numpy as np

from .errors import PicklableError

FORMAT = "slpy-run/2"
FORMATS = ("slpy-run/1", FORMAT)   # 1: the runs written before the manifest
# what a run writes: a new run into a directory holding any of these needs --force
RUN_FILES = ("manifest.json", "config.json", "timing.json", "models.csv", "summary.json",
             "summary.txt", "predictions.csv", "predictions_exact.csv", "samples_exact.csv")
RUN_DIRS = ("trees", "report")
MODEL_COLUMNS = ["rank", "model", "count", "prob", "log_lik", "leaves", "depth"]


TRACE_NUMERIC = ("iter", "model", "log_lik", "d", "accepted")   # and the family's


def model_columns(stats=("leaves", "depth")) -> list:
    """models.csv's columns: the family's traced integers after log_lik (trees:
    MODEL_COLUMNS)."""
    return MODEL_COLUMNS[:5] + list(stats)


def trace_columns(stats=("leaves", "depth"), tempered: bool = False) -> list:
    """chain_I/trace.csv's columns: the family's traced integers after log_lik, and
    the swaps of a tempered chain ("i-j:0|1" pairs joined by ";")."""
    return ["iter", "model", "log_lik", *stats, "d", "accepted"] + (["swap"] if tempered
                                                                    else [])


def _trace_row(it, model, log_lik, stats, d, accepted, swaps, tempered) -> list:
    row = [int(it), int(model), repr(round(float(log_lik), 10)), *map(int, stats), int(d),
           int(accepted)]
    if tempered:
        row.append(";".join(f"{i}-{j}:{int(ok)}" for i, j, ok in swaps))
    return row


def _fmt(x):
    if isinstance(x, float):
        return repr(round(x, 12))
    return x


class RunDirError(PicklableError):
    """A run directory that cannot be used as asked: one line for the user."""


class TraceError(RunDirError):
    """A trace that cannot be resumed from or read: one line for the user."""


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

    def chain_file(self, index: int, name: str) -> Path:
        return self.path / f"chain_{index}" / name

    def write_json(self, name: str, data: dict) -> None:
        tmp = self.file(name + ".tmp")
        tmp.write_text(json.dumps(data, indent=2, sort_keys=True, default=_json_default)
                       + "\n")
        os.replace(tmp, self.file(name))

    def read_json(self, name: str) -> dict:
        return json.loads(self.file(name).read_text())

    def write_config(self, config: dict) -> None:
        self.write_json("config.json", config)

    def read_config(self) -> dict:
        """config.json (a RunDirError when it is missing or does not read)."""
        return self._read_json_file("config.json", "not a run directory (no config.json)")

    def read_summary_text(self) -> str:
        """summary.txt (what the run printed)."""
        return self.file("summary.txt").read_text()

    def read_summary(self) -> dict:
        """summary.json, or {} for a run that has none (yet)."""
        if not self.file("summary.json").is_file():
            return {}
        return self._read_json_file("summary.json", "no summary.json")

    def _read_json_file(self, name, missing) -> dict:
        f = self.file(name)
        if not f.is_file():
            raise RunDirError(f"{self.path}: {missing}")
        try:
            return json.loads(f.read_text())
        except (OSError, ValueError) as e:
            raise RunDirError(f"{self.path}: unreadable {name} ({e})") from None

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

    def read_model_files(self, folder: str) -> dict:
        """name -> the JSON text of each drawn model in folder/ (written by
        write_model)."""
        d = self.path / folder
        return {f.stem: f.read_text() for f in sorted(d.glob("*.json"))} if d.is_dir() else {}

    def read_models(self) -> list[dict]:
        """models.csv's rows (dicts of text), or [] when there is none."""
        f = self.file("models.csv")
        return _read_csv(f) if f.is_file() else []

    def read_predictions(self, method: str = "mcmc") -> tuple | None:
        """(classes, probs [n, C], true labels) of predictions.csv (or slpy exact's),
        None when there is none."""
        f = self.file("predictions.csv" if method == "mcmc" else f"predictions_{method}.csv")
        if not f.is_file():
            return None
        try:
            with open(f, newline="") as fh:
                rows = list(csv.reader(fh))
            header = rows[0]
            cols = [i for i, h in enumerate(header) if h.startswith("p_")]
            probs = np.array([[float(r[i]) for i in cols] for r in rows[1:]], dtype=float)
            true = [r[header.index("true")] for r in rows[1:]]
        except (OSError, IndexError, ValueError) as e:
            raise RunDirError(f"{f}: not a predictions file ({e})") from None
        return [header[i][2:] for i in cols], probs.reshape(len(rows) - 1, len(cols)), true

    def write_samples_exact(self, rows) -> None:
        """slpy exact's samples: rows of (model, log probability), numbered from 1."""
        with open(self.file("samples_exact.csv"), "w", newline="") as f:
            w = csv.writer(f, lineterminator="\n")
            w.writerow(["sample", "model", "log_prob"])
            for i, (model, log_prob) in enumerate(rows, 1):
                w.writerow([i, model, repr(round(log_prob, 12))])

    # -- a chain's files ------------------------------------------------------------------
    def open_trace(self, index: int, stats=("leaves", "depth"), tempered: bool = False,
                   keep_rows: int = 0) -> "TraceFile":
        """chain_I/trace.csv for writing as the chain goes: a new one, or for a resumed
        run the first `keep_rows` rows kept and the rest to follow."""
        return TraceFile(self.chain_file(index, "trace.csv"), stats, tempered, keep_rows)

    def write_trace(self, index: int, trace, stats=("leaves", "depth"),
                    tempered: bool = False) -> None:
        """chain_I/trace.csv of a whole slpy.mcmc.output.Trace (a chain run elsewhere)."""
        swaps = {}
        for draw, i, j, ok in trace.swaps.tolist():
            swaps.setdefault(draw, []).append((i, j, ok))
        with self.open_trace(index, stats, tempered) as out:
            cols = [trace.stats[s] for s in stats]
            for r in range(len(trace.iter)):
                out.write(trace.iter[r], trace.model[r], trace.log_lik[r],
                          [c[r] for c in cols], trace.d[r], trace.accepted[r],
                          swaps.get(r, ()))

    def read_trace(self, index: int) -> dict:
        """A chain's trace as arrays (iter, model, log_lik, the family's traced
        integers, d, accepted) plus "swap": the swap column's entries ("" untempered).
        A cut last row (the run was killed while writing it) is left out."""
        path = self.chain_file(index, "trace.csv")
        try:
            with open(path, newline="") as f:
                rows = list(csv.reader(f))
        except OSError as e:
            raise TraceError(f"{path}: cannot read the trace ({e.strerror})") from None
        if not rows:
            raise TraceError(f"{path}: empty trace (no header)")
        header = rows[0]
        missing = [c for c in TRACE_NUMERIC if c not in header]
        if missing:
            raise TraceError(f"{path}: not an slpy trace (no column {missing[0]!r})")
        body = [r for r in rows[1:] if len(r) == len(header)]
        cols = list(zip(*body)) if body else [()] * len(header)
        out = {}
        for c, values in zip(header, cols):
            if c != "swap":
                try:
                    out[c] = np.array(values, dtype=float)
                except ValueError:
                    raise TraceError(f"{path}: a value of column {c!r} is not a "
                                     f"number") from None
        out["swap"] = list(cols[header.index("swap")]) if "swap" in header else []
        return out

    def check_trace(self, index: int, cfg, stats=("leaves", "depth")) -> int:
        """The complete data rows of a chain's trace, each checked against the run's
        settings (columns, the kept iterations' numbers, model ids in order of first
        visit, numbers where numbers belong); a row that is not one is a TraceError. A
        cut last row (no newline) is not counted."""
        path = self.chain_file(index, "trace.csv")
        try:
            text = path.read_text()
        except FileNotFoundError:
            return 0
        except (OSError, UnicodeDecodeError) as e:
            raise TraceError(f"{path}: cannot read the trace ({e})") from None
        lines = text.split("\n")[:-1]          # the last piece is empty or a cut row
        if not lines:
            return 0
        header = trace_columns(stats, cfg["temper"] > 1)
        if lines[0].split(",") != header:
            raise TraceError(f"{path}, line 1: not the header of this run's trace")
        burn, thin, n_iter = cfg["burn_in"], cfg["thin"], cfg["iterations"]
        models = 0
        for k, line in enumerate(lines[1:]):
            row = line.split(",")
            why = _bad_row(row, header, burn + k * thin, models, len(stats))
            if why is None and burn + k * thin >= n_iter:
                why = f"more rows than the run's {n_iter} iterations keep"
            if why is not None:
                raise TraceError(f"{path}, line {k + 2}: {why}: {line[:40]!r}")
            models = max(models, int(row[1]) + 1)
        return len(lines) - 1

    def write_chain_models(self, index: int, visits: dict) -> None:
        """chain_I/models.csv: the chain's models (canonical form -> Visit, in order of
        first visit) by id, so that its trace can be read back."""
        with open(self.chain_file(index, "models.csv"), "w", newline="") as f:
            w = csv.writer(f, lineterminator="\n")
            w.writerow(["id", "model", "count", "log_lik"])
            for key, v in visits.items():
                w.writerow([v.id, key, v.count, repr(round(v.log_lik, 10))])

    def read_chain_models(self, index: int) -> list:
        """[(canonical model, count)] of chain_I/models.csv in id order ([] without)."""
        f = self.chain_file(index, "models.csv")
        return [(r["model"], int(r["count"])) for r in _read_csv(f)] if f.is_file() else []


class TraceFile:
    """A chain's trace.csv being written, row by row (a context manager)."""

    def __init__(self, path: Path, stats, tempered: bool, keep_rows: int = 0):
        path.parent.mkdir(parents=True, exist_ok=True)
        if keep_rows:
            _truncate_rows(path, keep_rows)
        self.tempered = tempered
        self.f = open(path, "a" if keep_rows else "w", newline="")
        self.w = csv.writer(self.f, lineterminator="\n")
        if not keep_rows:
            self.w.writerow(trace_columns(stats, tempered))

    def write(self, it, model, log_lik, stats, d, accepted, swaps) -> None:
        self.w.writerow(_trace_row(it, model, log_lik, stats, d, accepted, swaps,
                                   self.tempered))

    def close(self) -> None:
        self.f.close()

    def __enter__(self):
        return self

    def __exit__(self, *exc):
        self.close()


def _truncate_rows(path: Path, rows: int) -> None:
    """Keep the header and the first `rows` data rows (a crash may have cut a row)."""
    lines = path.read_text().splitlines(keepends=True)
    keep = lines[:rows + 1]
    if keep and not keep[-1].endswith("\n"):
        keep = keep[:-1]
    path.write_text("".join(keep))


def _bad_row(row, header, it, models, n_stats):
    """Why a trace row is not the row of iteration `it`, or None (`n_stats` traced
    integers between log_lik and d)."""
    if len(row) != len(header):
        return f"{len(row)} fields, not {len(header)}"
    end = 5 + n_stats                    # iter, model, log_lik, stats..., d, accepted
    try:
        ints = [int(row[i]) for i in (0, 1, *range(3, end))]
        float(row[2])
    except ValueError:
        return "not a trace row"
    if ints[0] != it:
        return f"iteration {ints[0]} where {it} was due"
    if not 0 <= ints[1] <= models:
        return f"model id {ints[1]} out of order"
    if min(ints[2:-1], default=0) < 0 or ints[-1] not in (0, 1):
        return "not a trace row"
    for swap in (row[end].split(";") if len(row) > end and row[end] else ()):
        pair, _, acc = swap.partition(":")
        i, _, j = pair.partition("-")
        if not (i.isdigit() and j.isdigit() and acc in ("0", "1")):
            return "not a swap"
    return None


def _read_csv(path) -> list[dict]:
    with open(path, newline="") as f:
        return list(csv.DictReader(f))


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
    probs = np.asarray(probs)
    y = np.asarray(y_true)
    acc_prob = float(probs[np.arange(len(y)), y].mean())
    acc_max = float((probs.argmax(axis=1) == y).mean())
    return {"acc_prob": acc_prob, "acc_max": acc_max}
