"""Predicting one variable of a Bayesian network from the others, averaged over the
sampled DAGs (`slpy run --test/--holdout --target V`, `slpy predict`).

For a DAG G with posterior-mean CPTs theta_ijk = (N_ijk + a_ijk) / (N_ij + a_ij)
(BDeu: a_ijk = ess / (q_i r_i); K2: a_ijk = 1), the target t given the other
variables x is

    P(t = k | x, G, D) ∝ theta_t(k | pa_t) * prod over t's children c of theta_c(x_c | pa_c)

(the factors of t's Markov blanket; the others cancel), and the posterior predictive
is the visit-weighted mean over the DAGs a run kept.
"""
from __future__ import annotations

from dataclasses import dataclass
from pathlib import Path

import numpy as np

from ..data.dataset import DataError, MISSING, _read_table
from ..errors import RunError
from ..family import holdout_rng
from ..report import ReportError
from .dag import parse_key
from .data import DiscreteData, load_discrete_csv
from .score import family_counts, family_prior

__all__ = ["Rows", "read_rows_like", "holdout_split", "predict_proba", "predict_run",
           "load_train_test"]


def load_train_test(cfg) -> tuple:
    """(training data, test Rows or None) as a run with settings `cfg` reads them."""
    if cfg.get("bucket"):
        raise RunError("--bucket is for trees: a network's variables are categories")
    data = load_discrete_csv(cfg["data"], count=cfg.get("count"))
    test = None
    if cfg.get("test"):
        test = read_rows_like(cfg["test"], data, cfg.get("target"))
    elif cfg.get("holdout"):
        data, test = holdout_split(data, cfg["holdout"], holdout_rng(cfg), cfg.get("target"))
    return data, test


@dataclass(eq=False)
class Rows:
    """Rows to predict: codes into the training data's levels ([n, n_vars]; the
    target's column is ignored), the target's codes (None when unlabelled) and levels."""
    codes: np.ndarray
    y: np.ndarray | None
    classes: list
    target: int
    source: str = "<rows>"

    @property
    def n_rows(self) -> int:
        return len(self.codes)


def read_rows_like(path, train: DiscreteData, target: str, count: str | None = None
                   ) -> Rows:
    """The rows of a CSV with the training data's variables (matched by name; the
    target's column may be absent), one per sample (a count column repeats a row)."""
    path = Path(path)
    t = _target_index(train, target, path)
    table = _read_table(path)
    header = [h.strip() for h in table[0][1]]
    count = count if count is not None else ("count" if "count" in header else "")
    need = [n for k, n in enumerate(train.names) if k != t]
    absent = [n for n in need if n not in header]
    if absent:
        raise DataError(path, f"no column {absent[0]!r} (the training data's variables "
                              f"are {', '.join(train.names)})")
    labelled = target in header
    codes = np.zeros((len(table) - 1, train.n_vars), dtype=np.int32)
    y = np.zeros(len(table) - 1, dtype=np.int64)
    reps = np.ones(len(table) - 1, dtype=np.int64)
    index = [{v: i for i, v in enumerate(lv)} for lv in train.levels]
    for r, (line, row) in enumerate(table[1:]):
        if len(row) != len(header):
            raise DataError(f"{path}:{line}", f"the row has {len(row)} fields, the header "
                                              f"has {len(header)}")
        for k, name in enumerate(train.names):
            if k == t and not labelled:
                continue
            j = header.index(name)
            v = row[j].strip()
            code = index[k].get(v)
            if code is None:
                what = "missing value" if v in MISSING else "a value the training data " \
                                                            "never has"
                raise DataError(f"{path}:{line}:{j + 1}", f"{what} {v!r} in column {name!r}")
            if k == t:
                y[r] = code
            else:
                codes[r, k] = code
        if count:
            try:
                reps[r] = int(row[header.index(count)])
            except ValueError:
                raise DataError(f"{path}:{line}", f"count {row[header.index(count)]!r} is "
                                                  f"not a whole number") from None
    keep = np.repeat(np.arange(len(reps)), np.maximum(reps, 0))
    return Rows(codes[keep], y[keep] if labelled else None, list(train.levels[t]), t,
                str(path))


def _target_index(train, target, source) -> int:
    if not target:
        raise DataError(source, "name the variable to predict (--target VARIABLE)")
    if target not in train.names:
        raise DataError(source, f"--target {target}: not a variable of the data "
                                f"({', '.join(train.names)})")
    return train.names.index(target)


def holdout_split(data: DiscreteData, fraction: float, rng, target: str
                  ) -> tuple[DiscreteData, Rows]:
    """Hold out `fraction` of the samples (drawn without replacement from the counts)."""
    t = _target_index(data, target, data.source)
    n_test = int(round(fraction * data.n_samples))
    held = rng.multivariate_hypergeometric(data.counts, n_test)
    train = DiscreteData(data.codes, data.counts - held, data.names,
                         [list(lv) for lv in data.levels], data.source)
    rows = np.repeat(data.codes, held, axis=0)
    return train, Rows(rows, rows[:, t].astype(np.int64), list(data.levels[t]), t,
                       data.source)


def predict_proba(train: DiscreteData, score: str, ess: float, dags, rows: Rows
                  ) -> np.ndarray:
    """[rows, levels of the target]: the mean over `dags` ((parent sets, weight) pairs)
    of each DAG's P(target | the other variables)."""
    one = dag_predictor(train, score, ess, rows)
    total = np.zeros((rows.n_rows, int(train.arities[rows.target])))
    weight = 0.0
    for parents, w in dags:
        total += w * one(parents)
        weight += w
    return total / max(weight, 1e-300)


def dag_predictor(train: DiscreteData, score: str, ess: float, rows: Rows):
    """A function of a DAG's parent sets giving [rows, levels of the target]: its
    P(target | the other variables), with the CPTs' posterior means (cached across
    DAGs: a family's CPT is the same in every DAG that has it)."""
    t = rows.target
    r = int(train.arities[t])
    ar = train.arities.astype(np.int64)
    cpts: dict = {}

    def theta(node, parents):
        c = cpts.get((node, parents))
        if c is None:
            n = family_counts(train, node, parents).astype(float)
            a_j, a_jk = family_prior(score, ess, n.shape[0], n.shape[1])
            c = cpts[(node, parents)] = np.log((n + a_jk) / (n.sum(1, keepdims=True) + a_j))
        return c

    n = rows.n_rows
    factors: dict = {}

    def factor(node, ps) -> np.ndarray:
        """[rows, r]: log theta_node(x_node | x_ps) with the target at each level
        (cached: the same in every DAG where node has these parents)."""
        f = factors.get((node, ps))
        if f is None:
            th = theta(node, ps)
            f = factors[(node, ps)] = np.empty((n, r))
            for k in range(r):
                level = np.full(n, k)
                j = np.ravel_multi_index(tuple(level if p == t else rows.codes[:, p]
                                               for p in ps), tuple(ar[list(ps)])) \
                    if ps else np.zeros(n, dtype=np.int64)
                f[:, k] = th[j, level if node == t else rows.codes[:, node]]
        return f

    def one(parents) -> np.ndarray:
        logp = np.zeros((n, r))
        for node in [t] + [c for c, ps in enumerate(parents) if t in ps]:
            logp += factor(node, parents[node])
        logp -= logp.max(axis=1, keepdims=True)
        p = np.exp(logp)
        return p / p.sum(axis=1, keepdims=True)
    return one


def predict_run(family, run, test_csv, data_path) -> tuple:
    """`slpy predict` of a network run (slpy.report.rundir.Run) on the rows of
    test_csv: (probabilities [rows, the target's levels], Rows). The training data
    (at data_path, where the manifest recorded them) are read again as config.json
    says, by `family` (the network family), and must hash as they did."""
    cfg = dict(run.config, test=None, data=data_path)
    if not cfg.get("target"):
        raise ReportError(f"{run.path}: the run names no --target variable to predict "
                          f"(run it with --target VARIABLE)")
    try:
        train, _ = family.load_data(cfg)
        if train.hash() != cfg.get("data_hash"):
            raise ReportError(f"{run.path}: the training data changed since the run "
                              f"(their hash differs from config.json's)")
        rows = read_rows_like(test_csv, train, cfg["target"])
    except DataError as e:
        raise ReportError(str(e)) from None
    dags = [(parse_key(m["model"], train.names), m["count"]) for m in run.models
            if m.get("count")]
    p = predict_proba(train, cfg.get("score") or "bdeu", float(cfg.get("ess") or 1.0),
                      dags, rows)
    return p, rows
