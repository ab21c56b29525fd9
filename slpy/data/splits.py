"""Split rules: how a split of a row set is encoded, decided and written as a term.

A split is a pair ``(code, value)``, the form row sets, the exact back end's grammar
and the routing kernels share (two numbers, so a split is a cache key and an array
entry):

- ``code = feature | side << SIDE_SHIFT``: ``side`` says where a *missing* value (NaN)
  goes: ``NA_LEFT`` or ``NA_RIGHT``, drawn with the split where the node's rows have
  missing values of the feature; 0 where they have none (no side is recorded).
- ``value``: for a numeric feature a threshold t (``x =< t`` goes left); for a
  categorical feature the levels that go left (the *listed* levels; every other level
  goes right), packed into one float by :func:`pack_levels`.

A categorical feature's values are codes 0..L-1 into ``Dataset.levels[f]``; -1 is a
level the training data do not have (met in new rows). A value a split has not seen
-- such a new level, or a missing value at a split without a side -- goes to the side
that had more training rows (the left on a tie): ``default_left`` of the routing
kernels (``slpy.data._kernels._goes_left``).

In a model term ``node(F, V, L, R)`` the value V is a number T, ``in([Level, ...])``
(the listed levels, as atoms), or ``na(Side, Test)`` with Side ``left`` or ``right``
and Test one of those two (:func:`value_term`, :func:`split_of`).
"""
from __future__ import annotations

import math

from ..terms.errors import domain_error, instantiation_error, type_error
from ..terms.term import NIL, Atom, Struct, Var, deref, list_items, mklist

__all__ = ["threshold_value", "SIDE_SHIFT", "NA_LEFT", "NA_RIGHT", "SIDES", "FEATURE_MASK",
           "LEVEL_BITS", "MAX_LISTED", "MAX_LEVELS", "MAX_SUBSET_LEVELS", "split_code",
           "feature_of", "side_of", "pack_levels", "unpack_levels", "value_term", "split_of"]

SIDE_SHIFT = 24
FEATURE_MASK = (1 << SIDE_SHIFT) - 1
NA_LEFT, NA_RIGHT = 1, 2
SIDES = {NA_LEFT: "left", NA_RIGHT: "right"}

#: Listed levels of a categorical split: at most MAX_LISTED codes of LEVEL_BITS bits,
#: so a categorical feature has at most MAX_LEVELS levels.
LEVEL_BITS = 10
MAX_LISTED = 5
MAX_LEVELS = (1 << LEVEL_BITS) - 1

#: A node whose rows have at most this many levels of a categorical feature is split
#: every way (2**(L-1) - 1 partitions of its L levels); past it, one level against the
#: others (L partitions). docs/priors.md says why.
MAX_SUBSET_LEVELS = 10


def threshold_value(x: float):
    """A threshold as model terms hold it: an integer when it is integer-valued (as in
    the papers' trees), else the float."""
    xi = int(x)
    return xi if xi == x else float(x)


def split_code(feature: int, side: int = 0) -> int:
    return int(feature) | (int(side) << SIDE_SHIFT)


def feature_of(code) -> int:
    return int(code) & FEATURE_MASK


def side_of(code) -> int:
    return int(code) >> SIDE_SHIFT


def pack_levels(codes) -> float:
    """The listed level codes (at most MAX_LISTED, each < MAX_LEVELS) as one float:
    code + 1 in LEVEL_BITS-bit slots, the smallest code in the top slot, so that
    floats compare as the sorted code tuples do (shorter first)."""
    codes = sorted(int(c) for c in codes)
    if len(codes) > MAX_LISTED:
        raise ValueError(f"a categorical split lists at most {MAX_LISTED} levels")
    m = 0
    for k, c in enumerate(codes):
        m |= (c + 1) << (LEVEL_BITS * (MAX_LISTED - 1 - k))
    return float(m)


def unpack_levels(v: float) -> tuple:
    m = int(v)
    out = []
    for k in range(MAX_LISTED):
        s = (m >> (LEVEL_BITS * (MAX_LISTED - 1 - k))) & MAX_LEVELS
        if s == 0:
            break
        out.append(s - 1)
    return tuple(out)


# -- the Prolog value of a split ---------------------------------------------------------

_LEVEL_ATOMS: dict = {}


def _level_atoms(levels) -> list:
    key = id(levels)
    hit = _LEVEL_ATOMS.get(key)
    if hit is None or hit[0] is not levels:
        hit = _LEVEL_ATOMS[key] = (levels, [Atom(s) for s in levels])
    return hit[1]


def value_term(levels, code: int, value: float):
    """V of ``node(F, V, L, R)`` for the split ``(code, value)`` of a feature whose
    levels are ``levels`` (None: numeric)."""
    if levels is None:
        test = threshold_value(value)
    else:
        atoms = _level_atoms(levels)
        test = Struct("in", (mklist([atoms[c] for c in unpack_levels(value)]),))
    side = side_of(code)
    if side:
        return Struct("na", (Atom(SIDES[side]), test))
    return test


def split_of(levels, feature: int, v) -> tuple[int, float]:
    """``(code, value)`` of the value term ``v`` of a split on ``feature`` (levels as
    in :func:`value_term`); a Prolog error for a term that is not one."""
    v = deref(v)
    side = 0
    if type(v) is Struct and v.name == "na" and len(v.args) == 2:
        s = deref(v.args[0])
        if type(s) is Var:
            raise instantiation_error()
        side = {"left": NA_LEFT, "right": NA_RIGHT}.get(getattr(s, "name", None), 0)
        if type(s) is not Atom or not side:
            raise domain_error("missing_side", s)
        v = deref(v.args[1])
    if type(v) is Var:
        raise instantiation_error()
    if levels is None:
        if type(v) not in (int, float) or not math.isfinite(v):
            raise type_error("number", v)
        return split_code(feature, side), float(v)
    if not (type(v) is Struct and v.name == "in" and len(v.args) == 1):
        raise type_error("level_set", v)
    items, tail = list_items(v.args[0])
    if tail is not NIL:
        raise type_error("list", v.args[0])
    index = _level_index(levels)
    codes = set()
    for it in items:
        it = deref(it)
        name = it.name if type(it) is Atom else str(it) if type(it) is int else None
        c = index.get(name)
        if c is None:
            raise domain_error("level", it)
        codes.add(c)
    if len(codes) > MAX_LISTED:
        raise domain_error(f"level_set_of_at_most_{MAX_LISTED}", v)
    return split_code(feature, side), pack_levels(codes)


_LEVEL_INDEX: dict = {}


def _level_index(levels) -> dict:
    key = id(levels)
    hit = _LEVEL_INDEX.get(key)
    if hit is None or hit[0] is not levels:
        hit = _LEVEL_INDEX[key] = (levels, {s: i for i, s in enumerate(levels)})
    return hit[1]
