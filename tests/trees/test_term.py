"""slpy.trees.term: canonical text, its parsing, and routing rows, against plain
references (a recursive walk of the Prolog term; the row sets the prior computed)."""
from pathlib import Path

import numpy as np
import pytest

from slpy import Program
from slpy.data import from_arrays, load_csv
from slpy.terms.term import Atom, Struct, deref
from slpy.trees.model import Tree
from slpy.trees.term import (FlatTree, ModelTermError, canonical, feature_key,
                             leaf_row_ids, parse, shape)

ROOT = Path(__file__).resolve().parents[2]
KYPHOSIS = ROOT / "examples" / "data" / "kyphosis.csv"


def sampled_terms(ds, n, seed, min_leaf=3):
    p = Program()
    p.consult(ROOT / "priors" / "growtree.slp")
    p.set_param("min_leaf", min_leaf)
    p.attach_data(ds)
    rng = np.random.default_rng(seed)
    return p, [p.sample("cart(T)", rng=rng).bindings["T"] for _ in range(n)]


def walk(term, x, names):
    """The leaf (number, left to right) one row reaches: a recursive reference."""
    count = [0]

    def go(t, on_path):
        t = deref(t)
        if not (type(t) is Struct and t.name == "node"):
            k = count[0]
            count[0] += 1
            return k if on_path else None
        f, v = deref(t.args[0]).name, deref(t.args[1])
        left = x[names.index(f)] <= v
        a = go(t.args[2], on_path and left)
        b = go(t.args[3], on_path and not left)
        return a if a is not None else b
    return go(term, True)


def test_parse_reads_the_nodes_in_preorder_and_rejects_what_is_not_a_model():
    names = ["x", "x_2"]
    flat = parse("node(x_2,1.5,leaf,node(x,-3,leaf,leaf))", names)
    assert flat.nodes() == [("x_2", 1.5, None), None, ("x", -3.0, None), None, None]
    assert flat.left.tolist() == [1, -1, 3, -1, -1]
    assert flat.right.tolist() == [2, -1, 4, -1, -1]
    assert (flat.n_leaves, flat.depth) == (3, 2)
    for bad in ("node(x,1,leaf)", "node(y,1,leaf,leaf)", "node(x,a,leaf,leaf)",
                "leaf,leaf", "tree", "node(x,1,leaf,leaf", "", "node(x,1,leaf,leaf))"):
        with pytest.raises(ModelTermError):
            parse(bad, names)


def test_canonical_text_round_trips_through_parse_and_terms():
    ds = load_csv(KYPHOSIS)
    _, terms = sampled_terms(ds, 40, seed=3)
    assert any(shape(t)[0] >= 4 for t in terms)
    for t in terms:
        text = canonical(t)
        flat = parse(text, ds.feature_names)
        assert flat.text() == text
        assert FlatTree.from_term(t, ds.feature_names).text() == text
        assert canonical(flat.term()) == text
        assert (flat.n_leaves, flat.depth) == shape(t)


def test_feature_names_that_are_not_plain_words_are_quoted():
    names = ["a,b", "my col", "it's", "leaf", "node(", "x"]
    rng = np.random.default_rng(0)
    X = rng.integers(0, 5, size=(60, len(names))).astype(float)
    ds = from_arrays(X, rng.integers(0, 2, 60), names)
    assert [feature_key(n) for n in names] == ["'a,b'", "'my col'", "'it\\'s'", "leaf",
                                               "'node('", "x"]
    _, terms = sampled_terms(ds, 30, seed=5, min_leaf=2)
    seen = set()
    for t in terms:
        text = canonical(t)
        flat = parse(text, names)
        assert flat.text() == text
        seen.update(n for n in flat.nodes() if n is not None)
    assert {f for f, _, _ in seen} >= {"a,b", "my col", "it's"}


def test_routing_matches_a_recursive_walk_and_the_priors_row_sets():
    ds = load_csv(KYPHOSIS)
    p, terms = sampled_terms(ds, 25, seed=11)
    rng = np.random.default_rng(2)
    Xnew = ds.X[rng.integers(0, ds.n_rows, 50)] + rng.integers(-2, 3, (50, ds.n_features))
    for t in terms:
        flat = FlatTree.from_term(t, ds.feature_names)
        leaf = flat.leaf_of(ds.X)
        for k, rid in enumerate(leaf_row_ids(t)):      # training rows: the row sets
            assert np.flatnonzero(leaf == k).tolist() == p.rowsets.rows(rid).tolist()
        got = flat.leaf_of(Xnew)
        assert got.tolist() == [walk(t, x, ds.feature_names) for x in Xnew]
        assert flat.apply(Xnew).tolist() == flat.leaves[got].tolist()


def numpy_apply(flat, X):
    """The routing kernel's NumPy reference: one vectorised pass per level."""
    feat, thr, left, right = flat.feature, flat.threshold, flat.left, flat.right
    at = np.zeros(len(X), np.int64)
    idx = np.arange(len(X)) if feat[0] >= 0 else np.zeros(0, np.int64)
    while idx.size:
        node = at[idx]
        at[idx] = np.where(X[idx, feat[node]] <= thr[node], left[node], right[node])
        idx = idx[feat[at[idx]] >= 0]
    return at


def test_the_routing_kernel_matches_its_numpy_reference():
    ds = load_csv(KYPHOSIS)
    _, terms = sampled_terms(ds, 30, seed=21, min_leaf=1)
    rng = np.random.default_rng(4)
    X = rng.uniform(-5, 200, size=(400, 2 * ds.n_features))[:, ::2]    # not contiguous
    for t in terms:
        flat = FlatTree.from_term(t, ds.feature_names)
        assert flat.apply(X).tolist() == numpy_apply(flat, X).tolist()
        assert flat.apply(ds.X).tolist() == numpy_apply(flat, ds.X).tolist()
    with pytest.raises(ValueError, match="columns"):
        flat.apply(np.zeros((2, ds.n_features + 1)))


def test_trees_from_text_and_from_terms_are_the_same():
    ds = load_csv(KYPHOSIS)
    p, terms = sampled_terms(ds, 15, seed=8)
    for t in terms:
        a = Tree.from_term(t, p.rowsets, ds)
        b = Tree.from_canonical(canonical(t), p.rowsets, ds)
        assert a.to_json() == b.to_json()
        assert a.apply(ds.X).tolist() == b.flat.apply(ds.X).tolist()


def test_a_single_leaf_and_integer_features():
    flat = parse("leaf", ["x"])
    assert flat.n_nodes == 1 and flat.leaf_of(np.zeros((3, 1))).tolist() == [0, 0, 0]
    term = Struct("node", (0, 2, Atom("leaf"), Atom("leaf")))   # feature by index
    assert FlatTree.from_term(term, ["x"]).text() == "node(x,2,leaf,leaf)"


# -- categorical features and missing values ----------------------------------------------------

def categorical_data():
    """Iris with the species as a categorical predictor (names that need quoting among
    its levels) and petal widths missing in every seventh row."""
    from slpy.data import Dataset
    ds = load_csv(ROOT / "examples" / "data" / "iris.csv")
    X = ds.X.copy()
    X[::7, 3] = np.nan
    species = np.arange(ds.n_rows) // 50          # the file lists 50 of each in order
    X[:, 0] = species
    return Dataset(X, ds.y, ["kind", "sepal width", "petal_length", "petal_width"],
                   ds.classes, levels=[["set osa", "versi,color", "virginica"], None, None,
                                       None], missing=True)


def test_categorical_and_missing_terms_round_trip():
    ds = categorical_data()
    p, terms = sampled_terms(ds, 60, seed=2, min_leaf=5)
    texts = [canonical(t) for t in terms]
    assert any("in([" in x for x in texts) and any("na(" in x for x in texts)
    assert any("'versi,color'" in x for x in texts) or any("'set osa'" in x for x in texts)
    for t, text in zip(terms, texts):
        flat = parse(text, ds)
        assert flat.text() == text == FlatTree.from_term(t, ds).text()
        assert canonical(flat.term()) == text
        leaf = flat.leaf_of(ds.X)                   # routing = the prior's row sets
        for k, rid in enumerate(leaf_row_ids(t)):
            assert np.flatnonzero(leaf == k).tolist() == p.rowsets.rows(rid).tolist()
        tree = Tree.from_term(t, p.rowsets, ds)
        assert Tree.from_canonical(text, p.rowsets, ds).to_json() == tree.to_json()
        back = Tree.from_json(tree.to_json())
        assert back.predict_proba(ds.X).tolist() == tree.predict_proba(ds.X).tolist()
        assert canonical(back.to_term()) == text
    for bad in ("node(kind,1.5,leaf,leaf)", "node(kind,in([purple]),leaf,leaf)",
                "node(petal_width,in(['set osa']),leaf,leaf)",
                "node(petal_width,na(up,1),leaf,leaf)", "node(kind,in(['set osa'],leaf,leaf)"):
        with pytest.raises(ModelTermError):
            parse(bad, ds)


def test_trees_print_their_tests():
    ds = categorical_data()
    flat = parse("node(kind,in(['set osa']),leaf,node(petal_width,na(right,1.5),leaf,leaf))",
                 ds)
    from slpy.data import RowSets
    tree = Tree.from_canonical(flat.text(), RowSets(ds), ds)
    text = tree.export_text()
    assert "|--- kind in {set osa}" in text and "|--- kind not in {set osa}" in text
    assert "|   |--- petal_width <= 1.5\n" in text
    assert "|   |--- petal_width >  1.5 or missing" in text
    assert "if kind in {set osa}:" in str(tree) and 'label="kind in {set osa}"' in \
        tree.to_dot()


def numpy_route(flat, X):
    """The routing kernel's reference for any split rule, one level at a time: the
    rules of slpy.data.splits written with NumPy (tests/data/test_categorical.py)."""
    from ..data.test_categorical import numpy_goes_left
    at = np.zeros(len(X), np.int64)
    while True:
        active = np.flatnonzero(flat.feature[at] >= 0)
        if not active.size:
            return at
        for i in active:
            j = at[i]
            f = flat.feature[j]
            go = numpy_goes_left(X[i:i + 1, f], int(flat.side[j]), flat.levels[f] is not None,
                                 flat.value[j], bool(flat.default_left[j]))[0]
            at[i] = flat.left[j] if go else flat.right[j]


def test_routing_new_levels_and_missing_values():
    ds = categorical_data()
    p, terms = sampled_terms(ds, 40, seed=9, min_leaf=5)
    rng = np.random.default_rng(1)
    X = ds.X[rng.integers(0, ds.n_rows, 60)].copy()
    X[:10, 0] = -1                                    # a species the data do not have
    X[10:25, 3] = np.nan
    X[25:30, 2] = np.nan                              # missing where no split has a side
    for t in terms:
        tree = Tree.from_term(t, p.rowsets, ds)
        flat = tree.flat
        assert flat.apply(X).tolist() == numpy_route(flat, X).tolist()
        # an unseen value goes to the side with more training rows
        n = [c.sum() for c in tree._flatten()[1]]
        rows = np.zeros(flat.n_nodes)
        for i in range(flat.n_nodes - 1, -1, -1):
            rows[i] = n[i] if flat.feature[i] < 0 else \
                rows[flat.left[i]] + rows[flat.right[i]]
        split = flat.feature >= 0
        assert (flat.default_left[split] ==
                (rows[flat.left[split]] >= rows[flat.right[split]])).all()
