"""The sampling state of one run of the engine, set and restored in one place.

``engine.session(mode, rng, ...)`` is a context manager: inside it the engine's
stochastic choices follow ``mode`` (kinds.SAMPLE, PURE, ENUM, REPLAY or PLAIN) with
the generator ``rng``, the proof log and log probability start empty, enumeration
leaves out derivations less probable than ``min_prob``, answers are recorded for
replay when ``record``, and ``replay`` is the replay run (slpy.logic.replay) the
recorded choices come from. On exit every one of these fields is as it was, so
sessions nest (a sample drawn inside a running query, a table inside prob/3).

``engine.solutions(goal, mode, rng, ...)`` runs goal in a session of its own and
yields a :class:`Solution` per answer (the bindings live in goal's variables until
the next one is asked for).
"""
from __future__ import annotations

from dataclasses import dataclass

from .proof import build_tree

# the engine's sampling fields: what a session sets and restores
FIELDS = ("mode", "rng", "plog", "logp", "min_prob", "record_answers", "ground_memo",
          "replay_run")


class Session:
    """A context manager over one engine's sampling fields (see the module)."""

    __slots__ = ("eng", "values", "saved")

    def __init__(self, eng, mode, rng, min_prob, record, replay):
        self.eng = eng
        self.values = (mode, rng, None, 0.0, min_prob, record, {}, replay)
        self.saved = None

    def __enter__(self):
        eng = self.eng
        self.saved = (eng.mode, eng.rng, eng.plog, eng.logp, eng.min_prob,
                      eng.record_answers, eng.ground_memo, eng.replay_run)
        (eng.mode, eng.rng, eng.plog, eng.logp, eng.min_prob, eng.record_answers,
         eng.ground_memo, eng.replay_run) = self.values
        return eng

    def __exit__(self, *exc):
        eng = self.eng
        (eng.mode, eng.rng, eng.plog, eng.logp, eng.min_prob, eng.record_answers,
         eng.ground_memo, eng.replay_run) = self.saved
        return False


@dataclass(frozen=True)
class Solution:
    """One answer of engine.solutions: its log probability and proof log (the chosen
    nodes, most recent first; ``tree`` builds the proof tree from it)."""
    log_prob: float
    plog: object

    @property
    def tree(self):
        return build_tree(self.plog)
