"""The sampler check (slpy.mcmc.check, `slpy check --sampler`): every bundled prior's
moves pass it on a small instance, and deliberately wrong corrections of fresh and
dropped choices fail it (p < 1e-4)."""
import math
from pathlib import Path

import numpy as np
import pytest
from click.testing import CliRunner

from slpy import Program
from slpy.cli import main
from slpy.family import get as get_family
from slpy.mcmc.check import (ALPHA, check_move, check_sampler, chi2_test,
                              compiled_checks, enumerate_target)
from slpy.mcmc.check_cli import build_check_model, _small_csv
from slpy.mcmc.config import RunConfig
from slpy.mcmc.kernel import build_kernel
from slpy.mcmc.model import PosteriorModel
from slpy.mcmc.moves import Move
from slpy.mcmc.proposal import make_proposal

ROOT = Path(__file__).resolve().parents[2]
PRIORS = ROOT / "priors"
DATA = ROOT / "examples" / "data"

DEPENDENT = """
0.5 :: c(1).
0.5 :: c(2).
top(X-Y) :- c(X), g(X, Y).
g(1, 0).
g(2, Y) :- c(Y).

0.6 :: n(sg).
0.4 :: n(pl).
0.3 :: v(sg, a).
0.2 :: v(pl, b).
0.5 :: v(_, c).
0.5 :: w(sg) :- n(_).
0.5 :: w(pl).
agree(N-M-W) :- n(N), v(N, M), w(W), [N] :: z(W).
0.5 :: [sg] :: z(_).
0.5 :: [_] :: z(pl).

% v(sg, _) matches clauses of weight 0.8 in all: under c = 1 the proof carries that
% gap, under c = 2 it does not
pick(X-Y) :- c(X), h(X, Y).
h(1, Y) :- v(sg, Y).
h(2, Y) :- n(Y).
"""

BOXES = """
const_class_probs(box1, 'Age', -inf, 60).
"""


def _tree_model(prior, rows, params, extra=None, columns=None, csv="kyphosis.csv"):
    small = _small_csv(str(DATA / csv), rows, columns)
    try:
        cfg = RunConfig(prior=str(PRIORS / prior), data=small, params=params,
                        family="tree").resolved()
        fam = get_family("tree")
        train, _ = fam.load_data(cfg)
    finally:
        Path(small).unlink()
    p = Program()
    p.consult(PRIORS / prior)
    if extra:
        p.consult_text(extra, "extra.slp")
    for k, v in params.items():
        p.set_param(k, p.parse_query(v)[0])
    return PosteriorModel(p, "cart(T)", fam.bind(p, train, cfg))


# each bundled prior on an instance small enough to enumerate (a few hundred proofs)
INSTANCES = {
    "growtree": lambda: _tree_model("growtree.slp", 12, {"min_leaf": "3"}),
    "depth": lambda: _tree_model("depth.slp", 12, {"min_leaf": "3"}),
    "boxes": lambda: _tree_model("boxes.slp", 12, {"min_leaf": "3"}, BOXES),
    "phi": lambda: _tree_model("phi.slp", 10, {"min_leaf": "3"}),
    "edittree": lambda: _tree_model("edittree.slp", 12, {
        "min_leaf": "3", "continue": "0", "initial_tree": "node('Age', 100, leaf, leaf)"}),
    "bn": lambda: build_check_model(str(PRIORS / "bn.slp"), str(DATA / "asia.csv"), None,
                                    {}, None, None, columns=["asia", "tub", "smoke"]),
    "bn_expert": lambda: build_check_model(str(PRIORS / "bn_expert.slp"),
                                           str(DATA / "asia.csv"), None, {}, None, None,
                                           columns=["asia", "tub", "smoke"]),
    "crp": lambda: build_check_model(str(PRIORS / "crp.slp"),
                                     str(DATA / "iris_petals.csv"), 6, {}, None, None),
    "crp_bounded": lambda: build_check_model(
        str(PRIORS / "crp_bounded.slp"), str(DATA / "iris_petals.csv"), 6,
        {"max_clusters": "3", "cannot_link": "[1-2]"}, None, None),
}


@pytest.fixture(scope="module", params=sorted(INSTANCES))
def instance(request):
    m = INSTANCES[request.param]()
    return request.param, m, enumerate_target(m)


def test_every_bundled_prior_has_an_instance():
    shipped = {p.stem for p in PRIORS.glob("*.slp")}
    missing = shipped - set(INSTANCES)
    assert not missing, f"no sampler-check instance for {sorted(missing)}"


def test_the_default_mixture_is_exact_on_every_bundled_prior(instance):
    name, m, t = instance
    assert 2 <= t.n_proofs <= 3000 and t.unreplayable == 0
    r = check_sampler(m, ["default"], heats=(1.0,), n=1500, steps=2, seed=3, target=t)
    c = r.checks[0]
    assert c.p_value > 0.01 and c.outside == 0, c.line()
    assert c.moved > 0.05, f"{name}: the default mixture hardly moves ({c.line()})"


@pytest.mark.slow
def test_every_move_is_exact_on_every_bundled_prior(instance):
    name, m, t = instance
    r = check_sampler(m, heats=(0.0, 1.0), n=3000, steps=2, seed=5, target=t)
    bad = [c.line() for c in r.checks if not c.passed]
    assert not bad, f"{name}:\n" + "\n".join(bad)


@pytest.mark.parametrize("name", ["growtree", "boxes", "bn"])
def test_the_check_covers_the_compiled_path(name):
    m = INSTANCES[name]()
    t = enumerate_target(m)
    checks = dict(compiled_checks(m))
    if name == "bn":
        assert list(checks) == ["compiled sweep"]
    else:
        assert list(checks)[0] == "compiled default" and "compiled regrow" in checks
        assert ("compiled exact:1" in checks) == (name == "growtree")
    label = "compiled sweep" if name == "bn" else "compiled regrow"
    c = check_move(m, t, label, 1.0, np.random.default_rng(2), n=1500, steps=2,
                   particles=checks[label])
    assert c.passed and c.moved > 0.05, c.line()
    if name == "boxes":
        return      # on 12 rows under the box, heats 0 and 1 are too close to tell apart

    class AtHeatOne:                        # the moves of heat 1 where heat 0 is asked
        def __init__(self, parts):
            self.parts, self.from_term = parts, parts.from_term

        def move(self, rng, p, heat, steps, it):
            return self.parts.move(rng, p, 1.0, steps, it)
    wrong = AtHeatOne(checks[label])
    c = check_move(m, t, label, 0.0, np.random.default_rng(2), n=1500, steps=2,
                   particles=wrong)
    assert c.p_value < ALPHA, c.line()


# -- deliberately wrong corrections are caught ----------------------------------------------
def _uc(model, how):
    """uc with one part of its acceptance ratio wrong."""
    prop = make_proposal("uc")

    def propose(rng, state, it, heat):
        cut = prop.cut(rng, state, it)
        new, r = model.regrow(state, cut, rng)
        if new is None:
            return None, -math.inf
        ratio = prop.log_ratio(state, new) + r.log_correction
        if how == "reject fresh outside the cut":     # the rule DESIGN.md used to have
            below = r.tree.nodes_by_path()[cut].size() + 1
            if r.n_fresh > below:
                return None, -math.inf
        elif how == "fresh choices not counted":
            ratio += r.fresh_logp
        elif how == "dropped choices not counted":
            ratio -= r.stale_logp()
        elif how == "normaliser gap ignored":
            ratio -= r.fresh_lam - r.stale_lam
        return new, ratio
    return Move(f"uc ({how})", propose)


@pytest.fixture(scope="module")
def dependent():
    p = Program()
    p.consult_text(DEPENDENT)
    out = {}
    for q in ("top(T)", "agree(T)", "pick(T)"):
        m = PosteriorModel(p, q)
        out[q] = (m, enumerate_target(m))
    return out


@pytest.mark.parametrize("query,how", [
    ("top(T)", "reject fresh outside the cut"),
    ("top(T)", "fresh choices not counted"),
    ("top(T)", "dropped choices not counted"),
    ("agree(T)", "fresh choices not counted"),
    ("agree(T)", "dropped choices not counted"),
    ("pick(T)", "normaliser gap ignored"),
])
def test_a_wrong_correction_is_caught(dependent, query, how):
    m, t = dependent[query]
    wrong = build_kernel(m, [(_uc(m, how), 1.0)])
    c = check_move(m, t, how, 0.0, np.random.default_rng(0), n=8000, steps=3, kernel=wrong)
    assert c.p_value < 1e-4, c.line()
    right = check_move(m, t, "uc", 0.0, np.random.default_rng(0), n=8000, steps=3)
    assert right.p_value > 0.01, right.line()


def test_the_dropped_choices_bookkeeping_equals_a_walk(dependent):
    # stale_lam is kept by counting matched nodes; Replayed.dropped() walks both trees
    m, t = dependent["agree(T)"]
    rng = np.random.default_rng(4)
    seen = 0
    for i in range(300):
        s = t.states[i % len(t.states)]
        cut = s.tree.nth(int(rng.integers(s.d))).path if rng.random() < 0.7 else ()
        new, r = m.regrow(s, cut, rng)
        if new is None:
            continue
        walked = sum(n.lam for n in r.dropped())
        assert r.stale_lam == pytest.approx(walked, abs=1e-12)
        seen += walked != 0
    assert seen > 20


def test_chi2_pools_rare_cells_in_order_of_probability():
    probs = {f"m{i}": 1 / 500 for i in range(500)}
    even = {k: 4 for k in probs}
    p, tv, out = chi2_test(even, probs)
    assert p > 0.99 and out == 0 and tv < 1e-12
    skewed = {k: (8 if i < 250 else 0) for i, k in enumerate(probs)}
    assert chi2_test(skewed, probs)[0] < 1e-10


# -- the command line -------------------------------------------------------------------------
def test_slpy_check_sampler_prints_a_table_and_a_verdict(tmp_path):
    f = tmp_path / "dep.slp"
    f.write_text(DEPENDENT)
    r = CliRunner().invoke(main, ["check", "--sampler", str(f), "--query", "top(T)",
                                  "--draws", "1000", "--proposal", "uc",
                                  "--proposal", "change"])
    assert r.exit_code == 0, r.output
    lines = r.output.splitlines()
    assert lines[0] == "3 proofs, 3 models"
    assert lines[1].startswith("uc ") and lines[2].startswith("change ")
    assert lines[-1] == "every move is exact here (2 checks)"


@pytest.mark.parametrize("args,code,msg", [
    (["--sampler", "PRIOR"], 2, "--query"),
    (["--sampler", "PRIOR", "--query", "top(T)", "--proposal", "sideways"], 2,
     "unknown proposal"),
    (["--sampler", "PRIOR", "PRIOR"], 2, "one file"),
    (["PRIOR", "--query", "top(T)"], 2, "options of --sampler"),
    (["--sampler", str(PRIORS / "growtree.slp"), "--data", str(DATA / "kyphosis.csv")],
     2, "smaller instance"),
])
def test_slpy_check_sampler_errors_are_one_line(tmp_path, args, code, msg):
    f = tmp_path / "dep.slp"
    f.write_text(DEPENDENT)
    args = [str(f) if a == "PRIOR" else a for a in args]
    r = CliRunner().invoke(main, ["check", *args])
    assert r.exit_code == code, r.output
    assert msg in r.output and "Traceback" not in r.output
    assert len([x for x in r.output.splitlines() if x.startswith("Error")]) == 1
