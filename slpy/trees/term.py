"""Tree model terms: the one home of their canonical text, its parsing, and routing rows.

A prior over trees answers with a *model term*::

    node(Feature, Threshold, Left, Right)   a split: rows with Feature =< Threshold go Left
    leaf(rows(Id))                          a leaf: the training rows that reach it

Its *canonical text* is the structure without the row sets (given the data, the
structure determines them): ``node(F,T,L,R)`` and ``leaf`` with no spaces, a feature
name that is not a plain word (letters, digits, underscores) quoted as a Prolog atom,
so that no name can break the text apart, and an integer-valued threshold written as an
integer. It keys the visited models of a run (models.csv), the estimators' trees and
the exact back end's tables.

The API, for everything that reads or writes model terms (trees, report, estimator,
pcfg, benchmarks)::

    canonical(term) -> str          the canonical text of a Prolog model term
    parse(text, names) -> FlatTree  the structure a canonical text stands for, over the
                                    data's feature names (ModelTermError if it is none)
    FlatTree.from_term(term, names) the same from a Prolog model term
    FlatTree                        the structure as flat arrays in pre-order:
        .apply(X)                   the node each row of X reaches (THE routing code)
        .leaf_of(X)                 the leaf each row reaches, numbered left to right
        .text(), .term()            back to canonical text, to a Prolog term
    leaf_row_ids(term)              the leaves' row-set ids, left to right
    leaves_and_depth(term)          (those ids, depth) in one walk
    shape(term)                     (number of leaves, depth)
    feature_key(name)               a feature name as canonical text writes it
    ModelTermError                  what is not a model term (of this data)

Routing is a numba kernel (slpy.trees._term_kernels: 3x to 7x faster than a
vectorised NumPy pass, which the tests keep as its reference).
"""
from __future__ import annotations

import functools
import re
from dataclasses import dataclass

import numpy as np

from ..data.splits import threshold_value
from ..errors import PicklableError
from ..terms.term import Atom, Struct, Var, deref
from . import _term_kernels as K

__all__ = ["ModelTermError", "canonical", "parse", "FlatTree", "leaf_row_ids",
           "leaves_and_depth", "shape", "feature_key"]


class ModelTermError(PicklableError, ValueError):
    """A term or text that is not a tree model term (of this data)."""


# -- walking Prolog model terms ----------------------------------------------------------

def leaf_row_ids(term) -> list[int]:
    """Row-set ids of the leaves of a model term, left to right (fast, iterative)."""
    return leaves_and_depth(term)[0]


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
    """(number of leaves, depth) of a model term (anything not a node/4 is a leaf)."""
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


# -- canonical text ---------------------------------------------------------------------------

@functools.lru_cache(maxsize=4096)
def feature_key(name) -> str:
    """A feature's name as canonical text writes it: as it is when it is made of
    letters, digits and underscores, else quoted as a Prolog atom ('a,b', 'my col'),
    so that no name can break the text apart."""
    if _PLAIN_NAME.match(name):
        return name
    from ..terms.text import quote_text
    return quote_text(name)


_PLAIN_NAME = re.compile(r"\w+\Z", re.ASCII)


def canonical(term) -> str:
    """The canonical text of a model term: its structure, without row-set ids."""
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


# -- the structure as flat arrays ---------------------------------------------------------------

@dataclass(frozen=True, eq=False)
class FlatTree:
    """A tree's structure: its nodes in pre-order as flat arrays (node 0 the root).

    ``feature[i]`` is node i's split feature (an index into ``names``), -1 at a leaf;
    rows with ``X[:, feature[i]] <= threshold[i]`` go to ``left[i]``, the others to
    ``right[i]`` (both -1 at a leaf). In pre-order a split's left child is the next node.
    """
    names: tuple
    feature: np.ndarray
    threshold: np.ndarray
    left: np.ndarray
    right: np.ndarray

    @classmethod
    def from_preorder(cls, names, nodes) -> "FlatTree":
        """From the nodes in pre-order: (feature index, threshold) for a split, None for
        a leaf. The caller checks that they make one tree."""
        k = len(nodes)
        feature = np.full(k, -1, np.int64)
        threshold = np.zeros(k)
        left = np.full(k, -1, np.int64)
        right = np.full(k, -1, np.int64)
        open_ = []          # splits whose right child is still to come
        for i, nd in enumerate(nodes):
            if open_ and i > 0 and nodes[i - 1] is None:
                right[open_.pop()] = i
            if nd is not None:
                feature[i], threshold[i] = nd
                left[i] = i + 1
                open_.append(i)
        return cls(tuple(names), feature, threshold, left, right)

    @classmethod
    def from_term(cls, term, names) -> "FlatTree":
        """The structure of a Prolog model term over the features ``names``."""
        index = {n: i for i, n in enumerate(names)}
        nodes = []
        stack = [term]
        while stack:
            t = deref(stack.pop())
            if type(t) is Struct and t.name == "node" and len(t.args) == 4:
                f, v = deref(t.args[0]), deref(t.args[1])
                fi = index.get(f.name) if type(f) is Atom else \
                    f if type(f) is int and 0 <= f < len(names) else None
                if fi is None or type(v) not in (int, float):
                    raise ModelTermError(f"not a split of this data: {f}, {v}")
                nodes.append((fi, float(v)))
                stack.append(t.args[3])
                stack.append(t.args[2])
            elif type(t) is Var:
                raise ModelTermError("the model term is not fully built")
            elif t == Atom("leaf") or type(t) is Struct and t.name == "leaf" \
                    and len(t.args) == 1:
                nodes.append(None)
            else:
                raise ModelTermError(f"not a model term: {t}")
        return cls.from_preorder(names, nodes)

    # -- reading -------------------------------------------------------------------------
    @property
    def n_nodes(self) -> int:
        return len(self.feature)

    @property
    def leaves(self) -> np.ndarray:
        """Node indices of the leaves, left to right."""
        return np.flatnonzero(self.feature < 0)

    @property
    def n_leaves(self) -> int:
        return int(np.count_nonzero(self.feature < 0))

    @property
    def depth(self) -> int:
        d = np.zeros(self.n_nodes, np.int64)
        for i in np.flatnonzero(self.feature >= 0):     # parents come before children
            d[self.left[i]] = d[self.right[i]] = d[i] + 1
        return int(d.max())

    def nodes(self):
        """(feature name, threshold) for each split, None for each leaf, in pre-order."""
        return [None if f < 0 else (self.names[f], float(t))
                for f, t in zip(self.feature.tolist(), self.threshold.tolist())]

    # -- routing ---------------------------------------------------------------------------
    def apply(self, X) -> np.ndarray:
        """The node (pre-order index) each row of X [n, p] reaches: the one routing
        implementation of model terms."""
        X = np.asarray(X, dtype=np.float64)
        if X.ndim != 2 or X.shape[1] != len(self.names):
            raise ValueError(f"X must have {len(self.names)} columns, not shape {X.shape}")
        return K._apply(X, self.feature, self.threshold, self.left, self.right)

    def leaf_of(self, X) -> np.ndarray:
        """The leaf each row of X reaches, numbered 0, 1, ... left to right."""
        number = np.cumsum(self.feature < 0) - 1
        return number[self.apply(X)]

    # -- writing ---------------------------------------------------------------------------
    def text(self) -> str:
        """The canonical text (``canonical(self.term())``)."""
        parts = []
        stack = [0]
        while stack:
            i = stack.pop()
            if type(i) is str:
                parts.append(i)
            elif self.feature[i] < 0:
                parts.append("leaf")
            else:
                v = threshold_value(float(self.threshold[i]))
                parts.append(f"node({feature_key(self.names[self.feature[i]])},{v!r},")
                stack.extend((")", int(self.right[i]), ",", int(self.left[i])))
        return "".join(parts)

    def term(self, leaf_rows=None):
        """A Prolog model term of this structure; leaf k (left to right) holds
        ``rows(leaf_rows[k])`` (default ``rows(0)``: a placeholder when only the
        structure matters, as for the exact back end's lookups)."""
        atoms = [Atom(n) for n in self.names]
        built = []
        k = self.n_leaves
        for i in range(self.n_nodes - 1, -1, -1):      # children before parents
            f = int(self.feature[i])
            if f < 0:
                k -= 1
                rid = 0 if leaf_rows is None else int(leaf_rows[k])
                built.append(Struct("leaf", (Struct("rows", (rid,)),)))
            else:
                left, right = built.pop(), built.pop()
                built.append(Struct("node", (atoms[f],
                                             threshold_value(float(self.threshold[i])),
                                             left, right)))
        return built[0]


# -- parsing canonical text ---------------------------------------------------------------------

def parse(text: str, names) -> FlatTree:
    """The structure a canonical text stands for, over the feature names ``names`` (in
    the data's column order). Anything else is a ModelTermError."""
    names = list(names)
    keys = {feature_key(f): k for k, f in enumerate(names)}
    by_length = sorted(keys, key=len, reverse=True)      # longest match first
    nodes = []
    i, n, need, closes = 0, len(text), 1, 0
    while i < n:
        if need == 0:
            raise ModelTermError(f"not a model term: {text[:60]}")
        if text.startswith("leaf", i):
            nodes.append(None)
            i += 4
            need -= 1
        elif text.startswith("node(", i):
            i += 5
            name = next((f for f in by_length if text.startswith(f + ",", i)), None)
            j = text.find(",", i + len(name) + 1) if name is not None else -1
            try:
                thr = float(text[i + len(name) + 1:j]) if j > 0 else None
            except ValueError:
                thr = None
            if thr is None:
                raise ModelTermError(f"not a split of this data at {text[i:i + 40]!r}")
            nodes.append((keys[name], thr))
            i = j + 1
            need += 1
        else:
            raise ModelTermError(f"not a model term: {text[:60]}")
        while i < n and text[i] in ",)":
            closes += text[i] == ")"
            i += 1
    splits = sum(1 for t in nodes if t is not None)
    if need != 0 or closes != splits:
        raise ModelTermError(f"not a model term: {text[:60]}")
    return FlatTree.from_preorder(names, nodes)
