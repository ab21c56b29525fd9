"""Recognising tree priors (checked against the program), the phi builtins."""
import math

import pytest

from slpy import PrologError
from slpy.pcfg.compile import compile_exact, detect_family
from slpy.pcfg.grammar import phi_grammar
from slpy.pcfg.inside import TreePosterior
from slpy.trees.likelihood import DirichletLikelihood

from .conftest import tiny_dataset, program, PRIORS


def test_recognised_and_checked():
    ds = tiny_dataset()
    lik = DirichletLikelihood.from_dataset(ds)
    for prior, fam in (("growtree.slp", "growtree"), ("phi.slp", "phi")):
        p = program(prior, ds)
        assert detect_family(p)[0] == fam
        m = compile_exact(p, "cart(T)", lik)
        assert m.route == "tree" and m.family == fam and m.checked >= 5


def test_a_changed_prior_is_not_mistaken(tmp_path):
    """Same parameters and builtins as growtree.slp, another split probability: the
    check catches it and the generic compiler answers, exactly."""
    text = (PRIORS / "growtree.slp").read_text().replace(
        "Split is A * (1 + D) ** (-B)", "Split is A / (2 + D * B)")
    f = tmp_path / "other.slp"
    f.write_text(text)
    ds = tiny_dataset()
    from slpy import Program
    p = Program()
    p.attach_data(ds)
    p.consult(f)
    p.set_param("min_leaf", 2)
    m = compile_exact(p, "cart(T)", DirichletLikelihood.from_dataset(ds))
    assert m.route == "tabled"
    derivs = m.post.enumerate()
    assert abs(sum(math.exp(lp) for lp, _ in derivs) - 1) < 1e-10
    with pytest.raises(Exception, match="does not match"):
        compile_exact(p, "cart(T)", None, family="tree")


def test_phi_builtins_give_q0_probabilities():
    ds = tiny_dataset()
    p = program("phi.slp", ds, log_phi=1.5)
    post = TreePosterior(phi_grammar(p.rowsets, 1.5))
    b = p.once("phi_stop_prob(phi(1.5, none, 1), rows(0), 0, P)")
    assert abs(b["P"] - math.exp(-post.log_z_prior)) < 1e-12
    cands = p.proofs("phi_split(phi(1.5, none, 1), rows(0), 0, S)")
    assert abs(sum(c.prob for c in cands) - 1) < 1e-12
    assert len(cands) == len(post.grammar.splits(0))
    # a box the root's table does not reach at that depth gets its own table
    b2 = p.once("data_rows(R), phi_split(phi(1.5, 1, 1), R, 0, split(_, _, L, _)), "
                "phi_stop_prob(phi(1.5, 1, 1), L, 3, P)")
    assert b2["P"] == 1.0


@pytest.mark.parametrize("goal,err", [
    ("phi_stop_prob(phi(a, none, 1), rows(0), 0, P)", "Type error: `number'"),
    ("phi_stop_prob(phi(2, -1, 1), rows(0), 0, P)", "Domain error"),
    ("phi_stop_prob(phi(2, none, 0), rows(0), 0, P)", "Domain error"),
    ("phi_stop_prob(G, rows(0), 0, P)", "[Ii]nstantiat"),
    ("phi_stop_prob(phi(2, none, 1), rows(0), D, P)", "[Ii]nstantiat"),
    ("phi_split(phi(2, none, 1), foo, 0, S)", "Type error: `row_set'"),
])
def test_phi_builtin_errors(goal, err):
    p = program("phi.slp", tiny_dataset())
    with pytest.raises(PrologError, match=err):
        p.once(goal)


def test_phi_needs_data():
    p = program("phi.slp")
    with pytest.raises(PrologError, match="[Ee]xistence|data"):
        p.once("phi_stop_prob(phi(2, none, 1), rows(0), 0, P)")
