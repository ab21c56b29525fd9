"""The program text with learned labels: every character but the labels' is kept.

The file is tokenized (slpy.lang.tokens) and cut at its full stops; a clause's label
is the tokens before its first ``::`` (or ``:``) at bracket depth 0, when that comes
before ``:-`` or ``-->``. A clause read from the file is matched to the loaded
clause by its start line and its place among the clauses of its predicate on that
line.
"""
from __future__ import annotations

from pathlib import Path

from ..lang.clauses import split_clause
from ..lang.dcg import dcg_transform
from ..lang.tokens import tokenize
from ..terms.term import Struct, deref
from .params import LearnError

__all__ = ["write_labels", "number_text"]

_OPEN = {"LPAREN", "LPAREN_CALL", "LBRACKET", "LBRACE"}
_CLOSE = {"RPAREN", "RBRACKET", "RBRACE"}


def number_text(x: float, digits: int = 6) -> str:
    """A label as Prolog reads it back: 0.25, 1, 1.5e-07 (never 1e-07)."""
    s = f"{x:.{digits}g}"
    if "e" in s:
        mant, exp = s.split("e")
        if "." not in mant:
            mant += ".0"
        s = f"{mant}e{exp}"
    return s


def _clauses(toks):
    """(first token index, end token index) of each clause."""
    i = 0
    while toks[i].type != "EOF":
        j = i
        while toks[j].type not in ("END", "EOF"):
            j += 1
        yield i, j
        i = j + 1 if toks[j].type == "END" else j


def _label_span(toks, i, j):
    depth = 0
    for k in range(i, j):
        t = toks[k]
        if t.type in _OPEN or t.value in ("(", "[", "{"):
            depth += 1
        elif t.type in _CLOSE:
            depth -= 1
        elif depth == 0 and t.value in (":-", "-->"):
            return None
        elif depth == 0 and t.value in ("::", ":") and k > i:
            return toks[i].start_pos, toks[k - 1].end_pos
    return None


def write_labels(result, path, estimate: str = "map", digits: int = 6) -> str:
    """The text of the file at ``path`` with the labels learned in ``result`` (a
    LearnResult) in place of the old ones."""
    params = result.params
    th = result.theta if estimate == "map" else result.posterior_mean
    program = params.program
    path = Path(path)
    text = path.read_text(encoding="utf-8")
    fname = str(path)
    files = {c.file for c in params.clauses}
    if fname not in files:
        resolved = {str(Path(f).resolve()): f for f in files if f}
        fname = resolved.get(str(path.resolve()), fname)
    by_line: dict = {}
    for c in params.clauses:
        if c.file == fname:
            by_line.setdefault((c.line, c.pred.name, c.pred.arity), []).append(c)
    for lst in by_line.values():
        lst.sort(key=lambda c: c.number)
    if not by_line:
        raise LearnError(f"{path}: none of the learned clauses is from this file")
    toks = tokenize(text)
    edits = []
    seen: dict = {}
    tabled = program.tabled
    for i, j in _clauses(toks):
        span = _label_span(toks, i, j)
        if span is None:
            continue
        try:
            term = program.parse_query(text[toks[i].start_pos:toks[j].end_pos])[0]
            if type(term) is Struct and term.name == "-->" and len(term.args) == 2:
                term = dcg_transform(term)
            head = deref(split_clause(term).head)
        except Exception:            # not a clause slpy loaded: leave it as it is
            continue
        name = head.name
        arity = len(head.args) if type(head) is Struct else 0
        name = tabled.get((name, arity), name)
        key = (toks[i].line, name, arity)
        k = seen.get(key, 0)
        seen[key] = k + 1
        lst = by_line.get(key)
        if lst is None or k >= len(lst):
            continue
        jdx = params.index[lst[k]]
        edits.append((span, number_text(float(th[jdx]), digits)))
    out = []
    pos = 0
    for (a, b), new in edits:
        out.append(text[pos:a])
        out.append(new)
        pos = b
    out.append(text[pos:])
    return "".join(out)
