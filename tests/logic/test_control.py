"""Control and checking: setup_call_cleanup/3 and call_cleanup/2 in each way a goal
can finish, assertion/1, print_message/2, numbervars/3, listing/1 and portray_clause/1
from programs and from Python."""
import pytest

from slpy import Program
from slpy.terms.term import PrologError

LOG = """
:- dynamic(log/1).
gen(1). gen(2). gen(3).
cut_after(X) :- setup_call_cleanup(assertz(log(setup)), gen(X), assertz(log(clean(X)))),
    X >= 2, !.
"""


@pytest.fixture
def p():
    prog = Program()
    prog.consult_text(LOG)
    return prog


def logged(p, q):
    """The log/1 entries after running q once (bindings kept in the answer)."""
    p.once("retractall(log(_))")
    b = p.once(f"({q}), findall(L, log(L), Ls)")
    if b is None:
        return None, [str(x) for x in _log(p)]
    return b, str(b["Ls"])


def _log(p):
    from slpy.terms.term import list_items
    return list_items(p.once("findall(L, log(L), Ls)")["Ls"])[0]


def test_cleanup_runs_once_when_the_goal_is_finished(p):
    # deterministic exit: at once
    assert logged(p, "setup_call_cleanup(true, true, assertz(log(det)))")[1] == "[det]"
    # a choice point left: not yet; on the last solution: yes
    assert logged(p, "setup_call_cleanup(true, member(X, [a, b]), assertz(log(c)))")[1] == "[]"
    b, lg = logged(p, "setup_call_cleanup(true, member(X, [a, b]), assertz(log(c))), X == b")
    assert lg == "[c]"
    # failure
    assert logged(p, "setup_call_cleanup(true, fail, assertz(log(f))) ; true")[1] == "[f]"
    # an exception: cleanup, then the exception goes on
    b, lg = logged(p, "catch(setup_call_cleanup(true, throw(oops), assertz(log(e))), E, true)")
    assert lg == "[e]" and str(b["E"]) == "oops"
    # a cut, with the bindings at the time of the cut
    assert logged(p, "cut_after(X)")[1] == "[setup,clean(2)]"
    assert logged(p, "once(call_cleanup(member(_, [a, b]), assertz(log(once))))")[1] == "[once]"
    assert logged(p, "\\+ \\+ call_cleanup(member(_, [a, b]), assertz(log(n)))")[1] == "[n]"
    assert logged(p, "findall(X, call_cleanup(member(X, [a, b]), assertz(log(all))), _)")[1] \
        == "[all]"
    # exactly once, whatever happens after
    assert logged(p, "findall(x, (setup_call_cleanup(true, member(X, [a, b]), "
                     "assertz(log(x))), member(_, [1, 2])), _)")[1] == "[x]"


def test_cleanup_bindings_failure_and_errors(p):
    assert str(p.once("setup_call_cleanup(true, true, X = 1)")["X"]).startswith("_")
    assert p.once("setup_call_cleanup(true, true, fail)") is not None
    with pytest.raises(PrologError, match="nstantiat"):
        p.once("setup_call_cleanup(true, true, _)")
    # setup runs once, its failure fails the whole
    assert p.once("setup_call_cleanup(member(X, [1, 2]), true, true)")["X"] == 1
    assert p.once("setup_call_cleanup(fail, true, true)") is None
    # a query closed early (Program.once) runs the pending cleanup
    p.once("retractall(log(_))")
    assert p.once("setup_call_cleanup(true, member(_, [a, b]), assertz(log(closed)))") == {}
    assert [str(x) for x in _log(p)] == ["closed"]


def test_assertion(p, capsys):
    assert p.once("assertion(1 < 2)") == {}
    assert p.once("assertion(X = 1), var(X)") is not None
    b = p.once("catch(assertion(2 < 1), error(E, _), true)")
    assert str(b["E"]) == "assertion_error(fail,2<1)"
    assert "Assertion failed: goal unexpectedly failed: 2<1" in capsys.readouterr().err
    b = p.once("catch(assertion(atom_length(_, _)), error(E, _), true)")
    assert str(b["E"]).startswith("assertion_error(error(instantiation_error")


def test_print_message(p, capsys):
    p.once("print_message(error, format(\"hello ~w\", [world]))")
    p.once("print_message(warning, format(\"careful\", []))")
    p.once("print_message(informational, format(\"info\", []))")
    p.once("print_message(silent, format(\"quiet\", []))")
    p.once("print_message(error, error(type_error(integer, a), _))")
    p.once("print_message(warning, foo(bar))")
    err = capsys.readouterr().err
    assert err == ("ERROR: hello world\nWarning: careful\n% info\n"
                   "ERROR: Type error: `integer' expected, found `a' (an atom)\n"
                   "Warning: Unknown message: foo(bar)\n")
    with pytest.raises(PrologError, match="message_kind"):
        p.once("print_message(loud, x)")


def test_numbervars(p):
    b = p.once("T = f(X, Y, X, g(Z)), numbervars(T, 0, E), "
               "with_output_to(string(S), print(T))")
    assert b["S"] == "f(A,B,A,g(C))" and b["E"] == 3
    b = p.once("T = f(X, Y), numbervars(T, 25, E), with_output_to(string(S), writeq(T))")
    assert b["S"] == "f(Z,A1)" and b["E"] == 27
    assert p.once("numbervars(f(a), 0, E)")["E"] == 0


def test_listing_and_portray_clause_from_programs_and_python(p):
    p.consult_text("0.5 :: c(h).\n0.5 :: [P] :: c(t) :- P > 1, ( a -> b ; c ).", "c.pl")
    want = ("0.5 :: c(h).\n0.5 :: [A] :: c(t) :-\n    A>1,\n    (   a\n    ->  b\n"
            "    ;   c\n    ).\n\n")
    assert p.once("with_output_to(string(S), listing(c/1))")["S"] == want
    assert p.listing("c/1") == want
    assert p.listing("c") == want
    assert "gen(1).\ngen(2).\ngen(3).\n" in p.listing()
    assert p.once("with_output_to(string(S), portray_clause((f(X, Y) :- g(Y, X), "
                  "\\+ h(_))))")["S"] == "f(A, B) :-\n    g(B, A),\n    \\+h(_).\n"
    assert p.portray_clause("0.3 :: [P] :: q(P)") == "0.3 :: [A] :: q(A).\n"
    assert p.portray_clause("f(X, Y) :- g(Y, X)") == "f(A, B) :-\n    g(B, A).\n"
    # what listing writes reads back as the same program
    q = Program()
    q.consult_text(p.listing(), "listed.pl")
    assert q.listing() == p.listing()
