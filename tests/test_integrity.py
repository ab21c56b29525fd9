"""Nothing silent, nothing lost (issue 14): each bad input a new user tried gives a
one-line error with its location, or an explicit warning, a non-zero exit where it is
an error, and keeps what was already computed."""
import csv
import json
import os
import time
from pathlib import Path

import pytest
from click.testing import CliRunner

from slpy import Program, PrologError
from slpy.cli import main

from .report.test_report import cli, ok

ROOT = Path(__file__).resolve().parents[1]
PRIOR = str(ROOT / "priors" / "growtree.slp")
DATA = ROOT / "examples" / "data"
KYPH = str(DATA / "kyphosis.csv")
BCW = str(DATA / "bcw.csv")
BCW_FULL = str(DATA / "bcw_full.csv")
FAST = ["-n", "60", "-q"]


def error(r, code):
    """The one line of a failed command (no traceback), its exit status checked."""
    assert r.exit_code == code, (r.exit_code, r.output)
    assert "Traceback" not in r.output
    lines = r.stderr.strip().splitlines()
    assert len(lines) == 1, r.stderr
    assert lines[0].startswith("Error: ") or ":" in lines[0]
    return lines[0]


def rows(path):
    with open(path, newline="") as f:
        return list(csv.reader(f))


def write(path, table):
    with open(path, "w", newline="") as f:
        csv.writer(f, lineterminator="\n").writerows(table)
    return str(path)


def summary(out):
    return json.loads((Path(out) / "summary.json").read_text())


# -- 2. silent wrong answers ------------------------------------------------------------------

def test_test_data_are_matched_by_column_name(tmp_path):
    table = rows(KYPH)
    train = write(tmp_path / "train.csv", table[:61])
    test = write(tmp_path / "test.csv", [table[0]] + table[61:])
    reordered = write(tmp_path / "reordered.csv",
                      [[r[3], r[2], r[0], r[1]] for r in [table[0]] + table[61:]])
    common = [PRIOR, "--data", train, "-n", "200", "--seed", "4", "-q"]
    ok("run", *common, "--test", test, "--out", tmp_path / "a")
    ok("run", *common, "--test", reordered, "--out", tmp_path / "b")
    assert summary(tmp_path / "a")["acc_prob"] == summary(tmp_path / "b")["acc_prob"]
    assert (tmp_path / "a" / "predictions.csv").read_bytes() == \
        (tmp_path / "b" / "predictions.csv").read_bytes()
    renamed = write(tmp_path / "renamed.csv", [["Age", "Number", "First", "class"]]
                    + table[61:])
    assert "no column 'Start'" in error(
        cli("run", *common, "--test", renamed, "--out", tmp_path / "c"), 2)
    unseen = write(tmp_path / "unseen.csv", [table[0]] + table[61:65] + [
        table[65][:3] + ["maybe"]])
    line = error(cli("run", *common, "--test", unseen, "--out", tmp_path / "d"), 2)
    assert "line 6: class 'maybe' is not one of the training data's classes" in line
    assert not (tmp_path / "c").exists() and not (tmp_path / "d").exists()


def test_missing_values_are_counted_or_refused(tmp_path):
    out = tmp_path / "r"
    r = ok("run", PRIOR, "--data", BCW_FULL, *FAST, "--out", out)
    assert "16 of 699 rows have a missing value and are left out" in r.stderr
    assert summary(out)["rows_with_missing_values"] == {"data": 16}
    assert "16 rows of" in (out / "summary.txt").read_text()
    line = error(cli("run", PRIOR, "--data", BCW_FULL, *FAST, "--missing", "error",
                     "--out", tmp_path / "e"), 2)
    assert "line 25, column 'bare_nuclei': missing value ''" in line
    # the same everywhere data are read
    r = cli("sample", PRIOR, "--data", BCW_FULL, "--seed", "1")
    assert r.exit_code == 0 and "16 of 699 rows" in r.stderr


def test_a_file_without_a_class_column_needs_target(tmp_path):
    table = rows(KYPH)
    f = write(tmp_path / "k.csv", [["Age", "Number", "Start", "Kyphosis"]] + table[1:])
    line = error(cli("run", PRIOR, "--data", f, *FAST, "--out", tmp_path / "a"), 2)
    assert "no column named 'class'" in line
    ok("run", PRIOR, "--data", f, "--target", "Kyphosis", *FAST, "--out", tmp_path / "b")
    ok("run", PRIOR, "--data", f, "--class-col", "Kyphosis", *FAST, "--out", tmp_path / "c")


def test_holdout_must_leave_training_rows(tmp_path):
    line = error(cli("run", PRIOR, "--data", BCW, "--holdout", "0.999", *FAST,
                     "--out", tmp_path / "a"), 2)
    assert "leaves 1 of 683 rows for training" in line
    for bad in ("1", "0", "nan", "-0.5"):
        assert "--holdout" in error(cli("run", PRIOR, "--data", BCW, "--holdout", bad,
                                        *FAST, "--out", tmp_path / "b"), 2)


def test_resume_refuses_changed_inputs(tmp_path):
    data = write(tmp_path / "k.csv", rows(KYPH))
    prior = tmp_path / "p.slp"
    prior.write_text(Path(PRIOR).read_text())
    out = tmp_path / "r"
    ok("run", prior, "--data", data, *FAST, "--out", out)
    ok("run", "--resume", out, "-q")
    with open(data, "a") as f:
        f.write("1,1,1,absent\n")
    assert "the data file" in error(cli("run", "--resume", out), 2)
    data_bytes = Path(data).read_bytes()
    Path(data).write_bytes(data_bytes[:-len(b"1,1,1,absent\n")])
    ok("run", "--resume", out, "-q")
    prior.write_text(prior.read_text() + "\n% changed\n")
    assert "the prior file" in error(cli("run", "--resume", out), 2)
    assert json.loads((out / "manifest.json").read_text())["format"] == "slpy-run/2"


def test_a_used_run_directory_needs_force(tmp_path):
    out = tmp_path / "r"
    ok("run", PRIOR, "--data", KYPH, *FAST, "--chains", "2", "--holdout", "0.2",
       "--out", out)
    (out / "notes.txt").write_text("mine")
    line = error(cli("run", PRIOR, "--data", KYPH, *FAST, "--out", out), 2)
    assert "holds a run already" in line and "--force" in line
    assert (out / "chain_1").is_dir()          # refused: nothing touched
    ok("run", PRIOR, "--data", KYPH, *FAST, "--chains", "1", "--out", out, "--force")
    # the old run's files are gone, the user's are not
    assert not (out / "chain_1").exists() and not (out / "predictions.csv").exists()
    assert (out / "notes.txt").read_text() == "mine"
    assert json.loads((out / "config.json").read_text())["chains"] == 1


def test_resume_refuses_a_corrupt_trace_and_keeps_a_cut_row(tmp_path):
    out = tmp_path / "r"
    ok("run", PRIOR, "--data", KYPH, "-n", "100", "-q", "--out", out)
    trace = out / "chain_0" / "trace.csv"
    good = trace.read_text()
    lines = good.splitlines(keepends=True)
    trace.write_text("".join(lines[:40]) + lines[40][:9])   # killed while writing
    ok("run", "--resume", out, "-q")
    assert trace.read_text() == good
    lines[57] = "garbage\n"
    trace.write_text("".join(lines))
    line = error(cli("run", "--resume", out), 2)
    assert "trace.csv, line 58" in line and "garbage" in line
    lines[57] = "1,0,-40.1,1,0,1,1,\n"                  # a row out of place (burn-in 10)
    trace.write_text("".join(lines))
    assert "iteration 1 where 66 was due" in error(cli("run", "--resume", out), 2)


def test_an_atom_label_is_an_error(tmp_path):
    f = tmp_path / "coin.slp"
    f.write_text("abc :: coin(head).\n")
    r = cli("check", f)
    assert r.exit_code == 1
    assert f"{f}:1: error: the label abc of coin/1 is not a number" in r.output
    with pytest.raises(Exception, match="the label abc of coin/1"):
        Program().consult(f)


# -- 3. tracebacks ----------------------------------------------------------------------------

def test_bad_settings_are_one_line(tmp_path):
    def bad(*args, code=2):
        return error(cli("run", PRIOR, "--data", KYPH, *args, "--out", tmp_path / "x"),
                     code)
    assert "--init /nope: no such file" in bad("--init", "/nope", *FAST)
    assert "--delta-t" in bad("--delta-t", "-1", *FAST)
    assert "--delta-t" in bad("--delta-t", "inf", *FAST)
    assert "--iterations" in bad("-n", "0")
    assert "--top" in bad("--top", "-1", *FAST)
    assert "--seed" in bad("--seed", "-3", *FAST)
    assert "--burn-in" in bad("--burn-in", "60", *FAST)
    assert "unknown proposal" in bad("--proposal", "zz", *FAST)
    assert "give a PRIOR file and --data" in error(cli("run"), 2)
    init = tmp_path / "init.pl"
    init.write_text("hello(\n")
    assert "not a term" in bad("--init", init, *FAST)
    init.write_text("node(f, x, leaf).\n")
    assert "not a model term" in bad("--init", init, *FAST)
    assert not (tmp_path / "x").exists()


def test_unwritable_run_directories(tmp_path):
    (tmp_path / "file").write_text("")
    line = error(cli("run", PRIOR, "--data", KYPH, *FAST, "--out",
                     tmp_path / "file" / "run"), 2)
    assert "cannot write the run directory (Not a directory)" in line
    if os.geteuid() != 0:           # root writes anywhere
        ro = tmp_path / "ro"
        ro.mkdir()
        ro.chmod(0o555)
        line = error(cli("run", PRIOR, "--data", KYPH, *FAST, "--out", ro / "run"), 2)
        assert "cannot write the run directory" in line


def test_resume_without_a_run(tmp_path):
    empty = tmp_path / "empty"
    empty.mkdir()
    assert "no config.json" in error(cli("run", "--resume", empty), 2)
    (empty / "config.json").write_text("{ not json")
    assert "config.json does not read" in error(cli("run", "--resume", empty), 2)
    (empty / "config.json").write_text('{"seed": 1}')
    assert "config.json has no setting" in error(cli("run", "--resume", empty), 2)
    assert "no such run directory" in error(cli("run", "--resume", tmp_path / "no"), 2)
    assert "drop -n" in error(cli("run", "--resume", empty, "-n", "5"), 2)


def test_halt_and_errors_in_a_prior(tmp_path):
    halt = tmp_path / "halt.slp"
    halt.write_text("cart(T) :- halt.\n")
    assert "halt" in error(cli("run", halt, "--data", KYPH, *FAST, "--out",
                               tmp_path / "h"), 1)
    boom = tmp_path / "boom.slp"
    boom.write_text("cart(T) :- T is foo + 1.\n")
    # the same one line whether the chains run here or in worker processes
    for jobs in ("1", "2"):
        line = error(cli("run", boom, "--data", KYPH, *FAST, "--chains", "2", "--jobs",
                         jobs, "--out", tmp_path / f"b{jobs}"), 1)
        assert "the prior raised an error" in line and "foo/0" in line


def test_load_errors_with_jobs_are_one_line_each(tmp_path):
    bad = tmp_path / "bad.slp"
    bad.write_text("cart(T) :- leaf(T.\n0.5 :: c(a).\nc(b).\n")
    r = cli("run", bad, "--data", KYPH, *FAST, "--chains", "2", "--jobs", "2", "--out",
            tmp_path / "r")
    assert r.exit_code == 1 and "Traceback" not in r.output
    lines = r.stderr.strip().splitlines()
    assert len(lines) == 2 and all(ln.startswith(f"{bad}:") for ln in lines), lines


def test_a_source_that_is_not_utf8(tmp_path):
    f = tmp_path / "latin.slp"
    f.write_bytes("a(1).\nb('caf\xe9').\n".encode("latin-1"))
    where = f"{f}:2:7: not UTF-8 text (byte 0xe9)"
    r = cli("check", f)
    assert r.exit_code == 1 and f"{f}:2:7: error: not UTF-8 text" in r.output
    assert error(cli("sample", f), 1).startswith(where)
    r = CliRunner().invoke(main, ["repl", str(f)], input="X = 1.\n")
    assert r.exit_code == 0 and "X = 1." in r.stdout and where in r.output


# -- 4. limits --------------------------------------------------------------------------------

def test_a_looping_prior_or_directive_ends(tmp_path):
    loop = tmp_path / "loop.slp"
    loop.write_text("cart(T) :- loop.\nloop :- loop.\n")
    t0 = time.monotonic()
    line = error(cli("run", loop, "--data", KYPH, *FAST, "--timeout", "1", "--out",
                     tmp_path / "r"), 1)
    assert "time limit of 1 s exceeded" in line and time.monotonic() - t0 < 20
    directive = tmp_path / "d.slp"
    directive.write_text("loop :- loop.\n:- loop.\n")
    r = cli("check", directive, "--max-steps", "100000")
    assert r.exit_code == 1 and f"{directive}:2: error: Resource error: more than 100000 " \
                                "inferences" in r.output


def test_long_arithmetic_and_floods_meet_the_limits():
    def ends(query, within, what, **limits):
        p = Program(**limits)
        p.consult_text("flood(N) :- assertz(f(N)), N1 is N + 1, flood(N1).\n"
                       "grow(A) :- atom_concat(A, A, B), grow(B).\n"
                       "grow1(A) :- atom_concat(A, x, B), grow1(B).\n")
        t0 = time.monotonic()
        with pytest.raises(PrologError) as e:
            p.once(query)
        assert time.monotonic() - t0 < within, query
        assert what in str(e.value), str(e.value)
    ends("X is 10 ** 10000000", 2, "an integer of more than 1048576 bits", timeout=10)
    ends("X is 7 ** 60000, Y is X*X*X*X*X*X*X*X*X*X*X*X*X*X*X*X*X*X*X*X*X", 5, "integer",
         timeout=1)
    ends("findall(X, between(1, inf, X), L)", 10, "time limit of 1 s", timeout=1)
    ends("flood(0)", 20, "MiB in use", max_memory=(300 << 20))
    ends("grow(ab)", 5, "an atom of more than", timeout=10)
    ends("grow1(a)", 20, "MiB in use", max_memory=(400 << 20))
    ends("repeat, fail", 10, "inferences", max_steps=100_000)


def test_limits_are_catchable_once():
    p = Program(timeout=0.5)
    p.consult_text("loop :- loop.\nagain :- catch(loop, _, again).\n")
    assert str(p.once("catch(loop, error(E, _), true)")["E"]) == "resource_error(time)"
    t0 = time.monotonic()
    with pytest.raises(PrologError, match="time limit"):
        p.once("again")          # catching and looping again: the query still ends
    assert time.monotonic() - t0 < 10
    assert p.once("X = 1")["X"] == 1


def test_default_limits_on_every_command():
    for name, cmd in main.commands.items():
        opts = {o for p in cmd.params for o in p.opts}
        if name in ("repl", "sample", "check", "run", "exact"):
            assert {"--timeout", "--max-steps", "--max-memory"} <= opts, name


def test_init_greedy_the_prior_cannot_produce(tmp_path):
    leaves = tmp_path / "leaves.slp"
    leaves.write_text("cart(leaf(R)) :- data_rows(R).\n")
    t0 = time.monotonic()
    line = error(cli("run", leaves, "--data", KYPH, *FAST, "--init", "greedy", "--out",
                     tmp_path / "r"), 2)
    assert "the prior gives slpy's greedy tree probability 0" in line
    assert time.monotonic() - t0 < 20 and not (tmp_path / "r").exists()


# -- 5. one surface ---------------------------------------------------------------------------

def test_options_mean_the_same_in_every_command(tmp_path):
    r = cli("sample", ROOT / "tests" / "data_files" / "tour.slp", "-q", "coin(X)")
    assert "-q is --quiet in every command" in error(r, 2)
    for name, cmd in main.commands.items():
        by_opt = {o: p.name for p in cmd.params for o in p.opts}
        assert by_opt.get("-q") in (None, "quiet"), name
        assert by_opt.get("--target") in (None, "target"), name
        assert "--class-col" not in by_opt or by_opt["--class-col"] == "target", name
    out = tmp_path / "e"
    r = ok("exact", PRIOR, "--data", KYPH, "--max-depth", "1", "-q", "--out", out)
    assert r.stdout == "" and (out / "summary.json").is_file()


def test_feature_names_with_commas_and_spaces_round_trip(tmp_path):
    table = rows(KYPH)
    table[0] = ["age, months", "number of", "St'art", "class"]
    data = write(tmp_path / "q.csv", table)
    out = tmp_path / "r"
    ok("run", PRIOR, "--data", data, "-n", "300", "--seed", "2", "-q", "--out", out)
    models = [r[1] for r in rows(out / "models.csv")[1:]]
    assert any("node('age, months'," in m for m in models), models[:3]
    r = ok("predict", out, "--data", data)
    assert r.stdout.count("\n") == 82


def test_predict_and_report_from_another_directory(tmp_path, monkeypatch):
    work = tmp_path / "work"
    (work / "data").mkdir(parents=True)
    write(work / "data" / "k.csv", rows(KYPH))
    monkeypatch.chdir(work)
    ok("run", PRIOR, "--data", "data/k.csv", "--holdout", "0.25", "-n", "200", "-q",
       "--out", "runs/k")
    expected = rows(work / "runs" / "k" / "predictions.csv")
    monkeypatch.chdir(tmp_path)
    held_out = write(tmp_path / "held.csv", rows(KYPH))
    r = ok("predict", work / "runs" / "k", "--data", held_out)
    assert len(r.stdout.splitlines()) == 82
    pytest.importorskip("matplotlib")
    r = ok("report", work / "runs" / "k", "--out", tmp_path / "rep", "--test", held_out)
    assert (tmp_path / "rep" / "report.md").is_file()
    assert expected[0][:2] == ["row", "true"]


def test_same_seed_same_bytes_but_timing(tmp_path):
    for d in ("a", "b"):
        ok("run", PRIOR, "--data", KYPH, "-n", "100", "--seed", "3", "-q", "--out",
           tmp_path / d)
    files = sorted(p.relative_to(tmp_path / "a") for p in (tmp_path / "a").rglob("*")
                   if p.is_file())
    differ = [f for f in files if (tmp_path / "a" / f).read_bytes()
              != (tmp_path / "b" / f).read_bytes()]
    assert differ in ([], [Path("timing.json")])
    assert Path("timing.json") in files and Path("summary.txt") in files


def test_a_newer_run_format_is_refused(tmp_path):
    out = tmp_path / "r"
    ok("run", PRIOR, "--data", KYPH, *FAST, "--out", out)
    m = json.loads((out / "manifest.json").read_text())
    (out / "manifest.json").write_text(json.dumps(dict(m, format="slpy-run/9")))
    for args in (("predict", out, "--data", KYPH), ("run", "--resume", out)):
        assert "format 'slpy-run/9'" in error(cli(*args), 2 if args[0] == "run" else 1)


def test_every_package_of_slpy_is_installed():
    # pyproject.toml lists the packages a wheel holds: a folder of slpy/ missing there
    # works in the editable install of the tests and breaks `pip install .`
    import tomllib
    root = Path(__file__).resolve().parents[1]
    listed = set(tomllib.loads((root / "pyproject.toml").read_text())["tool"]["setuptools"]
                 ["packages"])
    folders = {".".join(p.parent.relative_to(root).parts)
               for p in (root / "slpy").rglob("*.py") if "__pycache__" not in p.parts}
    assert folders <= listed, f"add to pyproject.toml's packages: {sorted(folders - listed)}"
