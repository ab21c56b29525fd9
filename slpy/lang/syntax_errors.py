"""Syntax errors, as the reader reports them: ``file:line:col: message`` and, from
``pretty()``, the source line with a caret under the column.

Each is a PrologError whose term is ``error(syntax_error(Id), context(file(File, Line,
Col), Message))``; SlpSyntaxErrors holds all the errors of one text.

format_load_error and format_error give the one line that the top level and the
command line print for any error, a syntax error worded as SWI-Prolog words it.
"""
from __future__ import annotations

from ..terms.term import PrologError, Struct, atom

__all__ = ["SlpSyntaxError", "SlpSyntaxErrors", "source_line", "format_load_error",
           "format_error"]

_WINDOW = 120


def source_line(text: str, start: int, col: int) -> str:
    """The line starting at text[start], or a window of it around col when it is
    long (a file of one huge line with many errors must not cost quadratic time)."""
    lo = start
    if col - 1 > _WINDOW:
        lo = start + col - 1 - _WINDOW
    end = text.find("\n", lo, lo + 2 * _WINDOW)
    if end < 0:
        end = min(len(text), lo + 2 * _WINDOW)
    line = text[lo:end].rstrip("\r")
    return line if lo == start else "..." + line


class SlpSyntaxError(PrologError):
    """One syntax error: ``str(e)`` is ``file:line:col: message`` (1-based)."""

    def __init__(self, message: str, filename: str = "<string>", line: int = 1,
                 col: int = 1, source_line: str = "", kind: str | None = None):
        self.message = message
        self.filename = filename
        self.line = line
        self.col = col
        self.source_line = source_line
        self.kind = kind or message.replace(" ", "_")
        ctx = Struct("context", (Struct("file", (atom(filename), line, col)),
                                 atom(message)))
        super().__init__(Struct("error", (Struct("syntax_error", (atom(self.kind),)), ctx)),
                         f"{filename}:{line}:{col}: {message}")

    def __str__(self):
        return f"{self.filename}:{self.line}:{self.col}: {self.message}"

    def pretty(self) -> str:
        """The one-line message, the source line, and a caret under the column."""
        src = self.source_line
        caret = self.col - 1
        if src.startswith("...") and caret > _WINDOW:   # a window of a long line
            caret = _WINDOW + 3
        # keep tabs so the caret lines up under the same character
        pad = "".join("\t" if c == "\t" else " " for c in src[:caret])
        return f"{self}\n{src}\n{pad}^"


class SlpSyntaxErrors(PrologError):
    """All the syntax errors of one text (``errors``: SlpSyntaxError, in text order).

    Its Prolog term is the first error's term, so a consumer that treats it as a
    plain PrologError still reports a syntax error.
    """

    def __init__(self, errors: list[SlpSyntaxError]):
        self.errors = list(errors)
        super().__init__(self.errors[0].term, str(self))

    def __str__(self):
        return "\n".join(str(e) for e in self.errors)

    def pretty(self) -> str:
        return "\n".join(e.pretty() for e in self.errors)


def format_load_error(e) -> str:
    """One line for a problem found while loading a file: ``file:line:col: Syntax
    error: Message`` for a syntax error, else the problem's own message."""
    if isinstance(e, SlpSyntaxError):
        msg = e.message[:1].upper() + e.message[1:]
        return f"{e.filename}:{e.line}:{e.col}: Syntax error: {msg}"
    return str(e)


def format_error(e) -> str:
    """The words of an error raised by a query, for ``ERROR: ...`` (a syntax error in
    the query says where: ``Syntax error at column 5: ...``)."""
    if isinstance(e, SlpSyntaxError):
        msg = e.message[:1].upper() + e.message[1:]
        where = f"line {e.line}, column {e.col}" if e.line > 1 else f"column {e.col}"
        return f"Syntax error at {where}: {msg}"
    return str(e)
