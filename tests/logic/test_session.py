"""engine.session() and engine.solutions(): the sampling fields set for one run and
restored after it, nested runs, and the stochastic choice points they drive."""
import math

import numpy as np
import pytest
from scipy.stats import chisquare

from slpy import Program
from slpy.logic.kinds import CP_CHOICE, CP_KIND, ENUM, PLAIN, PURE, SAMPLE, SampleFailed
from slpy.logic.session import FIELDS
from slpy.terms.term import deref


@pytest.fixture()
def prog():
    p = Program()
    p.consult_text("""
        0.5 :: coin(head).
        0.3 :: coin(tail).
        0.2 :: coin(edge).
        0.6 :: bit(0).
        0.4 :: bit(1).
        two(X, Y) :- coin(X), bit(Y).
        only_tail :- coin(tail).
    """)
    return p


def fields(eng):
    return {f: getattr(eng, f) for f in FIELDS}


def test_a_session_sets_the_fields_and_restores_them(prog):
    eng = prog.engine
    before = fields(eng)
    rng = np.random.default_rng(0)
    with eng.session(SAMPLE, rng, min_prob=0.1, record=True) as e:
        assert e is eng
        assert (eng.mode, eng.rng, eng.plog, eng.logp) == (SAMPLE, rng, None, 0.0)
        assert eng.min_prob == 0.1 and eng.record_answers
        goal, _ = prog.parse_query("coin(X)")
        assert next(eng.solve(goal))
        assert eng.plog is not None and eng.logp < 0
    assert fields(eng) == before


def test_a_session_is_restored_when_the_run_raises(prog):
    eng = prog.engine
    before = fields(eng)
    with pytest.raises(SampleFailed):
        with eng.session(PURE, np.random.default_rng(0)):
            goal, _ = prog.parse_query("only_tail")
            for seed in range(50):
                eng.rng = np.random.default_rng(seed)
                for _ in eng.solve(goal):
                    pass
    assert fields(eng) == before


def test_sessions_nest(prog):
    eng = prog.engine
    outer = np.random.default_rng(1)
    with eng.session(SAMPLE, outer):
        goal, _ = prog.parse_query("coin(X)")
        next(eng.solve(goal))
        plog, logp = eng.plog, eng.logp
        inner = [s.log_prob for s in eng.solutions(prog.parse_query("bit(Y)")[0], ENUM)]
        assert inner == pytest.approx([math.log(0.6), math.log(0.4)])
        assert (eng.mode, eng.rng, eng.plog, eng.logp) == (SAMPLE, outer, plog, logp)
    assert eng.mode == PLAIN and eng.rng is None


def test_solutions_enumerate_every_proof_with_its_probability(prog):
    goal, names = prog.parse_query("two(X, Y)")
    got = {}
    for s in prog.engine.solutions(goal, ENUM):
        got[(str(deref(names["X"])), deref(names["Y"]))] = math.exp(s.log_prob)
        assert [n.pred.name for n in s.tree] == ["coin", "bit"]
    assert got == pytest.approx({(c, b): pc * pb
                                 for c, pc in [("head", .5), ("tail", .3), ("edge", .2)]
                                 for b, pb in [(0, .6), (1, .4)]})


def test_min_prob_leaves_out_the_improbable_proofs(prog):
    goal, _ = prog.parse_query("two(X, Y)")
    probs = [math.exp(s.log_prob) for s in prog.engine.solutions(goal, ENUM, min_prob=0.1)]
    assert sorted(probs) == pytest.approx(sorted([0.3, 0.2, 0.18, 0.12, 0.12]))


def test_backtracking_into_a_drawn_choice_draws_among_the_untried(prog):
    # sampling with backtracking: the answers of coin(X) come in a random order without
    # repeats; the first answer is distributed as the labels
    goal, names = prog.parse_query("coin(X)")
    first = {"head": 0, "tail": 0, "edge": 0}
    for seed in range(600):
        order = []
        for s in prog.engine.solutions(goal, SAMPLE, np.random.default_rng(seed)):
            order.append(str(deref(names["X"])))
            if len(order) == 1:
                # the untried candidates wait in one CP_CHOICE
                assert [cp[CP_KIND] for cp in prog.engine.cps].count(CP_CHOICE) == 1
        assert sorted(order) == ["edge", "head", "tail"]
        first[order[0]] += 1
    assert chisquare(list(first.values()), [300, 180, 120]).pvalue > 1e-3


def test_pure_sampling_fails_when_a_draw_does_not_unify(prog):
    # pure SLP semantics: only_tail succeeds with probability 0.3
    eng = prog.engine
    goal, _ = prog.parse_query("only_tail")
    ok = 0
    for seed in range(500):
        hit, _, logp = eng.run_sampling(goal, np.random.default_rng(seed), PURE)
        if hit:
            ok += 1
            assert logp == pytest.approx(math.log(0.3))
    assert chisquare([ok, 500 - ok], [150, 350]).pvalue > 1e-3
    # backtrackable sampling always finds it
    assert all(eng.run_sampling(goal, np.random.default_rng(s))[0] for s in range(20))
