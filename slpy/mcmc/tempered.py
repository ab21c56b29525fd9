"""Parallel tempering as a kernel built by composition.

:func:`build_tempered_kernel` wraps a *replica step* (each replica makes one move at
its own heat: :func:`local_replicas` around any kernel of slpy.mcmc.kernel, or the
replicas of slpy.mcmc.parallel in other processes) and the swap step of
slpy.mcmc.tempering; it does not subclass or change either (as BlackJAX's
smc/tempered.py wraps a kernel). Its state is a :class:`TemperedState`, its rng a
slpy.mcmc.seeds.ReplicaRngs, and it is pure like every kernel:
``kernel(rngs, state, it) -> (state, TemperedInfo)``.

One iteration: every replica moves at the heat of its level, drawing from its own
generator; then swaps between levels are proposed (slpy.mcmc.tempering.propose_swaps)
with the swap generator, and an accepted swap exchanges the two levels' replicas
(a replica keeps its state and its generator, so replicas can live in separate
processes); during burn-in the ladder may re-space itself (LadderTuner). Only the
state at level 0 (heat 1) is a sample of the posterior: it is ``state.cold``.
"""
from __future__ import annotations

from dataclasses import dataclass

from .tempering import LadderTuner, propose_swaps

__all__ = ["TemperedState", "TemperedInfo", "build_tempered_kernel", "local_replicas",
           "tempered_start"]


@dataclass(frozen=True)
class TemperedState:
    replicas: tuple            # replica r's state
    at: tuple                  # at[level] = the replica at that level (0: heat 1)
    heats: tuple               # the heat of each level, cold first
    tuner: LadderTuner | None = None   # re-spacing the ladder during burn-in

    @property
    def cold(self):
        """The state that is sampled: the replica at heat 1."""
        return self.replicas[self.at[0]]


@dataclass(frozen=True)
class TemperedInfo:
    cold: object               # the step of the replica that moved at heat 1
    steps: tuple               # each replica's step (kernel Info), by replica
    swaps: tuple               # (i, j, accepted, probability) of each proposed swap


def tempered_start(replicas, heats, adapt: bool = False) -> TemperedState:
    """Replica r at level r; with `adapt`, a ladder that tunes itself."""
    return TemperedState(tuple(replicas), tuple(range(len(replicas))), tuple(heats),
                         LadderTuner.start(len(replicas)) if adapt else None)


def local_replicas(kernel):
    """The replica step of replicas in this process: each makes one step of `kernel`
    (``kernel(rng, state, it, heat)``) at its heat, with its own generator."""
    def step(rngs, replicas, heats, it):
        out = []
        infos = []
        for r, s in enumerate(replicas):
            s, info = kernel(rngs[r], s, it, heats[r])
            out.append(s)
            infos.append(info)
        return tuple(out), tuple(infos)
    return step


def build_tempered_kernel(step, scheme: str = "neighbours", adapt_until: int = 0):
    """A tempered kernel from a replica step ``step(rngs, replicas, heats, it) ->
    (replicas, infos)`` (heats by replica), proposing swaps by `scheme` (neighbours
    or random) and letting the state's tuner re-space the ladder before iteration
    `adapt_until` (the burn-in; the ladder is frozen after it)."""
    def kernel(rng, state, it):
        at = state.at
        level = [0] * len(at)
        for lv, r in enumerate(at):
            level[r] = lv
        heats = state.heats
        replicas, infos = step(rng.replicas, state.replicas, [heats[lv] for lv in level], it)
        swaps = propose_swaps(rng.swaps, it, [replicas[r].log_lik for r in at], heats,
                              scheme)
        new_at = list(at)
        for i, j, ok, _ in swaps:
            if ok:
                new_at[i], new_at[j] = new_at[j], new_at[i]
        tuner = state.tuner
        if tuner is not None and it < adapt_until:
            tuner, respaced = tuner.step(heats, swaps, it)
            if respaced is not None:
                heats = tuple(respaced)
        return (TemperedState(replicas, tuple(new_at), heats, tuner),
                TemperedInfo(infos[at[0]], infos, tuple(swaps)))
    return kernel
