"""Paper 004 (BCART-PCFG, Tables 1-3): benchmarks/paper004.py end to end in its --quick
mode (Iris and a 200-row hidden XOR with depth <= 4, one trial, 2 of 10 folds; bundled
data only, so it runs on a fresh clone without ../shared)."""
import csv
import json
import subprocess
import sys
from pathlib import Path

import pytest

ROOT = Path(__file__).resolve().parents[2]
SCRIPT = ROOT / "benchmarks" / "paper004.py"


@pytest.fixture(scope="module")
def quick(tmp_path_factory):
    out = tmp_path_factory.mktemp("paper004_quick")
    r = subprocess.run([sys.executable, str(SCRIPT), "--quick", "--out", str(out)],
                       capture_output=True, text=True, timeout=300, cwd=ROOT)
    assert r.returncode == 0, r.stdout[-2000:] + r.stderr[-4000:]
    with open(out / "folds.csv") as f:
        rows = list(csv.DictReader(f))
    return out, rows, json.loads((out / "summary.json").read_text())["summary"]


def fold_values(rows, dataset, method, key):
    return [float(r[key]) for r in rows if r["dataset"] == dataset and r["method"] == method]


def test_outputs_written(quick):
    out, rows, summary = quick
    assert (out / "paper004_tables.png").stat().st_size > 10_000
    md = (out / "paper004.md").read_text()
    for heading in ("Table 1", "Table 2", "Table 3"):
        assert heading in md
    assert "0.967 ± 0.092" in md and "392.2 ± 103.5" in md      # the paper's numbers
    # 2 folds x 7 methods for each of the two data sets
    assert len(rows) == 2 * 2 * 7
    assert set(summary) == {"iris", "xor"}


def test_hidden_xor_map_tree_is_the_perfect_31_node_tree(quick):
    _, rows, _ = quick
    assert fold_values(rows, "xor", "map", "nodes") == [31.0, 31.0]
    assert fold_values(rows, "xor", "map", "acc") == [1.0, 1.0]
    assert fold_values(rows, "xor", "exact", "acc") == [1.0, 1.0]
    assert min(fold_values(rows, "xor", "ens", "acc")) >= 0.95
    # greedy CART splits on noise: a much larger tree that is not perfect
    assert min(fold_values(rows, "xor", "cart", "nodes")) > 60
    assert max(fold_values(rows, "xor", "cart", "acc")) < 1.0


def test_iris_map_tree_small_and_accurate(quick):
    _, rows, summary = quick
    s = summary["iris"]
    assert s["map"]["acc"] >= 0.9 and s["exact"]["acc"] >= 0.9 and s["ens"]["acc"] >= 0.9
    assert all(n in (5.0, 7.0, 9.0) for n in fold_values(rows, "iris", "map", "nodes"))
    assert s["map"]["nodes"] < s["cart"]["nodes"] / 2
    # the fold sizes: 135 training rows, 15 test rows
    assert {r["n_train"] for r in rows if r["dataset"] == "iris"} == {"135"}
