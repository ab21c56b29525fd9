"""Result pages: a report's prose comes from a template file; a page that has a
hand-written part keeps it when the generated part is written again.

A template, benchmarks/templates/NAME.md, is a series of named blocks::

    (text before the first block: notes for whoever edits the file, not rendered)
    %% block-name
    Markdown with fields in str.format syntax: {x:.2f}, {row[key]}, {share:.1%}.

Fields are filled in by `Prose(NAME)(block, **fields)`; literal braces are doubled.
A paragraph may be wrapped over several lines in the file: a line is joined to the line
before it with one space, unless one of them is blank, the line starts a table row,
heading, list item, image, comment, fence or an indented (code) line, or the line
before is a table row, heading, image, comment or code. Lines inside a ``` fence, and
every line of a block marked `%% block-name keep-lines`, are kept as they are. Trailing
blank lines of a block are dropped.
"""
from __future__ import annotations

from pathlib import Path

TEMPLATES = Path(__file__).resolve().parents[1] / "templates"

_OWN_LINE = ("|", "#", "```", "![", "<!--")      # elements that are never joined


def _opens(line: str) -> bool:
    return line.startswith("    ") or line.lstrip().startswith(_OWN_LINE + ("- ",))


def _unwrap(lines: list[str], where: str) -> list[str]:
    out: list[str] = []
    fence = False
    for line in lines:
        line = line.rstrip()
        if not fence and line.startswith("|") and not line.endswith("|"):
            # a table row ends with "|": this is prose wrapped before a "|"
            raise ValueError(f"{where}: a line starts with '|' but is not a table row")
        if line.lstrip().startswith("```"):
            fence = not fence
            out.append(line)
            continue
        prev = out[-1] if out else ""
        if (not fence and line and prev.strip() and not _opens(line)
                and not prev.startswith("    ")
                and not prev.lstrip().startswith(_OWN_LINE)):
            out[-1] = prev + " " + line.strip()
        else:
            out.append(line)
    return out


class Prose:
    """The blocks of benchmarks/templates/NAME.md (or of the template file `name`)."""

    def __init__(self, name: str | Path):
        self.path = name if isinstance(name, Path) else TEMPLATES / f"{name}.md"
        self.blocks: dict[str, str] = {}
        current, keep = None, False
        lines: list[str] = []
        for line in self.path.read_text().splitlines() + ["%% "]:
            if line.startswith("%% "):
                if current is not None:
                    where = f"{self.path.name}, block {current!r}"
                    if not keep:
                        lines = _unwrap(lines, where)
                    self.blocks[current] = "\n".join(lines).rstrip("\n")
                current, *flags = line[3:].split() or [None]
                keep, lines = "keep-lines" in flags, []
            else:
                lines.append(line)

    def __call__(self, block: str, /, **fields) -> str:
        try:
            return self.blocks[block].format_map(fields)
        except KeyError as e:
            raise KeyError(f"{self.path.name}, block {block!r}: no {e}") from None


DISCUSSION = "<!-- discussion -->"


def keep_discussion(path: Path, text: str, marker: str = DISCUSSION) -> str:
    """`text` followed by the hand-written part of the page at `path` (from `marker` to
    its end), if it has one."""
    if path.exists():
        old = path.read_text()
        if marker in old:
            return text + "\n" + old[old.index(marker):]
    return text


def write_between(path: Path, body: str, begin: str, end: str, title: str) -> None:
    """Replace the generated part of `path` (between the lines `begin` and `end`),
    keeping the hand-written text around it; a new page starts with `title`."""
    path.parent.mkdir(parents=True, exist_ok=True)
    text = path.read_text() if path.exists() else ""
    block = f"{begin}\n\n{body}\n\n{end}"
    if begin in text and end in text:
        head, rest = text.split(begin, 1)
        text = head + block + rest.split(end, 1)[1]
    else:
        text = (text.rstrip("\n") + "\n\n" if text else title + "\n\n") + block + "\n"
    path.write_text(text)


def pyplot(rc: dict | None = None):
    """matplotlib.pyplot drawing to files (Agg), with the rcParams `rc`."""
    import matplotlib
    matplotlib.use("Agg")
    import matplotlib.pyplot as plt
    if rc:
        plt.rcParams.update(rc)
    return plt


class Page:
    """A Markdown page put together from a template's blocks and lines of its own:
    items joined by newlines, so a paragraph is an item followed by a blank one."""

    def __init__(self, prose: Prose):
        self.prose = prose
        self.items: list[str] = []

    def __call__(self, block: str, /, **fields) -> str:
        """A block, rendered, without adding it."""
        return self.prose(block, **fields)

    def add(self, block: str, /, **fields) -> None:
        self.items.append(self.prose(block, **fields))

    def para(self, block: str, /, **fields) -> None:
        """A block and a blank line after it."""
        self.add(block, **fields)
        self.items.append("")

    def raw(self, text: str) -> None:
        self.items.append(text)

    def text(self) -> str:
        return "\n".join(self.items).rstrip() + "\n"
