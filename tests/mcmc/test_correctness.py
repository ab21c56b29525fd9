"""The chain's visit frequencies match the exact prior (flat likelihood) and the exact
posterior (with data) computed by enumerating every tree (chi-square, fixed seeds)."""
from collections import Counter
from pathlib import Path

import numpy as np
import pytest
from scipy.stats import chisquare

from slpy import Program
from slpy.data import load_csv
from slpy.trees import make_likelihood
from slpy.trees.term import canonical
from slpy.mcmc.model import PosteriorModel
from slpy.trees.family import TreeScorer
from slpy.mcmc.config import RunConfig
from slpy.mcmc.sampler import run_chain

from .exact_growtree import enumerate_trees

ROOT = Path(__file__).resolve().parents[2]


@pytest.fixture(scope="module")
def small():
    ds = load_csv(ROOT / "examples" / "data" / "kyphosis.csv").take(np.arange(20))
    return ds


def model_for(ds, with_data):
    p = Program()
    p.consult(ROOT / "priors" / "growtree.slp")
    p.set_param("min_leaf", 5)
    p.attach_data(ds)
    lik = make_likelihood("dirichlet", ds) if with_data else None
    return PosteriorModel(p, "cart(T)", TreeScorer(p, lik))


def exact(m, ds, with_data):
    trees = enumerate_trees(m.scorer.rowsets, ds.feature_names, 0.95, 1.0, 5)
    logw = np.array([np.log(p) + (m.scorer.likelihood.log_likelihood(m.scorer.rowsets, leaves)
                                  if with_data else 0.0) for _, p, leaves in trees])
    w = np.exp(logw - logw.max())
    return {k: x for (k, _, _), x in zip(trees, w / w.sum())}


def chain(m, spec, n_keep, thin, seed, temper=1):
    """Visits of the cold chain of the real (tempered) kernel: the paper's ladder and
    random swaps, a burn-in of 200."""
    cfg = RunConfig(proposal=spec, temper=temper, ladder="paper", delta_t=0.2,
                    swap="random", iterations=n_keep * thin + 200, burn_in=200, thin=thin,
                    seed=seed)
    counts = Counter()

    def count(sw):
        if sw.kept:
            counts[canonical(sw.state.term)] += 1
    run_chain(m, cfg, 0, [count])
    return counts


def chi2_pvalue(counts, probs):
    n = sum(counts.values())
    assert set(counts) <= set(probs), "the chain visited a tree outside the space"
    big = [k for k, p in probs.items() if p * n >= 5]
    obs = [counts.get(k, 0) for k in big]
    exp = [probs[k] * n for k in big]
    rest_o = n - sum(obs)
    rest_e = n - sum(exp)
    if rest_e >= 5:
        obs.append(rest_o)
        exp.append(rest_e)
    else:
        exp[-1] += rest_e
        obs[-1] += rest_o
    return chisquare(obs, exp).pvalue


@pytest.mark.parametrize("spec,thin,temper", [("uc", 5, 1), ("q0", 1, 1), ("uc", 5, 3)])
def test_flat_likelihood_visits_the_prior(small, spec, thin, temper):
    m = model_for(small, with_data=False)
    probs = exact(m, small, False)
    assert abs(sum(probs.values()) - 1) < 1e-9 and len(probs) == 170
    counts = chain(m, spec, 3000, thin, seed=5, temper=temper)
    assert chi2_pvalue(counts, probs) > 0.01


# thinning keeps successive kept states nearly independent, as the test assumes
@pytest.mark.parametrize("spec,thin,temper", [("uc", 12, 1), ("q0", 3, 1), ("uc", 8, 3)])
def test_posterior_visits(small, spec, thin, temper):
    m = model_for(small, with_data=True)
    probs = exact(m, small, True)
    counts = chain(m, spec, 2000, thin, seed=13, temper=temper)
    assert chi2_pvalue(counts, probs) > 0.01
