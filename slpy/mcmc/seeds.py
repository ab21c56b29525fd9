"""The random generators of a run's chains, all derived from its one seed.

Chain i draws from ``SeedSequence(seed).spawn(i + 1)[i]``, whatever the number of
chains, processes or machines, so a run is reproducible however it is spread. A
tempered chain has one generator per replica and one for the swaps: replica 0 uses
the chain's generator itself (an untempered chain is what it always was), the swaps
the chain's first child sequence, replica r >= 1 its r-th child.
"""
from __future__ import annotations

from dataclasses import dataclass

import numpy as np

__all__ = ["chain_rng", "replica_rngs", "ReplicaRngs"]


@dataclass(frozen=True)
class ReplicaRngs:
    """The generators of a tempered chain (the rng of slpy.mcmc.tempered's kernel)."""
    replicas: tuple            # replica r's generator
    swaps: np.random.Generator


def _chain_seed(seed: int, index: int) -> np.random.SeedSequence:
    return np.random.SeedSequence(seed).spawn(index + 1)[index]


def chain_rng(seed: int, index: int) -> np.random.Generator:
    return np.random.default_rng(_chain_seed(seed, index))


def replica_rngs(seed: int, index: int, k: int) -> ReplicaRngs:
    ss = _chain_seed(seed, index)
    kids = ss.spawn(k)
    return ReplicaRngs(tuple([np.random.default_rng(ss)]
                             + [np.random.default_rng(c) for c in kids[1:]]),
                       np.random.default_rng(kids[0]))
