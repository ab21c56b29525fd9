"""README.md opens with the two commands, and .ci/run runs the README's test command."""
from pathlib import Path

ROOT = Path(__file__).resolve().parents[1]


def commands():
    return [ln.strip() for ln in (ROOT / "README.md").read_text().splitlines()
            if ln.startswith("    pip install")]


def test_two_commands_first():
    install_run, install_test = commands()[:2]
    assert "slpy run priors/growtree.slp --data examples/data/bcw.csv" in install_run
    assert install_test.endswith("python -m pytest -q")


def test_ci_runs_the_readme_test_command():
    test_cmd = commands()[1].split("&&")[-1].strip()
    ci = (ROOT / ".ci" / "run").read_text()
    assert test_cmd in ci.splitlines()
