"""Paper 002's finished runs read back: a run's tree distribution and hold-out
predictions after the first n iterations of its chain (the 50k and 125k figures are
prefixes of the 250k chains), and the greedy baseline on the same split."""
from __future__ import annotations

from pathlib import Path

import numpy as np

from benchmarks.lib.runs import chain_models, read_json, read_trace
from benchmarks.paper002_data import DATASETS, PRIOR, SEEDS, TEMPERS, run_dir


class Split_:
    """The train/test split of a dataset, as slpy loads it (test classes mapped by name)."""

    def __init__(self, out: Path, name: str):
        from slpy.data import RowSets, load_csv
        self.train = load_csv(out / "splits" / f"{name}_train.csv")
        self.rowsets = RowSets(self.train)
        test = load_csv(out / "splits" / f"{name}_test.csv")
        m = {c: self.train.classes.index(c) for c in test.classes}
        self.X_test = test.X
        self.y_test = np.array([m[test.classes[c]] for c in test.y])
        self.pos = self.train.classes.index(DATASETS[name]["positive"])



class Run:
    """One finished run directory, read back for prefixes of its chain."""

    def __init__(self, path: Path):
        self.path = path
        self.config = read_json(path / "config.json")
        self.summary = read_json(path / "summary.json")
        t = path / "timing.json"
        self.timing = read_json(t) if t.exists() else None
        ids, self.log_lik, leaves, depth = read_trace(path, "model", "log_lik", "leaves",
                                                      "depth")
        self.ids, self.leaves, self.depth = (a.astype(np.int64) for a in (ids, leaves, depth))
        self.models = chain_models(path)

    def tree_probs(self, n: int) -> dict:
        """canonical model -> estimated posterior probability over the first n."""
        c = np.bincount(self.ids[:n])
        nz = np.nonzero(c)[0]
        return {self.models[i]: c[i] / n for i in nz}

    def predictions(self, split: Split_, prefixes) -> dict:
        """n -> test class probabilities averaged over the first n kept trees (cached)."""
        cache = self.path / "paper002_pred.npz"
        prefixes = sorted(set(int(n) for n in prefixes))
        if cache.exists():
            z = np.load(cache)
            if all(f"n{n}" in z for n in prefixes):
                return {n: z[f"n{n}"] for n in prefixes}
        from slpy.trees.model import Tree
        counts = np.stack([np.bincount(self.ids[:n], minlength=len(self.models))
                           for n in prefixes])
        acc = np.zeros((len(prefixes), len(split.X_test), split.train.n_classes))
        for i in np.nonzero(counts[-1])[0]:
            p = Tree.from_canonical(self.models[i], split.rowsets,
                                    split.train).predict_proba(split.X_test)
            acc += counts[:, i, None, None] * p
        res = {n: acc[k] / n for k, n in enumerate(prefixes)}
        np.savez_compressed(cache, **{f"n{n}": v for n, v in res.items()})
        return res


def accuracies(probs, y):
    from slpy.runs import accuracy_figures
    return accuracy_figures(probs, y)


def rhat_fn():
    from slpy.diagnostics import rhat
    return rhat, "slpy.diagnostics.rhat"


def collect(out: Path, plan):
    """Everything the tables and figures need, for the runs that have finished."""
    data = {}
    for name, nmax, prefixes in plan:
        runs = {}
        for t in TEMPERS:
            for s in SEEDS:
                rd = run_dir(out, name, t, s)
                if (rd / "summary.json").exists():
                    runs[(t > 1, s)] = Run(rd)
        if not runs:
            continue
        split = Split_(out, name)
        preds = {k: r.predictions(split, prefixes) for k, r in runs.items()}
        data[name] = dict(runs=runs, split=split, preds=preds, prefixes=prefixes,
                          nmax=nmax)
    return data


def greedy_baseline(split: Split_):
    from slpy import Program
    from slpy.trees.greedy import greedy_tree
    from slpy.trees.model import Tree
    from sklearn.tree import DecisionTreeClassifier
    p = Program()
    p.consult(str(PRIOR))
    p.attach_data(split.train)
    rowsets = p.rowsets
    term = greedy_tree(rowsets, split.train, min_leaf=5)
    tree = Tree.from_term(term, rowsets, split.train)
    ours = float((tree.predict_proba(split.X_test).argmax(1) == split.y_test).mean())
    sk = DecisionTreeClassifier(min_samples_leaf=5, random_state=0).fit(split.train.X,
                                                                        split.train.y)
    skacc = float((sk.predict(split.X_test) == split.y_test).mean())
    return ours, tree.n_leaves, skacc, sk.get_n_leaves()

