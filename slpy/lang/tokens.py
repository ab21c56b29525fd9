"""Tokens of Prolog text: the Lark lexer of grammars/slp.lark, and the decoding of
quoted items and number literals.

The lexer is context free (the operator table plays no part in tokenizing), so a
text is tokenized once and the parser in slpy.lang.reader walks the token list.
Every input lexes: characters that start no token become ERROR_CHAR tokens, an
unclosed ``/*`` an UNCLOSED_COMMENT token, and the parser reports them.
"""
from __future__ import annotations

import importlib.resources
import math
from pathlib import Path

from lark import Lark, Token

from ..errors import PicklableError
from ..terms.rational import rational

__all__ = [
    "grammar_path", "tokenize", "LexicalError", "unquote", "number_value",
    "NAME_TYPES", "NUMBER_TYPES", "LEXICAL_ERRORS",
]

# token types that denote a name (an atom, perhaps an operator)
NAME_TYPES = frozenset(("NAME", "SYMBOL", "SOLO", "QUOTED"))
NUMBER_TYPES = frozenset(("INTEGER", "FLOAT", "BASED_INT", "CHAR_CODE", "RATIONAL"))
# token types that are lexical errors, with the message the reader gives them
LEXICAL_ERRORS = {
    "UNCLOSED_COMMENT": ("unterminated_block_comment", "unterminated block comment"),
}


def grammar_path() -> Path:
    """grammars/slp.lark: beside the source tree first, else the installed package data."""
    p = Path(__file__).parents[2] / "grammars" / "slp.lark"
    if p.is_file():
        return p
    return Path(str(importlib.resources.files("slpy") / "grammars" / "slp.lark"))


_LEXER: Lark | None = None


def _lexer() -> Lark:
    global _LEXER
    if _LEXER is None:
        # parser=None: Lark is used for its lexer only (see the grammar's header).
        _LEXER = Lark(grammar_path().read_text(encoding="utf-8"), parser=None,
                      lexer="basic")
    return _LEXER


def tokenize(text: str) -> list[Token]:
    """All tokens of text, then three EOF tokens (so the parser may look two ahead)."""
    toks = list(_lexer().lex(text))
    n = len(text)
    line = text.count("\n", 0, n) + 1
    col = n - text.rfind("\n", 0, n)
    for _ in range(3):
        eof = Token("EOF", "", n, line, col)
        eof.end_pos = n
        toks.append(eof)
    return toks


class LexicalError(PicklableError):
    """A malformed token; offset is the position of the fault within the token."""

    def __init__(self, kind: str, message: str, offset: int = 0):
        super().__init__(message)
        self.kind = kind
        self.message = message
        self.offset = offset


# -- quoted items ---------------------------------------------------------------------

_SIMPLE_ESCAPES = {
    "a": "\a", "b": "\b", "f": "\f", "n": "\n", "r": "\r", "t": "\t", "v": "\v",
    "e": "\x1b", "s": " ", "\\": "\\", "'": "'", '"': '"', "`": "`",
}
_HEX = frozenset("0123456789abcdefABCDEF")
_OCT = frozenset("01234567")


def _escape(body: str, i: int) -> tuple[str, int]:
    """Decode the escape sequence whose backslash is at body[i]: (text, next index)."""
    n = len(body)
    if i + 1 >= n:
        raise LexicalError("undefined_char_escape", "unterminated escape sequence", i)
    c = body[i + 1]
    if c == "\n":
        return "", i + 2          # continuation: backslash-newline is nothing
    if c == "x" or c in _OCT:
        digits = _HEX if c == "x" else _OCT
        j = i + 2 if c == "x" else i + 1
        k = j
        while k < n and body[k] in digits:
            k += 1
        if k < n and body[k] == "\\" and k > j:
            code = int(body[j:k], 16 if c == "x" else 8)
            if code > 0x10FFFF:
                raise LexicalError("illegal_character_code",
                                   "character code out of range", i)
            return chr(code), k + 1
        raise LexicalError("undefined_char_escape",
                           "missing closing \\ in numeric escape sequence", i)
    if c == "u" or c == "U":
        width = 4 if c == "u" else 8
        hexd = body[i + 2:i + 2 + width]
        if len(hexd) == width and all(h in _HEX for h in hexd):
            code = int(hexd, 16)
            if code > 0x10FFFF:
                raise LexicalError("illegal_character_code",
                                   "character code out of range", i)
            return chr(code), i + 2 + width
        raise LexicalError("undefined_char_escape", f"bad \\{c} escape sequence", i)
    s = _SIMPLE_ESCAPES.get(c)
    if s is None:
        raise LexicalError("undefined_char_escape",
                           f"undefined escape sequence \\{c}", i)
    return s, i + 2


def unquote(text: str) -> str:
    """The characters a quoted token ('...', "..." or `...`) denotes."""
    q = text[0]
    body = text[1:-1]
    if "\\" not in body and q not in body:
        return body               # the common case: nothing to decode
    out = []
    i = 0
    n = len(body)
    while i < n:
        j = i
        while j < n and body[j] != "\\" and body[j] != q:
            j += 1
        out.append(body[i:j])
        if j >= n:
            break
        if body[j] == q:          # the lexer only lets a quote in doubled
            out.append(q)
            i = j + 2
        else:
            try:
                s, i = _escape(body, j)
            except LexicalError as e:
                e.offset += 1     # offsets are within the token, past its quote
                raise
            out.append(s)
    return "".join(out)


# -- numbers -------------------------------------------------------------------------

def _int10(s: str) -> int:
    # int() refuses more than 4300 digits (CPython's guard against quadratic
    # conversion); Prolog integers are unbounded, so convert long ones in halves.
    if len(s) <= 4000:
        return int(s)
    k = len(s) // 2
    return _int10(s[:-k]) * 10 ** k + _int10(s[-k:])


def number_value(tok: Token) -> int | float:
    """The value of a number token (INTEGER, FLOAT, BASED_INT, CHAR_CODE)."""
    ty = tok.type
    s = str(tok)
    if ty == "INTEGER":
        return _int10(s)
    if ty == "FLOAT":
        if s.endswith("Inf"):
            return math.inf
        if s.endswith("NaN"):
            return math.nan
        v = float(s)
        if v == math.inf:
            raise LexicalError("illegal_number", "float overflow")
        return v
    if ty == "BASED_INT":
        return int(s[2:], {"x": 16, "o": 8, "b": 2}[s[1]])
    if ty == "RATIONAL":
        n, d = s.split("r")
        if int(d) == 0:
            raise LexicalError("illegal_number", "zero denominator")
        return rational(_int10(n), _int10(d))
    # CHAR_CODE: 0'c
    body = s[2:]
    if body == "''" or body == "'":
        return 39
    if body[0] == "\\":
        try:
            c, end = _escape(body, 0)
        except LexicalError as e:
            e.offset += 2
            raise
        if len(c) != 1 or end != len(body):
            raise LexicalError("undefined_char_escape", "bad character code", 2)
        return ord(c)
    return ord(body)
