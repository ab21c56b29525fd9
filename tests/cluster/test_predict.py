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


PARTITIONS = [[[0, 2, 4], [1, 3, 5]], [[0, 1, 2, 3, 4, 5]], [[0, 2], [4], [1, 3, 5]],
              [[0], [1], [2, 3], [4, 5]]]


@pytest.mark.parametrize("alpha,max_clusters", [(1.0, None), (0.4, None), (2.0, 3)])
def test_log_predictive_is_a_ratio_of_marginal_likelihoods(alpha, max_clusters):
    # p(x | z) = sum over where the CRP seats x of its probability times the ratio of
    # the marginal likelihoods of the cluster with x and without it
    import math
    from slpy.cluster.predict import log_predictive
    n = 6
    both = cluster_from_arrays(X, C, levels=[3])
    hyper = default_hyper(both.take(range(n)))
    blocks = BlockScorer(both.take(range(n)), hyper)
    got = log_predictive(blocks, alpha, max_clusters, PARTITIONS, both.take([6, 7]))
    assert got.shape == (len(PARTITIONS), 2)
    for t, row in enumerate((6, 7)):
        full = BlockScorer(both.take(list(range(n)) + [row]), hyper)
        for i, z in enumerate(PARTITIONS):
            opens = max_clusters is None or len(z) < max_clusters
            w = [len(b) * math.exp(full.block(b + [n]) - full.block(b)) for b in z]
            if opens:
                w.append(alpha * math.exp(full.block([n])))
            want = math.log(sum(w) / (n + alpha if opens else n))
            assert got[i, t] == pytest.approx(want, abs=1e-10)


def test_a_clustering_runs_predictions_have_their_own_rhat_and_ess(tmp_path):
    # the run's figures are ArviZ's on the traces of log p(x | the kept partition)
    import json
    import arviz as az
    from slpy.cluster.family import CLUSTER
    from slpy.cluster.partition import parse_key
    from slpy.cluster.predict import log_predictive
    from slpy.mcmc.model import build_model
    from slpy.mcmc.run import run
    from ..conftest import EXAMPLES, ROOT
    out = tmp_path / "r"
    s = run(dict(prior=str(ROOT / "priors" / "crp.slp"),
                 data=str(EXAMPLES / "iris_petals.csv"), holdout=0.2, iterations=200,
                 chains=2, jobs=1, seed=2), out, quiet=True)
    p = s["convergence"]["predictions"]
    assert "of the predictive log density of each test row, the worst of" in \
        (out / "summary.txt").read_text()
    cfg = json.loads((out / "config.json").read_text())
    train, test = CLUSTER.load_data(cfg)
    scorer = build_model(cfg, train).scorer
    chains = []
    for c in sorted(out.glob("chain_*")):
        keys = {int(r.split(",", 1)[0]): r.split(",", 1)[1].rsplit(",", 2)[0].strip('"')
                for r in (c / "models.csv").read_text().splitlines()[1:]}
        ids = [int(r.split(",")[1]) for r in (c / "trace.csv").read_text().splitlines()[1:]]
        lp = log_predictive(scorer.blocks, scorer.alpha, scorer.max_clusters,
                            [parse_key(keys[i]) for i in ids], test.rows)
        chains.append(lp)
    n = min(len(c) for c in chains)
    x = np.stack([c[:n] for c in chains])
    cols = [j for j in range(x.shape[2]) if np.ptp(x[:, :, j]) > 0]
    assert p["rows"] == test.n_rows and cols
    assert p["rhat"] == pytest.approx(max(float(az.rhat(x[:, :, j])) for j in cols), abs=1e-6)
    assert p["ess_bulk"] == pytest.approx(min(float(az.ess(x[:, :, j])) for j in cols),
                                          abs=0.005)
