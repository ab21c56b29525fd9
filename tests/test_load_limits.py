"""Loading a program is bounded and sandboxed (issue 26, items 1, 7 and three of 9).

A directive that loops or allocates stops within --timeout (or the default load limit)
with one line naming its file and line, in every command that loads a prior and in the
chain workers; a program loads only files below its own folder or an --allow-load
folder, and library(Name) must name a library slpy has; a label variable that nothing
binds is an error of `slpy check` and, at run time, an error naming its clause's place;
`slpy exact` on `:- halt.` names the directive.
"""
from __future__ import annotations

import re
import subprocess
import sys
import time
from pathlib import Path

import pytest
from click.testing import CliRunner

from slpy import limits as slpy_limits
from slpy.cli import main
from slpy.logic.program import LoadErrors, Program
from slpy.terms.term import PrologError

ROOT = Path(__file__).resolve().parents[1]
KYPHOSIS = ROOT / "examples" / "data" / "kyphosis.csv"
CART = "cart(T) :- data_rows(R), T = leaf(R).\n"
LOOP = ":- repeat, fail.\n" + CART                       # the directive is line 1
ALLOC = "grow(L) :- grow([x|L]).\n:- grow([]).\n" + CART     # line 2


def cli(*args, input=None):
    return CliRunner().invoke(main, [str(a) for a in args], input=input)


def one_line(r, code=1) -> str:
    """The one line a failed command printed (stderr), with no traceback."""
    assert r.exit_code == code, (r.exit_code, r.output)
    assert "Traceback" not in r.output and "internal error" not in r.output
    lines = r.stderr.strip().splitlines()
    assert len(lines) == 1, r.stderr
    return lines[0]


def write(folder: Path, name: str, text: str) -> Path:
    folder.mkdir(parents=True, exist_ok=True)
    (folder / name).write_text(text)
    return folder / name


# -- item 1: a directive stops within the limits ----------------------------------------

def _run_slpy(args, limit):
    """`slpy ARGS` in a process of its own: (exit status, stderr, seconds)."""
    t0 = time.monotonic()
    p = subprocess.run([sys.executable, "-m", "slpy.cli", *map(str, args)],
                       capture_output=True, text=True, timeout=limit + 120)
    return p.returncode, p.stderr, time.monotonic() - t0


@pytest.mark.parametrize("text,line", [(LOOP, 1), (ALLOC, 2)], ids=["loop", "alloc"])
def test_run_stops_a_directive_at_its_timeout(tmp_path, text, line):
    prior = write(tmp_path, "prior.slp", text)
    out = tmp_path / "run"
    code, err, secs = _run_slpy(["run", prior, "--data", KYPHOSIS, "--timeout", 5,
                                 "-n", 10, "--out", out], 5)
    assert code == 1 and "Traceback" not in err
    assert err.strip().splitlines() == [
        f"{prior}:{line}: Resource error: time limit of 5 s for loading the program "
        f"exceeded"]
    # 5 s of loading, the rest start-up (imports, the data): before, it never ended
    assert secs < 5 + 40
    assert not out.exists()           # nothing was started, so nothing is left half-done


def test_run_stops_an_allocating_directive_at_max_memory(tmp_path):
    prior = write(tmp_path, "prior.slp", ALLOC)
    code, err, secs = _run_slpy(["run", prior, "--data", KYPHOSIS, "--max-memory", 300,
                                 "--timeout", 60, "-n", 10, "--out", tmp_path / "r"], 60)
    assert code == 1
    assert err.strip().splitlines() == [
        f"{prior}:2: Resource error: more than 300 MiB in use"]


@pytest.mark.slow
@pytest.mark.parametrize("text,line", [(LOOP, 1), (ALLOC, 2)], ids=["loop", "alloc"])
def test_run_stops_a_directive_at_the_default_load_limit(tmp_path, text, line):
    prior = write(tmp_path, "prior.slp", text)
    code, err, secs = _run_slpy(["run", prior, "--data", KYPHOSIS, "-n", 10, "--out",
                                 tmp_path / "run"], slpy_limits.LOAD_TIMEOUT)
    assert code == 1
    assert err.strip().splitlines() == [
        f"{prior}:{line}: Resource error: time limit of 10 s for loading the program "
        f"exceeded"]
    assert secs < slpy_limits.LOAD_TIMEOUT + 40


def test_the_default_load_limit_applies_without_timeout(tmp_path, monkeypatch):
    # the default is 10 s (the test above, slow); a shorter one here shows it is used
    assert slpy_limits.program_limits(None, 0, 0)["load_timeout"] == 10.0
    assert slpy_limits.program_limits(None, 0, 0)["timeout"] == slpy_limits.TIMEOUT
    assert slpy_limits.program_limits(3, 0, 0)["load_timeout"] == 3.0
    assert slpy_limits.program_limits(0, 0, 0)["load_timeout"] is None
    monkeypatch.setattr(slpy_limits, "LOAD_TIMEOUT", 1.0)
    prior = write(tmp_path, "prior.slp", LOOP)
    t0 = time.monotonic()
    line = one_line(cli("run", prior, "--data", KYPHOSIS, "-n", 10, "--out",
                        tmp_path / "r"))
    assert line == (f"{prior}:1: Resource error: time limit of 1 s for loading the program "
                    f"exceeded")
    assert time.monotonic() - t0 < 20


@pytest.mark.parametrize("args", [
    ["sample"], ["sample", "--data", KYPHOSIS], ["exact", "--data", KYPHOSIS],
], ids=["sample", "sample-data", "exact"])
def test_other_commands_stop_a_directive_at_their_timeout(tmp_path, args):
    prior = write(tmp_path, "prior.slp", LOOP)
    t0 = time.monotonic()
    line = one_line(cli(args[0], prior, "--timeout", 2, *args[1:]))
    assert re.fullmatch(rf"(Error: )?{re.escape(str(prior))}:1: Resource error: time limit "
                        rf"of 2 s for loading the program exceeded", line)
    assert time.monotonic() - t0 < 20


def test_check_and_repl_stop_a_directive_at_their_timeout(tmp_path):
    prior = write(tmp_path, "prior.slp", LOOP)
    r = cli("check", prior, "--timeout", 2)
    assert r.exit_code == 1
    assert r.stdout.splitlines()[0] == (f"{prior}:1: error: Resource error: time limit of "
                                        f"2 s for loading the program exceeded")
    r = cli("repl", prior, "--timeout", 2, input="X = 1.\n")
    assert r.stdout == "X = 1.\n"       # the top level goes on after the load error
    assert r.stderr == (f"ERROR: {prior}:1: Resource error: time limit of 2 s for loading "
                        f"the program exceeded\n")


def test_a_chain_worker_loads_the_prior_within_the_limits(tmp_path):
    """A worker builds its model from the prior's text again: the same limits hold."""
    from slpy.data import load_csv
    from slpy.mcmc.config import RunConfig
    from slpy.mcmc.worker import ChainTask, run_task
    prior = tmp_path / "prior.slp"
    cfg = RunConfig(prior=str(prior), data=str(KYPHOSIS), iterations=10).resolved()
    task = ChainTask(cfg, 0, LOOP, load_csv(KYPHOSIS),
                     limits=slpy_limits.program_limits(1, 0, 0))
    t0 = time.monotonic()
    with pytest.raises(LoadErrors) as e:
        run_task(task)
    assert time.monotonic() - t0 < 10
    assert str(e.value) == (f"{prior}:1: Resource error: time limit of 1 s for loading "
                            f"the program exceeded")


def test_the_python_api_bounds_loading_and_not_queries(tmp_path):
    p = Program(load_timeout=1.0)
    t0 = time.monotonic()
    with pytest.raises(LoadErrors, match=r"^x\.slp:1: Resource error: time limit of 1 s"):
        p.consult_text(":- repeat, fail.\n", "x.slp")
    assert time.monotonic() - t0 < 10
    # the budget is the whole load's: two directives of 0.6 s pass one of 1 s
    slow = "spin(T) :- get_time(T0), repeat, get_time(T1), T1 - T0 > T, !.\n"
    with pytest.raises(LoadErrors, match=r"y\.slp:3: Resource error: time limit"):
        Program(load_timeout=1.0).consult_text(slow + ":- spin(0.6).\n:- spin(0.6).\n",
                                               "y.slp")
    # a query is not a load: no limit unless given
    p = Program(load_timeout=0.5)
    p.consult_text(slow)
    assert p.once("spin(1.0)") is not None


# -- item 7: what a program may load ----------------------------------------------------

def test_consult_outside_the_prior_folder_is_refused(tmp_path):
    write(tmp_path / "elsewhere", "secret.pl", ":- write(loaded), nl.\nsecret(42).\n")
    prior = write(tmp_path / "prior", "p.slp",
                  "p(1).\n:- consult('../elsewhere/secret').\n")
    line = one_line(cli("sample", prior, "--query", "p(X)"))
    assert line == (f"{prior}:2: No permission to load source_sink `../elsewhere/secret' "
                    f"({tmp_path}/elsewhere/secret is not below {tmp_path}/prior, where "
                    f"this program may load files; --allow-load DIR allows another "
                    f"folder)")
    # an absolute path, and one that climbs out through a folder that is allowed
    for path in ("/etc/passwd", "sub/../../elsewhere/secret.pl"):
        write(tmp_path / "prior", "q.slp", f"q(1).\n:- consult('{path}').\n")
        r = cli("check", tmp_path / "prior" / "q.slp")
        assert r.exit_code == 1
        assert f"q.slp:2: error: No permission to load source_sink `{path}' (" in r.stdout
    # the quoting of item 9: the path as it is, not `'/etc/passwd''
    assert "`'" not in r.stdout


def test_allow_load_lets_a_folder_in(tmp_path):
    write(tmp_path / "lib", "shared.pl", "shared(42).\n")
    write(tmp_path / "prior" / "sub", "own.pl", "own(1).\n")
    prior = write(tmp_path / "prior", "p.slp",
                  ":- consult('sub/own.pl').\n:- consult('../lib/shared').\n"
                  "p(X, Y) :- own(X), shared(Y).\n")
    assert cli("sample", prior, "--query", "p(X, Y)").exit_code == 1
    r = cli("sample", prior, "--query", "p(X, Y)", "--allow-load", tmp_path / "lib")
    assert r.exit_code == 0 and r.stdout == "p(1,42)\n"
    assert cli("check", prior, "--allow-load", tmp_path / "lib").exit_code == 0
    r = cli("sample", prior, "--allow-load", tmp_path / "no-such-folder")
    assert r.exit_code == 2 and "--allow-load" in r.stderr


def test_run_and_its_workers_load_from_an_allowed_folder(tmp_path):
    write(tmp_path / "lib", "leaf.pl", "make_leaf(R, leaf(R)).\n")
    prior = write(tmp_path / "prior", "p.slp",
                  ":- consult('../lib/leaf').\ncart(T) :- data_rows(R), make_leaf(R, T).\n")
    line = one_line(cli("run", prior, "--data", KYPHOSIS, "-n", 10, "-q", "--out",
                        tmp_path / "refused"))
    assert line.startswith(f"{prior}:1: No permission to load source_sink `../lib/leaf'")
    r = cli("run", prior, "--data", KYPHOSIS, "-n", 10, "-q", "--chains", 2, "--jobs", 2,
            "--temper", 1, "--allow-load", tmp_path / "lib", "--out", tmp_path / "run")
    assert r.exit_code == 0, r.output
    assert (tmp_path / "run" / "models.csv").exists()


def test_libraries_must_exist(tmp_path):
    for lib, ok in [("lists", True), ("apply", True), ("yall", True), ("when", True),
                    ("nonexistent", False), ("process", False), ("dcg/basics", False),
                    ("'../../../../../etc/passwd'", False)]:
        prior = write(tmp_path, "p.slp", f"p(1).\n:- use_module(library({lib})).\n")
        r = cli("sample", prior, "--query", "p(X)")
        if ok:
            assert r.exit_code == 0 and r.stdout == "p(1)\n", (lib, r.output)
        else:
            assert one_line(r) == (f"{prior}:2: source_sink `library({lib})' does not "
                                   f"exist (slpy has no such library)")
    p = Program()
    with pytest.raises(PrologError, match="library"):
        p.once("ensure_loaded(library(nonexistent))")


def test_include_and_load_files_are_sandboxed_too(tmp_path):
    write(tmp_path / "elsewhere", "x.pl", "x(1).\n")
    write(tmp_path / "prior", "mine.pl", "mine(2).\n")
    for goal in ("include", "load_files"):
        extra = ", []" if goal == "load_files" else ""
        prior = write(tmp_path / "prior", "p.slp",
                      f":- {goal}(mine{extra}).\n:- {goal}('../elsewhere/x'{extra}).\n")
        p = Program()
        with pytest.raises(LoadErrors) as e:
            p.consult(prior)
        assert [str(x).split(" (")[0] for x in e.value.errors] == [
            f"{prior}:2: No permission to load source_sink `../elsewhere/x'"]
        assert p.once("mine(X)") == {"X": 2} and p.once("catch(x(_), _, fail)") is None


def test_the_top_level_user_may_load_any_file_but_a_file_may_not(tmp_path):
    write(tmp_path / "elsewhere", "x.pl", "x(1).\n")
    prior = write(tmp_path / "prior", "p.slp", ":- consult('../elsewhere/x').\n")
    r = cli("repl", prior, input=f"consult('{tmp_path / 'elsewhere' / 'x'}').\nx(X).\n")
    assert r.stderr.startswith(f"ERROR: {prior}:1: No permission to load source_sink")
    assert r.stdout == "true.\nX = 1.\n"
    # a file the user consults may load below its own folder, not outside it
    write(tmp_path / "other", "y.pl", "y(2).\n")
    write(tmp_path / "other", "z.pl", ":- consult(y).\n:- consult('../elsewhere/x').\n")
    r = cli("repl", input=f"consult('{tmp_path / 'other' / 'z'}').\ny(Y).\n")
    assert r.stdout == "true.\nY = 2.\n"
    assert r.stderr.startswith(f"ERROR: {tmp_path / 'other' / 'z.pl'}:2: No permission")


# -- item 9: a variable label, halt, the quoting ----------------------------------------

def test_a_variable_label_is_an_error_of_check_and_of_the_run(tmp_path):
    prior = write(tmp_path, "coin.slp", "X :: coin(h).\n0.5 :: coin(t).\n")
    r = cli("check", prior)
    assert r.exit_code == 1
    assert (f"{prior}:1:1: error: the label of coin/1 uses X, which neither its head nor "
            f"its guard binds: the label is computed before the body runs") \
        in r.stdout.splitlines()
    # a label from the head or the guard is fine
    ok = write(tmp_path, "ok.slp", "P :: [P] :: c(h).\n1 - P :: [P] :: c(t).\n"
                                   "Q :: d(h, Q).\n0.5 :: d(t, _).\n")
    assert cli("check", ok).stdout == "no problems found\n"
    line = one_line(cli("sample", prior, "--seed", 1))
    assert line == (f"Error: {prior}:1: the label of coin/1 (clause 1): Arguments are not "
                    f"sufficiently instantiated")
    expr = write(tmp_path, "expr.slp", "X + 1 :: coin(h).\n0.5 :: coin(t).\n")
    assert one_line(cli("sample", expr)).startswith(f"Error: {expr}:1: the label of coin/1")
    # the ball is as it was: catch/3 sees an instantiation error
    p = Program()
    p.consult(prior)
    assert str(p.once("catch(coin(_), error(E, _), true)")["E"]) == "instantiation_error"


def test_a_variable_label_stops_slpy_run_with_its_place(tmp_path):
    prior = write(tmp_path, "prior.slp", "cart(T) :- data_rows(R), [1] :: pick(R, T).\n"
                                         "X :: [_] :: pick(R, leaf(R)).\n")
    line = one_line(cli("run", prior, "--data", KYPHOSIS, "-n", 5, "-q", "--out",
                        tmp_path / "run"))
    assert f"{prior}:2: the label of pick/2 (clause 1): Arguments are not sufficiently " \
           f"instantiated" in line


def test_halt_while_loading_names_the_directive(tmp_path):
    prior = write(tmp_path, "halt.slp", "p(1).\n:- halt.\n" + CART)
    assert one_line(cli("exact", prior, "--data", KYPHOSIS)) == \
        f"Error: {prior}:2: halt called while loading"
    assert one_line(cli("sample", prior)) == f"Error: {prior}:2: halt called while loading"
    assert one_line(cli("run", prior, "--data", KYPHOSIS, "-n", 5, "--out",
                        tmp_path / "r")) == \
        f"Error: {prior}:2: the prior called halt while it was loaded"
    r = cli("check", prior)
    assert r.exit_code == 1 and r.stdout.splitlines()[0] == \
        f"{prior}:2: error: halt called while loading"


def test_a_file_that_is_not_a_program_is_named_plainly(tmp_path):
    f = write(tmp_path, "notes.txt", "hello\n")
    prior = write(tmp_path, "p.slp", "p(1).\n:- consult('notes.txt').\n")
    line = one_line(cli("sample", prior, "--query", "p(X)"))
    assert line == (f"{prior}:2: {f}: not a program file (a program's files end in .slp "
                    f"or .pl)")
    assert "`'" not in line


def test_compare_check_and_exact_predictions_load_from_an_allowed_folder(tmp_path):
    """`slpy compare`, `slpy check --sampler` and `slpy predict/report --exact` load
    the prior again: under the same sandbox, with the same --allow-load."""
    write(tmp_path / "lib", "g.slp", (ROOT / "priors" / "growtree.slp").read_text())
    prior = write(tmp_path / "prior", "p.slp", ":- consult('../lib/g.slp').\n")
    lib = tmp_path / "lib"
    refused = "p.slp:1: No permission to load source_sink `../lib/g.slp'"
    small = ("--islands", 2, "--particles", 10, "--smc-steps", 1)
    assert refused in one_line(cli("compare", prior, "--data", KYPHOSIS, *small))
    r = cli("compare", prior, "--data", KYPHOSIS, *small, "--allow-load", lib)
    assert r.exit_code == 0 and "p.slp  " in r.stdout, r.output
    r = cli("run", prior, "--data", KYPHOSIS, "-n", 50, "-q", "--allow-load", lib,
            "--out", tmp_path / "run")
    assert r.exit_code == 0, r.output
    line = one_line(cli("predict", tmp_path / "run", "--data", KYPHOSIS, "--exact"))
    assert refused in line
    r = cli("predict", tmp_path / "run", "--data", KYPHOSIS, "--exact", "--allow-load", lib)
    assert r.exit_code == 0 and "exact: acc_max" in r.output, r.output
    # check --sampler: a prior that picks through a library's facts
    write(lib, "sides.pl", "side(h, 1).\nside(t, 2).\n")
    coin = write(tmp_path / "prior", "coin.slp", ":- consult('../lib/sides').\n"
                 "0.3 :: c(X) :- side(X, 1).\n0.7 :: c(X) :- side(X, 2).\n")
    args = ("check", coin, "--sampler", "--query", "c(X)", "--draws", 200)
    assert "coin.slp:1: No permission" in cli(*args).output
    r = cli(*args, "--allow-load", lib)
    assert r.exit_code == 0, r.output
