"""The data builtins' split choice (slpy.data.builtins._split_choice): finding a recorded
split again by its key, which replay does at every kept split, against the list."""
from pathlib import Path

import numpy as np
import pytest

from slpy import Program
from slpy.data import from_arrays, load_csv
from slpy.data.builtins import _split_choice, data_state

DATA = Path(__file__).resolve().parents[2] / "examples" / "data"


def _state(ds):
    p = Program()
    p.attach_data(ds)
    return data_state(p.engine)


@pytest.mark.parametrize("name", ["bcw", "kyphosis"])
def test_index_of_finds_every_split_and_nothing_else(name):
    st = _state(load_csv(DATA / f"{name}.csv"))
    rs = st.rowsets
    rids = [rs.root()] + [x for f, t, left, right in list(rs.valid_splits(rs.root(), 5))[::7]
                          for x in (left, right)]
    for rid in rids:
        u = _split_choice(st, rid, 5)
        sl = rs.valid_splits(rid, 5)
        assert u.n == len(sl)
        for i in range(u.n):
            f, t = u.key(i)
            assert (f, t) == (sl[i][0], sl[i][1])
            assert u.index_of((f, t)) == i
        # thresholds no split of this row set has: between, below, beyond, other features
        for f in range(len(st.feature_atoms)):
            assert u.index_of((f, -1e9)) is None
            assert u.index_of((f, 1e9)) is None
            assert u.index_of((f, float("nan"))) is None
        assert u.index_of((-1, 1.0)) is None
        assert u.index_of((len(st.feature_atoms), 1.0)) is None
        if u.n:
            f, t = u.key(0)
            assert u.index_of((f, np.nextafter(t, np.inf))) is None


def test_index_of_with_categorical_features():
    # split codes carry the side of missing values: the general search
    rng = np.random.default_rng(3)
    X = np.column_stack([rng.choice(list("pqrs"), 80),
                         rng.normal(size=80).round(1).astype(str)]).astype(object)
    X[rng.integers(0, 80, 6), 1] = None
    ds = from_arrays(X, rng.integers(0, 2, 80), classes=["a", "b"], categorical=[0],
                     missing=True)
    assert not ds.plain
    st = _state(ds)
    u = _split_choice(st, st.rowsets.root(), 1)
    assert u.n > 0
    for i in range(u.n):
        assert u.index_of(u.key(i)) == i
