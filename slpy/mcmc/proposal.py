"""Where prune-and-regrow cuts the proof tree, and the Metropolis-Hastings test
(Angelopoulos & Cussens, IJCAI 2005 section 4; ICML 2005 sections 4-5).

A :class:`Proposal` says where to cut (the path of a choice point) and the log
proposal ratio R_q of the move it makes; :func:`accept` decides. They are apart so
that a kernel (slpy.mcmc.kernel) can combine any move with the same test.

    uc       cut uniformly among the d_T choice points; R = d_T / d_T'
    q0       cut at the root (an independence sampler from the prior); R = 1
    cycle:N  cut at the k-th choice point in pre-order, k = it mod (N+1) (0: the root;
             no move when the proof has fewer than k); R = 1
"""
from __future__ import annotations

import math
from dataclasses import dataclass
from typing import Callable

__all__ = ["Proposal", "make_proposal", "accept"]


@dataclass(frozen=True)
class Proposal:
    name: str
    cut: Callable           # (rng, state, it) -> path of the cut node, None: no move
    log_ratio: Callable     # (state, new_state) -> log R_q


def _uc_cut(rng, state, it):
    if state.d == 0:
        return ()
    k = min(int(rng.random() * state.d), state.d - 1)
    return state.tree.nth(k).path


def _uc_ratio(state, new):
    return math.log(state.d) - math.log(new.d) if state.d and new.d else 0.0


def _q0_cut(rng, state, it):
    return ()


def _zero(state, new):
    return 0.0


def _cycle(n: int) -> Callable:
    def cut(rng, state, it):
        k = it % (n + 1)
        if k == 0:
            return ()
        if k > state.d:
            # Fewer choice points than k: no move. (Pruning at the root instead, as the
            # paper did, is not reversible: the regrown proof may have k choice points,
            # and from it the same step cuts at its k-th, never at the root.)
            return None
        return state.tree.nth(k - 1).path
    return cut


def make_proposal(spec: str) -> Proposal:
    """`uc`, `q0` or `cycle:N`."""
    if spec == "uc":
        return Proposal("uc", _uc_cut, _uc_ratio)
    if spec == "q0":
        return Proposal("q0", _q0_cut, _zero)
    if spec.startswith("cycle:"):
        try:
            n = int(spec.split(":", 1)[1])
        except ValueError:
            raise ValueError(f"bad proposal {spec!r}: cycle:N needs a whole number N")
        if n < 0:
            raise ValueError(f"bad proposal {spec!r}: N must be >= 0")
        return Proposal(spec, _cycle(n), _zero)
    raise ValueError(f"unknown proposal {spec!r} (use uc, q0 or cycle:N)")


def accept(rng, log_alpha: float) -> bool:
    """The Metropolis-Hastings test: True with probability min(1, exp(log_alpha)),
    drawing one uniform (always, so that the stream does not depend on the answer)."""
    u = rng.random()
    return log_alpha >= 0 or (u > 0 and math.log(u) < log_alpha)
