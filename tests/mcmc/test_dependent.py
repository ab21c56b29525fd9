"""Proof-tree MCMC on programs whose choice structure depends on earlier choices
(tests/mcmc/programs.py: partitions, agreement, pick-then-draw, a DAG, random lengths,
failures, stochastic builtins, guards, walks, depth by choice) samples the exact
normalised SLP distribution, prior (flat likelihood) and posterior (a small-data
likelihood per program), with every move.

- References: each program's exact answer distribution is computed twice, by a
  plain-Python model of its generative process and by the engine's enumeration
  (``Program.proofs``, pure semantics), and the two must agree.
- Stationarity (*replicas*): many replicas start from exact draws of the target, each
  takes a few steps of the plain kernel of one move, and where they end must follow
  the target (chi-square). A kernel that leaves the target invariant passes whatever
  its mixing; a wrong acceptance ratio is caught after a step or two. This is the
  sensitive test, run for every program x move.
- Visits (*chains*): a chain run by slpy.mcmc.sampler.run_chain (plain, or tempered
  with the paper's ladder and random swaps), thinned, must visit the answers with the
  exact frequencies (chi-square). Some of these chains are sticky (a change to an
  early choice of `distinct` or `ising` is mostly rejected: their autocorrelation
  times reach 50-100 iterations), so thinning alone does not make the kept states
  independent: the counts are divided by the chain's own variance inflation, measured
  by batch means (batch_inflation, a first-order Rao-Scott correction), and a chain
  whose batches are too short to measure it is run again, longer. A chain stuck in
  a few states has no between-batch variance and is not excused by it.

`swap` and `perturb` alone do not connect the state space (they change builtin draws
only), so their chains run as ``q0:0.5,swap:0.5`` and ``q0:0.5,perturb:0.5``; their
replica tests use them alone. On programs with no choice points they act on, the test
is that they never change the state.

Every check uses fixed seeds. A correct sampler fails a chi-square test at p <= 0.01
one time in a hundred, and there are hundreds here: a p-value between 1e-6 and 0.01 is
looked at again with a second fixed seed, and the test fails only when both are
below 0.01 (a real bias gives p far below 1e-6 at these sample sizes).

The default suite runs every program with `uc` and `default`, both likelihoods, as
replicas and chains, plus one tempered chain per program; ``-m slow`` runs the whole
cross product of programs x moves x {untempered, tempered} x {flat, data}.
"""
from __future__ import annotations

import math
import zlib
from collections import Counter

import numpy as np
import pytest

from slpy import Program
from slpy.family import Scorer
from slpy.mcmc.config import RunConfig
from slpy.mcmc.kernel import build_kernel
from slpy.mcmc.model import PosteriorModel, TermScorer
from slpy.mcmc.moves import Move, make_moves
from slpy.mcmc.sampler import run_chain

from .programs import CASES, BY_NAME, posterior
from .test_correctness import chi2_pvalue

MOVES = ["uc", "q0", "cycle:3", "change", "swap", "perturb", "default"]
# alone, swap and perturb only move builtin draws: a chain needs a move that reaches
# every state beside them
CHAIN_SPEC = {"swap": "q0:0.5,swap:0.5", "perturb": "q0:0.5,perturb:0.5"}
# thinning of the chains: a local move changes one choice a step
THIN = {"uc": 4, "q0": 2, "cycle:3": 4, "change": 8, "swap": 3, "perturb": 3,
        "default": 4}
N_KEEP = 1500          # kept states of a chain
BURN_IN = 200
TEMPER = 3             # replicas of a tempered chain (the paper's ladder, dT = 0.2)
N_REPLICAS = 2000      # replicas of a stationarity test
STEPS = 3              # kernel steps each replica takes
ALPHA = 0.01           # chi-square level
RECHECK = 1e-6         # below this a p-value is not looked at again
BATCHES = 20           # batches of a chain for its autocorrelation (batch_inflation)
MAX_LONGER = 4         # how much longer a sticky chain may be run


class KeyScorer(Scorer):
    """A small-data likelihood: a fixed log-likelihood per answer key (a table or a
    formula of the program's), keyed as TermScorer keys answers."""

    def __init__(self, loglik):
        self.loglik = loglik
        self._key = TermScorer().key
        self._cache = {}

    def key(self, term) -> str:
        return self._key(term)

    def score(self, term):
        k = self.key(term)
        v = self._cache.get(k)
        if v is None:
            try:
                v = float(self.loglik(k))
            except Exception:       # not an answer of the program: the chi-square
                v = 0.0             # test reports the visit
            self._cache[k] = v
        return v, ()


def _answer_var(query: str) -> str:
    return query[query.index("(") + 1:query.rindex(")")]


def engine_reference(case):
    """key -> probability from every proof the engine enumerates (pure semantics),
    and the number of proofs of each answer."""
    p = Program()
    p.consult_text(case.text, f"{case.name}.slp")
    var = _answer_var(case.query)
    key = TermScorer().key
    probs, proofs = Counter(), Counter()
    for pr in p.proofs(case.query):
        k = key(pr.bindings[var])
        probs[k] += pr.prob
        proofs[k] += 1
    z = sum(probs.values())
    return {k: v / z for k, v in probs.items()}, proofs


class Target:
    """A program's model with a flat or a small-data likelihood, and its exact
    distribution over answer keys."""

    def __init__(self, case, data: bool):
        self.case = case
        self.program = Program()
        self.program.consult_text(case.text, f"{case.name}.slp")
        scorer = KeyScorer(case.loglik) if data else TermScorer()
        self.model = PosteriorModel(self.program, case.query, scorer)
        prior = case.reference()
        self.probs = posterior(prior, case.loglik) if data else prior
        self._states = {}

    def state(self, key, rng):
        """The state whose answer is `key` (each answer has one proof here)."""
        s = self._states.get(key)
        if s is None:
            term = self.program.parse_query(key)[0]
            s = self._states[key] = self.model.state_from_term(term, rng)
        return s


_TARGETS: dict = {}


def target(name: str, data: bool) -> Target:
    t = _TARGETS.get((name, data))
    if t is None:
        t = _TARGETS[(name, data)] = Target(BY_NAME[name], data)
    return t


def seed_of(*parts) -> int:
    return zlib.crc32("/".join(map(str, parts)).encode()) % 100_000


# -- the two checks ---------------------------------------------------------------------------
def replica_counts(t: Target, spec, seed: int, n: int = N_REPLICAS, steps: int = STEPS):
    """Where n replicas end after `steps` steps of the kernel of `spec` (a proposal
    spec, or a list of (Move, weight)), each started from an exact draw of the target
    (at a random iteration number, for cycle:N), and how many steps changed the
    state."""
    m = t.model
    kernel = build_kernel(m, spec)
    rng = np.random.default_rng(seed)
    keys = sorted(t.probs)
    p = np.array([t.probs[k] for k in keys])
    counts, changed = Counter(), 0
    for i in rng.choice(len(keys), size=n, p=p / p.sum()):
        s = t.state(keys[i], rng)
        it0 = int(rng.integers(0, 4))
        for it in range(it0, it0 + steps):
            s2, _ = kernel(rng, s, it)
            changed += s2 is not s
            s = s2
        counts[m.scorer.key(s.term)] += 1
    return counts, changed


def chain_counts(t: Target, spec: str, seed: int, temper: int = 1):
    """Visits of the cold chain of run_chain (plain, or tempered: the paper's ladder,
    random swaps), after a burn-in, thinned; and the chain's inflation factor tau
    (batch_inflation). A chain whose batches are shorter than 20 tau (a sticky one:
    its tau would be underestimated) is run again, longer (up to MAX_LONGER times)."""
    n_keep = N_KEEP if temper == 1 else N_KEEP * 2 // 3
    longer = 1
    while True:
        kept = _chain(t, spec, seed, temper, n_keep * longer)
        tau = batch_inflation(kept, t.probs)
        m = len(kept) // BATCHES
        if m >= 20 * tau or longer >= MAX_LONGER:
            return Counter(kept), tau
        longer = min(MAX_LONGER, longer * 2 ** math.ceil(math.log2(20 * tau / m)))


def _chain(t: Target, spec: str, seed: int, temper: int, n_keep: int) -> list:
    thin = THIN[spec]
    cfg = RunConfig(proposal=CHAIN_SPEC.get(spec, spec), temper=temper, ladder="paper",
                    delta_t=0.2, swap="random", iterations=BURN_IN + n_keep * thin,
                    burn_in=BURN_IN, thin=thin, seed=seed)
    key = t.model.scorer.key
    kept = []

    def count(sw):
        if sw.kept:
            kept.append(key(sw.state.term))
    run_chain(t.model, cfg, 0, [count])
    return kept


def batch_inflation(seq, probs, batches: int = BATCHES) -> float:
    """How much the chain's autocorrelation inflates the variance of its visit
    frequencies over independent draws (the design effect, >= 1): the variance of
    each answer's frequency between consecutive batches of the chain, against the
    multinomial p (1 - p) / m of a batch of m independent draws, pooled over answers
    (batch means). Dividing the counts by it gives the chi-square test the chain's
    effective sample size (a first-order Rao-Scott correction)."""
    m = len(seq) // batches
    if m < 2:
        return 1.0
    index = {k: i for i, k in enumerate(probs)}
    freq = np.zeros((batches, len(index) + 1))
    for b in range(batches):
        for k in seq[b * m:(b + 1) * m]:
            freq[b, index.get(k, len(index))] += 1
    freq /= m
    p = np.array([probs[k] for k in index] + [0.0])
    between = freq.var(axis=0, ddof=1).sum()
    independent = (p * (1 - p)).sum() / m
    return max(1.0, float(between / independent))


def _pvalue(counts, probs, tau=1.0):
    outside = set(counts) - set(probs)
    assert not outside, f"visited answers outside the program's: {sorted(outside)[:5]}"
    return chi2_pvalue({k: c / tau for k, c in counts.items()}, probs)


def check(run, probs, seed, what):
    """chi-square p > ALPHA at `seed` (run(seed) -> (counts, tau)); a borderline p-value
    is looked at again with a second seed (see the module's docstring)."""
    counts, tau = run(seed)
    p = _pvalue(counts, probs, tau)
    if p > ALPHA:
        return p
    msg = f"{what}: chi-square p = {p:.3g} (seed {seed}, tau {tau:.1f})"
    if p >= RECHECK:
        counts2, tau2 = run(seed + 1)
        p2 = _pvalue(counts2, probs, tau2)
        if p2 > ALPHA:
            return p2
        msg += f", p = {p2:.3g} (seed {seed + 1}, tau {tau2:.1f})"
    pytest.fail(f"{msg}; most off: {_worst(counts, probs)}", pytrace=False)


def _worst(counts, probs, k=3):
    n = sum(counts.values())
    rows = sorted(probs, key=lambda a: -abs(counts.get(a, 0) - n * probs[a])
                  / math.sqrt(n * probs[a]))
    return ", ".join(f"{a} {counts.get(a, 0) / n:.3f} (exact {probs[a]:.3f})"
                     for a in rows[:k])


# -- parameters --------------------------------------------------------------------------------
NAMES = [c.name for c in CASES]
DEFAULT_MOVES = ("uc", "default")      # the default suite's moves


def _acts(case, move):
    return {"swap": case.swap, "perturb": case.perturb}.get(move, True)


def _lik(data):
    return "data" if data else "flat"


def _grid(tempers=(1,)):
    """(program, move, temper, data) for every move that acts on the program: the
    default subset (DEFAULT_MOVES untempered, and `default` tempered with the data)
    in the default suite, the rest marked slow."""
    out = []
    for c in CASES:
        for mv in MOVES:
            if not _acts(c, mv):
                continue
            for temper in tempers:
                for data in (False, True):
                    fast = mv in DEFAULT_MOVES and (
                        temper == 1 or (mv == "default" and data))
                    id_ = f"{c.name}-{mv}-{_lik(data)}" + (
                        f"-tempered{temper}" if temper > 1 else "")
                    out.append(pytest.param(c.name, mv, temper, data, id=id_,
                                            marks=() if fast else (pytest.mark.slow,)))
    return out


# -- the references ---------------------------------------------------------------------------
@pytest.mark.parametrize("name", NAMES)
def test_reference_equals_the_engines_enumeration(name):
    case = BY_NAME[name]
    want = case.reference()
    got, proofs = engine_reference(case)
    assert 3 <= len(want) <= 30
    assert abs(sum(want.values()) - 1) < 1e-12
    assert set(got) == set(want)
    for k, x in want.items():
        assert got[k] == pytest.approx(x, rel=1e-9, abs=1e-12), k
    # one proof per answer: an answer names its proof (the replicas start from it)
    assert set(proofs.values()) == {1}


@pytest.mark.parametrize("name", NAMES)
def test_the_small_data_posterior_differs_from_the_prior(name):
    case = BY_NAME[name]
    prior = case.reference()
    post = posterior(prior, case.loglik)
    tv = 0.5 * sum(abs(post[k] - prior[k]) for k in prior)
    assert tv > 0.15, f"total variation {tv:.3f}"


@pytest.mark.parametrize("name", NAMES)
def test_every_answer_makes_a_state(name):
    t = target(name, False)
    rng = np.random.default_rng(seed_of(name, "states"))
    key = t.model.scorer.key
    for k in t.probs:
        s = t.state(k, rng)
        assert key(s.term) == k
        assert s.d == s.tree.size() >= 1


@pytest.mark.parametrize("move", ["swap", "perturb"])
@pytest.mark.parametrize("name", NAMES)
def test_swap_and_perturb_act_only_where_the_program_has_their_choice_points(name, move):
    """Where they act they change some states; where the program has no choice points
    for them (no uniform builtin draw for perturb, no builtin below a sibling of the
    same builtin for swap) they never change the state."""
    t = target(name, False)
    _, changed = replica_counts(t, move, seed_of(name, move, "acts"), n=300, steps=2)
    if _acts(BY_NAME[name], move):
        assert changed > 0
    else:
        assert changed == 0


# -- stationarity: replicas from exact draws ------------------------------------------------
@pytest.mark.parametrize("name,move,temper,data", _grid())
def test_moves_leave_the_target_invariant(name, move, temper, data):
    t = target(name, data)
    seed = seed_of(name, move, data, "replicas")
    check(lambda s: (replica_counts(t, move, s)[0], 1.0), t.probs, seed,
          f"{name} {move} {_lik(data)} replicas")


@pytest.mark.parametrize("spec", ["uc", "change"])
@pytest.mark.parametrize("name", ["geometric", "tree"])
def test_the_replicas_catch_a_move_without_its_d_ratio(name, spec):
    """The same move without its d_T / d_T' factor (the probability of picking the
    node, in both directions) is caught where d_T varies."""
    t = target(name, False)
    (move, _), = make_moves(t.model, spec)

    def propose(rng, state, it, heat):
        new, r = move.propose(rng, state, it, heat)
        return new, (r if new is None else r - math.log(state.d) + math.log(new.d))
    counts, _ = replica_counts(t, [(Move(spec + "-wrong", propose), 1.0)],
                               seed_of(name, spec, "wrong"))
    assert _pvalue(counts, t.probs) < 1e-6


# -- visits: chains -------------------------------------------------------------------------
@pytest.mark.parametrize("name,move,temper,data", _grid(tempers=(1, TEMPER)))
def test_chains_visit_the_exact_frequencies(name, move, temper, data):
    t = target(name, data)
    seed = seed_of(name, move, temper, data, "chain")
    check(lambda s: chain_counts(t, move, s, temper), t.probs, seed,
          f"{name} {move} temper={temper} {_lik(data)} chain")
