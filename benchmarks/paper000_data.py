"""Paper 000's data and trees: the derived data files (the Fig 5 split of Pima, the
greedy trees, the synthetic data of the box experiment and its prior), and small
helpers on canonical model strings (node(F,V,L,R) / leaf) parsed into nested tuples."""
from __future__ import annotations

import json
from pathlib import Path

import numpy as np

from benchmarks.lib.data import write_csv, write_dataset
from benchmarks.lib.env import BUNDLED as DATA, PRIORS

SPLIT_SEED = 2005        # the 2/3 : 1/3 split of Pima (Fig 5)
SYNTH_SEED = 2005        # the synthetic data of the box experiment

# the boxes of Fig 1 (x2 = glucose, x8 = age, x6 = mass in Pima's column order)
FIG1_BOXES = [("box28", "glucose", "-inf", "127"), ("box28", "age", "-inf", "28"),
              ("box26", "glucose", "128", "inf"), ("box26", "mass", "-inf", "29.8")]

# The known true tree of the box experiment (ours: the paper does not give its tree).
# Its top splits are those of the usual CART tree of Pima and its leaves' probabilities
# of class "pos" are the frequencies of "pos" among Pima's rows in each leaf (rounded):
# leaf L1 is box28 exactly and leaf L4 is box26 exactly, so the boxes are consistent
# with the true tree (each lies within one of its leaves).
TRUE_TREE = ("glucose", 127,
             ("age", 28, ("L1", 0.08),
              ("mass", 26.9, ("L2", 0.07), ("L3", 0.40))),
             ("mass", 29.8, ("L4", 0.32),
              ("glucose", 157, ("L5", 0.60), ("L6", 0.87))))

# the rpart tree of kyphosis as printed in rpart's documentation (rpart 4.1,
# `rpart(Kyphosis ~ Age + Number + Start, data = kyphosis)`), in slpy's form
# (rows with Feature =< Threshold go left; the predictors are integers)
RPART_KYPHOSIS = "node(Start,8,leaf,node(Start,14,node(Age,54,leaf,node(Age,110,leaf,leaf)),leaf))"


# -- small tree helpers (canonical model strings: slpy.trees.term) ----------------

def contains(tree, sub) -> bool:
    """Whether `tree` is `sub` with some of its leaves grown (same splits at the same
    places); both are slpy.trees.term.FlatTree."""
    stack = [(0, 0)]
    while stack:
        i, j = stack.pop()
        if sub.feature[j] < 0:
            continue
        if tree.feature[i] != sub.feature[j] or tree.threshold[i] != sub.threshold[j]:
            return False
        stack += [(tree.left[i], sub.left[j]), (tree.right[i], sub.right[j])]
    return True


def tree_loglik(text: str, ds) -> float:
    """Dirichlet(1, ..., 1) marginal log-likelihood of a structure on a dataset."""
    from slpy.trees.likelihood import tree_log_likelihood
    from slpy.trees.term import parse
    t = parse(text, ds.feature_names)
    leaf = t.leaf_of(ds.X)
    leaves = [np.flatnonzero(leaf == i) for i in range(t.n_leaves)]
    return tree_log_likelihood(ds.y, leaves, n_classes=ds.n_classes)


def n_leaves(text: str, ds) -> int:
    from slpy.trees.term import parse
    return parse(text, ds.feature_names).n_leaves


def vote_class0(models: list[tuple[str, int]], train, test) -> np.ndarray:
    """Per test row, the fraction of sampled trees (weighted by visits) whose leaf's
    majority training class is class 0 (a tie counts one half): the class posterior
    estimate of the paper's Fig 5 experiment."""
    from slpy.trees.term import parse
    total = 0
    acc = np.zeros(test.n_rows)
    for text, count in models:
        t = parse(text, train.feature_names)
        k = t.n_leaves
        ltr = t.leaf_of(train.X)
        c0 = np.bincount(ltr[train.y == 0], minlength=k)
        c1 = np.bincount(ltr[train.y != 0], minlength=k)
        vote = np.where(c0 > c1, 1.0, np.where(c0 == c1, 0.5, 0.0))
        acc += count * vote[t.leaf_of(test.X)]
        total += count
    return acc / total


def true_tree_prob(X, names, t=TRUE_TREE) -> np.ndarray:
    """P(class pos | x) under the true tree of the box experiment."""
    index = {n: i for i, n in enumerate(names)}
    if isinstance(t[0], str) and t[0].startswith("L"):
        return np.full(len(X), t[1])
    f, v, left, right = t
    go = X[:, index[f]] <= v
    return np.where(go, true_tree_prob(X, names, left), true_tree_prob(X, names, right))


def true_tree_model() -> str:
    def enc(t):
        if t[0].startswith("L"):
            return "leaf"
        return f"node({t[0]},{t[1]},{enc(t[2])},{enc(t[3])})"
    return enc(TRUE_TREE)


# -- data ---------------------------------------------------------------------------

def prepare_data(out: Path) -> dict:
    """Write the derived data files (once) and return their paths."""
    from slpy.data import load_csv, train_test_split
    from slpy.data.rowsets import RowSets
    from slpy.trees.greedy import greedy_tree
    from slpy.trees.term import canonical
    d = out / "data"
    d.mkdir(parents=True, exist_ok=True)
    paths = {"bcw": DATA / "bcw.csv", "kyph": DATA / "kyphosis.csv",
             "pima": DATA / "pima.csv"}
    # Fig 5: a seeded 2/3 : 1/3 split of Pima (512 training, 256 test rows)
    tr, te = d / "pima_train23.csv", d / "pima_test13.csv"
    if not (tr.exists() and te.exists()):
        pima = load_csv(paths["pima"])
        a, b = train_test_split(pima, 1 / 3, SPLIT_SEED)
        write_dataset(a, tr)
        write_dataset(b, te)
    paths["pima23_train"], paths["pima23_test"] = tr, te
    # greedy trees: EDITTREE's initial tree (BCW) and Fig 8's starting tree (Pima)
    gfile = d / "greedy_trees.json"
    if not gfile.exists():
        g = {}
        for key in ("bcw", "kyph", "pima"):
            ds = load_csv(paths[key])
            for ml in (5, 7):
                t = canonical(greedy_tree(RowSets(ds), ds, min_leaf=ml))
                g[f"{key}_ml{ml}"] = t
        gfile.write_text(json.dumps(g, indent=1) + "\n")
    greedy = json.loads(gfile.read_text())
    paths["greedy"] = greedy
    init = d / "pima_greedy_tree.pl"
    if not init.exists():
        init.write_text(greedy["pima_ml5"] + ".\n")
    paths["pima_init"] = init
    # the box experiment: synthetic data and the prior with Fig 1's boxes
    paths.update(make_synthetic(d))
    bp = d / "boxes_fig1.slp"
    if not bp.exists():
        facts = "".join(f"const_class_probs({b}, {f}, {lo}, {hi}).\n"
                        for b, f, lo, hi in FIG1_BOXES)
        bp.write_text((PRIORS / "boxes.slp").read_text()
                      + "\n% The boxes of Fig 1 (paper 000), on Pima's column names:\n"
                      + facts)
    paths["boxes_prior"] = bp
    return paths


def make_synthetic(d: Path, n_train: int = 500, n_test: int = 500,
                   n_small: int = 150) -> dict:
    """Synthetic train/test data from the true tree: predictor rows drawn with
    replacement from Pima's 768 rows (so the predictors keep their joint distribution
    and Fig 1's thresholds their meaning), class pos with the probability of the leaf
    of TRUE_TREE the row falls in. Seeded (SYNTH_SEED); the small training set is the
    first n_small rows of the training set."""
    from slpy.data import load_csv
    files = {"synth_train": d / "synth_train.csv", "synth_test": d / "synth_test.csv",
             "synth_train_small": d / "synth_train150.csv"}
    if all(p.exists() for p in files.values()):
        return files
    pima = load_csv(DATA / "pima.csv")
    rng = np.random.default_rng(SYNTH_SEED)
    names = pima.feature_names
    sets = {}
    for key, n in (("synth_train", n_train), ("synth_test", n_test)):
        X = pima.X[rng.integers(0, pima.n_rows, n)]
        y = rng.random(n) < true_tree_prob(X, names)
        sets[key] = (X, np.where(y, "pos", "neg"))
    X, lab = sets["synth_train"]
    # the box prior can only express the true tree's constrained splits if their
    # thresholds are values of the training data (splits are at data values)
    for f, v in (("glucose", 127), ("age", 28), ("mass", 29.8)):
        assert np.isclose(X[:, names.index(f)], v).any(), (f, v)
    for key, (X, lab) in sets.items():
        write_csv(files[key], names, X, lab)
    write_csv(files["synth_train_small"], names, sets["synth_train"][0][:n_small],
              sets["synth_train"][1][:n_small])
    return files
