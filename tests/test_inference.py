"""ArviZ InferenceData of runs and estimators (slpy.inference): the groups hold what the
run directory holds, the estimator and `slpy run` give the same data for the same
seed, PSIS-LOO from the pointwise log-likelihood matches the exact leave-one-out
predictive computed by enumerating every tree, and az.compare ranks two priors on BCW."""
import csv
import json
import warnings
from pathlib import Path

import numpy as np
import pandas as pd
import pytest
from click.testing import CliRunner
from scipy.special import gammaln, logsumexp

az = pytest.importorskip("arviz", reason="ArviZ is the optional extra slpy[diagnostics]")
pytest.importorskip("sklearn")

import slpy  # noqa: E402
from slpy import BayesianTreeClassifier, Program  # noqa: E402
from slpy.cli import main  # noqa: E402
from slpy.data import from_arrays  # noqa: E402
from slpy.trees.model import Split, Tree  # noqa: E402
from slpy.trees.term import canonical  # noqa: E402

ROOT = Path(__file__).resolve().parents[1]
DATA = ROOT / "examples" / "data"
PRIOR = ROOT / "priors" / "growtree.slp"

# PSIS warns about large Pareto k; the tests read k themselves
pytestmark = pytest.mark.filterwarnings("ignore:Estimated shape parameter of Pareto")


@pytest.fixture(scope="module")
def kyphosis_run(tmp_path_factory):
    """`slpy run` and the estimator with the same seed and no burn-in: the same chain."""
    out = tmp_path_factory.mktemp("inf") / "run"
    r = CliRunner().invoke(main, ["run", str(PRIOR), "--data", str(DATA / "kyphosis.csv"),
                                  "-n", "150", "--burn-in", "0", "--seed", "7", "--chains",
                                  "2", "--out", str(out), "-q"])
    assert r.exit_code == 0, r.output
    df = pd.read_csv(DATA / "kyphosis.csv")
    est = BayesianTreeClassifier(n_iter=150, burn_in=0, n_chains=2, random_state=7).fit(
        df.drop(columns="class"), df["class"])
    return out, est


def test_groups_hold_the_run_directory(kyphosis_run):
    out, _ = kyphosis_run
    idata = slpy.to_inference_data(out)
    assert set(idata.groups()) == {"posterior", "sample_stats", "observed_data",
                                   "log_likelihood"}
    post = idata.posterior
    assert dict(post.sizes) == {"chain": 2, "draw": 150}
    for c in range(2):
        rows = list(csv.DictReader(open(out / f"chain_{c}" / "trace.csv")))
        assert np.allclose(post.log_lik[c], [float(r["log_lik"]) for r in rows])
        assert (post.leaves[c] == [int(r["leaves"]) for r in rows]).all()
        assert (post.depth[c] == [int(r["depth"]) for r in rows]).all()
        st = idata.sample_stats
        assert (st.accepted[c] == [r["accepted"] == "1" for r in rows]).all()
        assert (st.choice_points[c] == [int(r["d"]) for r in rows]).all()
        # swaps: every "i-j:0|1" entry of the trace's swap column
        for pair in st.pair.values:
            entries = [e for r in rows for e in r["swap"].split(";") if e.startswith(pair + ":")]
            sel = st.sel(pair=pair)
            assert int(sel.swap_proposed[c].sum()) == len(entries)
            assert int(sel.swap_accepted[c].sum()) == sum(e.endswith(":1") for e in entries)
    heats = json.loads((out / "summary.json").read_text())["heats"]
    assert np.allclose(idata.sample_stats.heat[:, 0, :], heats)
    assert idata.log_likelihood.y.shape == (2, 150, 81)
    bare = slpy.to_inference_data(out, log_likelihood=False)
    assert set(bare.groups()) == {"posterior", "sample_stats"}
    assert list(idata.observed_data.y.values[:3]) == ["absent", "absent", "present"]


def test_estimator_and_run_give_the_same_inference_data(kyphosis_run):
    out, est = kyphosis_run
    a = slpy.to_inference_data(out, random_state=3)
    b = est.to_inference_data(random_state=3)
    for group, var in (("posterior", "log_lik"), ("posterior", "leaves"),
                       ("posterior", "depth"), ("sample_stats", "accepted"),
                       ("sample_stats", "heat"), ("sample_stats", "swap_proposed"),
                       ("sample_stats", "swap_accepted"),
                       ("log_likelihood", "y"), ("observed_data", "y")):
        assert np.array_equal(a[group][var].values, b[group][var].values), (group, var)
    # same seed, same values; another seed, other leaf parameters
    c = slpy.to_inference_data(out, random_state=3)
    assert np.array_equal(a.log_likelihood.y.values, c.log_likelihood.y.values)
    d = slpy.to_inference_data(out, random_state=4)
    assert not np.array_equal(a.log_likelihood.y.values, d.log_likelihood.y.values)
    thin = est.to_inference_data(thin=10)
    assert thin.posterior.sizes["draw"] == 15
    assert np.array_equal(thin.posterior.log_lik.values, b.posterior.log_lik.values[:, ::10])
    # (neighbour swaps alternate between even and odd pairs: the kept draws see some)
    kept = b.sample_stats.swap_proposed.sel(pair=thin.sample_stats.pair.values)
    assert np.array_equal(thin.sample_stats.swap_proposed.values, kept.values[:, ::10])
    # the tempering comes from the chains in memory (est.chains_), which save/load drops
    assert list(a.sample_stats.pair.values) == list(b.sample_stats.pair.values)
    assert b.sample_stats.swap_proposed.values.any()


def test_estimator_checks_the_training_data(kyphosis_run):
    _, est = kyphosis_run
    df = pd.read_csv(DATA / "kyphosis.csv")
    X, y = df.drop(columns="class"), df["class"]
    given = est.to_inference_data(X, y, random_state=3)
    kept = est.to_inference_data(random_state=3)
    assert np.array_equal(given.log_likelihood.y.values, kept.log_likelihood.y.values)
    with pytest.raises(ValueError, match="not the data the estimator was fitted on"):
        est.to_inference_data(X, y.iloc[::-1].to_numpy())
    with pytest.raises(ValueError, match="thin must be"):
        est.to_inference_data(thin=0)


def test_bad_runs_are_one_line_errors(tmp_path):
    from slpy.report import ReportError
    with pytest.raises(ReportError, match="no such run directory"):
        slpy.to_inference_data(tmp_path / "nope")
    r = CliRunner().invoke(main, ["exact", str(PRIOR), "--data", str(DATA / "kyphosis.csv"),
                                  "--max-depth", "1", "--out", str(tmp_path / "ex"), "-q"])
    assert r.exit_code == 0, r.output
    with pytest.raises(ValueError, match="an exact run has no chains"):
        slpy.to_inference_data(tmp_path / "ex")


def exact_loo(X, codes, min_leaf):
    """log p(y_i | y_-i) of each row, exactly: every tree of GROWTREE (min_leaf) on
    (X, codes) by enumeration (Program.proofs), each with its prior probability,
    Dirichlet(1) marginal likelihood and leave-one-out predictive counted by hand."""
    ds = from_arrays(X, codes, feature_names=["Age", "Start"], classes=["absent", "present"])
    p = Program()
    p.consult(str(PRIOR))
    p.set_param("min_leaf", min_leaf)
    p.attach_data(ds)
    prior, trees = {}, {}
    for pr in p.proofs("cart(T)"):
        k = canonical(pr.bindings["T"])
        prior[k] = prior.get(k, 0.0) + pr.prob
        trees.setdefault(k, Tree.from_term(pr.bindings["T"], p.rowsets, ds))
    keys = list(prior)
    log_post = np.log([prior[k] for k in keys])
    loo = np.zeros((len(keys), len(codes)))
    for t, k in enumerate(keys):
        leaf = []
        for x in X:
            n = trees[k].root
            while isinstance(n, Split):
                n = n.left if x[n.feature] <= n.threshold else n.right
            leaf.append(id(n))
        leaf = np.array(leaf)
        for lf in np.unique(leaf):
            c = np.bincount(codes[leaf == lf], minlength=2)
            log_post[t] += gammaln(2) - gammaln(c.sum() + 2) + gammaln(c + 1).sum()
        for i in range(len(codes)):
            c = np.bincount(codes[leaf == leaf[i]], minlength=2)
            loo[t, i] = np.log(c[codes[i]] / (c.sum() + 1))
    return logsumexp(log_post) - logsumexp(log_post[:, None] - loo, axis=0), len(keys)


@pytest.mark.slow
def test_psis_loo_matches_the_exact_leave_one_out_predictive():
    """24 Kyphosis rows, two features: 7524 trees under GROWTREE with min_leaf 4, so
    the exact elpd_loo is a sum over all of them; az.loo of 8000 MCMC iterations
    must be close to it."""
    df = pd.read_csv(DATA / "kyphosis.csv").iloc[:24]
    X, y = df[["Age", "Start"]], df["class"]
    codes = np.unique(y, return_inverse=True)[1]
    exact, n_trees = exact_loo(X.to_numpy(float), codes, 4)
    assert n_trees == 7524
    est = BayesianTreeClassifier(min_leaf=4, n_iter=8000, tempering=1, random_state=1)
    est.fit(X, y)
    loo = az.loo(est.to_inference_data(), pointwise=True)
    print(f"\nexact elpd_loo {exact.sum():.3f}, PSIS-LOO {loo.elpd_loo:.3f}")
    assert abs(loo.elpd_loo - exact.sum()) < 0.3, (loo.elpd_loo, exact.sum())
    assert np.abs(loo.loo_i.values - exact).max() < 0.15


def test_loo_compares_two_priors_on_bcw():
    """GROWTREE against the depth prior of the IJCAI paper on all of BCW: both
    elpd_loo finite, az.compare ranks them, the Pareto k diagnostic is there, and the
    leaf parameters drawn with another seed change elpd_loo by far less than the
    difference."""
    df = pd.read_csv(DATA / "bcw.csv")
    X, y = df.drop(columns="class"), df["class"]
    fits = {name: BayesianTreeClassifier(prior=name, n_iter=1500, n_chains=1, tempering=1,
                                         random_state=0).fit(X, y)
            for name in ("growtree", "depth")}
    idata = {name: est.to_inference_data() for name, est in fits.items()}
    loos = {name: az.loo(d, pointwise=True) for name, d in idata.items()}
    with warnings.catch_warnings():
        warnings.simplefilter("ignore")
        table = az.compare(idata)
    print()
    print(table[["rank", "elpd_loo", "p_loo", "elpd_diff", "weight", "se", "dse"]])
    for name, loo in loos.items():
        k = loo.pareto_k.values
        print(f"{name}: elpd_loo {loo.elpd_loo:.2f} (se {loo.se:.2f}), p_loo "
              f"{loo.p_loo:.2f}, Pareto k > 0.7 for {(k > 0.7).sum()} of {len(k)} rows")
        assert np.isfinite(loo.elpd_loo) and np.isfinite(loo.se)
        assert k.shape == (len(y),) and np.isfinite(k).all()
        assert np.isclose(table.loc[name, "elpd_loo"], loo.elpd_loo)
        other = az.loo(fits[name].to_inference_data(random_state=1))
        assert abs(other.elpd_loo - loo.elpd_loo) < 1.0, (name, other.elpd_loo)
    assert sorted(table["rank"]) == [0, 1]
    best = max(loos, key=lambda n: loos[n].elpd_loo)
    assert table.index[0] == best
    assert np.isclose(table["weight"].sum(), 1.0)


def test_a_network_run_gives_its_traced_integers(tmp_path):
    """Another model family: the posterior holds its traced integers (edges for
    networks) and no pointwise log-likelihood (the family defines none)."""
    out = tmp_path / "asia"
    r = CliRunner().invoke(main, ["run", str(ROOT / "priors" / "bn.slp"), "--data",
                                  str(DATA / "asia.csv"), "-n", "60", "--temper", "2",
                                  "--seed", "4", "--out", str(out), "-q"])
    assert r.exit_code == 0, r.output
    idata = slpy.to_inference_data(out)
    assert set(idata.groups()) == {"posterior", "sample_stats"}
    assert set(idata.posterior.data_vars) == {"log_lik", "edges"}
    rows = list(csv.DictReader(open(out / "chain_0" / "trace.csv")))
    assert (idata.posterior.edges[0] == [int(r["edges"]) for r in rows]).all()
    assert idata.sample_stats.heat.shape[-1] == 2
