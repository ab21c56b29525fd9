"""The compiled network path (slpy.compiled.network): which priors it takes and why
not, its family scores against slpy.bn.score's, and its chains -- through the run's
sampler and tempering -- against the exact posterior over all 543 DAGs on 4 nodes
(chi-square, fixed seeds), for priors/bn.slp and priors/bn_expert.slp. Whether a link
may be drawn depends on the links drawn before it (no cycle, bounded in-degree)."""
import math
from collections import Counter

import numpy as np
import pytest

from slpy import Program
from slpy.bn.family import BN, BNScorer, parse_key
from slpy.bn.score import FamilyScorer
from slpy.compiled.network import NetworkChain, NetworkScores, table_size
from slpy.mcmc.config import RunConfig
from slpy.mcmc.model import PosteriorModel
from slpy.mcmc.moves import parse_mixture
from slpy.mcmc.paths import fast_path, resolve_path
from slpy.mcmc.sampler import run_chain

from ..bn.test_mcmc import NAMES, PRIOR, data, slp_prior  # noqa: F401  (a fixture)
from ..conftest import ROOT
from ..mcmc.test_correctness import chi2_pvalue

EXPERT = ROOT / "priors" / "bn_expert.slp"


def model_of(data, path=PRIOR, **params):
    p = Program()
    p.consult(path)
    for k, v in params.items():
        p.set_param(k, p.parse_query(v)[0] if isinstance(v, str) else v)
    BN.bind(p, data, {})
    return p, PosteriorModel(p, "bn(G)", BNScorer(NAMES, FamilyScorer(data)))


def posterior(p, m, heat=1.0):
    """key -> exact posterior probability: every proof of the prior (the engine's
    enumeration) times its DAG's score."""
    prior = slp_prior(p, BNScorer(NAMES, None))
    fs = m.scorer.families
    logw = {k: math.log(x) + heat * fs.total(parse_key(k, NAMES)) for k, x in prior.items()}
    top = max(logw.values())
    z = sum(math.exp(w - top) for w in logw.values())
    return {k: math.exp(w - top) / z for k, w in logw.items()}


PRIORS = {"bn": (PRIOR, dict(link=0.4, max_parents=2)),
          "expert": (EXPERT, dict(link=0.5, max_parents=3, required="[b-c]",
                                  forbidden="[a-d]", order="[d, c]"))}


@pytest.fixture(scope="module", params=sorted(PRIORS))
def case(request, data):  # noqa: F811
    path, params = PRIORS[request.param]
    p, m = model_of(data, path, **params)
    return m, posterior(p, m)


def cfg_of(**kw):
    return RunConfig(**{"proposal": "default", "path": "auto", **kw})


def test_the_network_priors_take_the_compiled_path(case):
    m, probs = case
    cfg, note = resolve_path(m, cfg_of())
    assert cfg.path == "compiled" and cfg.proposal == "sweep", note
    assert "network" in note and fast_path(cfg, m).name == "compiled"
    assert len(probs) > 50      # a posterior spread over many DAGs


@pytest.mark.parametrize("spec,temper,thin", [
    ("change", 1, 15), ("change", 4, 10), ("sweep", 1, 1), ("sweep", 4, 1),
    ("change:0.7,sweep:0.3", 3, 2)])
def test_chains_visit_dags_with_the_exact_posterior_frequencies(case, spec, temper, thin):
    m, probs = case
    cfg = cfg_of(proposal=spec, temper=temper, iterations=300 + 5000 * thin, burn_in=300,
                 thin=thin, seed=4, delta_t=0.2, ladder="paper", swap="random")
    cfg = resolve_path(m, cfg)[0]
    counts = Counter()

    def count(sw):
        if sw.kept:
            counts[sw.state.key] += 1
    out = run_chain(m, cfg, 0, [count])
    assert cfg.path == "compiled" and set(out.moves) == {n for n, _ in parse_mixture(spec)}
    assert chi2_pvalue(counts, probs) > 0.01


def moved(m, probs, heat, seed, steps=2, n=6000):
    """Where n chains end after `steps` moves at `heat`, each started from an exact
    draw of `probs` (a move that leaves it invariant keeps it)."""
    from slpy.compiled.network import _inputs, _settings
    k = _settings(m)
    chain = NetworkChain(*_inputs(m, k), k, m.scorer.key_of)
    rng = np.random.default_rng(seed)
    keys = sorted(probs)
    p = np.array([probs[x] for x in keys])
    counts = Counter()
    for i in rng.choice(len(keys), size=n, p=p / p.sum()):
        chain.set_parents(parse_key(keys[i], NAMES))
        chain.run(steps, rng, heat)
        counts[chain.key()] += 1
    return counts


@pytest.mark.parametrize("heat", [1.0, 0.5])
def test_the_move_leaves_the_tempered_posterior_invariant(data, heat):  # noqa: F811
    p, m = model_of(data, **PRIORS["bn"][1])
    probs = posterior(p, m, heat)
    assert chi2_pvalue(moved(m, probs, heat, seed=5), probs) > 0.01


def test_a_move_at_the_wrong_heat_is_caught(data):  # noqa: F811
    # the test can fail: moves that ignore the likelihood leave the prior invariant
    p, m = model_of(data, **PRIORS["bn"][1])
    probs = posterior(p, m)
    assert chi2_pvalue(moved(m, probs, 0.0, seed=6), probs) < 1e-4


@pytest.mark.parametrize("dense", [True, False], ids=["dense", "sorted"])
def test_family_scores_are_the_family_scorers(data, dense):  # noqa: F811
    _, m = model_of(data, max_parents=3)
    fs = m.scorer.families
    ref = FamilyScorer(fs.data)
    if not dense:      # both take the sorting kernel
        fs._dense_limit = ref._dense_limit = 1
    chain = NetworkChain(NetworkScores(fs, 4, 3), np.full((6, 3), 1 / 3), 3,
                         m.scorer.key_of)
    rng = np.random.default_rng(2)
    for _ in range(30):
        chain.sample_prior(rng)
        ps = chain.parent_sets()
        assert chain.fam.tolist() == [ref.local(v, s) for v, s in enumerate(ps)]
        assert chain.log_lik == pytest.approx(ref.total(ps), abs=1e-9)
    assert table_size(4, 3) == chain.scores.args[0].size == 4 * 8


DEPENDENT = """
:- model_family(bn).
bn(dag(G)) :- bn_variables(Vs), pairs(Vs, G, [], Es), bn_families(Vs, Es, G).
pairs([], _, Es, Es).
pairs([X|Xs], G, Es0, Es) :- with(Xs, X, G, Es0, Es1), pairs(Xs, G, Es1, Es).
with([], _, _, Es, Es).
with([Y|Ys], X, G, Es0, Es) :-
    length(Es0, N), P is 1 / (2 + N),
    [P] :: link(X, Y, Link), bn_agrees(G, X, Y, Link),
    add(Link, Es0, Es1), with(Ys, X, G, Es1, Es).
1 - P :: [P] :: link(_, _, none).
P / 2 :: [P] :: link(X, Y, X-Y).
P / 2 :: [P] :: link(X, Y, Y-X).
add(none, Es, Es).
add(X-Y, Es, [X-Y|Es]) :- bn_can_add(X, Y, Es, 3)%s.
"""


@pytest.mark.parametrize("text,why", [
    # the probability of a link depends on the links before it
    (DEPENDENT % "", "depend on the other pairs"),
    # a bound on the number of edges the compiled prior does not know
    (DEPENDENT.replace("P is 1 / (2 + N)", "P = 0.5") % ", length(Es, L), L =< 2",
     "does not allow"),
], ids=["dependent", "constrained"])
def test_other_network_priors_stay_on_the_engine_and_say_why(data, tmp_path, text,  # noqa: F811
                                                              why):
    f = tmp_path / "prior.slp"
    f.write_text(text)
    _, m = model_of(data, f)
    cfg, note = resolve_path(m, cfg_of())
    assert cfg.path == "engine" and why in note


def test_a_move_of_the_other_compiled_path_is_a_clear_error(data):  # noqa: F811
    from slpy.errors import RunError
    _, m = model_of(data, **PRIORS["bn"][1])
    with pytest.raises(RunError, match="regrow is a move of a compiled path that does not "
                                       "apply here .this model's compiled path runs "
                                       "change, sweep"):
        resolve_path(m, cfg_of(proposal="regrow"))
    cfg, note = resolve_path(m, cfg_of(proposal="uc:0.5,change:0.5"))
    assert cfg.path == "engine" and "uc is a move of the engine" in note
    cfg, note = resolve_path(m, cfg_of(method="smc", temper=1))
    assert cfg.path == "compiled" and cfg.proposal == "sweep", note      # SMC's particles


def test_a_network_run_says_its_path_and_is_reproducible(tmp_path):
    from ..compiled.test_path import same_runs, slpy
    common = [str(PRIOR), "--data", str(ROOT / "examples" / "data" / "asia.csv"), "-n",
              "300", "--seed", "4", "--chains", "2", "--temper", "3", "-q"]
    same_runs(tmp_path, common)
    text = (tmp_path / "a" / "summary.txt").read_text()
    assert "\npath: compiled (the network's" in text and "edge posterior marginals" in text
    # from the hill-climbed DAG, on the same path
    slpy("run", *common, "--init", "greedy", "--out", str(tmp_path / "g"))
    rows = (tmp_path / "g" / "chain_0" / "trace.csv").read_text().splitlines()
    assert len(rows) > 100 and "path: compiled" in (tmp_path / "g" / "summary.txt").read_text()
