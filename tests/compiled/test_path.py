"""The compiled path of `slpy run` (slpy.compiled.path, slpy.mcmc.paths): which path a run
takes and why, and its chains -- through the same sampler, tempering and observers as
the engine's -- against the exact prior and posterior (chi-square, fixed seeds)."""
import json
import math
from collections import Counter

import numpy as np
import pytest
from click.testing import CliRunner

from slpy import Program
from slpy.cli import main
from slpy.compiled.path import COMPILED_MIXTURE, preorder_of
from slpy.data import load_csv
from slpy.errors import RunError
from slpy.mcmc.config import RunConfig
from slpy.mcmc.paths import resolve_path
from slpy.mcmc.sampler import run_chain
from slpy.trees import make_likelihood
from slpy.trees.family import TreeScorer
from slpy.mcmc.model import PosteriorModel

from ..conftest import EXAMPLES, ROOT
from ..mcmc.test_correctness import chi2_pvalue, exact, model_for
from ..mcmc.test_run import run_dir_bytes

PRIOR = str(ROOT / "priors" / "growtree.slp")
KYPHOSIS = str(EXAMPLES / "kyphosis.csv")


@pytest.fixture(scope="module")
def small():
    return load_csv(EXAMPLES / "kyphosis.csv").take(np.arange(20))


def visits(m, spec, n_keep, thin, seed, temper=1, path="compiled"):
    cfg = RunConfig(proposal=spec, temper=temper, ladder="paper", delta_t=0.2,
                    swap="random", iterations=n_keep * thin + 200, burn_in=200, thin=thin,
                    seed=seed, path=path)
    counts = Counter()

    def count(sw):
        if sw.kept:
            counts[sw.state.key] += 1
    out = run_chain(m, cfg, 0, [count])
    assert {m.partition(":")[0] for m in out.moves} <= {"regrow", "change", "swap", "exact",
                                                            "perturb"}
    return counts


# every mixture of the path's moves, plain and tempered, on the run's own sampler;
# thinned so that the kept draws are nearly independent, as the test assumes
@pytest.mark.parametrize("spec,thin,temper", [
    ("regrow", 20, 1), (COMPILED_MIXTURE, 20, 1), ("change:0.5,regrow:0.5", 30, 3),
    ("swap:0.3,regrow:0.7", 20, 1), ("regrow", 30, 3), ("exact:2:0.5,regrow:0.5", 20, 3),
    ("perturb:2:0.4,regrow:0.4,exact:1:0.2", 20, 3)])
def test_posterior_visits(small, spec, thin, temper):
    m = model_for(small, with_data=True)
    probs = exact(m, small, True)
    counts = visits(m, spec, 3000, thin, seed=31, temper=temper)
    assert chi2_pvalue(counts, probs) > 0.01


def test_auto_takes_the_compiled_path_for_growtree(small):
    m = model_for(small, with_data=True)
    cfg, why = resolve_path(m, RunConfig())
    assert cfg.path == "compiled" and cfg.proposal == COMPILED_MIXTURE
    assert why.startswith("compiled (")


@pytest.mark.parametrize("settings,why", [
    (dict(proposal="uc"), "--proposal uc is a move of the engine (the compiled path's "
                             "are regrow, change, swap, exact, perturb)"),
    (dict(proposal="change:0.5,perturb:0.5"), "the compiled path's change, swap and "
                                              "perturb keep the tree's shape: its mixtures "
                                              "need regrow or exact"),
    (dict(proposal="perturb:0.3,perturb:2:0.2,exact:1:0.5"),
     "the compiled path runs the perturb move at one width a chain"),
    (dict(path="engine"), "--path engine")])
def test_auto_stays_on_the_engine_and_says_why(small, settings, why):
    m = model_for(small, with_data=True)
    cfg, note = resolve_path(m, RunConfig(**settings))
    assert cfg.path == "engine" and note == f"engine ({why})"


def test_smc_takes_the_compiled_path_for_growtree(small):
    m = model_for(small, with_data=True)
    cfg, why = resolve_path(m, RunConfig(method="smc", temper=1))
    assert cfg.path == "compiled" and cfg.proposal == COMPILED_MIXTURE, why


def test_priors_and_data_outside_the_path(small):
    p = Program()
    p.consult(ROOT / "priors" / "phi.slp")
    p.attach_data(small)
    phi = PosteriorModel(p, "cart(T)", TreeScorer(p, make_likelihood("dirichlet", small)))
    assert "not GROWTREE" in resolve_path(phi, RunConfig())[1]
    with pytest.raises(RunError, match="--path compiled: the prior is not GROWTREE"):
        resolve_path(phi, RunConfig(path="compiled"))
    with pytest.raises(RunError, match="regrow is a move of a compiled path"):
        resolve_path(phi, RunConfig(proposal="regrow"))
    m = model_for(small, with_data=False)      # no likelihood: the prior alone
    assert "Dirichlet" in resolve_path(m, RunConfig())[1]


def lookalike(tmp_path):
    """GROWTREE with (2 + D) for (1 + D): recognised by its shape, not by its numbers."""
    f = tmp_path / "nearly.slp"
    f.write_text((ROOT / "priors" / "growtree.slp").read_text().replace(
        "Split is A * (1 + D) ** (-B)", "Split is A * (2 + D) ** (-B)"))
    return f


def test_a_prior_that_only_looks_like_growtree_stays_on_the_engine(small, tmp_path):
    f = lookalike(tmp_path)
    p = Program()
    p.consult(f)
    p.attach_data(small)
    m = PosteriorModel(p, "cart(T)", TreeScorer(p, make_likelihood("dirichlet", small)))
    cfg, why = resolve_path(m, RunConfig())
    assert cfg.path == "engine" and "looks like GROWTREE but" in why


def test_a_lookalike_prior_runs_on_the_engine_from_the_greedy_tree(tmp_path):
    f = lookalike(tmp_path)
    slpy("run", str(f), "--data", KYPHOSIS, "-n", "100", "--chains", "1", "--temper", "2",
         "--init", "greedy", "--proposal", "change:0.5,swap:0.5", "-q",
         "--out", str(tmp_path / "n"))
    assert "path: engine (the prior looks like GROWTREE but" in \
        (tmp_path / "n" / "summary.txt").read_text()


def test_a_lookalike_prior_runs_the_default_mixture_without_the_exact_move(tmp_path):
    # the check that keeps it off the compiled path keeps the exact move out too (it
    # would stop the run at its first exact move: the prior is not GROWTREE)
    f = lookalike(tmp_path)
    slpy("run", str(f), "--data", KYPHOSIS, "-n", "200", "--chains", "1", "--temper", "1",
         "-q", "--out", str(tmp_path / "n"))
    cfg = json.loads((tmp_path / "n" / "config.json").read_text())
    assert cfg["path"] == "engine" and "exact" not in cfg["proposal"]
    assert {"uc", "change", "perturb", "swap"} <= {
        n.partition(":")[0] for n in cfg["proposal"].split(",")}


def test_an_estimator_on_a_lookalike_prior_fits_without_the_exact_move(tmp_path):
    pd = pytest.importorskip("pandas")
    from slpy import BayesianTreeClassifier
    f = lookalike(tmp_path)
    d = pd.read_csv(KYPHOSIS)
    clf = BayesianTreeClassifier(prior=str(f), n_iter=200, n_chains=2, random_state=1)
    with pytest.warns(Warning):          # 200 iterations: not converged, and it says so
        clf.fit(d.drop(columns="class"), d["class"])
    assert clf.score(d.drop(columns="class"), d["class"]) > 0.7


def test_states_match_the_engines(small):
    """The tree, log prior, proof size, traced integers and key of engine draws, as the
    compiled chain computes them (what the path's check relies on)."""
    from slpy.compiled.path import _new_chain, _settings
    m = model_for(small, with_data=True)
    chain = _new_chain(m, *_settings(m))
    rng = np.random.default_rng(2)
    grown = 0
    for _ in range(30):
        s = m.sample_prior(rng)
        chain.set_tree(preorder_of(s.term, small))
        assert chain.canonical() == m.scorer.key(s.term)
        assert chain.log_prior() == pytest.approx(s.tree.log_prob(), abs=1e-9)
        assert chain.log_lik == pytest.approx(s.log_lik, abs=1e-9)
        leaves, depth, d = chain.shape()
        assert (leaves, depth) == s.stats and d == s.d
        grown += leaves > 2
    assert grown > 3


# ---- slpy run -----------------------------------------------------------------------------

def slpy(*args):
    r = CliRunner().invoke(main, list(args))
    assert r.exit_code == 0, r.output
    return r.output


def same_runs(tmp_path, common) -> dict:
    """Runs a and b of `common` (--jobs 1) and c (--jobs 2) are the same byte for byte;
    b's files."""
    slpy("run", *common, "--jobs", "1", "--out", str(tmp_path / "a"))
    slpy("run", *common, "--jobs", "1", "--out", str(tmp_path / "b"))
    slpy("run", *common, "--jobs", "2", "--out", str(tmp_path / "c"))
    a, b, c = (run_dir_bytes(tmp_path / x) for x in "abc")
    assert a == b
    a.pop("config.json"), c.pop("config.json")     # records --jobs itself
    assert a == c
    return b


def test_run_says_its_path_and_is_reproducible(tmp_path):
    b = same_runs(tmp_path, [PRIOR, "--data", KYPHOSIS, "-n", "400", "--seed", "4",
                             "--chains", "2", "--holdout", "0.2", "-q"])
    text = (tmp_path / "a" / "summary.txt").read_text()
    assert "\npath: compiled (" in text and "acceptance by move change" in text
    assert '"path": "compiled"' in (tmp_path / "b" / "config.json").read_text()
    assert {"predictions.csv", "trees/top.json", "trees/best.json"} <= set(b)


def test_run_on_the_engine_when_asked(tmp_path):
    slpy("run", PRIOR, "--data", KYPHOSIS, "-n", "200", "--chains", "1", "--temper", "2",
         "--path", "engine", "-q", "--out", str(tmp_path / "e"))
    text = (tmp_path / "e" / "summary.txt").read_text()
    assert "\npath: engine (--path engine)" in text and "exact" in text


def test_run_from_the_greedy_tree_on_the_compiled_path(tmp_path):
    slpy("run", PRIOR, "--data", KYPHOSIS, "-n", "200", "--chains", "1", "--init",
         "greedy", "-q", "--out", str(tmp_path / "g"))
    trace = (tmp_path / "g" / "chain_0" / "trace.csv").read_text().splitlines()
    assert "path: compiled" in (tmp_path / "g" / "summary.txt").read_text()
    assert len(trace) > 100


def test_path_errors_are_one_line(tmp_path):
    bad = CliRunner().invoke(main, ["run", PRIOR, "--data", KYPHOSIS, "--path", "compiled",
                                    "--proposal", "uc", "--out", str(tmp_path / "x")])
    assert bad.exit_code != 0 and "Traceback" not in bad.output
    assert "--path compiled: --proposal uc is a move of the engine" in bad.output


# ---- priors/depth.slp: GROWTREE's shape, split probability 1/D ---------------------------

@pytest.fixture(scope="module")
def depth(small):
    """(the depth prior's model on 20 rows, its exact posterior by key): every proof the
    engine enumerates, times its tree's likelihood."""
    p = Program()
    p.consult(ROOT / "priors" / "depth.slp")
    p.attach_data(small)
    m = PosteriorModel(p, "cart(T)", TreeScorer(p, make_likelihood("dirichlet", small)))
    w = Counter()
    for pr in p.proofs("cart(T)"):
        t = pr.bindings["T"]
        w[m.scorer.key(t)] += pr.prob * math.exp(m.scorer.score(t)[0])
    z = sum(w.values())
    return m, {k: x / z for k, x in w.items()}


def test_the_depth_prior_takes_the_compiled_path(depth):
    m, probs = depth
    cfg, why = resolve_path(m, RunConfig())
    assert cfg.path == "compiled" and cfg.proposal == COMPILED_MIXTURE, why
    assert len(probs) > 100


@pytest.mark.parametrize("spec,thin,temper", [
    (COMPILED_MIXTURE, 20, 1), ("perturb:2:0.3,change:0.2,regrow:0.3,exact:2:0.2", 20, 3)])
def test_depth_prior_posterior_visits(depth, spec, thin, temper):
    m, probs = depth
    counts = visits(m, spec, 3000, thin, seed=32, temper=temper)
    assert chi2_pvalue(counts, probs) > 0.01


def test_a_depth_prior_split_by_the_wrong_depth_is_caught(depth, small):
    # the test can fail: GROWTREE's table in place of 1/D gives other frequencies
    from slpy.compiled.growtree import GrowtreeChain
    m, probs = depth
    wrong = GrowtreeChain(small, 1.0, 1.0, 5, 1.0, rowsets=m.scorer.rowsets)
    rng = np.random.default_rng(3)
    counts = Counter()
    wrong.sample_prior(rng)
    for _ in range(3000):
        wrong.run(20, rng, 1.0, 0.2, 0.15, 0.1, 0.2, 3)
        counts[wrong.canonical()] += 1
    assert chi2_pvalue(counts, probs) < 1e-4
