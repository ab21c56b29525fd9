"""Convergence diagnostics for several chains: rank-normalised split R-hat, bulk and
tail ESS.

Vehtari, Gelman, Simpson, Carpenter & Buerkner (2021), "Rank-normalization, folding,
and localization: an improved R-hat for assessing convergence of MCMC", Bayesian
Analysis 16(2). These are ArviZ's defaults (``arviz.rhat(x)``, method "rank", and
``arviz.ess(x)``, method "bulk"); tests/report/test_diagnostics.py checks them against
ArviZ. Only numpy and SciPy are needed.

``x`` has shape (n_chains, n_draws). With S = n_chains * n_draws:

- *split*: each chain's first and last n_draws // 2 draws become two chains (the
  middle draw of an odd length is dropped), so a chain that drifts shows up.
- *rank-normalise*: z = Phi^-1((r - 3/8) / (S - 3/4 + 1)), r the average rank of a draw
  among all draws (Blom's offset), Phi the standard normal CDF.
- *R-hat* of m chains of n draws: sqrt(((n - 1)/n W + B/n) / W), B = n var(chain means),
  W = mean of the chains' variances (both with ddof 1).
- *rank R-hat* = max(R-hat(z(split x)), R-hat(z(|split x - median|))): the bulk and the
  folded (tail) versions.
- *tail ESS* = the smaller ESS of the split indicators of x at or below its 5% and its
  95% quantile (without rank-normalising): how well the chains know the tails.
- *bulk ESS* = S / tau for z(split x), tau = -1 + 2 sum_t rho_t, the autocorrelations
  rho_t combined across chains and summed with Geyer's initial positive and
  monotone sequence; tau is at least 1 / log10(S).

A chain stuck at one value while another is elsewhere gives R-hat = inf; draws that are
all equal give nan (nothing to compare).

One chain: ESS as ArviZ's. ArviZ gives no R-hat (nan) and neither does ``rhat(x)``;
``rhat(x, min_chains=1)`` compares the chain's two halves, as the split R-hat of Stan
(posterior::rhat, stansummary) does: a chain that drifts shows, one stuck in one mode
of several does not.
"""
from __future__ import annotations

import math

import numpy as np

# SciPy is imported where it is used: scipy.stats alone takes half a second to import
# and a run needs none of it before its chains have drawn

__all__ = ["rhat", "ess", "ess_tail", "RHAT_LIMIT", "trace_diagnostics", "equal_length"]

#: R-hat above this suggests the chains have not mixed (Vehtari et al. 2021).
RHAT_LIMIT = 1.01


def _as_chains(x, min_chains: int) -> np.ndarray | None:
    a = np.asarray(x, dtype=float)
    if a.ndim == 1:
        a = a[None, :]
    if a.ndim != 2:
        raise ValueError(f"x must have shape (n_chains, n_draws), not {a.shape}")
    if a.shape[0] < min_chains or a.shape[1] < 4 or not np.isfinite(a).all():
        return None
    return a


def _split(a: np.ndarray) -> np.ndarray:
    half = a.shape[1] // 2
    return np.vstack([a[:, :half], a[:, a.shape[1] - half:]])


def _average_ranks(a: np.ndarray) -> np.ndarray:
    """1-based ranks of the flattened a, ties sharing their average rank (as
    scipy.stats.rankdata(a, method="average"), to the bit: each is k/2 of an integer k)."""
    x = a.ravel()
    order = np.argsort(x, kind="mergesort")
    s = x[order]
    new = np.r_[True, s[1:] != s[:-1]]           # the first of each run of equal values
    dense = np.cumsum(new)[np.argsort(order, kind="mergesort")]
    count = np.r_[np.nonzero(new)[0], len(x)]    # 0-based start of each run, then n
    return 0.5 * (count[dense] + count[dense - 1] + 1)


def _z_scale(a: np.ndarray) -> np.ndarray:
    from scipy.special import ndtri      # = scipy.stats.norm.ppf, without scipy.stats
    r = _average_ranks(a).reshape(a.shape)
    return ndtri((r - 0.375) / (a.size - 0.75 + 1.0))


def _rhat_classic(a: np.ndarray) -> float:
    n = a.shape[1]
    b = n * np.var(a.mean(axis=1), ddof=1)
    v = np.var(a, axis=1, ddof=1)
    v[np.ptp(a, axis=1) == 0] = 0.0   # a constant chain: exactly 0, not rounding noise
    w = np.mean(v)
    with np.errstate(divide="ignore", invalid="ignore"):
        return float(np.sqrt((b / w + n - 1) / n))


def rhat(x: np.ndarray, min_chains: int = 2) -> float:
    """Rank-normalised split R-hat of draws x[chain, draw] (nan with fewer than
    `min_chains` chains or 4 draws, or non-finite draws; min_chains=1: one chain's
    halves are compared)."""
    a = _as_chains(x, min_chains)
    if a is None:
        return math.nan
    s = _split(a)
    bulk = _rhat_classic(_z_scale(s))
    tail = _rhat_classic(_z_scale(np.abs(s - np.median(s))))
    return float(max(bulk, tail))     # nan when both are nan


def _autocov(a: np.ndarray) -> np.ndarray:
    """Autocovariance of each row at every lag (FFT, biased: divided by n)."""
    from scipy import fft
    n = a.shape[1]
    c = a - a.mean(axis=1, keepdims=True)
    f = fft.rfft(c, n=fft.next_fast_len(2 * n), axis=1)
    return fft.irfft(f * np.conjugate(f), axis=1, n=fft.next_fast_len(2 * n))[:, :n] / n


def _ess_raw(a: np.ndarray) -> float:
    """Effective sample size of the draws a[chain, draw] as they are."""
    m, n = a.shape
    if np.max(a) - np.min(a) < np.finfo(float).resolution:
        return float(a.size)
    acov = _autocov(a)
    mean_var = np.mean(acov[:, 0]) * n / (n - 1.0)
    var_plus = mean_var * (n - 1.0) / n
    if m > 1:
        var_plus += np.var(a.mean(axis=1), ddof=1)

    # every lag's mean over the chains at once (a np.mean a lag was most of the time);
    # each row summed as np.mean sums a column, so the figures stay the same to the bit
    lag_mean = np.ascontiguousarray(acov.T).mean(axis=1)
    rhos = (1.0 - (mean_var - lag_mean) / var_plus).tolist()

    def rho(t):
        return rhos[t]

    r = np.zeros(n)
    r[0], r[1] = 1.0, rho(1)
    even, odd = 1.0, r[1]
    # Geyer's initial positive sequence: sum pairs while they are positive
    t = 1
    while t < n - 3 and even + odd > 0.0:
        even, odd = rho(t + 1), rho(t + 2)
        if even + odd >= 0:
            r[t + 1], r[t + 2] = even, odd
        t += 2
    max_t = t - 2
    if even > 0:
        r[max_t + 1] = even
    # Geyer's initial monotone sequence: pair sums must not increase
    t = 1
    while t <= max_t - 2:
        if r[t + 1] + r[t + 2] > r[t - 1] + r[t]:
            r[t + 1] = r[t + 2] = (r[t - 1] + r[t]) / 2.0
        t += 2
    tau = -1.0 + 2.0 * np.sum(r[:max_t + 1]) + np.sum(r[max_t + 1:max_t + 2])
    tau = max(tau, 1.0 / np.log10(a.size))
    if np.isnan(r).any():
        return math.nan
    return float(a.size / tau)


def ess(x: np.ndarray) -> float:
    """Bulk effective sample size of draws x[chain, draw] (nan with fewer than 4
    draws or non-finite draws)."""
    a = _as_chains(x, 1)
    if a is None:
        return math.nan
    return _ess_raw(_z_scale(_split(a)))


def _quantile(a: np.ndarray, p: float) -> float:
    """The p-quantile of all draws as ArviZ takes it (scipy's mquantiles, R's type 7,
    with its arithmetic): numpy's can differ in the last bit, which on tied draws
    moves the tail indicators (x <= q)."""
    x = np.sort(a, axis=None)
    n = x.shape[0]
    aleph = n * p + (1.0 + p * (1.0 - 1.0 - 1.0))
    k = int(math.floor(min(max(aleph, 1), n - 1)))
    gamma = min(max(aleph - k, 0.0), 1.0)
    return (1.0 - gamma) * x[k - 1] + gamma * x[k]


def ess_tail(x: np.ndarray) -> float:
    """Tail effective sample size of draws x[chain, draw]: the smaller ESS of the
    split indicators of x <= its 5% and its 95% quantile (ArviZ's
    method "tail"); nan as ess()."""
    a = _as_chains(x, 1)
    if a is None:
        return math.nan
    return min(_ess_raw(_split((a <= _quantile(a, q)).astype(float)))
               for q in (0.05, 0.95))


def trace_diagnostics(traces: dict, min_chains: int = 2) -> dict:
    """R-hat, bulk and tail ESS of each named trace {name: array (n_chains, n_draws)}
    (R-hat with at least `min_chains` chains: rhat()).

    Returns {name: {"rhat": float | None, "ess_bulk": ..., "ess_tail": ...}} (None for
    nan or inf, which JSON cannot hold) and "rhat_warning": the names whose R-hat is
    above RHAT_LIMIT (inf included), for the summaries of runs and reports.
    """
    out: dict = {}
    warn = []
    for name, x in traces.items():
        r, e, t = rhat(x, min_chains), ess(x), ess_tail(x)
        if r > RHAT_LIMIT:            # False for nan, True for inf
            warn.append(name)
        out[name] = {"rhat": round(r, 6) if math.isfinite(r) else None,
                     "ess_bulk": round(e, 2) if math.isfinite(e) else None,
                     "ess_tail": round(t, 2) if math.isfinite(t) else None}
    out["rhat_warning"] = warn
    return out


def equal_length(chains: list) -> np.ndarray:
    """Stack 1-d chains into (n_chains, n_draws), cutting all to the shortest (an
    interrupted chain may be shorter)."""
    n = min(len(c) for c in chains)
    return np.vstack([np.asarray(c, dtype=float)[:n] for c in chains])
