"""`slpy run`, `report`, `--resume` and `--init` with the Bayesian-network family; the
sampler itself knows no family (nothing in slpy/mcmc imports one)."""
import ast
import csv
import json
from pathlib import Path

import pytest
from click.testing import CliRunner

from slpy.cli import main

ROOT = Path(__file__).resolve().parents[2]
PRIOR = str(ROOT / "priors" / "bn.slp")
DATA = str(ROOT / "examples" / "data" / "asia.csv")


def slpy(*args, code=0):
    r = CliRunner().invoke(main, [str(a) for a in args])
    assert r.exit_code == code, r.output
    return r.output


@pytest.fixture(scope="module")
def run_dir(tmp_path_factory):
    out = tmp_path_factory.mktemp("bn") / "run"
    slpy("run", PRIOR, "--data", DATA, "-n", "300", "--chains", "2", "--seed", "2",
         "--temper", "2", "--out", out, "-q")
    return out


def test_a_run_writes_edges_marginals_and_dags(run_dir):
    summary = json.loads((run_dir / "summary.json").read_text())
    assert summary["variables"] == ["asia", "tub", "smoke", "lung", "bronc", "either",
                                    "xray", "dysp"]
    marg = summary["edge_marginals"]
    assert all(0 < p <= 1 for p in marg.values())
    # the strongest link of Asia, one way or the other after 300 sweeps
    assert marg.get("bronc->dysp", 0) + marg.get("dysp->bronc", 0) > 0.9
    with open(run_dir / "models.csv") as f:
        rows = list(csv.DictReader(f))
    assert list(rows[0]) == ["rank", "model", "count", "prob", "log_lik", "edges"]
    assert rows[0]["model"].startswith("dag([asia-[")
    header = (run_dir / "chain_0" / "trace.csv").read_text().splitlines()[0]
    assert header == "iter,model,log_lik,edges,d,accepted,swap"
    top = json.loads((run_dir / "dags" / "top.json").read_text())
    assert top["format"] == "slpy-dag/1" and set(top["parents"]) == set(summary["variables"])
    text = (run_dir / "summary.txt").read_text()
    assert "edge posterior marginals" in text and "edges" in text
    assert "R-hat (bulk, tail ESS) over 2 chains" in text and "edges" in text.split("R-hat")[1]


def test_resume_recomputes_the_chain_byte_for_byte(run_dir, tmp_path):
    import shutil
    part = tmp_path / "part"
    shutil.copytree(run_dir, part)
    trace = part / "chain_1" / "trace.csv"
    trace.write_text("".join(trace.read_text().splitlines(keepends=True)[:100]))
    slpy("run", "--resume", part, "-q")
    for name in ("chain_0/trace.csv", "chain_1/trace.csv", "models.csv", "summary.json"):
        assert (part / name).read_bytes() == (run_dir / name).read_bytes(), name


def test_report_draws_the_edge_matrix_and_the_dags(run_dir, tmp_path):
    out = tmp_path / "rep"
    slpy("report", run_dir, "--out", out)
    md = (out / "report.md").read_text()
    assert "## Edge posterior marginals" in md and "## Most probable DAGs" in md
    assert "R-hat edges" in md
    for f in ("edge_marginals_1.png", "dag_1.png", "dag_1.dot", "trace_edges.png"):
        assert (out / f).stat().st_size > 1000 or f.endswith(".dot"), f


def test_bad_starts_and_other_commands_are_one_line_errors(run_dir, tmp_path):
    cyc = tmp_path / "cyc.pl"
    cyc.write_text("dag([asia-[tub],tub-[asia],smoke-[],lung-[],bronc-[],either-[],"
                   "xray-[],dysp-[]]).\n")
    many = tmp_path / "many.pl"
    many.write_text("dag([asia-[],tub-[],smoke-[],lung-[],bronc-[],either-[],xray-[],"
                    "dysp-[asia,tub,smoke,lung]]).\n")
    for init, why in ((cyc, "directed cycle"), (many, "probability 0")):
        out = slpy("run", PRIOR, "--data", DATA, "-n", "5", "--init", init, "--out",
                   tmp_path / init.stem, code=2)
        assert why in out and len(out.strip().splitlines()) == 1
    out = slpy("predict", run_dir, "--data", DATA, code=1)
    assert "names no --target variable" in out and "Traceback" not in out
    out = slpy("exact", PRIOR, "--data", DATA, code=2)
    assert "slpy.bn.exact" in out and "Traceback" not in out
    out = slpy("run", PRIOR, "--data", DATA, "--family", "nope", "--out", tmp_path / "x",
               code=2)
    assert "unknown model family 'nope'" in out


def test_a_good_start_is_reached(tmp_path):
    start = tmp_path / "asia.pl"
    start.write_text("dag([asia-[],tub-[asia],smoke-[],lung-[smoke],bronc-[smoke],"
                     "either-[tub,lung],xray-[either],dysp-[bronc,either]]).\n")
    slpy("run", PRIOR, "--data", DATA, "-n", "1", "--burn-in", "0", "--temper", "1",
         "--init", start, "--out", tmp_path / "r", "--seed", "1", "-q")
    with open(tmp_path / "r" / "chain_0" / "models.csv") as f:
        first = next(csv.DictReader(f))
    # one step from the true DAG: the true DAG or a neighbour of it
    assert first["model"].count("-[") == 8


def test_the_sampler_imports_no_model_family():
    for path in (ROOT / "slpy" / "mcmc").glob("*.py"):
        for node in ast.walk(ast.parse(path.read_text())):
            if isinstance(node, ast.ImportFrom):
                mod = ("." * node.level) + (node.module or "")
                assert not any(part in ("trees", "bn") for part in mod.split(".")), \
                    f"{path.name} imports {mod}"
            elif isinstance(node, ast.Import):
                for a in node.names:
                    assert not a.name.startswith(("slpy.trees", "slpy.bn")), \
                        f"{path.name} imports {a.name}"


def test_a_network_predicts_its_target_from_the_other_variables(tmp_path):
    out = tmp_path / "r"
    text = slpy("run", PRIOR, "--data", DATA, "-n", "200", "--temper", "2", "--seed", "1",
                "--holdout", "0.2", "--target", "dysp", "--top", "0", "--out", out)
    assert "test accuracy: acc_max" in text
    summary = json.loads((out / "summary.json").read_text())
    assert summary["acc_max"] > 0.8            # dysp from bronc and either
    with open(out / "predictions.csv") as f:
        rows = list(csv.DictReader(f))
    assert len(rows) == 1000 and list(rows[0]) == ["row", "true", "p_no", "p_yes"]
    new = tmp_path / "new.csv"
    new.write_text("asia,tub,smoke,lung,bronc,either,xray\n"
                   "no,no,yes,no,yes,no,no\nno,no,no,no,no,no,no\n")
    text = slpy("predict", out, "--data", new)
    lines = text.strip().splitlines()
    k = lines.index("row,p_no,p_yes")
    assert "2 rows" in lines
    p_bronc, p_none = (float(line.split(",")[2]) for line in lines[k + 1:k + 3])
    assert p_bronc > 0.5 > p_none              # bronchitis makes dyspnoea likely


def test_sample_and_the_top_level_see_the_variables():
    out = slpy("sample", PRIOR, "--data", DATA, "-n", "3", "--seed", "2")
    lines = out.strip().splitlines()
    assert len(lines) == 3 and all(line.startswith("bn(dag([asia-") for line in lines)
