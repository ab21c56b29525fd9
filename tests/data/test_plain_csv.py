"""A small plain CSV file is read without pandas (its import is a sixth of a second of a
short run): the values must be pandas' to the bit, and a file that is not plain must
still go to pandas."""
from pathlib import Path

import numpy as np
import pytest

from slpy.data import csvfile, load_csv
from slpy.data.dataset import MISSING

ROOT = Path(__file__).resolve().parents[2]
DATA = ROOT / "examples" / "data"


@pytest.fixture(autouse=True)
def _as_in_a_fresh_process(monkeypatch):
    # the plain reader is for a process that has not loaded pandas (this one may have)
    monkeypatch.setattr(csvfile, "_pandas_loaded", lambda: False)


def _both(path, text=lambda header: ["class"], missing=MISSING, monkeypatch=None):
    """(the table as read, the table pandas reads)."""
    plain = csvfile.read_table(path, text, missing)
    with monkeypatch.context() as m:
        m.setattr(csvfile, "PLAIN_MAX_BYTES", -1)
        pandas = csvfile.read_table(path, text, missing)
    assert pandas.columns is None
    return plain, pandas


def _same(a, b):
    assert a.header == b.header and a.n_rows == b.n_rows == len(a.lines())
    for j in range(len(a.header)):
        x, y = a.column(j), b.column(j)
        if isinstance(y, np.ndarray):
            assert isinstance(x, np.ndarray) and x.dtype == y.dtype == np.float64
            # to the bit: NaN where NaN, and -0.0 apart from 0.0
            assert np.array_equal(x.view(np.int64), y.view(np.int64)), a.header[j]
        else:
            assert np.array_equal(x[0], y[0]) and x[1] == y[1], a.header[j]


@pytest.mark.parametrize("name", ["bcw.csv", "kyphosis.csv", "pima.csv", "iris.csv",
                                  "iris_petals.csv", "bcw_full.csv"])
def test_the_bundled_files_read_as_pandas_reads_them(name, monkeypatch):
    plain, pandas = _both(DATA / name, monkeypatch=monkeypatch)
    assert plain.columns is not None         # they are plain: no pandas
    _same(plain, pandas)


def test_a_file_of_texts_reads_as_pandas_reads_it(monkeypatch):
    plain, pandas = _both(DATA / "asia.csv", lambda header: header, monkeypatch=monkeypatch)
    assert plain.columns is not None
    _same(plain, pandas)


def test_plain_numbers_are_pandas_numbers_to_the_bit(tmp_path, monkeypatch):
    rng = np.random.default_rng(27)
    cells = []
    for _ in range(3000):
        k = rng.integers(6)
        digits = "".join(map(str, rng.integers(0, 10, size=int(rng.integers(1, 16)))))
        cut = int(rng.integers(0, len(digits) + 1))
        sign = "-" if rng.random() < 0.3 else ""
        if k == 0:
            cells.append(sign + digits)
        elif k == 1:
            cells.append(f"{sign}{digits[:cut]}.{digits[cut:]}".rstrip(".") or "0")
        elif k == 2:
            cells.append(f"{sign}{digits[:cut] or '0'}.{digits[cut:]}e{rng.integers(-9, 9)}")
        elif k == 3:
            cells.append(repr(float(rng.normal() * 10.0 ** rng.integers(-8, 8))))
        elif k == 4:
            cells.append(str(rng.choice(["", "?", "NA", "0.1", "0.3", "1e22", "2.5E-3",
                                         ".5", "5.", "007", "1e-22"])))
        else:
            cells.append(f"{rng.uniform(-1000, 1000):.{rng.integers(0, 12)}f}")
    # the cells the plain reader takes (a -0 or 16 digits go to pandas: tested below)
    cells = [c for c in cells if c in ("", "?", "NA") or csvfile._plain_number(c) is not None]
    assert len(cells) > 2000
    cols = 6
    rows = [cells[i:i + cols] for i in range(0, len(cells) - cols + 1, cols)]
    path = tmp_path / "numbers.csv"
    path.write_text("\n".join([",".join(f"x{j}" for j in range(cols)) + ",class"]
                              + [",".join(r) + f",c{i % 3}" for i, r in enumerate(rows)])
                    + "\n")
    plain, pandas = _both(path, monkeypatch=monkeypatch)
    assert plain.columns is not None
    _same(plain, pandas)


@pytest.mark.parametrize("cell", ["-0", "1234567890123456", "1e23", " 5", "True", "0x10",
                                  "1_000", "+5", "inf", "1,5"])
def test_what_is_not_plain_goes_to_pandas(tmp_path, monkeypatch, cell):
    path = tmp_path / "odd.csv"
    text = f"a,b,class\n1,2,x\n3,{cell if ',' not in cell else chr(34) + cell + chr(34)},y\n"
    path.write_text(text)
    plain, pandas = _both(path, monkeypatch=monkeypatch)
    assert plain.columns is None
    _same(plain, pandas)


def test_texts_and_missing_values_read_alike(tmp_path, monkeypatch):
    path = tmp_path / "texts.csv"
    path.write_text("a,colour,class\n1,red,x\n2,?,y\n,blue,x\nNA,red,\n5,green,y\n")
    plain, pandas = _both(path, lambda h: ["class", "colour"], monkeypatch=monkeypatch)
    assert plain.columns is not None
    _same(plain, pandas)
    path.write_text("a,colour,class\n1, red,x\n2,blue,y\n")     # a space: pandas decides
    plain, pandas = _both(path, lambda h: ["class", "colour"], monkeypatch=monkeypatch)
    assert plain.columns is None


def test_a_dataset_is_the_same_either_way(monkeypatch):
    a = load_csv(DATA / "bcw.csv")
    monkeypatch.setattr(csvfile, "PLAIN_MAX_BYTES", -1)
    b = load_csv(DATA / "bcw.csv")
    assert np.array_equal(a.X, b.X) and np.array_equal(a.y, b.y)
    assert a.classes == b.classes and a.feature_names == b.feature_names


def test_a_large_file_or_a_process_with_pandas_goes_to_pandas(monkeypatch):
    assert csvfile.read_table(DATA / "letter.csv", lambda h: ["class"]).columns is None
    monkeypatch.setattr(csvfile, "_pandas_loaded", lambda: True)
    assert csvfile.read_table(DATA / "bcw.csv", lambda h: ["class"]).columns is None
