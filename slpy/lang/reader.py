"""The Prolog / SLP reader: text -> terms, one clause at a time.

Tokens come from the Lark lexer of grammars/slp.lark (slpy.lang.tokens). Terms are
built by an operator-precedence parser that consults the reader's OpTable as it
goes, so an op/3 directive run by the consumer between two clauses changes how
the next clause reads. The parser keeps its pending operators, brackets and
argument lists on an explicit stack instead of recursing: a conjunction of
100,000 goals or 100,000 nested parentheses read without touching Python's
recursion limit.

Syntax (ISO 13211-1 section 6, SWI-Prolog where ISO is silent):
- priority of an operand: 0 for primaries (atoms, numbers, variables, strings,
  compounds, lists, curly and bracketed terms); an infix term xfx/xfy/yfx or a
  prefix/postfix term gets its operator's priority; an argument is read at 999.
- a name directly followed by ``(`` is a compound in functional notation, with
  layout between them it is not.
- ``-`` directly followed by a number literal, where an operand is expected, is a
  negative number: ``-1`` and ``[-1]`` are integers, ``- 1`` is ``-(1)`` (as
  SWI-Prolog reads it), ``a-1`` is ``a - 1``.
- an operator standing where an operand is expected, with nothing for it to
  apply to (``f(+, -)``, ``[-]``, ``(:-)``, ``X = -``), is an atom (priority 0,
  SWI-Prolog's leniency; ISO gives it 1201 outside arguments).
- ``|`` between terms is the infix operator of the table (at priority 1100 or
  more it reads as ``;``, as SWI-Prolog does); a quoted ``','`` or ``'|'`` is a
  plain atom. ``{}(X, Y)`` and ``[](X)`` are compounds (SWI-Prolog).
- double-quoted text follows flags['double_quotes'] (codes, chars, atom or
  string -> Python str), back-quoted text flags['back_quotes'] (default codes);
  both flags are read again at every clause.

Errors: every syntax error is an SlpSyntaxError (syntax_errors.py: a PrologError whose term is
``error(syntax_error(Id), context(file(File, Line, Col), Message))``, Id an atom
such as operator_expected). After an error the reader skips to the next end
token and reads on: ``read_clauses`` raises SlpSyntaxErrors (all of a text's
errors) once every good clause has been yielded; ``iter_terms`` yields the
errors in place instead.
"""
from __future__ import annotations

from typing import Iterator, NamedTuple

from ..errors import PicklableError
from ..terms.term import Atom, Struct, Var, atom, mklist
from ..terms.ops import OpTable
from .syntax_errors import SlpSyntaxError, SlpSyntaxErrors, source_line
from .tokens import (LEXICAL_ERRORS, NAME_TYPES, NUMBER_TYPES, LexicalError,
                     grammar_path, number_value, tokenize, unquote)

__all__ = ["Reader", "ReadResult", "read_term_from_text", "parse_number", "grammar_path"]


class _Fail(PicklableError):
    """Internal: a syntax error at token index ``index`` (turned into SlpSyntaxError)."""

    def __init__(self, index: int, kind: str, message: str, offset: int = 0):
        self.index = index
        self.kind = kind
        self.message = message
        self.offset = offset


class ReadResult(NamedTuple):
    term: object
    varnames: dict          # name -> Var, in order of first appearance, without "_"
    singletons: list        # named variables occurring once, not starting with "_"
    line: int               # where the clause starts (1-based)
    col: int


# -- the parser -----------------------------------------------------------------------

# frame kinds of the parser's explicit stack
_INFIX, _PREFIX, _PAREN, _ARGS, _LIST, _CURLY = range(6)
# tokens after which a prefix operator has nothing to apply to
_CLOSERS = frozenset(("END", "EOF", "RPAREN", "RBRACKET", "RBRACE", "COMMA", "BAR"))
_UNCLOSED = {"'": "quoted atom", '"': "string", "`": "back-quoted string"}


class Reader:
    """Reads terms with a live operator table and flags (both consulted per clause)."""

    def __init__(self, ops: OpTable, flags: dict):
        self.ops = ops
        self.flags = flags
        self.errors: list[SlpSyntaxError] = []

    # -- public API -------------------------------------------------------------------

    def read_clauses(self, text: str, filename: str = "<string>") -> Iterator[ReadResult]:
        """Yield each clause of text as a ReadResult, lazily.

        A clause with a syntax error is skipped (up to the next end token) and
        reading goes on; once the whole text is read, if there were errors, raise
        SlpSyntaxErrors holding every one of them (also left in ``self.errors``).
        """
        self.errors = []
        for r in self.iter_terms(text, filename):
            if type(r) is SlpSyntaxError:
                self.errors.append(r)
            else:
                yield r
        if self.errors:
            raise SlpSyntaxErrors(self.errors)

    def iter_terms(self, text: str, filename: str = "<string>"):
        """Yield, in text order, a ReadResult per clause or an SlpSyntaxError per error."""
        toks = tokenize(text)
        i = 0
        while toks[i].type != "EOF":
            start = toks[i]
            try:
                term, i = self._read(toks, i, True)
            except _Fail as f:
                err = self._error(f, toks, text, filename)
                j = f.index
                while toks[j].type != "END" and toks[j].type != "EOF":
                    j += 1
                i = j + 1 if toks[j].type == "END" else j
                yield err
                continue
            yield ReadResult(term, self._varmap, self._singletons(), start.line,
                             start.column)

    # -- one term -------------------------------------------------------------------

    def _read(self, toks, i, clause):
        """Parse one term at toks[i]; a clause must end with END (consumed)."""
        flags = self.flags
        self._dq = _flag_name(flags.get("double_quotes", "codes"))
        self._bq = _flag_name(flags.get("back_quotes", "codes"))
        self._varmap = {}
        self._counts = {}
        term, i = self._parse(toks, i)
        ty = toks[i].type
        if ty == "END":
            return term, i + 1
        if clause or ty != "EOF":
            raise self._after_term(toks, i, "end of clause expected",
                                   "end_of_clause_expected")
        return term, i

    def _singletons(self):
        return [n for n, c in self._counts.items() if c == 1 and n[0] != "_"]

    def _parse(self, toks, i):
        """The operator-precedence parser; returns (term, index of the next token).

        Two alternating phases: read an operand (a primary, or open a bracket /
        argument list / prefix operator, pushing a frame and reading on), then
        extend it with infix and postfix operators allowed at the current maximum
        priority M, or close the innermost frame with it.
        """
        ops = self.ops
        prefix = ops.prefix
        infix = ops.infix
        postfix = ops.postfix
        stack = []
        M = 1200
        while True:
            # ---- an operand -----------------------------------------------------
            tok = toks[i]
            ty = tok.type
            if ty in NAME_TYPES:
                name = tok.value if ty != "QUOTED" else self._unquote(tok, i)
                nxt = toks[i + 1]
                nty = nxt.type
                if nty == "LPAREN" and nxt.start_pos == tok.end_pos:
                    stack.append([_ARGS, M, name, []])
                    M = 999
                    i += 2
                    continue
                if (name == "-" and ty == "SYMBOL" and nty in NUMBER_TYPES
                        and nxt.start_pos == tok.end_pos):
                    term = -self._number(nxt, i + 1)
                    i += 2
                elif name in prefix and self._applies(toks, i + 1, infix, postfix, prefix):
                    p, typ = prefix[name]
                    if p > M:
                        raise _Fail(i, "operator_clash", "operator priority clash")
                    stack.append((_PREFIX, M, name, p))
                    M = p - 1 if typ == "fx" else p
                    i += 1
                    continue
                else:
                    term = atom(name)
                    i += 1
            elif ty == "VAR":
                name = tok.value
                if name == "_":
                    term = Var()
                else:
                    term = self._varmap.get(name)
                    if term is None:
                        term = self._varmap[name] = Var()
                        self._counts[name] = 1
                    else:
                        self._counts[name] += 1
                i += 1
            elif ty in NUMBER_TYPES:
                term = self._number(tok, i)
                i += 1
            elif ty == "LPAREN":
                stack.append((_PAREN, M))
                M = 1200
                i += 1
                continue
            elif ty == "LBRACKET" or ty == "LBRACE":
                close = toks[i + 1]
                if close.type == ("RBRACKET" if ty == "LBRACKET" else "RBRACE"):
                    name = "[]" if ty == "LBRACKET" else "{}"
                    nxt = toks[i + 2]
                    if nxt.type == "LPAREN" and nxt.start_pos == close.end_pos:
                        # SWI-Prolog: {}(X, Y) and [](X) are compounds
                        stack.append([_ARGS, M, name, []])
                        M = 999
                        i += 3
                        continue
                    term = atom(name)
                    i += 2
                elif ty == "LBRACKET":
                    stack.append([_LIST, M, [], False])
                    M = 999
                    i += 1
                    continue
                else:
                    stack.append((_CURLY, M))
                    M = 1200
                    i += 1
                    continue
            elif ty == "STRING" or ty == "BACKQUOTED":
                term = self._text(tok, i)
                i += 1
            else:
                raise self._no_term(toks, i)
            prec = 0

            # ---- operators after the operand; closing frames ------------------------
            while True:
                tok = toks[i]
                ty = tok.type
                if ty in NAME_TYPES:
                    name = tok.value if ty != "QUOTED" else self._unquote(tok, i)
                    if ty == "QUOTED" and (name == "," or name == "|"):
                        pass
                    elif name in infix:
                        p, typ = infix[name]
                        if (p <= M and prec <= (p if typ == "yfx" else p - 1)
                                and (name not in postfix or
                                     self._applies(toks, i + 1, infix, postfix, prefix))):
                            stack.append((_INFIX, M, name, term, p))
                            M = p if typ == "xfy" else p - 1
                            i += 1
                            break
                    if name in postfix:
                        p, typ = postfix[name]
                        if p <= M and prec <= (p if typ == "yf" else p - 1):
                            term = Struct(name, (term,))
                            prec = p
                            i += 1
                            continue
                elif ty == "COMMA":
                    if M >= 1000 and prec <= 999:
                        stack.append((_INFIX, M, ",", term, 1000))
                        M = 1000
                        i += 1
                        break
                elif ty == "BAR":
                    d = infix.get("|")
                    if d is not None:
                        p, typ = d
                        if p <= M and prec <= (p if typ == "yfx" else p - 1):
                            # SWI-Prolog: (a|b) at the default priority is (a;b)
                            stack.append((_INFIX, M, ";" if p >= 1100 else "|", term, p))
                            M = p if typ == "xfy" else p - 1
                            i += 1
                            break
                # no operator extends the term: close the innermost frame with it
                if not stack:
                    return term, i
                frame = stack[-1]
                kind = frame[0]
                if kind == _INFIX:
                    stack.pop()
                    M = frame[1]
                    term = Struct(frame[2], (frame[3], term))
                    prec = frame[4]
                elif kind == _PREFIX:
                    stack.pop()
                    M = frame[1]
                    term = Struct(frame[2], (term,))
                    prec = frame[3]
                elif kind == _ARGS:
                    frame[3].append(term)
                    if ty == "COMMA":
                        M = 999
                        i += 1
                        break
                    if ty != "RPAREN":
                        raise self._after_term(toks, i, "expected , or ) in arguments")
                    stack.pop()
                    M = frame[1]
                    term = Struct(frame[2], tuple(frame[3]))
                    prec = 0
                    i += 1
                elif kind == _LIST:
                    if frame[3]:          # term is the tail after |
                        if ty != "RBRACKET":
                            raise self._after_term(toks, i, "expected ] after list tail")
                        stack.pop()
                        term = mklist(frame[2], term)
                    else:
                        frame[2].append(term)
                        if ty == "COMMA" or ty == "BAR":
                            frame[3] = ty == "BAR"
                            M = 999
                            i += 1
                            break
                        if ty != "RBRACKET":
                            raise self._after_term(toks, i, "expected , | or ] in list")
                        stack.pop()
                        term = mklist(frame[2])
                    M = frame[1]
                    prec = 0
                    i += 1
                else:                     # _PAREN or _CURLY
                    if kind == _PAREN:
                        if ty != "RPAREN":
                            raise self._after_term(toks, i, "expected )")
                    else:
                        if ty != "RBRACE":
                            raise self._after_term(toks, i, "expected }")
                        term = Struct("{}", (term,))
                    stack.pop()
                    M = frame[1]
                    prec = 0
                    i += 1

    @staticmethod
    def _applies(toks, j, infix, postfix, prefix) -> bool:
        """Whether a prefix operator before toks[j] applies to a term starting there.

        It does not (and is an atom) before a closing token or before an infix or
        postfix operator that cannot itself start a term (``- = X`` is ``=(-, X)``).
        """
        tok = toks[j]
        ty = tok.type
        if ty in _CLOSERS:
            return False
        if ty in NAME_TYPES and ty != "QUOTED":
            name = tok.value
            if (name in infix or name in postfix) and name not in prefix:
                nxt = toks[j + 1]
                return nxt.type == "LPAREN" and nxt.start_pos == tok.end_pos
        return True

    # -- tokens to terms ----------------------------------------------------------------

    def _unquote(self, tok, i):
        try:
            return unquote(tok.value)
        except LexicalError as e:
            raise _Fail(i, e.kind, e.message, e.offset) from None

    def _number(self, tok, i):
        try:
            return number_value(tok)
        except LexicalError as e:
            raise _Fail(i, e.kind, e.message, e.offset) from None

    def _text(self, tok, i):
        s = self._unquote(tok, i)
        mode = self._dq if tok.type == "STRING" else self._bq
        if mode == "codes":
            return mklist([ord(c) for c in s])
        if mode == "chars":
            return mklist([atom(c) for c in s])
        if mode == "atom":
            return atom(s)
        return s                  # "string": a Python str is an SWI string object

    # -- error reporting ------------------------------------------------------------------

    def _lexical(self, toks, i):
        """The error a lexical-error token stands for, else None."""
        tok = toks[i]
        if tok.type == "ERROR_CHAR":
            what = _UNCLOSED.get(tok.value)
            if what is not None:
                return _Fail(i, "unterminated_quoted", f"unterminated {what}")
            return _Fail(i, "illegal_character", f"illegal character {tok.value!r}")
        lex = LEXICAL_ERRORS.get(tok.type)
        if lex is not None:
            return _Fail(i, lex[0], lex[1])
        return None

    def _no_term(self, toks, i):
        """A token that cannot start a term, where one is expected."""
        ty = toks[i].type
        if ty == "END":
            return _Fail(i, "end_of_clause", "unexpected end of clause")
        if ty == "EOF":
            return _Fail(i, "end_of_file", "unexpected end of file")
        return self._lexical(toks, i) or _Fail(i, "cannot_start_term",
                                               "illegal start of term")

    def _after_term(self, toks, i, expected, kind="mismatched_bracket"):
        """A token that cannot follow the term just read (expected: what could)."""
        tok = toks[i]
        ty = tok.type
        lex = self._lexical(toks, i)
        if lex is not None:
            return lex
        if ty == "EOF":
            return _Fail(i, "end_of_file", "unexpected end of file")
        ops = self.ops
        if ty == "COMMA" or ty == "BAR" or (
                ty in NAME_TYPES and ty != "QUOTED" and
                (tok.value in ops.infix or tok.value in ops.postfix)):
            return _Fail(i, "operator_clash", "operator priority clash")
        if ty == "END":
            return _Fail(i, "end_of_clause", f"unexpected end of clause ({expected})")
        if ty in ("RPAREN", "RBRACKET", "RBRACE"):
            return _Fail(i, kind, expected)
        return _Fail(i, "operator_expected", "operator expected")

    def _error(self, f: _Fail, toks, text, filename) -> SlpSyntaxError:
        tok = toks[f.index]
        col = tok.column + f.offset
        line_start = tok.start_pos - (tok.column - 1)
        return SlpSyntaxError(f.message, filename, tok.line, col,
                              source_line(text, line_start, col), f.kind)


def _flag_name(v) -> str:
    return v.name if type(v) is Atom else str(v)


# -- single terms -------------------------------------------------------------------------

def read_term_from_text(text: str, ops: OpTable, flags: dict):
    """Read exactly one term from text (the final end token is optional).

    Returns (term, varnames); text holding only layout and comments gives the atom
    end_of_file. Raises SlpSyntaxError otherwise.
    """
    toks = tokenize(text)
    if toks[0].type == "EOF":
        return atom("end_of_file"), {}
    r = Reader(ops, flags)
    try:
        term, i = r._read(toks, 0, False)
        if toks[i].type != "EOF":   # a second term after the end token
            raise _Fail(i, "end_of_clause_expected", "end of clause expected")
    except _Fail as f:
        raise r._error(f, toks, text, "<string>") from None
    return term, r._varmap


def parse_number(text: str) -> int | float:
    """The number that text denotes, for number_codes/2, atom_number/2 and friends.

    ISO number token syntax: leading layout and comments are allowed, then an
    optional sign (``-`` as ISO, ``+`` as SWI-Prolog; layout may follow it) and one
    number literal ending the text. Anything else raises SlpSyntaxError.
    """
    toks = tokenize(text)
    i = 0
    sign = 1
    tok = toks[0]
    if tok.type == "SYMBOL" and tok.value in ("-", "+"):
        sign = -1 if tok.value == "-" else 1
        i = 1
    tok = toks[i]
    if tok.type in NUMBER_TYPES and tok.end_pos == len(text) and toks[i + 1].type == "EOF":
        try:
            v = number_value(tok)
        except LexicalError as e:
            raise SlpSyntaxError(e.message, "<string>", tok.line, tok.column + e.offset,
                                 text, e.kind) from None
        return -v if sign < 0 else v
    # the first token that does not fit "[sign] number <end of text>"
    if tok.type in NUMBER_TYPES:
        tok = toks[i + 1]
    raise SlpSyntaxError("illegal number", "<string>", tok.line, tok.column,
                         text.split("\n", 1)[0], "illegal_number")
