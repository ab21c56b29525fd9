"""The posterior predictive cluster assignment of a new row (slpy.cluster.predict) is
the exact posterior of the rows with the new one among them: weighting the exact
posterior of n rows as a run weights its visits gives, for each training row J,
P(the new row is with J) of the exact posterior over the partitions of n + 1 rows."""
import numpy as np
import pytest

from slpy.cluster.data import cluster_from_arrays
from slpy.cluster.exact import exact_posterior
from slpy.cluster.partition import blocks_of
from slpy.cluster.predict import predict_proba
from slpy.cluster.score import BlockScorer, default_hyper

X = np.array([[0.1, 3.0], [0.5, 2.0], [0.9, 2.5], [1.3, 0.5], [0.3, 2.2], [1.1, 0.4],
              [0.8, 1.0], [0.2, 2.9]])
C = np.array([0, 1, 0, 1, 0, 1, 1, 2])


@pytest.mark.parametrize("alpha,max_clusters", [(1.0, None), (0.4, None), (2.0, 2)])
def test_the_predictive_is_the_exact_posterior_with_the_new_row(alpha, max_clusters):
    n = 6
    both = cluster_from_arrays(X, C, levels=[3])
    hyper = default_hyper(both.take(range(n)))
    train, new = both.take(range(n)), both.take(range(n, 8))
    post = exact_posterior(n, BlockScorer(train, hyper).block, alpha=alpha,
                           max_clusters=max_clusters)
    parts = [(blocks_of(z), p) for z, p in zip(post.labels.tolist(), post.prob)]
    got = predict_proba(BlockScorer(train, hyper), alpha, max_clusters, parts, new)
    assert got.shape == (2, n + 1)
    for t in range(2):
        rows = both.take(list(range(n)) + [n + t])
        full = exact_posterior(n + 1, BlockScorer(rows, hyper).block, alpha=alpha,
                               max_clusters=max_clusters)
        with_j = np.zeros(n + 1)
        for z, p in zip(full.labels, full.prob):
            with_j[:n] += p * (z[:n] == z[n])
            with_j[n] += p * (z[n] not in z[:n])
        assert got[t] == pytest.approx(with_j, abs=1e-10)


def test_one_partition_by_hand():
    both = cluster_from_arrays(X, C, levels=[3])
    train, new = both.take(range(6)), both.take([6])
    bs = BlockScorer(train)
    parts = [[0, 2, 4], [1, 3, 5]]
    w = np.array([np.log(3) + bs.predictive(parts[0], new)[0],
                  np.log(3) + bs.predictive(parts[1], new)[0],
                  np.log(0.5) + bs.predictive([], new)[0]])
    p = np.exp(w - w.max())
    p /= p.sum()
    got = predict_proba(bs, 0.5, None, [(parts, 7)], new)[0]
    assert got == pytest.approx([p[0], p[1], p[0], p[1], p[0], p[1], p[2]], abs=1e-12)
    # partitions count by their visits times how well they predict the row
    one = np.array([np.log(6) + bs.predictive(range(6), new)[0],
                    np.log(0.5) + bs.predictive([], new)[0]])
    z1, z2 = np.exp(w).sum(), np.exp(one).sum()
    want = (2 * np.exp(w)[[0, 1, 0, 1, 0, 1, 2]]
            + 3 * np.exp(one)[[0, 0, 0, 0, 0, 0, 1]]) / (2 * z1 + 3 * z2)
    got2 = predict_proba(bs, 0.5, None, [(parts, 2), ([[0, 1, 2, 3, 4, 5]], 3)], new)[0]
    assert got2 == pytest.approx(want, rel=1e-10)
