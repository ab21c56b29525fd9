"""Parallel tempering's arithmetic: a ladder of heats, swaps between levels, and a
ladder that tunes itself during burn-in (the kernel that uses them: slpy.mcmc.tempered).

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
from dataclasses import dataclass, replace

import numpy as np

from .proposal import accept

__all__ = ["ladder", "propose_swaps", "LadderTuner", "respace", "SCHEMES", "LADDERS"]

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


@dataclass(frozen=True)
class LadderTuner:
    """Re-spaces a ladder at the end of rounds of doubling length (2, 4, 8, ...
    sweeps), from the mean rejection probability of each neighbouring pair over the
    round. Immutable: :meth:`step` returns the next tuner."""
    k: int
    round_len: int
    round_end: int
    rej: tuple              # per neighbouring pair: summed rejection probabilities
    n: tuple                # ... and swaps proposed, this round

    @classmethod
    def start(cls, k: int, first_round: int = 2) -> "LadderTuner":
        zeros = (0.0,) * max(k - 1, 0)
        return cls(k, first_round, first_round, zeros, zeros)

    def step(self, heats, swaps, sweep: int):
        """After sweep `sweep` (0-based) with these swaps: (next tuner, new heats at
        the end of a round, else None)."""
        rej, n = list(self.rej), list(self.n)
        for i, j, _, a in swaps:
            if j == i + 1:
                rej[i] += 1.0 - a
                n[i] += 1
        if sweep + 1 < self.round_end or self.k < 3:
            return replace(self, rej=tuple(rej), n=tuple(n)), None
        round_len = self.round_len * 2
        moved = replace(self, round_len=round_len, round_end=sweep + 1 + round_len,
                        rej=tuple(rej), n=tuple(n))
        if 0 in n:
            return moved, None
        new = respace(list(heats), np.array(rej) / np.array(n))
        zeros = (0.0,) * len(rej)
        return replace(moved, rej=zeros, n=zeros), new


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
