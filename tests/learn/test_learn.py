"""Parameter learning (slpy.learning): labels recovered from sampled data, EM never
lowering the likelihood, agreement with an inside-outside written here in NumPy, the
failure term against enumeration, the observation format and the write-back."""
from __future__ import annotations

import math

import numpy as np
import pytest

from slpy import Program
from slpy.learning import LearnError, learn, parse_observations, write_labels
from slpy.learning.explore import explore
from slpy.learning.params import Params
from slpy.logic.samples import sample_counts

# can fail: b's clause whose head does not match X fails the whole derivation
FAILING = """\
0.6 :: s(X, Y) :- a(X), b(X, Y).
0.4 :: s(X, X) :- a(X).
0.4 :: a(1).  0.6 :: a(2).
0.7 :: b(1, x). 0.3 :: b(2, y).
"""

# a PCFG as a labelled DCG; "ab" has two parses that use different rules
PCFG = """\
:- table s/2.
0.2 :: s --> s, s.
0.4 :: s --> [a].
0.3 :: s --> [b].
0.1 :: s --> [a], [b].
"""


def program(text, name="p.slp", tmp_path=None):
    p = Program()
    if tmp_path is not None:
        f = tmp_path / name
        f.write_text(text)
        p.consult(f)
    else:
        p.consult_text(text, name)
    return p


def sampled(p, goal, n, seed):
    """n successful pure samples of goal as (instance, count) pairs (the failed draws
    are not observations)."""
    g = p.parse_query(goal)[0]
    rng = np.random.default_rng(seed)
    out, got = [], 0
    while got < n:
        batch = sample_counts(p.engine, g, n - got, rng, True)
        out += [(a, c) for a, c in batch]
        got += sum(c for _, c in batch)
    return out


def uniform(p):
    pr = Params(p)
    return pr.normalise(np.ones(len(pr)))


# -- recovery --------------------------------------------------------------------------

def test_fam_recovers_the_labels_of_a_program_that_fails():
    p = program(FAILING)
    data = sampled(p, "s(X, Y)", 10_000, seed=7)
    r = learn(p, data, init=uniform(p), tol=1e-10, max_iter=1000)
    assert r.algorithm == "fam" and r.converged
    err = np.abs(r.theta - r.params.theta0).max()
    assert err < 0.02, r.labels()
    # the program fails a third of the time: without the failure term it is biased
    assert r.failure_prob == pytest.approx(1 - sum(x.prob for x in p.proofs("s(X, Y)")),
                                           abs=0.02)
    biased = learn(p, data, algorithm="io", init=uniform(p), tol=1e-10, max_iter=1000)
    assert np.abs(biased.theta - r.params.theta0).max() > 0.05


def test_inside_outside_recovers_the_labels_of_a_pcfg():
    p = program(PCFG)
    data = sampled(p, "s(X, [])", 10_000, seed=3)
    r = learn(p, data, goal="s(X, [])", init=uniform(p), tol=1e-9, max_iter=500)
    assert r.algorithm == "io"
    assert np.abs(r.theta - r.params.theta0).max() < 0.02, r.labels()


# -- EM's monotonicity -----------------------------------------------------------------------

@pytest.mark.parametrize("text, goal, prior", [(FAILING, "s(X, Y)", None),
                                               (FAILING, "s(X, Y)", 3.0),
                                               (PCFG, "s(X, [])", None),
                                               (PCFG, "s(X, [])", 2.0)],
                         ids=["fam", "fam-map", "io", "io-map"])
def test_no_iteration_lowers_the_objective(text, goal, prior):
    p = program(text)
    data = sampled(p, goal, 300, seed=1)
    lps = []
    r = learn(p, data, goal=goal, prior=prior, init=uniform(p), tol=-math.inf,
              max_iter=25, callback=lambda it, ll, lp: lps.append(lp))
    assert len(lps) == 25 and lps == r.log_posteriors
    steps = np.diff(lps)
    assert steps.min() > -1e-9 * abs(lps[-1]), steps
    assert lps[-1] > lps[0]
    if prior is None:
        assert r.log_likelihoods == r.log_posteriors


# -- against a plain NumPy inside-outside ----------------------------------------------------

def _numpy_em(strings, counts, theta, iters):
    """Inside-outside for S -> S S | a | b | a b, written from the textbook (CYK
    charts over spans): the labels after iters M-steps and the log-likelihoods."""
    lls = []
    for it in range(iters + 1):
        exp = np.zeros(4)
        ll = 0.0
        for w, n in zip(strings, counts):
            L = len(w)
            beta = np.zeros((L + 1, L + 1))
            for i in range(L):
                beta[i, i + 1] = theta[1] * (w[i] == "a") + theta[2] * (w[i] == "b")
                if i + 2 <= L and w[i:i + 2] == "ab":
                    beta[i, i + 2] += theta[3]
            for span in range(2, L + 1):
                for i in range(L - span + 1):
                    j = i + span
                    beta[i, j] += theta[0] * sum(beta[i, k] * beta[k, j]
                                                 for k in range(i + 1, j))
            alpha = np.zeros((L + 1, L + 1))
            alpha[0, L] = 1.0
            for span in range(L, 1, -1):
                for i in range(L - span + 1):
                    j = i + span
                    for k in range(i + 1, j):
                        alpha[i, k] += theta[0] * alpha[i, j] * beta[k, j]
                        alpha[k, j] += theta[0] * alpha[i, j] * beta[i, k]
            z = beta[0, L]
            ll += n * math.log(z)
            c = np.zeros(4)
            for i in range(L):
                for j in range(i + 2, L + 1):
                    c[0] += sum(theta[0] * alpha[i, j] * beta[i, k] * beta[k, j]
                                for k in range(i + 1, j))
                c[1] += alpha[i, i + 1] * theta[1] * (w[i] == "a")
                c[2] += alpha[i, i + 1] * theta[2] * (w[i] == "b")
                if w[i:i + 2] == "ab":
                    c[3] += alpha[i, i + 2] * theta[3]
            exp += n * c / z
        lls.append(ll)
        if it == iters:
            return theta, lls
        theta = exp / exp.sum()


def test_the_result_equals_an_independent_inside_outside():
    p = program(PCFG)
    strings = ["ab", "aab", "abab", "ba", "a", "bab", "abba"]
    counts = [5, 3, 2, 4, 9, 1, 2]
    data = [(f"s([{','.join(w)}], [])", n) for w, n in zip(strings, counts)]
    init = np.array([0.4, 0.2, 0.2, 0.2])
    for n in (2, 6):      # after 1 and 5 M-steps, far from convergence
        r = learn(p, data, goal="s(X, [])", init=init, tol=-math.inf, max_iter=n)
        theta, lls = _numpy_em(strings, counts, init, n - 1)
        assert np.abs(r.theta - theta).max() < 1e-8
        assert np.abs(np.array(r.log_likelihoods) - lls).max() < 1e-8
        assert np.abs(theta - init).max() > 0.05


# -- the failure term --------------------------------------------------------------------------

def test_the_failed_derivations_are_all_found():
    p = program(FAILING)
    ex = explore(p.engine, p.parse_query("s(X, Y)")[0], Params(p))
    assert ex.complete
    z = sum(x.prob for x in p.proofs("s(X, Y)"))
    assert ex.success == pytest.approx(z, abs=1e-12)
    assert ex.failure == pytest.approx(1 - z, abs=1e-12)
    # s clause 1, a(1), then b(2, y): a head that does not match; and a(2), b(1, x)
    assert sorted(sorted(c.items()) for c, _ in ex.fails) == [[(0, 1), (2, 1), (5, 1)],
                                                              [(0, 1), (3, 1), (4, 1)]]


def test_a_recursive_program_is_walked_down_to_min_prob():
    p = program("0.5 :: n(z). 0.3 :: n(s(X)) :- n(X). 0.2 :: n(bad) :- fail.\n")
    r = learn(p, ["n(z)", ("n(s(z))", 2)], min_prob=1e-6)
    assert r.unexplored < 1e-5 and r.warnings
    z, rec, bad = r.theta       # failure: any number of s(_) steps, then n(bad)
    assert r.failure_prob == pytest.approx(bad / (1 - rec), rel=1e-4)
    assert z > 0 and bad > 0


# -- choosing predicates, errors -----------------------------------------------------------------

def test_only_the_chosen_predicates_change():
    p = program(FAILING)
    data = sampled(p, "s(X, Y)", 500, seed=2)
    r = learn(p, data, predicates="a/1")
    assert r.params.names == ["a/1"] and len(r.theta) == 2


def test_a_computed_label_cannot_be_learned():
    p = program("P :: [P] :: c(P, h). 1 - P :: [P] :: c(P, t).\n0.5 :: d(x).\n", "c.slp")
    with pytest.raises(LearnError, match=r"^c.slp:1: c/2 clause 1 has the computed label "
                                         r"_A: only constant labels"):
        learn(p, ["c(0.5, h)"])
    with pytest.raises(LearnError, match="zz/1: no such predicate"):
        learn(p, ["d(x)"], predicates="zz/1")


def test_observations_are_read_with_counts_and_checked():
    p = Program()
    obs = parse_observations(p, "% data\ns([a, b]).\n\n  s([a]) 12\ns([a, b]) 3\n", "o.txt")
    assert [(o.text, o.count) for o in obs] == [("s([a, b])", 4), ("s([a])", 12)]
    for text, msg in [("s([a,\n", "o.txt:1:6: "), ("ok.\n  s(X).\n", "o.txt:2:3: the "
                      "observation s(_"), ("s(a) 0\n", "o.txt:1:1: the count 0"),
                      ("3.\n", "o.txt:1:1: 3 is not a goal")]:
        with pytest.raises(LearnError) as e:
            parse_observations(p, text, "o.txt")
        assert str(e.value).startswith(msg), str(e.value)


def test_an_observation_the_program_cannot_prove_is_an_error():
    p = program(FAILING)
    with pytest.raises(LearnError, match=r"observation 2: s\(3, 3\) has no refutation"):
        learn(p, ["s(1, 1)", "s(3, 3)"])
    with pytest.raises(LearnError, match="not an instance of the top goal"):
        learn(p, ["s(1, 1)"], goal="s(2, _)")


# -- the learned program -------------------------------------------------------------------------

def test_the_program_is_written_back_with_only_its_labels_changed(tmp_path):
    text = "% coins\n:- table s/2.\n0.2::s-->s,s.   % binary\n0.4 :: s --> [a].\n" \
           "0.3 :: s --> [b]. 0.1 :: s --> [a], [b].\n"
    p = program(text, "g.slp", tmp_path)
    r = learn(p, [("s([a,b],[])", 3), "s([b,a],[])"], tol=1e-12)
    out = write_labels(r, tmp_path / "g.slp")
    labels = [f"{x:.6g}" for x in r.theta]
    assert out == (f"% coins\n:- table s/2.\n{labels[0]}::s-->s,s.   % binary\n{labels[1]} "
                   f":: s --> [a].\n{labels[2]} :: s --> [b]. {labels[3]} :: s --> [a], "
                   f"[b].\n")
    q = program(out)
    r2 = learn(q, [("s([a,b],[])", 3), "s([b,a],[])"], tol=1e-12)
    assert np.abs(r2.params.theta0 - r.theta).max() < 1e-5


def test_the_posterior_mean_is_reported_with_a_prior():
    p = program(FAILING)
    data = sampled(p, "s(X, Y)", 200, seed=4)
    r = learn(p, data, prior="dirichlet:2")
    assert r.posterior_mean is not None
    for name, vals in r.labels("mean").items():
        assert sum(vals) == pytest.approx(1.0)
    with pytest.raises(LearnError, match="dirichlet:ALPHA"):
        learn(p, data, prior="beta:2")


def test_the_package_exports_learn_and_mpe():
    import slpy
    from slpy.learning import learn as learn_fn, mpe
    assert slpy.learn is learn_fn and slpy.mpe is mpe
