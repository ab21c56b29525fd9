"""Discrete data for BNs: loading, canonical form, hashing and one-line errors."""
import hashlib
import pickle
import runpy
from pathlib import Path

import numpy as np
import pytest

from slpy.bn.data import (DataError, DiscreteData, MissingValueError, discrete_from_arrays,
                          load_discrete_csv)

ROOT = Path(__file__).resolve().parents[2]
ASIA = ROOT / "examples" / "data" / "asia.csv"
ASIA_MD5 = "09c5e4aa95d67c1acebf384c63d3ccbb"
NAMES = ["asia", "tub", "smoke", "lung", "bronc", "either", "xray", "dysp"]


def write(tmp_path, text, name="d.csv"):
    p = tmp_path / name
    p.write_text(text)
    return p


# ---- the bundled Asia file -------------------------------------------------------------

def test_asia_file():
    d = load_discrete_csv(ASIA)
    assert d.names == NAMES
    assert d.levels == [["no", "yes"]] * 8
    assert d.n_samples == 5000 and d.n_vars == 8
    assert d.n_rows == len(ASIA.read_text().splitlines()) - 1
    assert d.codes.dtype == np.int32 and d.codes.flags.c_contiguous
    assert d.counts.dtype == np.int64 and (d.counts > 0).all()
    assert d.arities.tolist() == [2] * 8 and d.arities.dtype == np.int32
    # either = tub OR lung holds in every sample
    tub, lung, either = d.codes[:, 1], d.codes[:, 3], d.codes[:, 5]
    assert ((tub | lung) == either).all()
    # P(smoke) = 0.5: 5,000 samples put the count within 4 standard deviations (141)
    assert abs(d.counts[d.codes[:, 2] == 1].sum() - 2500) < 4 * np.sqrt(5000 * 0.25)


def test_asia_md5_and_script_reproduce_the_file():
    assert hashlib.md5(ASIA.read_bytes()).hexdigest() == ASIA_MD5
    make = runpy.run_path(str(ASIA.with_name("make_asia.py")), run_name="make_asia")
    assert make["asia_csv_text"]().encode("ascii") == ASIA.read_bytes()


def test_aggregated_equals_expanded_in_any_order(tmp_path):
    d = load_discrete_csv(ASIA)
    rows = np.repeat(d.codes, d.counts, axis=0)
    rows = rows[np.random.default_rng(3).permutation(len(rows))]
    text = ",".join(d.names) + "\n" + "".join(
        ",".join(d.levels[j][v] for j, v in enumerate(r)) + "\n" for r in rows.tolist())
    e = load_discrete_csv(write(tmp_path, text))
    assert np.array_equal(e.codes, d.codes) and np.array_equal(e.counts, d.counts)
    assert e.hash() == d.hash()
    # the same file with its rows reversed and one row split in two
    lines = ASIA.read_text().splitlines()
    head, body = lines[0], lines[1:][::-1]
    first = body[0].rsplit(",", 1)
    n = int(first[1])
    body[0:1] = [f"{first[0]},{n - 1}", f"{first[0]},1", f"{first[0]},0"]
    f = load_discrete_csv(write(tmp_path, "\n".join([head] + body) + "\n", "r.csv"))
    assert np.array_equal(f.codes, d.codes) and np.array_equal(f.counts, d.counts)
    assert f.hash() == d.hash()


def test_rows_are_sorted_and_distinct():
    d = load_discrete_csv(ASIA)
    order = np.lexsort(d.codes.T[::-1])
    assert np.array_equal(order, np.arange(d.n_rows))
    assert len({tuple(r) for r in d.codes.tolist()}) == d.n_rows


# ---- levels, counts, arrays -----------------------------------------------------------

def test_levels_sort_numerically_when_all_numbers(tmp_path):
    d = load_discrete_csv(write(tmp_path, "a,b,c\n10,x,1\n9,y,b\n-1,x,2\n"))
    assert d.levels == [["-1", "9", "10"], ["x", "y"], ["1", "2", "b"]]
    assert d.codes.tolist() == [[0, 0, 1], [1, 1, 2], [2, 0, 0]]


def test_count_column_named_auto_and_off(tmp_path):
    p = write(tmp_path, "a,n,count\nx,1,3\ny,2,0\nx,1,2\n")
    d = load_discrete_csv(p)                 # `count` found by its name
    assert d.names == ["a", "n"] and d.counts.tolist() == [5] and d.levels[0] == ["x", "y"]
    e = load_discrete_csv(p, count="")       # `count` is a variable
    assert e.names == ["a", "n", "count"] and e.n_samples == 3
    f = load_discrete_csv(p, count="n")      # another column as the counts
    assert f.names == ["a", "count"] and f.n_samples == 4


def test_a_single_level_is_fine(tmp_path):
    d = load_discrete_csv(write(tmp_path, "a,b\nx,1\nx,2\n"))
    assert d.arities.tolist() == [1, 2]


def test_from_arrays_values_codes_and_levels():
    d = discrete_from_arrays([["b", 1], ["a", 2], ["b", 1]], ["u", "v"])
    assert d.levels == [["a", "b"], ["1", "2"]]
    assert d.codes.tolist() == [[0, 1], [1, 0]] and d.counts.tolist() == [1, 2]
    e = discrete_from_arrays(np.array([[0, 2], [0, 2]]), levels=[3, ["p", "q", "r"]],
                             counts=[4, 0])
    assert e.names == ["x0", "x1"] and e.arities.tolist() == [3, 3]
    assert e.codes.tolist() == [[0, 2]] and e.counts.tolist() == [4]
    one = discrete_from_arrays(np.array([1, 0, 1]), levels=[2])
    assert one.n_vars == 1 and one.counts.tolist() == [1, 2]


def test_take_vars_merges_rows():
    d = load_discrete_csv(ASIA)
    s = d.take_vars(["smoke", "asia"])
    assert s.names == ["smoke", "asia"] and s.n_samples == 5000 and s.n_rows == 4
    assert s.take_vars([1]).names == ["asia"]
    with pytest.raises(DataError, match="no variable 'cancer'"):
        d.take_vars(["cancer"])


def test_hash_depends_on_content():
    a = discrete_from_arrays([[0, 1], [1, 1]], levels=[2, 2])
    b = discrete_from_arrays([[1, 1], [0, 1]], levels=[2, 2])
    assert a.hash() == b.hash() and len(a.hash()) == 16
    int(a.hash(), 16)
    for other in (discrete_from_arrays([[0, 1], [1, 1]], levels=[2, 2], counts=[1, 2]),
                  discrete_from_arrays([[0, 1], [1, 1]], levels=[2, 3]),
                  discrete_from_arrays([[0, 1], [1, 1]], ["a", "b"], levels=[2, 2]),
                  discrete_from_arrays([[0, 0], [1, 1]], levels=[2, 2])):
        assert other.hash() != a.hash()


def test_arrays_are_read_only():
    d = discrete_from_arrays([[0, 1]], levels=[2, 2])
    with pytest.raises(ValueError):
        d.codes[0, 0] = 1
    with pytest.raises(ValueError):
        d.counts[0] = 3


# ---- errors: one line, naming the place -----------------------------------------------

BAD_FILES = [
    ("", "empty file"),
    ("a,b\n", "no data rows"),
    ("a,b\nx,y\nx\n", ":3: the row has 1 fields, the header has 2"),
    ("a,a\nx,y\n", "duplicate column name 'a'"),
    ("a,,c\nx,y,z\n", ":1:2: empty column name"),
    ("a,b\nx,y\nx,\n", ":3:2: missing value '' in column 'b'"),
    ("a,b\nx,y\nNA,y\n", ":3:1: missing value 'NA' in column 'a'"),
    ("a,b\nx,?\n", ":2:2: missing value '?' in column 'b'"),
    ("a,count\nx,1\ny,-1\n", ":3:2: count '-1' is not a non-negative integer"),
    ("a,count\nx,1.5\n", ":2:2: count '1.5' is not a non-negative integer"),
    ("a,count\nx,many\n", ":2:2: count 'many'"),
    ("a,count\nx,0\ny,0\n", "no data rows (every value of 'count' is 0)"),
    ("count\n3\n", "no variable columns"),
    ("a,count\nx,\"1\n2\"\n", "count '1\\n2'"),
    ("a,count\nx,99999999999999999999\n", "more than 2**53 samples"),
    ('a,b\n"x,y\n', ":2: the row has 1 fields"),   # the quote runs to the end
]


@pytest.mark.parametrize("text,msg", BAD_FILES)
def test_bad_files_give_one_line_data_errors(tmp_path, text, msg):
    p = write(tmp_path, text)
    with pytest.raises(DataError) as e:
        load_discrete_csv(p)
    s = str(e.value)
    assert "\n" not in s and str(p) in s
    assert msg in s, s


def test_missing_value_error_is_picklable_and_specific(tmp_path):
    p = write(tmp_path, "a,b\nx,y\nx,NA\n")
    with pytest.raises(MissingValueError) as e:
        load_discrete_csv(p)
    assert str(e.value) == (f"{p}:3:2: missing value 'NA' in column 'b' (the BN scores "
                            f"need complete rows)")
    back = pickle.loads(pickle.dumps(e.value))
    assert type(back) is MissingValueError and str(back) == str(e.value)


def test_missing_file_and_unknown_count_column(tmp_path):
    with pytest.raises(DataError, match="cannot read file") as e:
        load_discrete_csv(tmp_path / "nope.csv")
    assert "\n" not in str(e.value)
    p = write(tmp_path, "a,b\nx,y\n")
    with pytest.raises(DataError, match="count column 'n' is not in the header"):
        load_discrete_csv(p, count="n")
    (tmp_path / "bin.csv").write_bytes(b"a,b\n\0\0\n")
    with pytest.raises(DataError, match="binary"):
        load_discrete_csv(tmp_path / "bin.csv")


@pytest.mark.parametrize("kwargs,msg", [
    (dict(codes_or_values=[[0, 2]], levels=[2, 2]), "codes of variable 'x1' must lie in 0..1"),
    (dict(codes_or_values=[[0, -1]], levels=[2, 2]), "codes of variable 'x1'"),
    (dict(codes_or_values=[[0.5, 1]], levels=[2, 2]), "codes must be integers"),
    (dict(codes_or_values=[[0, 1]], levels=[2]), "1 level lists for 2 variables"),
    (dict(codes_or_values=[[0, 1]], names=["a"]), "1 names for 2 variables"),
    (dict(codes_or_values=[[0, 1]], names=["a", "a"]), "duplicate variable name 'a'"),
    (dict(codes_or_values=[[0, 1]], counts=[-1]), "counts must not be negative"),
    (dict(codes_or_values=[[0, 1]], counts=[1.5]), "whole numbers"),
    (dict(codes_or_values=[[0, 1]], counts=[1, 2]), "2 counts for 1 rows"),
    (dict(codes_or_values=[[0, 1]], counts=[0]), "every count is 0"),
    (dict(codes_or_values=np.zeros((0, 2))), "no data rows"),
    (dict(codes_or_values=np.zeros((2, 0))), "no variables"),
    (dict(codes_or_values=[["a", None]]), "row 0, variable 1: missing value None"),
    (dict(codes_or_values=[["a", "?"]]), "missing value '?'"),
    (dict(codes_or_values=[[0, 0]], levels=[["a", "a"], 1]), "repeated level"),
])
def test_bad_arrays(kwargs, msg):
    with pytest.raises(DataError) as e:
        discrete_from_arrays(**kwargs)
    assert msg in str(e.value) and "\n" not in str(e.value)


def test_direct_construction_canonicalises():
    d = DiscreteData(np.array([[1, 0], [0, 1], [1, 0]]), np.array([1, 1, 1]), ["a", "b"],
                     [["n", "y"], ["n", "y"]])
    assert d.codes.tolist() == [[0, 1], [1, 0]] and d.counts.tolist() == [1, 2]


def test_row_order_is_numeric_lexicographic():
    # codes above 255 catch a byte-wise (little-endian memcmp) sort
    rng = np.random.default_rng(1)
    x = rng.integers(0, 700, (500, 3))
    x[:250, 0] = 5
    d = discrete_from_arrays(x, levels=[700, 700, 700], counts=rng.integers(0, 3, 500))
    assert np.array_equal(np.lexsort(d.codes.T[::-1]), np.arange(d.n_rows))
    assert (np.diff(d.codes[:, 0]) >= 0).all()
