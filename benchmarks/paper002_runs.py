"""Paper 002's finished runs read back: a run's tree distribution and hold-out
predictions after the first n iterations of its chain (the 50k and 125k figures are
prefixes of the 250k chains), and the greedy baseline on the same split."""
from __future__ import annotations

from pathlib import Path

import numpy as np

from benchmarks.lib.runs import chain_models, read_json, read_trace
from benchmarks.paper002_data import DATASETS, PRIOR, SEEDS, TEMPERS, run_dir


def parse_canonical(s: str):
    """slpy's canonical model string -> nested ('leaf' | (feature, threshold, L, R))."""
    pos = 0

    def parse():
        nonlocal pos
        if s.startswith("leaf", pos):
            pos += 4
            return "leaf"
        if not s.startswith("node(", pos):
            raise ValueError(f"bad model string at {pos}: {s[pos:pos + 20]!r}")
        pos += 5
        j = s.index(",", pos)
        feat = s[pos:j]
        pos = j + 1
        j = s.index(",", pos)
        thr = float(s[pos:j])
        pos = j + 1
        left = parse()
        pos += 1  # ","
        right = parse()
        pos += 1  # ")"
        return (feat, thr, left, right)

    t = parse()
    if pos != len(s):
        raise ValueError(f"trailing text in model string: {s[pos:]!r}")
    return t


def flatten(tree, index):
    """Nested tree -> arrays (feature, threshold, left, right); feature -1 at leaves."""
    feat, thr, left, right = [], [], [], []
    stack = [(tree, -1, 0)]
    while stack:
        node, parent, side = stack.pop()
        k = len(feat)
        if parent >= 0:
            (left if side == 0 else right)[parent] = k
        if node == "leaf":
            feat.append(-1)
            thr.append(0.0)
            left.append(-1)
            right.append(-1)
            continue
        f, t, lt, rt = node
        feat.append(index[f] if f in index else int(f))
        thr.append(t)
        left.append(-1)
        right.append(-1)
        stack.append((rt, k, 1))
        stack.append((lt, k, 0))
    return (np.array(feat, np.int64), np.array(thr), np.array(left, np.int64),
            np.array(right, np.int64))


def tree_proba(tree, train, X_test, alpha: float = 1.0) -> np.ndarray:
    """Posterior-mean class probabilities of a tree structure fitted to `train`:
    (n_ik + alpha) / (n_i + K alpha) at the leaf each test row reaches."""
    index = {n: i for i, n in enumerate(train.feature_names)}
    feat, thr, left, right = flatten(tree, index)
    k = train.n_classes

    def apply(X):
        at = np.zeros(len(X), np.int64)
        idx = np.arange(len(X)) if feat[0] >= 0 else np.zeros(0, np.int64)
        while idx.size:
            node = at[idx]
            go = X[idx, feat[node]] <= thr[node]
            at[idx] = np.where(go, left[node], right[node])
            idx = idx[feat[at[idx]] >= 0]
        return at

    counts = np.bincount(apply(train.X) * k + train.y, minlength=len(feat) * k)
    counts = counts.reshape(len(feat), k) + alpha
    post = counts[apply(X_test)]
    return post / post.sum(axis=1, keepdims=True)


class Split_:
    """The train/test split of a dataset, as slpy loads it (test classes mapped by name)."""

    def __init__(self, out: Path, name: str):
        from slpy.data import load_csv
        self.train = load_csv(out / "splits" / f"{name}_train.csv")
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
        counts = np.stack([np.bincount(self.ids[:n], minlength=len(self.models))
                           for n in prefixes])
        acc = np.zeros((len(prefixes), len(split.X_test), split.train.n_classes))
        for i in np.nonzero(counts[-1])[0]:
            p = tree_proba(parse_canonical(self.models[i]), split.train, split.X_test)
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

