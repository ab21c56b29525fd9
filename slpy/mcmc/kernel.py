"""Metropolis-Hastings that prunes the proof tree at a choice point and regrows it from
the prior (Angelopoulos & Cussens, IJCAI 2005 section 4; ICML 2005 sections 4-5).

Kernels are pure functions ``kernel(rng, state, it) -> (state, Info)``; the proposal
(where to cut, and the log proposal-ratio term R_q) and the acceptance are separate.

    uc       cut uniformly among the d_T choice points; R = d_T / d_T'
    q0       cut at the root (an independence sampler from the prior); R = 1
    cycle:N  cut at the k-th choice point in pre-order, k = it mod (N+1); R = 1

The acceptance probability at heat b is
    min(1, R * prod(p_new/p_old over kept choices) * (L(T') / L(T))^b).
"""
from __future__ import annotations

import math
from dataclasses import dataclass
from typing import Callable


@dataclass(frozen=True)
class Info:
    accepted: bool
    replayed: bool          # False when no proposal could be made (a kept or reused
                            # choice could not be replayed; a node with one candidate)
    move: str               # the move's name (one of a mixture's)
    log_alpha: float


@dataclass(frozen=True)
class Proposal:
    name: str
    cut: Callable           # (rng, state, it) -> path of the cut node
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

        def cut(rng, state, it):
            k = it % (n + 1)
            if k == 0 or state.d == 0:
                return ()
            for i, node in enumerate(state.tree, 1):
                if i == k:
                    return node.path
            return ()  # fewer choice points than k: prune at the root
        return Proposal(spec, cut, _zero)
    raise ValueError(f"unknown proposal {spec!r} (use uc, q0 or cycle:N)")


def accept(rng, log_alpha: float) -> bool:
    """The Metropolis-Hastings test, drawing one uniform."""
    u = rng.random()
    return log_alpha >= 0 or (u > 0 and math.log(u) < log_alpha)


def build_kernel(model, proposal, heat: float = 1.0):
    """A kernel targeting prior x likelihood^heat. `proposal`: a Proposal (uc, q0,
    cycle:N), a proposal spec such as ``uc:0.5,change:0.5`` (slpy.mcmc.moves), or a
    list of (Move, weight)."""
    from .moves import make_moves, regrow_move
    if isinstance(proposal, Proposal):
        moves = [(regrow_move(model, proposal), 1.0)]
    elif isinstance(proposal, str):
        moves = make_moves(model, proposal)
    else:
        moves = list(proposal)
    if len(moves) == 1:
        only = moves[0][0]

        def pick(rng):
            return only
    else:
        cum, acc = [], 0.0
        for _, w in moves:
            acc += w
            cum.append(acc)
        movelist = [mv for mv, _ in moves]
        last = len(movelist) - 1

        def pick(rng):
            u = rng.random() * acc
            for i, c in enumerate(cum):
                if u < c:
                    return movelist[i]
            return movelist[last]

    def kernel(rng, state, it, heat=heat):
        mv = pick(rng)
        new, log_r = mv.propose(rng, state, it, heat)
        if new is None:
            return state, Info(False, False, mv.name, -math.inf)
        log_alpha = heat * (new.log_lik - state.log_lik) + log_r
        if accept(rng, log_alpha):
            return new, Info(True, True, mv.name, log_alpha)
        return state, Info(False, True, mv.name, log_alpha)
    return kernel


def heats(k: int, delta_t: float) -> list[float]:
    """Tempering heats b_i = 1 / (1 + dT (i - 1)), i = 1..k (ICML 2005, section 5)."""
    return [1.0 / (1.0 + delta_t * i) for i in range(k)]


def swap_step(rng, states, hs):
    """Propose swapping two random chains; accepted with min(1, (L_j/L_i)^(b_i - b_j)).

    Returns (states, (i, j, accepted)) or (states, None) with a single chain."""
    k = len(states)
    if k < 2:
        return states, None
    i = min(int(rng.random() * k), k - 1)
    j = min(int(rng.random() * (k - 1)), k - 2)
    if j >= i:
        j += 1
    log_a = (hs[i] - hs[j]) * (states[j].log_lik - states[i].log_lik)
    ok = accept(rng, log_a)
    if ok:
        states = list(states)
        states[i], states[j] = states[j], states[i]
    return states, (min(i, j), max(i, j), ok)
