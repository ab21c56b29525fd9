"""Metropolis-Hastings kernels on proof trees.

A kernel is a pure function ``kernel(rng, state, it, heat=h) -> (state, Info)``: it
draws from ``rng`` only, changes nothing, and returns the next state (the same object
when the move is rejected) with what happened. Proposing (a move: slpy.mcmc.moves,
returning the new state and the log of its prior-and-proposal ratio) and accepting
(slpy.mcmc.proposal.accept) are separate; at heat b the acceptance probability is

    min(1, R * prod(p_new/p_old over kept choices) * (L(T') / L(T))^b).

A tempered kernel is built from one of these by composition (slpy.mcmc.tempered).
"""
from __future__ import annotations

import math
from dataclasses import dataclass

from .moves import make_moves, regrow_move
from .proposal import Proposal, accept

__all__ = ["Info", "build_kernel"]


@dataclass(frozen=True)
class Info:
    accepted: bool
    replayed: bool          # False when no proposal could be made (a kept or reused
                            # choice could not be replayed; a node with one candidate)
    move: str               # the move's name (one of a mixture's)
    log_alpha: float

    # what slpy.mcmc.chain.sample_chain reads of any kernel's Info: the step of the
    # state that is sampled, and the swaps of a tempered kernel (none here)
    @property
    def cold(self) -> "Info":
        return self

    swaps = ()


def _picker(moves):
    """rng -> one of the weighted moves (drawing one uniform only for a mixture)."""
    if len(moves) == 1:
        only = moves[0][0]
        return lambda rng: only
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
    return pick


def build_kernel(model, proposal, heat: float = 1.0):
    """A kernel targeting prior x likelihood^heat. `proposal`: a Proposal (uc, q0,
    cycle:N), a proposal spec such as ``uc:0.5,change:0.5`` (slpy.mcmc.moves), or a
    list of (Move, weight)."""
    if isinstance(proposal, Proposal):
        moves = [(regrow_move(model, proposal), 1.0)]
    elif isinstance(proposal, str):
        moves = make_moves(model, proposal)
    else:
        moves = list(proposal)
    pick = _picker(moves)

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
