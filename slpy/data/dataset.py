"""Datasets: a numeric design matrix and a response, loaded from CSV or built from arrays.

A :class:`Dataset` is what a prior conditions on (``X``) and what a likelihood scores
(``y``). Classification responses are stored as int32 codes into ``classes``;
regression responses as float64. CSV files are read with pandas (slpy.data.csvfile),
their columns checked as numbers or coded as categories by slpy.data.columns.
"""
from __future__ import annotations

import hashlib
from dataclasses import dataclass, field
from pathlib import Path
from typing import Sequence

import numpy as np

from .columns import (_Factor, _column, _encode_classes, _level_codes, _numeric_column,
                      encode_columns)
from .csvfile import DataError, Table, _text, read_table, scan_records
from .splits import MAX_LEVELS

__all__ = ["Dataset", "DataError", "MissingValueError", "Rows", "load_csv", "read_rows",
           "encode_labels", "from_arrays", "dataset_hash", "train_test_split", "MISSING"]

TASKS = ("classification", "regression")


@dataclass(eq=False)
class Dataset:
    """Predictors ``X`` (float64, C order, [n, p]) and response ``y`` (length n).

    ``y`` holds int32 codes into ``classes`` for classification and float64 values
    for regression (``classes`` is then None). ``n_dropped`` counts rows dropped at
    load time for missing values; ``source`` says where the data came from.

    ``levels[j]`` is None for a numeric feature and, for a categorical one, the list
    of its levels, column j of X holding codes into it (``levels`` None: all numeric).
    With ``missing`` true, NaN in X is a missing value (split rules send it down a side,
    slpy.data.splits); without, X must be finite.
    """

    X: np.ndarray
    y: np.ndarray
    feature_names: list[str]
    classes: list[str] | None = None
    task: str = "classification"
    n_dropped: int = 0
    source: str = "<arrays>"
    _hash: str | None = field(default=None, init=False, repr=False)
    levels: list | None = None
    missing: bool = False
    #: (new data read ``like`` a training set) categorical feature -> {new level: rows}
    unseen: dict = field(default_factory=dict, init=False, repr=False)

    def __post_init__(self):
        src = self.source
        if self.task not in TASKS:
            raise DataError(src, f"task must be one of {TASKS}, not {self.task!r}")
        X = np.asarray(self.X)
        if X.ndim != 2:
            raise DataError(src, f"X must be 2-dimensional, got shape {X.shape}")
        if not np.issubdtype(X.dtype, np.number) or np.iscomplexobj(X):
            raise DataError(src, f"X must be real numbers, got dtype {X.dtype}")
        X = np.ascontiguousarray(X, dtype=np.float64)
        if X.shape[0] == 0:
            raise DataError(src, "no rows")
        bad = np.isinf(X) if self.missing else ~np.isfinite(X)
        if bad.any():
            r, c = np.argwhere(bad)[0]
            raise DataError(src, f"non-finite predictor value at row {r}, column {c}")
        y = np.asarray(self.y).reshape(-1)
        if y.shape[0] != X.shape[0]:
            raise DataError(src, f"X has {X.shape[0]} rows but y has {y.shape[0]}")
        names = [str(s) for s in self.feature_names]
        if len(names) != X.shape[1]:
            raise DataError(src, f"{len(names)} feature names for {X.shape[1]} columns")
        if self.task == "classification":
            if self.classes is None:
                raise DataError(src, "classification needs the list of classes")
            classes = [str(c) for c in self.classes]
            if not np.issubdtype(y.dtype, np.integer):
                raise DataError(src, "classification y must be integer class codes")
            if y.size and (y.min() < 0 or y.max() >= len(classes)):
                raise DataError(src, f"class codes must lie in 0..{len(classes) - 1}")
            y = np.ascontiguousarray(y, dtype=np.int32)
        else:
            classes = None
            y = np.ascontiguousarray(y, dtype=np.float64)
            if not np.isfinite(y).all():
                raise DataError(src, "non-finite response value")
        # Arrays are shared with row-set caches and kernels: forbid edits through
        # them. Views, so that the caller's own arrays keep their flags.
        X, y = X.view(), y.view()
        X.setflags(write=False)
        y.setflags(write=False)
        self.levels = _check_levels(src, X, names, self.levels)
        self.missing = bool(self.missing)
        self.X, self.y, self.feature_names, self.classes = X, y, names, classes

    @property
    def categorical(self) -> np.ndarray:
        """bool [p]: which features are categorical."""
        return np.array([lv is not None for lv in self.levels or [None] * self.n_features],
                        dtype=bool)

    @property
    def plain(self) -> bool:
        """All features numeric and no missing value: every split is ``x <= t``."""
        return self.levels is None and not (self.missing and np.isnan(self.X).any())

    def with_X(self, X) -> "Dataset":
        """A copy with other predictor values (same columns, levels and response)."""
        return Dataset(X, self.y, list(self.feature_names),
                       None if self.classes is None else list(self.classes), self.task,
                       self.n_dropped, self.source, self.levels, self.missing)

    @property
    def n_rows(self) -> int:
        return self.X.shape[0]

    def column_warnings(self) -> list:
        """Lines about columns no model can learn from (slpy.data.checks)."""
        from .checks import dataset_warnings
        return dataset_warnings(self)

    @property
    def n_features(self) -> int:
        return self.X.shape[1]

    @property
    def n_classes(self) -> int:
        """Number of classes (0 for regression)."""
        return len(self.classes) if self.classes is not None else 0

    def class_counts(self) -> np.ndarray:
        """Rows per class, int64 [n_classes]."""
        if self.task != "classification":
            raise DataError(self.source, "class counts of a regression dataset")
        return np.bincount(self.y, minlength=self.n_classes).astype(np.int64)

    def take(self, idx) -> "Dataset":
        """Rows ``idx`` in the given order (repeats allowed, as in ``np.take``)."""
        idx = np.asarray(idx)
        if idx.dtype == bool or not np.issubdtype(idx.dtype, np.integer):
            raise DataError(self.source, "take() needs integer row indices")
        if idx.size and (idx.min() < -self.n_rows or idx.max() >= self.n_rows):
            raise DataError(self.source, "row index out of range")
        return Dataset(self.X[idx], self.y[idx], list(self.feature_names),
                       None if self.classes is None else list(self.classes),
                       self.task, 0, self.source, self.levels, self.missing)

    def subset(self, rows) -> "Dataset":
        """The rows selected by a boolean mask or an index array, in dataset order.

        The class list is kept whole, so codes mean the same in every subset.
        """
        rows = np.asarray(rows)
        if rows.dtype == bool:
            if rows.shape != (self.n_rows,):
                raise DataError(self.source, "boolean mask has the wrong length")
            idx = np.flatnonzero(rows)
        else:
            idx = np.unique(rows)
        return self.take(idx)


def _check_levels(src, X, names, levels):
    """``levels`` checked against X (None when no feature is categorical)."""
    if levels is None or all(lv is None for lv in levels):
        return None
    levels = list(levels)
    if len(levels) != X.shape[1]:
        raise DataError(src, f"{len(levels)} level lists for {X.shape[1]} columns")
    out = []
    for j, lv in enumerate(levels):
        if lv is None:
            out.append(None)
            continue
        lv = [str(v) for v in lv]
        if len(set(lv)) != len(lv):
            raise DataError(src, f"column {names[j]!r}: repeated levels")
        if len(lv) > MAX_LEVELS:
            raise DataError(src, f"column {names[j]!r} has {len(lv)} levels; a categorical "
                                 f"feature may have at most {MAX_LEVELS}")
        col = X[:, j]
        ok = np.isnan(col) | ((col >= -1) & (col < len(lv)) & (col == np.round(col)))
        if not ok.all():
            raise DataError(src, f"column {names[j]!r}: a categorical column holds level "
                                 f"codes 0..{len(lv) - 1} (-1: a level new to a model)")
        out.append(lv)
    return out


def _read_table(path: Path) -> list[tuple[int, list[str]]]:
    """(line number, fields) of each non-blank record, the header's included, read
    line by line (the network family's reader: its files are small)."""
    return list(scan_records(path, _text(path)))


MISSING = ("", "?", "NA", "N/A", "NaN", "nan")
ON_MISSING = ("drop", "error", "split")


class MissingValueError(DataError):
    """A missing value where the caller asked for none (``on_missing="error"``);
    ``hint``: what the user can do about it."""
    hint = "--missing drop leaves such rows out; --missing split keeps them"


@dataclass
class Rows:
    """Rows read from a CSV file: predictors ``X`` (float64 [n, p]) in the order of
    ``feature_names``, the response's texts ``labels`` (None without one), the
    number of rows left out for a missing value, and the line of each row (read from
    the file when first needed). ``levels`` as Dataset's; ``unseen``: per categorical
    feature, the levels of new rows that ``like`` lacks (coded -1), with their counts."""
    X: np.ndarray
    feature_names: list[str]
    labels: list[str] | None
    response: str | None
    n_dropped: int
    lines: Sequence[int]
    levels: list | None = None
    unseen: dict = field(default_factory=dict)


class _Lines(Sequence):
    """The file lines of the kept rows of a Table, scanned when first read (only
    messages need them)."""

    def __init__(self, table: Table, keep: np.ndarray | None):
        self._table, self._keep = table, keep

    def __len__(self) -> int:
        return self._table.n_rows if self._keep is None else len(self._keep)

    def __getitem__(self, i):
        lines = self._table.lines()
        return (lines if self._keep is None else lines[self._keep])[i].tolist()


def _record_field(table: Table, i: int, j: int) -> str:
    """The text of field j of data row i, as the file has it."""
    line = int(table.lines()[i])
    return next(r[j] for ln, r in scan_records(table.path, table.text) if ln == line)


def read_rows(path, class_col: str | None = None, *, like: Dataset | None = None,
              response: bool = True, missing: Sequence[str] = MISSING,
              exclude: Sequence[str] = (), on_missing: str = "drop",
              categorical=()) -> Rows:
    """Read the rows of a CSV file with a header row.

    The response is the column ``class_col``, by default the one named ``class``
    (a file without one is an error when ``response`` is required: a silent guess
    would score the wrong column). Columns named in ``exclude`` are ignored; the
    columns named in ``categorical`` (or, with ``categorical="auto"``, every column
    holding a value that is not a number) are categorical predictors, their levels the
    distinct texts; every other column is a numeric predictor. With ``like`` (test or
    new data for a model fitted on ``like``) the predictors are ``like``'s features,
    matched by name in any order, categorical as they are there (a level ``like`` lacks
    is coded -1 and counted in ``unseen``); a column that is none of them is an error.
    A row with a value in ``missing`` in a used column is left out and counted
    (``on_missing="drop"``) or refused (``"error"``: MissingValueError naming the line
    and column); with ``"split"`` a missing predictor is kept (NaN: the trees send it
    down a side of each split) and only a missing response leaves its row out.
    """
    path = Path(path)
    if on_missing not in ON_MISSING:
        raise DataError(path, f"on_missing must be one of {ON_MISSING}, not {on_missing!r}")
    miss = {m.strip() for m in missing}
    auto = categorical == "auto"
    cats = set() if auto else {categorical} if isinstance(categorical, str) \
        else set(categorical)
    if like is not None:
        auto = False
        cats = {f for f, lv in zip(like.feature_names, like.levels or ()) if lv is not None}
    table = read_table(path, lambda header: [class_col or "class", *exclude, *cats],
                       sorted(miss))
    header = table.header
    if len(header) < 2 and like is None:
        raise DataError(path, "not a CSV table: the header needs at least two columns")
    if len(set(header)) != len(header):
        dup = next(h for h in header if header.count(h) > 1)
        raise DataError(path, f"duplicate column name {dup!r} in the header")
    for h in exclude:
        if h not in header:
            raise DataError(path, f"excluded column {h!r} is not in the header")
    if class_col is None:
        class_col = "class"
        if class_col not in header and response:
            raise DataError(path, "no column named 'class': name the response column "
                                  "(--target COLUMN)")
    elif class_col not in header and response:
        raise DataError(path, f"class column {class_col!r} is not in the header")
    ycol = header.index(class_col) if class_col in header else None
    for h in sorted(cats - set(header)) if like is None else ():
        raise DataError(path, f"categorical column {h!r} is not in the header")
    if class_col in cats and like is None:
        raise DataError(path, f"the response column {class_col!r} cannot be a "
                              f"categorical predictor")
    if like is None:
        xcols = [j for j, h in enumerate(header) if j != ycol and h not in exclude]
    else:
        absent = [f for f in like.feature_names if f not in header]
        if absent:
            raise DataError(path, f"no column {absent[0]!r} (the features are "
                                  f"{', '.join(like.feature_names)})")
        unknown = [h for j, h in enumerate(header) if j != ycol and h not in exclude
                   and h not in like.feature_names]
        if unknown:
            raise DataError(path, f"column {unknown[0]!r} is not a feature of the "
                                  f"training data (its features: "
                                  f"{', '.join(like.feature_names)})")
        xcols = [header.index(f) for f in like.feature_names]
    if not xcols:
        raise DataError(path, "no predictor columns")
    if not table.n_rows:
        raise DataError(path, "no data rows")
    used = ([] if ycol is None else [ycol]) + xcols
    # Column-wise, in pandas: the common case (nothing missing) never loops over
    # fields in Python.
    cols = {j: _column(table, j, miss) for j in used}
    drop = np.zeros(table.n_rows, dtype=bool)
    for j in used if on_missing != "split" else used[:1] if ycol is not None else ():
        drop |= cols[j][1]
    dropped = int(drop.sum())
    if dropped and on_missing == "error":
        i = int(np.flatnonzero(drop)[0])
        j = next(j for j in used if cols[j][1][i])
        raise MissingValueError(path, f"line {table.lines()[i]}, column {header[j]!r}: "
                                      f"missing value {_record_field(table, i, j)!r} "
                                      f"({dropped} of {table.n_rows} rows have one)")
    if dropped == table.n_rows:
        raise DataError(path, "no complete data rows")
    keep = np.flatnonzero(~drop) if dropped else None
    lines = _Lines(table, keep)
    X = np.empty((table.n_rows - dropped, len(xcols)), dtype=np.float64)
    levels: list = [None] * len(xcols)
    unseen: dict = {}
    for k, j in enumerate(xcols):
        values = cols[j][0] if keep is None else cols[j][0][keep]
        name = header[j]
        if name in cats or (auto and isinstance(values, _Factor)):
            if like is None:
                X[:, k], levels[k] = _level_codes(values)
            else:
                lv = like.levels[like.feature_names.index(name)]
                X[:, k], new = _level_codes(values, lv)
                if new:
                    unseen[name] = new
                levels[k] = lv
        else:
            X[:, k] = _numeric_column(path, name, values, lines,
                                      allow_nan=on_missing == "split", hint=like is None)
    labels = None
    if ycol is not None:
        y = cols[ycol][0] if keep is None else cols[ycol][0][keep]
        labels = y.values()          # the response column is read as text
    return Rows(X, [header[j] for j in xcols], labels,
                None if ycol is None else class_col, dropped, lines,
                levels if any(lv is not None for lv in levels) else None, unseen)


def load_csv(path, class_col: str | None = None, regression: bool = False,
             missing: Sequence[str] = MISSING, exclude: Sequence[str] = (),
             on_missing: str = "drop", like: Dataset | None = None,
             categorical=()) -> Dataset:
    """Read a CSV file with a header row into a :class:`Dataset` (see
    :func:`read_rows` for the columns, categorical ones and missing values; rows left
    out are counted in ``n_dropped``).

    Classification labels may be any text; ``classes`` are the sorted distinct
    labels (numerically sorted when all labels are numbers). With ``like``, the
    classes are ``like``'s and a label it does not have is an error; the levels of a
    categorical feature that ``like`` lacks are in ``unseen`` (rows coded -1).
    """
    rows = read_rows(path, class_col, like=like, missing=missing, exclude=exclude,
                     on_missing=on_missing, categorical=categorical)
    src = str(Path(path))
    regression = regression if like is None else like.task == "regression"
    extra = (rows.levels, on_missing == "split")
    if regression:
        y = _numeric_column(path, rows.response, rows.labels, rows.lines)
        ds = Dataset(rows.X, y, rows.feature_names, None, "regression", rows.n_dropped,
                     src, *extra)
    elif like is not None:
        ds = Dataset(rows.X, encode_labels(path, rows.labels, like.classes, rows.lines),
                     rows.feature_names, list(like.classes), "classification",
                     rows.n_dropped, src, *extra)
    else:
        y, classes = _encode_classes(rows.labels)
        if len(classes) < 2:
            raise DataError(path, f"class column {rows.response!r} has a single class "
                                  f"{classes[0]!r}")
        ds = Dataset(rows.X, y, rows.feature_names, classes, "classification",
                     rows.n_dropped, src, *extra)
    ds.unseen = rows.unseen
    return ds


def encode_labels(source, labels: Sequence[str], classes: Sequence[str],
                  lines: Sequence[int] | None = None) -> np.ndarray:
    """Codes into ``classes`` of the labels; a label not among them is an error."""
    index = {c: i for i, c in enumerate(classes)}
    try:
        return np.fromiter((index[s] for s in labels), np.int32, len(labels))
    except KeyError as e:
        k = list(labels).index(e.args[0])
        where = f"line {lines[k]}: " if lines is not None else ""
        raise DataError(source, f"{where}class {e.args[0]!r} is not one of the training "
                                f"data's classes ({', '.join(classes)})") from None


def from_arrays(X, y, feature_names: Sequence[str] | None = None,
                classes: Sequence[str] | None = None, task: str | None = None,
                source: str = "<arrays>", categorical=None,
                missing: bool = False) -> Dataset:
    """Build a Dataset from arrays (the Python API).

    ``task`` defaults to regression for a float ``y`` and classification otherwise.
    For classification ``y`` may be labels (strings or numbers, encoded like
    :func:`load_csv`) or, when ``classes`` is given, integer codes into it.
    ``categorical``: the columns (indices or names) whose values are categories, or
    ``"auto"`` for every column holding a value that is not a number; their levels
    are the distinct values as text. With ``missing``, None and NaN in X are missing
    values (kept: the trees send them down a side of each split); without, an error.
    """
    X = np.asarray(X, dtype=object if categorical is not None else None)
    if X.ndim == 1:
        X = X.reshape(-1, 1)
    y = np.asarray(y).reshape(-1)
    if task is None:
        task = "regression" if np.issubdtype(y.dtype, np.floating) else "classification"
    if feature_names is None:
        feature_names = [f"x{j}" for j in range(X.shape[1] if X.ndim == 2 else 0)]
    levels = None
    if categorical is not None and X.ndim == 2:
        X, levels = encode_columns(X, list(feature_names), categorical, source)
    extra = (levels, missing)
    if task == "regression":
        if not np.issubdtype(y.dtype, np.number):
            raise DataError(source, "regression y must be numeric")
        return Dataset(X, y, list(feature_names), None, task, 0, source, *extra)
    if classes is None:
        codes, classes = _encode_classes([str(v) for v in y.tolist()])
    else:
        if not np.issubdtype(y.dtype, np.integer):
            raise DataError(source, "with classes given, y must be integer codes")
        codes = y
    return Dataset(X, codes, list(feature_names), list(classes), task, 0, source, *extra)


def dataset_hash(ds: Dataset) -> str:
    """SHA-256 of the data (X, y, names, classes, task, levels): identifies it in run
    configs."""
    if ds._hash is None:
        h = hashlib.sha256()
        h.update(f"{ds.task}|{ds.X.shape}|".encode())
        h.update("\x1f".join(ds.feature_names).encode())
        h.update(b"\x1e" + "\x1f".join(ds.classes or []).encode() + b"\x1e")
        h.update(ds.X.tobytes())
        h.update(ds.y.tobytes())
        if ds.levels is not None:        # (numeric data hash as they always have)
            h.update(repr(ds.levels).encode())
        ds._hash = h.hexdigest()
    return ds._hash


def train_test_split(ds: Dataset, test_fraction: float, rng=None
                     ) -> tuple[Dataset, Dataset]:
    """Random split into (train, test); each keeps dataset order and the class list.

    ``rng`` is a ``numpy.random.Generator`` or a seed. The test part has
    ``round(test_fraction * n)`` rows; both parts must be non-empty.
    """
    if not 0.0 < test_fraction < 1.0:
        raise DataError(ds.source, f"test_fraction must be in (0, 1), not {test_fraction}")
    rng = np.random.default_rng(rng)
    n_test = int(round(test_fraction * ds.n_rows))
    if n_test == 0 or n_test == ds.n_rows:
        raise DataError(ds.source, f"a {test_fraction} split of {ds.n_rows} rows leaves "
                                   f"one side empty")
    test = np.zeros(ds.n_rows, dtype=bool)
    test[rng.permutation(ds.n_rows)[:n_test]] = True
    return ds.subset(~test), ds.subset(test)
