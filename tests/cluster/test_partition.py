"""Partitions as model terms and keys, and what visit counts say: keys are label-free,
the co-clustering matrix and the point estimate, the adjusted Rand index (against
scikit-learn's when it is installed), the drawing of a partition, and the family
registered through the plugin loader."""
import json

import numpy as np
import pytest

from slpy import Program
from slpy.cluster.partition import (ClusterScorer, Partition, adjusted_rand, blocks_of,
                                    canonical_labels, co_clustering, key_of, labels_of,
                                    parse_key, point_estimate, ranges)
from slpy.family import get as get_family
from slpy.terms.term import Struct, atom, mklist


def term(labels):
    return Struct("partition", (mklist(labels),))


def test_keys_do_not_depend_on_labels():
    s = ClusterScorer(5)
    a, b = term([1, 1, 2, 1, 3]), term([9, 9, 4, 9, 0])
    assert s.key(a) == s.key(b) == "[[1,2,4],[3],[5]]"
    assert parse_key(s.key(a)) == [[0, 1, 3], [2], [4]]
    assert key_of(parse_key("[[1,3],[2]]")) == "[[1,3],[2]]"
    assert canonical_labels([9, 9, 4, 9, 0]) == [1, 1, 2, 1, 3]
    assert labels_of(s.pattern(b)) == [1, 1, 2, 1, 3]
    assert s.score(a) == (0.0, (3,))
    assert blocks_of("abab") == [[0, 2], [1, 3]]


def test_check_names_what_is_wrong():
    s = ClusterScorer(3)
    assert s.check(term([1, 2, 1])) is None
    assert "3 rows" in s.check(term([1, 2]))
    assert "integers" in s.check(term([1, atom("a"), 1]))
    assert "partition(Labels)" in s.check(atom("x"))
    with pytest.raises(ValueError):
        parse_key("[[1,2],")


def test_co_clustering_and_the_point_estimate():
    parts = [([[0, 1], [2], [3]], 3), ([[0, 1, 2], [3]], 1)]
    m = co_clustering(parts)
    assert m[0, 1] == 1 and m[0, 2] == 0.25 and m[2, 3] == 0 and (np.diag(m) == 1).all()
    cands = [[[0, 1, 2, 3]], [[0, 1], [2], [3]], [[0, 1, 2], [3]]]
    assert point_estimate(cands, m) == 1


def test_adjusted_rand():
    assert adjusted_rand([0, 0, 1, 1], ["a", "a", "b", "b"]) == 1.0
    assert adjusted_rand([0, 0, 0, 0], [0, 0, 0, 0]) == 1.0
    rng = np.random.default_rng(0)
    metrics = pytest.importorskip("sklearn.metrics")
    for _ in range(20):
        a, b = rng.integers(0, 4, 30), rng.integers(0, 3, 30)
        assert adjusted_rand(a, b) == pytest.approx(metrics.adjusted_rand_score(a, b),
                                                    abs=1e-12)


def test_a_partition_drawn():
    assert ranges([1, 2, 3, 5, 7, 8]) == "1-3, 5, 7-8"
    p = Partition([[0, 1, 2], [3]], -4.5, ["x", "x", "y", "y"])
    assert str(p).splitlines() == ["  A (3 rows): 1-3  [x 2, y 1]", "  B (1 row): 4  [y 1]",
                                   "  adjusted Rand index with the classes: 0.000"]
    assert json.loads(p.to_json()) == {"format": "slpy-partition/1",
                                       "clusters": [[1, 2, 3], [4]], "log_lik": -4.5}


def test_the_family_and_its_builtins_are_plugins():
    fam = get_family("cluster")
    assert fam.query == "cluster(P)" and fam.stats == ("clusters",)
    p = Program()
    p.consult_text(":- model_family(cluster).\n")
    assert p.model_family == "cluster"
    p.attach("cluster", 4)
    assert str(p.once("cluster_items(Is), cluster_count(N)")["Is"]) == "[1,2,3,4]"
