"""Categorical predictors and missing values in the data layer: reading them, the split
rules (slpy.data.splits) against a brute-force Python reference, and their numba
kernels against NumPy references."""
from itertools import combinations
from pathlib import Path

import numpy as np
import pytest

from slpy.data import DataError, Dataset, RowSets, from_arrays, load_csv
from slpy.data import _kernels as K
from slpy.data.dataset import dataset_hash, read_rows
from slpy.data.splits import (MAX_LISTED, MAX_SUBSET_LEVELS, feature_of, pack_levels,
                              side_of, unpack_levels)

from .test_dataset import _one_line_error as _one_line

ROOT = Path(__file__).resolve().parents[2]
BCW_FULL = ROOT / "examples" / "data" / "bcw_full.csv"


# -- reading ---------------------------------------------------------------------------------

def test_categorical_columns_are_read_as_levels(tmp_path):
    f = tmp_path / "d.csv"
    f.write_text("colour,size,grade,class\nred,1,10,p\nblue,2,9,q\n red,3,2,p\n"
                 "green,4,10,q\n")
    ds = load_csv(f, categorical=["colour", "grade"])
    assert ds.levels == [["blue", "green", "red"], None, ["2", "9", "10"]]  # numbers sort
    assert ds.X[:, 0].tolist() == [2, 0, 2, 1]            # spaces stripped
    assert ds.X[:, 2].tolist() == [2, 1, 0, 2]
    assert ds.categorical.tolist() == [True, False, True] and not ds.plain
    auto = load_csv(f, categorical="auto")
    assert auto.levels == [["blue", "green", "red"], None, None]
    assert dataset_hash(auto) != dataset_hash(ds)
    # a text value in a column not named categorical: one line, with the way out
    msg = _one_line(f)
    assert "column 'colour', line 2: value 'red' is not a finite number" in msg
    assert "--categorical colour" in msg
    assert "categorical column 'shade' is not in the header" in \
        _one_line(f, categorical=["shade"])
    assert "cannot be a categorical predictor" in _one_line(f, categorical=["class"])


def test_numeric_data_read_as_they_always_were():
    ds = load_csv(ROOT / "examples" / "data" / "kyphosis.csv")
    assert ds.levels is None and ds.plain and not ds.missing
    assert ds.categorical.tolist() == [False, False, False]


def test_missing_values_split_keeps_the_rows(tmp_path):
    f = tmp_path / "d.csv"
    f.write_text("colour,size,class\nred,1,p\n,2,q\nblue,NA,p\ngreen,4,\nred,?,q\n"
                 "blue,5,q\n")
    ds = load_csv(f, categorical=["colour"], on_missing="split")
    assert ds.missing and ds.n_rows == 5 and ds.n_dropped == 1      # no response: out
    assert np.isnan(ds.X[1, 0]) and np.isnan(ds.X[2, 1]) and np.isnan(ds.X[3, 1])
    assert ds.levels[0] == ["blue", "red"]
    assert load_csv(f, categorical=["colour"]).n_rows == 2            # drop, as before
    # BCW's 16 empty bare_nuclei fields
    full = load_csv(BCW_FULL, exclude=["id"], on_missing="split")
    assert full.n_rows == 699 and int(np.isnan(full.X).sum()) == 16
    assert not full.plain


def test_new_rows_code_unseen_levels_and_count_them(tmp_path):
    train = tmp_path / "train.csv"
    train.write_text("colour,size,class\nred,1,p\nblue,2,q\nred,3,p\n")
    ds = load_csv(train, categorical=["colour"])
    new = tmp_path / "new.csv"
    new.write_text("size,colour\n1,blue\n2,purple\n3,purple\n4,red\n")
    rows = read_rows(new, like=ds, response=False)
    assert rows.X[:, 0].tolist() == [0, -1, -1, 1]
    assert rows.unseen == {"colour": {"purple": 2}}
    assert load_csv(train, like=ds).unseen == {}


def test_from_arrays_categories_and_missing():
    X = np.array([["a", 1.0], ["b", None], ["a", 3.0], [None, 4.0]], dtype=object)
    ds = from_arrays(X, [0, 1, 0, 1], ["c", "x"], categorical=[0], missing=True)
    assert ds.levels == [["a", "b"], None]
    assert np.isnan(ds.X[3, 0]) and np.isnan(ds.X[1, 1])
    with pytest.raises(DataError, match="non-finite"):
        from_arrays(X, [0, 1, 0, 1], ["c", "x"], categorical=[0])
    with pytest.raises(DataError, match="not a number"):
        from_arrays(X, [0, 1, 0, 1], ["c", "x"], categorical=[], missing=True)
    with pytest.raises(DataError, match="level codes"):
        Dataset(np.array([[0.0], [5.0]]), np.array([0, 1]), ["c"], ["p", "q"],
                levels=[["a", "b"]])
    many = np.array([[f"l{i}"] for i in range(1100)], dtype=object)
    with pytest.raises(DataError, match="at most 1023"):
        from_arrays(many, np.arange(1100) % 2, categorical="auto")


def test_packed_levels_round_trip_and_order():
    rng = np.random.default_rng(0)
    seen = []
    for _ in range(300):
        k = int(rng.integers(0, MAX_LISTED + 1))
        codes = tuple(sorted(rng.choice(1023, k, replace=False).tolist()))
        v = pack_levels(codes)
        assert unpack_levels(v) == codes and v == int(v) < 2 ** 53
        seen.append((codes, v))
    # floats compare as the code tuples do: each split keeps one place in (code, value)
    for (a, va), (b, vb) in zip(seen, seen[1:]):
        assert (a < b) == (va < vb) or a == b
    with pytest.raises(ValueError):
        pack_levels(range(MAX_LISTED + 1))


# -- split enumeration against a brute-force reference ---------------------------------------

def brute_splits(X, levels, rows, min_leaf):
    """{(feature, side, test, left rows)} by the rules of docs/priors.md, written
    directly: thresholds at observed values, two-way splits of the levels present
    (the listed side the smaller, on a tie the one with the first level; one level
    against the rest past MAX_SUBSET_LEVELS), and with missing values in the rows
    each split twice plus the missing rows alone."""
    out = set()
    lo = max(min_leaf, 1)
    for f in range(X.shape[1]):
        col = X[rows, f]
        na = frozenset(rows[np.isnan(col)].tolist())
        known = rows[~np.isnan(col)]
        cands = []
        if levels[f] is None:
            values = sorted(set(X[known, f].tolist()))
            for t in values if na else values[:-1]:
                cands.append((t, frozenset(known[X[known, f] <= t].tolist())))
        else:
            present = sorted(set(int(c) for c in X[known, f]))
            L = len(present)
            if 2 <= L <= MAX_SUBSET_LEVELS:
                for r in range(1, L):
                    for a in combinations(present, r):
                        if present[0] not in a:
                            continue                 # each partition once
                        b = tuple(c for c in present if c not in a)
                        listed = a if len(a) <= len(b) else b
                        cands.append((listed, frozenset(known[np.isin(X[known, f], listed)]
                                                        .tolist())))
            elif L > MAX_SUBSET_LEVELS:
                for c in present:
                    cands.append(((c,), frozenset(known[X[known, f] == c].tolist())))
        for test, left in cands:
            variants = [(1, left | na), (2, left)] if na else [(0, left)]
            for side, lrows in variants:
                if len(lrows) >= lo and len(rows) - len(lrows) >= lo:
                    out.add((f, side, test, lrows))
        if na and levels[f] is not None and present and len(na) >= lo \
                and len(rows) - len(na) >= lo:
            out.add((f, 1, (), na))
    return out


def slpy_splits(rs, rid, min_leaf, levels):
    sl = rs.valid_splits(rid, min_leaf)
    keys = list(zip(sl.features.tolist(), sl.thresholds.tolist()))
    assert keys == sorted(keys), "splits in (code, value) order"
    out = set()
    for code, v, left, right in sl:
        f = feature_of(code)
        test = v if levels[f] is None else unpack_levels(v)
        out.add((f, side_of(code), test, frozenset(rs.rows(left).tolist())))
        assert sorted(set(rs.rows(left)) | set(rs.rows(right))) == rs.rows(rid).tolist()
    assert len(out) == len(sl), "no split listed twice"
    return out


def mixed_data(seed, n, n_levels):
    rng = np.random.default_rng(seed)
    cat = rng.integers(0, n_levels, n).astype(float)
    num = rng.integers(0, 6, n).astype(float)
    num2 = rng.integers(0, 4, n).astype(float)
    cat2 = rng.integers(0, 3, n).astype(float)
    num[rng.random(n) < 0.15] = np.nan
    cat2[rng.random(n) < 0.2] = np.nan
    X = np.column_stack([cat, num, num2, cat2])
    levels = [[f"l{i}" for i in range(n_levels)], None, None, ["a", "b", "c"]]
    return Dataset(X, rng.integers(0, 2, n), ["c", "x", "z", "d"], ["p", "q"],
                   levels=levels, missing=True)


@pytest.mark.parametrize("seed,n,n_levels,min_leaf", [(0, 40, 4, 1), (1, 60, 7, 3),
                                                      (2, 80, 13, 2), (3, 30, 11, 5)])
def test_valid_splits_match_a_brute_force_reference(seed, n, n_levels, min_leaf):
    ds = mixed_data(seed, n, n_levels)
    rs = RowSets(ds)
    levels = ds.levels
    todo = [rs.root()]
    checked = 0
    while todo and checked < 12:        # the root and some row sets below it
        rid = todo.pop(0)
        rows = rs.rows(rid)
        assert slpy_splits(rs, rid, min_leaf, levels) == \
            brute_splits(ds.X, levels, rows, min_leaf)
        checked += 1
        sl = rs.valid_splits(rid, min_leaf)
        for i in (0, len(sl) // 2, len(sl) - 1) if len(sl) else ():
            todo.extend(sl[i][2:])
    assert checked >= 5


def test_split_counts_follow_the_documented_rule():
    for n_levels, expect in ((2, 1), (4, 7), (10, 511), (11, 11), (14, 14)):
        X = np.arange(2 * n_levels, dtype=float).reshape(-1, 1) % n_levels
        ds = Dataset(X, np.arange(2 * n_levels) % 2, ["c"], ["p", "q"],
                     levels=[[f"v{i:02d}" for i in range(n_levels)]])
        assert len(RowSets(ds).valid_splits(0, 1)) == expect


# -- kernels against NumPy references --------------------------------------------------------

def numpy_goes_left(x, side, categorical, v, default_left):
    listed = np.array(unpack_levels(v)) if categorical else None
    nan = np.isnan(x)
    if categorical:
        known = ~nan & (x >= 0)
        test = np.isin(x, listed)
    else:
        known = ~nan
        test = x <= v
    out = np.where(known, test, default_left)
    if side:
        out = np.where(nan, side == 1, out)
    return out


def test_rule_kernels_match_numpy_references():
    rng = np.random.default_rng(5)
    for trial in range(200):
        categorical = bool(trial % 2)
        n = 30
        if categorical:
            col = rng.integers(-1, 8, n).astype(float)     # -1: a level new to the model
            v = pack_levels(rng.choice(8, int(rng.integers(0, MAX_LISTED + 1)),
                                       replace=False))
        else:
            col = rng.integers(0, 10, n).astype(float)
            v = float(rng.integers(0, 10))
        col[rng.random(n) < 0.2] = np.nan
        side = int(rng.integers(0, 3))
        for default in (True, False):
            got = [K._goes_left(x, side, categorical, v, default) for x in col]
            assert got == numpy_goes_left(col, side, categorical, v, default).tolist()
        rows = np.sort(rng.choice(n, 20, replace=False)).astype(np.int32)
        mask = K._rule_mask(col, rows, side, categorical, v)
        x = col[rows]
        seen = numpy_goes_left(x, side, categorical, v, True)
        unseen = (np.isnan(x) & (side == 0)) | (categorical & (x < 0))
        left = int((seen & ~unseen).sum())
        right = int((~seen & ~unseen).sum())
        want = np.where(unseen, left >= right, seen)
        assert mask.tolist() == want.tolist()
