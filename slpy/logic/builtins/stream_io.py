"""Stream builtins, as SWI-Prolog 9 has them: open/3,4, close/1,2, the current input
and output, stream_property/2, and reading terms, lines and characters from a
stream (writing to one is in output.py, through the same streams).

The streams themselves, and where a file may be opened, are in slpy.logic.streams.
"""
from __future__ import annotations

from . import det, nondet
from ..streams import streams_of
from ...lang.stream_read import END_OF_FILE, read_clause_at
from ...lang.syntax_errors import SlpSyntaxError
from ...terms.errors import domain_error, instantiation_error, type_error
from ...terms.term import (NIL, Atom, PrologError, Struct, Var, atom, deref, list_items,
                           mklist)
from ...terms.walk import term_variables

_EOF = atom("end_of_file")


# -- open, close, current streams ----------------------------------------------------------

@det("open", 3)
def bi_open3(eng, src, mode, s):
    return bi_open4(eng, src, mode, s, NIL)


@det("open", 4)
def bi_open4(eng, src, mode, s, options):
    st = streams_of(eng).open(src, mode, options)
    t = deref(s)
    if type(t) is not Var:    # after the file is found, as SWI-Prolog checks
        streams_of(eng).close(st.term)
        raise PrologError(Struct("error", (Struct("uninstantiation_error", (t,)), Var())))
    # SWI-Prolog: a stream opened with an alias is known by it
    return eng.unify(s, st.term if st.alias is None else atom(st.alias))


@det("close", 1)
def bi_close(eng, s):
    streams_of(eng).close(s)
    return True


@det("close", 2)
def bi_close2(eng, s, options):
    items, tail = list_items(options)
    if type(tail) is Var or any(type(deref(o)) is Var for o in items):
        raise instantiation_error()
    if tail is not NIL:
        raise type_error("list", deref(options))
    for o in items:
        o = deref(o)
        if not (type(o) is Struct and o.name == "force" and len(o.args) == 1
                and deref(o.args[0]) in (atom("true"), atom("false"))):
            raise domain_error("close_option", o)
    streams_of(eng).close(s)
    return True


def _current(eng, s, st):
    if type(deref(s)) is not Var:      # SWI-Prolog: an alias or a stream, looked up
        return streams_of(eng).get(s) is st
    return eng.unify(s, st.term)


@det("current_input", 1)
def bi_current_input(eng, s):
    return _current(eng, s, streams_of(eng).cur_in)


@det("current_output", 1)
def bi_current_output(eng, s):
    return _current(eng, s, streams_of(eng).cur_out)


@det("set_input", 1)
def bi_set_input(eng, s):
    reg = streams_of(eng)
    reg.cur_in = reg.get(s, "input")
    return True


@det("set_output", 1)
def bi_set_output(eng, s):
    reg = streams_of(eng)
    reg.set_output(reg.get(s, "output"))
    return True


@det("flush_output", 0)
def bi_flush_output(eng):
    return True


@det("flush_output", 1)
def bi_flush_output1(eng, s):
    st = streams_of(eng).get(s, "output")
    if st.fh is not None:
        st.fh.flush()
    return True


_PROPERTIES = ("mode", "alias", "file_name", "input", "output", "type", "eof_action")


def _properties(st):
    yield Struct("mode", (atom(st.mode),))
    yield atom("input") if st.is_input else atom("output")
    if st.alias is not None:
        yield Struct("alias", (atom(st.alias),))
    if st.path is not None:
        yield Struct("file_name", (atom(st.path),))
    yield Struct("type", (atom("text"),))
    yield Struct("eof_action", (atom("eof_code"),))


@nondet("stream_property", 2)
def bi_stream_property(eng, s, p):
    reg = streams_of(eng)
    t, prop = deref(s), deref(p)
    if type(prop) is not Var and not (
            (type(prop) is Atom or type(prop) is Struct) and prop.name in _PROPERTIES):
        return
    if type(t) is not Var:
        st = reg.get(t)
        for q in _properties(st):
            if eng.try_unify(p, q):
                yield
        return
    for st in list(reg.by_n.values()):
        for q in _properties(st):
            if eng.try_unify(Struct("-", (s, p)), Struct("-", (st.term, q))):
                yield


def _input(eng, s=None):
    reg = streams_of(eng)
    return reg.cur_in if s is None else reg.get(s, "input")


def _at_end(st) -> bool:
    while st.pos >= len(st.text):
        if not st.fill():
            return True
    return False


@det("at_end_of_stream", 0)
def bi_at_end_of_stream0(eng):
    return _at_end(_input(eng))


@det("at_end_of_stream", 1)
def bi_at_end_of_stream(eng, s):
    return _at_end(_input(eng, s))


# -- reading terms -----------------------------------------------------------------------

_READ_OPTIONS = {"variable_names", "variables", "singletons", "syntax_errors",
                 "double_quotes", "backquoted_string", "module", "term_position",
                 "subterm_positions", "comments", "dotlists", "var_prefix", "cycles"}


def _read_options(opts) -> list:
    items, tail = list_items(opts)
    if type(tail) is Var:
        raise instantiation_error()
    if tail is not NIL:
        raise type_error("list", deref(opts))
    out = []
    for o in items:
        o = deref(o)
        if type(o) is Var:
            raise instantiation_error()
        if type(o) is not Struct:
            raise type_error("option", o)
        if len(o.args) == 1 and o.name in _READ_OPTIONS:
            out.append(o)        # SWI-Prolog ignores other compound options
    return out


def read_from(eng, st):
    """The next clause of stream st as a ReadResult (end_of_file at the end); a
    syntax error skips the bad clause and is raised."""
    name = st.path or st.alias or "<stream>"
    while True:
        try:
            r, pos = read_clause_at(st.text, st.pos, eng.ops, eng.flags, name,
                                    at_eof=st.more is None)
        except SlpSyntaxError as e:
            st.pos = e.resume
            raise
        if r is not None and (r.term is not END_OF_FILE or st.more is None):
            st.pos = pos
            return r
        st.fill()         # user_input: more lines until a whole clause or the end


def _read_term(eng, st, t, opts):
    options = _read_options(opts)
    r = read_from(eng, st)
    if not eng.unify(t, r.term):
        return False
    for o in options:
        v = o.args[0]
        if o.name == "variable_names":
            ok = eng.unify(v, mklist([Struct("=", (atom(n), x)) for n, x in r.varnames.items()]))
        elif o.name == "variables":
            ok = eng.unify(v, mklist(term_variables(r.term)))
        elif o.name == "singletons":
            ok = eng.unify(v, mklist([Struct("=", (atom(n), r.varnames[n]))
                                      for n in r.singletons]))
        else:
            continue
        if not ok:
            return False
    return True


@det("read", 1)
def bi_read(eng, t):
    return _read_term(eng, _input(eng), t, NIL)


@det("read", 2)
def bi_read2(eng, s, t):
    return _read_term(eng, _input(eng, s), t, NIL)


@det("read_term", 2)
def bi_read_term(eng, t, opts):
    return _read_term(eng, _input(eng), t, opts)


@det("read_term", 3)
def bi_read_term3(eng, s, t, opts):
    return _read_term(eng, _input(eng, s), t, opts)


# -- lines and characters ------------------------------------------------------------------

@det("read_line_to_string", 2)
def bi_read_line_to_string(eng, s, out):
    line = _input(eng, s).read_line()
    return eng.unify(out, _EOF if line is None else line)


@det("read_line_to_codes", 2)
def bi_read_line_to_codes(eng, s, out):
    line = _input(eng, s).read_line()
    return eng.unify(out, -1 if line is None else mklist([ord(c) for c in line]))


def _char(eng, st, c, advance):
    want = deref(c)
    if type(want) is not Var and not (type(want) is Atom and (
            len(want.name) == 1 or want is _EOF)):
        raise type_error("in_character", want)
    if _at_end(st):
        return eng.unify(c, _EOF)
    ch = st.text[st.pos]
    if advance:
        st.pos += 1
    return eng.unify(c, atom(ch))


@det("get_char", 1)
def bi_get_char(eng, c):
    return _char(eng, _input(eng), c, True)


@det("get_char", 2)
def bi_get_char2(eng, s, c):
    return _char(eng, _input(eng, s), c, True)


@det("peek_char", 1)
def bi_peek_char(eng, c):
    return _char(eng, _input(eng), c, False)


@det("peek_char", 2)
def bi_peek_char2(eng, s, c):
    return _char(eng, _input(eng, s), c, False)

