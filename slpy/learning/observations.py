"""Observed goals: the data parameter learning fits.

The file format (docs/learn.md): one ground goal a line, its full stop optional,
optionally followed by white space and a count (a positive integer: the goal was seen
that many times). Blank lines and lines starting with ``%`` are skipped::

    % observations of s/2
    s([a, b], []).
    s([a], []) 12

Any problem is a :class:`LearnError` of one line, ``file:line:col: message``.
"""
from __future__ import annotations

import re
from dataclasses import dataclass
from pathlib import Path

from ..lang.syntax_errors import SlpSyntaxError
from ..terms.term import Atom, Struct
from ..terms.walk import is_ground
from ..terms.writer import term_to_text
from .params import LearnError

__all__ = ["Observation", "parse_observations", "load_observations", "as_observations"]

_COUNT = re.compile(r"^(.*?\S)\s+(\d+)\s*$")


@dataclass
class Observation:
    goal: object            # a ground term
    count: int
    where: str              # file:line:col, for messages

    @property
    def text(self) -> str:
        return term_to_text(self.goal, quoted=True, spacing=True)


def _read(program, text, where, line, col):
    try:
        term, _ = program.parse_query(text)
    except SlpSyntaxError as e:
        c = col + e.col - 1 if e.line == 1 else e.col
        raise LearnError(f"{where}:{line + e.line - 1}:{c}: {e.message}") from None
    return term


def parse_observations(program, text: str, filename: str = "<observations>") -> list:
    """The observations of a text in the file format, merged: one Observation per
    distinct goal, in order of first appearance."""
    out: dict = {}
    for n, raw in enumerate(text.splitlines(), 1):
        stripped = raw.strip()
        if not stripped or stripped.startswith("%"):
            continue
        col = len(raw) - len(raw.lstrip()) + 1
        count = 1
        m = _COUNT.match(stripped)
        goal = None
        if m:
            try:      # "goal 12": a count after the goal
                goal = program.parse_query(m.group(1))[0]
                count = int(m.group(2))
            except SlpSyntaxError:
                goal = None
        if goal is None:
            goal = _read(program, stripped, filename, n, col)
        _add(out, goal, count, f"{filename}:{n}:{col}")
    return list(out.values())


def _add(out, goal, count, where):
    if type(goal) not in (Atom, Struct):
        raise LearnError(f"{where}: {term_to_text(goal, quoted=True)} is not a goal")
    if not is_ground(goal):
        raise LearnError(f"{where}: the observation {term_to_text(goal, quoted=True)} is "
                         f"not ground (an observation is a goal without variables)")
    if count < 1:
        raise LearnError(f"{where}: the count {count} is not a positive integer")
    key = term_to_text(goal, quoted=True, ignore_ops=True)
    o = out.get(key)
    if o is None:
        out[key] = Observation(goal, count, where)
    else:
        o.count += count


def load_observations(program, path) -> list:
    """The observations of a file (see the module docstring)."""
    p = Path(path)
    try:
        text = p.read_text(encoding="utf-8")
    except (OSError, UnicodeDecodeError) as e:
        raise LearnError(f"{path}: cannot read the observations ({e})") from None
    return parse_observations(program, text, str(path))


def as_observations(program, data) -> list:
    """Observations from Python: a path, a list of Observation, goal texts or terms,
    or (goal, count) pairs, or a dict goal -> count."""
    if isinstance(data, (str, Path)) and Path(data).is_file():
        return load_observations(program, data)
    if isinstance(data, dict):
        data = list(data.items())
    out: dict = {}
    for k, item in enumerate(data, 1):
        if isinstance(item, Observation):
            _add(out, item.goal, item.count, item.where)
            continue
        goal, count = item if isinstance(item, tuple) else (item, 1)
        where = f"observation {k}"
        if isinstance(goal, str):
            goal = _read(program, goal, where, 1, 1)
        _add(out, goal, int(count), where)
    if not out:
        raise LearnError("no observations")
    return list(out.values())
