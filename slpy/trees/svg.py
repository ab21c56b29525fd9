"""Trees drawn as SVG text (no plotting library): what a notebook shows for a Tree
(``Tree._repr_svg_``) and what report.html inlines.

Splits are square boxes with their test as the text and DOT drawings write it
("feature <= t", "colour in {a, b}", "... or missing"; "yes" to the left), leaves
rounded boxes with their class counts (tinted by the majority class) or their mean and
size. The layout (:func:`layout`) puts the leaves on slots 0, 1, 2, ... left to right
and each split over the middle of its children; the slot width is the smallest that
keeps the boxes of a level apart (report/figures.py draws the same layout with
matplotlib).
"""
from __future__ import annotations

from html import escape

import numpy as np

__all__ = ["layout", "tree_svg"]

# pale tints of the report's colours (slpy.report.figures.COLORS), by class
TINTS = ["#d2e3f3", "#f6d0d0", "#d5ecd5", "#e4daf0", "#ffe2c6", "#e6d7d3", "#f8dcef",
         "#e3e3e3", "#eeeec8", "#cdeef2"]


def _is_split(n) -> bool:
    # a Split has children, a Leaf none (.model is not imported: Tree._repr_svg_ imports
    # this module)
    return hasattr(n, "left")


def layout(tree):
    """(nodes, x, depth, parent index) in pre-order; leaves at x = 0, 1, 2, ... left
    to right, a split centred over its children."""
    nodes, parent, depth = [], [], []
    stack = [(tree.root, -1, 0)]
    while stack:
        n, p, d = stack.pop()
        nodes.append(n)
        parent.append(p)
        depth.append(d)
        if _is_split(n):
            k = len(nodes) - 1
            stack.append((n.right, k, d + 1))
            stack.append((n.left, k, d + 1))
    x = np.zeros(len(nodes))
    kids = [[] for _ in nodes]
    for k, p in enumerate(parent):
        if p >= 0:
            kids[p].append(k)
    leaf_x = 0
    for k in range(len(nodes)):            # pre-order visits leaves left to right
        if not kids[k]:
            x[k] = leaf_x
            leaf_x += 1
    for k in reversed(range(len(nodes))):  # children come after their parent
        if kids[k]:
            x[k] = x[kids[k]].mean()
    return nodes, x, depth, parent


def _lines(tree, n) -> list[str]:
    if _is_split(n):
        return [n.test_text()]
    c = n.counts
    if tree.task == "regression":
        return [f"mean {c[1] / c[0]:.4g}", f"n = {int(c[0])}"] if c[0] else ["empty"]
    return [f"{name}: {int(k)}" for name, k in zip(tree.classes, c)]


def tree_svg(tree, title: str | None = None, font: int = 12, fit: bool = True) -> str:
    """The tree as an SVG document (a string), its text `font` px (the "yes"/"no" of
    the edges one less). fit: the drawing shrinks to the width of the page or
    notebook cell it is put in rather than being clipped by it (report.html puts it
    at its full size in a box that scrolls instead)."""
    nodes, x, depth, parent = layout(tree)
    pad, gap, line = 6, 14, round(font * 1.3)
    labels = [_lines(tree, n) for n in nodes]
    w = [max(len(s) for s in lab) * 0.62 * font + 2 * pad for lab in labels]
    h = [len(lab) * line + 2 * pad for lab in labels]
    unit = max(w) / 2 + gap
    by_level: dict = {}
    for k in np.argsort(x, kind="stable"):
        by_level.setdefault(depth[k], []).append(k)
    for level in by_level.values():
        for a, b in zip(level, level[1:]):
            unit = max(unit, ((w[a] + w[b]) / 2 + gap) / (x[b] - x[a]))
    row = max(h) + 40
    top = 8 + (line + 8 if title else 0)
    width = unit * (int(x.max()) + 1)
    height = top + row * max(depth) + max(h) + 8
    cx = [(xi + 0.5) * unit for xi in x]
    cy = [top + d * row + max(h) / 2 for d in depth]
    style = ' style="max-width: 100%; height: auto"' if fit else ""
    out = [f'<svg xmlns="http://www.w3.org/2000/svg" width="{width:.0f}" '
           f'height="{height:.0f}" viewBox="0 0 {width:.0f} {height:.0f}"{style} '
           f'font-family="DejaVu Sans, Helvetica, Arial, sans-serif" font-size="{font}">']
    if title:
        out.append(f'<text x="{width / 2:.1f}" y="{8 + line - 3}" text-anchor="middle" '
                   f'font-weight="bold">{escape(title)}</text>')
    for k, p in enumerate(parent):          # edges under the boxes
        if p < 0:
            continue
        out.append(f'<line x1="{cx[p]:.1f}" y1="{cy[p] + h[p] / 2:.1f}" x2="{cx[k]:.1f}" '
                   f'y2="{cy[k] - h[k] / 2:.1f}" stroke="#555" stroke-width="1"/>')
        yes = nodes[p].left is nodes[k]
        mx, my = (cx[p] + cx[k]) / 2, (cy[p] + h[p] / 2 + cy[k] - h[k] / 2) / 2
        out.append(f'<text x="{mx:.1f}" y="{my + font / 3:.1f}" text-anchor="middle" '
                   f'font-size="{font - 1}" fill="#555" stroke="white" stroke-width="3" '
                   f'paint-order="stroke">{"yes" if yes else "no"}</text>')
    for k, n in enumerate(nodes):
        split = _is_split(n)
        fill, stroke, rx = ("#dbe8f5", "#1f4e79", 0) if split else (_tint(tree, n), "#555", 6)
        out.append(f'<rect x="{cx[k] - w[k] / 2:.1f}" y="{cy[k] - h[k] / 2:.1f}" '
                   f'width="{w[k]:.1f}" height="{h[k]:.1f}" rx="{rx}" fill="{fill}" '
                   f'stroke="{stroke}"/>')
        y0 = cy[k] - h[k] / 2 + pad + line - 4
        for i, s in enumerate(labels[k]):
            out.append(f'<text x="{cx[k]:.1f}" y="{y0 + i * line:.1f}" '
                       f'text-anchor="middle">{escape(s)}</text>')
    out.append("</svg>")
    return "\n".join(out)


def _tint(tree, leaf) -> str:
    if tree.task != "classification" or not np.asarray(leaf.counts).sum():
        return "#f3f3f3"
    return TINTS[int(np.argmax(leaf.counts)) % len(TINTS)]
