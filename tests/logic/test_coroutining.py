"""Coroutining: freeze/2, dif/2, when/2 and frozen/2 wake their goals at the next step
after a binding, are undone on backtracking, and leave the engine's fast path alone
when unused."""
import itertools

import numpy as np
import pytest

from slpy import Program
from slpy.terms.term import PrologError


@pytest.fixture
def p():
    prog = Program()
    prog.consult_text("p(1). p(2). p(3).\nnat(0).\nnat(N) :- nat(M), N is M + 1.")
    return prog


def run(p, q, var="S"):
    """What q writes (with_output_to) and its first answer's var."""
    b = p.once(f"with_output_to(string(S), ({q}))")
    return None if b is None else b[var]


def sols(p, q, var="X"):
    return [str(b[var]) for b in itertools.islice(p.query(q), 20)]


def test_freeze(p):
    assert run(p, "freeze(X, write(woke(X))), write(before), X = 1, write(after)") == \
        "beforewoke(1)after"
    assert p.once("freeze(X, fail), X = 1") is None
    assert p.once("freeze(X, fail)") is not None            # never bound: never run
    assert run(p, "freeze(X, write(x(X))), X = Y, write(' aliased '), Y = 5") == \
        " aliased x(5)"
    assert run(p, "freeze(1, write(now))") == "now"
    # backtracking undoes the binding and re-arms the goal
    assert run(p, "freeze(X, write(X)), p(X), X >= 2") == "12"
    assert sols(p, "findall(X, (freeze(X, X > 1), p(X)), L)", "L") == ["[2,3]"]
    assert sols(p, "freeze(X, X > 1), (X = 1 ; X = 2 ; X = 3)") == ["2", "3"]
    assert sols(p, "freeze(X, true), frozen(X, G)", "G")[0].startswith("freeze(")
    assert sols(p, "frozen(_, G)", "G") == ["true"]
    # woken at the next step after the binding, before the next goal runs
    assert [str(b["N"]) for b in itertools.islice(
        p.query("freeze(N, N < 3), nat(N)"), 3)] == ["0", "1", "2"]


def test_dif(p):
    assert p.once("dif(a, b)") == {} and p.once("dif(a, a)") is None
    assert sols(p, "dif(X, a), X = b") == ["b"]
    assert p.once("dif(X, a), X = a") is None
    assert p.once("dif(f(X, Y), f(1, 2)), X = 1, Y = 2") is None
    assert p.once("dif(f(X, Y), f(1, 2)), X = 1, Y = 3") is not None
    assert p.once("dif(X, Y), X = Y") is None
    assert p.once("dif(X, Y), X = Z, Y = Z") is None
    assert p.once("dif(X, Y), X = a, Y = b") is not None
    assert sols(p, "dif(X, a), (X = a ; X = b ; X = a ; X = c)") == ["b", "c"]
    assert sols(p, "findall(X-Y, (dif(X, Y), member(X, [1, 2]), member(Y, [1, 2])), L)",
                "L") == ["[1-2,2-1]"]
    assert sols(p, "dif(X, Y), frozen(X, G)", "G")[0].startswith("dif(")


def test_dif_against_a_brute_force_reference():
    # random pairs of terms over {a, b, f(_, _)}: dif(T1, T2), then bind every
    # variable, succeeds exactly when the ground instances differ
    rng = np.random.default_rng(8)
    p = Program()

    def term(depth):
        r = rng.random()
        if depth > 1 or r < 0.35:
            return rng.choice(["A", "B", "C"])
        if r < 0.6:
            return rng.choice(["a", "b"])
        return f"f({term(depth + 1)}, {term(depth + 1)})"

    for _ in range(60):
        t1, t2 = term(0), term(0)
        for vals in itertools.product(["a", "b"], repeat=3):
            bind = f"A = {vals[0]}, B = {vals[1]}, C = {vals[2]}"
            want = p.once(f"{bind}, {t1} \\== {t2}") is not None
            got = p.once(f"dif({t1}, {t2}), {bind}") is not None
            assert got == want, (t1, t2, vals)


def test_when(p):
    assert run(p, "when(nonvar(X), write(nv)), write(a), X = f(_), write(b)") == "anvb"
    assert run(p, "when(ground(f(X, Y)), write(gr)), X = 1, write(mid), Y = 2") == "midgr"
    assert run(p, "when((nonvar(X) ; nonvar(Y)), write(once)), Y = 1, X = 2") == "once"
    assert run(p, "when((nonvar(X), nonvar(Y)), write(both)), X = 1, write(mid), Y = 2") == \
        "midboth"
    assert run(p, "when(?=(X, Y), write(decided)), X = a, write(mid), Y = b") == "middecided"
    assert run(p, "when(?=(X, Y), write(decided)), X = Y") == "decided"
    assert run(p, "when(nonvar(a), write(now))") == "now"
    with pytest.raises(PrologError, match="when_condition"):
        p.once("when(foo, true)")
    with pytest.raises(PrologError, match="nstantiat"):
        p.once("when(_, true)")


def test_suspensions_end_with_the_query_and_work_inside_captured_output(p):
    assert run(p, "with_output_to(string(_), freeze(X, write(hi))), X = 1") == "hi"
    assert p.once("freeze(X, fail)") is not None
    assert p.once("X = 1") is not None               # a new query has no suspensions
    assert p.engine.attrs == {}


def test_no_suspension_no_change_in_answers_or_speed_path(p):
    # a query that never suspends keeps the 4096-step limit checks (coroutining off)
    assert sols(p, "nat(N), N > 3", "N")[:2] == ["4", "5"]
    assert p.engine.coroutining is False
    assert p.once("freeze(X, true), X = 1") is not None
    assert p.engine.coroutining is True


def test_coroutines_in_sampling():
    p = Program()
    p.consult_text("0.5 :: c(h). 0.5 :: c(t).\n"
                   "two(X, Y) :- dif(X, Y), c(X), c(Y).")
    for seed in range(10):
        s = p.sample("two(X, Y)", rng=np.random.default_rng(seed))
        assert str(s.bindings["X"]) != str(s.bindings["Y"])
    got = {(str(pr.bindings["X"]), str(pr.bindings["Y"])): pr.prob
           for pr in p.proofs("two(X, Y)")}
    assert got == pytest.approx({("h", "t"): 0.25, ("t", "h"): 0.25})


def test_top_level_shows_suspended_goals():
    import io
    from slpy.repl import Session, run_stream
    out = io.StringIO()
    s = Session(stdout=out, stderr=io.StringIO())
    run_stream(s, io.StringIO("dif(X, a).\nfreeze(X, true), Y = f(X).\n"
                              "dif(X, Y), X = f(Z).\nfreeze(X, true), X = 1.\n"))
    text = out.getvalue()
    assert "dif(X, a)." in text
    assert "Y = f(X),\nfreeze(X, true)." in text
    assert "X = f(Z),\ndif(f(Z), Y)." in text
    assert "X = 1." in text
