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

# em, params and observations load numpy and scipy: on first use, so that
# `slpy --version` (which imports the `slpy learn` command, in .cli) does not
_LAZY = {"LearnError": "params", "learn": "em", "LearnResult": "em",
         "load_observations": "observations", "parse_observations": "observations"}

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


def __getattr__(name):
    mod = _LAZY.get(name)
    if mod is None:
        raise AttributeError(f"module {__name__!r} has no attribute {name!r}")
    import importlib
    return getattr(importlib.import_module(f"{__name__}.{mod}"), name)
