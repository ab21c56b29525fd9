"""The report templates of benchmarks/ (benchmarks/lib/pages.py): how a template's
lines become Markdown, and that the reports and their templates agree on block names."""
import ast
from pathlib import Path

import pytest

from benchmarks.lib.pages import TEMPLATES, Page, Prose

ROOT = Path(__file__).resolve().parents[2]
# template -> the modules that render it
USERS = {"paper000": ["paper000_report.py"],
         "paper002": ["paper002_report.py", "paper002_figures.py"],
         "paper004": ["paper004.py"],
         "exact_vs_mcmc": ["exact_vs_mcmc_report.py"],
         "results_page": ["results_page.py"]}

SAMPLE = """Notes for the editor: not rendered.
%% prose
A paragraph wrapped
over three lines, {x:.1%}
of it.

| a | table {n} |
|---|---|
- a list item
  wrapped
  - a nested item

    an indented code line
    and another

```
a fence   keeps
its lines
```
![a figure](f.png)
**Bold** text after it.


%% kept keep-lines
one
two {n}
"""


def prose(tmp_path, text):
    path = tmp_path / "t.md"
    path.write_text(text)
    return Prose(path)


def test_paragraphs_are_joined_and_structure_kept(tmp_path):
    p = prose(tmp_path, SAMPLE)
    assert set(p.blocks) == {"prose", "kept"}
    assert p("prose", x=0.25, n=2) == (
        "A paragraph wrapped over three lines, 25.0% of it.\n\n"
        "| a | table 2 |\n|---|---|\n"
        "- a list item wrapped\n  - a nested item\n\n"
        "    an indented code line\n    and another\n\n"
        "```\na fence   keeps\nits lines\n```\n"
        "![a figure](f.png)\n**Bold** text after it.")
    assert p("kept", n=3) == "one\ntwo 3"


def test_a_prose_line_wrapped_before_a_bar_is_an_error(tmp_path):
    with pytest.raises(ValueError, match="block 'b'"):
        prose(tmp_path, "%% b\nthe sum over trees\n|p - q| of it\n")


def test_a_missing_field_names_the_block(tmp_path):
    p = prose(tmp_path, "%% b\n{x} and {y}\n")
    with pytest.raises(KeyError, match="block 'b'"):
        p("b", x=1)


def test_page_items_join_with_newlines():
    page = Page(Prose("paper000"))
    page.para("title")
    page.add("quick")
    page.raw("tail")
    assert page.text() == ("# Paper 000: Angelopoulos & Cussens, IJCAI 2005 (section 5)\n\n"
                           "**Quick mode (smoke test): tiny chains; the numbers below mean "
                           "nothing.**\ntail\n")


def block_names(source: str) -> set:
    """Block names a module asks for: the string arguments (or both branches of a
    conditional) of page(...), page.add(...), page.para(...) and prose(...) calls."""
    names = set()
    for node in ast.walk(ast.parse(source)):
        if not isinstance(node, ast.Call) or not node.args:
            continue
        f = node.func
        if not ((isinstance(f, ast.Name) and f.id in ("page", "prose"))
                or (isinstance(f, ast.Attribute) and f.attr in ("add", "para")
                    and isinstance(f.value, ast.Name) and f.value.id == "page")
                or (isinstance(f, ast.Call) and isinstance(f.func, ast.Name)
                    and f.func.id == "Prose")):
            continue
        arg = node.args[0]
        for a in ([arg.body, arg.orelse] if isinstance(arg, ast.IfExp) else [arg]):
            if isinstance(a, ast.Constant) and isinstance(a.value, str):
                names.add(a.value)
    return names


@pytest.mark.parametrize("name", sorted(USERS))
def test_reports_and_templates_agree(name):
    blocks = set(Prose(name).blocks)
    sources = "\n".join((ROOT / "benchmarks" / m).read_text() for m in USERS[name])
    asked = set().union(*(block_names((ROOT / "benchmarks" / m).read_text())
                          for m in USERS[name]))
    assert asked, name
    assert asked <= blocks, f"blocks missing from {name}.md: {sorted(asked - blocks)}"
    unused = [b for b in blocks if f'"{b}"' not in sources]
    assert not unused, f"blocks of {name}.md no report uses: {unused}"


def test_every_template_is_used():
    assert {p.stem for p in TEMPLATES.glob("*.md")} == set(USERS)
