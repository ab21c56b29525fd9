"""Term output builtins: write/print/writeq/write_canonical/write_term, nl, tab,
put_char and format/1,2,3.

Text to the current output goes through ``eng.write``; a stream argument is looked up
in the engine's streams (slpy.logic.streams: user_output, user_error, open files and
their aliases), whose column format's column stops count from. A stand-in engine
without streams may serve them with ``eng.stream_writer(S)`` returning a
``write(text)`` function (or None for "no such stream") and ``eng.line_position(S)``;
``eng.call_capture(Goal)`` (returning the goal's output) enables ``~@``.
"""
from __future__ import annotations

from . import det
from ..arith import eval_arith
from ...terms.term import Atom, Struct, Var, NIL, atom, deref, mklist
from ...terms.errors import instantiation_error, type_error, domain_error, existence_error
from ...terms.writer import term_to_text, parse_write_options
from ...terms.text import canonical_var_names
from .fmt import format_to_text
from ..streams import streams_of

_USER_OUTPUT = atom("user_output")
_USER_ERROR = atom("user_error")
_SYMBOL_END = frozenset("#$&*+-./:<=>?@^~\\")


def _writer(eng, stream):
    """The write(text) function for a stream argument (ISO errors otherwise)."""
    if getattr(eng, "streams", False) is not False:   # an Engine: its streams
        return streams_of(eng).get(stream, "output").write
    s = deref(stream)
    if type(s) is Var:
        raise instantiation_error()
    if s is _USER_OUTPUT:
        return eng.write
    if s is _USER_ERROR:
        return getattr(eng, "write_err", None) or eng.write
    hook = getattr(eng, "stream_writer", None)
    if hook is not None:
        w = hook(s)
        if w is not None:
            return w
    if type(s) is Atom:
        raise existence_error("stream", s)
    raise domain_error("stream_or_alias", s)


def _column(eng, stream) -> int:
    if getattr(eng, "streams", False) is not False and stream is not _USER_OUTPUT:
        st = streams_of(eng).get(stream, "output")
        return st.column if st.n > 2 else 0
    lp = getattr(eng, "line_position", None)
    return lp(stream) if lp is not None else 0


# -- write family ------------------------------------------------------------------------

def _write(eng, out, t):
    out(term_to_text(t, numbervars=True, ops=eng.ops))
    return True


def _writeq(eng, out, t):
    out(term_to_text(t, quoted=True, numbervars=True, ops=eng.ops))
    return True


def canonical_text(t, ops=None) -> str:
    """write_canonical/1's text: quoted, no operators, variables named A, B, ... and _."""
    return term_to_text(t, quoted=True, ignore_ops=True, numbervars=False, ops=ops,
                        var_names=canonical_var_names(t), brace_terms=False)


def _write_canonical(eng, out, t):
    out(canonical_text(t, eng.ops))
    return True


def _write_term(eng, out, t, opts):
    kw = parse_write_options(opts)
    fullstop = kw.pop("fullstop")
    nl = kw.pop("nl")
    text = term_to_text(t, ops=eng.ops, **kw)
    if fullstop:
        # "a- ." would otherwise glue the stop onto a symbol-char atom
        text += " ." if text and text[-1] in _SYMBOL_END else "."
        text += "\n" if nl else " "
    elif nl:
        text += "\n"
    out(text)
    return True


@det("write", 1)
def bi_write(eng, t):
    return _write(eng, eng.write, t)


@det("write", 2)
def bi_write2(eng, s, t):
    return _write(eng, _writer(eng, s), t)


@det("print", 1)
def bi_print(eng, t):
    return _writeq(eng, eng.write, t)


@det("print", 2)
def bi_print2(eng, s, t):
    return _writeq(eng, _writer(eng, s), t)


@det("writeq", 1)
def bi_writeq(eng, t):
    return _writeq(eng, eng.write, t)


@det("writeq", 2)
def bi_writeq2(eng, s, t):
    return _writeq(eng, _writer(eng, s), t)


@det("write_canonical", 1)
def bi_write_canonical(eng, t):
    return _write_canonical(eng, eng.write, t)


@det("write_canonical", 2)
def bi_write_canonical2(eng, s, t):
    return _write_canonical(eng, _writer(eng, s), t)


@det("writeln", 1)
def bi_writeln(eng, t):
    eng.write(term_to_text(t, ops=eng.ops) + "\n")
    return True


@det("writeln", 2)
def bi_writeln2(eng, s, t):
    _writer(eng, s)(term_to_text(t, ops=eng.ops) + "\n")
    return True


@det("write_term", 2)
def bi_write_term(eng, t, opts):
    return _write_term(eng, eng.write, t, opts)


@det("write_term", 3)
def bi_write_term3(eng, s, t, opts):
    out = _writer(eng, s)
    return _write_term(eng, out, t, opts)


# -- characters --------------------------------------------------------------------------

@det("nl", 0)
def bi_nl(eng):
    eng.write("\n")
    return True


@det("nl", 1)
def bi_nl1(eng, s):
    _writer(eng, s)("\n")
    return True


def _tab(eng, out, n):
    v = eval_arith(n)
    if type(v) is not int:
        raise type_error("integer", v)
    out(" " * max(v, 0))
    return True


@det("tab", 1)
def bi_tab(eng, n):
    return _tab(eng, eng.write, n)


@det("tab", 2)
def bi_tab2(eng, s, n):
    return _tab(eng, _writer(eng, s), n)


def _put_char(out, c):
    c = deref(c)
    if type(c) is Var:
        raise instantiation_error()
    if type(c) is not Atom or len(c.name) != 1:
        raise type_error("character", c)
    out(c.name)
    return True


@det("put_char", 1)
def bi_put_char(eng, c):
    return _put_char(eng.write, c)


@det("put_char", 2)
def bi_put_char2(eng, s, c):
    out = _writer(eng, s)
    return _put_char(out, c)


# -- format ------------------------------------------------------------------------------

def _format(eng, stream, fmt, args) -> str:
    call = getattr(eng, "call_capture", None)
    col = _column(eng, stream) if stream is not None else 0
    return format_to_text(fmt, args, eng.ops, start_col=col, call_goal=call)


@det("format", 1)
def bi_format1(eng, fmt):
    eng.write(_format(eng, _USER_OUTPUT, fmt, NIL))
    return True


@det("format", 2)
def bi_format2(eng, fmt, args):
    eng.write(_format(eng, _USER_OUTPUT, fmt, args))
    return True


_SINKS = {("atom", 1), ("string", 1), ("codes", 1), ("codes", 2), ("chars", 1),
          ("chars", 2)}


def is_sink(s) -> bool:
    """Is s (dereferenced) a text sink: atom(A), string(S), codes(Cs[, T]), chars(Cs[, T])?"""
    return type(s) is Struct and (s.name, len(s.args)) in _SINKS


def unify_sink(eng, s, text: str) -> bool:
    """Unify the sink s with text (format/3, with_output_to/2)."""
    kind = s.name
    if kind == "atom":
        return eng.unify(s.args[0], atom(text))
    if kind == "string":
        return eng.unify(s.args[0], text)
    items = [ord(ch) for ch in text] if kind == "codes" else [atom(ch) for ch in text]
    tail = s.args[1] if len(s.args) == 2 else NIL
    return eng.unify(s.args[0], mklist(items, tail))


@det("format", 3)
def bi_format3(eng, sink, fmt, args):
    s = deref(sink)
    if is_sink(s):
        return unify_sink(eng, s, _format(eng, None, fmt, args))
    out = _writer(eng, s)
    out(_format(eng, s, fmt, args))
    return True
