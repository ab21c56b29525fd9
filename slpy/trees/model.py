"""Trees: the Python form of a tree model term (slpy.trees.term) with its leaves'
training summaries. A ``Tree`` prints readably, exports to JSON and back, and predicts
new rows.
"""
from __future__ import annotations

import json
from dataclasses import dataclass, field

import numpy as np

from ..terms.term import Atom, Struct
from ..data.splits import SIDE_SHIFT, SIDES, pack_levels, value_term
from .term import FlatTree, ModelTermError, leaf_row_ids, parse


@dataclass
class Leaf:
    counts: np.ndarray          # class counts (classification) or [n, sum, css] (regression)
    rows: int | None = None     # row-set id in the fitting data, when known

    def to_dict(self):
        return {"leaf": [float(x) if not float(x).is_integer() else int(x)
                         for x in self.counts]}


@dataclass
class Split:
    """A split: rows with ``name <= threshold`` go left, or for a categorical feature
    rows with one of ``levels``; ``missing``: where missing values go ("left",
    "right"; None: no side recorded, slpy.data.splits)."""
    feature: int
    name: str
    threshold: float
    left: "Leaf | Split"
    right: "Leaf | Split"
    levels: tuple | None = None
    missing: str | None = None

    def test_text(self, passed: bool = True) -> str:
        """The test as text ("x <= 3", "colour in {a, b}"), or its negation."""
        if self.levels is not None:
            text = f"{self.name} {'in' if passed else 'not in'} {{{', '.join(self.levels)}}}"
        else:
            text = f"{self.name} {'<=' if passed else '>'} {_num(self.threshold)}"
        if self.missing == ("left" if passed else "right"):
            text += " or missing"
        return text


@dataclass
class Tree:
    """A classification or regression tree with its training summaries at the leaves."""
    root: "Leaf | Split"
    feature_names: list[str]
    classes: list[str] | None
    task: str = "classification"
    alpha: float | np.ndarray = 1.0
    _flat: tuple | None = field(default=None, repr=False)
    #: levels per feature (None: numeric; the whole list None: no categorical feature)
    feature_levels: list | None = None

    # -- building ------------------------------------------------------------------
    @classmethod
    def from_term(cls, term, rowsets, dataset, alpha=1.0) -> "Tree":
        """The tree of a Prolog model term, its leaves summarising their row sets."""
        flat = FlatTree.from_term(term, dataset)
        return cls._build(flat, leaf_row_ids(term), rowsets, dataset, alpha)

    @classmethod
    def from_canonical(cls, text: str, rowsets, dataset, alpha=1.0) -> "Tree":
        """The tree of a canonical text (slpy.trees.term), its leaves summarising the
        training rows that reach them (ModelTermError if it is not a model term)."""
        flat = parse(text, dataset)
        pending = [rowsets.root()]
        rids = []
        for i in range(flat.n_nodes):      # pre-order: a node's rows are known first
            rid = pending.pop()
            if flat.feature[i] < 0:
                rids.append(rid)
            else:
                code = int(flat.feature[i]) | (int(flat.side[i]) << SIDE_SHIFT)
                left, right = rowsets.split(rid, code, float(flat.value[i]))
                pending.append(right)
                pending.append(left)
        return cls._build(flat, rids, rowsets, dataset, alpha)

    @classmethod
    def _build(cls, flat, leaf_rids, rowsets, dataset, alpha) -> "Tree":
        regression = dataset.task == "regression"
        names = dataset.feature_names
        rids = iter(reversed(leaf_rids))
        built = []
        for i in range(flat.n_nodes - 1, -1, -1):       # children before parents
            f = int(flat.feature[i])
            if f < 0:
                rid = next(rids)
                c = rowsets.stats(rid) if regression else rowsets.class_counts(rid)
                built.append(Leaf(np.asarray(c, dtype=float), rid))
            else:
                left, right = built.pop(), built.pop()
                cat = flat.levels[f] is not None
                built.append(Split(f, names[f], np.nan if cat else float(flat.value[i]),
                                   left, right, flat.test(i) if cat else None,
                                   SIDES.get(int(flat.side[i]))))
        return cls(built[0], list(names), dataset.classes, dataset.task, alpha,
                   feature_levels=dataset.levels)

    # -- reading ---------------------------------------------------------------------
    def nodes(self):
        stack = [self.root]
        while stack:
            n = stack.pop()
            yield n
            if isinstance(n, Split):
                stack.append(n.right)
                stack.append(n.left)

    @property
    def n_leaves(self) -> int:
        return sum(1 for n in self.nodes() if isinstance(n, Leaf))

    @property
    def n_nodes(self) -> int:
        return sum(1 for _ in self.nodes())

    @property
    def depth(self) -> int:
        best = 0
        stack = [(self.root, 0)]
        while stack:
            n, d = stack.pop()
            best = max(best, d)
            if isinstance(n, Split):
                stack.append((n.left, d + 1))
                stack.append((n.right, d + 1))
        return best

    def _leaf_text(self, leaf: Leaf) -> str:
        if self.task == "regression":
            n, s = leaf.counts[0], leaf.counts[1]
            return f"mean {s / n:.4g} (n={int(n)})" if n else "empty"
        parts = [f"{c} {int(k)}" for c, k in zip(self.classes, leaf.counts)]
        return " / ".join(parts)

    def __str__(self) -> str:
        lines = []
        stack = [(self.root, 0)]
        while stack:
            n, d = stack.pop()
            pad = "    " * d
            if type(n) is str:
                lines.append(pad + n)
            elif isinstance(n, Leaf):
                lines.append(pad + self._leaf_text(n))
            else:
                stack.append((n.right, d + 1))
                stack.append((f"else:  # {n.test_text(False)}", d))
                stack.append((n.left, d + 1))
                stack.append((f"if {n.test_text()}:", d))
        return "\n".join(lines)

    def export_text(self) -> str:
        """Text in the form of scikit-learn's export_text."""
        return self._export(self.root, 0)

    def _export(self, root, depth) -> str:
        lines = []
        stack = [(root, depth, None)]
        while stack:
            n, d, head = stack.pop()
            if head is not None:
                lines.append(head)
            bar = "|   " * d + "|--- "
            if isinstance(n, Leaf):
                lines.append(bar + self._leaf_text(n))
                continue
            no = n.test_text(False)
            if n.levels is None:            # scikit-learn's ">  t", aligned with "<= t"
                no = no.replace(" > ", " >  ", 1)
            stack.append((n.right, d + 1, bar + no))
            stack.append((n.left, d + 1, bar + n.test_text()))
        return "\n".join(lines)

    def _repr_svg_(self) -> str:
        """The drawing a notebook shows (slpy.trees.svg)."""
        from .svg import tree_svg
        return tree_svg(self)

    def to_dot(self) -> str:
        """Graphviz DOT text."""
        out = ["digraph tree {", '  node [shape=box, fontname="Helvetica"];']
        ids = {}
        stack = [self.root]
        k = 0
        while stack:
            n = stack.pop()
            ids[id(n)] = k
            if isinstance(n, Leaf):
                out.append(f'  n{k} [label="{self._leaf_text(n)}", style=rounded];')
            else:
                out.append(f'  n{k} [label="{n.test_text()}"];')
                stack.append(n.right)
                stack.append(n.left)
            k += 1
        for n in self.nodes():
            if isinstance(n, Split):
                out.append(f'  n{ids[id(n)]} -> n{ids[id(n.left)]} [label="yes"];')
                out.append(f'  n{ids[id(n)]} -> n{ids[id(n.right)]} [label="no"];')
        out.append("}")
        return "\n".join(out)

    # -- JSON ------------------------------------------------------------------------------
    def to_dict(self) -> dict:
        alpha = self.alpha.tolist() if isinstance(self.alpha, np.ndarray) else self.alpha
        d = {"format": "slpy-tree/1", "task": self.task, "features": self.feature_names,
             "classes": self.classes, "alpha": alpha, "tree": _iter_encode(self.root)}
        if self.feature_levels is not None:      # only trees with categorical features
            d["levels"] = {n: lv for n, lv in zip(self.feature_names, self.feature_levels)
                           if lv is not None}
        return d

    def to_json(self) -> str:
        return json.dumps(self.to_dict())

    @classmethod
    def from_dict(cls, d: dict) -> "Tree":
        if d.get("format") != "slpy-tree/1":
            raise ModelTermError("not an slpy tree (format slpy-tree/1)")
        names = d["features"]
        index = {n: i for i, n in enumerate(names)}
        alpha = d.get("alpha", 1.0)
        if isinstance(alpha, list):
            alpha = np.asarray(alpha, dtype=float)
        levels = None
        if d.get("levels"):
            levels = [d["levels"].get(n) for n in names]
        return cls(_iter_decode(d["tree"], index), names, d.get("classes"), d["task"], alpha,
                   feature_levels=levels)

    @classmethod
    def from_json(cls, text: str) -> "Tree":
        return cls.from_dict(json.loads(text))

    def to_term(self):
        """The model term of this tree (leaves as leaf/0 when row sets are unknown)."""
        levels = self.feature_levels or [None] * len(self.feature_names)

        def enc(n):
            if isinstance(n, Leaf):
                return Struct("leaf", (Struct("rows", (n.rows,)),)) if n.rows is not None \
                    else Atom("leaf")
            code, v = self._code(n)
            return Struct("node", (Atom(n.name), value_term(levels[n.feature], code, v),
                                   enc(n.left), enc(n.right)))
        return enc(self.root)

    def _code(self, n: Split) -> tuple[int, float]:
        """The split rule (code, value) of a split (slpy.data.splits)."""
        side = {"left": 1, "right": 2}.get(n.missing, 0)
        if n.levels is None:
            return n.feature | side << SIDE_SHIFT, float(n.threshold)
        index = {x: c for c, x in enumerate(self.feature_levels[n.feature])}
        return n.feature | side << SIDE_SHIFT, pack_levels(index[x] for x in n.levels)

    # -- prediction -----------------------------------------------------------------------
    def _flatten(self):
        """(the structure as a FlatTree, the leaves' counts [n_nodes, width] in pre-order;
        zero rows at splits)."""
        if self._flat is None:
            nodes = list(self.nodes())
            pre = []
            for n in nodes:
                if isinstance(n, Split):
                    code, v = self._code(n)
                    pre.append((n.feature, v, code >> SIDE_SHIFT))
                else:
                    pre.append(None)
            width = max(len(n.counts) for n in nodes if isinstance(n, Leaf))
            value = np.zeros((len(nodes), width))
            rows = np.zeros(len(nodes))
            for i, n in enumerate(nodes):
                if isinstance(n, Leaf):
                    value[i] = n.counts
                    rows[i] = n.counts[0] if self.task == "regression" else n.counts.sum()
            self._flat = (FlatTree.from_preorder(self.feature_names, pre,
                                                 self.feature_levels, rows), value)
        return self._flat

    @property
    def flat(self) -> FlatTree:
        """The structure as flat arrays (slpy.trees.term.FlatTree), nodes in pre-order."""
        return self._flatten()[0]

    def apply(self, X) -> np.ndarray:
        """Index (in pre-order) of the leaf each row of X reaches."""
        return self.flat.apply(X)

    def predict_proba(self, X) -> np.ndarray:
        """Posterior mean class probabilities: (n_ik + alpha_k) / (n_i + sum(alpha))."""
        if self.task != "classification":
            raise ValueError("predict_proba is for classification trees")
        counts = self._flatten()[1][self.apply(X)]
        a = np.broadcast_to(np.asarray(self.alpha, dtype=float), counts.shape[1:])
        post = counts + a
        return post / post.sum(axis=1, keepdims=True)

    def predict_mean(self, X) -> np.ndarray:
        stats = self._flatten()[1][self.apply(X)]
        return np.where(stats[:, 0] > 0, stats[:, 1] / np.maximum(stats[:, 0], 1), np.nan)


def _num(x: float) -> str:
    return str(int(x)) if float(x).is_integer() else f"{x:g}"


def _iter_encode(root):
    # post-order, iterative: deep trees must not hit the recursion limit
    done = {}
    stack = [(root, False)]
    while stack:
        n, ready = stack.pop()
        if isinstance(n, Leaf):
            done[id(n)] = n.to_dict()
        elif ready:
            test = {"threshold": n.threshold} if n.levels is None else \
                {"levels": list(n.levels)}
            if n.missing is not None:
                test["missing"] = n.missing
            done[id(n)] = {"feature": n.name, **test,
                           "left": done.pop(id(n.left)), "right": done.pop(id(n.right))}
        else:
            stack.append((n, True))
            stack.append((n.right, False))
            stack.append((n.left, False))
    return done[id(root)]


def _iter_decode(d, index):
    stack = [(d, False)]
    built = []
    while stack:
        x, ready = stack.pop()
        if "leaf" in x:
            built.append(Leaf(np.asarray(x["leaf"], dtype=float)))
        elif ready:
            right = built.pop()
            left = built.pop()
            name = x["feature"]
            if name not in index:
                raise ModelTermError(f"unknown feature {name!r}")
            if "levels" in x:
                built.append(Split(index[name], name, np.nan, left, right,
                                   tuple(x["levels"]), x.get("missing")))
            else:
                built.append(Split(index[name], name, float(x["threshold"]), left, right,
                                   None, x.get("missing")))
        else:
            stack.append((x, True))
            stack.append((x["right"], False))
            stack.append((x["left"], False))
    return built[0]
