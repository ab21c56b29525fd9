"""Box constraints (priors/boxes.slp) on the compiled path: a tree's region decides which
splits a box forbids, so the choices below a node depend on the rules above it. The
chains -- through the run's own sampler, plain and tempered -- and SMC's particles
against the exact posterior (every proof the engine enumerates, chi-square with fixed
seeds); the same chains without the boxes are caught; which path a box prior takes
and why."""
from collections import Counter

import numpy as np
import pytest

from slpy import Program
from slpy.compiled.growtree import CompiledPathError, GrowtreeChain
from slpy.compiled.path import BOX_MIXTURE
from slpy.data import load_csv
from slpy.errors import RunError
from slpy.mcmc.config import RunConfig
from slpy.mcmc.model import PosteriorModel
from slpy.mcmc.paths import fast_path, resolve_path
from slpy.mcmc.sampler import run_chain
from slpy.trees import make_likelihood
from slpy.trees.family import TreeScorer

from ..conftest import EXAMPLES, ROOT
from ..mcmc.test_correctness import chi2_pvalue
from .test_smc import agrees, exact_posterior, pooled

# Start <= 12 and Age <= 100: where the box meets a node's region, no split on Number
# and none below 12 on Start or below 100 on Age
BOX = ("const_class_probs(b1, 'Start', -inf, 12).\n"
       "const_class_probs(b1, 'Age', -inf, 100).\n")


@pytest.fixture(scope="module")
def small():
    return load_csv(EXAMPLES / "kyphosis.csv").take(np.arange(20))


def box_model(ds, facts=BOX, **params):
    p = Program()
    p.consult_text((ROOT / "priors" / "boxes.slp").read_text() + "\n" + facts, "box.slp")
    p.set_param("min_leaf", 3)
    for k, v in params.items():
        p.set_param(k, v)
    p.attach_data(ds)
    return PosteriorModel(p, "cart(T)", TreeScorer(p, make_likelihood("dirichlet", ds)))


@pytest.fixture(scope="module")
def boxed(small):
    m = box_model(small)
    return m, exact_posterior(m)


def visits(m, spec, n_keep, thin, seed, temper=1):
    cfg = RunConfig(proposal=spec, temper=temper, ladder="paper", delta_t=0.2,
                    swap="random", iterations=n_keep * thin + 200, burn_in=200, thin=thin,
                    seed=seed, path="compiled")
    counts = Counter()

    def count(sw):
        if sw.kept:
            counts[sw.state.key] += 1
    run_chain(m, cfg, 0, [count])
    return counts


def test_a_box_prior_takes_the_compiled_path_without_the_exact_move(boxed):
    m, (_, post) = boxed
    cfg, why = resolve_path(m, RunConfig())
    assert cfg.path == "compiled" and cfg.proposal == BOX_MIXTURE, why
    assert len(post) > 400          # the posterior spreads over many trees
    with pytest.raises(RunError, match="no exact move under box constraints"):
        resolve_path(m, RunConfig(proposal="regrow:0.5,exact:1:0.5"))


@pytest.mark.parametrize("spec,thin,temper", [
    (BOX_MIXTURE, 20, 1), ("regrow", 20, 1), ("change:0.5,regrow:0.5", 25, 3),
    ("swap:0.4,regrow:0.6", 20, 1), ("perturb:1:0.5,regrow:0.5", 20, 3)])
def test_chains_visit_trees_with_the_exact_posterior_frequencies(boxed, spec, thin, temper):
    m, (_, post) = boxed
    assert chi2_pvalue(visits(m, spec, 3000, thin, seed=17, temper=temper), post) > 0.01


def test_the_same_chain_without_the_boxes_is_caught(boxed, small):
    # GROWTREE's own chain (no boxes) visits trees the box prior forbids
    m, (_, post) = boxed
    free = box_model(small, facts="")
    counts = visits(free, BOX_MIXTURE, 3000, 20, seed=17)
    assert not set(counts) <= set(post) or chi2_pvalue(counts, post) < 1e-4


def test_smc_evidence_under_boxes_equals_the_exact_one(boxed):
    m, (exact, _) = boxed
    cfg, _ = resolve_path(m, RunConfig(method="smc", temper=1))
    z, se = pooled(m, fast_path(cfg, m).particles(m, cfg), seed=3, steps=3)
    assert agrees(z, se, exact), (z, se, exact)


def test_a_tree_a_box_forbids_is_refused(small):
    boxes = np.array([[[-np.inf, -np.inf, -np.inf], [100.0, np.inf, 12.0]]])
    c = GrowtreeChain(small, 0.95, 1.0, 3, boxes=boxes)
    with pytest.raises(CompiledPathError, match="a box forbids the split Number"):
        c.set_tree([(1, 4.0), None, None])
    with pytest.raises(CompiledPathError, match="no exact move|exact move is not made"):
        c.run(10, np.random.default_rng(0), exact=0.5)


@pytest.mark.parametrize("facts,why", [
    ("const_class_probs(b1, colour, 1, 2).\n", "colour, which is not a feature"),
    ("const_class_probs(b1, 'Age', 1, 2).\nconst_class_probs(b1, 'Age', 3, 4).\n",
     "bounds Age twice")])
def test_boxes_the_path_cannot_read_stay_on_the_engine(small, facts, why):
    cfg, note = resolve_path(box_model(small, facts), RunConfig())
    assert cfg.path == "engine" and why in note
