"""Rational numbers as SWI-Prolog 9 has them (1r3, rdiv, rational/1, rationalize/1),
checked against Python's fractions.Fraction; and the unknown flag."""
from fractions import Fraction

import numpy as np
import pytest

from slpy import Program
from slpy.terms.term import PrologError
from slpy.terms.rational import Rational


def val(p, q, var="X"):
    b = p.once(q)
    assert b is not None, q
    return b[var]


def test_syntax_and_writing(prog):
    x = val(prog, "X = 1r3")
    assert type(x) is Rational and x == Fraction(1, 3) and str(x) == "1r3"
    assert str(val(prog, "X = -2r4")) == "-1r2"
    assert val(prog, "X = 4r2") == 2 and type(val(prog, "X = 4r2")) is int
    with pytest.raises(PrologError, match="zero denominator"):
        prog.once("X = 1r0")
    b = prog.once("with_output_to(string(S), (writeq(-(1r3)), write(' '), "
                  "writeq(1 - -1r3), write(' '), print([1r3, f(2r5)])))")
    assert b["S"] == "-(1r3) 1- -1r3 [1r3,f(2r5)]"
    assert val(prog, "atom_number('1r3', X)") == Fraction(1, 3)
    assert str(val(prog, "format(atom(X), '~w', [3r7])")) == "'3r7'"


def test_arithmetic_is_exact():
    p = Program()
    rng = np.random.default_rng(3)
    for _ in range(60):
        a = Fraction(int(rng.integers(-20, 20)), int(rng.integers(1, 12)))
        b = Fraction(int(rng.integers(-20, 20)), int(rng.integers(1, 12)))
        if b == 0:
            continue
        ta = f"{a.numerator} rdiv {a.denominator}"
        tb = f"{b.numerator} rdiv {b.denominator}"
        for op, ref in (("+", a + b), ("-", a - b), ("*", a * b), ("/", a / b)):
            got = val(p, f"A is {ta}, B is {tb}, X is A {op} B")
            assert got == ref, (a, op, b)
            # an integral result is an integer
            assert (type(got) is int) == (ref.denominator == 1)
        assert val(p, f"A is {ta}, X is A ** 3") == a ** 3
        assert p.once(f"A is {ta}, B is {tb}, ({'A < B' if a < b else 'A >= B'})") is not None
    assert val(p, "X is 1/3") == pytest.approx(1 / 3)         # prefer_rationals false
    assert val(p, "X is 1r3 * 0.5") == pytest.approx(1 / 6)   # a float wins
    assert type(val(p, "X is 1r3 * 0.5")) is float


def test_functions(prog):
    cases = {
        "X is 1 rdiv 3": Fraction(1, 3), "X is 6 rdiv 3": 2, "X is rational(0.1)":
        Fraction(0.1), "X is rationalize(0.1)": Fraction(1, 10),
        "X is rationalize(1/3)": Fraction(1, 3), "X is rationalize(0.25)": Fraction(1, 4),
        "X is numerator(4r6)": 2, "X is denominator(4r6)": 3, "X is numerator(5)": 5,
        "X is sign(-1r3)": -1, "X is abs(-1r3)": Fraction(1, 3),
        "X is truncate(7r2)": 3, "X is floor(-7r2)": -4, "X is ceiling(7r2)": 4,
        "X is round(7r2)": 4, "X is round(-7r2)": -4, "X is max(1r3, 0.3)": Fraction(1, 3),
        "X is 1r3 ^ -2": 9, "X is 2 / 1r3": 6,
    }
    for q, want in cases.items():
        got = val(prog, q)
        assert got == want and type(got) is type(want if type(want) is not Fraction
                                                   else Rational(want)), q
    assert val(prog, "X is float(1r3)") == 1 / 3
    for q, err in {"X is 1r3 // 2": "integer", "X is 1 rdiv 0": "zero_divisor",
                   "X is 1.0 rdiv 2": "rational", "X is numerator(0.5)": "rational",
                   "X is rational(inf)": "undefined"}.items():
        with pytest.raises(PrologError, match=err):
            prog.once(q)


def test_types_and_order(prog):
    assert prog.once("rational(1r3), rational(2), \\+ rational(0.5), number(1r3), "
                     "\\+ integer(1r3), atomic(1r3), \\+ float(1r3), \\+ atom(1r3)") == {}
    b = prog.once("rational(3r6, N, D)")
    assert (b["N"], b["D"]) == (1, 2)
    assert str(val(prog, "msort([1, 0.5, 1r2, 1r3, a, 2], X)")) == "[1r3,0.5,1r2,1,2,a]"
    assert str(val(prog, "compare(X, 1r2, 0.5)")) == ">"
    assert prog.once("1r3 =:= 1 rdiv 3, 1r2 =:= 0.5, X = f(1r3), X == f(1r3), "
                     "copy_term(X, Y), Y == X") is not None
    assert prog.once("must_be(rational, 1r3), must_be(number, 1r3)") == {}
    with pytest.raises(PrologError, match="integer"):
        prog.once("succ(1r3, _)")


def test_unknown_flag(prog, capsys):
    with pytest.raises(PrologError, match="Unknown procedure: nope/0"):
        prog.once("nope")
    assert prog.once("set_prolog_flag(unknown, warning), nope") is None
    assert "Warning: Unknown procedure: nope/0" in capsys.readouterr().err
    assert prog.once("set_prolog_flag(unknown, fail), nope") is None
    assert capsys.readouterr().err == ""
    # a library predicate still loads on first call whatever the flag says
    assert prog.once("union([a], [b], U)") is not None
    with pytest.raises(PrologError, match="flag_value"):
        prog.once("set_prolog_flag(unknown, loud)")
