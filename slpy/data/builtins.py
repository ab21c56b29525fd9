"""Builtins that give an SLP prior access to the data's predictors.

A prior over trees is conditional on X (paper 000, section 3): it may only split on
observed values and must keep at least MinLeaf rows in each leaf. Row sets reach the
program as opaque handles ``rows(Id)``; the same set of rows always has the same
handle, so proofs can be compared and replayed cheaply.

    data_rows(R)                  R is the row set of the whole training data
    rows_size(R, N)               number of rows in R
    rows_class_counts(R, Cs)      class counts in R (classification)
    features(Fs)                  the predictor names, as atoms
    feature_thresholds(R, F, Ts)  candidate thresholds of a numeric F within R (observed
                                  values except the largest: x =< T leaves both sides
                                  non-empty)
    split_rows(R, F, V, L, Rr)    L: rows of R that pass the test V of F (F =< V for a
                                  number V; slpy.data.splits for in(Levels) and
                                  na(Side, Test)), Rr: the others
    valid_splits(R, MinLeaf, Ss)  every split(F, V, L, Rr) leaving >= MinLeaf rows a side
    uniform_split(R, MinLeaf, S)  a stochastic choice point: S = split(F, V, L, Rr) drawn
                                  uniformly among the valid splits (without replacement
                                  on backtracking); fails when there is none

A categorical feature's splits list the levels that go left, ``in([a, b])``; where a
node's rows have missing values of a feature, each of its splits comes twice, the
missing rows on either side, ``na(left, V)`` and ``na(right, V)`` (slpy.data.splits;
docs/priors.md says how many subsets of many levels there are and why).

They are the "data" plugin (slpy.logic.plugins): ``Program.attach_data(dataset)``
gives a program its data, kept in ``engine.plugin_state["data"]`` (a DataState).
"""
from __future__ import annotations

from bisect import bisect_left

import numpy as np

from ..logic.arith import eval_arith
from ..logic.plugins import Plugin, UniformChoice, register
from ..terms.term import Var, Atom, Struct, deref, atom, list_items, mklist
from ..terms.errors import instantiation_error, type_error, domain_error, existence_error
from ..terms.args import int_arg
from .rowsets import RowSets
from .splits import FEATURE_MASK, split_of, threshold_value, value_term

__all__ = ["DATA", "DataState", "rows_term", "row_id", "data_state"]

ROWS = "rows"


class DataState:
    """What the data builtins keep for one program (``engine.plugin_state["data"]``):
    the training data, its row sets, the features by name and as atoms, each
    feature's levels (None for a numeric one), and the cache of each row set's valid
    splits."""
    __slots__ = ("dataset", "rowsets", "feature_index", "feature_atoms", "feature_levels",
                 "split_cache", "plain")

    def __init__(self, dataset, rowsets):
        self.dataset = dataset
        self.rowsets = rowsets
        self.feature_index = {n: i for i, n in enumerate(dataset.feature_names)}
        self.feature_atoms = [atom(n) for n in dataset.feature_names]
        self.feature_levels = dataset.levels or [None] * dataset.n_features
        self.split_cache: dict = {}
        self.plain = dataset.plain      # read at every new row set's split choice
        rowsets.on_clear(self.split_cache.clear)


def _attach(program, dataset) -> None:
    """Program.attach_data: the program's row sets and the builtins' state."""
    program.dataset = dataset
    program.rowsets = RowSets(dataset)
    program.engine.plugin_state["data"] = DataState(dataset, program.rowsets)


DATA = register(Plugin("data", attach=_attach))


def rows_term(rid: int):
    return Struct(ROWS, (rid,))


def data_state(eng) -> DataState:
    """The program's data, or an existence error when it has none."""
    st = eng.plugin_state.get("data")
    if st is None:
        raise existence_error("data", atom("training_data"), Struct("context", (
            Var(), atom("this prior needs data: give --data FILE"))))
    return st


def row_id(t) -> int:
    t = deref(t)
    if type(t) is Var:
        raise instantiation_error()
    if type(t) is Struct and t.name == ROWS and len(t.args) == 1:
        rid = deref(t.args[0])
        if type(rid) is int:
            return rid
    raise type_error("row_set", t)


def _feature(st, f) -> int:
    f = deref(f)
    if type(f) is Var:
        raise instantiation_error()
    names = st.feature_index
    if type(f) is Atom:
        i = names.get(f.name)
        if i is None:
            raise domain_error("feature", f)
        return i
    if type(f) is int and 0 <= f < len(names):
        return f
    raise type_error("feature", f)


@DATA.det("data_rows", 1)
def data_rows(eng, r):
    return eng.unify(r, rows_term(data_state(eng).rowsets.root()))


@DATA.det("rows_size", 2)
def rows_size(eng, r, n):
    return eng.unify(n, data_state(eng).rowsets.size(row_id(r)))


@DATA.det("rows_class_counts", 2)
def rows_class_counts(eng, r, cs):
    counts = data_state(eng).rowsets.class_counts(row_id(r))
    return eng.unify(cs, mklist([int(c) for c in counts]))


@DATA.det("features", 1)
def features(eng, fs):
    return eng.unify(fs, mklist(data_state(eng).feature_atoms))


@DATA.det("feature_thresholds", 3)
def feature_thresholds(eng, r, f, ts):
    st = data_state(eng)
    fi = _feature(st, f)
    if st.feature_levels[fi] is not None:
        raise type_error("numeric_feature", deref(f))
    th = st.rowsets.thresholds(row_id(r), fi)
    return eng.unify(ts, mklist([threshold_value(x) for x in th]))


@DATA.det("split_rows", 5)
def split_rows(eng, r, f, t, left, right):
    st = data_state(eng)
    fi = _feature(st, f)
    levels = st.feature_levels[fi]
    tt = deref(t)
    if levels is None and type(tt) in (int, float):
        code, v = fi, float(tt)
    else:
        code, v = split_of(levels, fi, tt)
    lid, rid = st.rowsets.split(row_id(r), code, v)
    return eng.unify(left, rows_term(lid)) and eng.unify(right, rows_term(rid))


def _split_choice(st, rid, min_leaf) -> UniformChoice:
    """The valid splits of a row set as a lazy uniform choice (cached per row set)."""
    key = (rid, min_leaf)
    u = st.split_cache.get(key)
    if u is None:
        sl = st.rowsets.valid_splits(rid, min_leaf)
        fa = st.feature_atoms
        feats = sl.features
        thrs = sl.thresholds
        if st.plain:
            def value(i):
                f, t, l, r = sl[i]
                return Struct("split", (fa[f], threshold_value(t), rows_term(l),
                                        rows_term(r)))
        else:
            lv = st.feature_levels

            def value(i):
                code, t, l, r = sl[i]
                f = code & FEATURE_MASK
                return Struct("split", (fa[f], value_term(lv[f], code, t), rows_term(l),
                                        rows_term(r)))

        def key_of(i):
            return (int(feats[i]), float(thrs[i]))

        starts: list = []    # plain data: where each feature's splits begin

        def index_of(k):
            # splits are in (feature, threshold) order: the feature's block, then a
            # binary search of its thresholds
            f, t = k
            if st.plain and type(f) is int:
                if not starts:
                    starts.extend(np.searchsorted(feats, np.arange(len(fa) + 1)).tolist())
                if not 0 <= f < len(fa):
                    return None
                lo, hi = starts[f], starts[f + 1]
                j = bisect_left(thrs, t, lo, hi)
            else:
                lo = int(np.searchsorted(feats, f, "left"))
                hi = int(np.searchsorted(feats, f, "right"))
                j = lo + int(np.searchsorted(thrs[lo:hi], t, "left"))
            return j if j < hi and thrs[j] == t else None

        u = UniformChoice(len(sl), value, key_of, index_of)
        _remember(st.split_cache, key, u)
    return u


# Cached split choices are rebuilt identically when needed again, so the cache can be
# dropped: a long run meets hundreds of thousands of row sets and must not keep them all
# (the row sets' memory budget also clears it)
SPLIT_CACHE_LIMIT = 100_000


def _remember(cache, key, u):
    if len(cache) >= SPLIT_CACHE_LIMIT:
        cache.clear()
    cache[key] = u


@DATA.det("valid_splits", 3)
def valid_splits(eng, r, m, ss):
    u = _split_choice(data_state(eng), row_id(r), int_arg(m))
    return eng.unify(ss, mklist([u.value(i) for i in range(u.n)]))


@DATA.stochastic("uniform_split", 3)
def uniform_split(eng, r, m, s):
    # called at every split node of every replayed tree: a cached choice found inline
    st = eng.plugin_state.get("data")
    r = deref(r)
    m = deref(m)
    if (st is not None and type(r) is Struct and r.name == ROWS and len(r.args) == 1
            and type(m) is int):
        rid = deref(r.args[0])
        if type(rid) is int:
            u = st.split_cache.get((rid, m))
            if u is not None:
                return s, u
    return s, _split_choice(data_state(eng), row_id(r), int_arg(m))


@DATA.det("has_split", 2)
def has_split(eng, r, m):
    """has_split(R, MinLeaf): R has a split leaving at least MinLeaf rows on each side."""
    # called at every node of every regrown tree: the common case is inlined
    st = eng.plugin_state.get("data")
    while type(r) is Var:
        if r.ref is None:
            break
        r = r.ref
    while type(m) is Var:
        if m.ref is None:
            break
        m = m.ref
    if (st is not None and type(r) is Struct and r.name == ROWS and len(r.args) == 1
            and type(m) is int):
        rid = deref(r.args[0])
        if type(rid) is int:
            u = st.split_cache.get((rid, m))
            if u is not None:
                return u.n > 0
    st = data_state(eng)
    return st.rowsets.has_split(row_id(r), int_arg(m))


def _forbidden(st, t):
    """F-(Lo-Hi) items: thresholds Lo =< T < Hi of feature F are excluded."""
    out = []
    for it in list_items(t)[0]:
        it = deref(it)
        if not (type(it) is Struct and it.name == "-" and len(it.args) == 2):
            raise type_error("forbidden_interval", it)
        iv = deref(it.args[1])
        if not (type(iv) is Struct and iv.name == "-" and len(iv.args) == 2):
            raise type_error("forbidden_interval", it)
        out.append((_feature(st, it.args[0]), float(eval_arith(iv.args[0])),
                    float(eval_arith(iv.args[1]))))
    return tuple(sorted(set(out)))


def _split_choice_except(st, rid, min_leaf, forbidden) -> UniformChoice:
    if not forbidden:
        return _split_choice(st, rid, min_leaf)
    key = (rid, min_leaf, forbidden)
    u = st.split_cache.get(key)
    if u is None:
        full = _split_choice(st, rid, min_leaf)
        sl = st.rowsets.valid_splits(rid, min_leaf)
        feats, thrs = sl.features, sl.thresholds
        keep = np.ones(len(sl), bool)
        numeric = ~st.rowsets._cat[feats & FEATURE_MASK]     # boxes bound numbers only
        for f, lo, hi in forbidden:
            keep &= ~(((feats & FEATURE_MASK) == f) & numeric & (thrs >= lo) & (thrs < hi))
        allowed = np.nonzero(keep)[0]
        pos = {int(j): i for i, j in enumerate(allowed)}

        def index_of(k):
            j = full.index_of(k)
            return None if j is None else pos.get(j)

        u = UniformChoice(len(allowed), lambda i: full.value(int(allowed[i])),
                          lambda i: full.key(int(allowed[i])), index_of)
        _remember(st.split_cache, key, u)
    return u


@DATA.det("count_splits_except", 4)
def count_splits_except(eng, r, m, forbidden, n):
    """count_splits_except(R, MinLeaf, Forbidden, N): valid splits of R whose threshold
    lies in none of the Forbidden intervals F-(Lo-Hi) (Lo =< T < Hi)."""
    st = data_state(eng)
    return eng.unify(n, _split_choice_except(st, row_id(r), int_arg(m),
                                             _forbidden(st, forbidden)).n)


@DATA.stochastic("uniform_split_except", 4)
def uniform_split_except(eng, r, m, forbidden, s):
    """uniform_split_except(R, MinLeaf, Forbidden, S): uniform_split/3 restricted to the
    splits outside the Forbidden intervals."""
    st = data_state(eng)
    return s, _split_choice_except(st, row_id(r), int_arg(m), _forbidden(st, forbidden))
