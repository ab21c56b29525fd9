"""The network family's greedy start (slpy.bn.greedy, ``--init greedy``): a local
maximum of the score among the DAGs the prior can produce, checked against every DAG
on 4 and 5 nodes, and a run that starts from it."""
import csv
import math

import numpy as np
import pytest
from click.testing import CliRunner

from slpy.bn.exact import all_dags, parent_sets
from slpy.bn.greedy import greedy_dag
from slpy.cli import main

from .test_run import DATA, PRIOR


def _random_local(n, seed):
    """A family score with no structure to help the search: random per family."""
    rng = np.random.default_rng(seed)
    table = {}

    def local(i, ps):
        if (i, ps) not in table:
            table[(i, ps)] = float(rng.normal(0, 3))
        return table[(i, ps)]
    return local


def _score(local, ps, edge):
    return sum(local(i, p) for i, p in enumerate(ps)) + edge * sum(map(len, ps))


def _neighbours(a, b):
    """Two DAGs (parent-set tuples) one edge addition, deletion or reversal apart."""
    ea = {(j, i) for i, p in enumerate(a) for j in p}
    eb = {(j, i) for i, p in enumerate(b) for j in p}
    d = ea ^ eb
    return len(d) == 1 or (len(d) == 2 and {(j, i) for i, j in d} == d)


@pytest.mark.parametrize("n, k, link, seed", [(4, 3, 2 / 3, 0), (4, 1, 0.3, 1),
                                              (5, 2, 0.5, 2), (5, 4, 0.9, 3)])
def test_no_neighbour_the_prior_allows_scores_higher(n, k, link, seed):
    local = _random_local(n, seed)
    edge = math.log(link / 2) - math.log1p(-link)
    got = tuple(greedy_dag(local, n, k, link))
    assert max(map(len, got)) <= k
    dags = [parent_sets(r) for r in all_dags(n)]
    assert got in dags                                   # acyclic
    here = _score(local, got, edge)
    allowed = [d for d in dags if max(map(len, d)) <= k and _neighbours(got, d)]
    assert allowed and all(_score(local, d, edge) <= here + 1e-9 for d in allowed)
    # and it climbed: at least as good as the empty graph
    assert here >= _score(local, ((),) * n, edge)


def test_bad_link_is_refused():
    with pytest.raises(ValueError, match="0 < link < 1"):
        greedy_dag(lambda i, p: 0.0, 3, 2, 1.0)


def test_a_run_starts_from_the_greedy_dag(tmp_path):
    def first(out):
        with open(out / "chain_0" / "trace.csv") as f:
            return next(csv.DictReader(f))
    r = CliRunner().invoke(main, ["run", PRIOR, "--data", DATA, "-n", "1", "--burn-in", "0",
                                  "--temper", "1", "--chains", "1", "--init", "greedy",
                                  "--proposal", "change", "--out", str(tmp_path / "g"),
                                  "--seed", "1", "-q"])
    assert r.exit_code == 0, r.output
    # Asia's 2,295 rows: the climb ends near the true network's 8 edges (a prior
    # draw has about 19 of the 28 pairs linked); one move later, the first row
    assert 6 <= int(first(tmp_path / "g")["edges"]) <= 10
    r = CliRunner().invoke(main, ["run", PRIOR, "--data", DATA, "-n", "1", "-p", "link=1",
                                  "--init", "greedy", "--out", str(tmp_path / "b"), "-q"])
    assert r.exit_code == 2 and "--init greedy" in r.output and "Traceback" not in r.output
    assert len(r.output.strip().splitlines()) == 1
