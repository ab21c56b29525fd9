"""Classification and regression trees as a model family (slpy.family).

A model term is a tree of ``node(Feature, Threshold, Left, Right)`` and
``leaf(Rows)``; its score is the likelihood plugin's (slpy.trees.likelihood) product
over the leaves, its key the structure (slpy.trees.term.canonical), and it is traced
by its number of leaves and its depth. The exact block move of GROWTREE priors is
the PCFG back end's contribution to this family's moves (slpy.pcfg.exact_move).
"""
from __future__ import annotations

import numpy as np

from ..data import dataset_hash, load_csv, train_test_split
from ..data.bucket import Bucketer
from ..data.rowsets import RowSets
from ..errors import RunError
from ..family import ModelFamily, Scorer, holdout_rng, register
from ..terms.term import Atom, Struct, Var, deref
from ..terms.writer import term_to_text
from .greedy import greedy_tree
from .likelihood import make_likelihood
from .model import Tree
from .term import canonical, leaves_and_depth, shape

__all__ = ["TreeFamily", "TreeScorer", "load_data", "TREES"]

# --holdout must leave this many training rows (0.999 of 683 rows once trained on one)
MIN_TRAIN_ROWS = 10


class TreeScorer(Scorer):
    """Scores tree terms with a likelihood plugin (None: the prior alone)."""

    stats = ("leaves", "depth")

    def __init__(self, program, likelihood=None, alpha=1.0):
        self.program = program
        self.likelihood = likelihood
        self.alpha = alpha                 # the leaves' Dirichlet prior, for drawing them
        self.rowsets = getattr(program, "rowsets", None)

    def score(self, term):
        if self.likelihood is None:        # any model term, not only trees
            return 0.0, shape(term)
        ids, depth = leaves_and_depth(term)
        return self.likelihood.log_likelihood(self.rowsets, ids), (len(ids), depth)

    def key(self, term) -> str:
        return canonical(term)

    def pattern(self, term):
        return _open_leaves(term)

    def check(self, term):
        bad = _not_a_tree(term)
        return None if bad is None else \
            f"not a model term node(Feature, Threshold, L, R) / leaf: {bad}"


def _open_leaves(term):
    """The model term with each leaf's row set left open (the prior computes it)."""
    t = deref(term)
    if type(t) is Struct and t.name == "node" and len(t.args) == 4:
        return Struct("node", (t.args[0], t.args[1], _open_leaves(t.args[2]),
                               _open_leaves(t.args[3])))
    return Struct("leaf", (Var(),))


def _not_a_tree(term):
    """The first part of term that is not a node/4 with an atom and a test (a number,
    in(Levels), na(Side, Test)) or a leaf (leaf or leaf(Rows)), or None."""
    stack = [term]
    while stack:
        t = deref(stack.pop())
        if type(t) is Struct and t.name == "node" and len(t.args) == 4:
            f, v = deref(t.args[0]), deref(t.args[1])
            if type(f) is not Atom or type(v) not in (int, float) and not (
                    type(v) is Struct and (v.name, len(v.args)) in (("in", 1), ("na", 2))):
                return term_to_text(t, quoted=True)[:60]
            stack.extend((t.args[3], t.args[2]))
        elif not (t == Atom("leaf") or type(t) is Struct and t.name == "leaf"
                  and len(t.args) == 1):
            return term_to_text(t, quoted=True)[:60]
    return None


def load_data(cfg, with_bucketer=False):
    """(train, test) as a run with settings `cfg` sees them; with_bucketer: (train,
    test, bucketer or None), the bucketer to apply to new rows."""
    regression = cfg.get("likelihood") == "normal"
    target = cfg.get("target", cfg.get("class_col"))   # class_col: runs before --target
    missing = cfg.get("missing", "drop")
    train = load_csv(cfg["data"], class_col=target, regression=regression,
                     on_missing=missing, categorical=cfg.get("categorical") or ())
    test = None
    if cfg.get("test"):
        # matched to the training data by column name; an unknown column or class is an
        # error (matching by position once scored a reordered file silently)
        test = load_csv(cfg["test"], class_col=target, on_missing=missing, like=train)
    elif cfg.get("holdout"):
        rng = holdout_rng(cfg)
        n, dropped = train.n_rows, train.n_dropped
        train, test = train_test_split(train, cfg["holdout"], rng)
        train.n_dropped = dropped            # rows of the file left out, before the split
        if train.n_rows < MIN_TRAIN_ROWS:
            raise RunError(f"--holdout {cfg['holdout']} leaves {train.n_rows} of {n} rows "
                           f"for training (at least {MIN_TRAIN_ROWS} are needed)")
    bucketer = None
    if cfg.get("bucket"):
        # fitted on the training rows only, as the exact back end and the estimators do
        bucketer = Bucketer(int(cfg["bucket"]), cfg.get("bucket_method") or "uniform")
        train = bucketer.fit(train.X, train.categorical).transform_dataset(train)
        if test is not None:
            test = bucketer.transform_dataset(test)
    return (train, test, bucketer) if with_bucketer else (train, test)


class TreeFamily(ModelFamily):
    name = "tree"
    query = "cart(T)"
    stats = TreeScorer.stats
    folder = "trees"

    def load_data(self, cfg):
        return load_data(cfg)

    def data_hash(self, train) -> str:
        return dataset_hash(train)

    def dropped_rows(self, cfg, train, test) -> dict:
        counts = {"data": (train.n_dropped,
                           train.n_rows + (test.n_rows if cfg.get("holdout") else 0))}
        if cfg.get("test"):
            counts["test"] = (test.n_dropped, test.n_rows)
        return counts

    def bind(self, program, train, cfg) -> TreeScorer:
        program.attach_data(train)
        name = cfg.get("likelihood") or ("normal" if train.task == "regression"
                                         else "dirichlet")
        hyper = {"alpha": cfg.get("alpha", 1.0)} if name == "dirichlet" else {}
        return TreeScorer(program, make_likelihood(name, train, **hyper),
                          cfg.get("alpha", 1.0))

    def initial_term(self, cfg, model, train):
        if (cfg.get("init") or "prior") != "greedy":
            return None
        return greedy_tree(model.scorer.rowsets, train,
                           min_leaf=int(cfg.get("params", {}).get("min_leaf", 5)))

    def describe(self, scorer, train, key, term=None):
        if term is None:      # a model sampled in another process: its key only
            return Tree.from_canonical(key, scorer.rowsets, train, scorer.alpha)
        return Tree.from_term(term, scorer.rowsets, train, scorer.alpha)

    def predict(self, scorer, train, test, visits, kept, models):
        if test is None or not kept or train.task != "classification":
            return None
        total = np.zeros((test.n_rows, train.n_classes))
        for key, v in visits.items():
            t = models.get(key) or self.describe(scorer, train, key, v.term)
            total += v.count * t.predict_proba(test.X)
        return total / kept

    def pointwise_predictive(self, cfg, keys):
        train, test = self.load_data(cfg)       # as the chains had them: same split
        if test is None or train.task != "classification" or test.y is None:
            return None
        rowsets, alpha = RowSets(train), cfg.get("alpha", 1.0)
        rows = np.arange(test.n_rows)
        return np.array([Tree.from_canonical(k, rowsets, train, alpha)
                         .predict_proba(test.X)[rows, test.y] for k in keys])

    def label(self, stats) -> str:
        return f"{stats['leaves']} leaves"


TREES = register(TreeFamily())

