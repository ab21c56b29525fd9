"""The shipped priors: GROWTREE against an independent sampler of the same process,
and the constraints (min_leaf, boxes) hold in every sampled tree."""
from collections import Counter
from pathlib import Path

import numpy as np
import pytest
from scipy.stats import chi2_contingency

from slpy import Program
from slpy.data import load_csv
from slpy.terms.term import deref, Struct
from slpy.trees.term import shape, leaf_row_ids

ROOT = Path(__file__).resolve().parents[2]
BCW = ROOT / "examples" / "data" / "bcw.csv"
PIMA = ROOT / "examples" / "data" / "pima.csv"


def plain_growtree(X, rng, alpha=0.95, beta=1.0, min_leaf=5):
    """GROWTREE written directly: (leaves, depth) of one tree."""
    leaves, depth = 0, 0
    stack = [(np.arange(len(X)), 0)]
    while stack:
        rows, d = stack.pop()
        splits = []
        for f in range(X.shape[1]):
            col = X[rows, f]
            for t in np.unique(col)[:-1]:
                n_left = int((col <= t).sum())
                if n_left >= min_leaf and len(rows) - n_left >= min_leaf:
                    splits.append((f, t))
        if splits and rng.random() < alpha * (1 + d) ** (-beta):
            f, t = splits[int(rng.integers(len(splits)))]
            left = rows[X[rows, f] <= t]
            right = rows[X[rows, f] > t]
            stack.append((left, d + 1))
            stack.append((right, d + 1))
        else:
            leaves += 1
            depth = max(depth, d)
    return leaves, depth


def slp_program(prior, data):
    p = Program()
    p.consult(ROOT / "priors" / prior)
    p.attach_data(load_csv(data))
    return p


def test_growtree_matches_an_independent_sampler():
    ds = load_csv(BCW)
    p = slp_program("growtree.slp", BCW)
    rng_a = np.random.default_rng(101)
    rng_b = np.random.default_rng(202)
    n = 1500
    a = [shape(p.sample("cart(T)", rng=rng_a).bindings["T"]) for _ in range(n)]
    b = [plain_growtree(ds.X, rng_b) for _ in range(n)]
    for k, cap in ((0, 8), (1, 5)):  # leaves, then depth; large values pooled
        ca = Counter(min(x[k], cap) for x in a)
        cb = Counter(min(x[k], cap) for x in b)
        keys = sorted(set(ca) | set(cb))
        table = [[ca.get(v, 0) for v in keys], [cb.get(v, 0) for v in keys]]
        assert chi2_contingency(table).pvalue > 0.01


def _leaf_sizes(p, term):
    return [p.rowsets.size(r) for r in leaf_row_ids(term)]


@pytest.mark.parametrize("prior", ["growtree.slp", "depth.slp", "edittree.slp"])
def test_no_leaf_below_min_leaf(prior):
    p = slp_program(prior, BCW)
    p.set_param("min_leaf", 12)
    rng = np.random.default_rng(7)
    for _ in range(300):
        s = p.sample("cart(T)", rng=rng)
        assert s is not None
        assert min(_leaf_sizes(p, s.bindings["T"])) >= 12


BOXES = """
const_class_probs(box28, glucose, -inf, 127).
const_class_probs(box28, age, -inf, 28).
const_class_probs(box26, glucose, 128, inf).
const_class_probs(box26, mass, -inf, 29.8).
"""


def _box_points(ds):
    g = ds.X[:, ds.feature_names.index("glucose")]
    age = ds.X[:, ds.feature_names.index("age")]
    mass = ds.X[:, ds.feature_names.index("mass")]
    return {"box28": (g <= 127) & (age <= 28), "box26": (g >= 128) & (mass <= 29.8)}


def test_boxes_are_never_split():
    ds = load_csv(PIMA)
    p = slp_program("boxes.slp", PIMA)
    p.consult_text(BOXES, "boxes_fig1.slp")
    inside = _box_points(ds)
    rng = np.random.default_rng(17)
    for _ in range(150):
        s = p.sample("cart(T)", rng=rng)
        leaves = [set(p.rowsets.rows(r).tolist()) for r in leaf_row_ids(s.bindings["T"])]
        for box, mask in inside.items():
            pts = set(np.nonzero(mask)[0].tolist())
            holding = [lf for lf in leaves if lf & pts]
            assert len(holding) == 1, f"{box} is split"
