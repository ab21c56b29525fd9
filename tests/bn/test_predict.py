"""Predicting a variable from the others (slpy.bn.predict) against the full joint of
each DAG, computed directly; held-out samples and test rows."""
import numpy as np
import pytest

from slpy.bn.data import discrete_from_arrays
from slpy.bn.predict import Rows, holdout_split, predict_proba, read_rows_like
from slpy.bn.score import family_counts, family_prior
from slpy.data import DataError


@pytest.fixture(scope="module")
def data():
    rng = np.random.default_rng(3)
    codes = np.column_stack([rng.integers(0, 2, 60), rng.integers(0, 3, 60),
                             rng.integers(0, 2, 60), rng.integers(0, 2, 60)])
    return discrete_from_arrays(codes, names=["a", "b", "c", "d"], levels=[2, 3, 2, 2])


def joint_predict(data, score, ess, parents, rows, t):
    """P(t | the rest) from the DAG's whole joint distribution, node by node."""
    r = int(data.arities[t])
    out = np.zeros((len(rows), r))
    for i, x in enumerate(rows):
        for k in range(r):
            z = x.copy()
            z[t] = k
            p = 1.0
            for node, ps in enumerate(parents):
                n = family_counts(data, node, ps).astype(float)
                a_j, a_jk = family_prior(score, ess, n.shape[0], n.shape[1])
                j = int(np.ravel_multi_index([z[q] for q in ps], [int(data.arities[q]) for q in ps])) if ps else 0
                p *= (n[j, z[node]] + a_jk) / (n[j].sum() + a_j)
            out[i, k] = p
    return out / out.sum(axis=1, keepdims=True)


@pytest.mark.parametrize("score,ess", [("bdeu", 1.0), ("bdeu", 5.0), ("k2", 1.0)])
@pytest.mark.parametrize("t", [0, 1, 2])
def test_the_markov_blanket_gives_the_joint_conditional(data, score, ess, t):
    g1 = [(), (0,), (0, 1), (2,)]          # a -> b, a -> c, b -> c, c -> d
    g2 = [(1,), (), (), (0, 2)]            # b -> a, a -> d, c -> d
    rng = np.random.default_rng(t)
    rows = np.column_stack([rng.integers(0, int(a), 7) for a in data.arities])
    R = Rows(rows.astype(np.int32), None, list(data.levels[t]), t)
    for g in (g1, g2):
        got = predict_proba(data, score, ess, [(g, 1)], R)
        assert np.allclose(got, joint_predict(data, score, ess, g, rows, t), atol=1e-12)
    mix = predict_proba(data, score, ess, [(g1, 3), (g2, 1)], R)
    want = (3 * joint_predict(data, score, ess, g1, rows, t)
            + joint_predict(data, score, ess, g2, rows, t)) / 4
    assert np.allclose(mix, want, atol=1e-12)


def test_holdout_draws_samples_without_replacement(data):
    train, test = holdout_split(data, 0.25, np.random.default_rng(1), "c")
    assert test.n_rows == 15 and train.n_samples == 45
    again = holdout_split(data, 0.25, np.random.default_rng(1), "c")[1]
    assert np.array_equal(test.codes, again.codes)
    # the held-out samples and the training ones make up the data
    merged = discrete_from_arrays(np.vstack([np.repeat(train.codes, train.counts, 0),
                                             test.codes]), names=data.names,
                                  levels=[2, 3, 2, 2])
    assert np.array_equal(merged.codes, data.codes) and np.array_equal(merged.counts,
                                                                        data.counts)


def test_test_rows_are_read_by_name_and_checked(data, tmp_path):
    f = tmp_path / "t.csv"
    f.write_text("d,c,b,a\n1,0,2,1\n0,1,0,0\n")
    rows = read_rows_like(f, data, "c")
    assert rows.codes.tolist() == [[1, 2, 0, 1], [0, 0, 0, 0]] and rows.y.tolist() == [0, 1]
    f.write_text("d,b,a\n1,2,1\n")
    assert read_rows_like(f, data, "c").y is None
    f.write_text("d,c,b,a\n1,0,7,1\n")
    with pytest.raises(DataError, match=r"t.csv:2:3: a value the training data never has"):
        read_rows_like(f, data, "c")
    with pytest.raises(DataError, match="not a variable"):
        read_rows_like(f, data, "e")



def test_a_network_runs_predictions_have_their_own_rhat_and_ess(tmp_path):
    # per held-out row, the trace of P(its target value | the rest) under each kept
    # draw's DAG, from the DAG's whole joint (as joint_predict, its tables cached),
    # diagnosed by ArviZ: the run's worst R-hat and smallest bulk ESS are these
    import json
    import arviz as az
    from slpy.bn.family import BN, parse_key
    from slpy.mcmc.run import run
    from ..conftest import EXAMPLES, ROOT
    out = tmp_path / "r"
    s = run(dict(prior=str(ROOT / "priors" / "bn.slp"), data=str(EXAMPLES / "asia.csv"),
                 target="either", holdout=0.2, iterations=150, chains=2, jobs=1, seed=4),
            out, quiet=True)
    p = s["convergence"]["predictions"]
    train, test = BN.load_data(json.loads((out / "config.json").read_text()))
    names, t = train.names, train.names.index("either")
    assert p["rows"] == test.n_rows
    rows, first = np.unique(test.codes, axis=0, return_index=True)
    y = test.y[first]
    tables = {}

    def table(node, ps):
        if (node, ps) not in tables:
            n = family_counts(train, node, ps).astype(float)
            a_j, a_jk = family_prior("bdeu", 1.0, n.shape[0], n.shape[1])
            tables[node, ps] = (n + a_jk) / (n.sum(1, keepdims=True) + a_j)
        return tables[node, ps]

    def true_value_probs(parents):
        joint = np.ones((len(rows), 2))
        for k in range(2):
            z = rows.copy()
            z[:, t] = k
            for node, ps in enumerate(parents):
                j = np.ravel_multi_index(tuple(z[:, q] for q in ps),
                                         tuple(int(train.arities[q]) for q in ps)) \
                    if ps else np.zeros(len(rows), dtype=np.int64)
                joint[:, k] *= table(node, tuple(ps))[j, z[:, node]]
        # rounded: DAGs with the same Markov blanket of the target tie exactly, as
        # they do in the run (the other factors cancel, but not to the last bit here)
        return np.round(joint[np.arange(len(rows)), y] / joint.sum(axis=1), 10)

    chains = []
    for c in sorted(out.glob("chain_*")):
        keys = {int(r.split(",", 1)[0]): r.split(",", 1)[1].rsplit(",", 2)[0].strip('"')
                for r in (c / "models.csv").read_text().splitlines()[1:]}
        probs = {i: true_value_probs(parse_key(k, names)) for i, k in keys.items()}
        ids = [int(r.split(",")[1]) for r in (c / "trace.csv").read_text().splitlines()[1:]]
        chains.append(np.array([probs[i] for i in ids]))
    n = min(len(c) for c in chains)
    x = np.stack([c[:n] for c in chains])                   # chains x draws x rows
    vary = np.ptp(x.reshape(-1, len(rows)), axis=0) > 0
    assert vary.sum() >= 5
    rhat = [float(az.rhat(x[:, :, j])) for j in np.flatnonzero(vary)]
    ess = [float(az.ess(x[:, :, j])) for j in np.flatnonzero(vary)]
    assert p["rhat"] == pytest.approx(max(rhat), abs=1e-6)
    assert p["ess_bulk"] == pytest.approx(min(ess), abs=0.005)       # rounded to 2 places
