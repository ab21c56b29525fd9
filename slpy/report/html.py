"""report.html: the report page as one self-contained HTML file, beside report.md.

report.md is rendered with markdown-it-py (CommonMark and tables); every image it
shows (figures) is inlined as a base64 data URI and every file it links to in the
report directory (the trees' DOT, text and PNG) as a data URI too, so the file can be
mailed or opened anywhere. Same report, same bytes.

The page fits 1280 px (tests/report/test_html.py measures it in Chromium): a table
wider than the page scrolls in its own box, and so does a drawing of a tree, which
report.md shows as an SVG file and this page inlines as SVG markup at its full size,
its labels as large as drawn (slpy.trees.svg) rather than shrunk to the page.
"""
from __future__ import annotations

import base64
import html
import mimetypes
from pathlib import Path

from . import ReportError

__all__ = ["write_html", "render_html", "available"]

CSS = """
body { font-family: system-ui, -apple-system, "Segoe UI", Helvetica, Arial, sans-serif;
       max-width: 1100px; margin: 2em auto; padding: 0 1em; color: #222; line-height: 1.45; }
h1, h2, h3 { color: #1f4e79; }
h2 { border-bottom: 1px solid #c8d6e5; padding-bottom: 0.2em; margin-top: 1.8em; }
.wide { overflow-x: auto; max-width: 100%; }
table { border-collapse: collapse; margin: 0.8em 0; font-size: 0.9em; }
th, td { border: 1px solid #c8d6e5; padding: 0.3em 0.6em; text-align: left; }
th { background: #dbe8f5; }
tr:nth-child(even) td { background: #f5f8fb; }
img { max-width: 100%; height: auto; }
.tree { display: inline-block; vertical-align: top; max-width: 100%; overflow-x: auto;
        margin: 0.4em 1.2em 0.4em 0; }
.tree svg { display: block; }
code { background: #f3f3f3; padding: 0 0.2em; font-size: 0.9em; overflow-wrap: anywhere; }
pre { background: #f6f8fa; border: 1px solid #e1e4e8; padding: 0.8em; overflow-x: auto; }
pre code { background: none; padding: 0; }
"""


def available() -> bool:
    """Whether markdown-it-py (the extra slpy[plots]) is there to write report.html."""
    import importlib.util
    return importlib.util.find_spec("markdown_it") is not None


def _data_uri(path: Path) -> str:
    kind = mimetypes.guess_type(path.name)[0] or "text/plain"
    if kind.startswith("text/") or path.suffix in (".dot", ".txt"):
        kind = "text/plain;charset=utf-8"
    return f"data:{kind};base64," + base64.b64encode(path.read_bytes()).decode("ascii")


def _inline(tokens, folder: Path) -> None:
    """Point the images and local links of the parsed page at data URIs; put an SVG
    image's markup in the page."""
    for tok in tokens:
        if tok.children:
            _inline(tok.children, folder)
        attr = "src" if tok.type == "image" else "href" if tok.type == "link_open" else None
        if attr is None:
            continue
        target = tok.attrGet(attr)
        if not target or ":" in target or target.startswith("#"):
            continue                                  # a URL, or a place on the page
        f = folder / target
        if not f.is_file():
            continue
        svg = f.read_text() if tok.type == "image" and f.suffix == ".svg" else ""
        if "<svg" in svg:
            # inline, so that it keeps its size (and its text stays text) in a box
            # that scrolls when it is wider than the page
            svg = svg[svg.index("<svg"):].rstrip()
            tok.type, tok.tag, tok.children = "html_inline", "", None
            tok.content = (f'<span class="tree" role="img" aria-label='
                           f'"{html.escape(tok.content)}">{svg}</span>')
        else:
            tok.attrSet(attr, _data_uri(f))


def _wide_tables(md) -> None:
    """Each table in a box that scrolls sideways when it is wider than the page."""
    def table_open(self, tokens, idx, options, env):
        return '<div class="wide">\n' + self.renderToken(tokens, idx, options, env)

    def table_close(self, tokens, idx, options, env):
        return self.renderToken(tokens, idx, options, env) + "</div>\n"
    md.add_render_rule("table_open", table_open)
    md.add_render_rule("table_close", table_close)


def render_html(markdown: str, folder, title: str = "slpy report") -> str:
    """The page of `markdown`, whose relative paths are in `folder`, as HTML."""
    try:
        from markdown_it import MarkdownIt
    except ImportError:
        raise ReportError("report.html needs markdown-it-py: pip install 'slpy[plots]'"
                          ) from None
    md = MarkdownIt("commonmark", {"html": False}).enable("table")
    _wide_tables(md)
    tokens = md.parse(markdown)
    _inline(tokens, Path(folder))
    body = md.renderer.render(tokens, md.options, {})
    return (f"<!DOCTYPE html>\n<html lang=\"en\">\n<head>\n<meta charset=\"utf-8\">\n"
            f"<meta name=\"viewport\" content=\"width=device-width, initial-scale=1\">\n"
            f"<title>{html.escape(title)}</title>\n<style>{CSS}</style>\n</head>\n"
            f"<body>\n{body}</body>\n</html>\n")


def write_html(out) -> Path:
    """Write out/report.html from out/report.md; returns its path."""
    out = Path(out)
    page = out / "report.html"
    try:
        page.write_text(render_html((out / "report.md").read_text(), out))
    except OSError as e:
        raise ReportError(f"{page}: cannot write the report ({e.strerror})") from None
    return page
