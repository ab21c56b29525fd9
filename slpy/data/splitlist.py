"""The valid splits of one row set as a lazy sequence (:class:`SplitList`, made by
:meth:`slpy.data.rowsets.RowSets.valid_splits`): the split scan's arrays, and each
split's two children interned only when its item is read."""
from __future__ import annotations

import operator
from collections.abc import Sequence

import numpy as np


def _frozen(a: np.ndarray) -> np.ndarray:
    a.setflags(write=False)   # cached arrays are shared: callers must not edit them
    return a


class SplitList(Sequence):
    """The valid splits of one row set: a read-only sequence of
    ``(feature, threshold, left_id, right_id)`` in (feature, threshold) order.

    ``features``, ``thresholds`` and ``n_left`` are NumPy arrays available without
    creating any child. A child pair gets its ids when its item is first read
    (iterating interns all of them in one kernel call), so a prior that picks one
    split of thousands only grows the table by two sets.
    """

    __slots__ = ("_rs", "rid", "min_leaf", "features", "thresholds", "n_left", "_h1",
                 "_h2", "_t1", "_t2", "_items", "_complete")

    def __init__(self, rs: "RowSets", rid: int, min_leaf: int, scan):
        feat, thr, nleft, h1, h2, t1, t2 = scan
        self._rs, self.rid, self.min_leaf = rs, rid, min_leaf
        self.features, self.thresholds, self.n_left = (_frozen(feat), _frozen(thr),
                                                       _frozen(nleft))
        self._h1, self._h2, self._t1, self._t2 = h1, h2, t1, t2
        self._items: list = [None] * len(feat)
        self._complete = False

    def __len__(self) -> int:
        return len(self._items)

    def __getitem__(self, i):
        if isinstance(i, slice):
            return [self[j] for j in range(*i.indices(len(self)))]
        item = self._items[i]     # IndexError and negative indices come from the list
        if item is None:
            i = operator.index(i) % len(self._items)
            item = self._intern_one(i)
            self._items[i] = item
            self._rs._split_cache[(self.rid, item[0], item[1])] = item[2:]
        return item

    def __iter__(self):
        if not self._complete:
            self._items = self._intern(np.arange(len(self._items)))
            self._complete = True
        return iter(self._items)

    def __eq__(self, other):
        if isinstance(other, (SplitList, list, tuple)):
            return list(self) == list(other)
        return NotImplemented

    __hash__ = None

    def __repr__(self) -> str:
        return f"SplitList(rid={self.rid}, min_leaf={self.min_leaf}, n={len(self)})"

    def _intern_one(self, i: int) -> tuple:
        """``_intern(np.array([i]))[0]`` without building arrays: a prior that picks one
        split of a new row set does this once per regrown node."""
        h1, h2 = self._h1[i], self._h2[i]
        nl = int(self.n_left[i])
        f, t = int(self.features[i]), float(self.thresholds[i])
        left, right = self._rs._intern_pair(h1, h2, h1 ^ self._t1, h2 ^ self._t2, nl,
                                            self._rs._size[self.rid] - nl, self.rid, f, t)
        return (f, t, left, right)

    def _intern(self, idx: np.ndarray) -> list[tuple]:
        k = len(idx)
        n = self._rs._size[self.rid]
        nl = self.n_left[idx]
        h1 = self._h1[idx]
        h2 = self._h2[idx]
        feat = self.features[idx]
        thr = self.thresholds[idx]
        ids = self._rs._intern_keys(
            np.concatenate([h1, h1 ^ self._t1]), np.concatenate([h2, h2 ^ self._t2]),
            np.concatenate([nl, n - nl]), self.rid, np.concatenate([feat, feat]),
            np.concatenate([thr, thr]), np.arange(2 * k) < k)
        return list(zip(feat.tolist(), thr.tolist(), ids[:k].tolist(), ids[k:].tolist()))
