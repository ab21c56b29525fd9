"""The top level (slpy.repl): answers as SWI-Prolog prints them, stochastic answers with
their probabilities and proof trees, the top-level commands, errors, Ctrl-C; driven
in-process through a stream, through a pipe, and through a pseudo-terminal."""
import io
import math
import os
import re
import signal
import subprocess
import sys
import time
from pathlib import Path

import pytest

from slpy.repl import Session, run_stream, query_state, split_queries

from .conftest import PEPL, needs_pepl

ROOT = Path(__file__).resolve().parents[1]
DATA = Path(__file__).resolve().parent / "data_files"

COIN = "0.5 :: coin(head).\n0.5 :: coin(tail).\n"
MEMBER3 = ("1/3 :: member3(H, [H|_]).\n"
           "2/3 :: member3(E, [_|T]) :- member3(E, T).\n")
DOUBLES = "1 :: doubles(X) :- coin(X), coin(X).\n" + COIN


def run(script, program="", seed=1, pure=False, files=()):
    """Run a script through the stream top level; (stdout, stderr, exit status)."""
    out, err = io.StringIO(), io.StringIO()
    s = Session(seed=seed, pure=pure, stdout=out, stderr=err)
    if program:
        s.program.consult_text(program, "test.slp")
    s.load_files(files)
    status = run_stream(s, io.StringIO(script))
    return out.getvalue(), err.getvalue(), status


def out_of(script, **kw):
    return run(script, **kw)[0]


# -- reading queries -----------------------------------------------------------------------

def test_query_state_and_split():
    assert query_state("") == "empty"
    assert query_state("  % a comment\n") == "empty"
    assert query_state("X = 1") == "incomplete"
    assert query_state("X = f(a,\n") == "incomplete"
    assert query_state("X = 1.") == "complete"
    assert query_state("X = 1. Y = ") == "incomplete"
    assert query_state("X = 0'. .") == "complete"
    assert query_state("X = 1.5") == "incomplete"
    assert split_queries("X = 1. Y = 2.\n") == ["X = 1.", " Y = 2."]
    assert split_queries("X = 'a.b'.") == ["X = 'a.b'."]


# -- deterministic answers, as SWI-Prolog prints them -------------------------------------------

def test_pipe_deterministic_answers():
    assert out_of("X is 1+2.\n") == "X = 3.\n"
    assert out_of("X = 1, Y = foo.\n") == "X = 1,\nY = foo.\n"
    assert out_of("true.\nfail.\n") == "true.\nfalse.\n"
    assert out_of("X = [1,2,3], Y = 'hello world'.\n") == \
        "X = [1, 2, 3],\nY = 'hello world'.\n"


def test_sharing_and_fresh_variables():
    assert out_of("X = Y.\n") == "X = Y.\n"
    assert out_of("X = 1, Y = 1.\n") == "X = Y, Y = 1.\n"
    assert out_of("X = Y, Z = f(X).\n") == "X = Y,\nZ = f(Y).\n"
    assert out_of("X = f(_, Y, Y).\n") == "X = f(_, Y, Y).\n"
    assert out_of("copy_term(f(A, A, _), X).\n") == "X = f(_A, _A, _).\n"
    assert out_of("length(L, 2).\n") == "L = [_, _].\n"
    # variables named _X are not shown
    assert out_of("_X = 1, Y = 2.\n") == "Y = 2.\n"
    assert out_of("X = (a :- b).\n") == "X = (a:-b).\n"


def test_cyclic_answers_print_and_terminate():
    assert out_of("X = f(X).\n") == "X = f(X).\n"
    assert out_of("X = f(Y), Y = g(X).\n") == "X = f(Y),\nY = g(X).\n"
    assert out_of("X = [a|X], Y = X.\n") == "X = Y, Y = [a|Y].\n"
    assert out_of("X = f(Z, Z), Z = g(Z).\n") == "X = f(Z, Z),\nZ = g(Z).\n"


def test_semicolon_gives_the_next_answer_and_enter_stops():
    assert out_of("(X = a ; X = b ; X = c).\n;\n;\n") == "X = a ;\nX = b ;\nX = c.\n"
    # a line that is not an action stops the answers and is the next query
    assert out_of("(X = a ; X = b).\nY = 1.\n") == "X = a.\nY = 1.\n"
    assert out_of("(X = a ; X = b).\n\nY = 1.\n") == "X = a.\nY = 1.\n"
    assert out_of("member(X, [1,2]), X > 1.\n") == "X = 2.\n"
    assert out_of("between(1, 3, X), X > 5.\n") == "false.\n"


def test_multi_line_query_and_output_before_the_answer():
    assert out_of("X = f(a,\n  b),\n Y = 2.\n") == "X = f(a, b),\nY = 2.\n"
    assert out_of("write(hello).\n") == "hello\ntrue.\n"
    assert out_of("X = 1. Y = 2.\n") == "X = 1.\nY = 2.\n"


# -- stochastic answers --------------------------------------------------------------------------

_P_LINE = re.compile(r"^% p = (\S+) \(log p = (\S+)\)$")


def _stochastic_answers(text):
    """[(p, log p, bindings line)] of a transcript of stochastic answers."""
    lines = text.splitlines()
    out = []
    for i, line in enumerate(lines):
        m = _P_LINE.match(line)
        if m:
            out.append((float(m[1]), float(m[2]), lines[i + 1]))
    return out


def test_stochastic_query_shows_probability_and_backtracks_without_replacement():
    text = out_of("coin(X).\n;\n;\n", program=COIN, seed=3)
    answers = _stochastic_answers(text)
    assert len(answers) == 2
    assert {a[2].rstrip(" ;.") for a in answers} == {"X = head", "X = tail"}
    for p, logp, _ in answers:
        assert p == 0.5 and logp == pytest.approx(math.log(0.5), abs=1e-3)
    # the second answer is the last one: no more alternatives, so it ends with '.'
    assert text.endswith(".\n") and text.count(" ;\n") == 1


def test_stochastic_answer_probability_is_that_of_its_derivation():
    expected = {"a": 1 / 3, "b": 2 / 9, "c": 4 / 27}
    seen = set()
    for seed in range(8):
        text = out_of("member3(X, [a,b,c]).\n", program=MEMBER3, seed=seed)
        (p, logp, line), = _stochastic_answers(text)
        x = line.split("=")[1].strip(" .;")
        seen.add(x)
        assert p == pytest.approx(expected[x], rel=1e-3)
        assert logp == pytest.approx(math.log(expected[x]), abs=1e-3)
    assert len(seen) >= 2


def test_same_seed_same_answers_and_set_seed():
    script = "member3(X, [a,b,c,d,e]).\n;\n;\n"
    assert out_of(script, program=MEMBER3, seed=11) == out_of(script, program=MEMBER3,
                                                              seed=11)
    text = out_of("set_seed(5), sample(coin(X), 20, L1), set_seed(5), "
                  "sample(coin(Y), 20, L2), L1 == L2.\n", program=COIN)
    assert text.startswith("L1 = L2, L2 = [coin(")


def test_pure_sampling_semicolon_draws_fresh_samples():
    text = out_of("sampling(pure).\ncoin(X).\n;\n;\n;\n", program=COIN, seed=2)
    assert text.startswith("true.\n")
    answers = _stochastic_answers(text)
    assert len(answers) == 4                     # pure: always another draw
    assert all(a[0] == 0.5 for a in answers)
    assert text.endswith(".\n")
    out = out_of("sampling(M).\n", pure=True)
    assert out == "M = pure.\n"


def test_pure_sampling_failure_is_false():
    failed = 0
    for seed in range(12):
        text = out_of("doubles(X).\n", program=DOUBLES, seed=seed, pure=True)
        if text.endswith("false.\n"):
            assert "% the sample failed (pure sampling)" in text
            failed += 1
        else:
            (p, _, _), = _stochastic_answers(text)
            assert p == 0.25
    assert 0 < failed < 12
    # backtrackable sampling never fails on doubles/1 and the second coin is forced
    for seed in range(5):
        text = out_of("doubles(X).\n", program=DOUBLES, seed=seed)
        (p, _, _), = _stochastic_answers(text)
        assert p == 0.5


def test_proof_tree_on_t_and_proof_tree_command():
    text = out_of("member3(X, [a,b,c]).\nt\n.\nproof_tree.\n", program=MEMBER3, seed=4)
    trees = [m.start() for m in re.finditer("% proof tree: ", text)]
    assert len(trees) == 2
    tree = text[trees[0]:].splitlines()
    assert re.match(r"% proof tree: \d+ choice points?, p = ", tree[0])
    assert re.match(r"%   member3\(_A, \[a, b, c\]\)  clause [12] \(test.slp:[12]\)  p = 0\.\d+",
                    tree[1])
    if len(tree) > 2 and tree[2].startswith("%     "):
        assert tree[2].startswith("%     member3(_A, [b, c])")
    # the command shows the same tree as the key
    first = text[trees[0]:].split("\n% p = ")[0]
    second = text[trees[1]:].split("\ntrue.")[0]
    assert first == second
    assert out_of("proof_tree.\n") == "true.\n"


def test_a_query_without_stochastic_choices_prints_as_prolog():
    assert out_of("X = 1.\n", program=COIN) == "X = 1.\n"
    # labelled predicates called inside findall/3 leave no choice in the answer's proof
    out = out_of("findall(X, coin(X), L).\n", program=COIN, seed=1)
    assert out in ("L = [head, tail].\n", "L = [tail, head].\n")


# -- the commands ------------------------------------------------------------------------------------

def test_prob_is_exhaustive_probability():
    out = out_of("prob(member3(X, [a,b,c]), P).\n", program=MEMBER3)
    assert out.startswith("P = ")
    assert float(out[4:].rstrip(".\n")) == pytest.approx(19 / 27)
    out = out_of("prob(member3(b, [a,b,c]), P).\n", program=MEMBER3)
    assert float(out[4:].rstrip(".\n")) == pytest.approx(2 / 9)
    out = out_of("prob(doubles(_), P).\n", program=DOUBLES)
    assert float(out[4:].rstrip(".\n")) == pytest.approx(0.5)
    # prob/3 prunes improbable refutations: a lower bound that terminates
    depth = (PEPL / "depth.slp")
    if depth.exists():
        out = out_of("prob([2] :: tree(_), 0.001, P).\n", files=[depth])
        p = float(out[4:].rstrip(".\n"))
        assert 0.9 < p < 1.0


def test_sample_counts_frequencies():
    out = out_of("sample(doubles(X), 2000, L).\n", program=DOUBLES, seed=7)
    counts = dict(re.findall(r"doubles\((\w+)\)-(\d+)", out))
    assert set(counts) == {"head", "tail"}
    assert abs(int(counts["head"]) - 1000) < 100 and \
        int(counts["head"]) + int(counts["tail"]) == 2000
    # pure sampling: failed samples are not listed (half of them fail)
    out = out_of("sample(doubles(X), 2000, L).\n", program=DOUBLES, seed=7, pure=True)
    counts = {k: int(v) for k, v in re.findall(r"doubles\((\w+)\)-(\d+)", out)}
    assert abs(sum(counts.values()) - 1000) < 100
    assert abs(counts["head"] - 500) < 80
    # most frequent first
    n = [int(x) for x in re.findall(r"-(\d+)", out)]
    assert n == sorted(n, reverse=True)


def test_listing_shows_labels_guards_and_reads_back():
    src = (DATA / "clean.slp").read_text()
    text = out_of("listing.\n", program=src)
    assert "0.5 :: coin(head).\n0.5 :: coin(tail).\n" in text
    assert "1-1/A :: [A] :: cart(leaf).\n" in text
    assert "1/A :: [A] :: cart(node(B, C)) :-\n    D is A+1,\n" in text
    assert text.endswith("true.\n")
    # the listing is a program that lists the same
    listed = text[:-len("true.\n")]
    assert out_of("listing.\n", program=listed) == text


def test_listing_layout_of_control_constructs():
    prog = "m(X, Y, Z) :- ( X >= Y -> Z = X ; Z = Y ), \\+ Z == 0.\n:- dynamic d/1.\n"
    text = out_of("listing(m/3).\nlisting(d).\nlisting(write/1).\n", program=prog)
    assert ("m(A, B, C) :-\n"
            "    (   A>=B\n"
            "    ->  C=A\n"
            "    ;   C=B\n"
            "    ),\n"
            "    \\+C==0.\n") in text
    assert ":- dynamic d/1.\n" in text
    assert "write/1 is a built-in predicate" in text


def test_help():
    text = out_of("help(member/2).\n")
    assert text.startswith("member(?X, ?List)\n    ")
    text = out_of("help(prob).\n")
    assert "prob(:Goal, -P)" in text and "prob(:Goal, +MinProb, -P)" in text
    text = out_of("help(coin).\n", program=COIN)
    assert "coin/1" in text and "stochastic" in text and "test.slp:1" in text
    out, err, _ = run("help(no_such_thing).\n")
    assert out == "true.\n" and "no help for no_such_thing" in err
    text = out_of("help.\n")
    assert "sample(Goal, N, Answers)" in text and "Ctrl-C" in text


def test_consult_and_make(tmp_path):
    f = tmp_path / "facts.slp"
    f.write_text("fact(one).\n")
    assert out_of(f"['{f}'].\nfact(X).\n") == "true.\nX = one.\n"
    # make reloads a file that changed; nothing else
    s_out, s_err = io.StringIO(), io.StringIO()
    s = Session(seed=0, stdout=s_out, stderr=s_err)
    run_stream(s, io.StringIO(f"consult('{f}').\n"))
    f.write_text("fact(two).\n")
    st = os.stat(f)
    os.utime(f, (st.st_atime, st.st_mtime + 5))
    run_stream(s, io.StringIO("make.\nfact(X).\nmake.\n"))
    assert s_out.getvalue() == "true.\ntrue.\nX = two.\ntrue.\n"
    assert s_err.getvalue().count("% Reloading") == 1


def test_user_definitions_override_commands():
    out = out_of("sample(a, b, X).\n", program="sample(_, _, mine).\n")
    assert out == "X = mine.\n"


def test_halt():
    out, _, status = run("X = 1.\nhalt.\nX = 2.\n")
    assert out == "X = 1.\n" and status == 0
    assert run("halt(3).\n")[2] == 3


# -- errors --------------------------------------------------------------------------------------------

def test_error_then_good_query():
    out, err, status = run("X is foo + 1.\nY = ok.\n")
    assert out == "Y = ok.\n"
    assert err == "ERROR: Arithmetic: evaluable `foo/0' does not exist\n"
    out, err, _ = run("undefined_thing.\nfoo(.\nX = [.\nY = 2.\n")
    assert out == "Y = 2.\n"
    lines = err.splitlines()
    assert lines[0] == "ERROR: Unknown procedure: undefined_thing/0"
    assert re.fullmatch(r"ERROR: Syntax error at column 5: .+", lines[1])
    assert len(lines) == 3
    out, err, _ = run("atom_length(X, Y).\n")
    assert err == "ERROR: Arguments are not sufficiently instantiated\n"


def test_load_errors_are_one_line_each_with_file_and_line():
    out, err, _ = run(f"['{DATA / 'syntax_error.slp'}'].\ngood(X).\n;\n")
    assert out == "true.\nX = a ;\nX = b.\n"
    assert re.fullmatch(r"ERROR: \S*syntax_error\.slp:3:\d+: Syntax error: .*\n", err)
    out, err, _ = run(f"consult('{DATA / 'load_error.slp'}').\n")
    assert re.fullmatch(r"ERROR: \S*load_error\.slp:4: coin/1 mixes labelled and "
                        r"unlabelled clauses.*\n", err)
    out, err, _ = run("consult(no_such_file).\nX = 1.\n")
    assert out == "X = 1.\n" and err.startswith("ERROR: ") and "no_such_file" in err


def test_unexpected_end_of_input():
    out, err, status = run("X = 1.\nY = \n")
    assert out == "X = 1.\n" and err == "ERROR: Syntax error: Unexpected end of file\n"
    assert status == 0


# -- through a pipe ------------------------------------------------------------------------------

def _env(**extra):
    env = dict(os.environ)
    env["PYTHONPATH"] = str(ROOT) + os.pathsep + env.get("PYTHONPATH", "")
    env.update(extra)
    return env


def _slpy(*args):
    return [sys.executable, "-m", "slpy.cli", *args]


def test_pipe_echo_query():
    r = subprocess.run(_slpy("repl"), input="X is 1+2.\n", capture_output=True, text=True,
                       env=_env(), timeout=60)
    assert r.stdout == "X = 3.\n" and r.stderr == "" and r.returncode == 0


@needs_pepl
def test_pipe_files_answers_errors_and_halt_status():
    script = ("coin(X).\n;\n;\n"
              "X is 1/0.\n"
              "(X = 1 ; X = 2).\n;\n"
              "halt(4).\n")
    r = subprocess.run(_slpy("repl", "--seed", "9", str(PEPL / "coin.slp")), input=script,
                       capture_output=True, text=True, env=_env(), timeout=60)
    assert r.returncode == 4
    assert r.stdout.endswith("X = 1 ;\nX = 2.\n")
    assert r.stderr == "ERROR: Arithmetic: evaluation error: zero_divisor\n"
    assert len(_stochastic_answers(r.stdout)) == 2


def test_pipe_interrupt_aborts_the_running_query():
    script = "write(ready), nl.\nassertz((loop :- loop)), loop.\nX = after.\n"
    proc = subprocess.Popen(_slpy("repl"), stdin=subprocess.PIPE, stdout=subprocess.PIPE,
                            stderr=subprocess.PIPE, text=True, env=_env())
    try:
        proc.stdin.write(script)
        proc.stdin.flush()
        assert proc.stdout.readline() == "ready\n"
        assert proc.stdout.readline() == "true.\n"
        time.sleep(0.5)  # the loop is running
        proc.send_signal(signal.SIGINT)
        out, err = proc.communicate(timeout=30)
    finally:
        proc.kill()
    assert out == "X = after.\n"
    assert "% Execution Aborted" in err and "Traceback" not in err
    assert proc.returncode == 0


# -- through a pseudo-terminal --------------------------------------------------------------------

def _spawn(tmp_path, *args, term="xterm"):
    pexpect = pytest.importorskip("pexpect")
    env = _env(SLPY_HISTORY=str(tmp_path / "history"), PROMPT_TOOLKIT_NO_CPR="1", TERM=term)
    c = pexpect.spawn(sys.executable, ["-m", "slpy.cli", "repl", *args], env=env,
                      encoding="utf-8", timeout=20, dimensions=(40, 200))
    c.expect(r"\?-")
    return c


PROMPT = r"\?-"


def _key(c, k):
    """Press a key at an answer, once the answer is waiting for it (before that the
    terminal would echo the key)."""
    time.sleep(0.1)
    c.send(k)

try:
    import pexpect
except ImportError:  # the tests that need it skip (see _spawn)
    pexpect = None


def test_tty_deterministic_answers_with_semicolon(tmp_path):
    c = _spawn(tmp_path)
    try:
        c.send("(X = a ; X = b ; X = c).\r")
        c.expect("X = a")
        _key(c, ";")
        c.expect(r"X = b")
        _key(c, " ")                      # space asks for the next answer too
        c.expect(r"X = c\.")
        c.expect(PROMPT)
        c.send("member(X, [1,2,3]).\r")
        c.expect("X = 1")
        _key(c, "\r")                     # Enter stops
        c.expect(r"^\.\r\n")
        c.expect(PROMPT)
        c.send("X = f(Y,\r")              # multi-line: no full stop yet
        c.expect(r"\|")
        c.send("  Z).\r")
        c.expect(r"X = f\(Y, Z\)\.")
        c.expect(PROMPT)
        c.sendcontrol("d")
        c.expect(pexpect.EOF)
    finally:
        c.close()
    assert c.exitstatus == 0


def test_tty_deterministic_builtins_end_with_a_full_stop_and_lose_no_key(tmp_path):
    """As in SWI-Prolog, nth0/3, nth1/3 with an index, length(L, 2) and
    string_code/3 leave no choice point: the answer ends with a full stop and the next
    line, typed at once, reaches the prompt whole (a spurious wait took its first key
    as an action). After a real wait, Enter and a line typed ahead lose nothing."""
    c = _spawn(tmp_path)
    try:
        for query, answer in (("nth0(1, [a,b,c], E).", r"E = b\."),
                              ("nth1(1, [a,b,c], E).", r"E = a\."),
                              ("length(L, 2).", r"L = \[_, _\]\."),
                              ('string_code(1, "abc", C).', r"C = 97\.")):
            c.send(query + "\r")
            c.expect(answer)
            c.send("Y = 12345.\r")           # typed straight away
            assert c.expect([r"Y = 12345\.", "Unknown action", "rror"]) == 0, query
            c.expect(PROMPT)
        c.send("member(X, [a,b]).\r")
        c.expect("X = a")
        _key(c, "\rZ = 678.\r")               # Enter stops; the next line typed ahead
        assert c.expect([r"Z = 678\.", "Unknown action", "rror"]) == 0
        c.expect(PROMPT)
        c.send("halt.\r")
        c.expect(pexpect.EOF)
    finally:
        c.close()
    assert c.exitstatus == 0


@needs_pepl
def test_tty_stochastic_query_with_seed(tmp_path):
    c = _spawn(tmp_path, "--seed", "42", str(PEPL / "member3.slp"))
    try:
        c.send("member3(X, [a,b,c,d]).\r")
        c.expect(r"% p = [0-9.e-]+ \(log p = [0-9.e-]+\)\r\nX = \w")
        answer = c.after
        _key(c, "t")
        c.expect(r"% proof tree: \d+ choice points?")
        c.expect(r"%   member3\(_A, \[a, b, c, d\]\)  clause")
        _key(c, ".")
        c.expect(PROMPT)
        c.send("halt.\r")
        c.expect(pexpect.EOF)
    finally:
        c.close()
    assert c.exitstatus == 0
    # the same seed gives the same first answer without a terminal
    piped = out_of("member3(X, [a,b,c,d]).\n", files=[PEPL / "member3.slp"], seed=42)
    assert piped.startswith(answer.replace("\r\n", "\n"))


def test_tty_error_then_good_query_and_interrupt(tmp_path):
    c = _spawn(tmp_path)
    try:
        c.send("X is foo + 1.\r")
        c.expect(r"ERROR: Arithmetic: evaluable `foo/0' does not exist")
        c.expect(PROMPT)
        c.send("X = ok.\r")
        c.expect(r"X = ok\.")
        c.expect(PROMPT)
        c.send("assertz((loop :- loop)), loop.\r")
        time.sleep(0.5)
        c.sendintr()
        c.expect("% Execution Aborted")
        c.expect(PROMPT)
        c.send("Y is 6*7.\r")
        c.expect(r"Y = 42\.")
        c.expect(PROMPT)
        c.send("halt.\r")
        c.expect(pexpect.EOF)
    finally:
        c.close()
    assert c.exitstatus == 0


@needs_pepl
def test_tty_history_and_completion(tmp_path):
    c = _spawn(tmp_path, str(PEPL / "coin.slp"))
    try:
        c.send("X = remembered.\r")
        c.expect(r"X = remembered\.")
        c.expect(PROMPT)
        c.send("coi\t")                   # completes coin
        time.sleep(0.3)
        c.send("(head).\r")
        c.expect(r"true\.")
        c.expect(PROMPT)
        c.sendcontrol("d")
        c.expect(pexpect.EOF)
    finally:
        c.close()
    assert "X = remembered." in (tmp_path / "history").read_text()
    c = _spawn(tmp_path)                  # a new session finds the query in its history
    try:
        c.send("\x1b[A")                  # up arrow: coin(head).
        time.sleep(0.2)
        c.send("\x1b[A")                  # and before it
        time.sleep(0.2)
        c.send("\r")
        c.expect(r"X = remembered\.\r\n\r\n")  # the answer and its blank line
        c.expect(PROMPT)                  # Ctrl-D at the next prompt, not while it answers
        c.sendcontrol("d")
        c.expect(pexpect.EOF)
    finally:
        c.close()


# -- the session shown in docs/repl.md ---------------------------------------------------------

DOC_ARGS = ["--seed", "7", "tests/data_files/tour.slp"]
# (keys, what to wait for before the next step: a regex, or None for the next prompt);
# "^C" sends an interrupt half a second after the previous step
DOC_STEPS = [
    ("X is 1+2.\r", None),
    ("X = f(Y), Z = [1,2|T].\r", None),
    ("member(X, [a,b,c]).\r", r"X = a"), (";", r"X = b"), ("\r", None),
    ("coin(X).\r", r"X = \w+"), (";", None),
    ("[2] :: cart(T).\r", r"T = [^\r]+"), ("t", r"proof tree[^?]+T = [^\r]+"), (";", r"T = [^\r]+"),
    ("\r", None),
    ("prob([2] :: cart(leaf), P).\r", None),
    ("prob(doubles(X), P).\r", None),
    ("sample(doubles(X), 1000, Freq).\r", None),
    ("sampling(pure).\r", None),
    ("sample(doubles(X), 1000, Freq).\r", None),
    ("doubles(X).\r", None),
    ("coin(X).\r", r"X = \w+"), (";", r"X = \w+"), (";", r"X = \w+"), ("\r", None),
    ("sampling(backtrackable).\r", None),
    ("listing(cart).\r", None),
    ("X is foo + 1.\r", None),
    ("foo(X.\r", None),
    ("assertz((spin :- spin)), spin.\r", r"spin\.\r\r\n"), ("^C", None),
    ("help(sample/3).\r", None),
    ("halt.\r", pexpect.EOF if pexpect else None),
]
_ANSI = re.compile(r"\x1b\[[0-9;?]*[A-Za-z]")


def record_doc_session(history) -> str:
    """Run DOC_STEPS in a pseudo-terminal (TERM=dumb, so the transcript is plain text)
    and return what the terminal showed. To re-record docs/repl.md's session:

        python -c "import sys; sys.path[:0] = ['.', 'tests']; import test_repl; \
                   print(test_repl.record_doc_session('/tmp/h'), end='')"
    """
    env = _env(SLPY_HISTORY=str(history), PROMPT_TOOLKIT_NO_CPR="1", TERM="dumb")
    c = pexpect.spawn(sys.executable, ["-m", "slpy.cli", "repl", *DOC_ARGS], env=env,
                      encoding="utf-8", timeout=20, dimensions=(40, 200), cwd=str(ROOT))
    log = io.StringIO()
    c.logfile_read = log
    try:
        c.expect_exact("?- ")
        for keys, wait in DOC_STEPS:
            if keys == "^C":
                time.sleep(0.5)
                c.sendintr()
            else:
                # let the line editor take the terminal out of echo mode first, or the
                # terminal echoes the keys too (longer for an answer's single key)
                time.sleep(0.2 if keys.endswith("\r") else 0.4)
                c.send(keys)
            if wait is None:
                c.expect_exact("\r\n?- ")
            else:
                c.expect(wait)
        c.expect(pexpect.EOF)
    finally:
        c.close()
    text = _ANSI.sub("", log.getvalue()).replace("\r", "")
    return "$ slpy repl " + " ".join(DOC_ARGS) + "\n" + text


def test_docs_repl_session_is_a_real_run(tmp_path):
    pytest.importorskip("pexpect")
    doc = (ROOT / "docs" / "repl.md").read_text()
    # a loaded machine can echo a key before the terminal leaves echo mode: a timing
    # artefact does not repeat, a real difference does
    for attempt in range(3):
        session = record_doc_session(tmp_path / f"history{attempt}")
        if "```\n" + session + "```" in doc:
            break
    assert "```\n" + session + "```" in doc


def test_docs_repl_pipe_examples_are_real():
    """Every `$ echo/printf ... | slpy repl ...` block of docs/repl.md prints what it shows."""
    import shlex
    doc = (ROOT / "docs" / "repl.md").read_text()
    blocks = re.findall(r"```\n\$ (echo|printf) (.+?) \| slpy repl([^\n]*)\n(.*?)```", doc,
                        re.S)
    assert len(blocks) >= 4
    for cmd, arg, args, shown in blocks:
        (text,) = shlex.split(arg)
        script = text.encode().decode("unicode_escape") if cmd == "printf" else text + "\n"
        args = shlex.split(args.replace("2>&1", ""))
        seed = int(args[args.index("--seed") + 1]) if "--seed" in args else None
        files = [ROOT / a for a in args if a.endswith(".slp")]
        buf = io.StringIO()
        s = Session(seed=seed, stdout=buf, stderr=buf)
        cwd = os.getcwd()
        os.chdir(ROOT)
        try:
            s.load_files(files)
            run_stream(s, io.StringIO(script))
        finally:
            os.chdir(cwd)
        assert buf.getvalue() == shown, arg
