"""Issue 26, the display: a categorical split drawn as its text says it (notebook SVG,
report), a notebook tree that shrinks to its cell instead of being clipped, the
report's trees as SVG, its partial dependence per level of a categorical feature,
and the network report's links in either direction (Markov equivalence)."""
import re
import shutil
import subprocess
import xml.etree.ElementTree as ET
from pathlib import Path
from types import SimpleNamespace

import numpy as np
import pytest
from click.testing import CliRunner

from slpy.cli import main
from slpy.trees.model import Leaf, Split, Tree
from slpy.trees.svg import tree_svg

ROOT = Path(__file__).resolve().parents[2]
SVG = "{http://www.w3.org/2000/svg}"
CHROMIUM = shutil.which("chromium") or shutil.which("chromium-browser")
needs_chromium = pytest.mark.skipif(
    CHROMIUM is None, reason="chromium is not installed (apt-get install -y chromium)")
LEVELS = ["clerk", "farmer", "nurse", "pilot"]


def occupation_tree():
    """occupation in {nurse, pilot} or missing -> left, then x <= 3.5 or missing."""
    inner = Split(1, "x", 3.5, Leaf(np.array([4.0, 6.0])), Leaf(np.array([7.0, 1.0])),
                  missing="left")
    return Tree(Split(0, "occupation", np.nan, Leaf(np.array([2.0, 30.0])), inner,
                      levels=("nurse", "pilot"), missing="left"),
                ["occupation", "x"], ["no", "yes"], feature_levels=[LEVELS, None])


def texts(svg: str) -> list[str]:
    return [t.text for t in ET.fromstring(svg).iter(SVG + "text")]


# -- the notebook's SVG ----------------------------------------------------------------------

def test_svg_labels_a_categorical_split_as_the_text_and_dot_do():
    tree = occupation_tree()
    labels = texts(tree._repr_svg_())
    splits = [n for n in tree.nodes() if isinstance(n, Split)]
    assert "occupation in {nurse, pilot} or missing" in labels
    assert "x <= 3.5 or missing" in labels
    for n in splits:                       # the same words as the text and DOT drawings
        assert n.test_text() in labels
        assert f'label="{n.test_text()}"' in tree.to_dot()
        assert f"if {n.test_text()}:" in str(tree)
    assert not any("nan" in t for t in labels)


def test_svg_text_is_at_least_11_px():
    for font in (12, 13):
        svg = tree_svg(occupation_tree(), "T1", font=font, fit=False)
        sizes = [float(t.get("font-size", font)) for t in ET.fromstring(svg).iter(SVG + "text")]
        assert min(sizes) >= 11, sizes


def test_the_notebook_svg_shrinks_to_its_cell_and_the_report_svg_does_not():
    tree = occupation_tree()
    assert "max-width: 100%" in tree._repr_svg_()              # Jupyter's drawing
    assert "max-width" not in tree_svg(tree, fit=False)       # report.html's


def wide_tree(depth=6):
    def grow(d):
        if d == 0:
            return Leaf(np.array([3.0, 4.0]))
        return Split(0, "a_rather_long_feature_name", 1.5, grow(d - 1), grow(d - 1))
    return Tree(grow(depth), ["a_rather_long_feature_name"], ["absent", "present"])


def render(page: Path, tmp: Path, width: int, probe: str) -> str:
    """What `probe` (a JavaScript expression) gives once Chromium has laid out `page`
    at `width` px wide."""
    script = (f"<script>window.addEventListener('load', function () {{ var p = "
              f"document.createElement('pre'); p.id = 'probe'; p.textContent = "
              f"JSON.stringify({probe}); document.body.appendChild(p); }});</script>")
    f = tmp / "probed.html"
    f.write_text(page.read_text().replace("</body>", script + "</body>", 1))
    r = subprocess.run([CHROMIUM, "--headless", "--no-sandbox", "--disable-gpu",
                        "--no-first-run", "--disable-background-networking",
                        "--disable-component-update", "--disable-sync",
                        f"--user-data-dir={tmp / 'profile'}", f"--window-size={width},900",
                        "--dump-dom", f.resolve().as_uri()],
                       capture_output=True, text=True, timeout=180, check=True)
    return re.search(r'<pre id="probe">(.*?)</pre>', r.stdout, re.S).group(1)


@needs_chromium
def test_a_wide_tree_is_not_clipped_in_a_notebook_cell(tmp_path):
    """A notebook puts the SVG in an output area that clips what overflows it: the
    drawing of a 64-leaf tree (thousands of px wide) shrinks to a 400 px cell, keeping
    its proportions; drawn for the report (fit=False) it would overflow the cell."""
    import json
    tree = wide_tree()
    svg = tree._repr_svg_()
    w, h = (float(re.search(f'{k}="([0-9.]+)"', svg).group(1)) for k in ("width", "height"))
    assert w > 2000
    for drawing, fits in ((svg, True), (tree_svg(tree, fit=False), False)):
        page = tmp_path / "cell.html"
        page.write_text(f"<!DOCTYPE html><html><body><div style='width: 400px; "
                        f"overflow: hidden'>{drawing}</div></body></html>")
        got = json.loads(render(page, tmp_path, 800, "(function () { var r = "
                                "document.querySelector('svg').getBoundingClientRect(); "
                                "return [r.width, r.height]; })()"))
        if fits:
            assert got[0] <= 400 and got[1] == pytest.approx(400 * h / w, rel=0.02), got
        else:
            assert got[0] == pytest.approx(w, abs=1), got


# -- report.html inlines the trees, wraps the tables -------------------------------------------

def test_report_html_inlines_svg_trees_and_boxes_tables(tmp_path):
    pytest.importorskip("markdown_it")
    from slpy.report.html import render_html
    (tmp_path / "trees").mkdir()
    (tmp_path / "trees" / "t.svg").write_text(tree_svg(occupation_tree(), fit=False) + "\n")
    (tmp_path / "f.png").write_bytes(b"\x89PNG\r\n\x1a\n")
    md = ("# r\n\n| a | b |\n|---|---|\n| 1 | 2 |\n\n![T1 & co](trees/t.svg) ![a figure](f.png)"
          "\n\n[DOT](trees/t.svg)\n")
    page = render_html(md, tmp_path)
    assert page.count('<div class="wide">\n<table>') == 1 and "</table>\n</div>" in page
    span = re.search(r'<span class="tree" role="img" aria-label="T1 &amp; co"><svg .*?</svg>'
                     r'</span>', page, re.S)
    assert span and "occupation in {nurse, pilot} or missing" in span.group(0)
    assert '<img src="data:image/png;base64,' in page            # other images as before
    assert 'href="data:image/svg+xml;base64,' in page             # a link stays a link


# -- the report of a run with a categorical feature and missing values -----------------------

@pytest.fixture(scope="module")
def categorical_report(tmp_path_factory):
    d = tmp_path_factory.mktemp("cat")
    rng = np.random.default_rng(0)
    n = 240
    occ = rng.choice(LEVELS, n)
    x = rng.uniform(0, 10, n)
    p = np.where(np.isin(occ, ["nurse", "pilot"]), 0.9, 0.1)
    y = np.where(rng.random(n) < p, "yes", "no")
    rows = ["occupation,x,class"] + [f"{'' if i % 9 == 0 else o},{v:.3f},{c}"
                                     for i, (o, v, c) in enumerate(zip(occ, x, y))]
    (d / "jobs.csv").write_text("\n".join(rows) + "\n")
    r = CliRunner().invoke(main, ["run", str(ROOT / "priors" / "growtree.slp"), "--data",
                                  str(d / "jobs.csv"), "--categorical", "occupation",
                                  "--missing", "split", "-n", "300", "--temper", "1",
                                  "--seed", "3", "--out", str(d / "run"), "-q"])
    assert r.exit_code == 0, r.output
    r = CliRunner().invoke(main, ["report", str(d / "run"), "--out", str(d / "rep")])
    assert r.exit_code == 0, r.output
    return d


def test_report_draws_categorical_splits_as_their_text(categorical_report):
    rep = categorical_report / "rep"
    md = (rep / "report.md").read_text()
    drawn = sorted((rep / "trees").glob("*.svg"))
    assert any(p.name.startswith("top_") for p in drawn)
    for p in drawn:
        assert f"]({p.relative_to(rep)})" in md
        labels = texts(p.read_text())
        assert not any("nan" in t for t in labels), p
    every = [t for p in drawn for t in texts(p.read_text())]
    assert any(t.startswith("occupation in {") for t in every)
    # the most visited tree's tests, as its text export writes them, label its drawing
    top = Tree.from_json((categorical_report / "run" / "trees" / "top.json").read_text())
    tests = {n.test_text() for n in top.nodes() if isinstance(n, Split)}
    assert tests and tests <= set(every)


def test_partial_dependence_figure_has_a_point_per_level(monkeypatch, categorical_report):
    """The report's figure puts a categorical feature's levels, by name, on the axis."""
    from slpy.report import interpret
    from slpy.report.predict import load_run_data
    from slpy.report.rundir import load_run
    run = load_run(categorical_report / "run")
    data = load_run_data(run)
    post = interpret.run_posterior(run, data)
    got = {}
    monkeypatch.setattr(interpret, "_save", lambda fig, path: got.setdefault("fig", fig))
    interpret._pd_figure([run], [data], [post], [0, 1], categorical_report / "pd.png")
    from matplotlib.collections import PolyCollection
    ax_cat, ax_num = got["fig"].axes[:2]
    assert [t.get_text() for t in ax_cat.get_xticklabels()] == LEVELS
    bands = [[c for c in ax.collections if isinstance(c, PolyCollection)]
             for ax in (ax_cat, ax_num)]
    assert not bands[0] and ax_cat.lines            # a point and error bar per level
    assert bands[1]                                 # a step curve in its band


# -- the network report: links in either direction --------------------------------------------

def test_link_rows_add_the_two_directions():
    from slpy.bn.report import link_rows
    m = np.array([[0, 0.5, 0.01], [0.4, 0, 0.0], [0.02, 0.3, 0]])
    rows = link_rows(m, ["a", "b", "c"])
    assert [(a, b) for a, b, *_ in rows] == [("a", "b"), ("b", "c")]   # a - c: 0.03
    assert rows[0][2:] == pytest.approx((0.9, 0.5, 0.4))
    assert rows[1][2:] == pytest.approx((0.3, 0.0, 0.3))


def test_network_report_says_what_markov_equivalence_does(tmp_path):
    pytest.importorskip("matplotlib")
    from slpy.bn.report import report_sections
    run = SimpleNamespace(label="seed 1", models=[], model_probs=lambda: {},
                          summary={"variables": ["smoke", "lung", "xray"],
                                   "edge_marginals": {"smoke->lung": 0.45, "lung->smoke": 0.5,
                                                      "lung->xray": 0.7}})
    md = "\n".join(report_sections([run], tmp_path, 3))
    assert "Markov-equivalent" in md and "### Links in either direction" in md
    assert "| smoke - lung | 0.950 | 0.450 | 0.500 |" in md
    assert "| lung - xray | 0.700 | 0.700 | 0.000 |" in md
