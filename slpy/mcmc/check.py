"""The sampler check: is each move exact on YOUR prior?

:func:`check_sampler` enumerates every proof of a small instance of a prior exactly
(the target: the normalised SLP distribution times the likelihood^heat), draws many
states independently from it, advances each by a few steps of a move, and compares
where they end with the target: a chi-square p-value and the total variation
distance per move and heat. A move that leaves the target invariant passes whatever
the chain's autocorrelation, since its starts are exact draws (pi K = pi); a biased
move (a wrong acceptance ratio, an irreversible rule) shifts the end distribution.
Heat 0 is the prior alone (a flat likelihood); heat 1 the posterior. Two chi-square
tests are made, on the ends' models and on their proofs' numbers of choice points
(where a move that miscounts fresh or dropped choices shows first); cells are pooled
in order of probability so that spaces of many rare models keep their power. A check
passes when the smaller p-value, doubled, exceeds ALPHA; one that does not is made
again with twice the draws (a correct move fails once in 1/ALPHA looks by chance, a
biased one fails again), and that second look decides.

``slpy check --sampler PRIOR`` is its command line (slpy.mcmc.check_cli);
docs/mcmc.md shows it.
"""
from __future__ import annotations

import math
from collections import Counter
from dataclasses import dataclass, field

import numpy as np

from ..logic.kinds import ENUM
from .kernel import build_kernel
from .moves import family_moves, parse_mixture, resolve_proposal

__all__ = ["check_sampler", "compiled_checks", "enumerate_target", "Target", "MoveCheck",
           "SamplerCheck", "TooLarge", "CHECK_MOVES"]

# a check fails below this p-value: with a dozen checks a run, 0.01 would fail a
# correct sampler one time in ten
ALPHA = 0.001
# the moves checked unless told otherwise (family moves are added where they apply)
CHECK_MOVES = ("uc", "q0", "cycle:3", "change", "perturb", "swap", "default")


class TooLarge(ValueError):
    """The instance has more proofs than the check enumerates: one line."""


@dataclass
class Target:
    """The enumerated proofs of a prior's query as sampler states, their prior
    probabilities (normalised over the proofs the sampler can replay), and what was
    left out."""
    states: list
    log_prior: np.ndarray          # normalised log prior probability of each state
    keys: list                     # the model key of each state
    n_proofs: int                  # proofs enumerated
    unreplayable: float            # prior mass of the proofs the moves cannot reach
    missing: float                 # prior mass below min_prob (not enumerated)

    def weights(self, heat: float) -> np.ndarray:
        """The target at `heat` over the states (normalised)."""
        lw = self.log_prior + heat * np.array([s.log_lik for s in self.states])
        w = np.exp(lw - lw.max())
        return w / w.sum()

    def by_key(self, heat: float) -> dict:
        out: dict = Counter()
        for k, w in zip(self.keys, self.weights(heat)):
            out[k] += float(w)
        return dict(out)


def enumerate_target(model, max_proofs: int = 20000, min_prob: float = 0.0) -> Target:
    """Every proof of the model's query (exhaustive enumeration, pure SLP semantics),
    each proved again as the sampler's moves replay it. TooLarge past max_proofs."""
    goal, _ = model._fresh_goal()
    trees, logps = [], []
    for s in model.engine.solutions(goal, ENUM, min_prob=min_prob):
        trees.append(s.tree)
        logps.append(s.log_prob)
        if len(trees) > max_proofs:
            raise TooLarge(f"the prior has more than {max_proofs:,} proofs here: check "
                           f"it on a smaller instance (fewer rows, variables or items)")
    if not trees:
        raise ValueError("the prior's query has no proof")
    total = math.fsum(math.exp(lp) for lp in logps)
    states, lp_kept, lost = [], [], 0.0
    for tree, lp in zip(trees, logps):
        st = model._recorded(tree)
        if st is None:
            lost += math.exp(lp)
            continue
        # the replayed proof's target probability must be the enumeration's
        mine = st.tree.log_target()
        if abs(mine - lp) > 1e-9 * max(1.0, abs(lp)):
            raise AssertionError(f"a replayed proof has log probability {mine:.12g}, its "
                                 f"enumeration {lp:.12g}")
        states.append(st)
        lp_kept.append(lp)
    if not states:
        raise ValueError("no proof of the prior's query can be replayed by the sampler")
    lp = np.array(lp_kept)
    lp = lp - (lp.max() + np.log(np.exp(lp - lp.max()).sum()))
    return Target(states, lp, [model.scorer.key(s.term) for s in states], len(trees),
                  lost / total, max(0.0, 1.0 - total) if min_prob > 0 else 0.0)


@dataclass
class MoveCheck:
    """One move at one heat: where `n` exact draws ended after `steps` steps."""
    move: str
    heat: float
    n: int
    steps: int
    p_value: float
    tv: float                      # total variation between the ends and the target
    tv_exact: float                # what an exact sampler's draws show, about
    accepted: float                # acceptance rate of the steps
    moved: float                   # fraction of replicas whose model changed
    outside: int                   # ends the enumeration does not have (must be 0)
    first_p: float | None = None   # a first look's p-value under ALPHA, if this is
                                   # the second look (twice the draws)

    @property
    def passed(self) -> bool:
        return self.outside == 0 and self.p_value > ALPHA

    def line(self) -> str:
        verdict = "ok" if self.passed else "FAILED"
        if self.first_p is not None:
            verdict += f" (a first look gave p = {self.first_p:.2g}; {self.n} new draws)"
        if self.moved == 0:
            verdict += " (never moves here)"
        return (f"{self.move:<24} heat {self.heat:<4g} p = {self.p_value:<8.3g} "
                f"TV = {self.tv:.3f} (exact: {self.tv_exact:.3f})  "
                f"accepted {self.accepted:6.1%}  "
                f"moved {self.moved:6.1%}  {verdict}")


@dataclass
class SamplerCheck:
    """The check of several moves on one prior."""
    target: Target
    checks: list = field(default_factory=list)

    @property
    def passed(self) -> bool:
        return all(c.passed for c in self.checks)

    def head(self) -> list:
        """What was enumerated, and what the sampler leaves out."""
        t = self.target
        out = [f"{t.n_proofs:,} proofs, {len(set(t.keys)):,} models"]
        if t.unreplayable > 0:
            out.append(f"note: {t.unreplayable:.3g} of the prior's mass is on proofs "
                       f"reached only by backtracking into a stochastic choice; the "
                       f"sampler leaves them out (docs/mcmc.md)")
        if t.missing > 0:
            out.append(f"note: {t.missing:.3g} of the prior's mass is below min_prob "
                       f"and was not enumerated")
        return out

    def verdict(self) -> str:
        n_bad = sum(not c.passed for c in self.checks)
        if not n_bad:
            return f"every move is exact here ({len(self.checks)} checks)"
        return (f"{n_bad} of {len(self.checks)} checks FAILED: a failed move does not "
                f"sample this prior's posterior")

    def lines(self) -> list:
        return self.head() + [c.line() for c in self.checks] + [self.verdict()]


def chi2_test(counts: Counter, probs: dict) -> tuple:
    """(p-value, TV, ends outside probs) of counts against probs. Cells are taken in
    order of probability and pooled until each expects at least 5 draws, so that a
    space of many rare models keeps its power."""
    from scipy.stats import chisquare
    n = sum(counts.values())
    outside = sum(c for k, c in counts.items() if k not in probs)
    tv = 0.5 * sum(abs(counts.get(k, 0) / n - p) for k, p in probs.items()) \
        + 0.5 * outside / n
    obs, exp = [], []
    o = e = 0.0
    for k, p in sorted(probs.items(), key=lambda kp: (-kp[1], kp[0])):
        o += counts.get(k, 0)
        e += p * n
        if e >= 5:
            obs.append(o)
            exp.append(e)
            o = e = 0.0
    if e > 0:
        if exp:
            obs[-1] += o
            exp[-1] += e
        else:
            obs.append(o)
            exp.append(e)
    if len(obs) < 2:
        return 1.0, tv, outside
    exp = np.array(exp) * (sum(obs) / sum(exp))
    return float(chisquare(obs, exp).pvalue), tv, outside


def expected_tv(probs: dict, n: int) -> float:
    """The total variation an exact sampler's n draws show on average (about): the
    yardstick for a TV figure."""
    return float(sum(math.sqrt(2 * p * (1 - p) / (math.pi * n)) for p in probs.values()) / 2)


def check_move(model, target: Target, spec: str, heat: float, rng, n: int = 4000,
               steps: int = 2, kernel=None, particles=None) -> MoveCheck:
    """n exact draws from the target at `heat`, each advanced `steps` steps of the move
    `spec` (or of `kernel`; or, on a compiled path, of `particles`, a
    slpy.mcmc.smc.Particles that makes its particles from the states' terms), compared
    with the target: the ends' models, and their proofs' numbers of choice points (a
    move that gets fresh or dropped choices wrong shifts those); the p-value is the
    smaller of the two tests', doubled."""
    if particles is None:
        kernel = kernel or build_kernel(model, spec, heat=heat)
        key = model.scorer.key

        def advance(i, it):
            s = target.states[i]
            acc = 0
            for t in range(steps):
                s, info = kernel(rng, s, it + t, heat=heat)
                acc += info.accepted
            return (key(s.term) if s is not target.states[i] else target.keys[i]), s.d, acc
    else:
        made: dict = {}

        def advance(i, it):
            p0 = made.get(i)
            if p0 is None:
                p0 = made[i] = particles.from_term(target.states[i].term)
            p, acc = particles.move(rng, p0, heat, steps, it)
            return p.key, p.d, acc
    w = target.weights(heat)
    starts = rng.choice(len(target.states), size=n, p=w)
    ends: Counter = Counter()
    sizes: Counter = Counter()
    acc = moved = 0
    for i in starts:
        it = int(rng.integers(1 << 20))     # cycle:N's scan position, at random
        k, d, a = advance(i, it)
        acc += a
        moved += k != target.keys[i]
        ends[k] += 1
        sizes[d] += 1
    probs = target.by_key(heat)
    p, tv, outside = chi2_test(ends, probs)
    by_size: dict = Counter()
    for st, x in zip(target.states, w):
        by_size[st.d] += float(x)
    p_size, _, out_size = chi2_test(sizes, dict(by_size))
    return MoveCheck(spec, heat, n, steps, min(1.0, 2 * min(p, p_size)), tv,
                     expected_tv(probs, n), acc / (n * steps), moved / n,
                     outside + out_size)


def check_sampler(model, moves=None, heats=(0.0, 1.0), n: int = 4000, steps: int = 2,
                  seed: int = 0, max_proofs: int = 20000, target: Target | None = None,
                  progress=None) -> SamplerCheck:
    """Check `moves` (proposal specs; default: CHECK_MOVES with `default` resolved for
    this model, plus the family's own moves, and where a compiled path applies its
    default mixture and each of its moves) at each heat. `progress(line)` hears of
    the enumeration and of each move as it is checked."""
    target = target or enumerate_target(model, max_proofs)
    compiled = moves is None
    if moves is None:
        moves = list(CHECK_MOVES)
        names = [n for n, _ in parse_mixture(resolve_proposal(model, "default"))]
        for name in names + family_moves(model):
            if name.partition(":")[0] not in {m.partition(":")[0] for m in moves}:
                moves.append(name)
    rng = np.random.default_rng(seed)
    out = SamplerCheck(target)
    if progress:
        for line in out.head():
            progress(line)
    checks = [(spec, None) for spec in moves]
    if compiled:     # after the engine's: the path's recognition runs the model
        checks += compiled_checks(model)
    for spec, particles in checks:
        for heat in heats:
            c = check_move(model, target, spec, heat, rng, n, steps, particles=particles)
            if not c.passed and not c.outside:
                # A correct move fails once in 1/ALPHA checks by chance: look again with
                # new draws; a biased one fails again.
                first = c.p_value
                c = check_move(model, target, spec, heat, rng, 2 * n, steps,
                               particles=particles)
                c.first_p = first
            out.checks.append(c)
            if progress:
                progress(c.line())
    return out


def compiled_checks(model) -> list:
    """(name, particles) of the compiled path that applies to `model` (slpy.mcmc.paths),
    for its default mixture and each of its moves alone; [] on the engine."""
    from .config import RunConfig
    from .paths import fast_path, resolve_path
    cfg, _ = resolve_path(model, RunConfig())
    path = fast_path(cfg, model)
    if path is None or path.particles is None:
        return []
    names = [name for name, _ in parse_mixture(cfg.proposal)]
    specs = [("compiled default", cfg.proposal)] if len(names) > 1 else []
    specs += [(f"compiled {name}", name) for name in names]
    return [(label, path.particles(model, cfg.replace(proposal=spec)))
            for label, spec in specs]
