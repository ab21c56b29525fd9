"""CPDAGs (slpy.bn.cpdag): known graphs, each of Meek's rules where it is needed, and
every DAG on 4 nodes against its equivalence class found by brute force."""
import numpy as np
import pytest

from slpy.bn.cpdag import cpdag, cpdag_marginals
from slpy.bn.exact import all_dags, parent_sets


def arrows(m) -> set:
    return {(int(a), int(b)) for a, b in zip(*np.nonzero(m))}


def links(u) -> set:
    return {(int(a), int(b)) for a, b in zip(*np.nonzero(np.triu(u)))}


@pytest.mark.parametrize("parents, compelled, undirected", [
    ([(), (0,), (1,)], set(), {(0, 1), (1, 2)}),                 # chain a -> b -> c
    ([(1,), (), (1,)], set(), {(0, 1), (1, 2)}),                 # fork a <- b -> c
    ([(), (0, 2), ()], {(0, 1), (2, 1)}, set()),                 # v-structure a -> b <- c
    ([(), (0,), (0, 1)], set(), {(0, 1), (0, 2), (1, 2)}),       # a triangle: no v-structure
    # R1: a -> c <- b, c -> d: c -> d, or c <- d would be a new v-structure
    ([(), (), (0, 1), (2,)], {(0, 2), (1, 2), (2, 3)}, set()),
    # R2: a -> c <- b, c -> d, a -> d: a -> d, or a <- d would close a cycle
    ([(), (), (0, 1), (0, 2)], {(0, 2), (1, 2), (2, 3), (0, 3)}, set()),
    # R3, the kite: b -> d <- c with b, c apart and a - b, a - c, a - d: a -> d
    ([(), (0,), (0,), (0, 1, 2)], {(1, 3), (2, 3), (0, 3)}, {(0, 1), (0, 2)}),
])
def test_known_graphs(parents, compelled, undirected):
    comp, und = cpdag(parents)
    assert arrows(comp) == compelled and links(und) == undirected
    assert np.array_equal(und, und.T)


@pytest.mark.parametrize("parents, rule", [
    ([(), (), (0, 1), (2,)], 1), ([(), (), (0, 1), (0, 2)], 2),
    ([(), (0,), (0,), (0, 1, 2)], 3)])
def test_each_rule_is_needed(parents, rule):
    rest = tuple(r for r in (1, 2, 3) if r != rule)
    assert not np.array_equal(cpdag(parents)[0], cpdag(parents, rest)[0])


def _class_key(ps):
    skeleton = frozenset(frozenset((i, j)) for i, p in enumerate(ps) for j in p)
    vees = frozenset((a, c, b) for c, p in enumerate(ps) for a in p for b in p
                     if a < b and frozenset((a, b)) not in skeleton)
    return skeleton, vees


def test_every_dag_on_four_nodes_against_its_class():
    dags = [parent_sets(r) for r in all_dags(4)]
    classes: dict = {}
    for ps in dags:                     # same skeleton and v-structures (Verma & Pearl)
        classes.setdefault(_class_key(ps), []).append(ps)
    assert len(classes) == 185          # the equivalence classes of DAGs on 4 nodes
    for ps in dags:
        members = classes[_class_key(ps)]
        want = {(j, i) for i, p in enumerate(ps) for j in p
                if all(j in q[i] for q in members)}
        comp, und = cpdag(ps)
        assert arrows(comp) == want
        assert links(und | und.T) == {tuple(sorted((j, i))) for i, p in enumerate(ps)
                                      for j in p if (j, i) not in want}


def test_marginals_sum_the_classes():
    chain, vee = [(), (0,), (1,)], [(), (0, 2), ()]
    m = cpdag_marginals([chain, vee], [3, 1], 3)
    assert m["compelled"][0, 1] == pytest.approx(0.25) and m["compelled"][2, 1] == 0.25
    assert m["reversible"][0, 1] == m["reversible"][1, 0] == pytest.approx(0.75)
    assert m["adjacent"][0, 1] == pytest.approx(1.0) and m["adjacent"][1, 2] == 1.0
    assert m["adjacent"][0, 2] == 0
