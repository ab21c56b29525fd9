"""Moves on proof trees, for any SLP, and mixtures of them.

A move proposes a new state and returns the log of the prior-and-proposal part of the
Metropolis-Hastings ratio,

    log [ p0(T') q(T' -> T) ] - log [ p0(T) q(T -> T') ],

p0 the prior (the product of the proof's choice probabilities); the kernel adds
heat * (log L(T') - log L(T)). Kinds of move (``--proposal`` names):

    uc, q0, cycle:N   prune the proof at a choice point and regrow it from the prior
                      (slpy.mcmc.proposal; Angelopoulos & Cussens 2005)
    change            single-site: redraw ONE choice point among its other candidates
                      and replay the proof, reusing every other choice whose address
                      and predicate still apply (Wingate, Stuhlmueller & Goodman 2011).
                      For trees: grow and prune (a node's leaf/split choice) and CGM's
                      change (a split's value, keeping the subtrees where the rows allow)
    perturb[:K]       step a draw of a stochastic builtin to one of its K nearest
                      candidates either side in the builtin's own order (for trees: a
                      threshold a few observed values away, keeping the subtrees;
                      Pratola 2016's perturb), reusing the rest as `change` does
    swap              exchange the values of two draws of the same stochastic builtin
                      where one's proof parent is the other's grandparent (for trees:
                      the split rules of a node and of one of its children, CGM's swap)
    exact[:H]         an exact block (Gibbs) move for priors in the PCFG back end's
                      tree fragment: redraw the subtree below a node from its exact
                      conditional posterior, among subtrees of depth <= H (default 2)
                      (slpy.pcfg.exact_move: a move the PCFG back end registers)
    parents           networks: redraw one node's parent set from its exact conditional
                      (slpy.bn.moves: a move the network family registers)

A mixture ``uc:0.5,change:0.4,exact:0.1`` picks one move per iteration with those
weights (normalised); a mixture of valid kernels is valid. ``default`` is the mixture
that won benchmarks/mixing.py (DEFAULT_MIXTURE); where a family's move in it does not
apply (the exact move outside GROWTREE with the Dirichlet likelihood) that part is
left out and the other weights renormalised. Model families add moves of their own
with :func:`register_move`.
"""
from __future__ import annotations

import math
from dataclasses import dataclass
from typing import Callable

from ..logic.plugins import UniformChoice
from ..logic.db import SBUILTIN
from .proposal import make_proposal

__all__ = ["Move", "FamilyMove", "register_move", "warm_up", "parse_mixture", "make_moves",
           "change_move", "swap_move", "regrow_move", "perturb_move", "perturb_width",
           "resolve_proposal", "check_proposal", "family_moves", "DEFAULT_PROPOSAL",
           "DEFAULT_MIXTURE"]

# what `slpy run` and the estimators use unless told otherwise: the mixture below
DEFAULT_PROPOSAL = "default"
DEFAULT_MIXTURE = "uc:0.2,change:0.1,perturb:0.2,swap:0.1,exact:1:0.4"


@dataclass(frozen=True)
class Move:
    name: str
    propose: Callable    # (rng, state, it, heat) -> (new state or None, log ratio)


@dataclass(frozen=True)
class FamilyMove:
    """A move a model family contributes, named ``prefix`` or ``prefix:ARG``."""
    prefix: str
    check: Callable      # (name) -> anything; ValueError for a bad name
    applies: Callable    # (model) -> bool: can it run on this model?
    build: Callable      # (model, name) -> Move
    warm: Callable | None = None   # () -> None: start slow set-up early (compiling)


_FAMILY_MOVES: dict = {}


def register_move(move: FamilyMove) -> None:
    _FAMILY_MOVES[move.prefix] = move


def _family_move(name: str):
    prefix = name.partition(":")[0]
    if prefix not in _FAMILY_MOVES and prefix not in _CORE:
        from ..family import load_builtins
        load_builtins()
    return _FAMILY_MOVES.get(prefix)


_CORE = ("uc", "q0", "cycle", "change", "swap", "perturb")   # no family needed


def regrow_move(model, proposal) -> Move:
    """Prune-and-regrow at the proposal's cut (uc, q0, cycle:N)."""
    cut_at, ratio = proposal.cut, proposal.log_ratio

    def propose(rng, state, it, heat):
        cut = cut_at(rng, state, it)
        if cut is None:
            return None, -math.inf
        new, r = model.regrow(state, cut, rng)
        if new is None:
            return None, -math.inf
        return new, ratio(state, new) + r.log_correction
    return Move(proposal.name, propose)


# -- change (single-site) -------------------------------------------------------------------
def _other_choice(rng, node):
    """A candidate of `node` other than its chosen one, drawn in proportion to the
    candidates' probabilities: (key, log (1 - p_old) - log (1 - p_new)), or None when
    the node has no other candidate."""
    c = node._cands
    if type(c) is UniformChoice:
        n = c.n
        if n < 2:
            return None
        i = c.index_of(node.key)
        j = min(int(rng.random() * (n - 1)), n - 2)
        if j >= i:
            j += 1
        return c.key(j), 0.0        # equal probabilities: the ratio is 1
    if len(c) < 2:
        return None
    builtin = node.pred.kind == SBUILTIN
    keys = [x[2] for x in c] if builtin else [x[1] for x in c]
    cur = next(i for i, k in enumerate(keys) if (k == node.key if builtin else
                                                 k is node.key))
    # the others' weights summed, not total - w: a label near 1 beside one near 0
    # leaves total - w at 0 in floating point
    rest = math.fsum(x[0] for i, x in enumerate(c) if i != cur)
    if not rest > 0:
        return None
    u = rng.random() * rest
    acc = 0.0
    j = None
    for i, x in enumerate(c):
        if i == cur:
            continue
        j = i
        acc += x[0]
        if u < acc:
            break
    back = math.fsum(x[0] for i, x in enumerate(c) if i != j)
    return keys[j], math.log(rest) - math.log(back)


def change_move(model) -> Move:
    """Pick a choice point k uniformly among the d_T of the proof, redraw its choice
    among the other candidates (q(c'|c) = p(c') / (1 - p(c))), replay. The ratio is
    d_T / d_T' * (1 - p(c)) / (1 - p(c')) * prod over reused choices p_new / p_old;
    fresh and dropped choices cancel against the prior."""
    def propose(rng, state, it, heat):
        if state.d == 0:
            return None, -math.inf
        k = min(int(rng.random() * state.d), state.d - 1)
        node = state.tree.nth(k)
        other = _other_choice(rng, node)
        if other is None:
            return None, -math.inf
        key, log_q = other
        new, r = model.local(state, {node.path: key}, rng)
        if new is None:
            return None, -math.inf
        return new, r.log_correction + log_q + math.log(state.d) - math.log(new.d)
    return Move("change", propose)


# -- perturb --------------------------------------------------------------------------------
def _neighbours(i: int, n: int, k: int) -> int:
    """How many candidates lie within k places of i (i excluded) among n."""
    return min(i, k) + min(n - 1 - i, k)


def perturb_move(model, k: int = 3) -> Move:
    """Pick a choice point uniformly among the d_T; if it is a uniform draw of a
    stochastic builtin (UniformChoice), move its value to a candidate j drawn uniformly
    among the N(i) within k places of its own i, and replay reusing the rest. The
    ratio is d_T / d_T' * N(i) / N(j) * prod p_new / p_old over reused choices (the
    probabilities of the two draws are equal)."""
    def propose(rng, state, it, heat):
        if state.d == 0:
            return None, -math.inf
        node = state.tree.nth(min(int(rng.random() * state.d), state.d - 1))
        c = node._cands
        if type(c) is not UniformChoice or c.n < 2:
            return None, -math.inf
        n = c.n
        i = c.index_of(node.key)
        lo, hi = max(0, i - k), min(n - 1, i + k)
        j = lo + min(int(rng.random() * (hi - lo)), hi - lo - 1)
        if j >= i:
            j += 1
        new, r = model.local(state, {node.path: c.key(j)}, rng)
        if new is None:
            return None, -math.inf
        return new, (r.log_correction + math.log(_neighbours(i, n, k))
                     - math.log(_neighbours(j, n, k))
                     + math.log(state.d) - math.log(new.d))
    return Move(f"perturb:{k}" if k != 3 else "perturb", propose)


def perturb_width(name: str) -> int:
    """K of a move named perturb or perturb:K (a ValueError for a bad K)."""
    if name == "perturb":
        return 3
    try:
        k = int(name.split(":", 1)[1])
    except ValueError:
        raise ValueError(f"bad proposal {name!r}: perturb:K needs a whole number K") from None
    if k < 1:
        raise ValueError(f"bad proposal {name!r}: K must be at least 1")
    return k


# -- swap -----------------------------------------------------------------------------------
def swap_pairs(tree) -> list:
    """Pairs (a, b) of builtin choice points of the same predicate with different
    values, b a child of a sibling of a (for trees: a node's split rule and one of its
    children's), in pre-order."""
    out = []
    stack = [tree]
    while stack:
        n = stack.pop()
        kids = n.children
        for a in kids:
            if a.pred is None or a.pred.kind != SBUILTIN:
                continue
            for m in kids:
                for b in m.children:
                    if b.pred is a.pred and b.key != a.key:
                        out.append((a, b))
        stack.extend(reversed(kids))
    return out


def swap_move(model) -> Move:
    """Exchange the values of a pair from swap_pairs, chosen uniformly, and replay
    (reusing every other choice by address). The ratio is
    |pairs(T)| / |pairs(T')| * prod over the two swapped and the reused choices of
    p_new / p_old."""
    def propose(rng, state, it, heat):
        pairs = swap_pairs(state.tree)
        if not pairs:
            return None, -math.inf
        a, b = pairs[min(int(rng.random() * len(pairs)), len(pairs) - 1)]
        new, r = model.local(state, {a.path: b.key, b.path: a.key}, rng)
        if new is None:
            return None, -math.inf
        n_new = len(swap_pairs(new.tree))
        return new, (r.log_correction + r.log_forced - r.log_forced_old
                     + math.log(len(pairs)) - math.log(n_new))
    return Move("swap", propose)


# -- mixtures -------------------------------------------------------------------------------
def parse_mixture(spec: str) -> list[tuple[str, float]]:
    """``uc:0.5,change:0.4,exact:0.1`` -> [(move, weight)], weights normalised. A move
    name may carry its own argument (``cycle:3``, ``exact:2``); a weight is the last
    ``:number`` of an item in a mixture of several."""
    if not isinstance(spec, str) or not spec.strip():
        raise ValueError("empty proposal: use default, uc, q0, cycle:N, change, swap, "
                         "exact[:H], or a mixture such as uc:0.5,change:0.5")
    items = [s.strip() for s in spec.split(",")]
    if len(items) == 1:
        return [(items[0], 1.0)]
    out = []
    for it in items:
        name, sep, w = it.rpartition(":")
        try:
            weight = float(w) if sep else None
        except ValueError:
            weight = None
        if weight is None:
            raise ValueError(f"bad proposal {spec!r}: each move of a mixture needs a "
                             f"weight, as in uc:0.5,change:0.5 ({it!r} has none)")
        if not (weight >= 0 and math.isfinite(weight)):
            raise ValueError(f"bad proposal {spec!r}: the weight of {name} must be a "
                             f"finite number >= 0")
        out.append((name, weight))
    total = sum(w for _, w in out)
    if total <= 0:
        raise ValueError(f"bad proposal {spec!r}: the weights sum to 0")
    return [(n, w / total) for n, w in out if w > 0]


def check_move_name(name: str) -> None:
    """Raise ValueError for a move name that is not known (without building it)."""
    if name in ("change", "swap", "regrow", "sweep"):   # regrow, sweep: compiled paths'
        return
    if name == "perturb" or name.startswith("perturb:"):
        perturb_width(name)
        return
    fm = _family_move(name)
    if fm is not None:
        fm.check(name)
        return
    try:
        make_proposal(name)
    except ValueError:
        raise ValueError(f"unknown proposal {name!r} (use default, uc, q0, cycle:N, "
                         f"change, perturb[:K], swap, exact[:H], parents, sweep, or a "
                         f"mixture name:weight,...)") from None


def resolve_proposal(model, spec: str) -> str:
    """`spec`, with ``default`` replaced by the mixture it stands for on `model`."""
    if spec != DEFAULT_PROPOSAL:
        return spec
    # a family's own mixture, else slpy's, each without the family moves that do
    # not apply to this model (the exact move off GROWTREE, a clustering move on a
    # prior not written as priors/crp.slp)
    own = getattr(model.scorer, "proposal", None)
    for spec in ((own, DEFAULT_MIXTURE) if own else (DEFAULT_MIXTURE,)):
        mix = parse_mixture(spec)
        rest = [(n, w) for n, w in mix
                if _family_move(n) is None or _family_move(n).applies(model)]
        if rest:
            break
    if len(rest) == len(mix):
        return spec
    total = sum(w for _, w in rest)
    return ",".join(f"{n}:{round(w / total, 6):g}" for n, w in rest)


def family_moves(model) -> list:
    """The names of the registered family moves that apply to `model`."""
    from ..family import load_builtins
    load_builtins()
    return [prefix for prefix, fm in _FAMILY_MOVES.items() if fm.applies(model)]


def warm_up(spec: str) -> None:
    """Start the slow set-up of the family moves `spec` (a valid one) may use."""
    for n, _ in parse_mixture(DEFAULT_MIXTURE if spec == DEFAULT_PROPOSAL else spec):
        fm = _family_move(n)
        if fm is not None and fm.warm is not None:
            fm.warm()


def make_moves(model, spec: str) -> list[tuple[Move, float]]:
    """The moves of a proposal spec for `model`, with their weights."""
    out = []
    for name, w in parse_mixture(resolve_proposal(model, spec)):
        check_move_name(name)
        if name == "change":
            mv = change_move(model)
        elif name == "swap":
            mv = swap_move(model)
        elif name == "perturb" or name.startswith("perturb:"):
            mv = perturb_move(model, perturb_width(name))
        elif _family_move(name) is not None:
            mv = _family_move(name).build(model, name)
        else:
            mv = regrow_move(model, make_proposal(name))
        out.append((mv, w))
    return out


def check_proposal(spec: str) -> None:
    """Raise ValueError with a one-line reason for a bad proposal spec."""
    for name, _ in parse_mixture(DEFAULT_MIXTURE if spec == DEFAULT_PROPOSAL else spec):
        check_move_name(name)
