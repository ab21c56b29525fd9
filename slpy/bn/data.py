"""Discrete (categorical) data for Bayesian networks, loaded from CSV or built from arrays.

A :class:`DiscreteData` holds every variable as int32 codes into its sorted levels,
with identical rows merged into one row and a count: the BN scores only need the
counts N_ijk, so a data set of 5,000 samples over 8 binary variables is a few dozen
rows. Rows are sorted lexicographically by their codes, so the same data in any row
order (or aggregated differently) gives the same arrays and the same :meth:`hash`.
Loading uses the standard ``csv`` module and NumPy only, so pandas stays optional.
"""
from __future__ import annotations

import hashlib
from dataclasses import dataclass, field
from pathlib import Path
from typing import Sequence

import numpy as np

from ..data.columns import _encode_classes
from ..data.dataset import MISSING, DataError, MissingValueError, _read_table

__all__ = ["DiscreteData", "DataError", "load_discrete_csv", "discrete_from_arrays",
           "MISSING", "COUNT_COLUMN"]

COUNT_COLUMN = "count"
# --missing is the trees' and clusterings': a network has no model of a missing value,
# and its message says so (no option to suggest)
NO_MISSING_HINT = None
# Counts are summed in int64 and used as float64 in lgamma: above 2**53 neither is exact.
MAX_SAMPLES = 2 ** 53


@dataclass(eq=False)
class DiscreteData:
    """Categorical data: ``codes`` (int32, C order, [n_rows, n_vars]) into ``levels``.

    ``counts`` (int64 [n_rows]) says how many samples each row stands for;
    ``levels[j]`` lists variable ``j``'s values, so its arity is ``len(levels[j])``
    (a level may be unobserved: it still counts in the arity). On construction rows
    with count 0 are dropped, identical rows are merged (counts summed) and rows are
    sorted lexicographically by codes. The arrays are read-only.
    """

    codes: np.ndarray
    counts: np.ndarray
    names: list[str]
    levels: list[list[str]]
    source: str = "<arrays>"
    _hash: str | None = field(default=None, init=False, repr=False)

    def __post_init__(self):
        src = self.source
        codes = np.asarray(self.codes)
        if codes.ndim != 2:
            raise DataError(src, f"codes must be 2-dimensional, got shape {codes.shape}")
        if codes.dtype == bool or not np.issubdtype(codes.dtype, np.integer):
            raise DataError(src, f"codes must be integers, got dtype {codes.dtype}")
        n, p = codes.shape
        if p == 0:
            raise DataError(src, "no variables")
        names = [str(s) for s in self.names]
        if len(names) != p:
            raise DataError(src, f"{len(names)} names for {p} variables")
        if len(set(names)) != p:
            dup = next(s for s in names if names.count(s) > 1)
            raise DataError(src, f"duplicate variable name {dup!r}")
        if len(self.levels) != p:
            raise DataError(src, f"{len(self.levels)} level lists for {p} variables")
        levels = [[str(v) for v in lv] for lv in self.levels]
        for name, lv in zip(names, levels):
            if not lv:
                raise DataError(src, f"variable {name!r} has no levels")
            if len(set(lv)) != len(lv):
                raise DataError(src, f"variable {name!r} has a repeated level")
        counts = np.asarray(self.counts).reshape(-1)
        if counts.shape[0] != n:
            raise DataError(src, f"{counts.shape[0]} counts for {n} rows")
        if counts.size and (counts.dtype == bool or not (
                np.issubdtype(counts.dtype, np.integer)
                or (np.issubdtype(counts.dtype, np.floating)
                    and np.isfinite(counts).all() and (counts == np.round(counts)).all()))):
            raise DataError(src, "counts must be whole numbers")
        if counts.size and counts.min() < 0:
            raise DataError(src, "counts must not be negative")
        if counts.astype(np.float64).sum() > MAX_SAMPLES:
            raise DataError(src, "more than 2**53 samples in all")
        counts = counts.astype(np.int64)
        arities = np.array([len(lv) for lv in levels], dtype=np.int64)
        out = (codes.min(axis=0) < 0) | (codes.max(axis=0) >= arities) if n else [False]
        if np.any(out):
            j = int(np.flatnonzero(out)[0])
            raise DataError(src, f"codes of variable {names[j]!r} must lie in "
                                 f"0..{arities[j] - 1}")
        keep = counts > 0
        if not keep.any():
            raise DataError(src, "no data rows (every count is 0)" if n else "no data rows")
        codes = np.ascontiguousarray(codes[keep], dtype=np.int32)
        # np.unique(axis=0) compares rows field by field: lexicographic order by codes.
        uniq, inverse = np.unique(codes, axis=0, return_inverse=True)
        merged = np.zeros(uniq.shape[0], dtype=np.int64)
        np.add.at(merged, inverse.reshape(-1), counts[keep])
        # Views with write=False: scorers cache results computed from these arrays.
        uniq = np.ascontiguousarray(uniq, dtype=np.int32).view()
        merged = merged.view()
        uniq.setflags(write=False)
        merged.setflags(write=False)
        self.codes, self.counts, self.names, self.levels = uniq, merged, names, levels

    @property
    def n_vars(self) -> int:
        return self.codes.shape[1]

    @property
    def n_rows(self) -> int:
        """Distinct rows."""
        return self.codes.shape[0]

    @property
    def n_samples(self) -> int:
        """Samples in all (the sum of the counts)."""
        return int(self.counts.sum())

    def column_warnings(self) -> list:
        """Lines about variables no network can learn from: one level, or a different
        level for each sample (slpy.data.checks)."""
        from ..data.checks import column_warnings
        return column_warnings(self.source, [(n, c, True) for n, c in
                                             zip(self.names, self.codes.T)],
                               samples=self.n_samples)

    @property
    def arities(self) -> np.ndarray:
        """Number of levels of each variable, int32 [n_vars]."""
        return np.array([len(lv) for lv in self.levels], dtype=np.int32)

    def index(self, name: str) -> int:
        """Column of the variable called ``name``."""
        try:
            return self.names.index(name)
        except ValueError:
            raise DataError(self.source, f"no variable {name!r} (the variables are "
                                         f"{', '.join(self.names)})") from None

    def take_vars(self, names: Sequence[str | int]) -> "DiscreteData":
        """The data on the variables ``names`` (names or column indices), in that order.

        Rows that become identical are merged, so the counts still sum to n_samples.
        """
        cols = [v if isinstance(v, (int, np.integer)) else self.index(v) for v in names]
        for c in cols:
            if not -self.n_vars <= c < self.n_vars:
                raise DataError(self.source, f"variable index {c} out of range")
        return DiscreteData(self.codes[:, cols], self.counts,
                            [self.names[c] for c in cols],
                            [list(self.levels[c]) for c in cols], self.source)

    def hash(self) -> str:
        """A short (16 hex digits) SHA-256 digest of names, levels, codes and counts.

        Stable across row order and runs: it names run directories.
        """
        if self._hash is None:
            h = hashlib.sha256()
            h.update(f"discrete|{self.codes.shape}|".encode())
            h.update("\x1f".join(self.names).encode())
            for lv in self.levels:
                h.update(b"\x1e" + "\x1f".join(lv).encode())
            h.update(self.codes.astype("<i4").tobytes())
            h.update(self.counts.astype("<i8").tobytes())
            self._hash = h.hexdigest()[:16]
        return self._hash


def _parse_count(path, text: str, line: int, col: int) -> int:
    t = text.strip()
    # ASCII digits only: int() would also take "1_000" and non-ASCII digits.
    if not (t.isascii() and t.isdigit()):
        raise DataError(f"{path}:{line}:{col}", f"count {text!r} is not a non-negative "
                                                f"integer")
    return int(t)


def load_discrete_csv(path, count: str | None = None) -> DiscreteData:
    """Read a CSV file with one header row; every column is a categorical variable.

    Values are read as text (stripped of spaces), so ``1`` and ``yes`` are both
    levels; a variable's levels are its distinct values, sorted as numbers when all
    parse as numbers and as strings otherwise.

    ``count`` names a column of non-negative integer row counts (rows with count 0
    are dropped). By default (None) a column named exactly ``count`` is the count
    column when there is one, like ``load_csv`` finds ``class``; pass ``count=""``
    to read a column called ``count`` as a variable. Without a count column every
    row counts once.

    A missing value (an empty field, ``NA``, ``?``, or another of ``MISSING``) is an
    error naming ``file:line:column``: the scores have no model of missingness.
    """
    path = Path(path)
    table = _read_table(path)
    header = [h.strip() for h in table[0][1]]
    body = table[1:]
    for j, h in enumerate(header):
        if not h:
            raise DataError(f"{path}:{table[0][0]}:{j + 1}", "empty column name in the "
                                                             "header")
    if len(set(header)) != len(header):
        dup = next(h for h in header if header.count(h) > 1)
        raise DataError(path, f"duplicate column name {dup!r} in the header")
    if count is None:
        count = COUNT_COLUMN if COUNT_COLUMN in header else ""
    elif count and count not in header:
        raise DataError(path, f"count column {count!r} is not in the header")
    ccol = header.index(count) if count else None
    vcols = [j for j in range(len(header)) if j != ccol]
    if not vcols:
        raise DataError(path, "no variable columns (only the count column)")
    width = len(header)
    for line, row in body:
        if len(row) != width:
            raise DataError(f"{path}:{line}", f"the row has {len(row)} fields, the header "
                                              f"has {width}")
    if not body:
        raise DataError(path, "no data rows")
    lines = [line for line, _ in body]
    cols = [[v.strip() for v in c] for c in zip(*(row for _, row in body))]
    miss = {m.strip() for m in MISSING}
    for j in range(width):
        bad = miss.intersection(cols[j])
        if bad:   # a set test per column: the common case has no Python loop per field
            i = next(i for i, v in enumerate(cols[j]) if v in bad)
            e = MissingValueError(f"{path}:{lines[i]}:{j + 1}",
                                  f"missing value {body[i][1][j]!r} in column "
                                  f"{header[j]!r} (the BN scores need complete rows)")
            e.hint = NO_MISSING_HINT
            raise e
    if ccol is None:
        counts = np.ones(len(body), dtype=np.int64)
    else:
        values = [_parse_count(path, v, ln, ccol + 1) for v, ln in zip(cols[ccol], lines)]
        if sum(values) > MAX_SAMPLES:   # before NumPy, which would overflow int64
            raise DataError(path, "more than 2**53 samples in all")
        counts = np.array(values, dtype=np.int64)
    codes = np.empty((len(body), len(vcols)), dtype=np.int32)
    levels = []
    for k, j in enumerate(vcols):
        codes[:, k], lv = _encode_classes(cols[j])
        levels.append(lv)
    if not counts.any():
        raise DataError(path, f"no data rows (every value of {count!r} is 0)")
    return DiscreteData(codes, counts, [header[j] for j in vcols], levels, str(path))


def discrete_from_arrays(codes_or_values, names: Sequence[str] | None = None,
                         counts=None, levels: Sequence | None = None,
                         source: str = "<arrays>") -> DiscreteData:
    """Build :class:`DiscreteData` from an [n, p] array (a 1-d array is one variable).

    Without ``levels`` the entries are values (strings or numbers), encoded as
    :func:`load_discrete_csv` does: each variable's levels are its observed values.
    With ``levels`` the entries are integer codes; ``levels[j]`` is either the list
    of variable j's level names or an int r, meaning levels ``"0".."r-1"`` (use it
    to keep an unobserved value in the arity). ``counts`` (default all 1) are
    non-negative whole numbers per row; ``names`` default to ``x0, x1, ...``.
    """
    a = np.asarray(codes_or_values)
    if a.ndim == 1:
        a = a.reshape(-1, 1)
    if a.ndim != 2:
        raise DataError(source, f"data must be 2-dimensional, got shape {a.shape}")
    n, p = a.shape
    names = [f"x{j}" for j in range(p)] if names is None else list(names)
    counts = np.ones(n, dtype=np.int64) if counts is None else np.asarray(counts)
    if levels is not None:
        if len(levels) != p:
            raise DataError(source, f"{len(levels)} level lists for {p} variables")
        lv = [[str(v) for v in range(int(x))] if isinstance(x, (int, np.integer))
              else list(x) for x in levels]
        return DiscreteData(a, counts, names, lv, source)
    if n == 0 or p == 0:
        raise DataError(source, "no data rows" if n == 0 else "no variables")
    miss = {m.strip() for m in MISSING}
    codes = np.empty((n, p), dtype=np.int32)
    lv = []
    for j in range(p):
        vals = a[:, j].tolist()
        col = ["" if v is None else str(v).strip() for v in vals]
        bad = miss.intersection(col)
        if bad:
            i = next(i for i, v in enumerate(col) if v in bad)
            e = MissingValueError(source, f"row {i}, variable {j}: missing value "
                                          f"{vals[i]!r}")
            e.hint = NO_MISSING_HINT
            raise e
        codes[:, j], levels_j = _encode_classes(col)
        lv.append(levels_j)
    return DiscreteData(codes, counts, names, lv, source)
