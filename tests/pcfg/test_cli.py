"""`slpy exact`: printed figures, the run directory, one-line errors."""
import csv
import json
import math

import pytest
from click.testing import CliRunner

from slpy.data.dataset import load_csv
from slpy.pcfg.cli import exact
from slpy.runs import MODEL_COLUMNS

from ..conftest import EXAMPLES
from .conftest import PRIORS

KYPH = EXAMPLES / "kyphosis.csv"


def write_csv(path, header, rows):
    with open(path, "w", newline="") as f:
        w = csv.writer(f)
        w.writerow(header)
        w.writerows(rows)
    return path


@pytest.fixture
def kyph_split(tmp_path):
    rows = list(csv.reader(open(KYPH)))
    header, body = rows[0], rows[1:]
    train = write_csv(tmp_path / "train.csv", header, body[:40])
    test = write_csv(tmp_path / "test.csv", header, body[60:75])
    return train, test


def run(args):
    r = CliRunner().invoke(exact, [str(a) for a in args])
    return r.exit_code, r.output


def test_growtree_run_directory(tmp_path, kyph_split):
    train, test = kyph_split
    out = tmp_path / "run"
    code, text = run([PRIORS / "growtree.slp", "--data", train, "--test", test,
                      "--top", 4, "--samples", 50, "--paths", 200, "--out", out])
    assert code == 0, text
    assert "log marginal likelihood:" in text and "MAP tree" in text
    assert "test accuracy, exact posterior predictive (15 rows)" in text
    assert "test accuracy, path sampling" in text
    for name in ("config.json", "models.csv", "summary.json", "summary.txt",
                 "predictions_exact.csv", "trees/map.json", "samples_exact.csv"):
        assert (out / name).exists(), name
    models = list(csv.DictReader(open(out / "models.csv")))
    assert list(models[0]) == MODEL_COLUMNS and len(models) == 4
    probs = [float(m["prob"]) for m in models]
    assert probs == sorted(probs, reverse=True) and 0 < sum(probs) <= 1
    summary = json.loads((out / "summary.json").read_text())
    assert summary["route"] == "tree" and summary["family"] == "growtree"
    assert abs(summary["top"][0]["prob"] - probs[0]) < 1e-9
    assert 0 <= summary["acc_max"] <= 1 and 0 <= summary["acc_prob"] <= 1
    assert summary["map"]["model"] == models[0]["model"]
    # the printed summary, but for the timings: those are in timing.json alone
    printed, timing = text.strip().rsplit("\n", 1)
    assert (out / "summary.txt").read_text().strip() == printed
    assert timing.startswith("time: ") and "total" in json.loads((out / "timing.json").read_text())
    preds = list(csv.reader(open(out / "predictions_exact.csv")))
    assert preds[0] == ["row", "true", "p_absent", "p_present"] and len(preds) == 16
    assert all(abs(float(r[2]) + float(r[3]) - 1) < 1e-9 for r in preds[1:])
    cfg = json.loads((out / "config.json").read_text())
    assert cfg["command"] == "exact" and cfg["seed"] == 0 and cfg["data_hash"]
    tree = json.loads((out / "trees" / "map.json").read_text())
    assert tree["format"] == "slpy-tree/1"


def test_same_figures_as_the_python_api(kyph_split, tmp_path):
    from slpy.data.rowsets import RowSets
    from slpy.pcfg.grammar import growtree_grammar
    from slpy.pcfg.inside import TreePosterior
    from slpy.trees.likelihood import DirichletLikelihood
    from slpy.trees.term import canonical
    train, _ = kyph_split
    out = tmp_path / "r"
    code, text = run([PRIORS / "growtree.slp", "--data", train, "-p", "min_leaf=4",
                      "--top", 3, "--out", out])
    assert code == 0, text
    ds = load_csv(train)
    post = TreePosterior(growtree_grammar(RowSets(ds), 0.95, 1, 4),
                         DirichletLikelihood.from_dataset(ds))
    assert f"log marginal likelihood: {post.log_marginal_likelihood:.6f}" in text
    models = list(csv.DictReader(open(out / "models.csv")))
    for m, (lp, d) in zip(models, post.kbest(3)):
        assert m["model"] == canonical(post.term(d))
        assert abs(float(m["prob"]) - math.exp(lp)) < 1e-9


def test_phi_with_buckets(tmp_path):
    iris = EXAMPLES / "iris.csv"
    code, text = run([PRIORS / "phi.slp", "--data", iris, "--bucket", 10, "--top", 2])
    assert code == 0, text
    assert "prior: phi" in text and "7 nodes" in text


def test_program_without_data(tmp_path):
    f = tmp_path / "coins.slp"
    f.write_text("0.3 :: coin(h). 0.7 :: coin(t).\npair(p(X, Y)) :- coin(X), coin(Y).\n")
    code, text = run([f, "--query", "pair(P)", "--top", 2])
    assert code == 0, text
    assert "generic tabled compiler" in text
    assert "0.490000  p(t,t)" in text and "0.210000  p(h,t)" in text


@pytest.mark.parametrize("args,needle", [
    (["{prior}", "--data", "missing.csv"], "does not exist"),
    (["{prior}", "--test", "{data}"], "--test needs --data"),
    (["{prior}", "--data", "{data}", "-p", "nonsense"], "expected name=value"),
    (["{prior}", "--data", "{data}", "-p", "zeta=3"], "declares no parameter zeta"),
    (["{prior}", "--data", "{data}", "--test", "{other}"], "no column 'Age'"),
    (["{bad}"], "sibling goals must not share"),
    (["{prior}", "--data", "{data}", "--route", "tabled", "--max-variants", "300"],
     "more than 300 goal variants"),
    (["{prior}", "--data", "{data}", "--max-row-sets", "100"], "more than 100 row sets"),
    (["{prior}", "--bucket", "5"], "--bucket needs --data"),
])
def test_bad_input_is_one_line(tmp_path, args, needle):
    prior = PRIORS / "growtree.slp"
    other = write_csv(tmp_path / "other.csv", ["a", "class"], [[1, "x"], [2, "y"]])
    bad = tmp_path / "bad.slp"
    bad.write_text("0.5 :: c(h). 0.5 :: c(t).\n0.5 :: d(h, x). 0.5 :: d(t, y).\n"
                   "cart(Y) :- c(X), d(X, Y).\n")
    subst = {"{prior}": prior, "{data}": KYPH, "{other}": other, "{bad}": bad}
    code, text = run([subst.get(a, a) for a in args])
    assert code != 0
    lines = [ln for ln in text.splitlines() if ln.strip()]
    assert "Traceback" not in text
    assert any(needle in ln for ln in lines), text
    assert lines[-1].startswith("Error") or "Usage" in text


def test_registered_in_the_main_group():
    from slpy.cli import main
    r = CliRunner().invoke(main, ["exact", "--help"])
    assert r.exit_code == 0 and "--bucket" in r.output


def test_other_priors_go_the_generic_way(tmp_path):
    from .conftest import tiny_dataset
    ds = tiny_dataset()
    rows = [[int(v) for v in x] + [ds.classes[y]] for x, y in zip(ds.X, ds.y)]
    data = write_csv(tmp_path / "tiny.csv", ds.feature_names + ["class"], rows)
    out = tmp_path / "d"
    code, text = run([PRIORS / "depth.slp", "--data", data, "--test", data, "-p",
                      "min_leaf=2", "--top", 3, "--out", out])
    assert code == 0, text
    assert "generic tabled compiler" in text and "exact posterior predictive" in text
    summary = json.loads((out / "summary.json").read_text())
    assert summary["route"] == "tabled" and len(summary["top"]) == 3
    assert (out / "predictions_exact.csv").exists()
