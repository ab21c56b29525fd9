"""Streams, as SWI-Prolog has them: user_input, user_output and user_error, the files
a program opens with open/3,4, their aliases, and the current input and output.

A stream term is ``'$stream'(N)`` (SWI writes its blob as ``<stream>(0x...)``). An
input file is read whole when it is opened and read from a position; user_input
grows by a line at a time (``eng.read_line``, else standard input). Current output
is ``eng.out``, the function every write/1 goes through: set_output/1 points it at
the stream's writer. Files open only where the program's sandbox allows
(slpy.logic.sandbox: the load folders, and at the top level its current folder).
"""
from __future__ import annotations

import atexit
import os
import sys

from ..terms.errors import (domain_error, existence_error, instantiation_error,
                            permission_error, type_error)
from ..terms.term import NIL, Atom, Struct, Var, atom, deref, list_items

__all__ = ["Stream", "Streams", "streams_of"]

_MODES = ("read", "write", "append")
# open/4 options checked as SWI-Prolog checks them; they change nothing here (text
# files in UTF-8). SWI-Prolog ignores other compound options.
_CHECKED = {"type": ("text", "binary"), "eof_action": ("error", "eof_code", "reset"),
            "reposition": ("true", "false"), "bom": ("true", "false")}


class Stream:
    """One stream: its number, mode, file and alias; input: the text and the position
    read to; output: where its text goes, and the column written to."""

    __slots__ = ("n", "mode", "path", "alias", "text", "pos", "fh", "out", "more",
                 "column", "term", "linenum")

    def __init__(self, n, mode, path=None, alias=None):
        self.n = n
        self.mode = mode
        self.path = path
        self.alias = alias
        self.text = ""
        self.pos = 0
        self.fh = None        # an output file
        self.out = None       # an output function (the standard streams)
        self.more = None      # user_input: a function giving the next line ("" at end)
        self.column = 0
        self.linenum = 1
        self.term = Struct("$stream", (n,))

    @property
    def is_input(self) -> bool:
        return self.mode == "read"

    def write(self, s: str) -> None:
        if self.fh is not None:
            self.fh.write(s)
        else:
            self.out(s)
        nl = s.rfind("\n")
        self.column = self.column + len(s) if nl < 0 else len(s) - nl - 1

    def fill(self) -> bool:
        """Read one more line into the text (user_input); False at the end."""
        if self.more is None:
            return False
        if self.pos > 65536:       # keep what is still to be read only
            self.text, self.pos = self.text[self.pos:], 0
        line = self.more()
        if not line:
            self.more = None
            return False
        self.text += line
        return True

    def read_line(self):
        """The next line without its newline; None at the end of the stream."""
        while "\n" not in self.text[self.pos:] and self.fill():
            pass
        if self.pos >= len(self.text):
            return None
        end = self.text.find("\n", self.pos)
        end = len(self.text) if end < 0 else end
        line = self.text[self.pos:end]
        self.pos = end + 1
        self.linenum += 1
        return line[:-1] if line.endswith("\r") else line

    def close(self) -> None:
        if self.fh is not None:
            self.fh.close()
            self.fh = None


class Streams:
    """The streams of one engine (made on first use: streams_of)."""

    def __init__(self, eng):
        self.eng = eng
        self.next_n = 3
        ui = Stream(0, "read", alias="user_input")
        ui.more = self._stdin_line
        uo = Stream(1, "append", alias="user_output")
        uo.out = self._user_output
        ue = Stream(2, "append", alias="user_error")
        ue.out = lambda s: eng.write_err(s)
        self.user = (ui, uo, ue)
        self.by_n = {0: ui, 1: uo, 2: ue}
        self.aliases = {"user_input": ui, "user_output": uo, "user_error": ue}
        self.cur_in = ui
        self.cur_out = uo
        self.at_exit = False       # flush_all registered to run at exit

    def _stdin_line(self) -> str:
        rl = self.eng.read_line
        return rl() if rl is not None else sys.stdin.readline()

    def _user_output(self, s: str) -> None:
        prog = self.eng.program
        (prog.out if prog is not None else self.eng.out)(s)

    # -- finding a stream ---------------------------------------------------------
    def get(self, t, want: str | None = None) -> Stream:
        """The stream a stream term or alias names (ISO errors otherwise); want:
        input or output, a permission error for a stream of the other direction."""
        s = deref(t)
        if type(s) is Var:
            raise instantiation_error()
        if type(s) is Atom:
            st = self.aliases.get(s.name)
        elif type(s) is Struct and s.name == "$stream" and len(s.args) == 1:
            st = self.by_n.get(deref(s.args[0]))
        else:
            raise domain_error("stream_or_alias", s)
        if st is None:
            raise existence_error("stream", s)
        if want == "input" and not st.is_input:
            raise permission_error("input", "stream", s)
        if want == "output" and st.is_input:
            raise permission_error("output", "stream", s)
        return st

    def set_output(self, st: Stream) -> None:
        self.cur_out = st
        self.eng.out = st.out if st.n == 1 else st.write

    # -- open and close -----------------------------------------------------------------
    def open(self, src, mode, options) -> Stream:
        """open/4: the new stream (ISO errors for bad arguments, SWI's for files)."""
        src, mode = deref(src), deref(mode)
        if type(src) is Var or type(mode) is Var:
            raise instantiation_error()
        if type(mode) is not Atom:
            raise type_error("atom", mode)
        if mode.name not in _MODES:
            raise domain_error("io_mode", mode)
        alias = _open_options(options)
        if type(src) is Atom:
            name = src.name
        elif type(src) is str:
            name = src
        else:
            raise domain_error("source_sink", src)
        if alias is not None and alias in self.aliases:
            raise permission_error("open", "source_sink",
                                   Struct("alias", (atom(alias),)))
        prog = self.eng.program
        if prog is not None:
            prog.sandbox.check(os.path.abspath(name), name, action="open")
        st = Stream(self.next_n, mode.name, path=name, alias=alias)
        try:
            if mode.name == "read":
                with open(name, encoding="utf-8", errors="replace") as f:
                    st.text = f.read()
            else:
                st.fh = open(name, "w" if mode.name == "write" else "a", encoding="utf-8")
                if not self.at_exit:  # a file left open (then halt) keeps what was written
                    atexit.register(self.flush_all)
                    self.at_exit = True
        except FileNotFoundError:
            raise existence_error("source_sink", src) from None
        except OSError:
            raise permission_error("open", "source_sink", src) from None
        self.next_n += 1
        self.by_n[st.n] = st
        if alias is not None:
            self.aliases[alias] = st
        return st

    def close(self, t) -> None:
        st = self.get(t)
        if st.n < 3:
            return          # closing a standard stream does nothing (SWI-Prolog)
        st.close()
        del self.by_n[st.n]
        if st.alias is not None:
            self.aliases.pop(st.alias, None)
        if self.cur_in is st:
            self.cur_in = self.user[0]
        if self.cur_out is st:
            self.set_output(self.user[1])

    def flush_all(self) -> None:
        for st in list(self.by_n.values()):
            if st.fh is not None and not st.fh.closed:
                st.fh.flush()


def _open_options(options):
    """The alias among open/4's options (checked as ISO and SWI-Prolog check them)."""
    items, tail = list_items(options)
    if type(tail) is Var:
        raise instantiation_error()
    if tail is not NIL:
        raise type_error("list", deref(options))
    alias = None
    for o in items:
        o = deref(o)
        if type(o) is Var:
            raise instantiation_error()
        if type(o) is not Struct:
            raise type_error("option", o)
        v = deref(o.args[0])
        if type(v) is Var:
            raise instantiation_error()
        if o.name == "alias" and len(o.args) == 1:
            if type(v) is not Atom:
                raise domain_error("stream_option", o)
            alias = v.name
        elif o.name in _CHECKED and len(o.args) == 1 and (
                type(v) is not Atom or v.name not in _CHECKED[o.name]):
            raise domain_error("stream_option", o)
    return alias


def streams_of(eng) -> Streams:
    """The engine's streams, made on first use."""
    st = eng.streams
    if st is None:
        st = eng.streams = Streams(eng)
    return st
