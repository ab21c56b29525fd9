"""What a chain gives back: plain data that crosses processes and machines.

:class:`ChainOutput` is one chain's result (its kept draws as a :class:`Trace`, the
models it visited as :class:`Visit` records, acceptance, the tempering ladder,
timing); :func:`merge_visits` pools the visits of several chains, the one place that
does. Nothing here holds a Prolog term once a chain has left its process (row-set ids
are that process's own), so the estimators, ``slpy run`` and cluster workers all pass
these around as they are.
"""
from __future__ import annotations

import math
from dataclasses import dataclass, field

import numpy as np

__all__ = ["Visit", "Trace", "ChainOutput", "merge_visits"]


@dataclass
class Visit:
    """A model a chain visited (among its kept draws)."""
    id: int                    # its number in the chain, in order of first visit
    count: int                 # kept draws at it
    log_lik: float
    stats: tuple               # the family's traced integers (Scorer.stats)
    term: object = None        # its model term, in the process that sampled it only


@dataclass
class Trace:
    """A chain's kept draws (after burn-in, every `thin`-th), one entry per draw in
    each array: the columns of the run directory's chain_I/trace.csv."""
    iter: np.ndarray           # int64: the iteration it was drawn at (0-based)
    model: np.ndarray          # int64: the model's Visit.id
    log_lik: np.ndarray        # float64: its log-likelihood (heat 1)
    stats: dict                # the family's traced integers: name -> int64 array
    d: np.ndarray              # int64: choice points in its proof (d_T)
    accepted: np.ndarray       # bool: the move of that iteration was accepted
    swaps: np.ndarray          # int64 [m, 4]: (draw, i, j, accepted) for each swap of
                               # levels i < j proposed after the draw's iteration

    def __len__(self) -> int:
        return len(self.iter)

    def swaps_of(self, draw: int) -> list:
        """[(i, j, accepted)] of the swaps after one draw, in the order proposed."""
        rows = self.swaps[self.swaps[:, 0] == draw]
        return [(int(i), int(j), bool(a)) for _, i, j, a in rows]

    @classmethod
    def empty(cls, stats=()) -> "Trace":
        i = np.zeros(0, dtype=np.int64)
        return cls(i, i.copy(), np.zeros(0), {s: i.copy() for s in stats}, i.copy(),
                   np.zeros(0, dtype=bool), np.zeros((0, 4), dtype=np.int64))


@dataclass
class ChainOutput:
    """One chain of a run: everything the run directory, the summary and the
    estimators use of it."""
    index: int                 # chain i draws from SeedSequence(seed).spawn(i + 1)[i]
    iterations: int            # iterations done (burn-in included)
    trace: Trace               # the kept draws
    visits: dict               # canonical model -> Visit, in order of first visit
    accepted: int              # accepted moves of the cold chain, all iterations
    replay_failures: int       # moves that could not be proposed
    moves: dict                # move name -> [proposed, accepted] (cold chain)
    swaps: dict = field(default_factory=dict)   # "i-j" -> [proposed, accepted]
    heats: list = field(default_factory=lambda: [1.0])   # the ladder after burn-in
    round_trips: int = 0       # replicas that went from the hottest level to the cold
    best_log_lik: float = -math.inf   # the highest log-likelihood of any iteration
    best_model: str | None = None     # ... and its model
    best_term: object = None   # ... its term, in the process that sampled it only
    seconds: float = 0.0       # time spent sampling
    interrupted: bool = False  # stopped early by Ctrl-C
    drawn: dict = field(default_factory=dict)   # model -> the family's drawing
    best_drawn: object = None  # the family's drawing of best_model
    predictions: object = None # posterior predictive of the test rows, or None
    evidence: dict | None = None   # an SMC island's log evidence and steps (--method smc)

    @property
    def kept(self) -> int:
        return len(self.trace)

    @property
    def acceptance_rate(self) -> float:
        return self.accepted / self.iterations if self.iterations else 0.0

    def models_by_count(self) -> list:
        """(model, Visit) most visited first, ties by first visit."""
        return sorted(self.visits.items(), key=lambda kv: (-kv[1].count, kv[1].id))

    def forget_terms(self) -> "ChainOutput":
        """Drop the model terms (before leaving the process that sampled them)."""
        for v in self.visits.values():
            v.term = None
        self.best_term = None
        return self


def merge_visits(outputs, stats=()) -> dict:
    """canonical model -> {"count", "log_lik", and the traced integers by name} over
    the chains, in order of first visit, chain by chain."""
    merged: dict = {}
    for out in outputs:
        for key, v in out.visits.items():
            m = merged.get(key)
            if m is None:
                m = merged[key] = {"count": 0, "log_lik": v.log_lik,
                                   **dict(zip(stats, v.stats))}
            m["count"] += v.count
    return merged
