"""Model terms and trees.

A prior's answer is a model term: ``node(Feature, Threshold, Left, Right)`` (rows with
Feature =< Threshold go left) and ``leaf(rows(Id))``. ``Tree`` is its Python form: it
prints readably, exports to JSON and back, and predicts new rows.
"""
from __future__ import annotations

import functools
import json
import re
from dataclasses import dataclass, field

import numpy as np

from ..errors import PicklableError
from ..terms.term import Atom, Struct, Var, deref


class ModelTermError(PicklableError, ValueError):
    pass


def leaf_row_ids(term) -> list[int]:
    """Row-set ids of the leaves of a model term, left to right (fast, iterative)."""
    out = []
    stack = [term]
    while stack:
        t = stack.pop()
        while type(t) is Var:
            t = t.ref
            if t is None:
                raise ModelTermError("the model term is not fully built")
        if type(t) is not Struct:
            raise ModelTermError(f"not a model term: {t}")
        if t.name == "node" and len(t.args) == 4:
            stack.append(t.args[3])
            stack.append(t.args[2])
        elif t.name == "leaf" and len(t.args) == 1:
            r = deref(t.args[0])
            if type(r) is Struct and r.name == "rows":
                out.append(deref(r.args[0]))
            else:
                raise ModelTermError(f"leaf without a row set: {t}")
        else:
            raise ModelTermError(f"not a model term: {t}")
    return out


def leaves_and_depth(term) -> tuple[list[int], int]:
    """(row-set ids of the leaves left to right, depth) in one walk: the sampler's
    per-state summary."""
    out = []
    depth = 0
    stack = [(term, 0)]
    while stack:
        t, d = stack.pop()
        while type(t) is Var:
            t = t.ref
            if t is None:
                raise ModelTermError("the model term is not fully built")
        if type(t) is Struct and t.name == "node" and len(t.args) == 4:
            stack.append((t.args[3], d + 1))
            stack.append((t.args[2], d + 1))
            continue
        if type(t) is Struct and t.name == "leaf" and len(t.args) == 1:
            r = deref(t.args[0])
            if type(r) is Struct and r.name == "rows":
                out.append(deref(r.args[0]))
                if d > depth:
                    depth = d
                continue
            raise ModelTermError(f"leaf without a row set: {t}")
        raise ModelTermError(f"not a model term: {t}")
    return out, depth


def shape(term) -> tuple[int, int]:
    """(number of leaves, depth) of a model term."""
    leaves = 0
    depth = 0
    stack = [(term, 0)]
    while stack:
        t, d = stack.pop()
        t = deref(t)
        if type(t) is Struct and t.name == "node" and len(t.args) == 4:
            stack.append((t.args[2], d + 1))
            stack.append((t.args[3], d + 1))
        else:
            leaves += 1
            depth = max(depth, d)
    return leaves, depth


@functools.lru_cache(maxsize=4096)
def feature_key(name) -> str:
    """A feature's name as canonical keys write it: as it is when it is made of
    letters, digits and underscores, else quoted as a Prolog atom ('a,b', 'my col'),
    so that no name can break the key apart."""
    if _PLAIN_NAME.match(name):
        return name
    from ..terms.text import quote_text
    return quote_text(name)


_PLAIN_NAME = re.compile(r"\w+\Z", re.ASCII)


def canonical(term) -> str:
    """A key for a model that does not depend on row-set ids: the tree's structure
    (given the data, the structure determines the leaves' rows)."""
    parts = []
    stack = [term]
    while stack:
        t = stack.pop()
        if type(t) is str:
            parts.append(t)
            continue
        t = deref(t)
        if type(t) is Struct and t.name == "node" and len(t.args) == 4:
            f = deref(t.args[0])
            v = deref(t.args[1])
            parts.append(f"node({feature_key(f.name) if type(f) is Atom else f},{v!r},")
            stack.append(")")
            stack.append(t.args[3])
            stack.append(",")
            stack.append(t.args[2])
        else:
            parts.append("leaf")
    return "".join(parts)


@dataclass
class Leaf:
    counts: np.ndarray          # class counts (classification) or [n, sum, css] (regression)
    rows: int | None = None     # row-set id in the fitting data, when known

    def to_dict(self):
        return {"leaf": [float(x) if not float(x).is_integer() else int(x)
                         for x in self.counts]}


@dataclass
class Split:
    feature: int
    name: str
    threshold: float
    left: "Leaf | Split"
    right: "Leaf | Split"


@dataclass
class Tree:
    """A classification or regression tree with its training summaries at the leaves."""
    root: "Leaf | Split"
    feature_names: list[str]
    classes: list[str] | None
    task: str = "classification"
    alpha: float | np.ndarray = 1.0
    _flat: tuple | None = field(default=None, repr=False)

    # -- building ------------------------------------------------------------------
    @classmethod
    def from_term(cls, term, rowsets, dataset, alpha=1.0) -> "Tree":
        names = dataset.feature_names
        index = {n: i for i, n in enumerate(names)}
        regression = dataset.task == "regression"

        def leaf(rid):
            c = rowsets.stats(rid) if regression else rowsets.class_counts(rid)
            return Leaf(np.asarray(c, dtype=float), rid)

        # iterative post-order build
        work = [(term, False)]
        built: list = []
        while work:
            t, done = work.pop()
            t = deref(t)
            if done:
                right = built.pop()
                left = built.pop()
                f = deref(t.args[0])
                fname = f.name if type(f) is Atom else names[f]
                built.append(Split(index[fname], fname, float(deref(t.args[1])), left,
                                   right))
                continue
            if type(t) is Struct and t.name == "node" and len(t.args) == 4:
                work.append((t, True))
                work.append((t.args[3], False))
                work.append((t.args[2], False))
            else:
                built.append(leaf(leaf_row_ids(t)[0]))
        return cls(built[0], list(names), dataset.classes, dataset.task, alpha)

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
                t = _num(n.threshold)
                stack.append((n.right, d + 1))
                stack.append((f"else:  # {n.name} > {t}", d))
                stack.append((n.left, d + 1))
                stack.append((f"if {n.name} <= {t}:", d))
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
            t = _num(n.threshold)
            stack.append((n.right, d + 1, bar + f"{n.name} >  {t}"))
            stack.append((n.left, d + 1, bar + f"{n.name} <= {t}"))
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
                out.append(f'  n{k} [label="{n.name} <= {_num(n.threshold)}"];')
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
        return {"format": "slpy-tree/1", "task": self.task, "features": self.feature_names,
                "classes": self.classes, "alpha": alpha, "tree": _iter_encode(self.root)}

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
        return cls(_iter_decode(d["tree"], index), names, d.get("classes"), d["task"], alpha)

    @classmethod
    def from_json(cls, text: str) -> "Tree":
        return cls.from_dict(json.loads(text))

    def to_term(self):
        """The model term of this tree (leaves as leaf/0 when row sets are unknown)."""
        def enc(n):
            if isinstance(n, Leaf):
                return Struct("leaf", (Struct("rows", (n.rows,)),)) if n.rows is not None \
                    else Atom("leaf")
            v = n.threshold
            return Struct("node", (Atom(n.name), int(v) if float(v).is_integer() else v,
                                   enc(n.left), enc(n.right)))
        return enc(self.root)

    # -- prediction -----------------------------------------------------------------------
    def _flatten(self):
        if self._flat is None:
            nodes = list(self.nodes())
            pos = {id(n): i for i, n in enumerate(nodes)}
            k = len(nodes)
            feat = np.full(k, -1, np.int64)
            thr = np.zeros(k)
            left = np.full(k, -1, np.int64)
            right = np.full(k, -1, np.int64)
            width = len(nodes[0].counts) if isinstance(nodes[0], Leaf) else \
                max(len(n.counts) for n in nodes if isinstance(n, Leaf))
            value = np.zeros((k, width))
            for i, n in enumerate(nodes):
                if isinstance(n, Split):
                    feat[i], thr[i] = n.feature, n.threshold
                    left[i], right[i] = pos[id(n.left)], pos[id(n.right)]
                else:
                    value[i] = n.counts
            self._flat = (feat, thr, left, right, value)
        return self._flat

    def apply(self, X) -> np.ndarray:
        """Index (in pre-order) of the leaf each row of X reaches."""
        X = np.asarray(X, dtype=float)
        feat, thr, left, right, _ = self._flatten()
        at = np.zeros(len(X), np.int64)
        active = feat[at] >= 0
        while active.any():
            idx = np.nonzero(active)[0]
            node = at[idx]
            go_left = X[idx, feat[node]] <= thr[node]
            at[idx] = np.where(go_left, left[node], right[node])
            active = feat[at] >= 0
        return at

    def predict_proba(self, X) -> np.ndarray:
        """Posterior mean class probabilities: (n_ik + alpha_k) / (n_i + sum(alpha))."""
        if self.task != "classification":
            raise ValueError("predict_proba is for classification trees")
        counts = self._flatten()[4][self.apply(X)]
        a = np.broadcast_to(np.asarray(self.alpha, dtype=float), counts.shape[1:])
        post = counts + a
        return post / post.sum(axis=1, keepdims=True)

    def predict_mean(self, X) -> np.ndarray:
        stats = self._flatten()[4][self.apply(X)]
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
            done[id(n)] = {"feature": n.name, "threshold": n.threshold,
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
            built.append(Split(index[name], name, float(x["threshold"]), left, right))
        else:
            stack.append((x, True))
            stack.append((x["right"], False))
            stack.append((x["left"], False))
    return built[0]
