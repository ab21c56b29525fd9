"""Parameter learning by EM: failure-adjusted maximisation (FAM, Cussens 2001) and
inside-outside over the explanation graph, with an optional Dirichlet prior (MAP).

The data are goals x seen n_x times (N in all), each an instance of a top goal G
(``s(_)`` by default). An SLP gives G's refutations probabilities summing to
Z = P(G succeeds) <= 1, and the observed answers are draws conditional on success:

    log-likelihood  L(theta) = sum_x n_x log P(x) - N log Z.

FAM is EM for this model (a sample is the failed derivations before the refutation
that is seen): the expected count of clause j is

    psi_j = sum_x n_x E[nu_j | x]  +  (N / Z) sum over failed derivations d of P(d) nu_j(d)

(the second term is N (1/Z - 1) E[nu_j | failure]: the expected number of failures
before N successes times their expected use of j), and the M-step sets theta_j to
psi_j over the sum of psi of its predicate. The first term is inside-outside on the
explanation graph of the data (slpy.learning.graph, .inside); the second comes from
the failed derivations of G (slpy.learning.explore), exact when G's derivation tree
is finite. ``algorithm="io"`` leaves the second term out (PRISM's assumption that the
program never fails); "auto" is "io" for programs with tabled predicates, "fam" else.

A Dirichlet(alpha) prior on each predicate's labels makes the M-step
theta_j ~ max(psi_j + alpha - 1, 0) (MAP; alpha >= 1 keeps it inside the simplex),
and the objective L + sum_j (alpha - 1) log theta_j. The exact posterior is not a
Dirichlet (the data are incomplete); ``posterior_mean`` is the mean of the Dirichlet
with parameters psi_j + alpha at the MAP estimate, the usual variational-Bayes
(mean-field) approximation to the posterior mean.
"""
from __future__ import annotations

import math
from dataclasses import dataclass, field

import numpy as np

from ..terms.term import Struct, Var, Atom
from ..terms.unify import unify, undo_to
from ..terms.walk import copy_term
from .explore import explore
from .graph import Graph
from .inside import flow, inside
from .observations import as_observations
from .params import LearnError, Params

__all__ = ["learn", "LearnResult", "parse_prior"]

ALGORITHMS = ("auto", "fam", "io")


@dataclass
class LearnResult:
    """What :func:`learn` found. ``theta`` is per learned clause (``params.clauses``),
    normalised per predicate; ``log_likelihoods[i]`` is L at the labels of iteration
    i + 1 (the last is L at ``theta``)."""
    params: Params
    theta: np.ndarray
    log_likelihoods: list
    log_posteriors: list
    iterations: int
    converged: bool
    algorithm: str
    alpha: float | None = None
    posterior_mean: np.ndarray | None = None
    failure_prob: float = 0.0
    unexplored: float = 0.0
    warnings: list = field(default_factory=list)

    @property
    def log_likelihood(self) -> float:
        return self.log_likelihoods[-1]

    def labels(self, estimate: str = "map") -> dict:
        """{'p/1': [label of clause 1, ...], ...} (``estimate``: map or mean)."""
        th = self.theta if estimate == "map" else self.posterior_mean
        if th is None:
            raise ValueError("the posterior mean needs a prior (alpha)")
        out: dict = {}
        for j, c in enumerate(self.params.clauses):
            out.setdefault(self.params.names[self.params.group[j]], []).append(float(th[j]))
        return out

    def apply(self, estimate: str = "map") -> None:
        """Set the learned labels on the program's clauses (sampling and queries use
        them from now on)."""
        th = self.theta if estimate == "map" else self.posterior_mean
        for c, v in zip(self.params.clauses, th):
            c.ground_label = float(v)
            c.label = float(v)


def parse_prior(spec):
    """None, a number (alpha), or 'dirichlet:ALPHA' -> alpha or None."""
    if spec is None or spec is False:
        return None
    if isinstance(spec, (int, float)):
        alpha = float(spec)
    else:
        kind, _, val = str(spec).partition(":")
        if kind.strip() != "dirichlet":
            raise LearnError(f"{spec!r}: the prior is dirichlet:ALPHA, e.g. dirichlet:2")
        try:
            alpha = float(val)
        except ValueError:
            raise LearnError(f"{spec!r}: ALPHA must be a number, e.g. dirichlet:2") from None
    if not (math.isfinite(alpha) and alpha > 0):
        raise LearnError(f"dirichlet:{alpha:g}: ALPHA must be a finite number > 0")
    return alpha


def top_goal(program, obs, goal=None):
    """The goal the observations are answers of, checked against each of them."""
    if goal is None:
        keys = {(o.goal.name, len(o.goal.args) if type(o.goal) is Struct else 0)
                for o in obs}
        if len(keys) > 1:
            raise LearnError("the observations are goals of several predicates: give the "
                             "top goal they answer (--goal)")
        name, arity = keys.pop()
        goal = Struct(name, tuple(Var() for _ in range(arity))) if arity else Atom(name)
    elif isinstance(goal, str):
        goal = program.parse_query(goal)[0]
    trail: list = []
    for o in obs:
        ok = unify(copy_term(goal), o.goal, trail)
        undo_to(trail, 0)
        if not ok:
            from ..terms.writer import term_to_text
            raise LearnError(f"{o.where}: {o.text} is not an instance of the top goal "
                             f"{term_to_text(goal, quoted=True)}")
    return goal


class _Model:
    """The E-step: inside-outside on the data's graph plus the failure term."""

    def __init__(self, graph, roots, weights, fails, params):
        self.g = graph
        self.roots = roots
        self.weights = weights
        self.N = float(weights.sum())
        self.params = params
        m = len(params)
        self.fail_logc = np.array([lc for _, lc in fails])
        from scipy import sparse
        rows = [r for r, (cnt, _) in enumerate(fails) for _ in cnt]
        cols = [j for cnt, _ in fails for j in cnt]
        vals = [n for cnt, _ in fails for n in cnt.values()]
        self.FC = sparse.csr_matrix((np.asarray(vals, float), (rows, cols)),
                                    shape=(len(fails), m))

    def estep(self, theta):
        with np.errstate(divide="ignore"):
            logt = np.log(theta)
        logI, s = inside(self.g, logt)
        w = np.zeros(self.g.n_nodes)
        w[self.roots] = self.weights
        f = flow(self.g, logI, s, w)
        counts = self.g.CT @ f
        ll = float(self.weights @ logI[self.roots])
        fail = 0.0
        if self.FC.shape[0]:
            with np.errstate(invalid="ignore"):
                lp = self.fail_logc + self.FC @ logt
            p = np.exp(np.nan_to_num(lp, nan=-np.inf))
            fail = float(p.sum())
            z = 1.0 - fail
            if z <= 0:
                raise LearnError("the top goal fails with probability 1 at these labels")
            ll -= self.N * math.log(z)
            counts = counts + (self.N / z) * (self.FC.T @ p)
        return ll, counts, fail


def _log_prior(theta, alpha):
    if alpha is None or alpha == 1.0:
        return 0.0
    with np.errstate(divide="ignore", invalid="ignore"):
        return float(np.sum((alpha - 1.0) * np.log(theta)))


def learn(program, observations, predicates=None, algorithm: str = "auto", goal=None,
          prior=None, max_iter: int = 200, tol: float = 1e-6, min_prob: float = 1e-12,
          max_leaves: int = 100_000, init=None, callback=None) -> LearnResult:
    """Estimate the labels of ``predicates`` (default: every labelled predicate) of a
    loaded Program from observed goals (see slpy.learning.observations for the forms
    ``observations`` may take), by EM (see the module docstring). Stops when an
    iteration raises the objective by less than ``tol`` or after ``max_iter``
    iterations; ``callback(iteration, log_likelihood, log_posterior)`` is called at
    each. The program is not changed: see LearnResult.apply and write_labels."""
    if algorithm not in ALGORITHMS:
        raise LearnError(f"{algorithm!r}: the algorithm is one of {', '.join(ALGORITHMS)}")
    alpha = parse_prior(prior)
    params = Params(program, predicates)
    obs = as_observations(program, observations)
    goal = top_goal(program, obs, goal)
    eng = program.engine
    if algorithm == "auto":
        algorithm = "io" if program.tabled else "fam"
    g = Graph(params)
    roots = []
    for o in obs:
        v = g.add_goal(eng, copy_term(o.goal))
        if v is None:
            raise LearnError(f"{o.where}: {o.text} has no refutation: its probability is "
                             f"0 under the program, whatever the learned labels")
        roots.append(v)
    warnings = []
    fails, unexplored = [], 0.0
    if algorithm == "fam":
        ex = explore(eng, goal, params, min_prob=min_prob, max_leaves=max_leaves)
        fails, unexplored = ex.fails, ex.unexplored
        if not ex.complete:
            warnings.append(f"the derivation tree of the top goal was walked down to "
                            f"probability {min_prob:g} ({ex.leaves} leaves): a mass of "
                            f"{unexplored:.3g} is left out of the failure term")
    model = _Model(g.freeze(), np.asarray(roots), np.array([o.count for o in obs], float),
                   fails, params)
    theta = params.theta0.copy() if init is None else np.asarray(init, float)
    lls, lps = [], []
    converged = False
    it = 0
    for it in range(1, max_iter + 1):
        ll, counts, fail = model.estep(theta)
        lp = ll + _log_prior(theta, alpha)
        lls.append(ll)
        lps.append(lp)
        if callback is not None:
            callback(it, ll, lp)
        if it > 1 and lp - lps[-2] < tol:
            converged = True
            break
        if it == max_iter:
            break
        theta = _mstep(params, counts, alpha, theta)
    mean = None
    if alpha is not None:
        mean = params.normalise(counts + alpha)
    return LearnResult(params, theta, lls, lps, it, converged, algorithm, alpha, mean,
                       fail, unexplored, warnings)


def _mstep(params, counts, alpha, old):
    a = counts if alpha is None else np.maximum(counts + (alpha - 1.0), 0.0)
    new = params.normalise(a)
    bad = ~np.isfinite(new)
    new[bad] = old[bad]          # a predicate no derivation uses keeps its labels
    return new
