"""A chain's trace.csv: its columns, the writer that adds rows as the chain goes, and
the checks and the reader that read it back (through slpy.runs.RunDir, the run
directory's one home, which re-exports what others use).

A trace is written as the chain runs, so a run stopped anyhow (Ctrl-C, a kill, a full
disk) leaves a prefix of it: complete rows, and at most one cut last row (no newline),
which the reader and `--resume` leave out.
"""
from __future__ import annotations

import contextlib
import csv
import os
from pathlib import Path

import numpy as np

from .errors import TraceError, WriteError

__all__ = ["TRACE_NUMERIC", "trace_columns", "TraceFile", "read_trace", "check_trace"]

TRACE_NUMERIC = ("iter", "model", "log_lik", "d", "accepted")   # and the family's


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


class TraceFile:
    """A chain's trace.csv being written, row by row (a context manager). A write that
    fails (a full disk) is a WriteError; the rows before it stay, and a row cut short
    is one that --resume leaves out."""

    def __init__(self, path: Path, stats, tempered: bool, keep_rows: int = 0):
        self.path, self.tempered, self.failed = path, tempered, False
        with self._writing():
            path.parent.mkdir(parents=True, exist_ok=True)
            if keep_rows:
                _truncate_rows(path, keep_rows)
            self.f = open(path, "a" if keep_rows else "w", newline="")
            self.w = csv.writer(self.f, lineterminator="\n")
            if not keep_rows:
                self.w.writerow(trace_columns(stats, tempered))

    @contextlib.contextmanager
    def _writing(self):
        try:
            yield
        except OSError as e:
            self.failed = True
            raise WriteError.of(self.path, e) from None

    def write(self, it, model, log_lik, stats, d, accepted, swaps) -> None:
        with self._writing():
            self.w.writerow(_trace_row(it, model, log_lik, stats, d, accepted, swaps,
                                       self.tempered))

    def close(self) -> None:
        failed = self.failed         # then the first failure is the one reported
        try:
            with self._writing():
                self.f.close()
        except WriteError:
            if not failed:
                raise

    def __enter__(self):
        return self

    def __exit__(self, *exc):
        self.close()


def _truncate_rows(path: Path, rows: int) -> None:
    """Keep the header and the first `rows` data rows (a crash may have cut a row):
    cut in place, which needs no space on a full disk and loses nothing if killed."""
    with open(path, "rb") as f:
        size = sum(len(line) for _, line in zip(range(rows + 1), f) if line[-1:] == b"\n")
    os.truncate(path, size)


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


def read_trace(path: Path) -> dict:
    """A chain's trace as arrays (iter, model, log_lik, the family's traced
    integers, d, accepted) plus "swap": the swap column's entries ("" untempered).
    A cut last row (the run was killed while writing it) is left out."""
    try:
        lines = path.read_text().split("\n")[:-1]   # the last piece: "" or a cut row
    except (OSError, UnicodeDecodeError) as e:
        raise TraceError(f"{path}: cannot read the trace ({e})") from None
    rows = list(csv.reader(lines))
    if not rows:
        raise TraceError(f"{path}: empty trace (no header)")
    header = rows[0]
    missing = [c for c in TRACE_NUMERIC if c not in header]
    if missing:
        raise TraceError(f"{path}: not an slpy trace (no column {missing[0]!r})")
    body = rows[1:]
    bad = next((k for k, r in enumerate(body, 2) if len(r) != len(header)), None)
    if bad is not None:
        raise TraceError(f"{path}:{bad}: {len(body[bad - 2])} fields where the header "
                         f"has {len(header)}")
    cols = list(zip(*body)) if body else [()] * len(header)
    out = {}
    for c, values in zip(header, cols):
        if c != "swap":
            try:
                out[c] = np.array(values, dtype=float)
            except ValueError:
                k = next(k for k, v in enumerate(values) if not _is_number(v))
                raise TraceError(f"{path}:{k + 2}: {values[k]!r} in column {c!r} is not "
                                 f"a number") from None
    out["swap"] = list(cols[header.index("swap")]) if "swap" in header else []
    return out


def _is_number(text) -> bool:
    try:
        float(text)
        return True
    except ValueError:
        return False


def check_trace(path: Path, cfg, stats=("leaves", "depth")) -> int:
    """The complete data rows of a chain's trace, each checked against the run's
    settings (columns, the kept iterations' numbers, model ids in order of first
    visit, numbers where numbers belong); a row that is not one is a TraceError. A
    cut last row (no newline) is not counted."""
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
