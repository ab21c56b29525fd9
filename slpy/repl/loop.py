"""The top level's two front ends, and reading queries from text.

``run_tty`` is the terminal (prompt_toolkit: line editing, history, multi-line
queries, completion of predicate names, one key to act on an answer). ``run_stream``
reads standard input that is not a terminal: queries are read whole, and a line made
of ``;``/``t`` characters after an answer that waits acts like those keys. ``run`` is
`slpy repl`: it makes the Session, loads the files and picks the front end.
"""
from __future__ import annotations

import os
import re
import signal
import sys

from .._version import __version__
from ..lang.syntax_errors import SlpSyntaxError
from ..lang.tokens import tokenize
from ..logic.kinds import Halt
from .session import Session

__all__ = ["run", "run_tty", "run_stream", "query_state", "split_queries",
           "HISTORY_ENV", "DEFAULT_HISTORY"]

HISTORY_ENV = "SLPY_HISTORY"
DEFAULT_HISTORY = "~/.slpy_history"


# -- reading queries --------------------------------------------------------------------

def query_state(text: str) -> str:
    """'empty' (only layout and comments), 'complete' (ends with a full stop) or
    'incomplete' (more lines are needed)."""
    toks = [t for t in tokenize(text) if t.type != "EOF"]
    if not toks:
        return "empty"
    return "complete" if toks[-1].type == "END" else "incomplete"


def split_queries(text: str) -> list[str]:
    """The queries of text, each ending with its full stop (text after the last full
    stop, if any, is returned as a last item without one)."""
    out = []
    start = 0
    for t in tokenize(text):
        if t.type == "END":
            out.append(text[start:t.end_pos])
            start = t.end_pos
    rest = text[start:]
    if query_state(rest) != "empty":
        out.append(rest)
    return out


# -- standard input not a terminal ----------------------------------------------------------

class _Lines:
    """Lines of a stream, with push-back."""

    def __init__(self, stream):
        self.stream = stream
        self.pending: list[str] = []

    def readline(self):
        if self.pending:
            return self.pending.pop()
        line = self.stream.readline()
        return line if line else None

    def unread(self, line):
        self.pending.append(line)


_ACTION_CHARS = frozenset(";t.h? ")


def run_stream(session: Session, stream) -> int:
    """Read queries from a stream (a pipe, a file) until end of file or halt; return
    the exit status. No prompt is written; answers are written as in a terminal."""
    lines = _Lines(stream)
    queue: list[str] = []
    # read/1 from user_input reads the lines after the query, as in SWI-Prolog
    session.program.engine.read_line = lambda: lines.readline() or ""

    def ask():
        if queue:
            return queue.pop(0)
        line = lines.readline()
        if line is None:
            return "stop"
        s = line.strip()
        if not s:
            return "stop"
        if set(s) <= _ACTION_CHARS:
            queue.extend(c for c in s if c != " ")
            return queue.pop(0)
        lines.unread(line)
        return "stop"

    interrupt_exits = stream.isatty() if hasattr(stream, "isatty") else False
    buf = ""
    while True:
        try:
            line = lines.readline()
            if line is None:
                if query_state(buf) != "empty":
                    session.error("Syntax error: Unexpected end of file")
                return 0
            if not buf and line.strip() and set(line.strip()) <= _ACTION_CHARS:
                continue  # an action line after an answer that did not wait: nothing to do
            buf += line
            state = query_state(buf)
            if state == "empty":
                buf = ""
                continue
            if state == "incomplete":
                continue
            text, buf = buf, ""
            for q in split_queries(text):
                queue.clear()
                session.execute(q, ask)
        except Halt as h:
            session.flush()
            return h.code
        except KeyboardInterrupt:
            # outside a query (execute handles its own): on a terminal Ctrl-C ends the
            # session, from a pipe the input goes on
            if interrupt_exits:
                return 130
            session.reset_engine()


# -- terminal ---------------------------------------------------------------------------------

def _read_key() -> str:
    """One key press from the terminal (cbreak mode: no echo, Ctrl-C still signals)."""
    import termios
    import tty
    fd = sys.stdin.fileno()
    old = termios.tcgetattr(fd)
    try:
        tty.setcbreak(fd, termios.TCSANOW)  # keep keys typed ahead
        b = os.read(fd, 1)
    finally:
        termios.tcsetattr(fd, termios.TCSADRAIN, old)
    if not b:
        return "\x04"
    if b == b"\x1b":  # an escape sequence (arrow keys...): read it all, not an action
        import select
        while select.select([fd], [], [], 0.05)[0]:
            if not os.read(fd, 16):
                break
        return "\x1b"
    try:
        return b.decode()
    except UnicodeDecodeError:
        return "?"


_WORD_BEFORE = re.compile(r"(?<![A-Za-z0-9_])[a-z][A-Za-z0-9_]*$")


def _completer(program):
    from prompt_toolkit.completion import Completer, Completion

    class PredicateCompleter(Completer):
        """Completes the name before the cursor with the names of known predicates
        (user, library, builtin, top-level commands), showing their arities."""

        def get_completions(self, document, complete_event):
            m = _WORD_BEFORE.search(document.text_before_cursor)
            if m is None:
                return
            word = m.group(0)
            arities: dict[str, list[int]] = {}
            for (name, arity), pred in list(program.db.preds.items()):
                if name.startswith(word) and not name.startswith("$") and (
                        pred.defined or pred.clauses or pred.dynamic):
                    arities.setdefault(name, []).append(arity)
            for name in sorted(arities):
                meta = ", ".join(f"/{a}" for a in sorted(arities[name]))
                yield Completion(name, start_position=-len(word), display_meta=meta)

    return PredicateCompleter()


def _history(path):
    from prompt_toolkit.history import FileHistory, InMemoryHistory
    path = os.path.expanduser(path)
    try:
        with open(path, "a", encoding="utf-8"):
            pass
        return FileHistory(path)
    except OSError:
        return InMemoryHistory()


def run_tty(session: Session, history_path: str | None = None, banner: bool = True) -> int:
    """The interactive top level on a terminal; returns the exit status."""
    from prompt_toolkit import PromptSession
    from prompt_toolkit.key_binding import KeyBindings

    kb = KeyBindings()

    @kb.add("enter")
    def _enter(event):
        buf = event.current_buffer
        if query_state(buf.text) == "incomplete":
            buf.insert_text("\n")
        else:
            buf.validate_and_handle()

    session.interactive = True
    if history_path is None:
        history_path = os.environ.get(HISTORY_ENV) or DEFAULT_HISTORY
    ps = PromptSession(multiline=True, key_bindings=kb, history=_history(history_path),
                       completer=_completer(session.program), complete_while_typing=False,
                       prompt_continuation="|    ")
    if banner:
        session.write(f"slpy {__version__}: stochastic logic programs. "
                      "help. for help, halt. or Ctrl-D to exit.\n\n")
    session.flush()
    while True:
        session.fresh_line()
        session.flush()
        try:
            text = ps.prompt("?- ")
        except KeyboardInterrupt:
            continue
        except EOFError:
            session.write("\n")
            session.flush()
            return 0
        session.at_line_start = True
        try:
            for q in split_queries(text):
                session.execute(q, _read_key)
        except Halt as h:
            session.flush()
            return h.code
        except KeyboardInterrupt:
            session.reset_engine()
            session.write("\n")
            session.message("% Execution Aborted")
        session.write("\n")


def run(files=(), seed=None, pure=False, params=(), history=None, quiet=False,
        debug=False, stdin=None, setup=None, limits=None) -> int:
    """`slpy repl`: load the files, then read queries from the terminal or the input
    stream. params: (name, value text) pairs for Program.set_param, each value read as
    a term; setup(program), if given, runs before the files load (to attach data);
    limits: Program() limits of each query (slpy.limits.program_limits).
    Returns the exit status."""
    stdin = stdin if stdin is not None else sys.stdin
    try:
        signal.signal(signal.SIGINT, signal.default_int_handler)
    except (ValueError, OSError):  # not the main thread
        pass
    session = Session(seed=seed, pure=pure, debug=debug, **(limits or {}))
    if setup is not None:
        setup(session.program)
    for name, text in params:
        try:
            value, _ = session.program.parse_query(text)
        except SlpSyntaxError as e:
            session.message(f"Error: -p {name}={text}: {e.message}")
            return 2
        session.program.set_param(name, value)
    try:
        session.load_files(files)
    except Halt as h:
        session.flush()
        return h.code
    from ..logic.params import ParamError
    try:
        session.program.check_params()    # the domains the files declare
    except ParamError as e:
        session.message(f"Error: -p {e}")
        return 2
    interactive = (stdin is sys.stdin and stdin.isatty() and sys.stdout.isatty())
    if interactive:
        return run_tty(session, history, banner=not quiet)
    return run_stream(session, stdin)
