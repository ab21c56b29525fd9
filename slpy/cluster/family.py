"""Bayesian clustering as a model family (slpy.family): a posterior over the partitions
of the data's rows.

A model term is ``partition(Zs)``, each row's cluster label (priors/crp.slp). Its score
is the sum of its clusters' log marginal likelihoods (slpy.cluster.score), cached per
cluster; it is traced by its number of clusters; its key lists the clusters as sets of
rows (slpy.cluster.partition). After a run the posterior of the number of clusters,
a point estimate and the co-clustering probabilities are summarised beside the top
partitions.
"""
from __future__ import annotations

import numpy as np

from ..errors import RunError
from ..family import ModelFamily, holdout_rng, register
from ..mcmc.moves import FamilyMove, register_move
from . import moves
from .data import load_cluster_csv
from .partition import (ClusterScorer, Partition, block_names, co_clustering, parse_key,
                        point_estimate, ranges)
from .predict import NewRows, log_predictive, predict_proba, predict_run
from .score import BlockScorer, default_hyper

__all__ = ["ClusterFamily", "CLUSTER", "summary_lines", "HYPER"]

# settings of a run (from Python: run(dict(..., spread=0.7))) that set the score's
# hyperparameters (slpy.cluster.score.default_hyper)
HYPER = ("k0", "a0", "spread", "gamma")

# the point estimate is sought among this many of the most visited partitions
POINT_CANDIDATES = 1000


class ClusterFamily(ModelFamily):
    name = "cluster"
    query = "cluster(P)"
    stats = ClusterScorer.stats
    folder = "partitions"

    def load_data(self, cfg):
        if cfg.get("bucket"):
            raise RunError("--bucket is for trees: a clustering models the values")
        data = load_cluster_csv(cfg["data"], cfg.get("target"),
                                cfg.get("categorical") or "auto",
                                cfg.get("missing") or "drop")
        test = None
        if cfg.get("test"):
            test = load_cluster_csv(cfg["test"], cfg.get("target"),
                                    on_missing=cfg.get("missing") or "drop", like=data)
        elif cfg.get("holdout"):
            n_test = int(round(cfg["holdout"] * data.n_rows))
            if not 0 < n_test < data.n_rows:
                raise RunError(f"--holdout {cfg['holdout']} of {data.n_rows} rows leaves "
                               f"no rows on one side")
            held = np.sort(holdout_rng(cfg).choice(data.n_rows, n_test, replace=False))
            rest = np.setdiff1d(np.arange(data.n_rows), held)
            dropped = data.n_dropped
            data, test = data.take(rest), data.take(held)
            data.n_dropped = dropped
        if test is not None:
            test = NewRows(test, data.n_rows)
        return data, test

    def data_hash(self, train) -> str:
        return train.hash()

    def dropped_rows(self, cfg, train, test) -> dict:
        out = {"data": (train.n_dropped, train.n_rows)}
        if test is not None and cfg.get("test"):
            out["test"] = (test.rows.n_dropped, test.rows.n_rows)
        return out

    def bind(self, program, train, cfg) -> ClusterScorer:
        program.attach("cluster", train)
        kw = {k: float(cfg[k]) for k in HYPER if cfg.get(k) is not None}
        try:
            blocks = BlockScorer(train, default_hyper(train, **kw))
        except (ValueError, TypeError) as e:
            raise RunError(f"the clustering's hyperparameters: {e}") from None
        s = moves.prior_settings(program)
        if not s["alpha"] > 0:
            raise RunError(f"alpha (the concentration) must be a number > 0, not "
                           f"{s['alpha']:g}")
        return ClusterScorer(train.n_rows, blocks, s["alpha"], s["max_clusters"])

    def describe(self, scorer, train, key, term=None):
        blocks = parse_key(key if term is None else scorer.key(term))
        lik = scorer.score_blocks(blocks) if scorer.blocks is not None else None
        return Partition(blocks, lik, train.labels)

    def predict(self, scorer, train, test, visits, kept, models):
        """For each new row, the probability that it joins the cluster of each
        training row, and that it starts a cluster of its own (slpy.cluster.predict)."""
        if test is None or not kept:
            return None
        parts = [(parse_key(k), v.count) for k, v in visits.items()]
        return predict_proba(scorer.blocks, scorer.alpha, scorer.max_clusters, parts,
                             test.rows)

    predictive_label = "the predictive log density of each test row"

    def pointwise_predictive(self, cfg, keys):
        """Each partition's log p(x | the partition) of each test row (the CRP's
        predictive, slpy.cluster.predict.log_predictive); the prior is rebuilt for its
        alpha and max_clusters."""
        from ..mcmc.model import build_model
        train, test = self.load_data(cfg)
        if test is None:
            return None
        scorer = build_model(cfg, train).scorer
        return log_predictive(scorer.blocks, scorer.alpha, scorer.max_clusters,
                              [parse_key(k) for k in keys], test.rows)

    def predict_run(self, run, test_csv, data_path):
        p, n = predict_run(self, run, test_csv, data_path)
        return p, NewRows.columns(n), None

    def summary(self, merged, kept):
        return summary_lines(merged, kept)

    def label(self, stats) -> str:
        k = stats["clusters"]
        return f"{k} cluster{'s' if k != 1 else ''}"

    def report_sections(self, runs, out, top):
        from .report import report_sections    # matplotlib: seconds to load
        return report_sections(runs, out, top)


def summary_lines(merged, kept) -> tuple:
    """(summary.json entries, lines): the posterior of the number of clusters, the
    co-clustering matrix, and a point estimate with the co-clustering within and
    between its clusters."""
    if not merged:
        return {}, []
    ranked = sorted(merged.items(), key=lambda kv: (-kv[1]["count"], kv[0]))
    parts = [(parse_key(k), v["count"]) for k, v in ranked]
    m = co_clustering(parts)
    ks: dict = {}
    for _, v in ranked:
        ks[v["clusters"]] = ks.get(v["clusters"], 0) + v["count"]
    total = sum(ks.values())
    k_post = {k: c / total for k, c in sorted(ks.items())}
    cand = [b for b, _ in parts[:POINT_CANDIDATES]]
    best = cand[point_estimate(cand, m)]
    names = block_names(len(best))
    lines = ["", "number of clusters (posterior): "
             + ", ".join(f"{k}: {p:.3f}" for k, p in k_post.items()),
             f"point estimate (least expected Binder loss of the {len(cand)} most visited "
             f"partitions): {len(best)} cluster{'s' if len(best) != 1 else ''}"]
    lines += [f"  {a} ({len(b)}): {ranges(i + 1 for i in b)}" for a, b in zip(names, best)]
    lines.append("co-clustering P(rows i and j in one cluster), mean within and between "
                 "its clusters:")
    w = max(len(a) for a in names)
    lines.append(" " * (w + 2) + "".join(f"{a:>7}" for a in names))
    for a, b in zip(names, best):
        row = []
        for c in best:
            sub = m[np.ix_(b, c)]
            if b is c:
                sub = sub[~np.eye(len(b), dtype=bool)] if len(b) > 1 else np.ones(1)
            row.append(f"{float(sub.mean()):7.3f}")
        lines.append(f"  {a:<{w}}" + "".join(row))
    unsure = []
    for b in best:
        for i in b:
            if len(b) > 1:
                s = (m[i, b].sum() - 1.0) / (len(b) - 1)
                if s < 0.9:
                    unsure.append((s, i))
    if unsure:
        unsure.sort()
        lines.append("rows least sure of their cluster (mean co-clustering with it): "
                     + ", ".join(f"{i + 1} {s:.2f}" for s, i in unsure[:8]))
    extra = {"items": int(m.shape[0]),
             "clusters_posterior": {str(k): round(p, 6) for k, p in k_post.items()},
             "point_estimate": "[" + ",".join(
                 "[" + ",".join(str(i + 1) for i in b) + "]" for b in best) + "]",
             "co_clustering": [[round(float(x), 6) for x in r] for r in m]}
    return extra, lines


CLUSTER = register(ClusterFamily())

for _name in ("reassign", "splitmerge"):
    register_move(FamilyMove(_name, moves.check_name, moves.reassign_applies, moves.build))
