"""RowSets: hash-consing, splits, thresholds and summaries against NumPy brute force."""
from pathlib import Path

import numpy as np
import pytest
from hypothesis import given, settings, strategies as st

from slpy._numba_config import is_compiled
from slpy.data import RowSets, from_arrays, load_csv
from slpy.data import _kernels

DATA = Path(__file__).resolve().parents[2] / "examples" / "data"


def _random_dataset(rng, n=120, p=3, levels=5, k=3):
    X = rng.integers(0, levels, size=(n, p)).astype(float)
    X[:, -1] = rng.normal(size=n).round(1)    # one feature with many ties and values
    y = rng.integers(0, k, size=n)
    return from_arrays(X, y, classes=[f"c{i}" for i in range(k)])


def _brute_splits(X, rows, min_leaf):
    out = []
    for f in range(X.shape[1]):
        for t in np.unique(X[rows, f])[:-1]:
            left = rows[X[rows, f] <= t]
            right = rows[X[rows, f] > t]
            if len(left) >= max(min_leaf, 1) and len(right) >= max(min_leaf, 1):
                out.append((f, float(t), left, right))
    return out


@pytest.mark.skipif(not is_compiled(_kernels._scan_splits), reason="NUMBA_DISABLE_JIT")
def test_kernels_are_compiled():
    for name in ("_set_key", "_partition", "_side", "_thresholds", "_scan_splits", "_any_split",
                 "_class_counts", "_moments"):
        assert is_compiled(getattr(_kernels, name)), name


def test_root_and_split_match_boolean_masks(rng):
    ds = _random_dataset(rng)
    rs = RowSets(ds)
    root = rs.root()
    np.testing.assert_array_equal(rs.rows(root), np.arange(ds.n_rows))
    assert rs.size(root) == ds.n_rows
    rows = np.arange(ds.n_rows)
    for f in range(ds.n_features):
        for t in [-10.0, 0.0, 1.5, 2.0, 0.3, 99.0]:
            left, right = rs.split(root, f, t)
            mask = ds.X[:, f] <= t
            np.testing.assert_array_equal(rs.rows(left), rows[mask])
            np.testing.assert_array_equal(rs.rows(right), rows[~mask])
            assert rs.size(left) + rs.size(right) == ds.n_rows
            assert rs.rows(left).dtype == np.int32
    # a split that moves nothing gives the node itself and the empty set
    left, right = rs.split(root, 0, 99.0)
    assert left == root and rs.size(right) == 0


def test_hash_consing_two_paths_one_id(rng):
    ds = _random_dataset(rng)
    rs = RowSets(ds)
    a, _ = rs.split(rs.root(), 0, 1.0)
    ab, _ = rs.split(a, 1, 2.0)
    b, _ = rs.split(rs.root(), 1, 2.0)
    ba, _ = rs.split(b, 0, 1.0)
    assert ab == ba      # x0 <= 1 and x1 <= 2, reached in either order
    assert a != b
    # the same partition from different thresholds (integer data: 1.0 and 1.5)
    assert rs.split(rs.root(), 0, 1.0) == rs.split(rs.root(), 0, 1.5)
    # ids from valid_splits agree with split() and with each other
    n = len(rs)
    for f, t, left, right in rs.valid_splits(ab):
        l2, r2 = rs.split(ab, f, t)
        assert (left, right) == (l2, r2)
    rs.valid_splits(ab)
    assert len(rs) >= n
    # a set reached by valid_splits of two different parents gets one id
    l_a = {frozenset(rs.rows(l).tolist()): l for _, _, l, _ in rs.valid_splits(a)}
    l_b = {frozenset(rs.rows(l).tolist()): l for _, _, l, _ in rs.valid_splits(b)}
    for key in l_a.keys() & l_b.keys():
        assert l_a[key] == l_b[key]
    contents = [frozenset(rs.rows(i).tolist()) for i in range(len(rs))]
    assert len(set(contents)) == len(contents)   # no two ids share a content


@settings(max_examples=60, deadline=None)
@given(seed=st.integers(0, 2**32 - 1), min_leaf=st.integers(0, 30),
       depth=st.integers(0, 3), bucket_factor=st.sampled_from([0.0, 0.05, 4.0, np.inf]))
def test_valid_splits_vs_brute_force(seed, min_leaf, depth, bucket_factor):
    # bucket_factor 0 forces the sorting path, inf the counting path
    rng = np.random.default_rng(seed)
    ds = _random_dataset(rng, n=int(rng.integers(1, 90)))
    rs = RowSets(ds)
    rs.bucket_factor = bucket_factor
    rid = rs.root()
    for _ in range(depth):   # descend through random splits first
        vs = rs.valid_splits(rid)
        if not vs:
            break
        rid = vs[rng.integers(len(vs))][2 + int(rng.integers(2))]
    rows = rs.rows(rid).astype(np.int64)
    got = rs.valid_splits(rid, min_leaf)
    want = _brute_splits(ds.X, rows, min_leaf)
    assert [(f, t) for f, t, _, _ in got] == [(f, t) for f, t, _, _ in want]
    for (_, _, li, ri), (_, _, lw, rw) in zip(got, want):
        np.testing.assert_array_equal(rs.rows(li), lw)
        np.testing.assert_array_equal(rs.rows(ri), rw)
    assert rs.valid_splits(rid, min_leaf) is got   # cached
    for f in range(ds.n_features):
        np.testing.assert_array_equal(rs.thresholds(rid, f), np.unique(ds.X[rows, f])[:-1])


@settings(max_examples=80, deadline=None)
@given(seed=st.integers(0, 2**32 - 1), min_leaf=st.integers(0, 40), depth=st.integers(0, 3),
       levels=st.sampled_from([1, 2, 5]))
def test_has_split_vs_brute_force(seed, min_leaf, depth, levels):
    # has_split answers without listing the splits; the listing must agree with it
    rng = np.random.default_rng(seed)
    ds = _random_dataset(rng, n=int(rng.integers(1, 90)), levels=levels)
    if levels == 1:                      # constant features too: no split at all
        ds = from_arrays(np.zeros_like(ds.X), ds.y, classes=ds.classes)

    def descend(rs, rng):
        rid = rs.root()
        for _ in range(depth):
            vs = rs.valid_splits(rid)
            if not vs:
                break
            rid = vs[rng.integers(len(vs))][2 + int(rng.integers(2))]
        return rid

    rs = RowSets(ds)
    rid = descend(rs, np.random.default_rng(seed + 1))
    want = bool(_brute_splits(ds.X, rs.rows(rid).astype(np.int64), min_leaf))
    assert rs.has_split(rid, min_leaf) is want
    assert rs.has_split(rid, min_leaf) is want            # cached
    assert (len(rs.valid_splits(rid, min_leaf)) > 0) is want
    listed = RowSets(ds)                                  # the listing first
    rid = descend(listed, np.random.default_rng(seed + 1))
    assert (len(listed.valid_splits(rid, min_leaf)) > 0) is want
    assert listed.has_split(rid, min_leaf) is want


@pytest.mark.parametrize("ones, min_leaf, want", [
    (1, 1, True), (1, 2, False), (5, 5, True), (4, 5, False), (6, 5, False), (3, 3, True),
    (0, 1, False)])
def test_has_split_unbalanced_feature(ones, min_leaf, want):
    # ten rows, one feature of zeros and `ones` ones: a split needs min_leaf a side
    X = np.zeros((10, 1))
    X[:ones, 0] = 1.0
    rs = RowSets(from_arrays(X, np.arange(10) % 2, classes=["a", "b"]))
    assert rs.has_split(rs.root(), min_leaf) is want
    assert (len(rs.valid_splits(rs.root(), min_leaf)) > 0) is want


def test_summaries_vs_numpy(rng):
    ds = _random_dataset(rng, n=300, k=4)
    rs = RowSets(ds)
    for f, t, left, right in rs.valid_splits(rs.root(), 20)[::7]:
        for rid in (left, right):
            rows = rs.rows(rid)
            np.testing.assert_array_equal(rs.class_counts(rid),
                                          np.bincount(ds.y[rows], minlength=4))
            assert rs.class_counts(rid) is rs.class_counts(rid)
    with pytest.raises(TypeError):
        rs.stats(rs.root())
    y = 1e6 + rng.normal(size=300)       # large mean: tests the central sum of squares
    reg = RowSets(from_arrays(ds.X, y))
    for f, t, left, _ in reg.valid_splits(reg.root(), 30)[::5]:
        yy = y[reg.rows(left)]
        n, s, css = reg.stats(left)
        assert n == len(yy)
        np.testing.assert_allclose(s, yy.sum(), rtol=1e-13)
        np.testing.assert_allclose(css, ((yy - yy.mean()) ** 2).sum(), rtol=1e-9)
    with pytest.raises(TypeError):
        reg.class_counts(reg.root())


def test_cached_arrays_are_read_only(rng):
    rs = RowSets(_random_dataset(rng))
    for arr in (rs.rows(0), rs.class_counts(0), rs.thresholds(0, 0)):
        with pytest.raises(ValueError):
            arr[0] = 1


def test_clear_cache_keeps_ids(rng):
    ds = _random_dataset(rng)
    rs = RowSets(ds)
    splits = rs.valid_splits(rs.root(), 3)
    deep = rs.valid_splits(splits[2][2], 3)[1][3]
    before = {i: rs.rows(i).copy() for i in range(len(rs))}
    n = len(rs)
    rs.clear_cache(drop_rows=True)
    assert len(rs) == n
    assert rs._rows[deep] is None                  # really dropped ...
    for i, rows in before.items():                 # ... and rebuilt from the origin
        np.testing.assert_array_equal(rs.rows(i), rows)
    assert rs.valid_splits(rs.root(), 3) == splits   # same ids after recomputation


def test_bad_arguments(rng):
    rs = RowSets(_random_dataset(rng))
    with pytest.raises(IndexError):
        rs.split(99999, 0, 1.0)
    with pytest.raises(IndexError):
        rs.split(0, 7, 1.0)
    with pytest.raises(IndexError):
        rs.rows(-1)
    with pytest.raises(IndexError):
        rs.thresholds(0, -1)
    with pytest.raises(ValueError):
        rs.valid_splits(0, -2)
    with pytest.raises(TypeError):
        RowSets(np.zeros((3, 3)))


def test_bcw_root_splits():
    ds = load_csv(DATA / "bcw.csv")
    rs = RowSets(ds)
    vs = rs.valid_splits(rs.root(), 1)
    # 9 features with values 1..10: 9 thresholds each unless a value never occurs
    want = sum(len(np.unique(ds.X[:, f])) - 1 for f in range(9))
    assert len(vs) == want == 80
    assert [v[:2] for v in vs] == sorted(v[:2] for v in vs)


def test_split_list_is_lazy_and_consistent(rng):
    X = rng.normal(size=(400, 5)).round(3)
    X[:, 1] = 2 * X[:, 0] + 1          # same partitions as feature 0, other thresholds
    ds = from_arrays(X, rng.integers(0, 2, size=400), classes=["a", "b"])
    rs = RowSets(ds)
    vs = rs.valid_splits(rs.root(), 2)
    assert len(rs) == 1                                   # nothing interned yet
    want = _brute_splits(ds.X, np.arange(400), 2)
    assert len(vs) == len(want) > 1500
    np.testing.assert_array_equal(vs.features, [w[0] for w in want])
    np.testing.assert_array_equal(vs.thresholds, [w[1] for w in want])
    np.testing.assert_array_equal(vs.n_left, [len(w[2]) for w in want])
    f, t, left, right = vs[-3]                            # one item: two new sets
    assert len(rs) == 3 and (f, t) == want[-3][:2]
    np.testing.assert_array_equal(rs.rows(left), want[-3][2])
    assert rs.split(rs.root(), f, t) == (left, right)
    assert vs[1:3] == [vs[1], vs[2]]
    items = list(vs)                                      # all, in one kernel call
    assert items[-3] == (f, t, left, right)
    assert len(rs) > 2048                                 # the hash table was resized
    for (_, _, l, r), (_, _, wl, wr) in zip(items, want):
        np.testing.assert_array_equal(rs.rows(l), wl)
        np.testing.assert_array_equal(rs.rows(r), wr)
    n0 = sum(1 for w in want if w[0] == 0)
    f0 = {(l, r) for g, _, l, r in items if g == 0}
    f1 = {(l, r) for g, _, l, r in items if g == 1}
    assert len(f0) == n0 and f0 == f1                     # same sets, same ids
    contents = {rs.rows(i).tobytes() for i in range(len(rs))}
    assert len(contents) == len(rs)
    with pytest.raises(IndexError):
        vs[len(vs)]
    assert rs.origin(rs.root()) is None
    assert rs.origin(left) == (0, f, t, True)
    assert rs.origin(right) == (0, f, t, False)
