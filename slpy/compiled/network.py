"""The compiled path of ``slpy run`` for network priors (slpy.mcmc.paths): one
``link(X, Y, Link)`` choice per pair of variables (none, X -> Y or Y -> X, with
probabilities that do not depend on the other pairs), on the DAGs of in-degree at most
max_parents (priors/bn.slp, priors/bn_expert.slp). A chain's state is the pairs'
links on flat arrays and its move is the engine's `change` on one link choice point,
in numba (slpy.compiled._network), made once an iteration (`change`) or once for each
pair (`sweep`, the default); the family scores are the ones slpy.bn.score
computes, tabulated as the chain reaches them and shared by a process's replicas.

It applies when the prior is recognised: in 8 draws of the program every pair is one
link choice point (the proof has no other) with the same probabilities each time and
the draw's probability and score equal the compiled ones, and 8 DAGs the compiled
prior allows are the program's, with the same probability. Otherwise the run stays on
the engine and says why.
"""
from __future__ import annotations

import math
import weakref
from math import comb

import numpy as np

from ..bn.dag import BNScorer, _key_term
from ..bn.moves import link_states, parents_applies
from ..mcmc.kernel import Info
from ..mcmc.moves import parse_mixture
from ..mcmc.paths import FastPath, register_path
from ..terms.term import deref
from . import _network as X

__all__ = ["NetworkChain", "NetworkState", "table_size"]

# change: the engine's move on one pair; sweep: as many change moves as there are
# pairs in one iteration (numba makes them in less time than the iteration's Python)
MOVES = ("change", "sweep")
MIXTURE = "sweep"
CHECK_DRAWS = 8
TABLE_LIMIT = 1 << 22      # family scores tabulated per process: 32 MB
MAX_VARIABLES = 62         # parent sets as the bits of an int64
START_TRIES = 1000
EXACT_TRIES = 100_000      # as slpy.mcmc.smc.exact_prior_state
FIRST_TRIES = 10_000       # SMC: rejection draws tried before weighted draws
DRAW_TRIES = 3             # the program's draws for the recognition
GROUP = 16                 # SMC's particles moved a numba call


def table_size(n: int, max_parents: int) -> int:
    """The family scores a table holds: each variable's parent sets of at most
    max_parents members."""
    return n * sum(comb(n - 1, j) for j in range(min(max_parents, n - 1) + 1))


class NetworkScores:
    """The family scores of one data set, filled as chains reach them."""

    def __init__(self, families, n: int, max_parents: int):
        k = min(max_parents, n - 1)
        binom = np.zeros((max(n, 1), k + 1), dtype=np.int64)
        for i in range(n):
            for j in range(k + 1):
                binom[i, j] = comb(i, j)
        offset = np.array([sum(comb(n - 1, j) for j in range(i)) for i in range(k + 2)],
                          dtype=np.int64)
        table = np.full((n, int(offset[-1])), np.nan)
        self.args = (table, binom, offset, *families.kernel_inputs())


class NetworkChain:
    """A chain on the links of the pairs (i, j), i < j in the data's order:
    ``prob[e]`` the probabilities of pair e's none, i -> j and j -> i."""

    def __init__(self, scores: NetworkScores, prob: np.ndarray, max_parents: int,
                 key_of):
        n = round((1 + math.sqrt(1 + 8 * len(prob))) / 2)
        self.n, self.max_parents, self.key_of = n, max_parents, key_of
        self.scores = scores
        pairs = [(i, j) for i in range(n) for j in range(i + 1, n)]
        self.pu = np.array([i for i, _ in pairs], dtype=np.int64)
        self.pv = np.array([j for _, j in pairs], dtype=np.int64)
        self.prob = np.ascontiguousarray(prob, dtype=np.float64)
        with np.errstate(divide="ignore"):
            self.log_prob = np.log(self.prob)
            self.log_rest = np.log(np.maximum(0.0, 1.0 - self.prob))
        self.link = np.zeros(len(pairs), dtype=np.int64)
        self.pa = np.zeros(n, dtype=np.int64)
        self.ch = np.zeros(n, dtype=np.int64)
        self.fam = np.zeros(n)
        self.log_lik = 0.0
        self._one = (np.empty(1), np.empty(1, dtype=np.bool_))

    def _rescore(self) -> None:
        self.log_lik = float(X._family_scores(self.n, self.pa, self.fam, *self.scores.args))

    def sample_prior(self, rng: np.random.Generator) -> None:
        """A start: each pair in turn from its probabilities among the states the pairs
        before it allow."""
        for _ in range(START_TRIES):
            if self.sample_weighted(rng) > -math.inf:
                return
        raise ValueError(f"no DAG in {START_TRIES} tries: the pairs' links leave none "
                         f"(required links closing a cycle, or more than max_parents)")

    def sample_weighted(self, rng: np.random.Generator) -> float:
        """Make the state a sequential draw (each pair among the states the pairs before
        it allow); its log importance weight against the normalised prior (-inf: a
        pair had no state left, the state is not a draw of the prior)."""
        log_w = float(X._sample(rng, self.link, self.pu, self.pv, self.prob, self.pa,
                                self.ch, self.max_parents))
        self._rescore()
        return log_w

    def sample_exact(self, rng: np.random.Generator, tries: int = EXACT_TRIES) -> int:
        """Make the state an exact draw of the normalised prior (by rejection, as pure
        sampling of the program draws it: SMC's start); the draws it took."""
        k = int(X._sample_exact(rng, tries, self.link, self.pu, self.pv, self.prob,
                                self.pa, self.ch, self.max_parents))
        if k < 0:
            raise ValueError(f"no draw of the prior succeeded in {tries:,} tries: its "
                             f"constraints fail too often for SMC's exact start")
        self._rescore()
        return k

    def snapshot(self) -> tuple:
        """The state as copies of its arrays (what :meth:`restore` takes back)."""
        return (self.link.copy(), self.pa.copy(), self.ch.copy(), self.fam.copy(),
                self.log_lik)

    def restore(self, snap: tuple) -> None:
        link, pa, ch, fam, self.log_lik = snap
        self.link[:], self.pa[:], self.ch[:], self.fam[:] = link, pa, ch, fam

    def set_parents(self, parent_sets) -> None:
        """Start from the DAG with these parent sets (a ValueError if the compiled
        prior gives it probability 0)."""
        n = self.n
        link = np.zeros_like(self.link)
        for e, (i, j) in enumerate(zip(self.pu.tolist(), self.pv.tolist())):
            fwd, back = i in parent_sets[j], j in parent_sets[i]
            if fwd and back:
                raise ValueError(f"variables {i} and {j} are each other's parents")
            link[e] = 1 if fwd else 2 if back else 0
            if self.prob[e, link[e]] <= 0.0:
                raise ValueError(f"the pair {i}, {j} has probability 0 as given")
        if max(len(p) for p in parent_sets) > self.max_parents:
            raise ValueError(f"a variable has more than {self.max_parents} parents")
        self.link[:] = 0
        self.pa[:] = 0
        self.ch[:] = 0
        for e in range(len(link)):
            s = int(link[e])
            if s and not X._allowed(self.pu[e], self.pv[e], s, self.pa, self.ch, n):
                raise ValueError("the graph has a directed cycle")
            if s:
                X._set(self.pu[e], self.pv[e], s, self.pa, self.ch, True)
            self.link[e] = s
        self._rescore()

    def run(self, n_iter: int, rng: np.random.Generator, heat: float = 1.0,
            per_it: int = 1):
        """`n_iter` iterations of `per_it` change moves: (log likelihood, accepted
        any) per iteration."""
        ll, acc = np.empty(n_iter), np.empty(n_iter, dtype=np.bool_)
        self._run(n_iter, per_it, rng, heat, ll, acc)
        return ll, acc

    def step(self, rng: np.random.Generator, heat: float, per_it: int = 1) -> bool:
        """`per_it` change moves; was any accepted?"""
        ll, acc = self._one
        self._run(1, per_it, rng, heat, ll, acc)
        return bool(acc[0])

    def _run(self, n_iter, per_it, rng, heat, ll, acc) -> None:
        self.log_lik = float(X._run(n_iter, per_it, rng, heat, self.link, self.pu, self.pv,
                                    self.prob, self.log_rest, self.pa, self.ch, self.fam,
                                    self.max_parents, self.n, *self.scores.args,
                                    self.log_lik, ll, acc))

    def parent_sets(self, pa=None) -> list:
        n = self.n
        return [tuple(j for j in range(n) if m >> j & 1)
                for m in (self.pa if pa is None else pa).tolist()]

    def log_prior(self) -> float:
        """log of the product of the links' probabilities (not normalised)."""
        return float(self.log_prob[np.arange(len(self.link)), self.link].sum())

    def key(self) -> str:
        return self.key_of(self.parent_sets())


class NetworkState:
    """A compiled network chain's state after a step: its arrays and what the
    observers read; the key is worked out when first read, from a copy of the parent
    masks. Stepped once, as slpy.compiled.path's states."""
    __slots__ = ("chain", "log_lik", "stats", "d", "_pa", "_key")
    term = None

    def __init__(self, chain: NetworkChain):
        self.chain = chain
        self.log_lik = chain.log_lik
        self._pa = chain.pa.copy()
        self.stats = (int(np.count_nonzero(chain.link)),)       # edges
        self.d = len(chain.link)                                # a choice point a pair
        self._key = None

    @classmethod
    def of(cls, chain, log_lik, pa, edges):
        """The state of parent masks `pa` (kept, not copied), not read off the chain."""
        st = cls.__new__(cls)
        st.chain, st.log_lik, st._pa, st._key = chain, log_lik, pa, None
        st.stats, st.d = (edges,), len(chain.link)
        return st

    @property
    def key(self) -> str:
        if self._key is None:
            self._key = self.chain.key_of(self.chain.parent_sets(self._pa))
        return self._key

    @property
    def cold(self) -> "NetworkState":
        return self


def _pair_probs(state, index: dict, n: int):
    """The (pairs, 3) link probabilities a proof's choice points carry, or why the
    proof is not one link choice per pair."""
    e_of = {}
    for i in range(n):
        for j in range(i + 1, n):
            e_of[(i, j)] = len(e_of)
    prob = np.full((len(e_of), 3), np.nan)
    seen = 0
    for node in state.tree.children:
        if node.pred is None or node.pred.name != "link" or node.pred.arity != 3:
            return f"the proof has a choice point other than link/3 ({node.call})"
        try:
            x, y = (index[deref(a).name] for a in node.call.args[:2])
        except (KeyError, AttributeError):
            return f"a link/3 choice names no pair of variables ({node.call})"
        e = e_of.get((min(x, y), max(x, y)))
        if e is None or not np.isnan(prob[e, 0]):
            return f"a pair of variables has no link or more than one ({node.call})"
        p = {st: w for st, _, w in link_states(node)}
        if None in p:
            return f"a link/3 clause is not none, X-Y or Y-X ({node.call})"
        fwd, back = ("fwd", "back") if x < y else ("back", "fwd")
        prob[e] = (p.get("none", 0.0), p.get(fwd, 0.0), p.get(back, 0.0))
        seen += 1
    if seen != len(e_of) or state.d != len(e_of):
        return "the proof does not have one link choice per pair of variables"
    return prob


def _settings(model):
    """The largest number of parents, or why the path does not apply."""
    sc = model.scorer
    if not isinstance(sc, BNScorer) or sc.families is None:
        return "the compiled network path is for network priors on data"
    if not parents_applies(model):
        return ("the prior's pairs are not link(X, Y, Link) choices of none, X-Y and Y-X "
                "(priors/bn.slp)")
    n = len(sc.names)
    if not 2 <= n <= MAX_VARIABLES:
        return f"the compiled network path takes 2 to {MAX_VARIABLES} variables, not {n}"
    prog = model.program
    b = prog.once("param(max_parents, K)") if "max_parents" in prog.params else None
    k = b.get("K") if b else None
    k = n - 1 if not isinstance(k, int) else min(k, n - 1)
    if table_size(n, k) > TABLE_LIMIT:
        return (f"{n} variables of up to {k} parents have too many parent sets to "
                f"tabulate ({table_size(n, k):,}; set max_parents lower)")
    return k


_INPUTS: "weakref.WeakKeyDictionary" = weakref.WeakKeyDictionary()


def _inputs(model, k: int):
    """(the shared scores, the link probabilities): read off one prior draw of the
    program with its own generator, so a chain's draws do not depend on it."""
    got = _INPUTS.get(model)
    if got is None:
        sc = model.scorer
        try:     # a few tries: a prior that fails more often is the engine's to say
            s = model.sample_prior(np.random.default_rng(0), max_tries=DRAW_TRIES)
        except RuntimeError as e:
            return f"the prior gave no draw to read its link probabilities from ({e})"
        prob = _pair_probs(s, sc.index, len(sc.names))
        if isinstance(prob, str):
            return prob
        got = _INPUTS[model] = (NetworkScores(sc.families, len(sc.names), k), prob)
    return got


def _recognised(model, k: int) -> str | None:
    model.engine_ran = True
    got = _inputs(model, k)
    if isinstance(got, str):
        return got
    sc = model.scorer
    chain = NetworkChain(*got, k, sc.key_of)
    rng = np.random.default_rng(1)
    for _ in range(CHECK_DRAWS):
        try:
            s = model.sample_prior(rng, max_tries=DRAW_TRIES)
        except RuntimeError as e:
            return f"the prior gave no draw in {DRAW_TRIES} tries ({e})"
        prob = _pair_probs(s, sc.index, len(sc.names))
        if isinstance(prob, str):
            return prob
        if not np.allclose(prob, chain.prob, rtol=0, atol=1e-12):
            return "the prior's link probabilities depend on the other pairs' links"
        try:
            chain.set_parents(sc.parent_sets(s.term))
        except ValueError as e:
            return f"the prior draws a DAG the compiled prior does not allow ({e})"
        why = _differ(chain, s)
        if why:
            return why
    for _ in range(CHECK_DRAWS):
        try:
            chain.sample_prior(rng)
        except ValueError as e:
            return str(e)
        key = chain.key()
        try:
            s = model.state_from_term(_key_term(key), rng, max_tries=3)
        except (ValueError, RuntimeError):
            return (f"the prior does not allow {key[:60]}..., which in-degree "
                    f"{k} and acyclicity allow")
        why = _differ(chain, s)
        if why:
            return why
    return None


def _differ(chain, s) -> str | None:
    a, b = chain.log_prior(), s.tree.log_prob()
    if not abs(a - b) <= 1e-9 * max(1.0, abs(b)) or abs(chain.log_lik - s.log_lik) > 1e-6:
        return (f"the prior looks like priors/bn.slp but gives {chain.key()[:60]}... log "
                f"prior {b:.10g} (compiled: {a:.10g})")
    return None


def _why_not(model, cfg) -> str | None:
    k = _settings(model)
    return k if isinstance(k, str) else _recognised(model, k)


def _change_share(cfg) -> float:
    """The probability that an iteration is one change move rather than a sweep."""
    w = dict.fromkeys(MOVES, 0.0)
    for name, x in parse_mixture(cfg["proposal"]):
        w[name] += x
    return w["change"] / (w["change"] + w["sweep"])


def _kernel(model, cfg):
    p_change = _change_share(cfg)
    pairs = len(model.scorer.names) * (len(model.scorer.names) - 1) // 2

    def kernel(rng, state, it, heat=1.0):
        chain = state.chain
        one = p_change == 1.0 or 0.0 < p_change and rng.random() < p_change
        if chain.step(rng, heat, 1 if one else pairs):
            return NetworkState(chain), Info(True, True, MOVES[not one], math.nan)
        return state, Info(False, True, MOVES[not one], math.nan)
    return kernel


def _ladder(model, cfg, plain, scheme, adapt_until):
    from .ladder import NetworkSweeps, ladder_kernel
    pairs = len(model.scorer.names) * (len(model.scorer.names) - 1) // 2
    return ladder_kernel(NetworkSweeps(_change_share(cfg), pairs, NetworkState.of), scheme,
                         adapt_until)


def _start(model, cfg, rng, init_term=None) -> NetworkState:
    from ..errors import RunError
    k = _settings(model)
    got = k if isinstance(k, str) else _inputs(model, k)
    if isinstance(got, str):
        raise RunError(f"--path compiled: {got}")
    chain = NetworkChain(*got, k, model.scorer.key_of)
    try:
        if init_term is None:
            chain.sample_prior(rng)
        else:
            chain.set_parents(model.scorer.parent_sets(init_term))
    except ValueError as e:
        raise RunError(f"--init: {e}" if init_term is not None else str(e)) from None
    return NetworkState(chain)


class _Particle(NetworkState):
    """An SMC particle: a state that owns copies of its arrays."""
    __slots__ = ("snap",)

    def __init__(self, chain):
        super().__init__(chain)
        self.snap = chain.snapshot()

    @classmethod
    def of_arrays(cls, chain, link, pa, ch, fam, log_lik):
        """The particle of a snapshot's arrays."""
        p = cls.of(chain, log_lik, pa.copy(), int(np.count_nonzero(link)))
        p.snap = (link, pa, ch, fam, log_lik)
        return p


class _Particles:
    """SMC's particles on this path (slpy.mcmc.smc.Particles): exact draws of the
    compiled prior, moved by the path's kernel on one chain's arrays."""

    def __init__(self, model, cfg):
        from ..errors import RunError
        k = _settings(model)
        got = k if isinstance(k, str) else _inputs(model, k)
        if isinstance(got, str):
            raise RunError(f"--path compiled: {got}")
        self.chain = NetworkChain(*got, k, model.scorer.key_of)
        self.kernel = _kernel(model, cfg)
        self.parent_sets = model.scorer.parent_sets
        self.exact = None          # undecided until the first draw
        self.tried = 0
        self.p_change = _change_share(cfg)
        self.pairs = len(self.chain.link)
        self._out = None

    def from_term(self, term):
        """The particle of a DAG term (the sampler check's exact starts)."""
        self.chain.set_parents(self.parent_sets(term))
        return _Particle(self.chain)

    def draw(self, rng):
        """Exact draws by rejection while the first succeeds within FIRST_TRIES;
        otherwise (the constraints fail too often: many variables) sequential draws
        with their importance weights."""
        from ..errors import RunError
        if self.exact is not False:
            tries = EXACT_TRIES if self.exact else FIRST_TRIES
            try:
                k = self.chain.sample_exact(rng, tries)
            except ValueError as e:
                if self.exact:
                    raise RunError(str(e)) from None
                self.exact, self.tried = False, tries
            else:
                self.exact = True
                return _Particle(self.chain), k, 0.0
        log_w = self.chain.sample_weighted(rng)
        k, self.tried = self.tried + 1, 0
        return _Particle(self.chain), k, log_w

    def move(self, rng, particle, heat, steps, it):
        self.chain.restore(particle.snap)
        state, acc = NetworkState(self.chain), 0
        for k in range(steps):
            state, info = self.kernel(rng, state, it + k, heat)
            acc += info.accepted
        return (_Particle(self.chain) if acc else particle), acc

    def move_all(self, rng, particles, heat, steps, it):
        """:meth:`move` of each particle in turn (the same draws), GROUP of them a
        numba call: (the particles after, iterations that accepted a move)."""
        from .ladder import padded
        c = self.chain
        if self._out is None:
            self._out = (np.zeros(GROUP, np.int64), np.zeros(GROUP),
                         *(np.zeros((GROUP, len(a)), a.dtype) for a in (c.link, c.pa, c.ch,
                                                                         c.fam)))
        o_acc, o_ll, o_link, o_pa, o_ch, o_fam = self._out
        out, accepted = list(particles), 0
        for g in range(0, len(out), GROUP):
            group = out[g:g + GROUP]
            snaps = [p.snap for p in group]
            links, pas, chs, fams = padded([[s[i] for s in snaps] for i in range(4)],
                                           GROUP)
            X._move_particles(len(group), np.array([s[4] for s in snaps]), links, pas, chs,
                              fams, steps, heat, self.p_change, self.pairs, rng, c.link,
                              c.pa, c.ch, c.fam, c.pu, c.pv, c.prob, c.log_rest,
                              c.max_parents, c.n, *c.scores.args, o_acc, o_ll, o_link, o_pa,
                              o_ch, o_fam)
            for i in np.flatnonzero(o_acc[:len(group)]).tolist():
                out[g + i] = _Particle.of_arrays(c, *(a[i].copy() for a in (
                    o_link, o_pa, o_ch, o_fam)), float(o_ll[i]))
            accepted += int(o_acc[:len(group)].sum())
        return out, accepted


def _fits(model) -> bool:
    return isinstance(model.scorer, BNScorer)


register_path(FastPath("compiled", MOVES, MIXTURE,
                       "the network's link choices on flat arrays in numba",
                       _why_not, _kernel, _start, only=("sweep",), fits=_fits,
                       particles=_Particles, ladder=_ladder))
