"""A clustering's model term ``partition(Zs)``: its scorer, its key, the drawing of a
partition, and what visit counts say about the posterior (co-clustering, the number
of clusters, a point estimate).

``Zs`` lists each item's cluster label; items are the data's rows, numbered 1..n in
their order. Labels are arbitrary (the prior numbers clusters in the order they open);
the key is label-free: the clusters as lists of items, each sorted, the lists sorted
by their smallest item, e.g. ``[[1,2,4],[3],[5]]``.
"""
from __future__ import annotations

import json
import math

import numpy as np

from ..family import Scorer
from ..terms.term import NIL, Struct, Var, deref, mklist
from ..terms.writer import term_to_text
from .score import BlockScorer, mask_of, masks_of

__all__ = ["ClusterScorer", "Partition", "labels_of", "blocks_of", "key_of", "parse_key",
           "canonical_labels", "co_clustering", "point_estimate", "adjusted_rand",
           "ranges", "block_names"]


_last = [None]     # (the term read last, its labels): a step reads one term twice


def labels_of(term) -> list:
    """The labels of ``partition(Zs)`` (ValueError when it is not one)."""
    last = _last[0]
    if last is not None and last[0] is term:
        return list(last[1])
    t = deref(term)
    if not (type(t) is Struct and t.name == "partition" and len(t.args) == 1):
        raise ValueError(f"not a model term partition(Labels): {t}")
    out = []
    cell = t.args[0]
    while True:
        while type(cell) is Var and cell.ref is not None:
            cell = cell.ref
        if type(cell) is not Struct or cell.name != "." or len(cell.args) != 2:
            break
        x = cell.args[0]
        while type(x) is Var and x.ref is not None:
            x = x.ref
        out.append(x)
        cell = cell.args[1]
    if cell is not NIL:
        raise ValueError(f"not a list of labels: {t}")
    _last[0] = (term, out)
    return list(out)


def blocks_of(labels) -> list:
    """The blocks (lists of 0-based items) of a label list, in order of their smallest
    item."""
    index: dict = {}
    blocks: list = []
    for i, k in enumerate(labels):
        b = index.get(k)
        if b is None:
            index[k] = b = len(blocks)
            blocks.append([])
        blocks[b].append(i)
    return blocks


def canonical_labels(labels) -> list:
    """Labels 1, 2, ... in the order clusters first appear (the prior's numbering)."""
    index: dict = {}
    return [index.setdefault(k, len(index) + 1) for k in labels]


def key_of(blocks) -> str:
    """The key of blocks of 0-based items (in order of their smallest item)."""
    return "[" + ",".join("[" + ",".join(str(i + 1) for i in b) + "]" for b in blocks) + "]"


def parse_key(key: str) -> list:
    """The blocks (lists of 0-based items) of a key."""
    try:
        blocks = json.loads(key)
        return [[int(i) - 1 for i in b] for b in blocks]
    except (ValueError, TypeError):
        raise ValueError(f"not a partition key [[1,2],[3],...]: {key[:60]!r}") from None


class ClusterScorer(Scorer):
    """Scores ``partition(Zs)`` terms over n items with a BlockScorer (None: the prior
    alone). ``alpha`` and ``max_clusters``: the prior's, for predictions."""

    stats = ("clusters",)
    # an item to its exact conditional most of the time, now and then a split or merge
    # (the generic moves rarely move a clustering: docs/cluster.md)
    proposal = "reassign:0.8,splitmerge:0.2"

    def __init__(self, n: int, blocks: BlockScorer | None = None, alpha: float = 1.0,
                 max_clusters: int | None = None):
        self.n = n
        self.blocks = blocks
        self.alpha = alpha
        self.max_clusters = max_clusters

    def score(self, term):
        z = labels_of(term)
        if len(z) != self.n:
            raise ValueError(f"a partition of {len(z)} items, not {self.n}")
        masks = masks_of(z)
        if self.blocks is None:
            return 0.0, (len(masks),)
        by = self.blocks.by_mask
        return math.fsum(by(m) for m in masks), (len(masks),)

    def score_blocks(self, blocks) -> float:
        if self.blocks is None:
            return 0.0
        by = self.blocks.by_mask
        return math.fsum(by(mask_of(b)) for b in blocks)

    def key(self, term) -> str:
        return key_of(blocks_of(labels_of(term)))

    def check(self, term):
        try:
            z = labels_of(term)
        except ValueError:
            return f"not a partition(Labels) term: {term_to_text(term, quoted=True)[:60]}"
        if len(z) != self.n:
            return f"partition/1 has {len(z)} labels; the data have {self.n} rows"
        if any(type(k) is not int for k in z):
            return "the labels of partition/1 must be integers"
        return None

    def pattern(self, term):
        """The term with its labels renumbered as the prior numbers them."""
        return Struct("partition", (mklist(canonical_labels(labels_of(term))),))


# -- drawing ------------------------------------------------------------------------------

def block_names(k: int) -> list:
    """A, B, ..., Z, then C27, C28, ... (letters: not to be read as row numbers)."""
    return [chr(65 + i) if k <= 26 else f"C{i + 1}" for i in range(k)]


def ranges(items) -> str:
    """1-based items as runs: 1-5, 7, 9-10."""
    items = sorted(items)
    out, i = [], 0
    while i < len(items):
        j = i
        while j + 1 < len(items) and items[j + 1] == items[j] + 1:
            j += 1
        out.append(f"{items[i]}" if i == j else f"{items[i]}-{items[j]}")
        i = j + 1
    return ", ".join(out)


class Partition:
    """A visited partition for the summary (text), the run directory (JSON) and the
    report. ``blocks``: lists of 0-based rows; ``labels``: the rows' classes or None."""

    def __init__(self, blocks, log_lik=None, labels=None):
        self.blocks = [sorted(b) for b in blocks]
        self.log_lik = log_lik
        self.labels = labels

    def __str__(self):
        names = block_names(len(self.blocks))
        lines = []
        for name, b in zip(names, self.blocks):
            line = f"  {name} ({len(b)} row{'s' if len(b) != 1 else ''}): " \
                   f"{ranges(i + 1 for i in b)}"
            if self.labels is not None:
                counts: dict = {}
                for i in b:
                    counts[self.labels[i]] = counts.get(self.labels[i], 0) + 1
                line += "  [" + ", ".join(f"{c} {n}" for c, n in sorted(
                    counts.items(), key=lambda kv: (-kv[1], kv[0]))) + "]"
            lines.append(line)
        if self.labels is not None:
            z = np.empty(sum(len(b) for b in self.blocks), dtype=np.int64)
            for k, b in enumerate(self.blocks):
                z[b] = k
            lines.append(f"  adjusted Rand index with the classes: "
                         f"{adjusted_rand(z, self.labels):.3f}")
        return "\n".join(lines)

    def to_json(self) -> str:
        return json.dumps({"format": "slpy-partition/1",
                           "clusters": [[i + 1 for i in b] for b in self.blocks],
                           "log_lik": self.log_lik}, indent=1)


# -- what the visits say ------------------------------------------------------------------

def _label_vector(blocks, n) -> np.ndarray:
    z = np.empty(n, dtype=np.int64)
    for k, b in enumerate(blocks):
        z[b] = k
    return z


def co_clustering(weighted) -> np.ndarray:
    """[i, j] = the weighted fraction of partitions with items i and j together;
    `weighted`: (blocks, weight) pairs over the same n items."""
    m = None
    total = 0.0
    for blocks, w in weighted:
        n = sum(len(b) for b in blocks)
        if m is None:
            m = np.zeros((n, n))
        onehot = np.zeros((n, len(blocks)))
        onehot[np.arange(n), _label_vector(blocks, n)] = 1.0
        m += w * (onehot @ onehot.T)
        total += w
    if m is None:
        return np.zeros((0, 0))
    return m / max(total, 1e-300)


def point_estimate(candidates, m) -> int:
    """The index of the candidate partition (blocks) with the least expected Binder
    loss under the co-clustering matrix m: the one maximising the sum over pairs it
    puts together of (m_ij - 1/2)."""
    best, arg = -math.inf, 0
    g = m - 0.5
    np.fill_diagonal(g, 0.0)
    for k, blocks in enumerate(candidates):
        s = sum(float(g[np.ix_(b, b)].sum()) for b in blocks if len(b) > 1)
        if s > best + 1e-12:
            best, arg = s, k
    return arg


def adjusted_rand(a, b) -> float:
    """The adjusted Rand index (Hubert & Arabie 1985) of two labellings."""
    _, ia = np.unique(np.asarray(a).astype(str), return_inverse=True)
    _, ib = np.unique(np.asarray(b).astype(str), return_inverse=True)
    n = len(ia)
    table = np.zeros((ia.max() + 1, ib.max() + 1))
    np.add.at(table, (ia, ib), 1)

    def pairs(x):
        return float((x * (x - 1) / 2).sum())
    sum_ij, sum_a, sum_b = pairs(table), pairs(table.sum(1)), pairs(table.sum(0))
    expected = sum_a * sum_b / (n * (n - 1) / 2) if n > 1 else 0.0
    top = (sum_a + sum_b) / 2
    if top == expected:
        return 1.0
    return (sum_ij - expected) / (top - expected)
