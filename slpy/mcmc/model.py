"""The posterior an MCMC run targets: an SLP prior over model terms, a query, and a
model family's scorer bound to the data (slpy.family). It turns proofs into states and
regrows them; it knows nothing of any kind of model. :func:`build_model` makes one
from a run's settings, reading the prior from its text (which is what travels to a
worker, not the file's path)."""
from __future__ import annotations

from dataclasses import dataclass
from pathlib import Path

from ..errors import RunError
from ..terms.walk import copy_term
from ..terms.term import deref
from ..logic.kinds import ReplayReject
from ..logic.params import ParamError
from ..terms.term import PrologError
from ..family import Scorer
from .config import family_of


@dataclass(frozen=True)
class State:
    """What the next step needs: the proof tree, the model term and its cached scores."""
    tree: object          # ProofNode: the root of the proof tree
    term: object          # the model term (the query's answer)
    log_lik: float
    d: int                # d_T: the number of choice points in the proof
    stats: tuple          # the family's traced integers (Scorer.stats)

    @property
    def cold(self) -> "State":
        """The state that is sampled (itself: a tempered kernel's has several)."""
        return self


class TermScorer(Scorer):
    """The prior alone, for any model term: keyed by its text."""

    def score(self, term):
        return 0.0, ()

    def key(self, term) -> str:
        from ..terms.writer import term_to_text
        return term_to_text(term, quoted=True)


class PosteriorModel:
    """prior (Program + query with one answer variable) x a family's score."""

    def __init__(self, program, query: str, scorer: Scorer | None = None, answer=None):
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
        self.scorer = scorer if scorer is not None else TermScorer()

    def _fresh_goal(self):
        mapping = {}
        g = copy_term(self.goal, mapping)
        return g, mapping.get(self.answer, self.answer)

    def log_lik(self, term) -> float:
        return self.scorer.score(term)[0]

    def _state(self, tree, term) -> State:
        lik, stats = self.scorer.score(term)
        return State(tree, term, lik, tree.size(), stats)

    def _recorded(self, tree):
        """A state of the proof `tree` of the prior's query, proved again by replay with
        every choice forced to its recorded one: the probabilities the moves compare
        (slpy.logic.replay), whatever mode recorded `tree`. None when the sampler
        cannot replay it (the prior backtracks into a stochastic choice to reach it)."""
        goal, ans = self._fresh_goal()
        try:
            r = self.engine.replay(goal, tree, None, forced={n.path: n.key for n in tree},
                                   strict=())
        except ReplayReject:
            return None
        return self._state(r.tree, deref(ans))

    def sample_prior(self, rng, max_tries: int = 1000) -> State:
        """A state drawn from the prior (backtrackable sampling), as the moves replay it."""
        unreplayable = 0
        for _ in range(max_tries):
            goal, ans = self._fresh_goal()
            ok, tree, _ = self.engine.run_sampling(goal, rng, record=True)
            if ok:
                state = self._recorded(tree)
                if state is not None:
                    return state
                unreplayable += 1
        if unreplayable:
            raise RuntimeError(
                f"the prior's samples cannot be replayed ({unreplayable} of {max_tries}): "
                f"it reaches its answers by backtracking into stochastic choices, which "
                f"the sampler's moves do not do (docs/mcmc.md, 'What the sampler targets')")
        raise RuntimeError("the prior failed to produce a model in 1000 tries")

    def state_from_term(self, term, rng, max_tries: int = 200000) -> State:
        """A state whose model is `term` (a model term without or with row sets): found
        by sampling from the prior constrained to that model."""
        from ..terms.unify import unify, undo_to
        key = self.scorer.key
        target = key(term)
        # run the query with the answer pre-bound to the wanted structure
        for _ in range(max_tries):
            goal, ans = self._fresh_goal()
            mark = len(self.engine.trail)
            if not unify(ans, self.scorer.pattern(term), self.engine.trail):
                undo_to(self.engine.trail, mark)
                raise ValueError("the initial model does not match the query's answer")
            ok, tree, _ = self.engine.run_sampling(goal, rng, record=True)
            if ok and key(deref(ans)) == target:
                # With the answer bound, choices the tree decides were recorded with
                # probability 1; replaying every choice with the answer open records
                # their prior probabilities, as later moves will.
                state = self._recorded(tree)
                if state is not None:
                    return state
        raise ValueError("the prior gives the initial tree probability 0")

    def replay(self, state: State, rng, forced=None, cut=None, strict=None):
        """(new state, slpy.logic.replay.Replayed) of a move on `state`: the choices at
        the paths of `forced` set, those at and below `cut` drawn afresh, the rest kept
        where they still apply; (None, None) when the move cannot be made."""
        goal, ans = self._fresh_goal()
        try:
            r = self.engine.replay(goal, state.tree, rng, forced, cut, strict)
        except ReplayReject as e:
            if strict is not None and e.args == ("unforced",):
                raise
            return None, None
        return self._state(r.tree, deref(ans)), r

    def regrow(self, state: State, cut: tuple, rng):
        """Prune at the node at path `cut` and regrow from the prior: (new state,
        Replayed) or (None, None)."""
        return self.replay(state, rng, cut=cut)

    def local(self, state: State, forced: dict, rng, strict: tuple | None = None):
        """A local move: the choices at the paths of `forced` set: (new state,
        Replayed) or (None, None)."""
        return self.replay(state, rng, forced=forced, strict=strict)


def read_prior(path) -> str:
    """The text of a prior file, as Program.consult reads it (one that does not read is
    a LoadErrors naming the file)."""
    from ..logic.program import _source_text
    return _source_text(Path(path))


def build_model(cfg, train, limits=None, prior_text: str | None = None) -> PosteriorModel:
    """The posterior of cfg's prior on `train`: the prior from `prior_text` (named
    cfg["prior"] in its messages), else read from the file cfg["prior"]; `limits`:
    Program() keyword arguments (slpy.limits.program_limits) for each query."""
    from ..logic.program import Program
    family = family_of(cfg)
    p = Program(**(limits or {}))
    p.consult_text(read_prior(cfg["prior"]) if prior_text is None else prior_text,
                   str(cfg["prior"]))
    set_params(p, cfg.get("params") or {}, cfg["prior"])
    scorer = family.bind(p, train, cfg)
    return PosteriorModel(p, cfg.get("query") or family.query, scorer)


def set_params(p, params: dict, prior) -> None:
    """Set the parameters of the prior (file `prior`) loaded in Program `p` from -p:
    name -> a value's text or a term. A name the prior does not declare, a text that
    does not read and a value outside the parameter's declared domain are each a
    one-line RunError naming -p (the user's input, not the prior's)."""
    for k, v in params.items():
        if k not in p.params:
            declared = ", ".join(sorted(p.params)) or "none"
            raise RunError(f"-p {k}: {prior} declares no parameter {k} "
                           f"(declared: {declared})")
        try:
            p.set_param(k, p.parse_query(v)[0] if isinstance(v, str) else v)
        except ParamError as e:      # outside the domain the prior declares
            raise RunError(f"-p {e}") from None
        except PrologError as e:     # a value that does not read: the user's, not the prior's
            why = getattr(e, "message", None) or str(e).splitlines()[0]
            col = getattr(e, "col", None)
            raise RunError(f"-p {k}={v}: not a term ({why}"
                           + (f" at column {col})" if col else ")")) from None


def initial_term(cfg, model, train, init_text: str | None = None):
    """The model term a chain starts from (None: a draw from the prior): the family's
    named start (``--init greedy``), else the term in the file cfg["init"], whose text
    is `init_text` when given."""
    init = cfg.get("init") or "prior"
    if init == "prior":
        return None
    named = family_of(cfg).initial_term(cfg, model, train)
    if named is not None:
        return named
    text = Path(init).read_text() if init_text is None else init_text
    term, _ = model.program.parse_query(text.strip().rstrip("."))
    return term


def initial_state(model, term, rng) -> State:
    """A chain's first state: a draw from the prior, or the proof of `term`."""
    if term is None:
        return model.sample_prior(rng)
    return model.state_from_term(term, rng)
