"""Dataset loading, building and splitting."""
from pathlib import Path

import numpy as np
import pytest

from slpy.data import (DataError, Dataset, MissingValueError, dataset_hash, from_arrays,
                       load_csv, read_rows, train_test_split)

ROOT = Path(__file__).resolve().parents[2]
DATA = ROOT / "examples" / "data"
BCW_FULL = ROOT / "examples" / "data" / "bcw_full.csv"

# (file, rows, predictors, {class: count}) as in examples/data/README.md
BUNDLED = [
    ("bcw.csv", 683, 9, {"benign": 444, "malignant": 239}),
    ("kyphosis.csv", 81, 3, {"absent": 64, "present": 17}),
    ("pima.csv", 768, 8, {"neg": 500, "pos": 268}),
    ("iris.csv", 150, 4, {"setosa": 50, "versicolor": 50, "virginica": 50}),
]
LETTER_COUNTS = dict(zip("ABCDEFGHIJKLMNOPQRSTUVWXYZ", [
    789, 766, 736, 805, 768, 775, 773, 734, 755, 747, 739, 761, 792, 783, 753, 803, 783,
    758, 748, 796, 813, 764, 752, 787, 786, 734]))


@pytest.mark.parametrize("name,rows,p,counts", BUNDLED + [("letter.csv", 20000, 16,
                                                          LETTER_COUNTS)])
def test_bundled_csv_counts(name, rows, p, counts):
    ds = load_csv(DATA / name)
    assert (ds.n_rows, ds.n_features, ds.n_dropped) == (rows, p, 0)
    assert ds.task == "classification"
    assert ds.classes == sorted(counts)
    assert dict(zip(ds.classes, ds.class_counts().tolist())) == counts
    assert ds.X.dtype == np.float64 and ds.X.flags.c_contiguous
    assert ds.y.dtype == np.int32
    assert "class" not in ds.feature_names


def test_values_match_the_file():
    ds = load_csv(DATA / "iris.csv")
    assert ds.feature_names == ["sepal_length", "sepal_width", "petal_length", "petal_width"]
    np.testing.assert_array_equal(ds.X[0], [5.1, 3.5, 1.4, 0.2])
    assert ds.classes[ds.y[0]] == "setosa" and ds.classes[ds.y[-1]] == "virginica"


def test_bcw_full_drops_sixteen_rows():
    full = load_csv(BCW_FULL, exclude=["id"])
    assert (full.n_rows, full.n_dropped) == (683, 16)
    clean = load_csv(DATA / "bcw.csv")
    np.testing.assert_array_equal(full.X, clean.X)
    np.testing.assert_array_equal(full.y, clean.y)
    assert full.feature_names == clean.feature_names
    with_id = load_csv(BCW_FULL)
    assert with_id.n_dropped == 16 and with_id.feature_names[0] == "id"


def _one_line_error(path, **kw) -> str:
    with pytest.raises(DataError) as e:
        load_csv(path, **kw)
    msg = str(e.value)
    assert "\n" not in msg and str(path) in msg
    return msg


@pytest.mark.parametrize("content,expect", [
    ("", "empty"),
    ("   \n\n", "empty"),
    ("a,b,class\n", "no data rows"),
    ("a,b,class\n1,x,p\n2,3,q\n", "'b', line 2"),
    ("a,b,class\n1,2,p\n3,4,p\n", "single class"),
    ("a,b,class\n1,2,p\n3,4\n", "line 3"),
    ("a,b,class\n?,2,p\n3,,q\n", "no complete data rows"),
    ("a,a,class\n1,2,p\n", "duplicate column"),
    ("just some text\n", "header"),
    ("a,b,class\n1,inf,p\n2,3,q\n", "not a finite number"),
    ("a,b,class\n\n1,2,p\n\n3,x,q\n", "'b', line 5"),      # blank lines still count
    ("a,b,class\n1,2,p\n2,\"3\n4\",q\n", "line 3"),
])
def test_bad_files(tmp_path, content, expect):
    f = tmp_path / "bad.csv"
    f.write_text(content)
    assert expect in _one_line_error(f)


def test_binary_and_missing_files(tmp_path):
    f = tmp_path / "model.bin"
    f.write_bytes(b"PK\x03\x04\x00\x00\xff\xfe")
    assert "not a CSV" in _one_line_error(f)
    f = tmp_path / "latin.csv"
    f.write_bytes("a,b,class\n1,2,caf\xe9\n".encode("latin-1"))
    assert "not a CSV" in _one_line_error(f)
    assert "cannot read" in _one_line_error(tmp_path / "absent.csv")


def test_class_column_selection(tmp_path):
    f = tmp_path / "d.csv"
    f.write_text("label,a,b\nx,1,2\ny,3,4\nx,5,6\n")
    ds = load_csv(f, class_col="label")
    assert ds.feature_names == ["a", "b"] and ds.classes == ["x", "y"]
    assert ds.y.tolist() == [0, 1, 0]
    g = tmp_path / "e.csv"
    g.write_text("a,class,b\n1,x,2\n3,y,4\n")
    assert load_csv(g).feature_names == ["a", "b"]   # "class" wins over the last column
    assert "'nope'" in _one_line_error(f, class_col="nope")
    assert "'zzz'" in _one_line_error(f, class_col="label", exclude=["zzz"])


def test_no_class_column_is_an_error_not_a_guess(tmp_path):
    # the last column was once taken as the response: a predictor, silently
    f = tmp_path / "d.csv"
    f.write_text("label,a,b\nx,1,2\ny,3,4\n")
    assert "no column named 'class'" in _one_line_error(f)
    msg = _one_line_error(f, class_col="b")   # b is the response: "label" must be numeric
    assert "'label'" in msg and "line 2" in msg


def test_missing_values_are_counted_or_refused(tmp_path):
    f = tmp_path / "d.csv"
    f.write_text("a,b,class\n1,2,p\nNaN,3,q\n4,N/A,p\n5,6,q\n")
    assert load_csv(f).n_dropped == 2
    with pytest.raises(MissingValueError) as e:
        load_csv(f, on_missing="error")
    assert "line 3, column 'a'" in str(e.value) and "2 of 4 rows" in str(e.value)
    assert load_csv(BCW_FULL, exclude=["id"], on_missing="drop").n_dropped == 16


def test_new_data_are_matched_by_column_name(tmp_path):
    train = tmp_path / "train.csv"
    train.write_text("a,b,class\n1,10,p\n2,20,q\n3,30,p\n")
    ds = load_csv(train)
    # the same rows with the columns in another order: the same matrix
    moved = tmp_path / "moved.csv"
    moved.write_text("class,b,a\np,10,1\nq,20,2\np,30,3\n")
    again = load_csv(moved, like=ds)
    np.testing.assert_array_equal(again.X, ds.X)
    assert again.y.tolist() == ds.y.tolist() and again.classes == ds.classes
    renamed = tmp_path / "renamed.csv"
    renamed.write_text("a,c,class\n1,10,p\n")
    assert "no column 'b'" in _one_line_error(renamed, like=ds)
    extra = tmp_path / "extra.csv"
    extra.write_text("a,b,c,class\n1,10,5,p\n")
    assert "column 'c' is not a feature" in _one_line_error(extra, like=ds)
    unseen = tmp_path / "unseen.csv"
    unseen.write_text("a,b,class\n1,10,p\n2,20,r\n")
    assert "line 3: class 'r' is not one of the training data's classes (p, q)" in \
        _one_line_error(unseen, like=ds)
    # rows to predict: the response is optional, the features still match by name
    rows = read_rows(moved, like=ds, response=False)
    np.testing.assert_array_equal(rows.X, ds.X)
    assert rows.labels == ["p", "q", "p"]
    features_only = tmp_path / "x.csv"
    features_only.write_text("b,a\n10,1\n")
    rows = read_rows(features_only, like=ds, response=False)
    assert rows.labels is None and rows.X.tolist() == [[1.0, 10.0]]


def test_missing_markers_and_numeric_class_order(tmp_path):
    f = tmp_path / "d.csv"
    f.write_text("a,b,class\n1,2,10\nNA,3,2\n4,?,2\n5,6,2\n7,8,\n9,9,1\n")
    ds = load_csv(f)
    assert ds.n_dropped == 3 and ds.n_rows == 3
    assert ds.classes == ["1", "2", "10"]   # numeric labels sort as numbers
    assert [ds.classes[c] for c in ds.y] == ["10", "2", "1"]
    # "NA" is an ordinary (non-numeric) value once it is not a missing marker
    assert "'a', line 3" in _one_line_error(f, missing=("?", ""))


def test_regression(tmp_path):
    f = tmp_path / "r.csv"
    f.write_text("x,z,y\n1,2,0.5\n2,3,1.5\n3,4,-2\n")
    ds = load_csv(f, class_col="y", regression=True)
    assert ds.task == "regression" and ds.classes is None and ds.n_classes == 0
    np.testing.assert_array_equal(ds.y, [0.5, 1.5, -2.0])
    f.write_text("x,y\n1,a\n2,b\n")
    assert "'y'" in _one_line_error(f, class_col="y", regression=True)


def test_from_arrays_and_validation():
    X = np.arange(12.0).reshape(6, 2)
    ds = from_arrays(X, ["b", "a", "b", "c", "a", "a"])
    assert ds.classes == ["a", "b", "c"] and ds.y.tolist() == [1, 0, 1, 2, 0, 0]
    assert ds.feature_names == ["x0", "x1"]
    assert X.flags.writeable   # the caller's array is not frozen
    assert not ds.X.flags.writeable
    r = from_arrays(X, np.linspace(0, 1, 6))
    assert r.task == "regression"
    c = from_arrays(X, [0, 1, 1, 0, 1, 0], classes=["no", "yes"])
    assert c.classes == ["no", "yes"]
    with pytest.raises(DataError, match="class codes"):
        from_arrays(X, [0, 1, 2, 0, 1, 0], classes=["no", "yes"])
    with pytest.raises(DataError, match="rows"):
        from_arrays(X, [0, 1])
    with pytest.raises(DataError, match="non-finite"):
        from_arrays(np.array([[1.0], [np.nan]]), [0, 1])
    with pytest.raises(DataError, match="feature names"):
        from_arrays(X, [0, 1, 1, 0, 1, 0], feature_names=["a"])
    assert isinstance(from_arrays(X[:, 0], [0, 1, 1, 0, 1, 0]), Dataset)


def test_subset_take_hash_and_split():
    ds = load_csv(DATA / "iris.csv")
    h = dataset_hash(ds)
    assert len(h) == 64 and h == dataset_hash(load_csv(DATA / "iris.csv"))
    mask = ds.y == 2
    sub = ds.subset(mask)
    assert sub.n_rows == 50 and sub.classes == ds.classes and (sub.y == 2).all()
    assert dataset_hash(sub) != h
    np.testing.assert_array_equal(ds.subset([5, 1, 5]).X, ds.X[[1, 5]])
    np.testing.assert_array_equal(ds.take([5, 1, 5]).X, ds.X[[5, 1, 5]])
    with pytest.raises(DataError):
        ds.take([150])
    tr, te = train_test_split(ds, 0.2, np.random.default_rng(1))
    assert (tr.n_rows, te.n_rows) == (120, 30)
    both = np.vstack([tr.X, te.X])
    assert sorted(map(tuple, both)) == sorted(map(tuple, ds.X))
    tr2, _ = train_test_split(ds, 0.2, 1)
    np.testing.assert_array_equal(tr.X, tr2.X)   # seeded: reproducible
    with pytest.raises(DataError):
        train_test_split(ds, 1.5)
