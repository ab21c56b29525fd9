"""The chain loop: it only computes.

:func:`sample_chain` applies a kernel ``kernel(rng, state, it) -> (state, info)`` n
times and hands each iteration, as a :class:`Sweep`, to the observers it is given: a
visit counter, a trace recorder (in memory) or writer (a file, at the edge), a
progress bar, a time budget (slpy.mcmc.observers). The command line, the estimators
and cluster workers share it; what each keeps or writes is the observers' business.

Any kernel will do, plain or tempered (slpy.mcmc.tempered): the loop reads the
sampled state as ``state.cold`` and its step as ``info.cold`` (themselves for a plain
kernel), and a tempered kernel's swaps as ``info.swaps``.
"""
from __future__ import annotations

import time
from dataclasses import dataclass
from typing import NamedTuple

__all__ = ["sample_chain", "Sweep", "ChainEnd"]


@dataclass(slots=True)
class Sweep:
    """What observers see after each iteration."""
    it: int                    # the iteration (0-based)
    state: object              # the sampled state (heat 1) after it
    info: object               # that state's step (kernel Info: accepted, move, ...)
    swaps: tuple               # a tempered kernel's swaps: (i, j, accepted, probability)
    kept: bool                 # past burn-in and on the thinning grid
    whole: object              # the kernel's whole state (all replicas when tempered)
    visit: object = None       # the kept state's Visit (set by VisitCounter)


class ChainEnd(NamedTuple):
    state: object              # the kernel's last state
    iterations: int            # iterations done (counting `start`)
    interrupted: bool          # stopped by KeyboardInterrupt (Ctrl-C)
    seconds: float


def sample_chain(rng, kernel, state, n: int, *, start: int = 0, burn_in: int = 0,
                 thin: int = 1, observers=()) -> ChainEnd:
    """Iterations start..n-1 of `kernel` from `state`, drawing from `rng`. After each,
    every observer is called with its Sweep; one that returns True (a budget) stops
    the chain after all have seen it. Iteration `it` is kept when it >= burn_in and
    (it - burn_in) % thin == 0. A KeyboardInterrupt (an observer may raise one at the
    end of an iteration, slpy.mcmc.progress) stops the chain with what it has."""
    done = start
    interrupted = False
    t0 = time.perf_counter()
    try:
        for it in range(start, n):
            state, info = kernel(rng, state, it)
            done = it + 1
            sw = Sweep(it, state.cold, info.cold, info.swaps,
                       it >= burn_in and (it - burn_in) % thin == 0, state)
            stop = False
            for obs in observers:
                stop = obs(sw) or stop
            if stop:
                break
    except KeyboardInterrupt:
        interrupted = True
    return ChainEnd(state, done, interrupted, time.perf_counter() - t0)
