"""Tempering: ladders, neighbour swaps, the self-tuning ladder, and tempered chains in
several processes giving the same run as one process."""
import math
from pathlib import Path

import numpy as np
import pytest
from click.testing import CliRunner

from slpy.cli import main
from slpy.mcmc.observers import SwapCounter
from slpy.mcmc.tempering import LadderTuner, ladder, propose_swaps, respace

from .test_run import run_dir_bytes

ROOT = Path(__file__).resolve().parents[2]


def test_ladders():
    assert ladder(1) == [1.0]
    assert ladder(4, "paper", 0.2) == pytest.approx([1, 1 / 1.2, 1 / 1.4, 1 / 1.6])
    g = ladder(5, "geometric", min_heat=0.01)
    assert g[0] == 1.0 and g[-1] == pytest.approx(0.01)
    assert np.allclose(np.diff(np.log(g)), math.log(0.01) / 4)
    for bad in (dict(kind="paper", delta_t=-1), dict(kind="geometric", min_heat=0),
                dict(kind="geometric", min_heat=1.5), dict(kind="spiral")):
        with pytest.raises(ValueError):
            ladder(3, **bad)


def test_neighbour_swaps_alternate_even_and_odd_pairs():
    rng = np.random.default_rng(0)
    hs = ladder(6, "geometric", min_heat=0.1)
    even = propose_swaps(rng, 0, [0.0] * 6, hs, "neighbours")
    odd = propose_swaps(rng, 1, [0.0] * 6, hs, "neighbours")
    assert [(i, j) for i, j, _, _ in even] == [(0, 1), (2, 3), (4, 5)]
    assert [(i, j) for i, j, _, _ in odd] == [(1, 2), (3, 4)]
    # equal likelihoods: every swap is accepted with probability 1
    assert all(ok and a == 1.0 for _, _, ok, a in even + odd)


def test_swap_acceptance_is_the_tempering_ratio():
    hs = [1.0, 0.5]
    # the colder chain holds the worse state: always accepted
    (_, _, ok, a), = propose_swaps(np.random.default_rng(0), 0, [-10.0, -4.0], hs,
                                    "neighbours")
    assert ok and a == 1.0
    # otherwise min(1, (L_j / L_i)^(b_i - b_j)) = exp(0.5 * -6)
    acc = [propose_swaps(np.random.default_rng(s), 0, [-4.0, -10.0], hs, "neighbours")[0]
           for s in range(4000)]
    assert acc[0][3] == pytest.approx(math.exp(-3))
    assert abs(np.mean([x[2] for x in acc]) - math.exp(-3)) < 0.01


def test_respacing_evens_out_the_rejection_rates():
    # rejection probability that grows like the heat gap times a local barrier density
    def rejection(hs):
        return np.array([min(1.0, 3.0 * (hs[i] - hs[i + 1]) * (1 + 4 * hs[i]))
                         for i in range(len(hs) - 1)])
    hs = ladder(8, "geometric", min_heat=0.05)
    before = rejection(hs)
    for _ in range(6):
        hs = respace(hs, rejection(hs))
    after = rejection(hs)
    assert hs[0] == 1.0 and hs[-1] == pytest.approx(0.05)
    assert all(a > b for a, b in zip(hs, hs[1:]))
    assert after.std() < 0.2 * before.std()


def test_the_tuner_respaces_at_the_end_of_doubling_rounds():
    hs = ladder(4, "geometric", min_heat=0.1)
    t = LadderTuner.start(4)
    ends = []
    for sweep in range(40):
        t, new = t.step(hs, [(0, 1, True, 0.9), (1, 2, False, 0.2), (2, 3, True, 0.6)],
                        sweep)
        if new is not None:
            ends.append(sweep + 1)
            hs = new
    assert ends == [2, 6, 14, 30]


def test_round_trips_count_arrivals_at_the_cold_end_from_the_hot_end():
    s = SwapCounter(3)
    for at in ([0, 1, 2], [1, 0, 2], [1, 2, 0], [2, 1, 0], [0, 1, 2]):
        s.travel(at)
    # replica 2 went hot -> cold (sweep 4), replica 0 went hot (sweep 3) -> cold (sweep 5)
    assert s.round_trips == 2


def test_tempered_chains_in_two_processes_are_the_chains_of_one(tmp_path):
    common = [str(ROOT / "priors" / "growtree.slp"), "--data",
              str(ROOT / "examples" / "data" / "kyphosis.csv"), "-n", "300", "--burn-in",
              "60", "--temper", "4", "--min-heat", "0.2", "--proposal",
              "uc:0.4,change:0.3,swap:0.1,exact:0.2", "--seed", "3", "--holdout", "0.2",
              "-q"]
    for jobs in ("1", "2"):
        r = CliRunner().invoke(main, ["run", *common, "--jobs", jobs, "--out",
                                      str(tmp_path / jobs)])
        assert r.exit_code == 0, r.output
    a, b = run_dir_bytes(tmp_path / "1"), run_dir_bytes(tmp_path / "2")
    a.pop("config.json"), b.pop("config.json")    # records --jobs itself
    assert a == b
    trace = (tmp_path / "1" / "chain_0" / "trace.csv").read_text().splitlines()
    assert len(trace) == 241 and trace[0].endswith(",swap")
