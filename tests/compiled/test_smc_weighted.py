"""SMC's weighted start on the network path: where the prior's rejection draws fail too
often (many variables), particles start as sequential draws (each pair among the states
the pairs before it allow) weighted by prior / proposal. The kernel's weight equals a
plain Python replay of the draw; the evidence and the particles of SMC so started equal
the exact ones (every proof the engine enumerates) on small networks, also where
sequential draws can dead-end (weight 0); a 12-variable run starts so and says it."""
import math
from collections import Counter

import numpy as np
import pytest
from click.testing import CliRunner

from slpy.bn.sample import forward_sample
from slpy.cli import main
from slpy.mcmc.check_cli import build_check_model
from slpy.mcmc.smc import pool_evidence, smc

from ..conftest import EXAMPLES
from .test_smc import PRIORS, agrees, exact_posterior, follows, particles_of

CASES = {"bn": ("bn.slp", {}),
         # max one parent and a required link: 18% of sequential draws dead-end
         "dead ends": ("bn_expert.slp", {"required": "[tub-lung]", "max_parents": "1"}),
         "expert": ("bn_expert.slp", {"required": "[tub-lung]", "forbidden": "[asia-smoke]"})}


def asia4(name):
    prior, params = CASES[name]
    return build_check_model(str(PRIORS / prior), str(EXAMPLES / "asia.csv"), None, params,
                             None, None, columns=["asia", "tub", "smoke", "lung"])


def weighted(m):
    parts = particles_of(m)
    parts.exact = False                  # as after FIRST_TRIES failed rejection draws
    return parts


def replayed_log_weight(c) -> float:
    """The log of prod over pairs of the share of the pair's probability its allowed
    states hold, the pairs before it as drawn (-inf where none is allowed)."""
    parents = [set() for _ in range(c.n)]

    def reaches(a, b):
        todo, seen = [a], {a}
        while todo:
            x = todo.pop()
            if x == b:
                return True
            for y in range(c.n):
                if x in parents[y] and y not in seen:
                    seen.add(y)
                    todo.append(y)
        return False

    total = 0.0
    for e in range(len(c.link)):
        u, v = int(c.pu[e]), int(c.pv[e])
        p = c.prob[e]
        ok = [p[0] > 0] + [p[s] > 0 and len(parents[b]) < c.max_parents and not reaches(b, a)
                           for s, (a, b) in ((1, (u, v)), (2, (v, u)))]
        if not any(ok):
            return -math.inf
        total += math.log(sum(p[s] for s in range(3) if ok[s]) / p.sum())
        s = int(c.link[e])
        assert ok[s]
        if s:
            a, b = (u, v) if s == 1 else (v, u)
            parents[b].add(a)
    return total


@pytest.mark.parametrize("name", sorted(CASES))
def test_a_sequential_draws_weight_is_its_replays(name):
    c = particles_of(asia4(name)).chain
    rng = np.random.default_rng(3)
    for _ in range(300):
        got = c.sample_weighted(rng)
        want = replayed_log_weight(c)
        assert got == want or abs(got - want) < 1e-12, (got, want)


@pytest.mark.parametrize("name,resample", [("bn", 0.5), ("dead ends", 0.5),
                                           ("dead ends", 0.95), ("expert", 0.5)])
def test_log_evidence_from_weighted_draws_equals_the_exact_one(name, resample):
    # resample 0.95: the start's ESS (about 0.8 of the particles) is under it, so the
    # particles are resampled and moved at heat 0 before the first reweighting
    m = asia4(name)
    exact, _ = exact_posterior(m)
    parts, rng = weighted(m), np.random.default_rng(17)
    runs = [smc(m, rng, n=300, steps=2, resample=resample, particles=parts)
            for _ in range(6)]
    assert all(r.start_ess is not None and r.start_ess < 300 for r in runs)
    if resample == 0.95:
        assert all(r.start_ess < 0.95 * 300 for r in runs)
    z, se = pool_evidence([r.log_evidence for r in runs])
    assert agrees(z, se, exact), (z, se, exact)


def test_weights_are_needed():
    # the same sequential draws taken as exact ones (weights dropped) miss the evidence
    m = asia4("dead ends")
    exact, _ = exact_posterior(m)
    parts = weighted(m)

    class Unweighted:
        move = parts.move

        def draw(self, rng):
            while True:
                p, k, log_w = parts.draw(rng)
                if log_w > -math.inf:
                    return p, k, 0.0
    rng = np.random.default_rng(17)
    z, se = pool_evidence([smc(m, rng, n=300, steps=2, particles=Unweighted()).log_evidence
                           for _ in range(6)])
    assert not agrees(z, se, exact), (z, se, exact)


def test_particles_from_weighted_draws_follow_the_exact_posterior():
    # one particle drawn by weight from each of many small runs (as the tree test)
    m = asia4("dead ends")
    _, want = exact_posterior(m)
    parts, rng = weighted(m), np.random.default_rng(29)
    got = Counter(smc(m, rng, n=100, steps=2, particles=parts).resample_to(rng, 1)[0].key
                  for _ in range(400))
    assert follows(got, want)


def test_a_network_on_many_variables_starts_from_weighted_draws(tmp_path):
    # 12 variables: not one of 200,000 draws of the prior by rejection is a DAG of at
    # most 3 parents a node (about 1.7e-5 of link draws are DAGs at all)
    rng = np.random.default_rng(8)
    n = 12
    parents = [[v - 1] if v else [] for v in range(n)]
    cpts = [rng.dirichlet([1, 1], size=2 if v else 1) for v in range(n)]
    x = forward_sample(rng, parents, cpts, [2] * n, 300)
    csv = tmp_path / "chain12.csv"
    csv.write_text(",".join(f"v{i}" for i in range(n)) + "\n"
                   + "\n".join(",".join(str(c) for c in row) for row in x) + "\n")
    r = CliRunner().invoke(main, [
        "run", str(PRIORS / "bn.slp"), "--data", str(csv), "--method", "smc",
        "--particles", "60", "--smc-steps", "1", "--chains", "2", "--jobs", "1",
        "--out", str(tmp_path / "run"), "-q"])
    assert r.exit_code == 0, r.output
    text = (tmp_path / "run" / "summary.txt").read_text()
    assert "particles started from sequential draws with importance weights" in text
    assert "path: compiled" in text
