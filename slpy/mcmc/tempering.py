"""Parallel tempering: a ladder of heats, swaps between chains, and a ladder that tunes
itself during burn-in.

K replicas run at heats 1 = b_0 > b_1 > ... > b_{K-1} (> 0), each targeting
prior x likelihood^b. A swap of the states at levels i and j is accepted with
min(1, (L_j / L_i)^(b_i - b_j)); swapping states is the same as swapping the replicas'
heats, which is what is done here (a replica keeps its state and its random
generator, so replicas can live in separate processes). Only the state at level 0
(heat 1) is a sample of the posterior.

Swap schemes:

- ``neighbours`` (the default): the deterministic even-odd scheme of Syed, Bouchard-
  Cote, Deligiannidis & Doucet (2022, non-reversible parallel tempering): after even
  sweeps every pair (0,1), (2,3), ... is proposed, after odd sweeps (1,2), (3,4), ....
  A state then travels up and down the ladder in O(K) sweeps rather than O(K^2).
- ``random``: one pair of levels drawn at random after every sweep, as in Angelopoulos
  & Cussens (ICML 2005, section 5).

Ladders: ``paper`` is b_i = 1 / (1 + dT i) (ICML 2005); ``geometric`` spaces the
heats evenly in log from 1 down to ``min_heat``.

Self-tuning (``adapt``): during burn-in the ladder is re-spaced at the end of rounds of
doubling length (Syed et al. 2022, section 5.1): the mean rejection probability r_i of
each neighbouring pair estimates the communication barrier Lambda(b) = sum of r_i
below b, and the new heats split Lambda into K - 1 equal parts (monotone
interpolation in b), which makes the swap rates even. The two ends stay where they
are. After burn-in the ladder is frozen: an adaptation that went on would make the
chain's transition depend on its whole past, so its samples would not be those of a
Markov chain with the posterior as its stationary law; burn-in samples are not kept.
"""
from __future__ import annotations

import math
from dataclasses import dataclass, field

import numpy as np

from .kernel import accept

__all__ = ["ladder", "SwapStats", "propose_swaps", "LadderTuner", "SCHEMES", "LADDERS"]

SCHEMES = ("neighbours", "random")
LADDERS = ("paper", "geometric")


def ladder(k: int, kind: str = "paper", delta_t: float = 0.2,
           min_heat: float | None = None) -> list[float]:
    """The initial heats, cold first."""
    if k < 1:
        raise ValueError("the number of tempered chains must be at least 1")
    if k == 1:
        return [1.0]
    if kind == "paper":
        if not delta_t > 0:
            raise ValueError(f"--delta-t must be a positive number, not {delta_t}")
        return [1.0 / (1.0 + delta_t * i) for i in range(k)]
    if kind == "geometric":
        lo = 1.0 / (1.0 + delta_t * (k - 1)) if min_heat is None else float(min_heat)
        if not 0 < lo < 1:
            raise ValueError(f"the hottest heat must lie in (0, 1), not {lo}")
        return [float(lo ** (i / (k - 1))) for i in range(k)]
    raise ValueError(f"unknown ladder {kind!r} (use {' or '.join(LADDERS)})")


@dataclass
class SwapStats:
    """Swaps proposed and accepted per pair of levels ("i-j"), and round trips: how
    many times a replica reached the cold level having last been at the hottest one
    (each brings the cold chain a state from the hot end of the ladder)."""
    k: int = 1
    proposed: dict = field(default_factory=dict)
    accepted: dict = field(default_factory=dict)
    round_trips: int = 0
    _last: list = None      # per replica: +1 last at the hot end, -1 at the cold end

    def travel(self, at: list) -> None:
        """Called after each sweep's swaps with at[level] = replica."""
        if self.k < 2:
            return
        if self._last is None:
            self._last = [0] * self.k
        last = self._last
        cold, hot = at[0], at[-1]
        if last[cold] == 1:
            self.round_trips += 1
        last[cold] = -1
        last[hot] = 1

    def add(self, i: int, j: int, ok: bool) -> None:
        key = f"{i}-{j}"
        self.proposed[key] = self.proposed.get(key, 0) + 1
        self.accepted[key] = self.accepted.get(key, 0) + int(ok)

    def rates(self) -> dict:
        return {k: self.accepted[k] / n for k, n in sorted(self.proposed.items()) if n}


def propose_swaps(rng, sweep: int, log_liks: list, heats: list, scheme: str):
    """Swaps after sweep `sweep`: log_liks[i] is the log-likelihood of the state at
    level i. Returns [(i, j, accepted, acceptance probability)]; the caller exchanges
    the replicas of the accepted pairs, in order."""
    k = len(heats)
    if k < 2:
        return []
    if scheme == "random":
        i = min(int(rng.random() * k), k - 1)
        j = min(int(rng.random() * (k - 1)), k - 2)
        if j >= i:
            j += 1
        i, j = min(i, j), max(i, j)
        pairs = [(i, j)]
    else:
        pairs = [(i, i + 1) for i in range(sweep % 2, k - 1, 2)]
    out = []
    for i, j in pairs:
        log_a = (heats[i] - heats[j]) * (log_liks[j] - log_liks[i])
        out.append((i, j, accept(rng, log_a), math.exp(min(0.0, log_a))))
    return out


class LadderTuner:
    """Re-spaces a ladder at the end of rounds of doubling length (2, 4, 8, ...
    sweeps), from the mean rejection probability of each neighbouring pair over the
    round. `update(sweep)` returns new heats when a round ends, else None."""

    def __init__(self, heats: list[float], first_round: int = 2):
        self.k = len(heats)
        self.heats = list(heats)
        self.round_len = first_round
        self.round_end = first_round
        self._reset()

    def _reset(self):
        self.rej = np.zeros(max(self.k - 1, 0))
        self.n = np.zeros(max(self.k - 1, 0))

    def observe(self, swaps) -> None:
        for i, j, _, a in swaps:
            if j == i + 1:
                self.rej[i] += 1.0 - a
                self.n[i] += 1

    def update(self, sweep: int):
        """Call after each sweep (0-based); new heats at the end of a round."""
        if sweep + 1 < self.round_end or self.k < 3:
            return None
        self.round_len *= 2
        self.round_end = sweep + 1 + self.round_len
        if (self.n == 0).any():
            return None
        new = respace(self.heats, self.rej / self.n)
        self._reset()
        self.heats = new
        return new


def respace(heats: list[float], rejection: np.ndarray) -> list[float]:
    """Heats that split the estimated communication barrier into equal parts.

    Lambda is piecewise linear in b through (b_i, cumulative rejection from the hot
    end); the new b_i solve Lambda(b_i) = Lambda_total (K - 1 - i) / (K - 1)."""
    b = np.asarray(heats, dtype=float)[::-1]           # increasing: hottest first
    r = np.maximum(np.asarray(rejection, dtype=float)[::-1], 1e-6)
    lam = np.concatenate([[0.0], np.cumsum(r)])
    k = len(b)
    targets = lam[-1] * np.arange(k) / (k - 1)
    new = np.interp(targets, lam, b)
    new[0], new[-1] = b[0], b[-1]
    new = np.maximum.accumulate(new)                   # monotone against rounding
    return [float(x) for x in new[::-1]]
