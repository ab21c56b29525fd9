"""Observers of the chain loop (slpy.mcmc.chain.sample_chain): each is called with
every iteration's Sweep and returns True only to stop the chain.

- :class:`VisitCounter`: the kept models (canonical form -> Visit) and the best state;
- :class:`TraceRecorder`: the kept draws in memory (an output.Trace);
- :class:`TraceWriter`: hands the kept draws to a writer (a file, at the edge: the
  run directory's chain_I/trace.csv, slpy.runs);
- :class:`Tally`: acceptance, replay failures and each move's rates (cold chain);
- :class:`SwapCounter`: a tempered chain's swaps per pair of levels and round trips.

The trace observers need a VisitCounter before them: a draw names its model by the
Visit's id.
"""
from __future__ import annotations

import math
from array import array

import numpy as np

from .output import Trace, Visit

__all__ = ["VisitCounter", "TraceRecorder", "TraceWriter", "Tally", "SwapCounter"]


class VisitCounter:
    """Counts the kept models (canonical form -> Visit, in order of first visit) and
    remembers the state with the best log-likelihood of any iteration. `key`: the
    family's canonical form of a term (a state from another process carries its own
    ``key``)."""

    def __init__(self, key):
        self.key = key
        self.visits: dict = {}
        self.kept = 0
        self.best = (-math.inf, None)

    def __call__(self, sw) -> bool:
        s = sw.state
        if s.log_lik > self.best[0]:
            self.best = (s.log_lik, s)
        if not sw.kept:
            return False
        self.kept += 1
        key = self._key(s)
        v = self.visits.get(key)
        if v is None:
            v = self.visits[key] = Visit(len(self.visits), 0, s.log_lik, s.stats, s.term)
        v.count += 1
        sw.visit = v
        return False

    def best_model(self):
        """(best log-likelihood, its model's key or None, its term or None)."""
        lik, s = self.best
        return (lik, None, None) if s is None else (lik, self._key(s), s.term)

    def _key(self, state) -> str:
        key = getattr(state, "key", None)
        return self.key(state.term) if key is None else key


class TraceRecorder:
    """The kept draws, in memory: :meth:`trace` gives them as a Trace. `stats`: the
    names of the family's traced integers."""

    def __init__(self, stats=()):
        self.names = tuple(stats)
        self.iter, self.model, self.d = array("q"), array("q"), array("q")
        self.log_lik = array("d")
        self.stats = [array("q") for _ in self.names]
        self.accepted = array("b")
        self.swaps = array("q")          # draw, i, j, accepted; flat

    def __call__(self, sw) -> bool:
        if not sw.kept:
            return False
        s = sw.state
        row = len(self.iter)
        self.iter.append(sw.it)
        self.model.append(sw.visit.id)
        self.log_lik.append(s.log_lik)
        for col, x in zip(self.stats, s.stats):
            col.append(x)
        self.d.append(s.d)
        self.accepted.append(sw.info.accepted)
        for i, j, ok, _ in sw.swaps:
            self.swaps.extend((row, i, j, ok))
        return False

    def trace(self) -> Trace:
        def ints(a):
            return np.array(a, dtype=np.int64)
        return Trace(ints(self.iter), ints(self.model), np.array(self.log_lik, dtype=float),
                     {n: ints(c) for n, c in zip(self.names, self.stats)}, ints(self.d),
                     np.array(self.accepted, dtype=bool), ints(self.swaps).reshape(-1, 4))


class TraceWriter:
    """Hands each kept draw to ``write(it, model id, log_lik, stats, d, accepted,
    swaps)`` after the first `skip` (those a resumed run has already written)."""

    def __init__(self, write, skip: int = 0):
        self.write = write
        self.skip = skip
        self.rows = 0

    def __call__(self, sw) -> bool:
        if not sw.kept:
            return False
        self.rows += 1
        if self.rows > self.skip:
            s = sw.state
            self.write(sw.it, sw.visit.id, s.log_lik, s.stats, s.d, sw.info.accepted,
                       [(i, j, ok) for i, j, ok, _ in sw.swaps])
        return False


class Tally:
    """The cold chain's accepted moves, moves that could not be proposed, and each
    move's [proposed, accepted]."""

    def __init__(self):
        self.accepted = 0
        self.replay_failures = 0
        self.moves: dict = {}

    def __call__(self, sw) -> bool:
        info = sw.info
        self.accepted += info.accepted
        self.replay_failures += not info.replayed
        m = self.moves.get(info.move)
        if m is None:
            m = self.moves[info.move] = [0, 0]
        m[0] += 1
        m[1] += info.accepted
        return False


class SwapCounter:
    """Swaps proposed and accepted per pair of levels ("i-j"), and round trips: how
    many times a replica reached the cold level having last been at the hottest one
    (each brings the cold chain a state from the hot end of the ladder)."""

    def __init__(self, k: int):
        self.k = k
        self.proposed: dict = {}
        self.accepted: dict = {}
        self.round_trips = 0
        self._last = [0] * k     # per replica: +1 last at the hot end, -1 at the cold

    def __call__(self, sw) -> bool:
        for i, j, ok, _ in sw.swaps:
            self.add(i, j, ok)
        if self.k > 1:
            self.travel(sw.whole.at)
        return False

    def add(self, i: int, j: int, ok: bool) -> None:
        key = f"{i}-{j}"
        self.proposed[key] = self.proposed.get(key, 0) + 1
        self.accepted[key] = self.accepted.get(key, 0) + int(ok)

    def travel(self, at) -> None:
        """After each sweep's swaps, with at[level] = replica."""
        last = self._last
        cold, hot = at[0], at[-1]
        if last[cold] == 1:
            self.round_trips += 1
        last[cold] = -1
        last[hot] = 1

    def counts(self) -> dict:
        """"i-j" -> [proposed, accepted], pairs in order."""
        return {key: [n, self.accepted[key]] for key, n in sorted(self.proposed.items())}

    def rates(self) -> dict:
        return {k: self.accepted[k] / n for k, n in sorted(self.proposed.items()) if n}
