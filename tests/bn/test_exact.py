"""Exact DAG enumeration and posteriors (slpy.bn.exact) against brute force: every
adjacency matrix filtered by a depth-first cycle check, and posteriors normalised by
hand from exp(sum of local scores + log prior)."""
import itertools
import math

import numpy as np
import pytest

from slpy.bn.exact import all_dags, count_dags, exact_posterior, parent_sets

A003024 = [1, 1, 3, 25, 543, 29281]


def _has_cycle(adj) -> bool:
    """Depth-first search for a back edge; adj[i][j] means i -> j."""
    n = len(adj)
    state = [0] * n  # 0 unseen, 1 on the stack, 2 done

    def visit(u):
        state[u] = 1
        for v in range(n):
            if adj[u][v] and (state[v] == 1 or (state[v] == 0 and visit(v))):
                return True
        state[u] = 2
        return False

    return any(state[u] == 0 and visit(u) for u in range(n))


def _masks_to_adj(row, n):
    return [[bool(row[j] >> i & 1) for j in range(n)] for i in range(n)]


def _brute_dags(n) -> set:
    """Every 0/1 matrix without a diagonal, kept when it has no cycle."""
    off = [(i, j) for i in range(n) for j in range(n) if i != j]
    out = set()
    for bits in itertools.product((0, 1), repeat=len(off)):
        adj = [[False] * n for _ in range(n)]
        for (i, j), b in zip(off, bits):
            adj[i][j] = bool(b)
        if not _has_cycle(adj):
            out.add(tuple(sum(1 << i for i in range(n) if adj[i][j]) for j in range(n)))
    return out


def _table(n, seed):
    """A made-up local score per family, and the callable that reads it."""
    rng = np.random.default_rng(seed)
    scores = {(i, pa): float(rng.normal(0, 2))
              for i in range(n) for k in range(n)
              for pa in itertools.combinations([j for j in range(n) if j != i], k)}
    calls = []

    def log_local(i, pa):
        calls.append((i, pa))
        return scores[(i, pa)]

    return scores, log_local, calls


def _brute_posterior(n, scores, log_prior, keep=lambda row: True):
    rows = [r for r in _brute_dags(n) if keep(r)]
    w = {r: math.exp(sum(scores[(i, parent_sets(r)[i])] for i in range(n))
                     + log_prior(r)) for r in rows}
    z = sum(w.values())
    return {r: v / z for r, v in w.items()}


@pytest.mark.parametrize("n", range(6))
def test_counts_are_oeis_a003024(n):
    assert all_dags(n).shape == (A003024[n], n)
    assert count_dags(n) == A003024[n]


def test_more_than_five_nodes_is_refused():
    assert count_dags(6) == 3781503
    with pytest.raises(ValueError, match="up to 5 nodes.*n has 6"):
        all_dags(6)


def test_enumerated_dags_are_acyclic_distinct_and_ordered():
    for n in range(6):
        dags = all_dags(n)
        rows = [tuple(r) for r in dags.tolist()]
        assert len(set(rows)) == len(rows)
        assert rows == sorted(rows)  # lexicographic, so the order is deterministic
        assert not any(int(r[i]) >> i & 1 for r in rows for i in range(n))
        if n:  # acyclic by nilpotency: A^n = 0 for the adjacency matrix of a DAG
            adj = np.array([_masks_to_adj(r, n) for r in rows], dtype=np.int64)
            assert not np.linalg.matrix_power(adj, n).any()


@pytest.mark.parametrize("n", range(5))
def test_same_set_as_brute_force(n):
    assert {tuple(r) for r in all_dags(n).tolist()} == _brute_dags(n)


def test_read_only_so_the_cache_is_safe():
    with pytest.raises(ValueError):
        all_dags(3)[0, 0] = 1


@pytest.mark.parametrize("n", [1, 2, 3, 4])
def test_posterior_matches_brute_force_normalisation(n):
    scores, log_local, calls = _table(n, seed=n)
    log_prior = lambda row: -0.7 * sum(bin(m).count("1") for m in row)  # noqa: E731
    post = exact_posterior(n, log_local, log_prior)
    # one call per family, no more
    assert sorted(calls) == sorted(set(calls)) and len(calls) == n * 2 ** (n - 1)
    want = _brute_posterior(n, scores, log_prior)
    got = {tuple(r): p for r, p in zip(post.dags.tolist(), post.prob)}
    assert got.keys() == want.keys()
    for r in want:
        assert got[r] == pytest.approx(want[r], rel=1e-10, abs=1e-300)
        assert post.prob_of(r) == pytest.approx(want[r], rel=1e-10)
        assert post.prob_of(parent_sets(r)) == pytest.approx(want[r], rel=1e-10)
    # the evidence is logsumexp of prior x likelihood with the prior normalised
    lik = {r: sum(scores[(i, parent_sets(r)[i])] for i in range(n)) for r in want}
    prior = {r: math.exp(log_prior(r)) for r in want}
    z = sum(prior.values())
    evidence = sum(prior[r] / z * math.exp(lik[r]) for r in want)
    assert post.log_evidence == pytest.approx(math.log(evidence), rel=1e-10)


def test_prior_as_array_callable_or_uniform_agree():
    n = 3
    _, log_local, _ = _table(n, seed=7)
    dags = all_dags(n)
    f = lambda row: 0.3 * row[0] - 0.1 * row[2]  # noqa: E731
    arr = np.array([f(tuple(r)) for r in dags.tolist()])
    a, b = exact_posterior(n, log_local, f), exact_posterior(n, log_local, arr)
    np.testing.assert_allclose(a.log_prob, b.log_prob, rtol=0, atol=1e-12)
    flat = exact_posterior(n, log_local, np.full(len(dags), -3.0))
    np.testing.assert_allclose(flat.log_prob, exact_posterior(n, log_local).log_prob,
                               atol=1e-12)
    with pytest.raises(ValueError, match="25 DAGs"):
        exact_posterior(n, log_local, arr[:-1])


def test_edge_marginals_are_direct_sums():
    n = 4
    scores, log_local, _ = _table(n, seed=11)
    post = exact_posterior(n, log_local)
    want = np.zeros((n, n))
    for r, p in _brute_posterior(n, scores, lambda r: 0.0).items():
        for j in range(n):
            for i in parent_sets(r)[j]:
                want[i, j] += p
    np.testing.assert_allclose(post.edge_marginals, want, rtol=1e-10, atol=1e-15)
    assert post.prob.sum() == pytest.approx(1.0, rel=1e-12)


def test_max_parents_drops_larger_families():
    n = 4
    scores, log_local, calls = _table(n, seed=3)
    post = exact_posterior(n, log_local, max_parents=1)
    assert all(len(pa) <= 1 for _, pa in calls)
    assert all(bin(m).count("1") <= 1 for m in post.dags.ravel())
    want = _brute_posterior(n, scores, lambda r: 0.0,
                            keep=lambda r: all(bin(m).count("1") <= 1 for m in r))
    assert {tuple(r) for r in post.dags.tolist()} == want.keys()
    for r, p in want.items():
        assert post.prob_of(r) == pytest.approx(p, rel=1e-10)
    assert post.prob_of([(), (0, 2), (), ()]) == 0.0  # two parents: dropped
    # an array prior is still aligned with all_dags(n), before the drop
    arr = np.zeros(len(all_dags(n)))
    np.testing.assert_allclose(exact_posterior(n, log_local, arr, max_parents=1).log_prob,
                               post.log_prob, atol=1e-12)


def test_top_is_sorted_with_deterministic_ties():
    n = 3
    # every family scores 0: a uniform posterior, so top(k) is enumeration order
    post = exact_posterior(n, lambda i, pa: 0.0)
    top = post.top(5)
    assert [p for _, p in top] == pytest.approx([1 / 25] * 5)
    assert [g for g, _ in top] == [parent_sets(r) for r in all_dags(n)[:5]]
    scores, log_local, _ = _table(n, seed=5)
    post = exact_posterior(n, log_local)
    top = post.top(25)
    probs = [p for _, p in top]
    assert probs == sorted(probs, reverse=True) and probs[0] == post.prob.max()
    assert post.prob_of(top[0][0]) == probs[0]


def test_prob_of_a_cycle_is_zero_and_bad_input_is_refused():
    post = exact_posterior(3, lambda i, pa: -len(pa))
    assert post.prob_of([(1,), (0,), ()]) == 0.0
    with pytest.raises(ValueError, match="expected 3"):
        post.prob_of([(), ()])
    with pytest.raises(ValueError, match="outside"):
        post.prob_of([(5,), (), ()])


def test_all_minus_inf_is_an_error():
    with pytest.raises(ValueError, match="zero posterior weight"):
        exact_posterior(2, lambda i, pa: -np.inf)
