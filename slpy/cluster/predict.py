"""Where a new row would go: the posterior predictive cluster assignment (`slpy run
--test/--holdout`, `slpy predict`).

Clusters have no names that last from one partition to the next, so a new row's
assignment is told by the training rows it would join. Given a partition z of the
training rows, the Chinese restaurant process seats a new row x in cluster b with
weight w_z(b) = |b| p(x | the rows of b), or in a cluster of its own with weight
alpha p(x) (not when the prior's max_clusters are open; must- and cannot-links are
about training rows and do not apply), p the posterior predictive of the clustering
model (slpy.cluster.score). The sum of the weights, Z_z(x), is p(x | z) up to a
constant, so over the partitions a run kept (with their visit counts c_z)

    p_J   = sum_z c_z w_z(the cluster of J) / sum_z c_z Z_z(x),   J = 1..n,
    p_new = sum_z c_z alpha p(x) / sum_z c_z Z_z(x)

estimate P(the new row is in the same cluster as training row J | the training rows
and the new row), and P(it is in a cluster of no training row | ...): the posterior of
the n + 1 rows, given the new one, as if it had been clustered with them. These are
the columns p_1, ..., p_n, p_new of predictions.csv. The p_J are not a distribution
over J (rows of one cluster share it); p_new plus the p_J of one row from each cluster
of a partition is 1.
"""
from __future__ import annotations

import math

import numpy as np

from ..data.dataset import DataError
from ..report import ReportError
from .data import ClusterData, load_cluster_csv
from .partition import parse_key
from .score import BlockScorer, mask_of

__all__ = ["NewRows", "predict_proba", "log_predictive", "predict_run"]


class NewRows:
    """Rows to place (a ClusterData) beside the n training rows; ``classes`` names the
    prediction columns, and there is no true class to score them with (``y``)."""

    y = None

    def __init__(self, rows: ClusterData, n_train: int):
        self.rows = rows
        self.classes = self.columns(n_train)

    @staticmethod
    def columns(n_train: int) -> list:
        return [str(j) for j in range(1, n_train + 1)] + ["new"]

    @property
    def n_rows(self) -> int:
        return self.rows.n_rows


def predict_proba(blocks: BlockScorer, alpha: float, max_clusters, partitions,
                  rows: ClusterData) -> np.ndarray:
    """[new rows, n + 1]: the module docstring's p_1..p_n and p_new, over
    `partitions` ((blocks of 0-based training rows, visit count) pairs)."""
    n = blocks.n
    num = np.zeros((rows.n_rows, n + 1))
    den = np.zeros(rows.n_rows)
    scale = np.full(rows.n_rows, -np.inf)     # num and den are kept times exp(-scale)
    pred = _cached_predictive(blocks, rows)
    alone = math.log(alpha) + blocks.predictive([], rows)
    for parts, c in partitions:
        if c <= 0:
            continue
        logw = [math.log(len(b)) + pred(b) for b in parts]
        if max_clusters is None or len(parts) < max_clusters:
            logw.append(alone)
        lw = np.stack(logw, axis=1) + math.log(c)
        top = lw.max(axis=1)
        new_scale = np.maximum(scale, top)
        shrink = np.exp(scale - new_scale)
        num *= shrink[:, None]
        den *= shrink
        w = np.exp(lw - new_scale[:, None])
        for k, b in enumerate(parts):
            num[:, b] += w[:, k:k + 1]
        if len(logw) > len(parts):
            num[:, n] += w[:, len(parts)]
        den += w.sum(axis=1)
        scale = new_scale
    return num / np.where(den > 0, den, 1.0)[:, None]


def _cached_predictive(blocks: BlockScorer, rows: ClusterData):
    """log p(x | the rows of b) of each new row x, a block's computed once."""
    cache: dict = {}

    def pred(b):
        key = mask_of(b)
        v = cache.get(key)
        if v is None:
            v = cache[key] = blocks.predictive(b, rows)
        return v
    return pred


def log_predictive(blocks: BlockScorer, alpha: float, max_clusters, partitions,
                   rows: ClusterData) -> np.ndarray:
    """[partitions, new rows]: log p(x | z) of each new row under each partition z
    (blocks of 0-based training rows), log Z_z(x) of the module's weights over their
    total, n + alpha (n when the partition has max_clusters clusters: no new one)."""
    n = blocks.n
    pred = _cached_predictive(blocks, rows)
    alone = math.log(alpha) + blocks.predictive([], rows)
    out = np.empty((len(partitions), rows.n_rows))
    for i, parts in enumerate(partitions):
        logw = [math.log(len(b)) + pred(b) for b in parts]
        opens = max_clusters is None or len(parts) < max_clusters
        if opens:
            logw.append(alone)
        lw = np.stack(logw, axis=1)
        top = lw.max(axis=1)
        out[i] = top + np.log(np.exp(lw - top[:, None]).sum(axis=1)) \
            - math.log(n + alpha if opens else n)
    return out


def predict_run(family, run, test_csv, data_path) -> tuple:
    """`slpy predict` of a clustering run (slpy.report.rundir.Run) on the rows of
    test_csv: (probabilities [rows, n + 1], n). The training data (at data_path) are
    read again as config.json says and must hash as they did; the prior is rebuilt for
    its alpha and max_clusters."""
    from ..errors import RunError
    from ..mcmc.model import build_model
    from ..runs import resolve_input
    cfg = dict(run.config, test=None, data=data_path,
               prior=resolve_input(run.path, run.config, "prior"))
    try:
        train, _ = family.load_data(cfg)
        if train.hash() != cfg.get("data_hash"):
            raise ReportError(f"{run.path}: the training data changed since the run "
                              f"(their hash differs from config.json's)")
        rows = load_cluster_csv(test_csv, cfg.get("target"),
                                on_missing=cfg.get("missing") or "drop", like=train)
        scorer = build_model(cfg, train).scorer
    except (DataError, RunError, OSError) as e:
        raise ReportError(str(e)) from None
    parts = [(parse_key(m["model"]), m["count"]) for m in run.models if m.get("count")]
    p = predict_proba(scorer.blocks, scorer.alpha, scorer.max_clusters, parts, rows)
    return p, train.n_rows
