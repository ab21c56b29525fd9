"""report.html: one self-contained file (every figure and tree inlined), rendered by
headless Chromium into a screenshot that is not blank; the blank check is shown to
fail on an empty page."""
import re
import shutil
import subprocess
from pathlib import Path

import numpy as np
import pytest
from click.testing import CliRunner

from slpy.cli import main

ROOT = Path(__file__).resolve().parents[2]
KYPHOSIS = ROOT / "examples" / "data" / "kyphosis.csv"
CHROMIUM = shutil.which("chromium") or shutil.which("chromium-browser")
needs_chromium = pytest.mark.skipif(
    CHROMIUM is None, reason="chromium is not installed (apt-get install -y chromium; "
                             ".ci/run installs it)")

pytest.importorskip("matplotlib")
pytest.importorskip("markdown_it", reason="report.html needs markdown-it-py (slpy[plots])")


@pytest.fixture(scope="module")
def report(tmp_path_factory):
    d = tmp_path_factory.mktemp("html")
    for seed in (1, 2):
        r = CliRunner().invoke(main, ["run", str(ROOT / "priors" / "growtree.slp"), "--data",
                                      str(KYPHOSIS), "-n", "300", "--temper", "1",
                                      "--holdout", "0.2", "--seed", str(seed), "--out",
                                      str(d / f"s{seed}"), "-q"])
        assert r.exit_code == 0, r.output
    r = CliRunner().invoke(main, ["report", str(d / "s1"), str(d / "s2"), "--out",
                                  str(d / "rep")])
    assert r.exit_code == 0, r.output
    assert f"report: {d / 'rep' / 'report.html'}" in r.output
    return d / "rep"


def test_html_is_self_contained(report):
    page = (report / "report.html").read_text()
    md = (report / "report.md").read_text()
    images = re.findall(r"!\[[^\]]*\]\(([^)]+)\)", md)
    assert len(images) >= 6 and any(i.startswith("trees/") for i in images)
    srcs = re.findall(r'<img src="([^"]*)"', page)
    assert len(srcs) == len(images)
    assert all(s.startswith("data:image/png;base64,") for s in srcs)
    hrefs = re.findall(r'href="([^"]*)"', page)
    assert hrefs and all(h.startswith("data:text/plain") for h in hrefs)   # DOT, text
    assert page.count("<table>") == md.count("\n|---|")
    assert "<h2>Features</h2>" in page and "<h2>Trees</h2>" in page


def test_html_is_the_same_for_the_same_report(report, tmp_path):
    runs = [report.parent / "s1", report.parent / "s2"]
    r = CliRunner().invoke(main, ["report", *map(str, runs), "--out", str(tmp_path)])
    assert r.exit_code == 0, r.output
    a = (report / "report.html").read_text().replace(str(report), "OUT")
    b = (tmp_path / "report.html").read_text().replace(str(tmp_path), "OUT")
    assert a == b


def screenshot(page: Path, png: Path, profile: Path) -> np.ndarray:
    """Chromium's screenshot of `page` (1200 x 2000) as an RGB array in [0, 1]."""
    from matplotlib.image import imread
    subprocess.run([CHROMIUM, "--headless", "--no-sandbox", "--disable-gpu",
                    "--disable-quic", "--no-first-run", "--disable-background-networking",
                    "--disable-component-update", "--disable-sync",
                    f"--user-data-dir={profile}", f"--screenshot={png}",
                    "--window-size=1200,2000", page.resolve().as_uri()],
                   check=True, capture_output=True, timeout=180)
    return imread(png)[..., :3]


def not_blank(img: np.ndarray) -> tuple[bool, str]:
    """Something is drawn: more than 5% of the pixels are not white, in more than 50
    distinct colours."""
    px = (img.reshape(-1, 3) * 255).round().astype(np.int64)
    inked = float((px.min(axis=1) < 245).mean())
    colours = len(np.unique(px[:, 0] << 16 | px[:, 1] << 8 | px[:, 2]))
    return inked > 0.05 and colours > 50, f"{inked:.1%} inked, {colours} colours"


@needs_chromium
def test_chromium_renders_the_report(report, tmp_path):
    img = screenshot(report / "report.html", tmp_path / "report.png", tmp_path / "p1")
    assert img.shape[:2] == (2000, 1200)
    ok, what = not_blank(img)
    print(f"\nreport.html: {what}")
    assert ok, what
    # the check fails on an empty page
    empty = tmp_path / "empty.html"
    empty.write_text("<!DOCTYPE html><html><head><title>x</title></head><body></body></html>")
    ok, what = not_blank(screenshot(empty, tmp_path / "empty.png", tmp_path / "p2"))
    print(f"empty page: {what}")
    assert not ok, what


def test_features_section_from_models_csv_by_hand(report):
    """The inclusion probabilities of the report: for each feature, the summed
    probabilities of the models in models.csv whose canonical term splits on it."""
    import csv
    import json
    numbers = json.loads((report / "report.json").read_text())["features"]
    names = numbers["features"]
    assert names == ["Age", "Number", "Start"]
    md = (report / "report.md").read_text()
    section = md.split("## Features", 1)[1].split("\n## ", 1)[0]
    for seed in (1, 2):
        rows = list(csv.DictReader(open(report.parent / f"s{seed}" / "models.csv")))
        ref = [sum(float(r["prob"]) for r in rows if f"node({name}," in r["model"])
               for name in names]
        assert np.allclose(numbers["inclusion"][f"seed {seed}"], ref, atol=1e-11)
        for name, p in zip(names, ref):
            line = next(ln for ln in section.splitlines() if ln.startswith(f"| `{name}` |"))
            assert f"{p:.4f}" == line.split("|")[1 + seed].strip()
    assert "![partial dependence](partial_dependence.png)" in section
    assert (report / "partial_dependence.png").is_file()


def test_a_run_whose_data_are_gone_is_left_out_of_the_features(tmp_path):
    """The Features section needs the training data: a run whose data no longer
    match is named and left out, and the rest of the report is written (a report
    that compares runs on recomputed predictions needs the data anyway)."""
    import json
    run = tmp_path / "moved"
    r = CliRunner().invoke(main, ["run", str(ROOT / "priors" / "growtree.slp"), "--data",
                                  str(KYPHOSIS), "-n", "100", "--temper", "1", "--out",
                                  str(run), "-q"])
    assert r.exit_code == 0, r.output
    cfg = json.loads((run / "config.json").read_text())
    cfg["data_hash"] = "0" * 64
    (run / "config.json").write_text(json.dumps(cfg))
    r = CliRunner().invoke(main, ["report", str(run), "--out", str(tmp_path / "rep")])
    assert r.exit_code == 0, r.output
    md = (tmp_path / "rep" / "report.md").read_text()
    section = md.split("## Features", 1)[1].split("\n## ", 1)[0]
    assert "- seed 0: left out," in section and "its hash differs" in section
    assert "| feature |" not in section and "## Trees" in md


def test_without_markdown_it_the_report_says_so(tmp_path, monkeypatch):
    """report.md is written and report.html is named as left out, with what to install."""
    from slpy.report import html
    monkeypatch.setattr(html, "available", lambda: False)
    run = tmp_path / "run"
    r = CliRunner().invoke(main, ["run", str(ROOT / "priors" / "growtree.slp"), "--data",
                                  str(KYPHOSIS), "-n", "50", "--temper", "1", "--out",
                                  str(run), "-q"])
    assert r.exit_code == 0, r.output
    r = CliRunner().invoke(main, ["report", str(run)])
    assert r.exit_code == 0, r.output
    assert "report.html not written: it needs markdown-it-py" in r.stderr
    assert (run / "report" / "report.md").is_file()
    assert not (run / "report" / "report.html").exists()
