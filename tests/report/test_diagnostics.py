"""slpy.diagnostics: rank-normalised split R-hat, bulk and tail ESS against ArviZ and against
closed forms."""
import json
import math
import warnings

import numpy as np
import pytest

from slpy.diagnostics import (RHAT_LIMIT, equal_length, ess, ess_tail, rhat,
                              trace_diagnostics)


def _ar1(rng, chains, n, rho, shift=None):
    x = np.empty((chains, n))
    x[:, 0] = rng.normal(size=chains) / math.sqrt(1 - rho ** 2)
    for t in range(1, n):
        x[:, t] = rho * x[:, t - 1] + rng.normal(size=chains)
    if shift is not None:
        x += np.asarray(shift)[:, None]
    return x


def _cases():
    rng = np.random.default_rng(20210)
    return {
        "iid normal": rng.normal(size=(4, 500)),
        "ar1 0.9": _ar1(rng, 3, 801, 0.9),
        "random walk": np.cumsum(rng.normal(size=(2, 300)), axis=1),
        "one chain shifted": rng.normal(size=(3, 200)) + np.array([[0.0], [0.0], [1.5]]),
        "odd length": rng.standard_t(3, size=(3, 101)),
        "discrete with ties": rng.integers(0, 4, size=(3, 1000)).astype(float),
        # tied values that are not whole numbers: ArviZ's 5% quantile (scipy's
        # mquantiles) of this block of 1/3s is an ulp off 1/3, numpy's is 1/3, and the
        # tail indicators (x <= q) differ (tail ESS 774 with numpy's, 821 with ArviZ's)
        "probabilities with ties": np.random.default_rng(0).choice(
            [0.123456789, 1 / 3, 2 / 3], size=(3, 259), p=[0.02, 0.5, 0.48]),
        "log-lik like": -60 - rng.exponential(5, size=(5, 400)).cumsum(axis=1) / 400,
        "short": rng.normal(size=(2, 5)),
    }


@pytest.mark.parametrize("name", list(_cases()))
def test_rhat_and_ess_match_arviz(name):
    az = pytest.importorskip("arviz")
    x = _cases()[name]
    with warnings.catch_warnings():
        warnings.simplefilter("ignore")
        want_r, want_e = float(az.rhat(x)), float(az.ess(x))
        want_t = float(az.ess(x, method="tail"))
    assert rhat(x) == pytest.approx(want_r, rel=1e-10, abs=1e-12)
    assert ess(x) == pytest.approx(want_e, rel=1e-10)
    assert ess_tail(x) == pytest.approx(want_t, rel=1e-10)


def test_one_chain_has_ess_but_no_rhat():
    az = pytest.importorskip("arviz")
    x = np.random.default_rng(3).normal(size=(1, 400))
    with warnings.catch_warnings():
        warnings.simplefilter("ignore")
        assert ess(x) == pytest.approx(float(az.ess(x)), rel=1e-10)
    assert math.isnan(rhat(x))
    assert ess(x[0]) == ess(x)          # a 1-d array is one chain


def test_stuck_chains_give_inf_and_constant_draws_nan():
    # every chain stuck at its own value: between-chain variance with none within.
    # (ArviZ gives inf too without numba; its numba variance rounds to nan.)
    stuck = np.repeat(np.array([[1.0], [2.0], [3.0]]), 50, axis=1)
    assert rhat(stuck) == math.inf
    assert math.isnan(rhat(np.ones((3, 50))))
    assert ess(np.ones((3, 50))) == 150        # nothing to correlate: all draws count
    assert math.isnan(rhat(np.full((2, 10), np.nan)))


def test_ess_of_closed_forms():
    rng = np.random.default_rng(7)
    # independent draws: ESS about the number of draws
    assert ess(rng.normal(size=(4, 5000))) == pytest.approx(20000, rel=0.05)
    # AR(1) with coefficient rho: ESS = S (1 - rho) / (1 + rho)
    rho = 0.8
    x = _ar1(rng, 4, 20000, rho)
    assert ess(x) == pytest.approx(80000 * (1 - rho) / (1 + rho), rel=0.1)
    assert rhat(x) < 1.005


def test_rhat_flags_chains_that_disagree():
    rng = np.random.default_rng(11)
    good = rng.normal(size=(4, 1000))
    bad = good + np.array([0.0, 0.0, 0.0, 0.5])[:, None]
    assert rhat(good) < RHAT_LIMIT < rhat(bad)


def test_trace_diagnostics_is_json_safe():
    ok = np.random.default_rng(5).normal(size=(3, 100))
    d = trace_diagnostics({"ok": ok,
                           "stuck": np.repeat(np.array([[1.0], [2.0], [3.0]]), 100, axis=1),
                           "const": np.zeros((3, 100))})
    assert d["stuck"]["rhat"] is None and d["const"]["rhat"] is None
    assert d["rhat_warning"] == ["stuck"]
    assert d["ok"] == {"rhat": round(rhat(ok), 6), "ess_bulk": round(ess(ok), 2),
                       "ess_tail": round(ess_tail(ok), 2)}
    json.loads(json.dumps(d, allow_nan=False))


def test_equal_length_cuts_to_the_shortest():
    x = equal_length([np.arange(5), np.arange(3), np.arange(4)])
    assert x.shape == (3, 3) and (x[0] == [0, 1, 2]).all()


def test_ranks_and_normal_quantiles_are_scipy_stats_to_the_bit():
    # diagnostics does without scipy.stats (half a second to import): its own average
    # ranks and scipy.special's ndtri must give what rankdata and norm.ppf give
    from scipy import special, stats
    from slpy.diagnostics import _average_ranks
    rng = np.random.default_rng(7)
    for trial in range(200):
        n = int(rng.integers(1, 400))
        x = (rng.integers(0, int(rng.integers(1, 12)), size=n).astype(float) if trial % 2
             else rng.normal(size=n))
        r = _average_ranks(x)
        assert np.array_equal(r, stats.rankdata(x, method="average")), trial
        q = (r - 0.375) / (n + 0.25)
        assert np.array_equal(special.ndtri(q), stats.norm.ppf(q)), trial
    assert _average_ranks(np.array([[3.0, 1.0], [3.0, 2.0]])).tolist() == [3.5, 1, 3.5, 2]
