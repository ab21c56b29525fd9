"""Rich display in notebooks: trees as SVG, samples, proofs and proof trees as HTML
(slpy.logic.display, slpy.trees.svg)."""
import re
import xml.etree.ElementTree as ET
from html.parser import HTMLParser

import numpy as np

from slpy import Program
from slpy.data import load_csv
from slpy.trees.model import Leaf, Split, Tree

from .conftest import EXAMPLES

SVG = "{http://www.w3.org/2000/svg}"


class Tags(HTMLParser):
    """Counts start tags and checks that every non-void tag is closed in order."""
    VOID = {"br", "img", "hr", "meta", "input"}

    def __init__(self, text):
        super().__init__()
        self.stack, self.count = [], {}
        self.feed(text)
        assert not self.stack, f"unclosed: {self.stack}"

    def handle_starttag(self, tag, attrs):
        self.count[tag] = self.count.get(tag, 0) + 1
        if tag not in self.VOID:
            self.stack.append(tag)

    def handle_endtag(self, tag):
        assert self.stack and self.stack.pop() == tag, tag


def bcw_sample(seed):
    p = Program()
    p.consult("priors/growtree.slp")
    train = load_csv(EXAMPLES / "bcw.csv")
    p.attach_data(train)
    return p, train, p.sample("cart(T)", rng=np.random.default_rng(seed))


def test_tree_svg_draws_every_node(monkeypatch):
    monkeypatch.chdir(EXAMPLES.parents[1])
    p, train, s = bcw_sample(5)
    tree = Tree.from_term(s.bindings["T"], p.rowsets, train)
    root = ET.fromstring(tree._repr_svg_())           # well-formed XML
    assert root.tag == SVG + "svg"
    nodes = list(tree.nodes())
    splits = [n for n in nodes if isinstance(n, Split)]
    assert len(root.findall(SVG + "rect")) == len(nodes)
    assert len(root.findall(SVG + "line")) == len(nodes) - 1
    texts = [t.text for t in root.findall(SVG + "text")]
    assert texts.count("yes") == texts.count("no") == len(splits)
    for n in splits:
        thr = int(n.threshold) if float(n.threshold).is_integer() else n.threshold
        assert f"{n.name} <= {thr}" in texts
    for leaf in (n for n in nodes if isinstance(n, Leaf)):
        assert f"benign: {int(leaf.counts[0])}" in texts
    # the boxes of a level do not overlap
    rects = [(float(r.get("x")), float(r.get("y")), float(r.get("width")))
             for r in root.findall(SVG + "rect")]
    for y in {r[1] for r in rects}:
        row = sorted((x, x + w) for x, yy, w in rects if yy == y)
        assert all(a[1] <= b[0] for a, b in zip(row, row[1:]))


def test_tree_svg_escapes_and_draws_regression_leaves():
    tree = Tree(Split(0, "a<b & c", 2.5, Leaf(np.array([3.0, 6.0, 1.0])),
                      Leaf(np.array([2.0, 10.0, 0.5]))), ["a<b & c"], None, "regression")
    root = ET.fromstring(tree._repr_svg_())
    texts = [t.text for t in root.findall(SVG + "text")]
    assert "a<b & c <= 2.5" in texts and "mean 2" in texts and "n = 2" in texts


def test_sample_html_shows_bindings_and_the_proof_tree(monkeypatch):
    monkeypatch.chdir(EXAMPLES.parents[1])
    _, _, s = bcw_sample(3)
    html = s._repr_html_()
    tags = Tags(html)
    assert tags.count["li"] == s.tree.size()              # one item per choice point
    assert f"proof tree: {s.tree.size()} choice points" in html
    assert f"log p = {s.log_prob:.4g}" in html
    assert "node(cell_shape_uniformity,1,leaf(rows(1)),leaf(rows(2)))" in html
    assert "clause 1 <span style='color:#777'>(growtree.slp:" in html
    assert "&rarr; <b>split(cell_shape_uniformity,1,rows(1),rows(2))</b>" in html
    assert s.tree._repr_html_() in html                   # the proof tree on its own


def test_proof_html_and_escaping():
    p = Program()
    p.consult_text("0.25 :: a('<b>&'). 0.75 :: a(x). b(X, Y) :- a(X), a(Y).")
    proofs = p.proofs("b(X, Y)")
    html = proofs[0]._repr_html_()
    Tags(html)
    assert "proof: p = 0.0625" in html
    assert "&#x27;&lt;b&gt;&amp;&#x27;" in html and "<b>&" not in html
    assert len(re.findall("<li>", html)) == 2
    assert p.sample("b(X, Y)", rng=np.random.default_rng(0))._repr_html_().count("<li>") == 2
