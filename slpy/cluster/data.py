"""The rows a clustering partitions: numeric and categorical columns, and the class
column kept aside to compare with.

A :class:`ClusterData` holds the numeric columns as float64 ``numeric`` [n, p_num]
and the categorical ones as int32 ``codes`` [n, p_cat] into their sorted
``levels``; ``labels`` are the texts of the class column (None without one), which
is not clustered: summaries compare partitions with it. Files are read with slpy's
CSV reader (slpy.data.dataset.read_rows): a column holding a value that is not a
number is categorical (or the columns ``--categorical`` names), the class column is
the one named ``class`` (or ``--target``), a row with a missing value is left out
(``--missing drop``) or an error.
"""
from __future__ import annotations

import hashlib
from dataclasses import dataclass, field
from pathlib import Path

import numpy as np

from ..data.dataset import DataError, read_rows

__all__ = ["ClusterData", "DataError", "load_cluster_csv", "cluster_from_arrays"]


@dataclass(eq=False)
class ClusterData:
    """Rows to cluster. ``numeric`` float64 [n, p_num] (names ``num_names``),
    ``codes`` int32 [n, p_cat] into ``levels`` (names ``cat_names``), ``labels`` the
    class texts or None. The arrays are read-only: scorers cache what they compute
    from them."""

    numeric: np.ndarray
    num_names: list
    codes: np.ndarray
    cat_names: list
    levels: list
    labels: list | None = None
    class_name: str | None = None
    source: str = "<arrays>"
    n_dropped: int = 0
    _hash: str | None = field(default=None, init=False, repr=False)

    def __post_init__(self):
        src = self.source
        x = np.ascontiguousarray(np.asarray(self.numeric, dtype=np.float64))
        c = np.ascontiguousarray(np.asarray(self.codes), dtype=np.int32)
        if x.ndim != 2 or c.ndim != 2 or x.shape[0] != c.shape[0]:
            raise DataError(src, f"numeric {x.shape} and categorical {c.shape} columns "
                                 f"must be 2-dimensional with as many rows")
        if x.shape[0] == 0:
            raise DataError(src, "no data rows")
        if x.shape[1] + c.shape[1] == 0:
            raise DataError(src, "no columns to cluster on")
        if not np.isfinite(x).all():
            raise DataError(src, "a numeric value is not a finite number")
        if len(self.num_names) != x.shape[1] or len(self.cat_names) != c.shape[1] \
                or len(self.levels) != c.shape[1]:
            raise DataError(src, "one name per column and one level list per "
                                 "categorical column")
        ar = np.array([len(lv) for lv in self.levels], dtype=np.int64)
        if c.size and ((c < 0).any() or (c >= ar[None, :]).any()):
            raise DataError(src, "a categorical code outside its levels")
        if self.labels is not None and len(self.labels) != x.shape[0]:
            raise DataError(src, f"{len(self.labels)} class labels for {x.shape[0]} rows")
        x, c = x.view(), c.view()
        x.setflags(write=False)
        c.setflags(write=False)
        self.numeric, self.codes = x, c
        self.num_names, self.cat_names = list(self.num_names), list(self.cat_names)
        self.levels = [list(lv) for lv in self.levels]

    @property
    def n_rows(self) -> int:
        return self.numeric.shape[0]

    @property
    def arities(self) -> np.ndarray:
        return np.array([len(lv) for lv in self.levels], dtype=np.int64)

    def column_warnings(self) -> list:
        """Lines about columns no clustering can use (slpy.data.checks)."""
        from ..data.checks import column_warnings
        return column_warnings(
            self.source, [(n, x, False) for n, x in zip(self.num_names, self.numeric.T)]
            + [(n, c, True) for n, c in zip(self.cat_names, self.codes.T)])

    @property
    def names(self) -> list:
        return self.num_names + self.cat_names

    def take(self, idx) -> "ClusterData":
        """Rows ``idx`` in that order."""
        idx = np.asarray(idx, dtype=np.int64)
        labels = None if self.labels is None else [self.labels[i] for i in idx]
        return ClusterData(self.numeric[idx], self.num_names, self.codes[idx],
                           self.cat_names, self.levels, labels, self.class_name,
                           self.source)

    def hash(self) -> str:
        """16 hex digits of SHA-256 over the names, levels, values and labels."""
        if self._hash is None:
            h = hashlib.sha256()
            h.update(f"cluster|{self.numeric.shape}|{self.codes.shape}|".encode())
            h.update("\x1f".join(self.names).encode())
            for lv in self.levels:
                h.update(b"\x1e" + "\x1f".join(lv).encode())
            h.update(self.numeric.astype("<f8").tobytes())
            h.update(self.codes.astype("<i4").tobytes())
            if self.labels is not None:
                h.update(b"\x1d" + "\x1f".join(self.labels).encode())
            self._hash = h.hexdigest()[:16]
        return self._hash


def load_cluster_csv(path, class_col: str | None = None, categorical="auto",
                     on_missing: str = "drop", like: ClusterData | None = None
                     ) -> ClusterData:
    """Read a CSV file with a header row. ``class_col`` (default ``class``, when
    there is one) is kept as labels, not clustered. ``categorical``: ``"auto"`` (a
    column holding a value that is not a number) or the names of the categorical
    columns. ``like``: new rows for data clustered already (the same columns; a level
    ``like`` lacks is an error). ``on_missing``: ``drop`` or ``error``."""
    path = Path(path)
    if on_missing not in ("drop", "error"):
        raise DataError(path, f"--missing {on_missing}: a clustering has no model of "
                              f"missing values (use drop or error)")
    if like is not None:
        categorical = like.cat_names
    rows = read_rows(path, class_col, response=False, on_missing=on_missing,
                     categorical=categorical if categorical else ())
    names = rows.feature_names
    levels = rows.levels or [None] * len(names)
    if like is not None:
        return _like(path, rows, names, levels, like)
    num = [k for k, lv in enumerate(levels) if lv is None]
    cat = [k for k, lv in enumerate(levels) if lv is not None]
    numeric = rows.X[:, num]
    codes = rows.X[:, cat].astype(np.int32)
    lv = [list(levels[k]) for k in cat]
    num_names = [names[k] for k in num]
    cat_names = [names[k] for k in cat]
    return ClusterData(numeric, num_names, codes, cat_names, lv, rows.labels,
                       rows.response, str(path), n_dropped=rows.n_dropped)


def _like(path, rows, names, levels, like) -> ClusterData:
    """New rows in the clustered data's columns (matched by name) and level codes."""
    pos = {n: k for k, n in enumerate(names)}
    absent = [n for n in like.names if n not in pos]
    extra = [n for n in names if n not in like.names]
    if absent or extra:
        what = f"no column {absent[0]!r}" if absent else f"a column {extra[0]!r}"
        raise DataError(path, f"{what}: the columns must be the clustered data's "
                              f"({', '.join(like.names)})")
    for n in like.num_names:
        if levels[pos[n]] is not None:
            raise DataError(path, f"column {n!r} holds a value that is not a number")
    numeric = rows.X[:, [pos[n] for n in like.num_names]]
    codes = np.empty((rows.X.shape[0], len(like.cat_names)), dtype=np.int32)
    for j, n in enumerate(like.cat_names):
        index = {v: i for i, v in enumerate(like.levels[j])}
        mine = levels[pos[n]]
        unknown = [v for v in mine if v not in index]
        if unknown:
            raise DataError(path, f"column {n!r} has the value {unknown[0]!r}, which the "
                                  f"clustered data never have")
        remap = np.array([index[v] for v in mine], dtype=np.int32)
        codes[:, j] = remap[rows.X[:, pos[n]].astype(np.int64)]
    return ClusterData(numeric, like.num_names, codes, like.cat_names, like.levels,
                       rows.labels, rows.response, str(path), n_dropped=rows.n_dropped)


def cluster_from_arrays(numeric=None, codes=None, levels=None, labels=None,
                        num_names=None, cat_names=None, source="<arrays>") -> ClusterData:
    """Build :class:`ClusterData` from arrays: ``numeric`` [n, p_num] floats,
    ``codes`` [n, p_cat] ints with ``levels`` (a list per column, or an int r for
    levels "0".."r-1"); names default to x0, x1, ... and c0, c1, ..."""
    n = len(numeric) if numeric is not None else len(codes)
    x = np.zeros((n, 0)) if numeric is None else np.asarray(numeric, dtype=float)
    if x.ndim == 1:
        x = x.reshape(-1, 1)
    c = np.zeros((n, 0), dtype=np.int32) if codes is None else np.asarray(codes)
    if c.ndim == 1:
        c = c.reshape(-1, 1)
    if levels is None:
        levels = [int(c[:, j].max()) + 1 for j in range(c.shape[1])]
    lv = [[str(v) for v in range(x_)] if isinstance(x_, (int, np.integer)) else list(x_)
          for x_ in levels]
    num_names = num_names or [f"x{j}" for j in range(x.shape[1])]
    cat_names = cat_names or [f"c{j}" for j in range(c.shape[1])]
    return ClusterData(x, num_names, c, cat_names, lv,
                       None if labels is None else [str(v) for v in labels],
                       None if labels is None else "class", source)
