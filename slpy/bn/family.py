"""Bayesian networks over discrete data as a model family (slpy.family).

A model term is ``dag([Node-Parents, ...])``, one family per variable of the data
(priors/bn.slp). Its score is the sum of its families' BDeu or K2 log marginal
likelihoods (slpy.bn.score), cached per (node, parent set), so a move rescores only
the families it changed; it is traced by its number of edges; its key lists the
parent sets in the data's order. After a run the edges' posterior marginals are
summarised beside the top DAGs.
"""
from __future__ import annotations

import numpy as np

from ..errors import RunError
from ..family import ModelFamily, register
from ..mcmc.moves import FamilyMove, register_move
from ..terms.term import PrologError
from . import moves
from .dag import DAG, BNScorer, _key_term, edge_marginals, parse_key, variables_of
from .predict import dag_predictor, load_train_test, predict_proba, predict_run
from .score import FamilyScorer

__all__ = ["BNFamily", "BNScorer", "DAG", "BN", "parse_key"]


class BNFamily(ModelFamily):
    name = "bn"
    query = "bn(G)"
    stats = BNScorer.stats
    folder = "dags"
    queries = True

    def load_data(self, cfg):
        return load_train_test(cfg)

    def data_hash(self, train) -> str:
        return train.hash()

    def bind(self, program, train, cfg) -> BNScorer:
        program.attach("bn", train)
        try:
            fs = FamilyScorer(train, score=cfg.get("score") or "bdeu",
                              ess=float(cfg.get("ess") or 1.0))
        except ValueError as e:
            raise RunError(str(e)) from None
        return BNScorer(train.names, fs)

    def predict(self, scorer, train, test, visits, kept, models):
        """P(target | the other variables), averaged over the visited DAGs
        (slpy.bn.predict)."""
        if test is None or not kept:
            return None
        fs = scorer.families
        dags = [(parse_key(k, scorer.names), v.count) for k, v in visits.items()]
        return predict_proba(train, fs.score, fs.ess, dags, test)

    predictive_label = "the predicted probability of each test row's target value"

    def pointwise_predictive(self, cfg, keys):
        """Each DAG's P(the target's true value | the other variables) of each test
        row (the held-out or --test rows of a run with --target)."""
        train, test = self.load_data(cfg)       # as the chains had them: same split
        if test is None or test.y is None:
            return None
        one = dag_predictor(train, cfg.get("score") or "bdeu", float(cfg.get("ess") or 1.0),
                            test)
        rows = np.arange(test.n_rows)
        return np.array([one(parse_key(k, train.names))[rows, test.y] for k in keys])

    def initial_term(self, cfg, model, train):
        """``--init greedy``: the hill-climbed DAG (slpy.bn.greedy) under the prior's
        parameters link and max_parents (2/3 and no bound where it declares none)."""
        if (cfg.get("init") or "prior") != "greedy":
            return None
        from .greedy import greedy_dag
        try:
            link = float(_param(model.program, "link", 2 / 3))
            k = int(_param(model.program, "max_parents", len(model.scorer.names)))
            ps = greedy_dag(model.scorer.families.local, len(model.scorer.names), k, link)
        except (TypeError, ValueError, PrologError) as e:
            raise RunError(f"--init greedy: {str(e).splitlines()[0]}") from None
        return _key_term(model.scorer.key_of(ps))

    def describe(self, scorer, train, key, term=None):
        ps = scorer.parent_sets(term) if term is not None else parse_key(key, scorer.names)
        lik = scorer.families.total(ps) if scorer.families is not None else None
        return DAG(scorer.names, ps, lik)

    def summary(self, merged, kept):
        names = variables_of(merged)
        if names is None:
            return {}, []
        m = edge_marginals(names, merged, kept)
        table = {f"{names[i]}->{names[j]}": round(float(m[i, j]), 6)
                 for i in range(len(names)) for j in range(len(names)) if m[i, j] > 0}
        w = max(len(n) for n in names)
        lines = ["", "edge posterior marginals (row -> column):",
                 " " * (w + 1) + " ".join(f"{n[:6]:>6}" for n in names)]
        for i, n in enumerate(names):
            lines.append(f"{n:<{w}} " + " ".join(
                "     ." if i == j else f"{m[i, j]:6.3f}" for j in range(len(names))))
        return {"variables": names, "edge_marginals": table}, lines

    def label(self, stats) -> str:
        return f"{stats['edges']} edges"

    def predict_run(self, run, test_csv, data_path):
        p, rows = predict_run(self, run, test_csv, data_path)
        labels = None if rows.y is None else [rows.classes[k] for k in rows.y]
        return p, rows.classes, labels

    def report_sections(self, runs, out, top, query=None):
        from .report import report_sections    # the report's modules: seconds to load
        return report_sections(runs, out, top, query)


BN = register(BNFamily())

register_move(FamilyMove("parents", moves.check_name, moves.parents_applies,
                         moves.parents_move))


def _param(program, name: str, default):
    """The value of the prior's parameter `name` (its expression evaluated), or
    `default` where the prior declares none."""
    if name not in program.params and name not in program.param_overrides:
        return default
    return program.once(f"param({name}, P), X is P")["X"]
