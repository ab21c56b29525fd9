"""The slpy command line: --version/--help, `slpy sample`, `slpy check`, one-line errors,
and docs/cli.md covering every command and option."""
import json
import math
import os
import re
import subprocess
import sys
from pathlib import Path

import pytest
from click.testing import CliRunner

from slpy import __version__
from slpy.cli import main

from .conftest import PEPL, needs_pepl

ROOT = Path(__file__).resolve().parents[1]
DATA = Path(__file__).resolve().parent / "data_files"


def cli(*args, input=None):
    return CliRunner().invoke(main, [str(a) for a in args], input=input)


def _one_line_error(r, code=None):
    assert r.exit_code != 0 if code is None else r.exit_code == code
    assert "Traceback" not in r.stdout + r.stderr
    lines = r.stderr.strip().splitlines()
    assert len(lines) == 1, r.stderr
    return lines[0]


# -- the group -----------------------------------------------------------------------------

def test_version_and_help():
    r = cli("--version")
    assert r.exit_code == 0 and r.stdout == f"slpy {__version__}\n"
    r = cli("--help")
    assert r.exit_code == 0
    commands = r.stdout.split("Commands:\n")[1].splitlines()
    listed = {line.split()[0] for line in commands if line.strip()}
    assert listed == set(main.commands)
    for line in commands:   # one line each, with a description
        assert len(line.split()) >= 2
    for name, cmd in main.commands.items():
        r = cli(name, "--help")
        assert r.exit_code == 0 and f"Usage: slpy {name}" in r.stdout


def test_bad_usage_is_one_line_and_non_zero():
    assert _one_line_error(cli("no-such-command"), 2).startswith("Error: ")
    assert "PRIOR" in _one_line_error(cli("sample"), 2)
    assert _one_line_error(cli("sample", DATA / "missing.slp"), 2).startswith("Error: ")
    assert "-n" in _one_line_error(cli("sample", DATA / "tour.slp", "-n", "many"), 2)
    assert "-p" in _one_line_error(cli("sample", DATA / "tour.slp", "-p", "oops"), 2)
    assert "--seed" in _one_line_error(cli("sample", DATA / "tour.slp", "--seed", "-1"), 2)
    assert "--format" in _one_line_error(cli("sample", DATA / "tour.slp", "--format", "xml"), 2)
    assert _one_line_error(cli("check"), 2).startswith("Error: ")


def test_debug_shows_tracebacks_of_internal_errors(monkeypatch):
    import slpy.logic.check       # `slpy check` imports it when it runs

    def boom(*a, **k):
        raise RuntimeError("boom")
    monkeypatch.setattr(slpy.logic.check, "check_program", boom)
    r = cli("check", DATA / "clean.slp")
    assert _one_line_error(r, 1) == "Error: internal error: RuntimeError: boom"
    r = cli("--debug", "check", DATA / "clean.slp")
    assert r.exit_code == 1 and "Traceback" in r.stdout + r.stderr


def test_repl_options():
    r = cli("repl", "-p", "depth=5", "-p", "name='A b'",
            input="param(depth, D), param(name, N).\n")
    assert r.exit_code == 0 and r.stdout == "D = 5,\nN = 'A b'.\n"
    assert "-p" in _one_line_error(cli("repl", "-p", "depth=f(", input="true.\n"), 2)
    r = cli("repl", "--pure", "--seed", "1", DATA / "tour.slp",
            input="sampling(M).\nset_prolog_flag(sampling, backtrackable), sampling(N).\n")
    assert r.exit_code == 0 and r.stdout == "M = pure.\nN = backtrackable.\n"
    r = cli("repl", DATA / "syntax_error.slp", input="good(X).\n")
    assert r.exit_code == 0 and r.stdout == "X = a.\n"
    assert re.fullmatch(r"ERROR: \S*syntax_error\.slp:3:7: Syntax error: .*\n", r.stderr)


# -- sample --------------------------------------------------------------------------------

@needs_pepl
def test_sample_same_seed_same_bytes():
    args = ("sample", PEPL / "member3.slp", "--query", "member3(X, [a,b,c,d])", "-n", "25",
            "--seed", "123")
    a, b = cli(*args), cli(*args)
    assert a.exit_code == 0 and a.stdout_bytes == b.stdout_bytes
    lines = a.stdout.splitlines()
    assert len(lines) == 25 and set(lines) <= {f"member3({x},[a,b,c,d])" for x in "abcd"}
    assert len(set(lines)) > 1
    c = cli(*args[:-1], "124")
    assert c.stdout_bytes != a.stdout_bytes
    # the installed program, twice, byte for byte
    env = dict(os.environ, PYTHONPATH=str(ROOT) + os.pathsep + os.environ.get("PYTHONPATH", ""))
    cmd = [sys.executable, "-m", "slpy.cli", *map(str, args), "--format", "json"]
    runs = [subprocess.run(cmd, capture_output=True, env=env, timeout=60) for _ in range(2)]
    assert runs[0].returncode == 0 and runs[0].stdout == runs[1].stdout
    assert runs[0].stdout.count(b"\n") == 25


@needs_pepl
def test_sample_json_has_bindings_log_prob_and_proof_tree():
    r = cli("sample", PEPL / "member3.slp", "--query", "member3(X, [a,b,c])", "-n", "20",
            "--seed", "5", "--format", "json")
    assert r.exit_code == 0
    expected = {"a": 1 / 3, "b": 2 / 9, "c": 4 / 27}
    for line in r.stdout.splitlines():
        rec = json.loads(line)
        assert rec["ok"] is True
        x = rec["bindings"]["X"]
        assert rec["answer"] == f"member3({x},[a,b,c])"
        assert rec["log_prob"] == pytest.approx(math.log(expected[x]))
        assert rec["prob"] == pytest.approx(expected[x])
        # the proof: a chain of member3 calls, each choosing clause 2 until clause 1
        node, depth, logp = rec["proof"], 0, 0.0
        while node:
            (n,) = node
            assert n["call"].startswith("member3(_A,")
            assert n["file"].endswith("member3.slp") and isinstance(n["line"], int)
            logp += math.log(n["prob"])
            depth += 1
            node = n["children"]
            if not node:
                assert n["clause"] == 1
        assert depth == "abc".index(x) + 1
        assert logp == pytest.approx(rec["log_prob"])


def test_sample_default_query_is_the_first_predicate():
    r = cli("sample", DATA / "clean.slp", "-n", "4", "--seed", "1")
    assert r.exit_code == 0
    assert all(re.fullmatch(r"coin\((head|tail)\)", x) for x in r.stdout.splitlines())
    assert len(r.stdout.splitlines()) == 4


def test_sample_params():
    q = ("--query", "run(Xs)", "--seed", "3")
    r = cli("sample", DATA / "clean.slp", *q)            # the default: depth 3
    assert r.exit_code == 0
    assert re.fullmatch(r"run\(\[(head|tail)(,(head|tail)){2}\]\)\n", r.stdout)
    r = cli("sample", DATA / "clean.slp", *q, "-p", "depth=5")
    assert r.exit_code == 0
    assert re.fullmatch(r"run\(\[(head|tail)(,(head|tail)){4}\]\)\n", r.stdout)
    line = _one_line_error(cli("sample", DATA / "clean.slp", *q, "-p", "width=5"), 2)
    assert "declares no parameter width" in line and "depth" in line
    line = _one_line_error(cli("sample", DATA / "clean.slp", *q, "-p", "depth=f("), 2)
    assert line.startswith("Error: ")


def test_sample_with_data():
    prior, data = ROOT / "priors" / "growtree.slp", ROOT / "examples" / "data" / "iris.csv"
    if not (prior.exists() and data.exists()):
        pytest.skip("needs priors/growtree.slp and examples/data/iris.csv")
    args = ("sample", prior, "--data", data, "-n", "3", "--seed", "2")
    r = cli(*args)
    assert r.exit_code == 0, r.stderr
    # with data, each sampled model prints as the tree it stands for
    blocks = r.stdout.strip().split("\n\n")
    assert len(blocks) == 3 and all(b.startswith("% sample ") for b in blocks)
    assert all(("if " in b and "<=" in b) or "setosa" in b for b in blocks)
    assert cli(*args).stdout == r.stdout
    assert "--data" in _one_line_error(cli(*args, "--target", "no_such_column"), 2)
    assert "--data" in _one_line_error(cli("sample", prior, "--target", "class"), 2)
    # without the data the prior cannot run: an error, one line
    assert _one_line_error(cli("sample", prior, "--seed", "1"), 1).startswith("Error: ")


@needs_pepl
def test_sample_pure_failures_and_text_form():
    r = cli("sample", PEPL / "doubles.slp", "-n", "200", "--seed", "8", "--pure")
    lines = r.stdout.splitlines()
    assert r.exit_code == 0 and len(lines) == 200
    assert set(lines) == {"doubles(head)", "doubles(tail)", "false"}
    assert 60 < lines.count("false") < 140
    r = cli("sample", PEPL / "doubles.slp", "-n", "50", "--seed", "8")
    assert "false" not in r.stdout.splitlines()
    # the instantiated goal in writeq form; fresh variables print as _A, _B, ...
    r = cli("sample", PEPL / "coin.slp", "--query", "coin(X), Y = f(_, 'A b', Z, Z)", "--seed", "1")
    assert re.fullmatch(r"coin\((head|tail)\),f\(_A,'A b',_B,_B\)=f\(_A,'A b',_B,_B\)\n",
                        r.stdout)


def test_sample_errors_are_one_line():
    # load errors: one line each, file and line first
    r = cli("sample", DATA / "syntax_error.slp", "--query", "good(X)")
    assert r.exit_code == 1
    assert re.fullmatch(r"\S*syntax_error\.slp:3:\d+: Syntax error: .*\n", r.stderr)
    r = cli("sample", DATA / "clean.slp", "--query", "X is foo + 1")
    assert _one_line_error(r, 1) == "Error: Arithmetic: evaluable `foo/0' does not exist"
    r = cli("sample", DATA / "clean.slp", "--query", "coin(")
    assert "--query" in _one_line_error(r, 2)
    r = cli("sample", DATA / "clean.slp", "--query", "nothing_here(X)")
    assert _one_line_error(r, 1) == "Error: Unknown procedure: nothing_here/1"


def test_commands_other_than_repl_do_not_load_the_top_level(tmp_path):
    # what they share with the top level lives with its concept, not in slpy.repl
    code = ("import sys\n"
            "from slpy.cli import main\n"
            "for args, code in {runs!r}:\n"
            "    try:\n"
            "        rc = main(args, standalone_mode=False)\n"
            "    except SystemExit as e:\n"
            "        rc = e.code\n"
            "    assert rc == code, (args, rc)\n"
            "print(sorted(m for m in sys.modules if m.startswith('slpy.repl')))\n")
    tour = str(DATA / "tour.slp")
    runs = [(["sample", tour, "-n", "3", "--seed", "1"], 0),
            (["sample", tour, "-n", "2", "--seed", "1", "--format", "json"], 0),
            (["sample", str(DATA / "syntax_error.slp")], 1),
            (["check", str(DATA / "clean.slp")], 0),
            (["run", str(DATA / "syntax_error.slp"), "--data",
              str(ROOT / "examples/data/kyphosis.csv"), "-n", "5", "-q",
              "--out", str(tmp_path / "run")], 1)]

    def loaded(runs):
        out = subprocess.run([sys.executable, "-c", code.format(runs=runs)], cwd=ROOT,
                             stdin=subprocess.DEVNULL, capture_output=True, text=True,
                             check=True).stdout
        return out.splitlines()[-1]
    assert loaded(runs) == "[]"
    # the check can see it: the repl command does load it
    assert loaded([(["repl", "-q"], 0)]) != "[]"


# -- check ---------------------------------------------------------------------------------

def _check(name, *extra):
    r = cli("check", DATA / name, *extra)
    assert "Traceback" not in r.stdout + r.stderr
    return r, r.stdout.splitlines()


def test_check_clean_file():
    r, lines = _check("clean.slp")
    assert r.exit_code == 0 and lines == ["no problems found"]


def test_check_syntax_error():
    r, lines = _check("syntax_error.slp")
    assert r.exit_code == 1
    assert re.fullmatch(r"\S*syntax_error\.slp:3:7: error: Syntax error: .+", lines[0])
    assert lines[-1] == "1 error, 0 warnings"


def test_check_load_error():
    r, lines = _check("load_error.slp")
    assert r.exit_code == 1
    assert re.fullmatch(r"\S*load_error\.slp:4: error: coin/1 mixes labelled and "
                        r"unlabelled clauses.*", lines[0])


def test_check_undefined_predicates():
    r, lines = _check("undefined.slp")
    assert r.exit_code == 1
    assert re.fullmatch(r"\S*undefined\.slp:4: error: walk/1 calls undefined procedure "
                        r"step/2", lines[0])
    assert re.fullmatch(r"\S*undefined\.slp:6: error: all/1 calls undefined procedure "
                        r"missing/1", lines[1])
    assert lines[-1] == "2 errors, 0 warnings"


def test_check_label_sums_warn():
    r, lines = _check("label_sum.slp")
    assert r.exit_code == 0   # a warning only
    assert re.fullmatch(r"\S*label_sum\.slp:2: warning: labels of die/1 sum to 0\.9, "
                        r"not 1", lines[0])
    assert lines[-1] == "0 errors, 1 warning"   # flip/1's computed labels are not checked
    r, _ = _check("label_sum.slp", "--strict")
    assert r.exit_code == 1


def test_check_singletons_warn():
    r, lines = _check("singleton.slp")
    assert r.exit_code == 0
    assert re.fullmatch(r"\S*singleton\.slp:2:1: warning: singleton variables: \[Y\]",
                        lines[0])
    assert lines[-1] == "0 errors, 1 warning"


def test_check_failing_directive_and_several_files(tmp_path):
    f = tmp_path / "directive.slp"
    f.write_text("p(1).\n:- p(2).\n")
    r = cli("check", f, DATA / "singleton.slp")
    lines = r.stdout.splitlines()
    assert f"{f}:2: warning: goal (directive) failed" in lines
    assert lines[-1] == "0 errors, 2 warnings" and r.exit_code == 0


# -- the docs ------------------------------------------------------------------------------

def test_cli_docs_cover_every_command_and_option():
    doc = (ROOT / "docs" / "cli.md").read_text()
    for name, cmd in main.commands.items():
        assert f"slpy {name}" in doc, name
        for param in cmd.params:
            for opt in param.opts:
                if opt.startswith("-"):
                    assert opt in doc, f"{name} {opt}"
                else:
                    assert param.name.upper() in doc, f"{name} {param.name}"
    for param in main.params:
        for opt in param.opts:
            assert opt in doc, opt


def test_cli_docs_examples_are_real(monkeypatch):
    """Each `$ slpy ...` example of docs/cli.md on the test files prints what the doc
    shows."""
    import shlex
    doc = (ROOT / "docs" / "cli.md").read_text()
    monkeypatch.chdir(ROOT)
    examples = 0
    for block in re.findall(r"```\n(\$ .*?)```", doc, re.S):
        for cmd in re.split(r"^(?=\$ )", block, flags=re.M):
            if not cmd.startswith("$ slpy ") or "|" in cmd.splitlines()[0]:
                continue
            if "priors/" in cmd.splitlines()[0]:
                continue  # the project's priors change with their authors: not checked here
            first, _, shown = cmd.partition("\n")
            r = cli(*shlex.split(first)[2:])
            assert r.stdout == shown, first
            examples += 1
    assert examples >= 6
