"""Annealed sequential Monte Carlo on proof trees, with the evidence of a prior.

Particles start as exact draws from the prior (any SLP: pure sampling, a draw that
fails is drawn again, so they follow the normalised SLP distribution the moves
target), or, where such draws fail too often (a network prior on many variables),
as draws of a sequential proposal with their importance weights, resampled and moved
at heat 0 when the weights' ESS is low. They are moved through the heats 0 = b_0 <
b_1 < ... < b_T = 1 of prior x L^b (Del Moral, Doucet & Jasra 2006). At each step:

- the next heat is the largest for which the conditional effective sample size of
  the incremental weights exp((b' - b) log L) stays at ``cess`` x N (Zhou, Johansen
  & Aston 2016), found by bisection;
- the evidence gains log sum_i W_i exp((b' - b) log L_i), W the normalised weights;
- when the weights' ESS falls under ``resample`` x N the particles are resampled
  (systematic resampling) and their weights reset;
- each particle takes ``steps`` steps of an MCMC kernel at heat b' (the moves of
  ``slpy run``: slpy.mcmc.moves), which leaves prior x L^b' invariant.

The product of the steps' gains estimates the marginal likelihood Z = E_prior[L]
without bias (on the natural scale) from exact draws; from weighted draws it is a
ratio of two such estimates, consistent as the particles grow. The particles and
their moves are a :class:`Particles`: the engine's (proof trees, any SLP) or a
compiled path's (slpy.mcmc.paths: its own exact prior draws and moves on flat
arrays).
slpy.mcmc.evidence runs several independent samplers ("islands", Verge, Dubarry, Del
Moral & Moulines 2015), here or in worker processes, and pools them
(:func:`pool_evidence`): the evidence is the mean of their Z, its standard error from
their spread.
"""
from __future__ import annotations

import math
import time
from dataclasses import dataclass, field

import numpy as np

from .kernel import build_kernel

__all__ = ["SMCResult", "smc", "Particles", "EngineParticles", "exact_prior_state",
           "pool_evidence", "next_heat"]


@dataclass
class SMCResult:
    """One sampler's end: its particles at heat 1 with their normalised weights, the
    log evidence, and what it took."""
    states: list
    weights: np.ndarray
    log_evidence: float
    heats: list = field(default_factory=list)
    ess: list = field(default_factory=list)          # ESS after each reweighting
    start_ess: float | None = None  # of weighted first draws (None: exact draws)
    resampled: int = 0
    proposed: int = 0
    accepted: int = 0
    prior_draws: int = 0       # draws made for the N first particles (failures too)
    seconds: float = 0.0

    def resample_to(self, rng, n: int | None = None) -> list:
        """n equally weighted particles (systematic resampling of the final ones)."""
        return [self.states[i] for i in systematic(rng, self.weights, n or len(self.states))]


def exact_prior_state(model, rng, max_tries: int = 100_000):
    """(state, draws made): an exact draw from the normalised prior, by pure SLP
    sampling until a draw succeeds and the sampler's moves can replay it."""
    from ..logic.kinds import PURE
    for k in range(1, max_tries + 1):
        goal, ans = model._fresh_goal()
        ok, tree, _ = model.engine.run_sampling(goal, rng, mode=PURE, record=True)
        if ok:
            st = model._recorded(tree)
            if st is not None:
                return st, k
    raise RuntimeError(f"no draw of the prior succeeded in {max_tries:,} tries: its "
                       f"constraints fail too often for SMC's exact start")


class Particles:
    """What SMC needs of a sampler: exact draws of the prior and moves that leave
    prior x L^heat invariant. A particle carries ``log_lik`` (and what a chain's state
    carries for the outputs: ``key`` or ``term``, ``stats``, ``d``); a move returns a
    new particle, so the copies resampling makes stay independent."""

    def draw(self, rng):
        """(a particle, the draws it took, its log importance weight): 0 for an exact
        draw of the normalised prior; a path whose exact draws fail too often may draw
        from another distribution and weigh (-inf: not a draw of the prior)."""
        raise NotImplementedError

    def move(self, rng, particle, heat: float, steps: int, it: int):
        """(the particle after `steps` moves at `heat`, moves accepted); `it`: the
        iterations made so far (for moves that cycle)."""
        raise NotImplementedError

    def from_term(self, term):
        """The particle of a model term (a compiled path's: the sampler check's starts
        are the engine's enumerated proofs)."""
        raise NotImplementedError

    # optional: move_all(rng, particles, heat, steps, it) -> (the particles after,
    # moves accepted) or None, the same moves as `move` of each in turn, made at once


class EngineParticles(Particles):
    """Proof trees of any SLP, moved by the engine's moves (``proposal``)."""

    def __init__(self, model, proposal: str = "default"):
        from .moves import resolve_proposal
        self.model = model
        self.kernel = build_kernel(model, resolve_proposal(model, proposal))

    def draw(self, rng):
        return (*exact_prior_state(self.model, rng), 0.0)

    def move(self, rng, particle, heat, steps, it):
        accepted = 0
        for k in range(steps):
            particle, info = self.kernel(rng, particle, it + k, heat=heat)
            accepted += info.accepted
        return particle, accepted


def systematic(rng, w: np.ndarray, n: int) -> np.ndarray:
    """Indices of n draws by systematic resampling of the normalised weights w."""
    u = (rng.random() + np.arange(n)) / n
    c = np.cumsum(w)
    c[-1] = 1.0
    return np.searchsorted(c, u, side="right").clip(0, len(w) - 1)


def _logsumexp(a: np.ndarray) -> float:
    m = float(np.max(a))
    if not math.isfinite(m):
        return m
    return m + math.log(float(np.sum(np.exp(a - m))))


def next_heat(logw: np.ndarray, loglik: np.ndarray, b: float, target: float) -> float:
    """The largest b' in (b, 1] whose incremental weights keep the conditional ESS
    (sum W u)^2 / sum W u^2, a fraction of 1, at least `target`."""
    w = np.exp(logw - _logsumexp(logw))
    ll = loglik - np.max(loglik)

    def cess(d):
        u = np.exp(d * ll)
        return float(np.dot(w, u) ** 2 / np.dot(w, u * u))
    if cess(1.0 - b) >= target:
        return 1.0
    lo, hi = 0.0, 1.0 - b
    for _ in range(60):
        mid = 0.5 * (lo + hi)
        if cess(mid) >= target:
            lo = mid
        else:
            hi = mid
    return b + max(lo, 1e-12)


def smc(model, rng, n: int = 400, proposal: str = "default", steps: int = 3,
        cess: float = 0.95, resample: float = 0.5, max_heats: int = 10_000,
        progress=None, particles: Particles | None = None) -> SMCResult:
    """One annealed SMC sampler of `model`'s posterior (see the module): its particles
    and moves are `particles` (the engine's with `proposal` when None)."""
    t0 = time.process_time()
    if particles is None:
        particles = EngineParticles(model, proposal)
    states, draws, logw = [], 0, np.zeros(n)
    for i in range(n):
        st, k, logw[i] = particles.draw(rng)
        states.append(st)
        draws += k
    out = SMCResult(states, np.full(n, 1.0 / n), 0.0, heats=[0.0], prior_draws=draws)
    b = 0.0
    it = 0
    if logw.any():               # weighted draws: resample and move at heat 0 if few
        if not np.isfinite(logw).any():
            raise RuntimeError(f"none of {n:,} draws of the prior has a positive weight")
        w = np.exp(logw - _logsumexp(logw))
        out.start_ess = 1.0 / float(np.dot(w, w))
        if out.start_ess < resample * n:
            states = [states[i] for i in systematic(rng, w, n)]
            logw = np.zeros(n)
            out.resampled += 1
            it = _move_all(particles, rng, states, 0.0, steps, it, out)
    while b < 1.0:
        if len(out.heats) > max_heats:
            raise RuntimeError(f"SMC needed more than {max_heats:,} heats")
        loglik = np.array([s.log_lik for s in states])
        b2 = next_heat(logw, loglik, b, cess)
        inc = (b2 - b) * loglik
        out.log_evidence += _logsumexp(logw + inc) - _logsumexp(logw)
        logw = logw + inc
        w = np.exp(logw - _logsumexp(logw))
        ess = 1.0 / float(np.dot(w, w))
        out.ess.append(ess)
        if ess < resample * n:
            states = [states[i] for i in systematic(rng, w, n)]
            logw = np.zeros(n)
            out.resampled += 1
        b = b2
        out.heats.append(b)
        it = _move_all(particles, rng, states, b, steps, it, out)
        if progress is not None:
            progress(b, ess)
    out.states = states
    out.weights = np.exp(logw - _logsumexp(logw))
    out.seconds = time.process_time() - t0
    return out


def _move_all(particles, rng, states, heat, steps, it, out) -> int:
    """Each particle `steps` moves at `heat` (in place; all at once where the particles
    offer ``move_all``, the same moves); the iterations made so far."""
    batch = getattr(particles, "move_all", None)
    done = batch and batch(rng, states, heat, steps, it)
    if done:
        states[:], acc = done
        out.proposed += steps * len(states)
        out.accepted += acc
        return it + steps * len(states)
    for i in range(len(states)):
        states[i], acc = particles.move(rng, states[i], heat, steps, it)
        it += steps
        out.proposed += steps
        out.accepted += acc
    return it


def pool_evidence(log_z) -> tuple:
    """(log of the mean of the islands' Z, its standard error by the delta method):
    each island's Z is unbiased, so is their mean."""
    lz = np.asarray(log_z, dtype=float)
    m = _logsumexp(lz) - math.log(len(lz))
    if len(lz) < 2:
        return m, math.nan
    rel = np.exp(lz - m)                  # Z_r / mean Z
    return m, float(np.std(rel, ddof=1) / math.sqrt(len(lz)))
