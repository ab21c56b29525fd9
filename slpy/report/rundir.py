"""A run directory written by `slpy run` or `slpy exact` as the reports see it.

``load_run(path)`` reads (through slpy.runs, the format's one home) the small files
at once (config, summary, models, predictions, trees) and each chain's trace; every
problem is a one-line ReportError, and a file that does not read as slpy wrote it (a
row cut short or run together, a model that is not one whole term, a count that is
not a number) is refused with its file and line rather than shown.
"""
from __future__ import annotations

from dataclasses import dataclass, field
from pathlib import Path

import numpy as np

from ..runs import TRACE_NUMERIC
from . import ReportError

__all__ = ["Chain", "Run", "load_run"]


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
    ids: np.ndarray | None = None     # each kept iteration's model: an index into models

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

    @property
    def smc(self) -> bool:
        """Whether the run's chains are SMC islands (`slpy run --method smc`): their
        draws are particles, not a Markov chain's iterations."""
        return self.kind == "mcmc" and self.config.get("method") == "smc"

    def model_mcse(self) -> dict:
        """canonical model -> the MCSE of its estimated probability, for the top
        models of summary.json that have one (an exact run's have none)."""
        tops = self.summary.get("top_models")
        return {m["model"]: float(m["mcse"]) for m in tops if isinstance(m, dict)
                and isinstance(m.get("mcse"), (int, float)) and "model" in m} \
            if isinstance(tops, list) else {}

    def model_probs(self) -> dict:
        """canonical model -> estimated (MCMC) or exact posterior probability."""
        return {m["model"]: m["prob"] for m in self.models if m["prob"] is not None}


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


def _float_or_none(s):
    return float(s) if s not in ("", None) else None


_CLOSE = {"(": ")", "[": "]", "{": "}"}


def term_problem(text: str) -> str | None:
    """Why the text of a model (a family's canonical term: trees' node(F,V,L,R) and
    leaf, networks' dag([...]), partitions' [[...]]) is not one whole term, or None:
    empty, a quote left open, a bracket left open or closing nothing."""
    if not text.strip():
        return "an empty model"
    stack, i = [], 0
    while i < len(text):
        c = text[i]
        if c in "'\"":                       # a quoted name: '' and \x inside it
            j = i + 1
            while j < len(text) and not (text[j] == c and text[j + 1:j + 2] != c):
                j += 2 if text[j] == "\\" or text[j:j + 2] == c * 2 else 1
            if j >= len(text):
                return "a quote left open"
            i = j
        elif c in _CLOSE:
            stack.append(_CLOSE[c])
        elif c in ")]}" and (not stack or stack.pop() != c):
            return f"a {c!r} that closes nothing"
        i += 1
    return f"an unterminated term ({len(stack)} bracket(s) left open)" if stack else None


def _models(rd, rows) -> list:
    """models.csv's rows (dicts of text, one a line) checked, numbers as floats."""
    path = rd.file("models.csv")
    out = []
    for line, r in enumerate(rows, 2):
        if "model" not in r:
            raise ReportError(f"{path}:1: not the header of a models.csv (no column "
                              f"'model')")
        why = term_problem(r["model"])
        if why:
            raise ReportError(f"{path}:{line}: {why}: {r['model'][:60]!r}")
        row = {"model": r["model"]}
        for k, v in r.items():
            if k not in ("model", "rank"):
                try:
                    row[k] = _float_or_none(v)
                except ValueError:
                    raise ReportError(f"{path}:{line}: {v!r} in column {k!r} is not a "
                                      f"number") from None
        if not 0 <= (row.get("prob") or 0) <= 1:
            raise ReportError(f"{path}:{line}: probability {row['prob']} outside [0, 1]")
        out.append({"prob": None, **row})
    return out


def _chain_models(rd, i) -> list:
    """chain_I/models.csv's (model, count) pairs, each model checked."""
    models = rd.read_chain_models(i)
    for line, (model, _) in enumerate(models, 2):
        why = term_problem(model)
        if why:
            raise ReportError(f"{rd.chain_file(i, 'models.csv')}:{line}: {why}: "
                              f"{model[:60]!r}")
    return models


def load_run(path) -> Run:
    """Read the run directory at ``path`` (through slpy.runs.RunDir)."""
    from ..runs import RunDir, RunDirError
    try:
        return _load(RunDir(path, create=False))
    except RunDirError as e:
        raise ReportError(str(e)) from None


def _load(rd) -> Run:
    from ..trees.model import Tree
    from ..trees.term import ModelTermError
    path = rd.path
    if not path.is_dir():
        raise ReportError(f"{path}: no such run directory")
    config = rd.read_config()
    rd.read_manifest()                 # a format this slpy reads
    summary = rd.read_summary()
    kind = "exact" if config.get("command") == "exact" else "mcmc"
    chains = []
    if kind == "mcmc":
        for i in range(int(config.get("chains", 1))):
            trace = rd.chain_file(i, "trace.csv")
            if not trace.is_file():
                raise ReportError(f"{path}: chain {i} has no trace ({trace})")
            t = rd.read_trace(i)
            stats = {k: v for k, v in t.items() if k not in TRACE_NUMERIC + ("swap",)}
            chains.append(Chain(i, t["iter"], t["log_lik"], stats, t["accepted"],
                                _swap_counts(t["swap"]), _chain_models(rd, i),
                                t["model"].astype(np.intp)))
        if not any(c.n for c in chains):
            raise ReportError(f"{path}: the chains kept no iterations")
    models = _models(rd, rd.read_models())
    trees = {}
    for name, text in rd.read_model_files("trees").items():
        try:
            trees[name] = Tree.from_json(text)
        except (ValueError, KeyError, ModelTermError) as e:
            raise ReportError(f"{path / 'trees' / name}.json: not an slpy tree ({e})")
    return Run(path, config, summary, kind, chains, models, rd.read_predictions(),
               rd.read_predictions("exact"), trees)
