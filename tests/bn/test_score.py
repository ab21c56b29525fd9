"""BDeu and K2 family scores against independent NumPy/SciPy references, score
equivalence, and the forward sampler against exact probabilities.

Scores are compared with ``rel_close``: relative 1e-9, or absolute 1e-9 for values
near 0 (a log marginal likelihood of thousands of samples is in the thousands, and
summing hundreds of lgamma terms of that size loses ~1e-12 relatively).
"""
import csv
import itertools
import math
import os
from pathlib import Path

import numpy as np
import pytest
from hypothesis import given, settings, strategies as st
from scipy import stats
from scipy.special import gammaln

from slpy._numba_config import is_compiled
from slpy.bn import _kernels as K
from slpy.bn import score as score_mod
from slpy.bn.data import discrete_from_arrays, load_discrete_csv
from slpy.bn.sample import forward_sample, random_network, topological_order
from slpy.bn.score import FamilyScorer, family_counts

ASIA = Path(__file__).resolve().parents[2] / "examples" / "data" / "asia.csv"


def rel_close(a, b):
    return abs(a - b) <= 1e-9 * max(1.0, abs(b))


# ---- references: plain NumPy / SciPy, no slpy code ------------------------------------

def ref_local(codes, counts, arities, node, parents, score, ess=1.0):
    """The HGC 1995 formula over the observed parent configurations (np.unique)."""
    codes = np.asarray(codes)
    r = int(arities[node])
    q = math.prod(int(arities[p]) for p in parents)
    if parents:
        _, j = np.unique(codes[:, list(parents)], axis=0, return_inverse=True)
        j = j.reshape(-1)
    else:
        j = np.zeros(len(codes), dtype=int)
    N = np.zeros((j.max() + 1, r))
    np.add.at(N, (j, codes[:, node]), np.asarray(counts, dtype=float))
    aj, ajk = (ess / q, ess / (q * r)) if score == "bdeu" else (float(r), 1.0)
    return float((gammaln(aj) - gammaln(aj + N.sum(1))).sum()
                 + (gammaln(ajk + N) - gammaln(ajk)).sum())


def ref_polya(samples, node, parents, arities, score, ess=1.0):
    """Another route: the marginal likelihood as a product of Polya-urn predictive
    probabilities, one sample at a time (no gamma functions)."""
    r = arities[node]
    q = math.prod(arities[p] for p in parents)
    a = ess / (q * r) if score == "bdeu" else 1.0
    seen: dict = {}
    logp = 0.0
    for x in samples:
        n = seen.setdefault(tuple(x[p] for p in parents), [0] * r)
        logp += math.log((n[x[node]] + a) / (sum(n) + r * a))
        n[x[node]] += 1
    return logp


def read_asia():
    """Asia read with the csv module: (codes [n, 8], counts [n]), yes = 1."""
    with open(ASIA, newline="") as f:
        rows = list(csv.reader(f))
    codes = np.array([[v == "yes" for v in r[:-1]] for r in rows[1:]], dtype=int)
    return codes, np.array([int(r[-1]) for r in rows[1:]])


@pytest.fixture(scope="module")
def asia():
    return load_discrete_csv(ASIA)


# ---- hand-checked values ---------------------------------------------------------------

@pytest.mark.skipif(os.environ.get("NUMBA_DISABLE_JIT") == "1", reason="NUMBA_DISABLE_JIT")
def test_kernels_are_compiled():
    assert is_compiled(K._family_dense) and is_compiled(K._family_sorted)


def test_closed_forms_on_four_samples():
    # x = yes, yes, yes, no: K2 gives 1! 3! 1! / 5! = 1/20, BDeu(1) the Beta(1/2, 1/2)
    # sequence probability (1/2)(3/4)(5/6)(1/8) = 5/128.
    d = discrete_from_arrays([["yes"], ["yes"], ["yes"], ["no"]])
    assert rel_close(FamilyScorer(d, "k2").local(0, ()), math.log(1 / 20))
    assert rel_close(FamilyScorer(d, "bdeu").local(0, ()), math.log(5 / 128))
    assert rel_close(FamilyScorer(d, "bdeu", ess=2).local(0, ()),
                     math.log(1 / 2 * 2 / 3 * 3 / 4 * 1 / 5))


def test_polya_route_on_small_data():
    rng = np.random.default_rng(0)
    ar = [2, 3, 4, 2]
    x = np.stack([rng.integers(0, a, 60) for a in ar], axis=1)
    d = discrete_from_arrays(x, levels=ar)
    for score, ess in (("bdeu", 1.0), ("bdeu", 7.5), ("k2", 1.0)):
        sc = FamilyScorer(d, score, ess)
        for node in range(4):
            others = [v for v in range(4) if v != node]
            for k in range(4):
                for ps in itertools.combinations(others, k):
                    assert rel_close(sc.local(node, ps),
                                     ref_polya(x.tolist(), node, ps, ar, score, ess))


# ---- Asia and random data against the NumPy reference ---------------------------------

ASIA_FAMILIES = [(i, ps) for i in range(8)
                 for k in (0, 1, 2, 3, 7)
                 for ps in itertools.combinations([j for j in range(8) if j != i], k)]


@pytest.mark.parametrize("score,ess", [("bdeu", 1.0), ("bdeu", 10.0), ("bdeu", 0.1),
                                       ("k2", 1.0)])
def test_asia_every_node_and_parent_set(asia, score, ess):
    codes, counts = read_asia()
    sc = FamilyScorer(asia, score, ess)
    for node, ps in ASIA_FAMILIES:
        want = ref_local(codes, counts, [2] * 8, node, ps, score, ess)
        assert rel_close(sc.local(node, ps), want), (node, ps)
    assert sc.cache_size == len(ASIA_FAMILIES)
    # the expanded samples (one row each) give the same scores
    rows = np.repeat(codes, counts, axis=0)
    for node, ps in ASIA_FAMILIES[::17]:
        want = ref_local(rows, np.ones(len(rows)), [2] * 8, node, ps, score, ess)
        assert rel_close(sc.local(node, ps), want)


def random_data(seed, n_vars=7, n=120):
    """Codes with declared arities 1..5; some variables never take their top values,
    and counts include zeros."""
    rng = np.random.default_rng(seed)
    ar = rng.integers(1, 6, n_vars)
    used = np.maximum(1, ar - rng.integers(0, 2, n_vars))   # unobserved top level
    x = np.stack([rng.integers(0, u, n) for u in used], axis=1)
    counts = rng.integers(0, 6, n)
    counts[0] = 1
    return x, counts, ar.tolist(), rng


@pytest.mark.parametrize("path", ["auto", "dense", "sorted"])
@pytest.mark.parametrize("seed", range(4))
def test_random_data_both_paths(monkeypatch, seed, path):
    if path == "dense":
        monkeypatch.setattr(score_mod, "DENSE_MIN_CELLS", 1 << 22)
    elif path == "sorted":
        monkeypatch.setattr(score_mod, "DENSE_MAX_CELLS", 0)
    x, counts, ar, rng = random_data(seed)
    d = discrete_from_arrays(x, counts=counts, levels=ar)
    keep = counts > 0
    for score, ess in (("bdeu", 1.0), ("bdeu", 3.3), ("k2", 1.0)):
        sc = FamilyScorer(d, score, ess)
        for _ in range(40):
            node = int(rng.integers(0, len(ar)))
            others = [v for v in range(len(ar)) if v != node]
            k = int(rng.integers(0, len(others) + 1))
            ps = tuple(sorted(rng.choice(others, k, replace=False).tolist()))
            want = ref_local(x[keep], counts[keep], ar, node, ps, score, ess)
            assert rel_close(sc.local(node, ps), want), (score, node, ps)


def test_parent_space_beyond_int64():
    # 40 variables of arity 4: 35 parents give q = 4**35 > 2**63 configurations, so
    # the sort path must renumber its keys on the way; few rows, so most configurations
    # are unobserved.
    rng = np.random.default_rng(7)
    x = rng.integers(0, 4, (80, 40))
    x[40:, :20] = x[:40, :20]   # shared prefixes: some configurations repeat
    d = discrete_from_arrays(x, levels=[4] * 40)
    for score in ("bdeu", "k2"):
        sc = FamilyScorer(d, score)
        for node, ps in [(0, tuple(range(5, 40))), (39, tuple(range(0, 35))),
                         (3, tuple(range(4, 24))), (10, tuple(range(10)) + (11, 12))]:
            want = ref_local(d.codes, d.counts, [4] * 40, node, ps, score)
            assert rel_close(sc.local(node, ps), want), (node, ps)


def test_family_counts_order():
    x, counts, ar, _ = random_data(11, n_vars=4)
    d = discrete_from_arrays(x, counts=counts, levels=ar)
    tab = family_counts(d, 3, (0, 2))
    want = np.zeros((ar[0] * ar[2], ar[3]), dtype=np.int64)
    for row, c in zip(x.tolist(), counts.tolist()):
        want[row[0] * ar[2] + row[2], row[3]] += c   # first parent most significant
    assert np.array_equal(tab, want)


# ---- the scorer's API ------------------------------------------------------------------

def test_total_and_cache(asia):
    codes, counts = read_asia()
    sc = FamilyScorer(asia)
    dag = [(), (0,), (), (2,), (2,), (1, 3), (5,), (4, 5)]   # the true Asia network
    want = sum(ref_local(codes, counts, [2] * 8, i, ps, "bdeu") for i, ps in enumerate(dag))
    assert rel_close(sc.total(dag), want)
    assert sc.cache_size == 8
    assert sc.total([list(ps) for ps in dag]) == sc.total(dag)   # lists are fine here
    assert sc.cache_size == 8
    sc.local(7, (np.int64(4), np.int64(5)))   # NumPy ints hit the same entry
    assert sc.cache_size == 8
    empty = FamilyScorer(asia).total([()] * 8)
    assert sc.total(dag) > empty   # the true structure beats independence on 5,000 cases
    sc.clear_cache()
    assert sc.cache_size == 0


@pytest.mark.parametrize("kwargs,err,msg", [
    (dict(score="bic"), ValueError, "score must be one of"),
    (dict(ess=0), ValueError, "ess"),
    (dict(ess=-1.0), ValueError, "ess"),
    (dict(ess=float("nan")), ValueError, "ess"),
    (dict(ess=float("inf")), ValueError, "ess"),
    (dict(ess=True), ValueError, "ess"),
    (dict(ess="1"), ValueError, "ess"),
])
def test_bad_settings(asia, kwargs, err, msg):
    with pytest.raises(err, match=msg):
        FamilyScorer(asia, **kwargs)


@pytest.mark.parametrize("node,parents,err,msg", [
    (8, (), ValueError, "node 8 out of range"),
    (-1, (), ValueError, "out of range"),
    (1.0, (), TypeError, "node must be an int"),
    (0, (2, 1), ValueError, "strictly increasing"),
    (0, (1, 1), ValueError, "strictly increasing"),
    (0, (0,), ValueError, "own parent"),
    (0, (9,), ValueError, "parent 9 out of range"),
    (0, [1], TypeError, "sorted tuple"),
    (0, (1.0,), TypeError, "parents must be ints"),
])
def test_bad_families(asia, node, parents, err, msg):
    sc = FamilyScorer(asia, "K2")
    with pytest.raises(err, match=msg):
        sc.local(node, parents)
    assert sc.cache_size == 0
    with pytest.raises(ValueError, match="3 parent sets for 8 nodes"):
        sc.total([(), (), ()])


# ---- score equivalence ------------------------------------------------------------------

def v_structures(parents):
    out = set()
    for c, ps in enumerate(parents):
        for a, b in itertools.combinations(ps, 2):
            if a not in parents[b] and b not in parents[a]:
                out.add((min(a, b), max(a, b), c))
    return out


def skeleton(parents):
    return {frozenset((p, c)) for c, ps in enumerate(parents) for p in ps}


@st.composite
def dag_and_data(draw):
    n = draw(st.integers(2, 5))
    parents = [tuple(sorted(draw(st.sets(st.integers(0, i - 1), max_size=i)))) if i else ()
               for i in range(n)]
    seed = draw(st.integers(0, 2 ** 32 - 1))
    ess = draw(st.sampled_from([0.5, 1.0, 4.0]))
    return parents, seed, ess


@settings(max_examples=40, deadline=None)
@given(dag_and_data())
def test_bdeu_is_score_equivalent(case):
    """Every DAG with the same skeleton and v-structures (Verma & Pearl) gets the same
    BDeu total; orienting the skeleton by each node order finds the whole class."""
    parents, seed, ess = case
    n = len(parents)
    rng = np.random.default_rng(seed)
    ar = rng.integers(2, 4, n)
    cpts = [rng.dirichlet(np.full(ar[i], 0.5), size=math.prod(int(ar[p]) for p in ps))
            for i, ps in enumerate(parents)]
    x = forward_sample(rng, parents, cpts, ar, 150)   # data with the DAG's dependences
    sc = FamilyScorer(discrete_from_arrays(x, levels=ar.tolist()), "bdeu", ess)
    ref = sc.total(parents)
    edges, vs = skeleton(parents), v_structures(parents)
    for order in itertools.permutations(range(n)):
        pos = {v: t for t, v in enumerate(order)}
        other = [tuple(sorted(u for e in edges if c in e for u in e
                              if u != c and pos[u] < pos[c])) for c in range(n)]
        if v_structures(other) == vs:
            assert rel_close(sc.total(other), ref), (parents, other)


def collider_data():
    rng = np.random.default_rng(5)
    a, b = rng.integers(0, 2, 400), rng.integers(0, 3, 400)
    c = (a + b + (rng.random(400) < 0.1)) % 3
    return discrete_from_arrays(np.stack([a, b, c], axis=1), levels=[2, 3, 3])


def test_score_equivalence_test_can_fail():
    d = collider_data()
    bdeu, k2 = FamilyScorer(d, "bdeu"), FamilyScorer(d, "k2")
    # a -> c <- b is not equivalent to the chain a -> c -> b: the scores differ
    assert not rel_close(bdeu.total([(), (), (0, 1)]), bdeu.total([(), (2,), (0,)]))
    # K2 is not score-equivalent: a -> b and b -> a differ (arities 2 and 3)
    assert not rel_close(k2.total([(), (0,), ()]), k2.total([(1,), (), ()]))
    assert rel_close(bdeu.total([(), (0,), ()]), bdeu.total([(1,), (), ()]))


# ---- sampling -------------------------------------------------------------------------

def small_network():
    # node 0 = c | (a, b), listed a first; node 1 = b | a; node 2 = a. Not in
    # topological order, and c's parents are not sorted.
    parents = [(2, 1), (2,), ()]
    arities = [3, 2, 3]
    p_a = np.array([[0.2, 0.5, 0.3]])
    p_b = np.array([[0.9, 0.1], [0.4, 0.6], [0.5, 0.5]])
    p_c = np.array([[0.1, 0.2, 0.7], [0.3, 0.3, 0.4], [0.0, 0.5, 0.5],
                    [1.0, 0.0, 0.0], [0.25, 0.25, 0.5], [0.6, 0.4, 0.0]])
    return parents, [p_c, p_b, p_a], arities


def test_forward_sample_matches_exact_probabilities():
    parents, cpts, arities = small_network()
    p_c, p_b, p_a = cpts
    exact = np.zeros((3, 2, 3))   # [c, b, a]
    for a, b, c in itertools.product(range(3), range(2), range(3)):
        exact[c, b, a] = p_a[0, a] * p_b[a, b] * p_c[a * 2 + b, c]
    n = 40000
    x = forward_sample(np.random.default_rng(2024), parents, cpts, arities, n)
    assert x.shape == (n, 3) and x.dtype == np.int32 and x.flags.c_contiguous
    obs = np.zeros((3, 2, 3))
    np.add.at(obs, (x[:, 0], x[:, 1], x[:, 2]), 1)
    pos = exact > 0
    assert obs[~pos].sum() == 0   # impossible cells never sampled
    assert stats.chisquare(obs[pos], n * exact[pos]).pvalue > 0.01
    again = forward_sample(np.random.default_rng(2024), parents, cpts, arities, n)
    assert np.array_equal(x, again)


def test_forward_sample_errors():
    parents, cpts, arities = small_network()
    rng = np.random.default_rng(0)
    with pytest.raises(ValueError, match="cycle"):
        forward_sample(rng, [(1,), (0,), ()], cpts, arities, 5)
    with pytest.raises(ValueError, match="CPT shape"):
        forward_sample(rng, [(1,), (2,), ()], cpts, arities, 5)
    bad = [cpts[0] * 1.1, cpts[1], cpts[2]]
    with pytest.raises(ValueError, match="sum to 1"):
        forward_sample(rng, parents, bad, arities, 5)
    with pytest.raises(ValueError, match="not a node index"):
        forward_sample(rng, [(3,), (), ()], cpts, arities, 5)
    with pytest.raises(TypeError, match="Generator"):
        forward_sample(0, parents, cpts, arities, 5)


def test_random_network_and_scores_of_its_samples():
    rng = np.random.default_rng(20)
    parents, cpts, arities = random_network(rng, 20, max_parents=3, arity=(2, 4))
    order = topological_order(parents)
    assert sorted(order) == list(range(20))
    pos = {v: t for t, v in enumerate(order)}
    for i, ps in enumerate(parents):
        assert len(ps) <= 3 and list(ps) == sorted(set(ps))
        assert all(pos[p] < pos[i] for p in ps)
        q = math.prod(int(arities[p]) for p in ps)
        assert cpts[i].shape == (q, arities[i]) and 2 <= arities[i] <= 4
        assert np.allclose(cpts[i].sum(axis=1), 1.0)
    x = forward_sample(rng, parents, cpts, arities, 3000)
    d = discrete_from_arrays(x, levels=[int(a) for a in arities])
    sc = FamilyScorer(d, "bdeu")
    for i in range(0, 20, 3):
        assert rel_close(sc.local(i, parents[i]),
                         ref_local(x, np.ones(len(x)), arities, i, parents[i], "bdeu"))
    assert rel_close(sc.total(parents),
                     sum(ref_local(x, np.ones(len(x)), arities, i, ps, "bdeu")
                         for i, ps in enumerate(parents)))


# ---- pgmpy, when it happens to be installed -------------------------------------------

def test_against_pgmpy(asia):
    pytest.importorskip("pgmpy")
    pd = pytest.importorskip("pandas")
    try:   # pgmpy >= 1.1; before, the scores lived in pgmpy.estimators
        from pgmpy.structure_score import BDeu, K2
    except ImportError:
        from pgmpy.estimators import BDeuScore as BDeu, K2Score as K2
    codes, counts = read_asia()
    rows = np.repeat(codes, counts, axis=0)
    df = pd.DataFrame(np.where(rows == 1, "yes", "no"), columns=asia.names)
    ours_b, ours_k = FamilyScorer(asia, "bdeu", 5.0), FamilyScorer(asia, "k2")
    theirs_b, theirs_k = BDeu(df, equivalent_sample_size=5.0), K2(df)
    for node, ps in ASIA_FAMILIES[::5]:
        names = tuple(asia.names[p] for p in ps)
        assert rel_close(ours_b.local(node, ps), theirs_b.local_score(asia.names[node], names))
        assert rel_close(ours_k.local(node, ps), theirs_k.local_score(asia.names[node], names))
