"""Load a run directory written by `slpy run` or `slpy exact` (format: slpy/runs.py).

``load_run(path)`` reads the small files at once (config, summary, models,
predictions, trees) and each chain's trace; every problem is a one-line ReportError.
"""
from __future__ import annotations

import csv
import json
from dataclasses import dataclass, field
from pathlib import Path

import numpy as np

from . import ReportError

__all__ = ["Chain", "Run", "load_run", "read_trace", "read_predictions"]

_TRACE_NUMERIC = ("iter", "model", "log_lik", "d", "accepted")   # and the family's


@dataclass
class Chain:
    """One chain's kept iterations (arrays of equal length) and its visited models;
    the family's traced integers (leaves and depth for trees, edges for networks) are
    in `stats` and read as attributes (chain.leaves)."""
    index: int
    iters: np.ndarray
    log_lik: np.ndarray
    stats: dict                       # name -> array
    accepted: np.ndarray
    swaps: dict                       # "i-j" -> [proposed, accepted] over kept rows
    models: list = field(default_factory=list)   # (canonical, count) by first visit

    def __getattr__(self, name):
        stats = self.__dict__.get("stats") or {}
        if name in stats:
            return stats[name]
        raise AttributeError(name)

    @property
    def n(self) -> int:
        return len(self.log_lik)

    @property
    def acceptance_rate(self) -> float | None:
        """Fraction of kept iterations whose move was accepted (all of them without
        burn-in and thinning)."""
        return float(self.accepted.mean()) if self.n else None


@dataclass
class Run:
    path: Path
    config: dict
    summary: dict
    kind: str                         # "mcmc" or "exact"
    chains: list
    models: list                      # rows of models.csv (dicts; prob as float)
    predictions: tuple | None         # (classes, probs [n, C], true labels) or None
    predictions_exact: tuple | None
    trees: dict                       # trees/*.json name -> Tree
    name: str | None = None           # overrides the label (page.py makes labels unique)

    @property
    def label(self) -> str:
        """How the run is named in tables and figures: its seed, else its directory."""
        if self.name:
            return self.name
        seed = self.config.get("seed")
        return f"seed {seed}" if self.kind == "mcmc" and seed is not None else self.path.name

    def model_probs(self) -> dict:
        """canonical model -> estimated (MCMC) or exact posterior probability."""
        return {m["model"]: m["prob"] for m in self.models if m["prob"] is not None}


def read_trace(path) -> dict:
    """A chain's trace.csv as arrays (iter, model, log_lik, the family's traced integers,
    d, accepted) plus "swap": the list of the swap column's entries ("i-j:0|1" pairs joined by ";",
    or "")."""
    path = Path(path)
    try:
        with open(path, newline="") as f:
            rows = list(csv.reader(f))
    except OSError as e:
        raise ReportError(f"{path}: cannot read the trace ({e.strerror})")
    if not rows:
        raise ReportError(f"{path}: empty trace (no header)")
    header = rows[0]
    missing = [c for c in _TRACE_NUMERIC if c not in header]
    if missing:
        raise ReportError(f"{path}: not an slpy trace (no column {missing[0]!r})")
    body = [r for r in rows[1:] if len(r) == len(header)]  # a cut last row is skipped
    cols = list(zip(*body)) if body else [()] * len(header)
    out = {}
    try:
        for c in header:
            if c != "swap":
                out[c] = np.array(cols[header.index(c)], dtype=float)
    except ValueError:
        raise ReportError(f"{path}: a value of column {c!r} is not a number")
    out["swap"] = list(cols[header.index("swap")]) if "swap" in header else []
    return out


def _swap_counts(entries) -> dict:
    out: dict = {}
    for entry in entries:
        for e in entry.split(";"):     # several pairs a sweep with neighbour swaps
            if not e:
                continue
            pair, _, acc = e.partition(":")
            s = out.setdefault(pair, [0, 0])
            s[0] += 1
            s[1] += acc == "1"
    return dict(sorted(out.items()))


def _read_csv(path) -> list[dict]:
    with open(path, newline="") as f:
        return list(csv.DictReader(f))


def read_predictions(path) -> tuple:
    """(classes, probs [n, C], true labels) of a predictions*.csv file."""
    try:
        with open(path, newline="") as f:
            rows = list(csv.reader(f))
        header = rows[0]
        cols = [i for i, h in enumerate(header) if h.startswith("p_")]
        classes = [header[i][2:] for i in cols]
        probs = np.array([[float(r[i]) for i in cols] for r in rows[1:]], dtype=float)
        true = [r[header.index("true")] for r in rows[1:]]
    except (OSError, IndexError, ValueError) as e:
        raise ReportError(f"{path}: not a predictions file ({e})")
    return classes, probs.reshape(len(rows) - 1, len(cols)), true


def _float_or_none(s):
    return float(s) if s not in ("", None) else None


def load_run(path) -> Run:
    """Read the run directory at ``path``."""
    from ..trees.model import Tree
    from ..trees.term import ModelTermError
    path = Path(path)
    if not path.is_dir():
        raise ReportError(f"{path}: no such run directory")
    if not (path / "config.json").is_file():
        raise ReportError(f"{path}: not a run directory (no config.json)")
    from ..runs import RunDir, RunDirError
    try:
        RunDir(path, create=False).read_manifest()     # a format this slpy reads
    except RunDirError as e:
        raise ReportError(str(e)) from None
    try:
        config = json.loads((path / "config.json").read_text())
        summary = json.loads((path / "summary.json").read_text()) \
            if (path / "summary.json").is_file() else {}
    except (OSError, ValueError) as e:
        raise ReportError(f"{path}: unreadable config.json or summary.json ({e})")
    kind = "exact" if config.get("command") == "exact" else "mcmc"
    chains = []
    if kind == "mcmc":
        n = int(config.get("chains", 1))
        for i in range(n):
            cdir = path / f"chain_{i}"
            if not (cdir / "trace.csv").is_file():
                raise ReportError(f"{path}: chain {i} has no trace ({cdir / 'trace.csv'})")
            t = read_trace(cdir / "trace.csv")
            models = []
            if (cdir / "models.csv").is_file():
                models = [(r["model"], int(r["count"])) for r in _read_csv(cdir / "models.csv")]
            stats = {k: v for k, v in t.items() if k not in _TRACE_NUMERIC + ("swap",)}
            chains.append(Chain(i, t["iter"], t["log_lik"], stats, t["accepted"],
                                _swap_counts(t["swap"]), models))
        if not any(c.n for c in chains):
            raise ReportError(f"{path}: the chains kept no iterations")
    models = []
    if (path / "models.csv").is_file():
        for r in _read_csv(path / "models.csv"):
            models.append({"model": r["model"], "prob": _float_or_none(r.get("prob")),
                           **{k: _float_or_none(v) for k, v in r.items()
                              if k not in ("model", "prob", "rank")}})
    pred = path / "predictions.csv"
    pred_exact = path / "predictions_exact.csv"
    trees = {}
    for f in sorted((path / "trees").glob("*.json")) if (path / "trees").is_dir() else []:
        try:
            trees[f.stem] = Tree.from_json(f.read_text())
        except (ValueError, KeyError, ModelTermError) as e:
            raise ReportError(f"{f}: not an slpy tree ({e})")
    return Run(path, config, summary, kind, chains, models,
               read_predictions(pred) if pred.is_file() else None,
               read_predictions(pred_exact) if pred_exact.is_file() else None, trees)
