"""The exact block (Gibbs) move: redraw the subtree below a node of the model from its
exact conditional posterior (DESIGN.md, "Exact block moves").

For a prior in the PCFG back end's tree fragment (GROWTREE, priors/growtree.slp,
recognised as `slpy exact` recognises it), the subtree below a tree node depends only
on the node's rows and depth, and nothing outside it depends on the subtree. Its
conditional given the rest of the tree at heat b is prior(subtree | node) *
L(its leaves)^b, normalised (slpy.pcfg.block). Restricted to the set B of subtrees of
depth <= H:

- E(T): the tree nodes whose subtree has depth <= H_k, where H_k <= H is the largest
  depth whose dynamic program stays within a work budget (n p S^H_k <= WORK for a
  node of n rows, p features and S valid splits; nodes with H_k = 0 are not
  eligible). H_k depends only on the node's rows, so it is the same in T and T';
- pick k uniformly in E(T), draw the subtree below k from the conditional restricted
  to B, and rebuild the proof with those choices forced (every other choice is the
  current one: nothing else changes);
- accept with min(1, |E(T)| / |E(T')|): the prior and likelihood of the subtree cancel
  against the conditional it was drawn from.

Each move checks that the proof's recorded probability of the new subtree equals the
grammar's, so a program that only looks like GROWTREE stops with an error rather than
sampling the wrong posterior.

The move is the PCFG back end's contribution to the tree family's moves: importing
this module registers it (``--proposal exact[:H]``).
"""
from __future__ import annotations

import math

from ..logic.db import STOCH
from ..mcmc.moves import FamilyMove, Move, register_move
from ..terms.term import Struct, deref
from ..trees.family import TreeScorer
from ..trees.likelihood import DirichletLikelihood
from .block import GrowtreeBlock, compile_in_background

__all__ = ["exact_move", "exact_applies", "parse_depth", "ExactMoveError", "DEFAULT_DEPTH"]

DEFAULT_DEPTH = 2
MAX_DEPTH = 6
# elementary steps of one move's dynamic program (a few milliseconds at most)
WORK = 2_000_000


class ExactMoveError(ValueError):
    """The exact move does not apply to this prior (a one-line reason)."""


def parse_depth(name: str) -> int:
    if name == "exact":
        return DEFAULT_DEPTH
    arg = name.split(":", 1)[1]
    try:
        h = int(arg)
    except ValueError:
        raise ValueError(f"bad proposal {name!r}: exact:H needs a whole number H") from None
    if not 1 <= h <= MAX_DEPTH:
        raise ValueError(f"bad proposal {name!r}: H must be between 1 and {MAX_DEPTH}")
    return h


def _tree_predicate(program):
    """(pred, leaf clause, node clause): the labelled predicate whose two clauses
    produce leaf(_) and node(_, _, _, _) in the same argument."""
    found = []
    for pred in program.db.preds.values():
        if pred.kind != STOCH or len(pred.clauses) != 2:
            continue
        heads = [deref(c.head) for c in pred.clauses]
        for q in range(pred.arity):
            kinds = []
            for h in heads:
                a = deref(h.args[q]) if type(h) is Struct else None
                kinds.append((a.name, len(a.args)) if type(a) is Struct else None)
            if set(kinds) == {("leaf", 1), ("node", 4)}:
                leaf = pred.clauses[kinds.index(("leaf", 1))]
                node = pred.clauses[kinds.index(("node", 4))]
                found.append((pred, leaf, node))
    if len(found) != 1:
        raise ExactMoveError("the exact move needs one labelled predicate with a "
                             "leaf(_) clause and a node(_, _, _, _) clause (as "
                             "split_leaf/6 in priors/growtree.slp)")
    return found[0]


def _rows_of(node) -> int:
    for a in node.call.args:
        if type(a) is Struct and a.name == "rows" and len(a.args) == 1:
            return a.args[0]
    raise ExactMoveError(f"the tree node {node.call} has no row set argument")


def _setting(model):
    """(GROWTREE parameters, (tree predicate, leaf clause, node clause)) of a model the
    exact move applies to; ExactMoveError saying why not otherwise."""
    from .compile import detect_family    # the grammar modules: when first asked
    scorer = model.scorer
    fam = detect_family(model.program) if isinstance(scorer, TreeScorer) and \
        scorer.rowsets is not None else None
    if fam is None or fam[0] != "growtree":
        raise ExactMoveError("the exact move needs a GROWTREE prior (priors/growtree.slp: "
                             "uniform_split/3 and the parameters alpha, beta and "
                             "min_leaf) and data")
    refused = getattr(model, "not_growtree", None)    # the compiled path's check
    if refused:
        raise ExactMoveError(f"the exact move needs a GROWTREE prior: {refused}")
    lik = model.scorer.likelihood
    if lik is not None and type(lik) is not DirichletLikelihood:
        raise ExactMoveError("the exact move needs the Dirichlet likelihood")
    if not scorer.rowsets.dataset.plain:
        # its dynamic programme (slpy.pcfg.block) splits sorted numeric columns only
        raise ExactMoveError("the exact move needs numeric features without missing "
                             "values (these data have categorical features or missing "
                             "values)")
    return fam[1], _tree_predicate(model.program)


def exact_applies(model) -> bool:
    """Can the exact move run on this model (prior, data and likelihood)?"""
    try:
        _setting(model)
    except ExactMoveError:
        return False
    return True


def exact_move(model, name: str = "exact"):
    h_max = parse_depth(name)
    params, (pred, leaf_clause, node_clause) = _setting(model)
    lik = model.scorer.likelihood
    rs = model.scorer.rowsets
    block = GrowtreeBlock(rs, params["alpha"], params["beta"],
                          params["min_leaf"], None if lik is None else lik.alpha)

    p = rs.dataset.n_features
    m = params["min_leaf"]

    bounds: dict = {}      # row-set id -> H_k (ids are never reused)

    def bound(rid) -> int:
        """H_k: the deepest subtree the move redraws below a node of these rows."""
        h = bounds.get(rid)
        if h is None:
            cost = rs.size(rid) * p
            s = max(len(rs.valid_splits(rid, m)), 1)
            h = 0
            while h < h_max and cost * s <= WORK:
                cost *= s
                h += 1
            if len(bounds) > 200_000:
                bounds.clear()
            bounds[rid] = h
        return h

    def eligible(tree) -> list:
        """[(node, depth, H_k)] of the tree nodes whose subtree has depth <= H_k."""
        out = []
        tops = []
        stack = [tree]
        while stack:       # the topmost tree nodes, wherever they are in the proof
            n = stack.pop()
            for c in n.children:
                (tops if c.pred is pred else stack).append(c)
        for top in tops:
            # post-order without recursion: (node, depth, children done?)
            height = {}
            work = [(top, 0, False)]
            while work:
                n, d, done = work.pop()
                if n.key is not node_clause:
                    ht = 0
                elif not done:
                    work.append((n, d, True))
                    for c in n.children:
                        if c.pred is pred:
                            work.append((c, d + 1, False))
                    continue
                else:
                    ht = 1 + max((height[id(c)] for c in n.children if c.pred is pred),
                                 default=0)
                height[id(n)] = ht
                if ht <= h_max:
                    hk = bound(_rows_of(n))
                    if hk >= max(ht, 1):
                        out.append((n, d, hk))
        return out

    def forced_choices(path, sub):
        forced = {}
        it = iter(sub)

        def build(p):
            e = next(it)
            if e is None:
                forced[p] = leaf_clause
                return
            forced[p] = node_clause
            forced[p + (0,)] = e
            build(p + (1,))
            build(p + (2,))
        build(path)
        return forced

    def propose(rng, state, it, heat):
        E = eligible(state.tree)
        if not E:
            return None, -math.inf
        node, depth, hk = E[min(int(rng.random() * len(E)), len(E) - 1)]
        sub, log_prior = block.sample(_rows_of(node), depth, hk, heat, rng)
        forced = forced_choices(node.path, sub)
        new, r = model.local(state, forced, rng, strict=node.path)
        if new is None:
            raise ExactMoveError("the exact move's subtree could not be proved: the prior "
                                 "is not shaped as GROWTREE")
        if not abs(r.log_forced - log_prior) <= 1e-9 * max(1.0, abs(log_prior)):
            raise ExactMoveError(f"the exact move's subtree has log prior "
                                 f"{r.log_forced:.12g} in the program but {log_prior:.12g} "
                                 f"in the grammar: the prior is not GROWTREE")
        # The conditional it was drawn from holds the rest of the proof fixed: if the
        # rest changed (a fresh or dropped choice outside the subtree, a kept one
        # re-weighed), reject. The reverse move meets the same case, so this is exact.
        outside = state.d - node.size()
        if (r.n_fresh or r.log_kept != 0.0
                or new.d - len(forced) + 1 != outside):
            return None, -math.inf
        n_new = len(eligible(new.tree))
        return new, (math.log(len(E)) - math.log(n_new)
                     - heat * (new.log_lik - state.log_lik))
    return Move(name, propose)


# warm: compile the block's kernels while the data and the program load
register_move(FamilyMove("exact", parse_depth, exact_applies, exact_move,
                         compile_in_background))
