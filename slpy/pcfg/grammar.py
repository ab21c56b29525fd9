"""The tree-grammar family: tree priors whose goals are row sets (and depths).

A tree prior of the GROWTREE or BCART-PCFG kind is a probabilistic context-free
grammar once its goals are tabled: the nonterminal of a node is its row set (two
boxes holding the same rows are one nonterminal, as paper 004 requires) and, when
the split probability or a depth limit depends on it, its depth. The productions
of a nonterminal are *stop* (a leaf) and one *split* per valid split of its rows,
with the two children's row sets on the right-hand side.

Two families, both checked against the SLPs in priors/:

- ``growtree`` (priors/growtree.slp, Chipman, George & McCulloch 1998): a node at
  depth d splits with probability p_d = alpha (1 + d)^-beta, the split drawn
  uniformly among those leaving >= min_leaf rows a side. With no such split the
  node is a leaf with probability 1 (backtracking drops the split clause). Every
  split is its own production, even when two splits give the same two row sets:
  they are different model terms.
- ``phi`` (priors/phi.slp, paper 004): P(T | X) proportional to phi^-b(T) over
  trees with non-empty boxes; splits giving the same unordered pair of row sets
  count once (the first in (feature, threshold) order represents them). Weights are
  1 for stop and 1/phi per split, normalised globally by Q0(root) (eq. 13 with L = 1).

``max_depth`` truncates either family: a node at that depth cannot split.

The table is built by a breadth-first walk over row sets with
:class:`~slpy.data.rowsets.RowSets` (one ``valid_splits`` call per row set; the walk
clears the table's derived caches now and then, which keeps ids valid); the dynamic
programs over it are numba kernels in :mod:`slpy.pcfg._kernels`.
"""
from __future__ import annotations

import math
import time

import numpy as np

from ..data.rowsets import RowSets
from ..data.splits import FEATURE_MASK, SIDE_SHIFT
from . import _kernels as K
from ..errors import PicklableError

__all__ = ["TreeGrammar", "growtree_grammar", "phi_grammar", "FAMILIES"]

FAMILIES = ("growtree", "phi")
MAX_ROW_SETS = 5_000_000      # default guard: about 1 GB a million row sets at the peak


class GrammarTooLarge(PicklableError, ValueError):
    """The walk over row sets went past ``max_nonterminals``."""


class TreeGrammar:
    """Nonterminals, productions and weights of a tree prior over one data set.

    Public arrays (local index j; row-set id ``rid[j]``):
    ``rid``, ``size``, ``ptr``/``left``/``right``/``feat``/``thr`` (splits, CSR),
    ``expanded`` (splits were listed), ``order`` (by size), ``reach``, ``alive``,
    ``log_stop``, ``log_split`` ([n, n_depth]). ``keyed``: depth is part of the
    nonterminal. ``build_seconds``: time of the walk.
    """

    def __init__(self, rowsets: RowSets, family: str, *, min_leaf: int = 1,
                 max_depth: int | None = None, alpha: float = 0.95, beta: float = 1.0,
                 log_phi: float = 2.0, root: int = 0,
                 max_nonterminals: int | None = None):
        if family not in FAMILIES:
            raise ValueError(f"unknown tree grammar family {family!r}; known: {FAMILIES}")
        if not isinstance(rowsets, RowSets):
            raise TypeError("TreeGrammar needs a RowSets table")
        if not isinstance(min_leaf, (int, np.integer)) or min_leaf < 1:
            raise ValueError(f"min_leaf must be an integer >= 1, not {min_leaf!r}")
        if max_depth is not None and (not isinstance(max_depth, (int, np.integer))
                                      or max_depth < 0):
            raise ValueError(f"max_depth must be a non-negative integer, not {max_depth!r}")
        self.rowsets = rowsets
        self.family = family
        self.min_leaf = int(min_leaf)
        self.max_depth = None if max_depth is None else int(max_depth)
        self.params = {"min_leaf": self.min_leaf, "max_depth": self.max_depth}
        if family == "growtree":
            alpha, beta = float(alpha), float(beta)
            if not (0.0 <= alpha <= 1.0) or not math.isfinite(beta):
                raise ValueError(f"growtree needs 0 <= alpha <= 1 and a finite beta "
                                 f"(alpha={alpha}, beta={beta})")
            self.params.update(alpha=alpha, beta=beta)
            keyed = True
        else:
            log_phi = float(log_phi)
            if not math.isfinite(log_phi):
                raise ValueError(f"log_phi must be finite, not {log_phi}")
            self.params.update(log_phi=log_phi)
            keyed = self.max_depth is not None
        self.keyed = keyed
        t0 = time.perf_counter()
        self._walk(int(root), max_nonterminals)
        self._shape()
        self._weights()
        self.build_seconds = time.perf_counter() - t0

    # ---- the walk over row sets ------------------------------------------------------

    def _walk(self, root: int, limit) -> None:
        rs = self.rowsets
        rs._check(root)
        dedupe = self.family == "phi"
        md = self.max_depth
        local = np.full(max(len(rs), 16), -1, dtype=np.int64)   # row-set id -> local
        rids = [root]
        mind = [0]
        local[root] = 0
        parts = []          # per local j: (feat, thr, left rid, right rid) or None
        i = 0
        limit = MAX_ROW_SETS if limit is None else int(limit)
        while i < len(rids):
            rid, d = rids[i], mind[i]
            i += 1
            if md is not None and d >= md:
                parts.append(None)
                continue
            sl = rs.valid_splits(rid, self.min_leaf)
            if i % 4096 == 0:
                # each split list is read once: dropping the table's derived caches as
                # we go (ids stay valid) keeps the peak memory near the grammar's own
                rs.clear_cache()
            if len(sl) == 0:
                parts.append(_EMPTY)
                continue
            a = np.array(list(sl), dtype=np.float64)     # interns every child
            f = a[:, 0].astype(np.int64)
            t = a[:, 1].copy()
            lr = a[:, 2].astype(np.int64)
            rr = a[:, 3].astype(np.int64)
            if dedupe:
                lo, hi = np.minimum(lr, rr), np.maximum(lr, rr)
                _, first = np.unique(lo * (len(rs) + 1) + hi, return_index=True)
                first.sort()
                f, t, lr, rr = f[first], t[first], lr[first], rr[first]
            parts.append((f, t, lr, rr))
            kids = np.column_stack([lr, rr]).ravel()   # siblings side by side in memory
            if kids.max() >= len(local):
                grown = np.full(max(2 * len(local), len(rs)), -1, dtype=np.int64)
                grown[:len(local)] = local
                local = grown
            new = kids[local[kids] < 0]
            if len(new):
                new = new[np.sort(np.unique(new, return_index=True)[1])]
                local[new] = np.arange(len(rids), len(rids) + len(new))
                rids.extend(new.tolist())
                mind.extend([d + 1] * len(new))
                if len(rids) > limit:
                    raise GrammarTooLarge(
                        f"more than {limit} row sets: bucket the features, limit the "
                        f"depth or raise min_leaf (or the limit)")
        n = len(rids)
        self.rid = np.asarray(rids, dtype=np.int64)
        self.min_depth = np.asarray(mind, dtype=np.int64)
        self.local = local
        self.size = np.fromiter((rs.size(r) for r in rids), np.int64, n)
        self.expanded = np.array([p is not None for p in parts], dtype=np.bool_)
        counts = np.array([0 if p is None else len(p[0]) for p in parts], dtype=np.int64)
        self.ptr = np.zeros(n + 1, dtype=np.int64)
        np.cumsum(counts, out=self.ptr[1:])
        full = [p for p in parts if p is not None and len(p[0])]
        if full:
            self.feat = np.concatenate([p[0] for p in full])
            self.thr = np.concatenate([p[1] for p in full])
            self.left = local[np.concatenate([p[2] for p in full])]
            self.right = local[np.concatenate([p[3] for p in full])]
        else:
            self.feat = np.empty(0, np.int64)
            self.thr = np.empty(0, np.float64)
            self.left = np.empty(0, np.int64)
            self.right = np.empty(0, np.int64)
        # children are strict subsets, so increasing size is a topological order
        self.order = np.argsort(self.size, kind="stable").astype(np.int64)

    def _shape(self) -> None:
        md = -1 if self.max_depth is None else self.max_depth
        if self.keyed:
            n_depth = int(K._depth_bound(self.order, self.ptr, self.left, self.right,
                                         self.expanded))
            if md >= 0:
                n_depth = min(n_depth, md + 1)
        else:
            n_depth = 1
        self.n_depth = n_depth
        self.reach = K._reach(self.order, self.ptr, self.left, self.right, self.expanded,
                              n_depth, self.keyed, md)

    def _weights(self) -> None:
        d = np.arange(self.n_depth, dtype=np.float64)
        with np.errstate(divide="ignore"):
            if self.family == "growtree":
                p = self.params["alpha"] * (1.0 + d) ** (-self.params["beta"])
                if (p > 1).any() or (p < 0).any():
                    raise ValueError("alpha (1 + d)^-beta must lie in [0, 1] at every depth")
                mode, log_p, log_q = 0, np.log(p), np.log1p(-p)
            else:
                mode = 1
                log_p = np.full(self.n_depth, -self.params["log_phi"])
                log_q = np.zeros(self.n_depth)
        self.split_prob = np.exp(log_p) if mode == 0 else None
        md = -1 if self.max_depth is None else self.max_depth
        self.alive, self.log_stop, self.log_split = K._liveness(
            self.order, self.ptr, self.left, self.right, self.expanded, self.reach,
            self.keyed, md, mode, log_p, log_q)
        if not self.alive[0, 0]:
            raise ValueError("the prior gives no tree at all (every derivation fails)")

    # ---- reading ---------------------------------------------------------------------------

    @property
    def n_rowsets(self) -> int:
        return len(self.rid)

    @property
    def n_nonterminals(self) -> int:
        """Nonterminals (row set, depth) that occur in some derivation."""
        return int(np.count_nonzero(self.reach & self.alive))

    @property
    def n_productions(self) -> int:
        """Productions of the reachable nonterminals (stop + splits)."""
        counts = np.diff(self.ptr)
        live = self.reach & self.alive
        n = int(np.count_nonzero(live & (self.log_stop > -np.inf)))
        has_split = live & (self.log_split > -np.inf)
        return n + int((has_split.sum(axis=1) * counts).sum())

    def child_depth(self, d: int) -> int:
        return d + 1 if self.keyed else d

    def local_of(self, rid: int) -> int:
        """Local index of row-set id ``rid``, or -1 when it is not in the grammar."""
        return int(self.local[rid]) if 0 <= rid < len(self.local) else -1

    def splits(self, j: int) -> range:
        return range(int(self.ptr[j]), int(self.ptr[j + 1]))

    def find_split(self, j: int, f: int, t: float) -> int:
        """Index of the split (f, t) of local row set j, or -1."""
        lo, hi = int(self.ptr[j]), int(self.ptr[j + 1])
        hit = np.nonzero((self.feat[lo:hi] == f) & (self.thr[lo:hi] == t))[0]
        return lo + int(hit[0]) if len(hit) else -1

    def class_counts(self) -> np.ndarray:
        """Class counts of every row set, int64 [n_rowsets, n_classes], in one kernel
        call: listed sets count their own rows, the others (never split: their depth
        reached max_depth) a side of a parent's rows."""
        rs = self.rowsets
        ds = rs.dataset
        if ds.task != "classification":
            raise TypeError("class counts need a classification dataset")
        n = self.n_rowsets
        src = np.full(n, -1, dtype=np.int64)
        listed = np.flatnonzero(self.expanded)
        src[listed] = np.arange(len(listed))
        parts = [rs.rows(int(self.rid[j])) for j in listed]
        off = np.zeros(len(parts) + 1, dtype=np.int64)
        np.cumsum([len(p) for p in parts], out=off[1:])
        rows = np.concatenate(parts) if parts else np.empty(0, np.int32)
        par = np.zeros(n, dtype=np.int64)
        pfeat = np.zeros(n, dtype=np.int64)
        pthr = np.zeros(n, dtype=np.float64)
        pleft = np.zeros(n, dtype=np.bool_)
        parent = np.repeat(np.arange(n), np.diff(self.ptr))
        # any parent will do: every parent with splits has its rows listed
        for is_left, kids in ((False, self.right), (True, self.left)):
            par[kids] = parent
            pfeat[kids] = self.feat
            pthr[kids] = self.thr
            pleft[kids] = is_left
        XT = np.ascontiguousarray(ds.X.T)
        return K._set_counts(rows, off, src, XT, ds.y, ds.n_classes, par,
                             pfeat & FEATURE_MASK, pfeat >> SIDE_SHIFT, pthr, pleft,
                             ds.categorical)

    def memory_bytes(self) -> int:
        arrays = (self.rid, self.size, self.ptr, self.left, self.right, self.feat,
                  self.thr, self.expanded, self.order, self.reach, self.alive,
                  self.log_stop, self.log_split, self.local, self.min_depth)
        return int(sum(a.nbytes for a in arrays))

    def describe(self) -> dict:
        return {"family": self.family, **self.params, "row_sets": self.n_rowsets,
                "nonterminals": self.n_nonterminals, "productions": self.n_productions,
                "depth_keyed": self.keyed, "depths": self.n_depth,
                "build_seconds": round(self.build_seconds, 4),
                "memory_bytes": self.memory_bytes()}

    def __repr__(self) -> str:
        return (f"TreeGrammar({self.family}, row_sets={self.n_rowsets}, "
                f"nonterminals={self.n_nonterminals}, depths={self.n_depth})")


_EMPTY = (np.empty(0, np.int64), np.empty(0, np.float64), np.empty(0, np.int64),
          np.empty(0, np.int64))


def growtree_grammar(rowsets: RowSets, alpha: float = 0.95, beta: float = 1.0,
                     min_leaf: int = 5, max_depth: int | None = None, **kw) -> TreeGrammar:
    """The GROWTREE grammar of priors/growtree.slp over ``rowsets``."""
    return TreeGrammar(rowsets, "growtree", alpha=alpha, beta=beta, min_leaf=min_leaf,
                       max_depth=max_depth, **kw)


def phi_grammar(rowsets: RowSets, log_phi: float = 2.0, max_depth: int | None = None,
                min_leaf: int = 1, **kw) -> TreeGrammar:
    """The BCART-PCFG grammar of priors/phi.slp (paper 004) over ``rowsets``."""
    return TreeGrammar(rowsets, "phi", log_phi=log_phi, max_depth=max_depth,
                       min_leaf=min_leaf, **kw)
