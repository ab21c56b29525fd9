"""Most probable proofs (slpy.learning.proofs) against brute force: every refutation of
the goal enumerated by the engine (the program without its table directives) with its
probability, sorted."""
from __future__ import annotations

import math

import pytest
from click.testing import CliRunner

from slpy import Program
from slpy.cli import main
from slpy.learning import mpe

COINS = """\
0.6 :: s(X, Y) :- a(X), b(X, Y).
0.4 :: s(X, X) :- a(X).
0.4 :: a(1).  0.6 :: a(2).
0.7 :: b(1, x). 0.3 :: b(2, y).
"""

# recursion: a list of coins, each drawn and then either the end or more (a is
# drawn by two clauses, so a list has several proofs)
RECURSIVE = """\
:- table l/1.
0.3 :: l([]).
0.7 :: l([X|T]) :- c(X), l(T).
0.5 :: c(a). 0.3 :: c(b). 0.2 :: c(a).
"""

# shared subgoals: q(N) is reached from q(N+1) and q(N+2), so tabling shares q(M)
SHARED = """\
:- table q/1.
0.5 :: q(N) :- N > 0, M is N - 1, q(M).
0.3 :: q(N) :- N > 1, M is N - 2, q(M).
0.2 :: q(0).
"""

# an HMM: the hidden states are the proof, the observations the goal
HMM = """\
:- table hmm/3.
h(Os) :- length(Os, N), start(S), hmm(S, N, Os).
hmm(_, 0, []).
hmm(S, N, [O|Os]) :- N > 0, emit(S, O), tr(S, S2), M is N - 1, hmm(S2, M, Os).
emit(s1, O) :- e1(O).
emit(s2, O) :- e2(O).
tr(s1, S) :- t1(S).
tr(s2, S) :- t2(S).
0.5 :: start(s1). 0.5 :: start(s2).
0.7 :: e1(a). 0.3 :: e1(b).
0.2 :: e2(a). 0.8 :: e2(b).
0.6 :: t1(s1). 0.4 :: t1(s2).
0.3 :: t2(s1). 0.7 :: t2(s2).
"""

PCFG = """\
:- table s/2.
0.2 :: s --> s, s.
0.4 :: s --> [a].
0.3 :: s --> [b].
0.1 :: s --> [a], [b].
"""

CASES = [(COINS, "s(X, Y)"), (COINS, "s(1, Y)"), (RECURSIVE, "l([a, b, a, a])"),
         (SHARED, "q(7)"), (HMM, "h([a, b, b, a, b])"), (PCFG, "s([a, b, a, b, a], [])")]


def load(text):
    p = Program()
    p.consult_text(text, "m.slp")
    return p


def brute_force(text, goal):
    """Without tabling left recursion has infinitely many derivations: those less
    probable than every proof (1e-10 here) are left out."""
    untabled = "\n".join(line for line in text.splitlines() if not line.startswith(":- table"))
    return sorted(load(untabled).proofs(goal, min_prob=1e-10), key=lambda x: -x.prob)


def _clauses(tree):
    return [(n.key.pred.name.replace(" tabled", ""), n.key.number) for n in tree]


@pytest.mark.parametrize("text, goal", CASES, ids=["coins", "coins-bound", "recursive",
                                                    "shared", "hmm", "pcfg"])
def test_the_k_best_proofs_are_those_of_brute_force(text, goal):
    every = brute_force(text, goal)
    assert len(every) >= 2
    got = mpe(load(text), goal, k=5)
    assert len(got) == min(5, len(every))
    for g, b in zip(got, every):
        assert g.prob == pytest.approx(b.prob, rel=1e-12, abs=0)
    # the best proof is the brute force's best, clause for clause
    if len(every) == 1 or every[0].prob > every[1].prob * (1 + 1e-9):
        best = got[0]
        assert math.exp(best.tree.log_prob()) == pytest.approx(best.prob, rel=1e-12)
        assert _clauses(best.tree) == _clauses(every[0].tree)
        assert {k: str(v) for k, v in best.bindings.items()} == \
            {k: str(v) for k, v in every[0].bindings.items()}


def test_a_goal_without_proof_has_none_and_k_is_checked():
    p = load(COINS)
    assert mpe(p, "s(3, 3)") == []
    with pytest.raises(ValueError, match="k must be >= 1"):
        mpe(p, "s(X, Y)", k=0)


def test_the_top_level_prints_the_proofs_and_binds_the_best(tmp_path):
    f = tmp_path / "coins.slp"
    f.write_text(COINS)
    r = CliRunner().invoke(main, ["repl", "-q", str(f)],
                           input="mpe(s(X, Y), 2).\nmpe(s(3, 3)).\n")
    assert r.exit_code == 0, r.output
    lines = r.stdout.splitlines()
    assert lines[:3] == ["% proof 1 of 2: s(2, 2)",
                         "% proof tree: 2 choice points, p = 0.24 (log p = -1.427)",
                         "%   s(_A, _B)  clause 2 (coins.slp:2)  p = 0.4"]
    assert "% proof 2 of 2: s(1, x)" in lines
    assert "X = Y, Y = 2." in lines and "false." in lines
