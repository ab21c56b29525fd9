"""The clause compiler (slpy.logic.compile) on its own: the Python it produces for
small clauses, and what that function does when called directly with an argument
tuple, a continuation, a cut barrier and a trail, as the engine calls it."""
import pytest

from slpy import Program
from slpy.logic.compile import compile_clause
from slpy.logic.db import DET
from slpy.logic.kinds import CONTROL_PREDS, FR_ARGS, FR_CB, FR_NEXT, FR_PN, FR_PRED
from slpy.terms.term import Atom, PrologError, Struct, Var, atom, deref
from slpy.terms.unify import undo_to

NXT = ("the", "continuation")   # a stand-in frame: the clause returns it after the body
CB, PN = 7, "parent"            # the cut barrier and proof parent the clause passes on


@pytest.fixture(scope="module")
def prog():
    return Program()


def compiled(prog, text):
    """The compiled function of one clause (head :- body, or a labelled clause)."""
    from slpy.lang.clauses import split_clause
    term, _ = prog.parse_query(text)
    parts = split_clause(deref(term))
    return compile_clause(prog.ctx, parts.head, parts.body, parts.label, parts.guard)


def call(fn, *args):
    trail = []
    return fn(tuple(args), NXT, CB, PN, trail), trail


def frames(f):
    """The frames of a continuation up to NXT: [(pred name, args, cb, pn)]."""
    out = []
    while f is not NXT:
        out.append((f[FR_PRED].name, f[FR_ARGS], f[FR_CB], f[FR_PN]))
        f = f[FR_NEXT]
    return out


def test_a_fact_is_a_function_of_the_call_arguments(prog):
    fn = compiled(prog, "p(a, X)")
    assert fn.source.startswith("def clause_fn(a, nxt, cb, pn, trail):\n")
    # a first-occurrence variable is only named, never unified
    assert "V0 = a[1]" in fn.source
    assert call(fn, atom("a"), Var())[0] is NXT
    assert call(fn, atom("b"), Var())[0] is None
    assert call(fn, 1, Var())[0] is None


def test_an_unbound_argument_is_bound_and_trailed(prog):
    fn = compiled(prog, "p(a, X)")
    v = Var()
    r, trail = call(fn, v, 3)
    assert r is NXT
    assert deref(v) is atom("a")
    assert trail == [v]
    undo_to(trail, 0)
    assert v.ref is None


def test_a_repeated_head_variable_is_unified(prog):
    fn = compiled(prog, "q(X, X)")
    assert "if not unify(V0, a[1], trail): return None" in fn.source
    assert call(fn, 1, 1)[0] is NXT
    assert call(fn, 1, 2)[0] is None
    y = Var()
    r, trail = call(fn, y, 3)
    assert r is NXT and deref(y) == 3


def test_a_compound_head_argument_reads_or_writes(prog):
    fn = compiled(prog, "r(f(X, b))")
    # read mode: the call's term is matched argument by argument
    x = Var()
    r, _ = call(fn, Struct("f", (x, atom("b"))))
    assert r is NXT and x.ref is None      # X only named: the call's variable stays free
    assert call(fn, Struct("f", (1, atom("c"))))[0] is None
    assert call(fn, Struct("g", (1, atom("b"))))[0] is None
    assert call(fn, Struct("f", (1,)))[0] is None
    # write mode: an unbound argument is bound to a new f(_, b)
    v = Var()
    r, trail = call(fn, v)
    t = deref(v)
    assert r is NXT and trail == [v]
    assert type(t) is Struct and t.name == "f" and deref(t.args[1]) is atom("b")
    assert type(deref(t.args[0])) is Var


def test_a_ground_subterm_is_built_once(prog):
    fn = compiled(prog, "m :- n(f(a, [1, 2]))")
    f1 = call(fn)[0]
    f2 = call(fn)[0]
    assert f1[FR_ARGS][0] is f2[FR_ARGS][0]           # shared, not copied per call
    assert str(f1[FR_ARGS][0]) == "f(a,[1,2])"


def test_a_body_is_a_chain_of_frames_ending_in_the_continuation(prog):
    fn = compiled(prog, "s(X) :- t(X, Y), u(Y), true, v")
    r, _ = call(fn, 5)
    got = frames(r)
    assert [g[0] for g in got] == ["t", "u", "v"]     # `true` adds no frame
    (_, targs, tcb, tpn), (_, uargs, _, _), (_, vargs, _, _) = got
    assert targs[0] == 5 and type(targs[1]) is Var
    assert uargs[0] is targs[1]                        # the same fresh Y
    assert vargs == ()
    assert all(g[2] == CB and g[3] == PN for g in got)
    # the frames name the database's predicates themselves
    assert r[FR_PRED] is prog.db.get("t", 2)


def test_a_cut_is_a_frame_cutting_to_the_clause_barrier(prog):
    fn = compiled(prog, "w(X) :- a(X), !, b")
    r, _ = call(fn, 1)
    got = frames(r)
    assert [g[0] for g in got] == ["a", "!", "b"]
    cut = r[FR_NEXT]
    assert cut[FR_PRED] is CONTROL_PREDS[("!", 0)]
    assert cut[FR_CB] == CB    # cuts back to the choice points of this call
    assert "C_cut" in fn.source


def test_arithmetic_in_a_body_compiles_to_python(prog):
    fn = compiled(prog, "inc(X, Y) :- Y is X * 2 + 1")
    y = Var()
    r, _ = call(fn, 4, y)
    pred = r[FR_PRED]
    assert pred.kind == DET and pred.builtin and r[FR_NEXT] is NXT
    assert pred.fn(prog.engine, *r[FR_ARGS]) is True
    assert deref(y) == 9
    prog.engine.trail.clear()


def test_a_cut_free_disjunction_becomes_an_auxiliary_predicate(prog):
    fn = compiled(prog, "d(X) :- ( X = 1 ; X = 2 )")
    r, _ = call(fn, Var())
    aux = r[FR_PRED]
    assert aux.name.startswith("$aux") and len(aux.clauses) == 2
    # with a cut inside, it stays a runtime disjunction (transparent to the cut)
    fn = compiled(prog, "d(X) :- ( X = 1, ! ; X = 2 )")
    r, _ = call(fn, Var())
    assert r[FR_PRED] is CONTROL_PREDS[(";", 2)]


def test_a_labelled_clause_returns_its_label_and_body(prog):
    fn = compiled(prog, "0.3 :: c(a) :- e")
    assert fn.source.startswith("def clause_fn(a, g, nxt, cb, pn, trail):\n")
    trail = []
    label, body = fn((atom("a"),), None, NXT, CB, PN, trail)
    assert label == 0.3
    assert body[FR_PRED].name == "e" and body[FR_NEXT] is NXT
    assert fn((atom("b"),), None, NXT, CB, PN, trail) is None


def test_a_guard_binds_the_label(prog):
    fn = compiled(prog, "1 - P :: [P] :: e(one)")
    trail = []
    label, body = fn((atom("one"),), Struct(".", (0.25, Atom("[]"))), NXT, CB, PN, trail)
    assert label == 0.75 and body is NXT
    # a call without a guard leaves the guard's variables fresh: the label cannot be
    # computed (the engine's label check reports it)
    with pytest.raises(PrologError, match="instantiated"):
        fn((atom("one"),), None, NXT, CB, PN, trail)
    # a guard that does not unify fails the clause
    assert fn((atom("one"),), Struct(".", (1, Struct(".", (2, Atom("[]"))))), NXT, CB, PN,
              trail) is None


def test_compiled_clauses_run_in_the_engine(prog):
    p = Program()
    p.consult_text("""
        app([], L, L).
        app([H|T], L, [H|R]) :- app(T, L, R).
        first(X, [X|_]) :- !.
        first(X, [_|T]) :- first(X, T).
    """)
    assert [str(a["X"]) for a in p.query("app(X, _, [1,2])")] == ["[]", "[1]", "[1,2]"]
    assert [str(a["X"]) for a in p.query("first(X, [a,b,c])")] == ["a"]
