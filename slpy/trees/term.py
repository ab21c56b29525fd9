"""Tree model terms: the one home of their canonical text, its parsing, and routing rows.

A prior over trees answers with a *model term*::

    node(Feature, Test, Left, Right)   a split: rows that pass Test go Left
    leaf(rows(Id))                     a leaf: the training rows that reach it

Test is a threshold T (rows with Feature =< T go left), ``in([Level, ...])`` for a
categorical feature (rows with one of the listed levels go left, every other level
right), or ``na(Side, T)`` / ``na(Side, in(Levels))`` where missing values go to Side
(``left`` or ``right``); slpy.data.splits has the rules, and where a value a split has
not seen (a new level, a missing value at a split without a side) goes.

Its *canonical text* is the structure without the row sets (given the data, the
structure determines them): ``node(F,T,L,R)`` and ``leaf`` with no spaces, a feature
or level name that is not a plain word (letters, digits, underscores) quoted as a
Prolog atom, so that no name can break the text apart, and an integer-valued
threshold written as an integer. It keys the visited models of a run (models.csv),
the estimators' trees and the exact back end's tables.

The API, for everything that reads or writes model terms (trees, report, estimator,
pcfg, benchmarks)::

    canonical(term) -> str          the canonical text of a Prolog model term
    parse(text, data) -> FlatTree   the structure a canonical text stands for, over the
                                    data's features (a Dataset, or a list of names for
                                    numeric ones); ModelTermError if it is none
    FlatTree.from_term(term, data)  the same from a Prolog model term
    FlatTree                        the structure as flat arrays in pre-order:
        .apply(X)                   the node each row of X reaches (THE routing code)
        .leaf_of(X)                 the leaf each row reaches, numbered left to right
        .nodes()                    (feature, test, missing side) per split, in pre-order
        .text(), .term()            back to canonical text, to a Prolog term
    leaf_row_ids(term)              the leaves' row-set ids, left to right
    leaves_and_depth(term)          (those ids, depth) in one walk
    shape(term)                     (number of leaves, depth)
    feature_key(name)               a feature or level name as canonical text writes it
    ModelTermError                  what is not a model term (of this data)

Routing is a numba kernel (slpy.trees._term_kernels: 3x to 7x faster than a
vectorised NumPy pass, which the tests keep as its reference).
"""
from __future__ import annotations

import functools
import re
from dataclasses import dataclass

import numpy as np

from ..data.splits import (NA_LEFT, NA_RIGHT, SIDE_SHIFT, SIDES, pack_levels, split_of,
                           threshold_value, unpack_levels, value_term)
from ..errors import PicklableError
from ..terms.term import Atom, PrologError, Struct, Var, deref, list_items
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
            v = repr(v) if type(v) in (int, float) else _value_text(v)
            parts.append(f"node({feature_key(f.name) if type(f) is Atom else f},{v},")
            stack.append(")")
            stack.append(t.args[3])
            stack.append(",")
            stack.append(t.args[2])
        else:
            parts.append("leaf")
    return "".join(parts)


def _value_text(v) -> str:
    """The canonical text of a split's test in(Levels) / na(Side, Test)."""
    v = deref(v)
    if type(v) in (int, float):
        return repr(v)
    if type(v) is Struct and v.name == "in" and len(v.args) == 1:
        items, _ = list_items(v.args[0])
        names = [getattr(deref(x), "name", str(deref(x))) for x in items]
        return "in([" + ",".join(feature_key(n) for n in names) + "])"
    if type(v) is Struct and v.name == "na" and len(v.args) == 2:
        return f"na({getattr(deref(v.args[0]), 'name', '?')},{_value_text(v.args[1])})"
    from ..terms.writer import term_to_text
    return term_to_text(v, quoted=True)


def _features(data) -> tuple[list, list]:
    """(feature names, levels per feature) of a Dataset, or of a list of names."""
    names = getattr(data, "feature_names", None)
    if names is None:
        names = list(data)
        return names, [None] * len(names)
    return list(names), list(data.levels or [None] * len(names))


# -- the structure as flat arrays ---------------------------------------------------------------

@dataclass(frozen=True, eq=False)
class FlatTree:
    """A tree's structure: its nodes in pre-order as flat arrays (node 0 the root).

    ``feature[i]`` is node i's split feature (an index into ``names``), -1 at a leaf;
    ``value[i]`` its test (a threshold, or for a categorical feature the listed levels
    packed as slpy.data.splits.pack_levels does), ``side[i]`` where its missing values
    go (0: no side recorded, 1 left, 2 right); rows that pass go to ``left[i]``, the
    others to ``right[i]`` (both -1 at a leaf). In pre-order a split's left child is
    the next node. ``levels[f]``: feature f's levels (None: numeric).
    ``default_left[i]``: where a value node i has not seen goes (the side with more
    training rows); without training sizes, left.
    """
    names: tuple
    feature: np.ndarray
    value: np.ndarray
    left: np.ndarray
    right: np.ndarray
    side: np.ndarray
    levels: tuple
    default_left: np.ndarray

    @property
    def threshold(self) -> np.ndarray:
        return self.value

    @classmethod
    def from_preorder(cls, names, nodes, levels=None, sizes=None) -> "FlatTree":
        """From the nodes in pre-order: (feature index, value[, side]) for a split,
        None for a leaf; ``sizes``: the training rows at each leaf (where unseen values
        go), if known. The caller checks that the nodes make one tree."""
        k = len(nodes)
        feature = np.full(k, -1, np.int64)
        value = np.zeros(k)
        side = np.zeros(k, np.int64)
        left = np.full(k, -1, np.int64)
        right = np.full(k, -1, np.int64)
        open_ = []          # splits whose right child is still to come
        for i, nd in enumerate(nodes):
            if open_ and i > 0 and nodes[i - 1] is None:
                right[open_.pop()] = i
            if nd is not None:
                feature[i], value[i] = nd[0], nd[1]
                side[i] = nd[2] if len(nd) > 2 else 0
                left[i] = i + 1
                open_.append(i)
        default = np.ones(k, dtype=np.bool_)
        if sizes is not None:                  # rows at the leaves; splits add up
            rows = np.asarray(sizes, dtype=np.float64).copy()
            for i in range(k - 1, -1, -1):     # children come after their parent
                if feature[i] >= 0:
                    rows[i] = rows[left[i]] + rows[right[i]]
                    default[i] = rows[left[i]] >= rows[right[i]]
        levels = tuple(levels) if levels is not None else (None,) * len(names)
        return cls(tuple(names), feature, value, left, right, side, levels, default)

    @classmethod
    def from_term(cls, term, data) -> "FlatTree":
        """The structure of a Prolog model term over the features of ``data``."""
        names, levels = _features(data)
        index = {n: i for i, n in enumerate(names)}
        nodes = []
        stack = [term]
        while stack:
            t = deref(stack.pop())
            if type(t) is Struct and t.name == "node" and len(t.args) == 4:
                f, v = deref(t.args[0]), deref(t.args[1])
                fi = index.get(f.name) if type(f) is Atom else \
                    f if type(f) is int and 0 <= f < len(names) else None
                if fi is None:
                    raise ModelTermError(f"not a split of this data: {f}, {v}")
                if levels[fi] is None and type(v) in (int, float):
                    nodes.append((fi, float(v)))
                else:
                    try:
                        code, value = split_of(levels[fi], fi, v)
                    except PrologError:
                        raise ModelTermError(f"not a split of this data: {f}, {v}") \
                            from None
                    nodes.append((fi, value, code >> SIDE_SHIFT))
                stack.append(t.args[3])
                stack.append(t.args[2])
            elif type(t) is Var:
                raise ModelTermError("the model term is not fully built")
            elif t == Atom("leaf") or type(t) is Struct and t.name == "leaf" \
                    and len(t.args) == 1:
                nodes.append(None)
            else:
                raise ModelTermError(f"not a model term: {t}")
        return cls.from_preorder(names, nodes, levels)

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

    @property
    def categorical(self) -> np.ndarray:
        """bool [p]: which features are categorical."""
        return np.array([lv is not None for lv in self.levels], dtype=np.bool_)

    def test(self, i: int):
        """Node i's test: its threshold (a float), or the tuple of its listed levels."""
        f = int(self.feature[i])
        if self.levels[f] is None:
            return float(self.value[i])
        return tuple(self.levels[f][c] for c in unpack_levels(self.value[i]))

    def nodes(self):
        """(feature name, test, missing side: None, "left" or "right") for each split,
        None for each leaf, in pre-order (test as :meth:`test` gives it)."""
        return [None if f < 0 else (self.names[f], self.test(i), SIDES.get(int(s)))
                for i, (f, s) in enumerate(zip(self.feature.tolist(), self.side.tolist()))]

    # -- routing ---------------------------------------------------------------------------
    def apply(self, X) -> np.ndarray:
        """The node (pre-order index) each row of X [n, p] reaches: the one routing
        implementation of model terms. Categorical columns hold level codes (-1: a
        level the training data lack), NaN is a missing value."""
        X = np.asarray(X, dtype=np.float64)
        if X.ndim != 2 or X.shape[1] != len(self.names):
            raise ValueError(f"X must have {len(self.names)} columns, not shape {X.shape}")
        return K._apply(X, self.feature, self.value, self.side, self.categorical,
                        self.default_left, self.left, self.right)

    def leaf_of(self, X) -> np.ndarray:
        """The leaf each row of X reaches, numbered 0, 1, ... left to right."""
        number = np.cumsum(self.feature < 0) - 1
        return number[self.apply(X)]

    # -- writing ---------------------------------------------------------------------------
    def value_text(self, i: int) -> str:
        """Node i's test as canonical text writes it."""
        f = int(self.feature[i])
        if self.levels[f] is None:
            text = repr(threshold_value(float(self.value[i])))
        else:
            text = "in([" + ",".join(feature_key(n) for n in self.test(i)) + "])"
        side = int(self.side[i])
        return f"na({SIDES[side]},{text})" if side else text

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
                parts.append(f"node({feature_key(self.names[self.feature[i]])},"
                             f"{self.value_text(i)},")
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
                code = f | (int(self.side[i]) << SIDE_SHIFT)
                built.append(Struct("node", (atoms[f], value_term(
                    self.levels[f], code, float(self.value[i])), left, right)))
        return built[0]


# -- parsing canonical text ---------------------------------------------------------------------

def parse(text: str, data) -> FlatTree:
    """The structure a canonical text stands for, over the features of ``data`` (a
    Dataset; for numeric features a list of their names does). Anything else is a
    ModelTermError."""
    names, levels = _features(data)
    keys = {feature_key(f): k for k, f in enumerate(names)}
    by_length = sorted(keys, key=len, reverse=True)      # longest match first
    level_keys = [None if lv is None else sorted(
        ((feature_key(x), c) for c, x in enumerate(lv)), key=lambda kc: -len(kc[0]))
        for lv in levels]
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
            got = None if name is None else \
                _parse_value(text, i + len(name) + 1, level_keys[keys[name]])
            if got is None:
                raise ModelTermError(f"not a split of this data at {text[i:i + 40]!r}")
            value, side, j = got
            nodes.append((keys[name], value, side))
            i = j
            need += 1
        else:
            raise ModelTermError(f"not a model term: {text[:60]}")
        while i < n and text[i] in ",)":
            closes += text[i] == ")"
            i += 1
    splits = sum(1 for t in nodes if t is not None)
    if need != 0 or closes != splits:
        raise ModelTermError(f"not a model term: {text[:60]}")
    return FlatTree.from_preorder(names, nodes, levels)


def _parse_value(text: str, i: int, level_keys):
    """(value, side, index past the test's ',') of the test at text[i:], or None."""
    side = 0
    if text.startswith("na(", i):
        for s, name in ((NA_LEFT, "left,"), (NA_RIGHT, "right,")):
            if text.startswith(name, i + 3):
                side = s
                i += 3 + len(name)
                break
        else:
            return None
    if level_keys is None:
        j = text.find(")," if side else ",", i)
        try:
            value = float(text[i:j]) if j > 0 else None
        except ValueError:
            return None
        if value is None:
            return None
        return value, side, j + (2 if side else 1)
    if not text.startswith("in([", i):
        return None
    i += 4
    codes = []
    while not text.startswith("])", i):
        hit = next(((k, c) for k, c in level_keys if text.startswith(k, i)
                    and text[i + len(k):i + len(k) + 1] in (",", "]")), None)
        if hit is None:
            return None
        codes.append(hit[1])
        i += len(hit[0])
        if text.startswith(",", i):
            i += 1
    i += 2
    if side:
        if not text.startswith(")", i):
            return None
        i += 1
    if not text.startswith(",", i):
        return None
    try:
        value = pack_levels(codes)
    except ValueError:
        return None
    return value, side, i + 1
