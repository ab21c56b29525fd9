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
    chain_I/trace.csv     (MCMC) one row per kept iteration of chain I (slpy.traces)
    chain_I/models.csv    the chain's models by id (the trace names them by id), with
                          their visit counts

Files are written with a fixed column order and number formatting so that the same
run gives the same bytes (all but timing.json). A file that cannot be written (a full
disk) is a WriteError naming it; a JSON file or models.csv is replaced whole, never
left half written. A file that does not read as it was written is a RunDirError
naming its line.
"""
from __future__ import annotations

import contextlib
import csv
import functools
import hashlib
import json
import os
import shutil
import tempfile
from pathlib import Path

import numpy as np

# the errors and the trace's columns are used from here too
from .errors import RunDirError, TraceError, WriteError  # noqa: F401
from .traces import (TRACE_NUMERIC, TraceFile, check_trace, read_trace,  # noqa: F401
                     trace_columns)

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


def _writes(method):
    """A RunDir writer whose OSError (a full disk, a file size limit) is a WriteError
    naming the file; what was written before stays as it was."""
    @functools.wraps(method)
    def wrapper(self, *args, **kw):
        try:
            return method(self, *args, **kw)
        except OSError as e:
            raise WriteError.of(e.filename or self.path, e) from None
    return wrapper


@contextlib.contextmanager
def _replacing(path: Path):
    """A file written whole beside `path`, then put in its place (no half file)."""
    tmp = path.with_name(path.name + ".tmp")
    try:
        yield tmp
        os.replace(tmp, path)
    except OSError as e:
        with contextlib.suppress(OSError):
            tmp.unlink()
        raise WriteError.of(path, e) from None


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
        with _replacing(self.file(name)) as tmp:
            tmp.write_text(json.dumps(data, indent=2, sort_keys=True,
                                      default=_json_default) + "\n")

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
        except json.JSONDecodeError as e:
            raise RunDirError(f"{f}:{e.lineno}:{e.colno}: not JSON ({e.msg})") from None
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

    @_writes
    def write_summary(self, summary: dict, text: str) -> None:
        self.write_json("summary.json", summary)
        self.file("summary.txt").write_text(text.rstrip("\n") + "\n")

    def write_models(self, rows: list[dict], stats=("leaves", "depth")) -> None:
        """rows: dicts with the keys of model_columns(stats) (count or prob may be
        empty)."""
        cols = model_columns(stats)
        with _replacing(self.file("models.csv")) as tmp, open(tmp, "w", newline="") as f:
            w = csv.writer(f, lineterminator="\n")
            w.writerow(cols)
            for i, r in enumerate(rows, 1):
                w.writerow([i] + [_fmt(r.get(k, "")) for k in cols[1:]])

    @_writes
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

    @_writes
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
        except (OSError, ValueError, csv.Error) as e:
            raise RunDirError(f"{f}: not a predictions file ({e})") from None
        header = rows[0] if rows else []
        if "true" not in header:
            raise RunDirError(f"{f}:1: not the header of a predictions file")
        cols = [i for i, h in enumerate(header) if h.startswith("p_")]
        probs = []
        for line, r in enumerate(rows[1:], 2):
            try:
                if len(r) != len(header):
                    raise ValueError(f"{len(r)} fields where the header has {len(header)}")
                probs.append([float(r[i]) for i in cols])
            except ValueError as e:
                raise RunDirError(f"{f}:{line}: {e}") from None
        true = [r[header.index("true")] for r in rows[1:]]
        return ([header[i][2:] for i in cols],
                np.array(probs, dtype=float).reshape(len(rows) - 1, len(cols)), true)

    @_writes
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
        """A chain's trace as arrays (slpy.traces.read_trace)."""
        return read_trace(self.chain_file(index, "trace.csv"))

    def check_trace(self, index: int, cfg, stats=("leaves", "depth")) -> int:
        """The complete data rows of a chain's trace, checked against the run's
        settings (slpy.traces.check_trace)."""
        return check_trace(self.chain_file(index, "trace.csv"), cfg, stats)

    @_writes
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
        out = []
        for line, r in enumerate(_read_csv(f) if f.is_file() else [], 2):
            try:
                out.append((r["model"], int(r["count"])))
            except (KeyError, ValueError):
                raise RunDirError(f"{f}:{line}: not a row of id, model, count, "
                                  f"log_lik") from None
        return out


def _read_csv(path) -> list[dict]:
    """A CSV file's rows as dicts, one a line; a row that does not match the header (a
    field cut or added, an unterminated quote) is a RunDirError naming its line."""
    rows, header = [], None
    try:
        with open(path, newline="") as f:
            reader = csv.reader(f, strict=True)
            header = next(reader, [])
            for row in reader:
                if reader.line_num != len(rows) + 2:
                    raise csv.Error("a quoted field runs over lines")
                if len(row) != len(header):
                    raise csv.Error(f"{len(row)} fields where the header has {len(header)}")
                rows.append(dict(zip(header, row)))
    except csv.Error as e:
        why = f"an unterminated or stray quote ({e})" if "data" in str(e) or \
            "expected after" in str(e) else e
        raise RunDirError(f"{path}:{len(rows) + 2 if header is not None else 1}: "
                          f"{why}") from None
    except (OSError, UnicodeDecodeError) as e:
        raise RunDirError(f"{path}: cannot read the file ({e})") from None
    return rows


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
