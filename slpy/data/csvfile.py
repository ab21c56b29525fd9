"""Reading a CSV file: pandas' C parser for the values, the csv module for line numbers.

pandas reads a 200,000-row file some 40 times faster than the csv module and a NumPy
conversion per column (benchmarks/csv_load.py, docs/benchmarks.md), so it reads the
values. The csv module reads the file again, record by record, only when a message
needs a line number or pandas' reading cannot be trusted to have caught a malformed
row (a row with too few fields reads as missing values): :meth:`Table.lines` is lazy.
Messages are the ones the reader had before pandas: one line naming the file (and the
line where one applies).
"""
from __future__ import annotations

import csv
import io
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
    """A CSV file's header (names stripped of spaces) and its data rows as a pandas
    DataFrame whose columns are the header's positions 0, 1, ... Missing-value markers
    read as NaN; the columns named in ``text_columns`` of :func:`read_table` hold text."""
    path: Path
    header: list
    header_line: int
    frame: object
    raw: bytes = field(repr=False)
    _lines: np.ndarray | None = field(default=None, repr=False)

    @property
    def text(self) -> str:
        return self.raw.decode("utf-8-sig")

    @property
    def n_rows(self) -> int:
        return len(self.frame)

    def lines(self) -> np.ndarray:
        """The line number of each data row (the first line of its record)."""
        if self._lines is None:
            self._lines = record_lines(self.path, self.text, len(self.header))
            if len(self._lines) != len(self.frame):   # pragma: no cover - parsers disagree
                raise DataError(self.path, "not a valid CSV file (its records could not "
                                           "be told apart)")
        return self._lines


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
    import pandas as pd
    path = Path(path)
    raw = _bytes(path)
    text = raw.decode("utf-8-sig")
    first = next(scan_records(path, text), None)
    if first is None:
        raise DataError(path, "empty file")
    header_line, names = first
    header = [h.strip() for h in names]
    keep_text = set(text_columns(header))
    text_pos = {j: str for j, h in enumerate(header) if h in keep_text}
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
