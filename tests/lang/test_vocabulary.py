"""The shared vocabularies of slpy.terms: fresh variable names, argument checks and the
control constructs and meta-predicates."""
import pytest

from slpy.terms.args import int_arg, items_arg, nonneg_int_arg, number_arg, proper_list_arg
from slpy.terms.control import META_ARGS, goal_args, is_connective
from slpy.terms.term import Var, Struct, PrologError, atom, mklist
from slpy.terms.text import canonical_var_names, letter_var_names
from slpy.terms.writer import term_to_text


def _formal(e: PrologError) -> str:
    return term_to_text(e.term.args[0], quoted=True)


# -- variable names --------------------------------------------------------------------

def test_letter_names_in_order_of_first_occurrence():
    x, y, z = Var(), Var(), Var()
    t = Struct("f", (y, Struct("g", (x, y)), z))
    assert letter_var_names(t) == {y: "_A", x: "_B", z: "_C"}
    assert letter_var_names(t, prefix="") == {y: "A", x: "B", z: "C"}
    # several terms are walked as one; bound variables are seen through
    w = Var()
    w.ref = x
    assert letter_var_names(Struct("h", (w,)), z) == {x: "_A", z: "_B"}


def test_letter_names_singletons_and_names_taken():
    x, y, z = Var(), Var(), Var()
    t = Struct("f", (x, y, x, z, z))
    assert letter_var_names(t, singleton="_") == {x: "_A", y: "_", z: "_B"}
    # a variable that has a name keeps it, and its name is not given again
    assert letter_var_names(t, named={x: "_A"}) == {y: "_B", z: "_C"}
    assert canonical_var_names(t) == {x: "A", y: "_", z: "B"}


def test_letter_names_go_on_after_z():
    vs = [Var() for _ in range(28)]
    names = letter_var_names(Struct("f", tuple(vs)))
    assert [names[v] for v in vs[24:]] == ["_Y", "_Z", "_A1", "_B1"]


# -- argument checks -------------------------------------------------------------------

def test_int_args():
    assert int_arg(3) == 3
    v = Var()
    v.ref = 5
    assert int_arg(v) == 5 and nonneg_int_arg(0) == 0
    with pytest.raises(PrologError) as e:
        int_arg(Var())
    assert _formal(e.value) == "instantiation_error"
    with pytest.raises(PrologError) as e:
        int_arg(atom("a"), what="feature")
    assert _formal(e.value) == "type_error(feature,a)"
    with pytest.raises(PrologError) as e:
        int_arg(1.0)
    assert _formal(e.value) == "type_error(integer,1.0)"
    with pytest.raises(PrologError) as e:
        nonneg_int_arg(-2)
    assert _formal(e.value) == "domain_error(not_less_than_zero,-2)"


def test_number_and_list_args():
    assert number_arg(2) == 2 and number_arg(0.5) == 0.5
    with pytest.raises(PrologError) as e:
        number_arg(atom("x"))
    assert _formal(e.value) == "type_error(number,x)"
    assert proper_list_arg(mklist([1, 2])) == [1, 2]
    with pytest.raises(PrologError) as e:
        proper_list_arg(mklist([1], Var()))
    assert _formal(e.value) == "instantiation_error"
    with pytest.raises(PrologError) as e:
        proper_list_arg(mklist([1], atom("b")))
    assert _formal(e.value) == "type_error(list,[1|b])"


def test_items_args():
    assert items_arg(atom("a")) == [atom("a")]
    assert items_arg(mklist([atom("a"), atom("b")])) == [atom("a"), atom("b")]
    for bad in (Var(), mklist([atom("a")], Var()), mklist([Var()])):
        with pytest.raises(PrologError) as e:
            items_arg(bad)
        assert _formal(e.value) == "instantiation_error"


# -- control constructs and meta-predicates --------------------------------------------

def test_goal_arguments():
    assert goal_args(",", 2) == (0, 1) and goal_args("findall", 3) == (1,)
    assert goal_args("catch", 3) == (0, 2) and goal_args("aggregate_all", 4) == (2,)
    # maplist/3 calls its goal with two more arguments: not a goal as it stands
    assert META_ARGS[("maplist", 3)] == ((0, 2),) and goal_args("maplist", 3) == ()
    assert goal_args("append", 3) == ()
    a, b = atom("a"), atom("b")
    assert all(is_connective(Struct(n, (a, b))) for n in (",", ";", "|", "->", "*->"))
    assert not is_connective(Struct("\\+", (a,))) and not is_connective(Struct(",", (a,)))
    assert not is_connective(a)


def test_the_engine_and_the_checker_read_the_same_table():
    from slpy.logic.variant import META
    from slpy.logic import check
    assert {k for k in META if k != ("$tbl_call", 2)} == {
        k for k in META_ARGS if goal_args(*k)}
    assert all(check._META[k] == v for k, v in META_ARGS.items())
