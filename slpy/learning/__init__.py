"""Parameter learning and most probable proofs for SLPs (docs/learn.md).

    params        which labels are learned; LearnError
    observations  the observed goals (the file format)
    graph         explanation graphs of goals, from the engine's enumeration and tables
    inside        inside probabilities, expected counts, Viterbi scores on a graph
    explore       the derivation tree of a goal under pure sampling, failures included
    em            learn(): FAM and inside-outside, with a Dirichlet prior (MAP)
    write         the program text with the learned labels
    proofs        mpe(): the k most probable proofs of a goal
    cli           the `slpy learn` command
"""
from __future__ import annotations

from .params import LearnError
from .em import learn, LearnResult
from .observations import load_observations, parse_observations

__all__ = ["learn", "LearnResult", "LearnError", "load_observations", "parse_observations",
           "mpe", "write_labels"]


def mpe(program, goal, k: int = 1):
    """The k most probable proofs of goal (see slpy.learning.proofs)."""
    from .proofs import mpe as _mpe
    return _mpe(program, goal, k)


def write_labels(result, path, estimate: str = "map") -> str:
    """The text of the program file at path with the learned labels (slpy.learning.write)."""
    from .write import write_labels as _w
    return _w(result, path, estimate)
