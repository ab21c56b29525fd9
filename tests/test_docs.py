"""Every code block marked runnable in README.md and docs/*.md runs and prints what it
shows; the builtin lists of docs/language.md match the registries.

The convention (written for authors at the top of docs/language.md):

- A fenced block whose info string has the word ``runnable`` is run, one pytest item per
  block, named ``FILE:LINE`` (the line of its opening fence). Other blocks are prose.
- ```` ```console runnable ````: each line starting ``$ `` is a bash command (a line
  ending in ``\\`` continues it); the lines up to the next ``$ `` are its expected
  standard output. Standard error is not compared (write ``2>&1`` to show it) and the
  command must exit 0 (write ``; echo "exit $?"`` to show a failing status).
  ``$ slpy repl ARGS`` followed by ``?- Query.`` lines is a top-level session: each query
  is typed and followed by what the top level prints for it (answers and errors); an
  answer ending in `` ;`` means ``;`` was pressed there, a ``% proof tree:`` line means
  ``t`` was.
- ```` ```slp runnable ```` (or ``prolog runnable``): a program, then optionally
  ``?- Query.`` lines with their answers as above, run in a fresh top level.
  Options: ``seed=N`` (default 0), ``data=CSV`` (a data set for the data builtins),
  ``file=NAME`` (the program is saved as NAME, for the page's later blocks).
- ```` ```python runnable ````: a script; when the next block is ```` ```output ````
  it is the expected standard output. A block starting with ``>>>`` is a doctest.
- Expected output is compared line by line, trailing spaces ignored. A line that is
  just ``...`` matches any number of lines; ``...`` inside a line matches any text.
- The blocks of a page run in order in one scratch directory, as a reader following
  the page would run them (a block run alone first runs the page's earlier blocks,
  unchecked). The directory sees the repository's files (``priors/``, ``examples/``,
  ``tests/``, ...); ``slpy`` and ``python`` are this interpreter's.
"""
from __future__ import annotations

import contextlib
import difflib
import doctest
import io
import os
import re
import shlex
import subprocess
import sys
from dataclasses import dataclass
from pathlib import Path

import pytest

ROOT = Path(__file__).resolve().parents[1]
DOCS = [ROOT / "README.md", *sorted((ROOT / "docs").glob("*.md"))]
FENCE = re.compile(r"^(\s*)(`{3,}|~{3,})(.*)$")


# -- collecting blocks ------------------------------------------------------------------------

@dataclass
class Block:
    path: Path
    line: int                  # line of the opening fence (1-based)
    lang: str
    runnable: bool
    options: dict
    text: str
    output: str | None = None  # the ```output block that follows a python block
    index: int = 0             # position among the page's runnable blocks

    @property
    def id(self) -> str:
        return f"{self.path.relative_to(ROOT)}:{self.line}"


def parse_blocks(path: Path) -> list[Block]:
    """The fenced blocks of a Markdown file, in order."""
    lines = path.read_text().splitlines()
    blocks: list[Block] = []
    i = 0
    while i < len(lines):
        m = FENCE.match(lines[i])
        if not m:
            i += 1
            continue
        indent, fence, info = m.groups()
        words = info.split()
        body = []
        j = i + 1
        while j < len(lines):
            close = FENCE.match(lines[j])
            if close and close.group(2).startswith(fence) and not close.group(3).strip():
                break
            line = lines[j]
            body.append(line[len(indent):] if line.startswith(indent) else line.lstrip())
            j += 1
        options = dict(w.split("=", 1) for w in words[1:] if "=" in w)
        blocks.append(Block(path, i + 1, words[0] if words else "", "runnable" in words[1:],
                            options, "\n".join(body) + "\n"))
        i = j + 1
    # a python block's output; each runnable block's place in the page
    n = 0
    for k, b in enumerate(blocks):
        if b.lang == "python" and k + 1 < len(blocks) and blocks[k + 1].lang == "output":
            b.output = blocks[k + 1].text
        if b.runnable:
            b.index = n
            n += 1
    return blocks


def runnable_blocks() -> list[Block]:
    out = []
    for path in DOCS:
        for b in parse_blocks(path):
            if b.runnable:
                out.append(b)
    return out


# -- comparing output ----------------------------------------------------------------------------

def _line_matches(pattern: str, line: str) -> bool:
    if "..." not in pattern:
        return pattern == line
    regex = ".*".join(re.escape(part) for part in pattern.split("..."))
    return re.fullmatch(regex, line, re.S) is not None


def output_matches(expected: str, actual: str) -> bool:
    """Line by line, trailing spaces and trailing blank lines ignored; an expected line
    `...` matches any number of lines, `...` inside a line any text."""
    exp = _lines(expected)
    act = _lines(actual)
    # the `...` lines cut the expected lines into segments; as with glob's `*`, matching
    # each middle segment at its leftmost place is right
    segs = [[]]
    for line in exp:
        if line == "...":
            segs.append([])
        else:
            segs[-1].append(line)

    def at(seg, j):
        return j + len(seg) <= len(act) and all(
            _line_matches(p, a) for p, a in zip(seg, act[j:j + len(seg)]))

    if len(segs) == 1:
        return len(exp) == len(act) and at(exp, 0)
    first, *middle, last = segs
    if not at(first, 0):
        return False
    j = len(first)
    for seg in middle:
        while not at(seg, j):
            j += 1
            if j + len(seg) > len(act):
                return False
        j += len(seg)
    return len(act) - len(last) >= j and at(last, len(act) - len(last))


def _lines(text: str) -> list[str]:
    lines = [ln.rstrip() for ln in text.splitlines()]
    while lines and not lines[-1]:
        lines.pop()
    return lines


class BlockFailed(Exception):
    pass


def _check(expected: str, actual: str, what: str) -> None:
    if not output_matches(expected, actual):
        diff = "\n".join(difflib.unified_diff(_lines(expected), _lines(actual), "expected",
                                              "actual", lineterm=""))
        raise BlockFailed(f"{what}\n--- expected ---\n{expected}--- actual ---\n{actual}"
                          f"--- diff ---\n{diff}")


# -- the scratch directories ------------------------------------------------------------------

@dataclass
class Page:
    """A page's scratch directory and how many of its runnable blocks have run there."""
    work: Path
    env: dict
    done: int = 0


def _new_page(base: Path) -> Page:
    """A directory that sees the repository's top-level entries (not runs/), and a bin/
    with slpy and python."""
    work = base / "work"
    work.mkdir(parents=True)
    for entry in ROOT.iterdir():
        if entry.name.startswith(".") or entry.name in ("runs", "build", "dist"):
            continue
        (work / entry.name).symlink_to(entry)
    return Page(work, _env(base))


def _env(base: Path) -> dict:
    bindir = base / "bin"
    bindir.mkdir(exist_ok=True)
    for name, cmd in (("slpy", f'"{sys.executable}" -m slpy.cli'),
                      ("python", f'"{sys.executable}"')):
        shim = bindir / name
        shim.write_text(f'#!/bin/sh\nexec {cmd} "$@"\n')
        shim.chmod(0o755)
    env = dict(os.environ)
    env["PATH"] = str(bindir) + os.pathsep + env.get("PATH", "")
    env["PYTHONPATH"] = str(ROOT) + os.pathsep + env.get("PYTHONPATH", "")
    env["SLPY_HISTORY"] = str(base / "history")
    env["COLUMNS"] = "100"
    return env


# -- top-level sessions -------------------------------------------------------------------------

@dataclass
class Session:
    """`slpy repl` options (as parsed by the CLI) and the queries with their output."""
    args: list
    queries: list   # (query text, expected output)


def _split_session(lines: list[str]) -> list:
    """`?- Query.` lines and the lines after each, as (query, expected) pairs."""
    out = []
    for line in lines:
        if line.startswith("?- "):
            out.append([line[3:], []])
        elif out:
            out[-1][1].append(line)
        elif line.strip():
            raise ValueError(f"text before the first query: {line!r}")
    return [(q, "\n".join(e) + "\n") for q, e in out]


def _keys(expected: str) -> str:
    """The keys pressed at the answers: t where a proof tree is shown, ; after ` ;`."""
    keys = []
    for line in expected.splitlines():
        if line.startswith("% proof tree:"):
            keys.append("t")
        if line.rstrip().endswith(" ;"):
            keys.append(";")
    return "".join(keys)


def _run_session(work: Path, args: list, queries: list, program: str | None = None,
                 program_name: str = "block.slp") -> tuple[str, str]:
    """Run the queries in a top level started as `slpy repl ARGS` (in-process, as a pipe
    would drive it) and return the expected and actual transcripts."""
    from slpy.cli import main as cli_main, _attach_data, _param_pairs
    from slpy.repl import Session as TopLevel, run_stream
    cwd = os.getcwd()
    os.chdir(work)
    try:
        ctx = cli_main.commands["repl"].make_context("repl", list(args))
        opts = ctx.params
        buf = io.StringIO()
        s = TopLevel(seed=opts["seed"], pure=opts["pure"], stdout=buf, stderr=buf)
        _attach_data(s.program, opts["data"], opts["target"])
        for name, text in _param_pairs(opts["params"]):
            s.program.set_param(name, s.program.parse_query(text)[0])
        files = list(opts["files"])
        if program is not None:
            (work / program_name).write_text(program)
            files.append(program_name)
        s.load_files(files)
        expected, actual = [], []
        load = buf.getvalue()
        if load:
            actual.append(load)
        for query, shown in queries:
            buf.seek(0)
            buf.truncate()
            keys = _keys(shown)
            run_stream(s, io.StringIO(query + "\n" + (keys + "\n" if keys else "")))
            expected.append(f"?- {query}\n" + "\n".join(_lines(shown)) + "\n")
            actual.append(f"?- {query}\n" + "\n".join(_lines(buf.getvalue())) + "\n")
        return "".join(expected), "".join(actual)
    finally:
        os.chdir(cwd)


# -- the runners -------------------------------------------------------------------------------

def _console_items(text: str) -> list:
    """(command, expected output) pairs of a console block."""
    items = []
    lines = text.splitlines()
    i = 0
    while i < len(lines):
        line = lines[i]
        if not line.startswith("$ "):
            if line.strip():
                raise ValueError(f"output before the first command: {line!r}")
            i += 1
            continue
        cmd = [line[2:]]
        while cmd[-1].endswith("\\") and i + 1 < len(lines):
            i += 1
            cmd.append(lines[i])
        i += 1
        shown = []
        while i < len(lines) and not lines[i].startswith("$ "):
            shown.append(lines[i])
            i += 1
        items.append(("\n".join(cmd), shown))
    return items


def run_console(block: Block, work: Path, env: dict) -> None:
    for cmd, shown in _console_items(block.text):
        words = shlex.split(cmd) if not any(c in cmd for c in "|<>;&") else []
        if words[:2] == ["slpy", "repl"] and any(ln.startswith("?- ") for ln in shown):
            expected, actual = _run_session(work, words[2:], _split_session(shown))
            _check(expected, actual, f"$ {cmd}")
            continue
        r = subprocess.run(["bash", "-c", cmd], cwd=work, env=env, capture_output=True,
                           text=True, timeout=300)
        if r.returncode != 0:
            raise BlockFailed(f"$ {cmd}\nexit status {r.returncode}\n{r.stdout}{r.stderr}")
        _check("\n".join(shown) + "\n", r.stdout, f"$ {cmd}")


def run_slp(block: Block, work: Path, env: dict) -> None:
    lines = block.text.splitlines()
    first = next((k for k, ln in enumerate(lines) if ln.startswith("?- ")), len(lines))
    program = "\n".join(lines[:first]) + "\n"
    args = ["--seed", block.options.get("seed", "0")]
    if "data" in block.options:
        args += ["--data", block.options["data"]]
    name = block.options.get("file", "block.slp")
    expected, actual = _run_session(work, args, _split_session(lines[first:]), program, name)
    _check(expected, actual, f"{name} and its queries")


def run_python(block: Block, work: Path, env: dict) -> None:
    cwd = os.getcwd()
    os.chdir(work)
    try:
        if block.text.lstrip().startswith(">>>"):
            test = doctest.DocTestParser().get_doctest(block.text, {}, block.id,
                                                       str(block.path), block.line)
            out = io.StringIO()
            runner = doctest.DocTestRunner(optionflags=doctest.ELLIPSIS)
            runner.run(test, out=out.write)
            if runner.failures:
                raise BlockFailed(out.getvalue())
            return
        out = io.StringIO()
        code = compile(block.text, block.id, "exec")
        with contextlib.redirect_stdout(out):
            exec(code, {"__name__": "__main__"})
    finally:
        os.chdir(cwd)
    if block.output is not None:
        _check(block.output, out.getvalue(), "the script's output")


RUNNERS = {"console": run_console, "slp": run_slp, "prolog": run_slp, "python": run_python}
BLOCKS = runnable_blocks()
PAGES: dict = {}


# Pages whose blocks run samplers for seconds each: tested with -m slow (a page's
# blocks run in order, so a page is slow or not as a whole).
SLOW_PAGES = {"cli.md", "priors.md", "mcmc.md", "python.md", "bn.md", "cluster.md"}


@pytest.mark.parametrize("block", [
    pytest.param(b, id=b.id, marks=[pytest.mark.slow] if b.path.name in SLOW_PAGES else [])
    for b in BLOCKS])
def test_runnable_block(block, tmp_path_factory):
    assert block.lang in RUNNERS, f"{block.id}: no runner for ```{block.lang} runnable"
    page = PAGES.get(block.path)
    if page is None or page.done > block.index:
        page = PAGES[block.path] = _new_page(tmp_path_factory.mktemp("page"))
    for earlier in BLOCKS:
        if earlier.path == block.path and page.done <= earlier.index < block.index:
            try:
                RUNNERS[earlier.lang](earlier, page.work, page.env)
            except Exception:
                pass   # its own test reports it
    page.done = block.index + 1
    try:
        RUNNERS[block.lang](block, page.work, page.env)
    except BlockFailed as e:
        pytest.fail(str(e), pytrace=False)


def test_each_main_document_has_runnable_blocks():
    have = {b.path.name for b in BLOCKS}
    for name in ("README.md", "language.md", "priors.md"):
        assert name in have


# -- the comparison itself ------------------------------------------------------------------------

def test_output_matching_rules():
    assert output_matches("a\nb\n", "a  \nb\n\n")
    assert not output_matches("a\nb\n", "a\nc\n")
    assert output_matches("a\n...\nd\n", "a\nb\nc\nd\n")
    assert output_matches("a\n...\nb\n", "a\nb\n")
    assert output_matches("...\n", "") and output_matches("", "\n")
    assert not output_matches("a\n...\nd\n", "a\nb\nc\n")
    assert output_matches("took ... s (... it/s)\n", "took 0.6 s (2735.3 it/s)\n")
    assert not output_matches("took ... s\n", "took 1 s\nmore\n")
    assert output_matches("x\n" * 5000, "x\n" * 5000)
    assert output_matches("a\n...\nb\n...\nb\n", "a\nb\nb\n")
    assert not output_matches("a\n...\nb\n...\nb\n", "a\nb\n")
    assert output_matches("...\nx ...\n...\n", "a\nx 1\nb\n")
    assert _keys("% p = 0.5\nX = a ;\n% p = 0.5\nX = b.\n") == ";"
    assert _keys("X = a\n% proof tree: 1 choice point\nX = a ;\nX = b.\n") == "t;"


def _block(lang, text, output=None, **options):
    return Block(ROOT / "docs" / "x.md", 1, lang, True, options, text, output)


def test_runners_check_what_they_run(tmp_path):
    page = _new_page(tmp_path)
    run_console(_block("console", "$ echo hi \\\n  there\nhi there\n"), page.work, page.env)
    with pytest.raises(BlockFailed):
        run_console(_block("console", "$ echo hi\nho\n"), page.work, page.env)
    with pytest.raises(BlockFailed, match="exit status 3"):
        run_console(_block("console", "$ exit 3\n"), page.work, page.env)
    slp = "0.5 :: coin(head).\n0.5 :: coin(tail).\n?- coin(X).\n% p = 0.5 (log p = -0.6931)\nX = ...\n"
    run_slp(_block("slp", slp, file="coin.slp"), page.work, page.env)
    assert (page.work / "coin.slp").exists()
    with pytest.raises(BlockFailed):
        run_slp(_block("slp", "a.\n?- a.\nfalse.\n"), page.work, page.env)
    run_python(_block("python", "print(6 * 7)\n", "42\n"), page.work, page.env)
    with pytest.raises(BlockFailed):
        run_python(_block("python", "print(6 * 7)\n", "43\n"), page.work, page.env)
    run_python(_block("python", ">>> 6 * 7\n42\n"), page.work, page.env)
    with pytest.raises(BlockFailed):
        run_python(_block("python", ">>> 6 * 7\n43\n"), page.work, page.env)


# -- the builtin lists of docs/language.md against the registries --------------------------------

def _documented(section: str) -> set:
    text = (ROOT / "docs" / "language.md").read_text()
    m = re.search(rf"^## {re.escape(section)}\n(.*?)(?=^## |\Z)", text, re.S | re.M)
    assert m, f"docs/language.md has no section '## {section}'"
    return set(re.findall(r"`([^`\s]+/\d+)`", m.group(1)))


def _public(key) -> bool:
    # '.'/2 and '[]'/0 are the top level's [File] consult, documented as such
    return not key[0].startswith("$") and key not in ((".", 2), ("[]", 0))


def test_builtin_predicates_documented():
    from slpy import Program
    from slpy.logic.builtins import BUILTINS
    from slpy.logic.kinds import CONTROL_PREDS
    from slpy.repl import Session as TopLevel
    p = TopLevel(stdout=io.StringIO(), stderr=io.StringIO()).program
    bare = Program()
    registry = {k for k in BUILTINS if _public(k)}
    registry |= {k for k in CONTROL_PREDS if _public(k)}
    registry |= {(q.name, q.arity) for q in p.db.preds.values()
                 if getattr(q, "library", False) and _public((q.name, q.arity))}
    registry |= {(q.name, q.arity) for q in bare.db.preds.values()
                 if q.defined and _public((q.name, q.arity))}
    from slpy.logic.autoload import exports
    registry |= {k for k in exports() if _public(k)}
    documented = set()
    for s in _documented("Builtins"):
        name, arity = s.rsplit("/", 1)
        documented.add((name, int(arity)))
    fmt = sorted(f"{n}/{a}" for n, a in registry - documented)
    assert not fmt, f"builtins missing from docs/language.md: {fmt}"
    extra = sorted(f"{n}/{a}" for n, a in documented - registry)
    assert not extra, f"docs/language.md lists predicates that do not exist: {extra}"


def test_arithmetic_functions_documented():
    from slpy.logic.arith_functions import FUNCTIONS, CONSTANTS
    registry = {f"{n}/{a}" for n, a in FUNCTIONS} | {f"{c}/0" for c in CONSTANTS}
    documented = _documented("Arithmetic")
    assert registry - documented == set(), sorted(registry - documented)
    assert documented - registry == set(), sorted(documented - registry)
