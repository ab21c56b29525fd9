"""Conditional probability queries on a network's variables, read from text:

    P(lung | smoke=yes)                     the distribution of lung given smoke = yes
    P(lung, bronc | smoke=yes, xray=no)     the joint distribution of lung and bronc
    P(lung=yes | smoke=yes)                 one probability
    P(lung=yes, bronc)                      lung = yes with each value of bronc

``P(`` and the closing ``)`` may be left out. A name or value with spaces or any of
``( ) | , = '`` is written in quotes ('my col' or "my col"). Every problem is a
:class:`QueryError` of one line that says where in the text it is.
"""
from __future__ import annotations

import re
from dataclasses import dataclass

__all__ = ["Query", "QueryError", "parse_query"]


class QueryError(ValueError):
    """A query that does not read, or names what the data do not have: one line."""


@dataclass(frozen=True)
class Query:
    """A query resolved against a network's variables: `targets` (node indices, in the
    order asked), `fixed` (target -> value code, for targets asked at one value) and
    `evidence` (node -> value code)."""
    text: str
    targets: tuple
    fixed: dict
    evidence: dict

    @property
    def free(self) -> tuple:
        """The targets asked for every value (the answer's axes)."""
        return tuple(t for t in self.targets if t not in self.fixed)


_TOKEN = re.compile(r"""\s*(?:(?P<punct>[()|,=])|(?P<quoted>'[^']*'|"[^"]*")|"""
                    r"""(?P<word>[^\s()|,='"]+))""")


def _tokens(text: str) -> list:
    """(kind, text, column) of each token; kind is the punctuation itself or 'name'."""
    out, pos = [], 0
    while pos < len(text):
        if text[pos:].strip() == "":
            break
        m = _TOKEN.match(text, pos)
        if m is None:
            col = len(text) - len(text[pos:].lstrip()) + 1
            raise _error(text, col, "a quote left open")
        start = m.start(m.lastgroup) + 1
        if m.group("punct"):
            out.append((m.group("punct"), m.group("punct"), start))
        elif m.group("quoted"):
            out.append(("name", m.group("quoted")[1:-1], start))
        else:
            out.append(("name", m.group("word"), start))
        pos = m.end()
    return out


def _error(text, col, msg) -> QueryError:
    return QueryError(f"query {text!r}, column {col}: {msg}")


def parse_query(text: str, names, levels) -> Query:
    """Read `text` and resolve it against the variables `names` with values `levels`."""
    if not isinstance(text, str) or not text.strip():
        raise QueryError("an empty query (write it as P(lung | smoke=yes))")
    toks = _tokens(text)
    end = len(text.rstrip()) + 1
    if len(toks) >= 2 and toks[0][0] == "name" and toks[0][1] in ("P", "p") \
            and toks[1][0] == "(":
        close = max((k for k, t in enumerate(toks) if t[0] == ")"), default=None)
        if close is None:
            raise _error(text, end, "expected ')' to close 'P('")
        if close + 1 < len(toks):
            raise _error(text, toks[close + 1][2], f"unexpected {toks[close + 1][1]!r} "
                                                   f"after the closing ')'")
        end = toks[close][2]
        toks = toks[2:close]
    index = {n: i for i, n in enumerate(names)}
    values = [{v: k for k, v in enumerate(lv)} for lv in levels]
    pos = 0

    def peek():
        return toks[pos] if pos < len(toks) else ("end", "", end)

    def item(value_needed):
        nonlocal pos
        kind, name, col = peek()
        if kind != "name":
            what = "the end" if kind == "end" else repr(name)
            raise _error(text, col, f"expected a variable, found {what}")
        pos += 1
        if name not in index:
            raise _error(text, col, f"no variable {name!r} (the variables are "
                                    f"{', '.join(names)})")
        node = index[name]
        if peek()[0] != "=":
            if value_needed:
                raise _error(text, peek()[2], f"expected '=' and a value of {name!r} "
                                              f"after '|'")
            return node, None
        pos += 1
        kind, value, vcol = peek()
        if kind != "name":
            raise _error(text, vcol, f"expected a value of {name!r} after '='")
        pos += 1
        if value not in values[node]:
            raise _error(text, vcol, f"{name!r} has no value {value!r} (its values are "
                                     f"{', '.join(levels[node])})")
        return node, values[node][value]

    def items(value_needed):
        nonlocal pos
        out = [item(value_needed)]
        while peek()[0] == ",":
            pos += 1
            out.append(item(value_needed))
        return out

    asked = items(False)
    given = []
    if peek()[0] == "|":
        pos += 1
        given = items(True)
    kind, tok, col = peek()
    if kind != "end":
        raise _error(text, col, f"unexpected {tok!r} (expected ',', '|' or the end)")
    seen: dict = {}
    for node, _ in asked + given:
        if node in seen:
            raise QueryError(f"query {text!r}: {names[node]!r} appears twice")
        seen[node] = True
    return Query(text, tuple(n for n, _ in asked),
                 {n: v for n, v in asked if v is not None}, dict(given))
