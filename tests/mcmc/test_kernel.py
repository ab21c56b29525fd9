"""The kernels on their own, on a toy state space whose target is computed with NumPy:
proposal and acceptance apart, a mixture's weights, the tempered kernel's composition
and swaps (chi-square with fixed seeds)."""
import math
from collections import Counter
from dataclasses import dataclass

import numpy as np
import pytest
from scipy.stats import binomtest, chisquare

from slpy.mcmc.chain import sample_chain
from slpy.mcmc.kernel import Info, build_kernel
from slpy.mcmc.moves import Move
from slpy.mcmc.proposal import accept, make_proposal
from slpy.mcmc.seeds import ReplicaRngs, replica_rngs
from slpy.mcmc.tempered import build_tempered_kernel, local_replicas, tempered_start

# a toy posterior on 6 states: prior p0 and log-likelihoods L
P0 = np.array([0.3, 0.05, 0.2, 0.15, 0.1, 0.2])
LL = np.array([-3.0, -0.5, -2.0, -1.0, -4.0, -1.5])


@dataclass(frozen=True)
class Toy:
    x: int
    log_lik: float
    d: int = 1
    stats: tuple = ()

    @property
    def term(self):
        return self.x

    @property
    def cold(self):
        return self


STATES = [Toy(i, float(LL[i]), d=i + 1, stats=(i % 3,)) for i in range(len(P0))]


def target(heat=1.0):
    w = P0 * np.exp(heat * LL)
    return w / w.sum()


def independent_move(name="indep"):
    """Propose a state uniformly (symmetric): the prior ratio is the move's log ratio."""
    def propose(rng, state, it, heat):
        new = STATES[min(int(rng.random() * len(STATES)), len(STATES) - 1)]
        return new, math.log(P0[new.x]) - math.log(P0[state.x])
    return Move(name, propose)


def visits(kernel, n=30000, burn=200, seed=0, thin=2):
    counts = Counter()

    def count(sw):
        if sw.kept:
            counts[sw.state.x] += 1
    sample_chain(np.random.default_rng(seed), kernel, STATES[0], n, burn_in=burn, thin=thin,
                 observers=[count])
    return counts


def pvalue(counts, probs):
    n = sum(counts.values())
    return chisquare([counts.get(i, 0) for i in range(len(probs))], probs * n).pvalue


# -- acceptance ----------------------------------------------------------------------------
@pytest.mark.parametrize("log_alpha", [-2.0, -0.3, 0.0, 1.5])
def test_accept_is_min_one_exp_log_alpha(log_alpha):
    rng = np.random.default_rng(1)
    hits = sum(accept(rng, log_alpha) for _ in range(20000))
    p = min(1.0, math.exp(log_alpha))
    if p == 1.0:
        assert hits == 20000
    else:
        assert binomtest(hits, 20000, p).pvalue > 0.01


def test_accept_draws_one_uniform_whatever_the_answer():
    a, b = np.random.default_rng(5), np.random.default_rng(5)
    accept(a, 3.0)              # certain
    accept(a, -50.0)            # almost never
    b.random(2)
    assert a.random() == b.random()


# -- proposals (where prune-and-regrow cuts) ------------------------------------------------
class _Node:
    def __init__(self, path):
        self.path = path


class _Tree:
    """d choice points in pre-order, node k at path (k,)."""
    def __init__(self, d):
        self.nodes = [_Node(()) ] + [_Node((k,)) for k in range(1, d)]

    def nth(self, k):
        return self.nodes[k]

    def __iter__(self):
        return iter(self.nodes)


@dataclass(frozen=True)
class TreeState:
    tree: object
    d: int


def test_uc_cuts_uniformly_and_its_ratio_is_d_over_d_new():
    uc = make_proposal("uc")
    s = TreeState(_Tree(5), 5)
    rng = np.random.default_rng(2)
    cuts = Counter(uc.cut(rng, s, 0) for _ in range(10000))
    assert set(cuts) == {(), (1,), (2,), (3,), (4,)}
    assert chisquare(list(cuts.values())).pvalue > 0.01
    assert uc.log_ratio(s, TreeState(_Tree(2), 2)) == pytest.approx(math.log(5 / 2))


def test_q0_cuts_at_the_root_and_cycle_walks_the_pre_order():
    s = TreeState(_Tree(3), 3)
    rng = np.random.default_rng(0)
    assert make_proposal("q0").cut(rng, s, 7) == ()
    cyc = make_proposal("cycle:4")
    # iteration it cuts the (it mod 5)-th node: 0 the root; past d_T no move (None),
    # as cutting at the root there would not be reversible
    assert [cyc.cut(rng, s, it) for it in range(6)] == [(), (), (1,), (2,), None, ()]
    assert cyc.log_ratio(s, s) == 0.0
    for bad in ("cycle:x", "cycle:-1", "ucc"):
        with pytest.raises(ValueError):
            make_proposal(bad)


# -- the kernel: proposal + acceptance ------------------------------------------------------
def test_a_rejected_move_returns_the_same_state_and_says_so():
    def propose(rng, state, it, heat):
        return STATES[4], 0.0                   # far worse: log alpha = -3.5 at heat 1
    kernel = build_kernel(None, [(Move("worse", propose), 1.0)])
    rng = np.random.default_rng(0)
    outcomes = [kernel(rng, STATES[1], 0) for _ in range(2000)]
    assert all(info.log_alpha == pytest.approx(LL[4] - LL[1]) for _, info in outcomes)
    rejected = [(s, info) for s, info in outcomes if not info.accepted]
    assert rejected and all(s is STATES[1] and info.replayed for s, info in rejected)
    rate = 1 - len(rejected) / 2000
    assert binomtest(round(rate * 2000), 2000, math.exp(LL[4] - LL[1])).pvalue > 0.01


def test_no_proposal_is_a_rejection_without_replay():
    kernel = build_kernel(None, [(Move("none", lambda rng, s, it, h: (None, 0.0)), 1.0)])
    s, info = kernel(np.random.default_rng(0), STATES[2], 0)
    assert s is STATES[2] and info == Info(False, False, "none", -math.inf)


@pytest.mark.parametrize("heat", [1.0, 0.4])
def test_the_kernel_samples_prior_times_likelihood_to_the_heat(heat):
    kernel = build_kernel(None, [(independent_move(), 1.0)], heat=heat)
    assert pvalue(visits(kernel, seed=3), target(heat)) > 0.01


def test_a_mixture_picks_its_moves_by_weight_and_keeps_the_target():
    stay = Move("stay", lambda rng, s, it, h: (s, 0.0))
    kernel = build_kernel(None, [(independent_move(), 0.25), (stay, 0.75)])
    moves = Counter()

    def count(sw):
        moves[sw.info.move] += 1
    rng = np.random.default_rng(4)
    sample_chain(rng, kernel, STATES[0], 8000, observers=[count])
    assert binomtest(moves["indep"], 8000, 0.25).pvalue > 0.01
    assert pvalue(visits(kernel, n=60000, thin=8, seed=5), target()) > 0.01


# -- the tempered kernel: replicas and swaps, composed --------------------------------------
def tempered(heats, scheme="neighbours", adapt_until=0, seed=0):
    step = local_replicas(build_kernel(None, [(independent_move(), 1.0)]))
    kernel = build_tempered_kernel(step, scheme, adapt_until)
    rngs = replica_rngs(seed, 0, len(heats))
    return rngs, kernel, tempered_start([STATES[0]] * len(heats), heats,
                                        adapt=adapt_until > 0)


@pytest.mark.parametrize("scheme", ["neighbours", "random"])
def test_every_level_of_a_tempered_chain_samples_its_own_heat(scheme):
    heats = [1.0, 0.5, 0.2]
    rngs, kernel, state = tempered(heats, scheme, seed=7)
    counts = [Counter() for _ in heats]

    def count(sw):
        if sw.kept:
            for lv, r in enumerate(sw.whole.at):
                counts[lv][sw.whole.replicas[r].x] += 1
            assert sw.state is sw.whole.replicas[sw.whole.at[0]]
    sample_chain(rngs, kernel, state, 20000, burn_in=200, thin=2, observers=[count])
    for lv, h in enumerate(heats):
        assert pvalue(counts[lv], target(h)) > 0.01


def test_the_tempered_step_moves_each_replica_at_its_level_then_swaps():
    seen = []

    def step(rngs, replicas, heats, it):
        seen.append(list(heats))
        infos = tuple(Info(True, True, f"r{r}", 0.0) for r in range(len(replicas)))
        return tuple(replicas), infos
    # replica 1 holds the better state: a swap of levels 0 and 1 is always accepted
    kernel = build_tempered_kernel(step, "neighbours")
    state = tempered_start([STATES[0], STATES[1]], [1.0, 0.5])
    rngs = ReplicaRngs((None, None), np.random.default_rng(0))
    new, info = kernel(rngs, state, 0)
    assert seen == [[1.0, 0.5]]
    assert new.at == (1, 0) and new.cold is STATES[1]
    assert info.cold.move == "r0"          # the step made at heat 1, before the swap
    assert [(i, j, ok) for i, j, ok, _ in info.swaps] == [(0, 1, True)]
    kernel(rngs, new, 1)                   # odd iteration: no pair among 2 levels
    assert seen[-1] == [0.5, 1.0]          # replica 0 now moves at level 1's heat


def test_the_ladder_adapts_during_burn_in_only():
    rngs, kernel, state = tempered([1.0, 0.6, 0.3, 0.1], adapt_until=30, seed=2)
    ladders = []

    def keep(sw):
        ladders.append(sw.whole.heats)
    sample_chain(rngs, kernel, state, 100, observers=[keep])
    assert len(set(ladders[:30])) > 1                 # re-spaced at 2, 6, 14, 30
    assert len(set(ladders[29:])) == 1                # frozen after burn-in
    assert ladders[-1][0] == 1.0 and ladders[-1][-1] == 0.1


def test_replicas_draw_from_their_own_generators():
    # a replica's stream does not depend on how many other replicas there are
    one = replica_rngs(3, 1, 2).replicas[1].random(4)
    assert np.array_equal(one, replica_rngs(3, 1, 5).replicas[1].random(4))
    from slpy.mcmc.seeds import chain_rng
    assert chain_rng(3, 1).random() == replica_rngs(3, 1, 4).replicas[0].random()
