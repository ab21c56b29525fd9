"""Strings as SWI-Prolog 7 has them: "..." reads as a string (flag double_quotes,
file-local), text predicates take any text, with_output_to/2 and format/3 write to
atoms, strings, codes and chars."""
import pytest

from slpy import Program
from slpy.terms.term import Atom, PrologError


def val(p, q, var):
    """The binding of var: a Python str for a string, the name of an atom, else the
    term's text."""
    b = p.once(q)
    assert b is not None, q
    t = b[var]
    if isinstance(t, str):
        return t
    return t.name if isinstance(t, Atom) else str(t)


def test_double_quotes_read_as_strings(prog):
    assert val(prog, 'X = "ab"', "X") == "ab"
    assert prog.once('string("ab"), \\+ is_list("ab")') is not None
    assert str(val(prog, "X = `ab`", "X")) == "[97,98]"
    assert str(val(prog, 'msort(["b", a, 1, "a", f(x)], L)', "L")) == '[1,a,"a","b",f(x)]'


def test_double_quotes_flag_is_local_to_a_file(prog):
    prog.consult_text(':- set_prolog_flag(double_quotes, codes).\nc(X) :- X = "ab".', "c.pl")
    prog.consult_text('s(X) :- X = "ab".', "s.pl")
    assert str(val(prog, "c(X)", "X")) == "[97,98]"
    assert val(prog, "s(X)", "X") == "ab"
    assert str(val(prog, "current_prolog_flag(double_quotes, F)", "F")) == "string"
    prog.once("set_prolog_flag(double_quotes, chars)")   # at the top level it stays
    assert str(val(prog, 'X = "ab"', "X")) == "[a,b]"


def test_text_predicates_take_strings(prog):
    for q, var, want in [
            ('atom_length("abc", L)', "L", "3"), ('atom_codes(A, "ab")', "A", "ab"),
            ('number_codes(N, "12")', "N", "12"), ('upcase_atom("ab", A)', "A", "AB"),
            ('atomic_list_concat([a, "b", 1], A)', "A", "ab1"),
            ('sub_atom("abc", 1, 1, _, S)', "S", "b"),
            ('string_concat(abc, "d", S)', "S", "abcd"),
            ('split_string("a,b,,c", ",", "", P)', "P", '["a","b","","c"]'),
            ('text_concat(abc, "def", T), string(T)', "T", "abcdef"),
            ('text_concat(abc, def, T), atom(T)', "T", "abcdef"),
            ('number_string(N, " 42 ")', "N", "42"), ('number_string(4.5, S)', "S", "4.5"),
            # term_string(?Term, ?String), as SWI-Prolog 9.0.4 answers
            ('term_string(foo(\'A\', "b", [1]), S)', "S", "foo('A',\"b\",[1])"),
            ('term_string(T, "g(X, Y)"), T = g(A, B), A \\== B', "A", "_")]:
        got = val(prog, q, var)
        if want != "_":
            assert got == want, q
    assert [b["X"].name for b in prog.query("text_concat(X, Y, ab)")] == ["", "a", "ab"]
    with pytest.raises(PrologError, match="llegal number"):
        prog.once('number_string(N, "4x")')


def test_with_output_to(prog):
    q = 'with_output_to(string(S), (write(a), print("b"), format("~w~n", [c])))'
    assert val(prog, q, "S") == 'a"b"c\n'
    assert str(val(prog, "with_output_to(atom(A), forall(member(X, [1, 2]), write(X)))",
                    "A")) == "12"
    b = prog.once("with_output_to(codes(C, T), write(hi))")
    assert str(b["C"]).startswith("[104,105|")
    assert str(val(prog, "with_output_to(chars(C), write(hi))", "C")) == "[h,i]"
    assert prog.once("with_output_to(string(_), fail)") is None
    # once: the goal's other solutions are cut; an exception restores the output
    assert val(prog, "with_output_to(string(S), (member(X, [a, b]), write(X)))", "S") == "a"
    out = []
    p = Program(out=out.append)
    assert str(val(p, "catch(with_output_to(string(_), (write(x), throw(e))), E, true), "
                      "write(after)", "E")) == "e"
    assert "".join(out) == "after"
    with pytest.raises(PrologError, match="output_sink"):
        prog.once("with_output_to(foo, true)")


def test_format_to_text(prog):
    assert str(val(prog, 'format(atom(A), "~a-~w", [x, "y"])', "A")) == "x-y"
    assert val(prog, 'format(string(S), "~q", ["q"])', "S") == '"q"'
    assert str(val(prog, 'format(codes(C), "ab", [])', "C")) == "[97,98]"
    assert str(val(prog, 'format(chars(C, T), "ab", [])', "C")).startswith("[a,b|")
    assert str(val(prog, 'format(atom(A), "~a~@~w", [x, write(y), z])', "A")) == "xyz"


def test_dcg_string_literals_are_terminals(prog):
    prog.consult_text('greet --> "hi", [0' + "'" + '!].', "g.pl")
    assert prog.once("atom_codes('hi!', L), phrase(greet, L)") is not None
