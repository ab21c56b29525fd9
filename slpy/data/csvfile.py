"""Reading a CSV file: pandas' C parser for the values, the csv module for line numbers.

pandas reads a 200,000-row file some 40 times faster than the csv module and a NumPy
conversion per column (benchmarks/csv_load.py, docs/benchmarks.md), so it reads the
values. A small file whose values are plain (numbers pandas and Python both read to
the same float, texts without spaces or quotes) is read by the csv module alone:
importing pandas costs a short run a sixth of a second and 30 MB (issue 27). The csv
module reads a file pandas read again, record by record, only when a message needs a
line number or pandas' reading cannot be trusted to have caught a malformed
row (a row with too few fields reads as missing values): :meth:`Table.lines` is lazy.
Messages are the ones the reader had before pandas: one line naming the file (and the
line where one applies).
"""
from __future__ import annotations

import csv
import io
import math
import re
import sys
import warnings
from dataclasses import dataclass, field
from pathlib import Path

import numpy as np

from ..errors import PicklableError

__all__ = ["DataError", "Table", "read_table", "scan_records", "record_lines"]


class DataError(PicklableError, ValueError):
    """A dataset could not be read or built. ``str()`` is one line naming the source."""

    def __init__(self, source, message: str):
        # Newlines inside a value would break the one-line promise.
        text = f"{source}: {message}".replace("\r", " ").replace("\n", " ")
        super().__init__(text)
        self.source = str(source)


def _bytes(path: Path) -> bytes:
    """The file's bytes, checked to be UTF-8 text that is not blank."""
    try:
        raw = path.read_bytes()
    except OSError as e:
        raise DataError(path, f"cannot read file ({e.strerror or e})") from None
    if not raw.strip():
        raise DataError(path, "empty file")
    if b"\0" in raw:
        raise DataError(path, "not a CSV text file (binary content)")
    try:
        raw.decode("utf-8")
    except UnicodeDecodeError:
        raise DataError(path, "not a CSV text file (not UTF-8)") from None
    return raw


def _text(path: Path) -> str:
    return _bytes(path).decode("utf-8-sig")


def _lines_of(text: str):
    # line by line without copying the text (only the header may be read)
    start = 0
    while start < len(text):
        end = text.find("\n", start)
        end = len(text) if end < 0 else end + 1
        yield text[start:end]
        start = end


def _blank(record: list) -> bool:
    # what pandas skips: an empty line, or one of spaces and tabs only
    return not record or (len(record) == 1 and record[0] != "" and not record[0].strip())


def scan_records(path: Path, text: str):
    """(first line number, fields) of each non-blank record, the header's included:
    the csv module's reading, exact about lines (a quoted field may span several)."""
    reader = csv.reader(_lines_of(text))
    prev = 0
    try:
        for r in reader:
            if not _blank(r):
                yield prev + 1, r
            prev = reader.line_num
    except csv.Error as e:
        raise DataError(path, f"not a valid CSV file ({e})") from None


@dataclass(eq=False)
class Table:
    """A CSV file's header (names stripped of spaces) and its data rows: a pandas
    DataFrame whose columns are the header's positions 0, 1, ..., or (a small plain
    file) ``columns``, the same values as :func:`_plain_columns` reads them. Missing-value
    markers read as NaN; the columns named in ``text_columns`` of :func:`read_table` hold
    text."""
    path: Path
    header: list
    header_line: int
    frame: object
    raw: bytes = field(repr=False)
    columns: list | None = field(default=None, repr=False)
    _lines: np.ndarray | None = field(default=None, repr=False)

    @property
    def text(self) -> str:
        return self.raw.decode("utf-8-sig")

    @property
    def n_rows(self) -> int:
        if self.columns is not None:
            c = self.columns[0]
            return len(c if isinstance(c, np.ndarray) else c[0])
        return len(self.frame)

    def column(self, j: int):
        """Column j: float64 numbers (NaN: missing), or a text column as (codes into
        its distinct texts in order of first appearance, -1: missing; the texts)."""
        if self.columns is not None:
            return self.columns[j]
        import pandas as pd
        col = self.frame[j]
        if col.dtype.kind in "fiub":
            return col.to_numpy(dtype=np.float64, na_value=np.nan)
        codes, uniq = pd.factorize(col, use_na_sentinel=True)     # missing: -1
        return codes.astype(np.int64), [str(u) for u in uniq.tolist()]

    def lines(self) -> np.ndarray:
        """The line number of each data row (the first line of its record)."""
        if self._lines is None:
            self._lines = record_lines(self.path, self.text, len(self.header))
            if len(self._lines) != self.n_rows:   # pragma: no cover - parsers disagree
                raise DataError(self.path, "not a valid CSV file (its records could not "
                                           "be told apart)")
        return self._lines


# files up to this size may be read without pandas: the csv module reads 128 KiB in
# about 65 ms, pandas' import takes 160 ms (beyond, or once pandas is loaded, pandas)
PLAIN_MAX_BYTES = 128 << 10
# a number both parsers read to the same double: at most 15 significant digits and a
# small exponent make it one exact integer times or over one exact power of ten
_PLAIN_NUMBER = re.compile(r"-?(\d*)\.?(\d*)(?:[eE]([+-]?\d{1,2}))?")


def _pandas_loaded() -> bool:
    return "pandas" in sys.modules


def _plain_number(text: str) -> float | None:
    m = _PLAIN_NUMBER.fullmatch(text)
    if m is None or not (m.group(1) or m.group(2)):
        return None
    digits = (m.group(1) + m.group(2)).lstrip("0")
    exp = int(m.group(3) or 0) - len(m.group(2))
    if len(digits) > 15 or abs(exp) > 22:
        return None
    v = float(text)
    return None if v == 0 and text.startswith("-") else v   # -0: int 0 for pandas


def _plain_columns(records: list, width: int, text_pos, missing) -> list | None:
    """The columns of the data records as Table.column gives them, or None when the
    file is not plain (pandas then reads it): a row of another width, a text with
    surrounding spaces, a number column with a value that is not a plain number, or
    a column with no value."""
    if any(len(r) != width for r in records):
        return None
    miss = set(missing)
    out = []
    for j in range(width):
        fields = [r[j] for r in records]
        if j in text_pos:
            index: dict = {}
            codes = np.empty(len(fields), dtype=np.int64)
            for i, f in enumerate(fields):
                if f != f.strip():
                    return None
                codes[i] = -1 if f in miss else index.setdefault(f, len(index))
            out.append((codes, list(index)))
            continue
        values = np.empty(len(fields), dtype=np.float64)
        for i, f in enumerate(fields):
            v = math.nan if f in miss else _plain_number(f)
            if v is None:
                return None
            values[i] = v
        if len(values) and np.isnan(values).all():
            return None
        out.append(values)
    return out


def record_lines(path: Path, text: str, width: int) -> np.ndarray:
    """The first line of each data record, checking that each has ``width`` fields."""
    out = []
    for k, (line, row) in enumerate(scan_records(path, text)):
        if k == 0:
            continue
        if len(row) != width:
            raise DataError(path, f"line {line} has {len(row)} fields, the header has "
                                  f"{width}")
        out.append(line)
    return np.asarray(out, dtype=np.int64)


def read_table(path, text_columns=lambda header: (), missing=()) -> Table:
    """Read the CSV file at ``path`` (a header row, then data rows).

    ``text_columns(header)``: the names of the columns to keep as text (the others are
    parsed as numbers where they all are); ``missing``: the texts that stand for a
    missing value (read as NaN). Every row must have as many fields as the header
    (DataError otherwise).
    """
    path = Path(path)
    raw = _bytes(path)
    text = raw.decode("utf-8-sig")
    records = scan_records(path, text)
    first = next(records, None)
    if first is None:
        raise DataError(path, "empty file")
    header_line, names = first
    header = [h.strip() for h in names]
    keep_text = set(text_columns(header))
    text_pos = {j: str for j, h in enumerate(header) if h in keep_text}
    if len(raw) <= PLAIN_MAX_BYTES and b'"' not in raw and not _pandas_loaded():
        try:
            columns = _plain_columns([r for _, r in records], len(header), text_pos,
                                     missing)
        except DataError:        # what the csv module refuses, pandas may read
            columns = None
        if columns is not None:
            return Table(path, header, header_line, None, raw, columns)
    import pandas as pd
    try:
        with warnings.catch_warnings():
            # a first row longer than the header would silently lose a column
            warnings.simplefilter("error", pd.errors.ParserWarning)
            frame = pd.read_csv(io.BytesIO(raw), encoding="utf-8-sig", header=0, names=range(len(header)),
                                index_col=False, dtype=text_pos or None,
                                na_values=list(missing), keep_default_na=False,
                                skip_blank_lines=True, engine="c", low_memory=False)
    except (pd.errors.ParserError, pd.errors.ParserWarning, ValueError) as e:
        record_lines(path, text, len(header))      # names the row with too many fields
        raise DataError(path, f"not a valid CSV file ({str(e).strip()})") from None
    table = Table(path, header, header_line, frame, raw)
    if frame.isna().to_numpy().any():
        table.lines()        # a short row reads as missing values: find it now
    return table
