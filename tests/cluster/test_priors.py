"""The clustering priors as SLPs define the Chinese restaurant process of their
comments: every proof the engine enumerates on 6 items, summed by partition and
normalised, equals the formula of slpy.cluster.exact (written apart from any SLP);
the enumeration of partitions itself; the priors' parameter checks."""
import math
from collections import Counter
from pathlib import Path

import numpy as np
import pytest

from slpy import Program, PrologError
from slpy.cluster.exact import all_partitions, bell, crp_log_prior, exact_posterior
from slpy.cluster.partition import (ClusterScorer, blocks_of, canonical_labels, key_of,
                                    labels_of)

ROOT = Path(__file__).resolve().parents[2]
CRP = ROOT / "priors" / "crp.slp"
BOUNDED = ROOT / "priors" / "crp_bounded.slp"


def program(prior, n, **params):
    p = Program()
    p.consult(prior)
    p.attach("cluster", n)
    for k, v in params.items():
        p.set_param(k, p.parse_query(v)[0] if isinstance(v, str) else v)
    return p


def slp_prior(p, n):
    """key -> probability, from every proof of the prior (the engine's enumeration)."""
    scorer = ClusterScorer(n)
    probs = Counter()
    for pr in p.proofs("cluster(P)"):
        probs[scorer.key(pr.bindings["P"])] += pr.prob
    z = sum(probs.values())
    return {k: v / z for k, v in probs.items()}


def test_partitions_are_enumerated_once_each():
    assert [bell(n) for n in range(11)] == [1, 1, 2, 5, 15, 52, 203, 877, 4140, 21147,
                                            115975]
    for n in (1, 4, 6, 8):
        rows = all_partitions(n)
        assert rows.shape == (bell(n), n)
        assert len({key_of(blocks_of(z)) for z in rows.tolist()}) == bell(n)
        assert (rows[:, 0] == 0).all()
        assert all(z[i] <= max(z[:i]) + 1 for z in rows.tolist() for i in range(1, n))
    with pytest.raises(ValueError, match="up to 10 items"):
        all_partitions(11)


def test_the_formula_is_the_sequential_crp():
    # alpha^K prod (n_k - 1)! / alpha^(n rising): the product of the seating probabilities
    alpha = 1.7
    for z in all_partitions(5).tolist():
        p, sizes = 1.0, []
        for i, k in enumerate(z):
            if k == len(sizes):
                p *= alpha / (i + alpha)
                sizes.append(1)
            else:
                p *= sizes[k] / (i + alpha)
                sizes[k] += 1
        assert math.exp(crp_log_prior(z, alpha)) == pytest.approx(p, rel=1e-12)


def test_crp_slp_is_the_formula():
    p = program(CRP, 6, alpha=0.7)
    probs = slp_prior(p, 6)
    want = exact_posterior(6, alpha=0.7).by_key()
    assert len(want) == 203 and set(probs) == set(want)
    for k, x in want.items():
        assert probs[k] == pytest.approx(x, rel=1e-9)


@pytest.mark.parametrize("params,kw", [
    (dict(alpha=1.5, max_clusters=2), dict(max_clusters=2)),
    (dict(alpha=0.6, max_clusters=3, must_link="[1-4, 6-5]", cannot_link="[2-6, 5-3]"),
     dict(max_clusters=3, must=[(1, 4), (6, 5)], cannot=[(2, 6), (5, 3)])),
    (dict(alpha=2, max_clusters=6, cannot_link="[1-2, 2-3, 1-3]"),
     dict(max_clusters=6, cannot=[(1, 2), (2, 3), (1, 3)])),
], ids=["bounded", "links", "cannot-only"])
def test_crp_bounded_slp_is_the_formula(params, kw):
    p = program(BOUNDED, 6, **params)
    probs = slp_prior(p, 6)
    want = exact_posterior(6, alpha=float(params["alpha"]), **kw).by_key()
    assert set(probs) == set(want) and len(want) < 203
    for k, x in want.items():
        assert probs[k] == pytest.approx(x, rel=1e-9)


def test_the_bounded_prior_is_exchangeable():
    # relabelling the items maps the prior onto itself (the constraints relabelled too)
    perm = [3, 0, 5, 1, 4, 2]       # item i is called perm[i]
    a = exact_posterior(6, alpha=0.9, max_clusters=3, must=[(1, 2)], cannot=[(3, 6)])
    b = exact_posterior(6, alpha=0.9, max_clusters=3, must=[(perm[0] + 1, perm[1] + 1)],
                        cannot=[(perm[2] + 1, perm[5] + 1)])
    pb = b.by_key()
    for z, x in zip(a.labels.tolist(), a.prob):
        moved = [[perm[i] for i in blk] for blk in blocks_of(z)]
        moved = sorted(sorted(blk) for blk in moved)
        assert pb[key_of(moved)] == pytest.approx(x, rel=1e-12)


def test_draws_of_the_prior_are_partitions_of_the_rows():
    p = program(CRP, 9, alpha=2)
    for seed in range(5):
        term = p.sample("cluster(P)", rng=np.random.default_rng(seed)).bindings["P"]
        assert ClusterScorer(9).check(term) is None
        z = labels_of(term)
        assert canonical_labels(z) == z      # clusters numbered as they open


@pytest.mark.parametrize("prior,params,what", [
    (BOUNDED, dict(must_link="[1-9]"), "pair_of_rows"),
    (BOUNDED, dict(cannot_link="[2-2]"), "pair_of_rows"),
])
def test_bad_parameters_are_domain_errors(prior, params, what):
    p = program(prior, 5, **params)
    with pytest.raises(PrologError, match=what):
        p.sample("cluster(P)", rng=np.random.default_rng(0))


@pytest.mark.parametrize("prior,params,what", [
    (CRP, dict(alpha=0), "a number > 0"),
    (BOUNDED, dict(max_clusters=0), "an integer >= 1"),
    (BOUNDED, dict(must_link="foo"), "a list"),
])
def test_parameters_outside_their_declared_domains_are_refused_when_set(prior, params,
                                                                         what):
    from slpy.logic.params import ParamError
    with pytest.raises(ParamError, match=what):
        program(prior, 5, **params)


def test_without_data_the_prior_says_so():
    p = Program()
    p.consult(CRP)
    with pytest.raises(PrologError, match="give --data"):
        p.sample("cluster(P)", rng=np.random.default_rng(0))
