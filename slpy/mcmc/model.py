"""The posterior an MCMC run targets: an SLP prior over model terms, a query, data and
a likelihood plugin. It turns proofs into states and regrows them."""
from __future__ import annotations

from dataclasses import dataclass

from ..logic.terms import Struct, copy_term, deref, Var
from ..logic.kinds import ReplayReject
from ..trees.model import leaf_row_ids, leaves_and_depth, shape, canonical


@dataclass(frozen=True)
class State:
    """What the next step needs: the proof tree, the model term and its cached scores."""
    tree: object          # ProofNode: the root of the proof tree
    term: object          # the model term (the query's answer)
    log_lik: float
    d: int                # d_T: the number of choice points in the proof
    leaves: int
    depth: int


class PosteriorModel:
    """prior (Program + query with one answer variable) x likelihood."""

    def __init__(self, program, query: str = "cart(T)", likelihood=None, answer=None):
        self.program = program
        self.engine = program.engine
        goal, varnames = program.parse_query(query)
        names = [n for n in varnames if not n.startswith("_")]
        if answer is None:
            if len(names) != 1:
                raise ValueError(f"the query {query!r} must have exactly one variable "
                                 f"for the model (it has {', '.join(names) or 'none'})")
            answer = names[0]
        self.goal = goal
        self.answer = varnames[answer]
        self.likelihood = likelihood
        self.rowsets = getattr(program, "rowsets", None)

    def _fresh_goal(self):
        mapping = {}
        g = copy_term(self.goal, mapping)
        return g, mapping.get(self.answer, self.answer)

    def log_lik(self, term) -> float:
        if self.likelihood is None:
            return 0.0
        return self.likelihood.log_likelihood(self.rowsets, leaf_row_ids(term))

    def _state(self, tree, term) -> State:
        if self.likelihood is None:  # any model term, not only trees
            leaves, depth = shape(term)
            return State(tree, term, 0.0, tree.size(), leaves, depth)
        ids, depth = leaves_and_depth(term)
        lik = self.likelihood.log_likelihood(self.rowsets, ids)
        return State(tree, term, lik, tree.size(), len(ids), depth)

    def sample_prior(self, rng, max_tries: int = 1000) -> State:
        """A state drawn from the prior (backtrackable sampling)."""
        for _ in range(max_tries):
            goal, ans = self._fresh_goal()
            ok, tree, _ = self.engine.run_sampling(goal, rng, record=True)
            if ok:
                return self._state(tree, deref(ans))
        raise RuntimeError("the prior failed to produce a model in 1000 tries")

    def state_from_term(self, term, rng, max_tries: int = 200000) -> State:
        """A state whose model is `term` (a model term without or with row sets): found
        by sampling from the prior constrained to that model."""
        from ..logic.terms import unify, undo_to
        target = canonical(term)
        # run the query with the answer pre-bound to the wanted structure
        for _ in range(max_tries):
            goal, ans = self._fresh_goal()
            mark = len(self.engine.trail)
            if not unify(ans, _open_leaves(term), self.engine.trail):
                undo_to(self.engine.trail, mark)
                raise ValueError("the initial tree does not match the query's answer")
            ok, tree, _ = self.engine.run_sampling(goal, rng, record=True)
            if ok and canonical(deref(ans)) == target:
                # With the answer bound, choices the tree decides were recorded with
                # probability 1; replaying every choice with the answer open records
                # their prior probabilities, as later regrowths will.
                goal, ans = self._fresh_goal()
                try:
                    tree, _ = self.engine.run_replay(goal, tree, (-1,), rng)
                except ReplayReject:
                    continue
                return self._state(tree, deref(ans))
        raise ValueError("the prior gives the initial tree probability 0")

    def regrow(self, state: State, cut: tuple, rng):
        """(new state, log factor) or (None, 0.0) when the kept choices do not replay."""
        goal, ans = self._fresh_goal()
        try:
            tree, logfactor = self.engine.run_replay(goal, state.tree, cut, rng)
        except ReplayReject:
            return None, 0.0
        return self._state(tree, deref(ans)), logfactor

    def local(self, state: State, forced: dict, rng, strict: tuple | None = None):
        """A local move's new state (slpy.logic.replay, run_local): (state, log reuse
        factor, log probability of the forced choices), or None when the move cannot be
        made."""
        goal, ans = self._fresh_goal()
        try:
            tree, log_reuse, log_forced = self.engine.run_local(goal, state.tree, forced,
                                                                rng, strict)
        except ReplayReject as e:
            if strict is not None and e.args == ("unforced",):
                raise
            return None
        return self._state(tree, deref(ans)), log_reuse, log_forced


def _open_leaves(term):
    """The model term with each leaf's row set left open (the prior computes it)."""
    t = deref(term)
    if type(t) is Struct and t.name == "node" and len(t.args) == 4:
        return Struct("node", (t.args[0], t.args[1], _open_leaves(t.args[2]),
                               _open_leaves(t.args[3])))
    return Struct("leaf", (Var(),))
