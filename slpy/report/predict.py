"""A run's posterior predictive for new rows, from its run directory (`slpy predict`).

The MCMC estimate is recomputed from the visited trees as `slpy run` computes it:
each chain's trees (chain_I/models.csv, canonical terms with visit counts) are rebuilt
on the training data, the chain's predictive is the visit-weighted mean of the trees'
leaf posteriors, and the run's is the mean over chains. The training data are read
again as config.json records them (with the same held-out rows) and must hash as they
did. The exact predictive comes from the PCFG back end compiled with the run's prior,
parameters and data (docs/pcfg.md); it is there for `slpy exact` runs and, on request,
for MCMC runs whose prior is tractable.
"""
from __future__ import annotations

import csv
import math
import os
import sys
from dataclasses import dataclass, field
from pathlib import Path

import numpy as np

from ..family import FamilyError, ModelFamily, get as get_family
from . import ReportError

__all__ = ["RunData", "load_run_data", "mcmc_predictive", "ExactPosterior", "exact_posterior", "read_rows",
           "predict_run"]


# -- the run's data --------------------------------------------------------------------------

@dataclass
class RunData:
    """The training data of a run (bucketed as the run's), its test rows, the leaves'
    Dirichlet alpha, and row sets over the training data."""
    train: object
    test: object | None
    alpha: float
    bucketer: object | None = None
    _rowsets: object | None = field(default=None, repr=False)

    @property
    def rowsets(self):
        if self._rowsets is None:
            from ..data.rowsets import RowSets
            self._rowsets = RowSets(self.train)
        return self._rowsets


def _existing(run, cfg, role, what):
    """The file of one of the run's inputs, from any directory (slpy.runs.resolve_input)."""
    from ..runs import resolve_input
    path = resolve_input(run.path, cfg, role)
    if path is not None and not Path(path).is_file():
        raise ReportError(f"the {what} {cfg[role]} named in config.json is not there "
                          f"(moved or deleted since the run)")
    return path


def load_run_data(run) -> RunData:
    """Read the training (and, for MCMC runs, test) data as the run did."""
    from ..data import DataError, dataset_hash, load_csv
    from ..errors import RunError
    cfg = dict(run.config)
    if not cfg.get("data"):
        raise ReportError(f"{run.path}: the run has no training data")
    cfg["data"] = _existing(run, cfg, "data", "training data")
    bucketer = None
    try:
        if run.kind == "mcmc":
            from ..trees.family import load_data
            cfg["test"] = _existing(run, cfg, "test", "test data")
            train, test, bucketer = load_data(cfg, with_bucketer=True)
            alpha = cfg.get("alpha", 1.0)
        else:
            train = load_csv(cfg["data"], class_col=cfg.get("target"),
                             on_missing=cfg.get("missing", "drop"),
                             categorical=cfg.get("categorical") or ())
            test = None
            if cfg.get("bucket"):
                from ..data.bucket import Bucketer
                bucketer = Bucketer(cfg["bucket"], cfg.get("bucket_method") or "uniform")
                train = bucketer.fit(train.X, train.categorical).transform_dataset(train)
            alpha = cfg.get("dirichlet_alpha", 1.0)
    except (DataError, RunError, ValueError, OSError) as e:
        raise ReportError(f"{run.path}: cannot read the run's data: {e}")
    if cfg.get("data_hash") and dataset_hash(train) != cfg["data_hash"]:
        raise ReportError(f"{run.path}: {cfg['data']} is not the data the run used "
                          f"(its hash differs from config.json's)")
    return RunData(train, test, alpha, bucketer)


# -- MCMC predictive -------------------------------------------------------------------------

def mcmc_predictive(run, data: RunData, X, trees: dict | None = None) -> np.ndarray:
    """Mean over chains of the visit-weighted mean of the trees' predictions: class
    probabilities [n, C] (classification) or means [n] (regression). ``trees`` caches
    canonical term -> Tree across calls."""
    from ..trees.model import Tree
    from ..trees.term import ModelTermError
    trees = {} if trees is None else trees
    X = np.asarray(X, dtype=float)
    classify = data.train.task == "classification"
    preds = []
    for ch in run.chains:
        kept = sum(c for _, c in ch.models)
        if not kept:
            continue
        total = np.zeros((len(X), data.train.n_classes)) if classify else np.zeros(len(X))
        for key, count in ch.models:
            t = trees.get(key)
            if t is None:
                try:
                    t = Tree.from_canonical(key, data.rowsets, data.train, data.alpha)
                except ModelTermError as e:
                    raise ReportError(f"{run.path}: {e}") from None
                trees[key] = t
            total += count * (t.predict_proba(X) if classify else t.predict_mean(X))
        preds.append(total / kept)
    if not preds:
        raise ReportError(f"{run.path}: the chains list no visited models (chain_I/models.csv)")
    return np.mean(preds, axis=0)


# -- exact predictive ------------------------------------------------------------------------

@dataclass
class ExactPosterior:
    """An exact posterior (slpy.pcfg ExactModel) with what prediction needs."""
    model: object
    program: object
    data: RunData
    _table: dict | None = field(default=None, repr=False)

    def tree(self, deriv):
        from ..trees.model import Tree
        return Tree.from_term(self.model.term(deriv), self.program.rowsets, self.data.train,
                              self.data.alpha)

    def predict(self, X) -> np.ndarray:
        """Exact posterior predictive class probabilities of the rows X (raw values:
        bucketed here as the run bucketed its training data)."""
        X = np.asarray(X, dtype=float)
        if self.data.bucketer is not None:
            X = self.data.bucketer.transform(X)
        if self.model.route == "tree":
            return self.model.post.predict_proba(X)
        acc = np.zeros((len(X), self.data.train.n_classes))
        for lp, d in self.model.post.enumerate():
            acc += math.exp(lp) * self.tree(d).predict_proba(X)
        return acc

    def prob(self, canonical_text: str) -> float:
        """Exact posterior probability of the tree with this canonical term."""
        from ..trees.term import canonical, parse
        if self.model.route == "tree":
            term = parse(canonical_text, self.data.train.feature_names).term()
            return math.exp(self.model.post.log_prob_term(term))
        if self._table is None:
            self._table = {}
            for lp, d in self.model.post.enumerate():
                key = canonical(self.model.term(d))
                self._table[key] = self._table.get(key, 0.0) + math.exp(lp)
        return self._table.get(canonical_text, 0.0)

    def top(self, k: int) -> list:
        """[(canonical term, exact probability)] of the k most probable trees."""
        from ..trees.term import canonical
        return [(canonical(self.model.term(d)), math.exp(lp))
                for lp, d in self.model.post.kbest(k)]


def exact_posterior(run, data: RunData, allow_load=()) -> ExactPosterior:
    """Compile the run's prior and data with the PCFG back end (ReportError when it
    does not apply: a regression, a prior outside the fragment, a grammar too large).
    `allow_load`: folders besides the prior's own it may load files from."""
    import slpy.pcfg.builtins  # noqa: F401  (phi_split/4 and friends)
    from ..logic.program import Program, LoadErrors
    from ..terms.term import PrologError
    from ..pcfg.compile import compile_exact, CompileError
    from ..pcfg.grammar import GrammarTooLarge
    from ..trees.likelihood import DirichletLikelihood
    from ..limits import program_limits, MAX_STEPS
    from ..logic.kinds import Halt
    cfg = dict(run.config, prior=_existing(run, run.config, "prior", "prior"))
    limits = program_limits(None, MAX_STEPS, None, allow_load)   # every command's defaults
    if data.train.task != "classification" or cfg.get("likelihood") not in (None, "dirichlet"):
        raise ReportError(f"{run.path}: the exact back end scores classes with the Dirichlet "
                          f"likelihood; this run does not")
    try:
        kw = {}
        if run.kind == "mcmc":
            from ..mcmc.model import build_model
            program = build_model(cfg, data.train, limits).program
        else:
            program = Program(**limits)
            program.attach_data(data.train)
            for name, text in (cfg.get("params") or {}).items():
                program.set_param(name, program.parse_query(text)[0])
            program.consult(cfg["prior"])
            md = cfg.get("max_depth")
            if md is not None and "max_depth" in program.params:
                program.set_param("max_depth", md)
            elif md is not None:
                kw["max_depth"] = md
            route = cfg.get("route", "auto")
            kw.update(family="tree" if route == "tree" else route,
                      seed=cfg.get("seed", 0), max_nonterminals=cfg.get("max_variants", 20000),
                      max_row_sets=cfg.get("max_row_sets"))
        lik = DirichletLikelihood.from_dataset(data.train, alpha=data.alpha)
        model = compile_exact(program, cfg.get("query", "cart(T)"), lik, **kw)
    except (CompileError, GrammarTooLarge, ValueError) as e:
        raise ReportError(f"{run.path}: the exact back end does not apply: "
                          f"{str(e).splitlines()[0]}")
    except Halt:
        raise ReportError(f"{run.path}: the prior {cfg.get('prior')} called halt")
    except (LoadErrors, PrologError, OSError) as e:
        raise ReportError(f"{run.path}: cannot load the prior {cfg.get('prior')}: "
                          f"{str(e).splitlines()[0]}")
    return ExactPosterior(model, program, data)


# -- new rows --------------------------------------------------------------------------------

def read_rows(path, train, class_col: str | None = None, missing: str = "drop") -> tuple:
    """(X [n, p] in the training data's column order, true labels or None, number of
    rows left out for a missing value, {categorical feature: {level the training data
    lack: rows}}) of a CSV file whose header names the features (in any order). The
    labels are the column ``class_col``, else ``class``, when the file has it; an
    unknown column, or a class the training data lack, is an error."""
    from ..data.dataset import DataError, read_rows as read, encode_labels
    try:
        rows = read(path, class_col, like=train, response=False, on_missing=missing)
        if rows.labels is not None and train.task == "classification":
            encode_labels(path, rows.labels, train.classes, rows.lines)
    except DataError as e:
        raise ReportError(str(e)) from None
    return rows.X, rows.labels, rows.n_dropped, rows.unseen


def _target(config):
    return config.get("target") or config.get("class_col")   # class_col: older runs


def _predicting_family(name):
    """The registered model family `name` when it predicts runs (it overrides
    ModelFamily.predict_run), else None."""
    try:
        fam = get_family(name)
    except FamilyError:
        return None
    return None if type(fam).predict_run is ModelFamily.predict_run else fam


def _fmt(x) -> str:
    return repr(round(float(x), 12))


def predict_run(run_dir, test_csv, out=None, exact: bool = False,
                missing: str = "drop", allow_load=()) -> list[str]:
    """Write the predictions of the run at run_dir for the rows of test_csv (to the file
    out, or standard output); returns summary lines (accuracy when labels are given)."""
    from .rundir import load_run
    from ..runs import accuracy_figures
    run = load_run(run_dir)
    family = run.config.get("family") or "tree"
    fam = None if family == "tree" else _predicting_family(family)
    if fam is None and family != "tree":
        raise ReportError(f"{run_dir}: slpy predict knows trees and networks, not the "
                          f"model family {family}")
    if exact and family != "tree":
        raise ReportError(f"{run_dir}: --exact is for trees")
    columns, blocks = [], {}
    if fam is not None:
        p, classes, labels = fam.predict_run(run, test_csv, _existing(
            run, run.config, "data", "training data"))
        X, dropped, classify, unseen = p, 0, True, {}
        columns += [f"p_{c}" for c in classes]
        blocks["MCMC"] = p
    else:
        data = load_run_data(run)
        X, labels, dropped, unseen = read_rows(test_csv, data.train, _target(run.config),
                                               missing)
        classify = data.train.task == "classification"
        classes = data.train.classes
    if family == "tree" and run.kind == "mcmc":
        p = mcmc_predictive(run, data, X)
        columns += [f"p_{c}" for c in classes] if classify else ["mean"]
        blocks["MCMC"] = p
    if family == "tree" and (run.kind == "exact" or exact):
        p = exact_posterior(run, data, allow_load).predict(X)
        columns += [f"exact_p_{c}" for c in classes]
        blocks["exact"] = p
    header = ["row"] + (["true"] if labels is not None else []) + columns
    mats = [b.reshape(len(X), -1) for b in blocks.values()]

    def write(f):
        w = csv.writer(f, lineterminator="\n")
        w.writerow(header)
        for i in range(len(X)):
            w.writerow([i] + ([labels[i]] if labels is not None else [])
                       + [_fmt(x) for m in mats for x in m[i]])
    if out is None:
        write(sys.stdout)
    else:        # whole or not at all: a full disk leaves an older file as it was
        tmp = Path(f"{out}.tmp")
        try:
            with open(tmp, "w", newline="") as f:
                write(f)
            os.replace(tmp, out)
        except OSError as e:
            if tmp.is_file():
                tmp.unlink()
            raise ReportError(f"cannot write {out}: {e.strerror or e}") from None
    lines = [f"{len(X)} rows" + (f" ({dropped} with a missing value left out)" if dropped
                                 else "") + (f" -> {out}" if out else "")]
    if unseen:
        from ..cliopts import unseen_note
        lines.append(unseen_note(test_csv, unseen))
    if labels is not None and classify:
        index = {c: k for k, c in enumerate(classes)}
        y = np.array([index[lab] for lab in labels])
        for name, p in blocks.items():
            a = accuracy_figures(p, y)
            lines.append(f"{name}: acc_max {a['acc_max']:.4f}, acc_prob "
                         f"{a['acc_prob']:.4f} ({len(y)} labelled rows)")
    return lines
