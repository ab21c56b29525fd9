"""SWI-Prolog's library(random) as stochastic choice points, and get_time/1.

random/1, random_between/3, random_member/2 and random_select/3 draw from the run's
numpy Generator like uniform_member/2: each draw is a node of the proof tree (so a
run with the same seed gives the same answers, and proof-tree MCMC can regrow it),
and backtracking into one draws again among the values not yet tried.
random_permutation/2 (lib/random.pl) is a sequence of random_select/3 draws.

random/1 draws one of the 2**53 floats k / 2**53 (0 =< k < 2**53) that numpy's
``Generator.random`` gives, each with probability 2**-53: the same value as
``rng.random()``. Enumeration (prob/2, proofs, plain queries) tries every value of
the others in turn, but refuses random/1.
"""
from __future__ import annotations

import time

from . import det, stochastic
from ..plugins import UniformChoice
from ...terms.term import (Var, Struct, atom, deref, list_items, mklist, PrologError, NIL,
                           indicator)
from ...terms.errors import type_error
from ...terms.args import int_arg, proper_list_arg
from ..kinds import ENUM

_FLOATS = 1 << 53
_STEP = 1.0 / _FLOATS


def _index_in(n):
    return lambda k: k if type(k) is int and 0 <= k < n else None


@stochastic("random", 1)
def bi_random(eng, x):
    """random(-X): X is a float drawn uniformly from [0, 1)."""
    if eng.rng is None or eng.mode == ENUM:
        raise PrologError(
            Struct("error", (Struct("permission_error", (
                atom("enumerate"), atom("continuous_distribution"),
                indicator("random", 1))), Var())),
            "random/1 draws from a continuous distribution: it can be sampled "
            "(slpy repl, slpy sample, Program.sample), not enumerated")
    return x, UniformChoice(_FLOATS, lambda k: k * _STEP, lambda k: k, _index_in(_FLOATS))


@stochastic("random_between", 3)
def bi_random_between(eng, lo, hi, x):
    """random_between(+L, +H, -X): X is an integer drawn uniformly from L..H (fails
    when H < L)."""
    lo, hi = int_arg(lo), int_arg(hi)
    n = max(hi - lo + 1, 0)
    return x, UniformChoice(n, lambda i: lo + i, lambda i: lo + i,
                            lambda k: k - lo if type(k) is int and lo <= k <= hi else None)


@stochastic("random_member", 2)
def bi_random_member(eng, x, lst):
    """random_member(-X, +List): X is an element of List drawn uniformly."""
    items = proper_list_arg(lst)
    return x, UniformChoice(len(items), items.__getitem__, lambda i: i, _index_in(len(items)))


@stochastic("random_select", 3)
def bi_random_select(eng, x, lst, rest):
    """random_select(?X, ?List, ?Rest): X is drawn uniformly from List and Rest is
    what remains; or, with List unbound and Rest a list, X is inserted into Rest at a
    position drawn uniformly."""
    items, tail = list_items(lst)
    if tail is NIL:
        n = len(items)
        return Struct("-", (x, rest)), UniformChoice(
            n, lambda i: Struct("-", (items[i], mklist(items[:i] + items[i + 1:]))),
            lambda i: i, _index_in(n))
    if type(tail) is not Var:
        raise type_error("list", deref(lst))
    others = proper_list_arg(rest)
    n = len(others) + 1
    return lst, UniformChoice(n, lambda i: mklist(others[:i] + [x] + others[i:]),
                              lambda i: i, _index_in(n))


@det("get_time", 1)
def bi_get_time(eng, t):
    """get_time(-T): the wall-clock time in seconds since the Unix epoch, a float."""
    return eng.unify(t, time.time())

