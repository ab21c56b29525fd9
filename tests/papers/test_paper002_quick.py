"""Paper 002 (tempering for Bayesian C&RT): the reproduction script end to end in its
--quick mode (tiny chains, bundled data and a synthetic waveform sample, so it runs on
a fresh clone without ../shared)."""
import re
import subprocess
import sys
from pathlib import Path

import numpy as np
import pandas as pd
import pytest

from benchmarks import paper002_data as D
from benchmarks.paper002 import check_prefix
from benchmarks.paper002_report import BEGIN, END
from benchmarks.paper002_runs import Run, Split_

ROOT = Path(__file__).resolve().parents[2]
SCRIPT = ROOT / "benchmarks" / "paper002.py"


@pytest.fixture(scope="module")
def quick(tmp_path_factory):
    out = tmp_path_factory.mktemp("paper002_quick")
    r = subprocess.run([sys.executable, str(SCRIPT), "--quick", "--out", str(out)],
                       capture_output=True, text=True, timeout=300, cwd=ROOT)
    assert r.returncode == 0, r.stdout[-2000:] + r.stderr[-4000:]
    return out, r.stdout


def table(md: str, heading: str) -> list[list[str]]:
    """The body rows of the first markdown table after `heading`."""
    part = md.split(heading, 1)[1]
    rows = []
    for line in part.splitlines():
        if line.startswith("|"):
            rows.append([c.strip() for c in line.strip("|").split("|")])
        elif rows:
            break
    return rows[2:]


def test_every_run_finished_and_report_written(quick):
    out, stdout = quick
    assert "grid finished" in stdout
    for name, n, t, s in D.grid(D.QUICK):
        rd = D.run_dir(out, name, t, s)
        assert (rd / "summary.json").exists(), rd
        assert (rd / "timing.json").exists(), rd
    md = (out / "paper002.md").read_text()
    assert BEGIN in md and END in md
    for heading in ("paper Table 6", "paper Tables 2-5", "Cross-seed agreement",
                    "Time per 1,000 iterations", "Greedy baseline", "paper Table 1"):
        assert heading in md, heading
    figs = sorted((out / "figures").glob("paper002_*.png"))
    assert len(figs) == 2 * len(D.QUICK)
    for f in figs:
        assert f.read_bytes()[:8] == b"\x89PNG\r\n\x1a\n" and f.stat().st_size > 10_000
        assert f"figures/{f.name}" in md


def test_table6_rows_are_accuracies(quick):
    out, _ = quick
    md = (out / "paper002.md").read_text()
    rows = table(md, "paper Table 6")
    expected = sum(2 * len(prefixes) for _, _, prefixes in D.QUICK)
    assert len(rows) == expected
    for r in rows:
        acc_max, sd_max, acc_prob, sd_prob = float(r[4]), float(r[6]), float(r[8]), float(r[10])
        assert 0 <= acc_prob <= 100 and 0 <= acc_max <= 100
        assert sd_max >= 0 and sd_prob >= 0
        assert r[11] == "3"


def test_tree_probabilities_and_predictions(quick):
    out, _ = quick
    for name, nmax, prefixes in D.QUICK:
        split = Split_(out, name)
        for t in D.TEMPERS:
            for s in D.SEEDS:
                run = Run(D.run_dir(out, name, t, s))
                assert len(run.ids) == nmax          # no burn-in: every tree is kept
                for n in prefixes:
                    probs = run.tree_probs(n)
                    assert abs(sum(probs.values()) - 1) < 1e-9
                    assert all(0 < p <= 1 for p in probs.values())
                preds = run.predictions(split, prefixes)
                for n in prefixes:
                    assert np.allclose(preds[n].sum(axis=1), 1)
                # the rebuilt full-length predictions are slpy's own
                ref = pd.read_csv(run.path / "predictions.csv").filter(like="p_").to_numpy()
                assert np.abs(preds[nmax] - ref).max() < 1e-9
                # and the models file's probabilities sum to 1
                m = pd.read_csv(run.path / "models.csv")
                assert abs(m["prob"].sum() - 1) < 1e-6


def test_top_tree_tables_match_runs(quick):
    out, _ = quick
    md = (out / "paper002.md").read_text()
    block = md.split("paper Tables 2-5", 1)[1].split("Cross-seed agreement", 1)[0]
    m = re.search(r"\*\*K, (\d+) iterations, tempering=TRUE\*\*", block)
    n = int(m.group(1))
    rows = table(block[m.end():], "\n")
    assert 1 <= len(rows) <= 5
    runs = {s: Run(D.run_dir(out, "K", 4, s)) for s in D.SEEDS}
    for r in rows:
        model = r[-1].strip("`")
        if model.endswith("..."):
            continue
        for i, s in enumerate(D.SEEDS):
            assert float(r[1 + i]) == pytest.approx(runs[s].tree_probs(n).get(model, 0.0),
                                                    abs=1e-6)


def test_agreement_table(quick):
    out, _ = quick
    md = (out / "paper002.md").read_text()
    rows = table(md, "Cross-seed agreement")
    assert rows
    for r in rows:
        mean_d, max_d, tv, rhat = float(r[3]), float(r[4]), float(r[5]), float(r[9])
        assert 0 <= mean_d <= max_d <= 1
        assert 0 <= tv <= 1
        assert rhat > 0.9


def test_chain_prefix_property(tmp_path):
    """The 50k/125k figures come from prefixes of the 250k chains: a chain's first n
    iterations do not depend on its length."""
    assert check_prefix(tmp_path, n=150)


def test_full_report_renders_from_the_quick_runs(quick, tmp_path):
    """The report of a full run (the paper's numbers beside ours) from the quick runs,
    kept between the markers of a page with hand-written text around them."""
    from benchmarks.paper002_report import report
    out, _ = quick
    md = tmp_path / "paper002.md"
    md.write_text(f"# Paper 002\n\nbefore\n\n{BEGIN}\n\nstale generated text\n\n{END}"
                  "\n\nafter\n")
    report(out, D.QUICK, quick=False, md_path=md, fig_dir=tmp_path / "figures")
    text = md.read_text()
    assert text.startswith("# Paper 002\n\nbefore\n\n" + BEGIN) and text.endswith(
        END + "\n\nafter\n")
    assert "stale generated text" not in text
    rows = table(text, "Greedy baseline")
    assert [r[1] for r in rows] == ["75.0", "95.5", "76.4", "74.1"]     # rpart, the paper
    assert all(r[2] != "—" for r in table(text, "Time per 1,000 iterations"))
