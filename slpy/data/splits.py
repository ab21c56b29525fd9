"""Split values: how a split's test reaches a model term.

A prior draws a split ``split(F, V, RowsL, RowsR)``; its value V is what the model term
``node(F, V, L, R)`` holds and what its canonical text writes (slpy.trees.term).
"""
from __future__ import annotations

__all__ = ["threshold_value"]


def threshold_value(x: float):
    """A threshold as model terms hold it: an integer when it is integer-valued (as in
    the papers' trees), else the float."""
    xi = int(x)
    return xi if xi == x else float(x)
