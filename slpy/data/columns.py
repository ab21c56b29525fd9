"""Columns read or given as values: numbers checked as finite, categories coded as levels.

The CSV reader (slpy.data.dataset.read_rows) and the array API (from_arrays, the
estimators) both turn a column into float64: a numeric column as it is (a value that
is not a finite number is a one-line error naming its line), a categorical one as
codes into its sorted levels (NaN: missing; -1: a level a fitted model lacks).
"""
from __future__ import annotations

import math
from dataclasses import dataclass
from typing import Sequence

import numpy as np

from .csvfile import DataError, Table

__all__ = ["encode_columns"]


def _parse_float(text: str) -> float | None:
    try:
        v = float(text)
    except ValueError:
        return None
    return v if math.isfinite(v) else None


def _encode_classes(labels: Sequence[str]) -> tuple[np.ndarray, list[str]]:
    """Codes into the sorted unique labels; numeric labels sort as numbers."""
    if all(type(x) is str for x in labels):
        index: dict = {}
        codes = np.fromiter((index.setdefault(x, len(index)) for x in labels),
                            dtype=np.int64, count=len(labels))
        uniq = list(index)
    else:                 # numbers and texts: pandas tells 1 from 1.0 from "1"
        import pandas as pd
        codes, uniq = pd.factorize(np.asarray(labels, dtype=object))   # hashing, in C
        uniq = [str(u) for u in uniq.tolist()]
    nums = [_parse_float(s) for s in uniq]
    order = sorted(range(len(uniq)), key=(lambda k: (nums[k], uniq[k])) if all(
        v is not None for v in nums) else (lambda k: uniq[k]))
    rank = np.empty(len(uniq), dtype=np.int32)
    rank[order] = np.arange(len(uniq), dtype=np.int32)
    return rank[codes], [uniq[k] for k in order]


def _as_factor(values) -> "_Factor":
    if isinstance(values, _Factor):
        return values
    miss = np.isnan(values)               # numbers pandas parsed: their texts
    texts = [_number_text(v) for v in values[~miss].tolist()]
    uniq = sorted(set(texts))
    index = {t: i for i, t in enumerate(uniq)}
    codes = np.full(len(values), -1, dtype=np.int64)
    codes[~miss] = [index[t] for t in texts]
    return _Factor(codes, uniq)


def _level_codes(values, levels=None):
    """Level codes (float64, NaN where missing) of a column. Without ``levels``:
    (codes, the column's levels, sorted as classes are: numbers as numbers). With
    them: (codes, {level they lack: rows}), those rows coded -1."""
    f = _as_factor(values)
    present = np.zeros(len(f.texts), dtype=bool)
    present[f.codes[f.codes >= 0]] = True
    given = levels is not None
    if not given:
        _, levels = _encode_classes([t for t, p in zip(f.texts, present) if p])
    index = {t: i for i, t in enumerate(levels)}
    remap = np.array([index.get(t, -1) for t in f.texts] + [np.nan], dtype=np.float64)
    codes = remap[f.codes]
    if not given:
        return codes, levels
    counts = np.bincount(f.codes[f.codes >= 0], minlength=len(f.texts))
    return codes, {t: int(counts[i]) for i, t in enumerate(f.texts)
                   if present[i] and t not in index}


def _number_text(v: float) -> str:
    return str(int(v)) if float(v).is_integer() else repr(float(v))


def _column(table: Table, j: int, miss: set):
    """(values, missing mask) of column j: float64 numbers as pandas parsed them, or a
    Factor of texts stripped of spaces (a text that is a missing marker once stripped
    is missing)."""
    col = table.column(j)
    if isinstance(col, np.ndarray):
        return col, np.isnan(col)
    codes, uniq = col                                        # missing: -1
    index: dict = {}
    remap = np.empty(len(uniq) + 1, dtype=np.int64)
    remap[-1] = -1
    for k, u in enumerate(uniq):
        t = u.strip()
        remap[k] = -1 if t in miss else index.setdefault(t, len(index))
    codes = remap[codes]
    return _Factor(codes, list(index)), codes < 0


@dataclass
class _Factor:
    """A text column: ``codes`` into ``texts`` (-1: missing), in file order."""
    codes: np.ndarray
    texts: list

    def __getitem__(self, rows) -> "_Factor":
        return _Factor(self.codes[rows], self.texts)

    def values(self) -> list:
        return np.asarray(self.texts + [None], dtype=object)[self.codes].tolist()


def _record_field_text(v: float) -> str:
    # a number pandas parsed that is not finite: as the file most likely wrote it
    return "nan" if v != v else ("inf" if v > 0 else "-inf")


def _numeric_column(path, name: str, values, lines, allow_nan: bool = False,
                    hint: bool = False) -> np.ndarray:
    """Column values as float64: numbers pandas parsed, or texts (a _Factor or a
    list) that must all be finite numbers (DataError naming the first that is not,
    and its line). With ``allow_nan`` a missing value is NaN. ``hint``: the message
    says how to read a column of texts as categories."""
    if isinstance(values, _Factor):
        levels = np.array([_parse_float(t) for t in values.texts] + [None], dtype=float)
        col = levels[values.codes]
        missing = values.codes < 0
    elif isinstance(values, list):
        col = np.array([_parse_float(t) for t in values], dtype=float)
        missing = np.zeros(len(col), dtype=bool)
    else:
        col = np.asarray(values, dtype=np.float64)
        missing = np.isnan(col)
    bad = ~np.isfinite(col)
    if allow_nan:
        bad &= ~missing
    if bad.any():
        i = int(np.flatnonzero(bad)[0])
        if isinstance(values, _Factor):
            text = values.texts[values.codes[i]] if values.codes[i] >= 0 else ""
        elif isinstance(values, list):
            text = values[i]
        else:
            text = _record_field_text(values[i])
        more = ""
        if hint and isinstance(values, _Factor) and _parse_float(text) is None \
                and not np.isinf(col[i]):
            more = f" (a column of categories? name it categorical: --categorical {name})"
        raise DataError(path, f"column {name!r}, line {lines[i]}: value {text!r} is not a "
                              f"finite number{more}")
    return col


def _is_missing(v) -> bool:
    return v is None or (isinstance(v, float) and v != v) or \
        type(v).__name__ in ("NAType", "NaTType")


def encode_columns(X, names: list, categorical, source="<arrays>", levels=None):
    """(float64 matrix, levels) of an object matrix whose ``categorical`` columns
    (indices or names, or "auto": those holding a value that is not a number) hold
    categories: level codes in the float matrix (NaN: missing). With ``levels`` (a
    fitted Dataset's) the columns are coded as there, a level they lack as -1."""
    X = np.asarray(X, dtype=object)
    p = X.shape[1]
    if levels is not None:
        cat = [lv is not None for lv in levels]
    elif isinstance(categorical, str) and categorical == "auto":
        cat = [any(isinstance(v, str) and _parse_float(v) is None for v in X[:, j])
               for j in range(p)]
    else:
        cat = [False] * p
        for c in categorical:
            j = names.index(c) if isinstance(c, str) and c in names else c
            if not isinstance(j, (int, np.integer)) or not 0 <= j < p:
                raise DataError(source, f"categorical column {c!r} is not a column of X")
            cat[int(j)] = True
    out = np.empty(X.shape, dtype=np.float64)
    found = []
    for j in range(p):
        col = X[:, j]
        if not cat[j]:
            try:
                out[:, j] = [np.nan if _is_missing(v) else float(v) for v in col]
            except (TypeError, ValueError):
                raise DataError(source, f"column {names[j]!r} holds a value that is not a "
                                        f"number (categories? name it in "
                                        f"categorical)") from None
            found.append(None)
            continue
        texts = [None if _is_missing(v) else _value_text(v) for v in col]
        index: dict = {}
        codes = np.array([-1 if t is None else index.setdefault(t, len(index))
                          for t in texts], dtype=np.int64)
        codes_f, lv = _level_codes(_Factor(codes, list(index)),
                                   None if levels is None else levels[j])
        out[:, j] = codes_f
        found.append(lv if levels is None else levels[j])
    return out, (found if any(lv is not None for lv in found) else None)


def _value_text(v) -> str:
    if isinstance(v, (float, np.floating)) and float(v).is_integer():
        return str(int(v))
    return str(v).strip()
