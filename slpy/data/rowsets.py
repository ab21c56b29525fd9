"""Row sets: hash-consed subsets of a dataset's rows, with cached splits and counts.

A prior conditioned on X never sees row arrays, only integer row-set ids. Ids are
*hash-consed by content*: the same set of rows gets the same id whatever sequence of
splits produced it, so the likelihood's per-leaf caches and the PCFG back end's
tables key on the set itself.

Content identity uses a Zobrist hash: every dataset row gets two random 64-bit keys
and a set's key is ``(size, XOR of first keys, XOR of second keys)``. XOR makes the
hash of a split's left side a running value in a sweep over a feature's values,
so :meth:`RowSets.valid_splits` finds every child of a node with one pass per
feature (rows grouped by the rank of their value) and builds no child array; rows
are materialised only when asked for. Two different sets of the same size share a
key with probability 2**-128 per pair; :meth:`RowSets.split` compares contents
exactly whenever both are in memory. The key -> id table is an open-addressing hash
table in NumPy arrays, filled by a kernel, so interning thousands of children (a
node of a dataset with continuous features) costs microseconds, not a Python loop.

Cache hits (``valid_splits``, ``split``, ``class_counts``, ``stats``,
``thresholds``) cost one dict lookup; misses call the kernels in ``_kernels``.
A long chain meets hundreds of thousands of row sets, so the caches and the row arrays
have a memory budget (:attr:`RowSets.cache_bytes`): past it they are dropped and
rebuilt on demand, which changes no id and no result.
"""
from __future__ import annotations

import itertools

import numpy as np

from . import _kernels as K
from .dataset import Dataset
from .splitlist import SplitList, _frozen
from .splits import FEATURE_MASK, MAX_SUBSET_LEVELS, NA_RIGHT, SIDE_SHIFT, pack_levels

__all__ = ["RowSets", "SplitList"]

_serial = itertools.count()
_COLLISION = "row-set hash collision (p ~ 2**-128); construct RowSets with another seed"


class RowSets:
    """The table of row sets of one :class:`Dataset`. Id 0 (:meth:`root`) is all rows.

    ``uid`` is unique per instance, so caches elsewhere (likelihoods) can tell two
    tables apart. The table only grows; :meth:`clear_cache` frees derived data.
    """

    #: Count rows into one bucket per distinct value when a feature has at most
    #: ``bucket_factor * (n + 16)`` distinct values, else sort: O(n + R) vs O(n log n).
    bucket_factor: float = 4.0

    #: Estimated bytes of cached splits, summaries and row arrays (all but the root's)
    #: past which they are all dropped; see :meth:`on_clear`.
    cache_bytes: int = 256 * 2**20

    def __init__(self, dataset: Dataset, seed: int = 20050807):
        if not isinstance(dataset, Dataset):
            raise TypeError(f"RowSets needs a Dataset, not {type(dataset).__name__}")
        n = dataset.n_rows
        if n >= 2**31 - 1:
            raise ValueError("row sets use int32 indices: at most 2**31 - 2 rows")
        self.dataset = dataset
        self.uid = next(_serial)
        self._XT = np.ascontiguousarray(dataset.X.T)
        # Dense ranks of each feature's values, once per table: the split sweep
        # then groups rows by rank with counting instead of sorting floats.
        uniq = [np.unique(col) for col in self._XT]
        self._uvals = np.concatenate(uniq)
        self._uoff = np.zeros(len(uniq) + 1, dtype=np.int64)
        np.cumsum([len(u) for u in uniq], out=self._uoff[1:])
        self._rankT = np.empty(self._XT.shape, dtype=np.int32)
        for f, u in enumerate(uniq):
            self._rankT[f] = np.searchsorted(u, self._XT[f])
        self._y = dataset.y
        self._n_classes = dataset.n_classes
        self._n_features = dataset.n_features
        # split rules beyond x <= t (slpy.data.splits): categorical features, and
        # numeric ones with missing values; a feature with neither is "plain"
        self._plain = dataset.plain
        self._cat = dataset.categorical
        self._na = np.isnan(self._XT).any(axis=1) if dataset.missing else \
            np.zeros(self._n_features, dtype=bool)
        self._plain_f = ~self._cat & ~self._na
        self._n_levels = np.array([0 if lv is None else len(lv) for lv in
                                   dataset.levels or [None] * self._n_features], np.int64)
        if self._cat.any() and (self._XT[self._cat] < 0).any():
            raise ValueError("a training set holds a level code -1 (a level new to the "
                             "model): row sets need the levels of their own data")
        bits = np.random.Generator(np.random.PCG64(seed)).bit_generator
        self._z1 = bits.random_raw(n).astype(np.uint64)
        self._z2 = bits.random_raw(n).astype(np.uint64)
        # Hash table slots (key -> id) and, per id, its size, rows (None until
        # needed) and origin (parent, feature, threshold, is_left) to rebuild rows.
        self._slots = self._empty_slots(1024)
        self._count = 0
        self._size: list[int] = []
        self._rows: list[np.ndarray | None] = []
        self._opar = np.empty(0, dtype=np.int64)
        self._ofeat = np.empty(0, dtype=np.int64)
        self._othr = np.empty(0, dtype=np.float64)
        self._oleft = np.empty(0, dtype=bool)
        self._split_cache: dict = {}
        self._valid_cache: dict = {}
        self._has_cache: dict = {}
        self._thr_cache: dict = {}
        self._counts_cache: dict = {}
        self._stats_cache: dict = {}
        self._bytes_derived = 0   # estimated size of the caches above
        self._bytes_rows = 0      # and of the row arrays but the root's
        self._clear_hooks: list = []
        self._pair_buf = (np.zeros(2, np.uint64), np.zeros(2, np.uint64), np.zeros(2, np.int64))
        self.clears = 0           # times the budget dropped everything
        self._intern(np.arange(n, dtype=np.int32), -1, -1, np.nan, False)
        self._bytes_rows = 0

    # ---- the table --------------------------------------------------------------

    def __len__(self) -> int:
        """Number of row sets created so far."""
        return self._count

    def root(self) -> int:
        return 0

    def size(self, rid: int) -> int:
        if rid < 0:
            raise IndexError(f"no row set {rid}")
        return self._size[rid]

    def origin(self, rid: int) -> tuple | None:
        """How ``rid`` was first made: (parent, feature, threshold, is_left); None for the root."""
        self._check(rid)
        if self._opar[rid] < 0:
            return None
        return (int(self._opar[rid]), int(self._ofeat[rid]), float(self._othr[rid]),
                bool(self._oleft[rid]))

    def rows(self, rid: int) -> np.ndarray:
        """The sorted int32 row indices of ``rid`` (read-only)."""
        r = self._rows[rid] if rid >= 0 else None
        return r if r is not None else self._materialise(rid)

    def _check(self, rid) -> None:
        if not (isinstance(rid, (int, np.integer)) and 0 <= rid < self._count):
            raise IndexError(f"no row set {rid!r} (table has {self._count})")

    def _check_feature(self, f) -> None:
        """``f``: a feature, or a split code (slpy.data.splits: feature and side)."""
        if not (isinstance(f, (int, np.integer)) and 0 <= (f & FEATURE_MASK) < self._n_features
                and 0 <= f >> SIDE_SHIFT <= NA_RIGHT):
            raise IndexError(f"no feature {f!r} (dataset has {self._n_features})")

    def _rule(self, code: int, v: float):
        """(feature, True when x <= t decides it alone, side, categorical)."""
        f = code & FEATURE_MASK
        side = code >> SIDE_SHIFT
        return f, side == 0 and bool(self._plain_f[f]), side, bool(self._cat[f])

    @staticmethod
    def _empty_slots(cap: int) -> tuple:
        return (np.zeros(cap, np.uint64), np.zeros(cap, np.uint64), np.zeros(cap, np.int64),
                np.full(cap, -1, np.int64))

    def _reserve(self, m: int) -> None:
        need = self._count + m
        if 2 * need > len(self._slots[3]):   # keep the hash table at most half full
            cap = len(self._slots[3])
            while 2 * need > cap:
                cap *= 4
            new = self._empty_slots(cap)
            K._table_rehash(*self._slots, *new)
            self._slots = new
        if need > len(self._opar):
            cap = max(2 * len(self._opar), need, 256)
            for name in ("_opar", "_ofeat", "_othr", "_oleft"):
                old = getattr(self, name)
                arr = np.empty(cap, dtype=old.dtype)
                arr[:len(old)] = old
                setattr(self, name, arr)

    def _intern_keys(self, h1, h2, n, parent, feat, thr, is_left) -> np.ndarray:
        """Ids of the sets with keys (n, h1, h2); new ones get the given origins."""
        self._reserve(len(h1))
        c = self._count
        ids, src = K._table_intern(*self._slots, h1, h2, n.astype(np.int64), c)
        k = len(src)
        if k:
            self._opar[c:c + k] = parent
            self._ofeat[c:c + k] = np.broadcast_to(feat, h1.shape)[src]
            self._othr[c:c + k] = np.broadcast_to(thr, h1.shape)[src]
            self._oleft[c:c + k] = np.broadcast_to(is_left, h1.shape)[src]
            self._size.extend(n[src].tolist())
            self._rows.extend(itertools.repeat(None, k))
            self._count = c + k
        return ids

    def _intern_pair(self, h1l, h2l, h1r, h2r, nl, nr, parent, f, t) -> tuple[int, int]:
        """``_intern_keys`` for the two sides of one split (left first), in scalars."""
        self._reserve(2)
        b1, b2, bn = self._pair_buf
        b1[0], b1[1], b2[0], b2[1], bn[0], bn[1] = h1l, h1r, h2l, h2r, nl, nr
        c = self._count
        ids, src = K._table_intern(*self._slots, b1, b2, bn, c)
        k = len(src)
        if k:
            for j, side in enumerate(src.tolist()):
                self._opar[c + j] = parent
                self._ofeat[c + j] = f
                self._othr[c + j] = t
                self._oleft[c + j] = side == 0
                self._size.append(nl if side == 0 else nr)
                self._rows.append(None)
            self._count = c + k
        return int(ids[0]), int(ids[1])

    def _intern(self, rows: np.ndarray, parent, f, t, is_left) -> int:
        """Id of the set ``rows`` (sorted int32), creating it if new."""
        h1, h2 = K._set_key(rows, self._z1, self._z2)
        rid = int(self._intern_keys(np.array([h1], np.uint64), np.array([h2], np.uint64),
                                    np.array([rows.shape[0]]), parent, f, t, is_left)[0])
        known = self._rows[rid]
        if known is None:
            self._rows[rid] = _frozen(rows)
            self._bytes_rows += rows.nbytes + 120
        elif known is not rows and not np.array_equal(known, rows):  # pragma: no cover
            raise RuntimeError(_COLLISION)
        return rid

    def _materialise(self, rid: int) -> np.ndarray:
        self._check(rid)
        chain = []
        cur = rid
        while self._rows[cur] is None:
            chain.append(cur)
            cur = int(self._opar[cur])
        for c in reversed(chain):
            parent, code = int(self._opar[c]), int(self._ofeat[c])
            f, simple, side, cat = self._rule(code, self._othr[c])
            prows = self._rows[parent]
            if simple:
                arr = K._side(self._XT[f], prows, self._othr[c], self._oleft[c])
            else:
                go = K._rule_mask(self._XT[f], prows, side, cat, self._othr[c])
                arr = np.ascontiguousarray(prows[go if self._oleft[c] else ~go])
            if arr.shape[0] != self._size[c]:   # pragma: no cover - a hash collision
                raise RuntimeError(_COLLISION)
            self._rows[c] = _frozen(arr)
            self._bytes_rows += arr.nbytes + 120
        return self._rows[rid]

    # ---- splits -----------------------------------------------------------------

    def split(self, rid: int, f: int, t: float) -> tuple[int, int]:
        """(left, right) ids for the test ``x_f <= t``, or the split rule ``(f, t)``
        (a split code and value, slpy.data.splits); a side may be the empty set."""
        hit = self._split_cache.get((rid, f, t))
        if hit is not None:
            return hit
        self._check(rid)
        self._check_feature(f)
        self._budget()
        f, t = int(f), float(t)
        feat, simple, side, cat = self._rule(f, t)
        if simple:
            left, right = K._partition(self._XT[feat], self.rows(rid), t)
        else:
            rows = self.rows(rid)
            go = K._rule_mask(self._XT[feat], rows, side, cat, t)
            left, right = np.ascontiguousarray(rows[go]), np.ascontiguousarray(rows[~go])
        out = (self._intern(left, rid, f, t, True), self._intern(right, rid, f, t, False))
        self._split_cache[(rid, f, t)] = out
        self._bytes_derived += 200
        return out

    def thresholds(self, rid: int, f: int) -> np.ndarray:
        """Distinct values of feature ``f`` in ``rid`` but the largest, ascending.

        Each ``t`` leaves both sides of ``x_f <= t`` non-empty. Read-only, cached.
        """
        hit = self._thr_cache.get((rid, f))
        if hit is not None:
            return hit
        self._check(rid)
        self._check_feature(f)
        if self._cat[f]:
            raise TypeError(f"feature {f} is categorical: it has levels, not thresholds")
        self._budget()
        rows = self.rows(rid)
        if self._na[f]:
            rows = np.ascontiguousarray(rows[~np.isnan(self._XT[int(f)][rows])])
        out = _frozen(K._thresholds(self._XT[int(f)], rows))
        self._thr_cache[(rid, f)] = out
        self._bytes_derived += out.nbytes + 200
        return out

    def valid_splits(self, rid: int, min_leaf: int = 1) -> SplitList:
        """Every split leaving at least ``min_leaf`` rows on each side, as a
        :class:`SplitList` of ``(feature, threshold, left_id, right_id)`` in
        (feature, threshold) order; thresholds are observed values, as in
        :meth:`thresholds`. Cached per (rid, min_leaf).
        """
        hit = self._valid_cache.get((rid, min_leaf))
        if hit is not None:
            return hit
        self._check(rid)
        if not isinstance(min_leaf, (int, np.integer)) or min_leaf < 0:
            raise ValueError(f"min_leaf must be a non-negative integer, not {min_leaf!r}")
        self._budget()
        if self._plain:
            scan = K._scan_splits(self._rankT, self._uvals, self._uoff, self.rows(rid),
                                  self._z1, self._z2, int(min_leaf),
                                  float(self.bucket_factor))
        else:
            scan = self._scan_rules(self.rows(rid), int(min_leaf))
        out = SplitList(self, int(rid), int(min_leaf), scan)
        self._valid_cache[(rid, min_leaf)] = out
        # per split its 5 array entries and a list slot, plus the objects around them
        # (the list, the engine's choice over it, the dict entries): about 2 KB,
        # measured on BCW
        self._bytes_derived += 56 * len(out) + 2000
        return out

    def has_split(self, rid: int, min_leaf: int = 1) -> bool:
        """``len(valid_splits(rid, min_leaf)) > 0``, without listing the splits where
        the data allows (numeric features, no missing values): a prior asks this of
        every node it grows, and most of them become leaves. Cached."""
        key = (rid, min_leaf)
        hit = self._valid_cache.get(key)
        if hit is not None:
            return len(hit) > 0
        hit = self._has_cache.get(key)
        if hit is not None:
            return hit
        if not self._plain:
            return len(self.valid_splits(rid, min_leaf)) > 0
        self._check(rid)
        if not isinstance(min_leaf, (int, np.integer)) or min_leaf < 0:
            raise ValueError(f"min_leaf must be a non-negative integer, not {min_leaf!r}")
        self._budget()
        out = bool(K._any_split(self._rankT, self.rows(rid), int(min_leaf)))
        self._has_cache[key] = out
        self._bytes_derived += 150
        return out

    def _scan_rules(self, rows: np.ndarray, min_leaf: int) -> tuple:
        """_scan_splits' result for data with categorical features or missing values:
        each feature by its own kernel, the splits in (code, value) order."""
        parts = []
        for f in range(self._n_features):
            lo, hi = int(self._uoff[f]), int(self._uoff[f + 1])
            rank = self._rankT[f]
            if self._cat[f]:
                side, listed, nl, h1, h2 = K._scan_categorical(
                    self._XT[f], rows, self._z1, self._z2, min_leaf,
                    int(self._n_levels[f]), MAX_SUBSET_LEVELS)
                vals = np.array([pack_levels(c[c >= 0]) for c in listed], dtype=np.float64)
            elif self._na[f] and (rank[rows] == hi - lo - 1).any():
                side, vals, nl, h1, h2 = K._scan_numeric_na(
                    rank, self._uvals[lo:hi], rows, self._z1, self._z2, min_leaf,
                    hi - lo - 1)
            else:
                feat, vals, nl, h1, h2, _, _ = K._scan_splits(
                    rank[None, :], self._uvals[lo:hi], np.array([0, hi - lo]), rows,
                    self._z1, self._z2, min_leaf, float(self.bucket_factor))
                side = np.zeros(len(vals), dtype=np.int64)
            parts.append((f | (side << SIDE_SHIFT), vals, nl, h1, h2))
        code, vals, nl, h1, h2 = (np.concatenate([p[k] for p in parts]) for k in range(5))
        order = np.lexsort((vals, code))
        t1, t2 = K._set_key(rows, self._z1, self._z2)
        return (code[order], vals[order], nl[order], h1[order], h2[order], t1, t2)

    # ---- response summaries -------------------------------------------------------

    def class_counts(self, rid: int) -> np.ndarray:
        """Rows of each class in ``rid``: int64 [n_classes], read-only, cached."""
        hit = self._counts_cache.get(rid)
        if hit is not None:
            return hit
        if self.dataset.task != "classification":
            raise TypeError("class_counts needs a classification dataset")
        self._budget()
        out = _frozen(K._class_counts(self._y, self.rows(rid), self._n_classes))
        self._counts_cache[rid] = out
        self._bytes_derived += out.nbytes + 250
        return out

    def stats(self, rid: int) -> np.ndarray:
        """Regression summaries of ``rid``: float64 [n, sum of y, sum of (y - mean)**2].

        The central sum of squares replaces the raw sum of squares so that leaf
        scores keep their precision when the mean of y is large. Read-only, cached.
        """
        hit = self._stats_cache.get(rid)
        if hit is not None:
            return hit
        if self.dataset.task != "regression":
            raise TypeError("stats needs a regression dataset")
        self._budget()
        out = _frozen(K._moments(self._y, self.rows(rid)))
        self._stats_cache[rid] = out
        self._bytes_derived += out.nbytes + 250
        return out

    def clear_cache(self, drop_rows: bool = False) -> None:
        """Free cached splits, thresholds and summaries. Ids stay valid.

        With ``drop_rows`` the row arrays are freed too (all but the root); they
        are rebuilt from each set's origin on demand.
        """
        for c in (self._split_cache, self._valid_cache, self._has_cache, self._thr_cache,
                  self._counts_cache, self._stats_cache):
            c.clear()
        self._bytes_derived = 0
        if drop_rows:
            for i in range(1, self._count):
                self._rows[i] = None
            self._bytes_rows = 0
        for hook in self._clear_hooks:
            hook()

    def on_clear(self, hook) -> None:
        """Call ``hook()`` whenever the caches are cleared: caches kept elsewhere and
        keyed by row-set id (a likelihood's leaf terms, the engine's split choices)
        register here to be dropped with them."""
        self._clear_hooks.append(hook)

    def cached_bytes(self) -> int:
        """The estimated size of what :meth:`clear_cache` (with ``drop_rows``) frees."""
        return self._bytes_derived + self._bytes_rows

    def _budget(self) -> None:
        # called on a cache miss before any work, so nothing in use is dropped
        if self._bytes_derived + self._bytes_rows > self.cache_bytes:
            self.clears += 1
            self.clear_cache(drop_rows=True)
