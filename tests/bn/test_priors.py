"""The expert-knowledge network prior (priors/bn_expert.slp) is the documented product:
every proof the engine enumerates on 4 variables, against the formula over all DAGs."""
import math

import numpy as np
import pytest

from slpy import Program
from slpy.bn.data import discrete_from_arrays
from slpy.bn.exact import all_dags, parent_sets
from slpy.bn.family import BN, BNScorer

from .test_mcmc import NAMES, ROOT, slp_prior


def expert_log_prior(row, link, max_parents, required, forbidden, order):
    ps = parent_sets(row)
    if max(len(p) for p in ps) > max_parents:
        return -math.inf
    edges = {(j, i) for i, p in enumerate(ps) for j in p}
    total = 0.0
    for x in range(4):
        for y in range(x + 1, 4):
            w = {"n": 1 - link, "f": link / 2, "b": link / 2}
            if (x, y) in required:
                w = {"n": 0, "f": 1, "b": 0}
            elif (y, x) in required:
                w = {"n": 0, "f": 0, "b": 1}
            else:
                for d, (a, b) in (("f", (x, y)), ("b", (y, x))):
                    if (a, b) in forbidden or (a in order and b in order
                                               and order.index(b) < order.index(a)):
                        w[d] = 0
            z = sum(w.values())
            p = w["f"] if (x, y) in edges else w["b"] if (y, x) in edges else w["n"]
            if p == 0:
                return -math.inf
            total += math.log(p / z)
    return total


@pytest.mark.parametrize("required,forbidden,order", [
    ([], [], []), ([(0, 1)], [(3, 2)], []), ([(2, 0)], [], [3, 1, 0]),
    ([], [(1, 2), (2, 1)], [2, 3])])
def test_the_expert_prior_is_the_documented_product(required, forbidden, order):
    data = discrete_from_arrays(np.zeros((2, 4), int), names=NAMES, levels=[2] * 4)
    p = Program()
    p.consult(ROOT / "priors" / "bn_expert.slp")

    def edges(es):
        return p.parse_query("[" + ",".join(f"{NAMES[a]}-{NAMES[b]}" for a, b in es)
                             + "]")[0]
    p.set_param("link", 0.5)
    p.set_param("max_parents", 2)
    p.set_param("required", edges(required))
    p.set_param("forbidden", edges(forbidden))
    p.set_param("order", p.parse_query("[" + ",".join(NAMES[v] for v in order) + "]")[0])
    BN.bind(p, data, {})
    scorer = BNScorer(NAMES, None)
    got = slp_prior(p, scorer)
    logw = np.array([expert_log_prior(r, 0.5, 2, set(required), set(forbidden), order)
                     for r in all_dags(4)])
    w = np.exp(logw - logw.max())
    w /= w.sum()
    want = {scorer.key_of(parent_sets(r)): x for r, x in zip(all_dags(4), w) if x > 0}
    assert set(got) == set(want)
    for k, x in want.items():
        assert got[k] == pytest.approx(x, rel=1e-9)
