"""Reading one clause from the middle of a text: read/1 and read_term/2 on a stream.

A stream holds its text and a position; ``read_clause_at`` lexes lazily from the
position up to the first end token (so reading a file term by term costs what its
terms cost, not the rest of the file each time) and parses that clause with the
reader's live operator table and flags.
"""
from __future__ import annotations

from lark import Token

from ..terms.term import atom
from .reader import Reader, ReadResult, _Fail
from .tokens import _lexer

__all__ = ["read_clause_at", "END_OF_FILE"]

END_OF_FILE = atom("end_of_file")


def _tokens_to_end(text: str, pos: int):
    """The tokens of text[pos:] up to and with the first end token (positions in the
    whole text), then three EOF tokens; and whether an end token was found."""
    toks = []
    found = False
    for tok in _lexer().lex(text[pos:]):
        tok.start_pos += pos
        tok.end_pos += pos
        toks.append(tok)
        if tok.type == "END":
            found = True
            break
    n = len(text)
    for _ in range(3):
        eof = Token("EOF", "", n, 0, 0)
        eof.end_pos = n
        toks.append(eof)
    return toks, found


def read_clause_at(text: str, pos: int, ops, flags, filename: str = "<stream>",
                   at_eof: bool = True):
    """Read the clause that starts at text[pos:].

    Returns (ReadResult or None, new position): None when more text is needed (no end
    token yet and not at_eof); a ReadResult whose term is end_of_file when only
    layout is left. The layout character after the end token is consumed, as in
    SWI-Prolog. Raises SlpSyntaxError (the position then skips past the bad clause
    via the exception's ``resume`` attribute).
    """
    toks, found = _tokens_to_end(text, pos)
    if toks[0].type == "EOF":
        return ReadResult(END_OF_FILE, {}, [], 0, 0), len(text)
    if not found and not at_eof:
        return None, pos
    end = toks[-4].end_pos if found else len(text)
    if found and end < len(text) and text[end] in " \t\r\n":
        end += 1
    r = Reader(ops, flags)
    line = text.count("\n", 0, toks[0].start_pos) + 1
    try:
        term, _ = r._read(toks, 0, True)
    except _Fail as f:
        f.index = min(f.index, len(toks) - 1)
        err = r._error(f, _with_lines(toks, text), text, filename)
        err.resume = end
        raise err from None
    return ReadResult(term, r._varmap, r._singletons(), line, 0), end


def _with_lines(toks, text):
    """Tokens with their line and column in the whole text (for the error message)."""
    for tok in toks:
        p = min(tok.start_pos, len(text))
        tok.line = text.count("\n", 0, p) + 1
        tok.column = p - text.rfind("\n", 0, p)
    return toks
