"""The interactive top level: SWI-Prolog's answers, plus what is stochastic about an SLP.

A query runs with the session's random generator in the engine, so every labelled
predicate (and stochastic builtin) it calls draws a clause. An answer whose proof made
no stochastic choice prints exactly as SWI-Prolog prints it (``X = 3,`` / ``Y = foo.``,
``true.``, ``false.``); an answer that did is a sample, and a comment line before its
bindings gives its probability (``% p = 0.25 (log p = -1.386)``); ``t`` shows its proof
tree. ``;`` asks for the next answer: ordinary backtracking, which under backtrackable
sampling draws again among the untried choices; under pure sampling it draws a fresh,
independent sample.

Two front ends share the Session: ``run_tty`` (prompt_toolkit: line editing, history,
multi-line queries, completion of predicate names, one key to act on an answer) and
``run_stream`` (standard input not a terminal: queries are read whole, and a line made
of ``;``/``t`` characters after an answer that waits acts like those keys).
"""
from __future__ import annotations

import math
import os
import re
import signal
import sys
import traceback

import numpy as np

from ._version import __version__
from .logic.program import Program, LoadErrors
from .logic.kinds import (Halt, SampleFailed, SAMPLE, PURE, CP_BOTTOM, CP_CATCH,
                          CP_DISABLED, CP_PURE, CP_FENCE, CP_KIND)
from .logic.proof import build_tree
from .logic.coroutining import residual_goals
from .terms.term import Var, Struct, PrologError, deref, compare
from .lang.syntax_errors import SlpSyntaxError
from .lang.tokens import tokenize
from .terms.writer import term_to_text
from .terms.text import var_letter_name
from .logic.builtins.typecheck import is_acyclic
from . import repl_commands

HISTORY_ENV = "SLPY_HISTORY"
DEFAULT_HISTORY = "~/.slpy_history"

# choice point kinds that cannot produce another answer
_NO_ANSWER_CPS = frozenset((CP_BOTTOM, CP_CATCH, CP_DISABLED, CP_PURE, CP_FENCE))


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


# -- showing answers ----------------------------------------------------------------------

def _same(a, b, cyclic) -> bool:
    if type(a) is Var or type(b) is Var or id(a) in cyclic or id(b) in cyclic:
        return a is b
    return compare(a, b) == 0


def _break_cycles(t, names: dict, var_names: dict):
    """A copy of the cyclic term t in which each subterm that contains itself is written
    as a variable: ``_S1``, ``_S2``, ..., or the name of the query variable whose value
    it is (``X = f(X)``, as SWI-Prolog writes it; names: id(cyclic value) -> name; such
    a value is written as its name wherever it occurs below t). The new variables'
    names go to var_names."""
    back: dict = {}

    def var_for(x):
        v = back.get(id(x))
        if v is None:
            v = back[id(x)] = Var()
            var_names[v] = names.get(id(x)) or f"_S{len(back)}"
        return v

    on_path = {id(t)}
    stack = [[t, 0, []]]
    while True:
        frame = stack[-1]
        node, i, built = frame
        if i == len(node.args):
            stack.pop()
            on_path.discard(id(node))
            new = Struct(node.name, tuple(built))
            if not stack:
                return new
            stack[-1][2].append(new)
            continue
        frame[1] = i + 1
        a = deref(node.args[i])
        if type(a) is Struct:
            if id(a) in on_path or id(a) in names:
                built.append(var_for(a))
            else:
                on_path.add(id(a))
                stack.append([a, 0, []])
        else:
            built.append(a)


def answer_bindings(varnames: dict, ops=None, residual=()) -> str:
    """The bindings of an answer as SWI-Prolog's top level writes them, without the
    final ``.`` or `` ;``: one line per group of variables with the same value
    (``X = Y, Y = 1``), then the goals still suspended on them (``dif(X, a)``),
    ``true`` when there is neither. Variables whose names start with ``_`` are not
    shown; fresh variables in values are ``_`` (once) or ``_A``, ``_B``, ...
    (shared)."""
    shown = [n for n in varnames if not n.startswith("_")]
    cyclic = set()
    for n in shown:
        v = deref(varnames[n])
        if type(v) is Struct and not is_acyclic(v):
            cyclic.add(id(v))
    groups: list[tuple[list[str], object]] = []
    for n in shown:
        v = deref(varnames[n])
        for names, val in groups:
            if _same(val, v, cyclic):
                names.append(n)
                break
        else:
            groups.append(([n], v))
    names_of: dict = {}
    for names, val in groups:
        if type(val) is Var:
            names_of[val] = names[-1]
    for n, v in varnames.items():
        v = deref(v)
        if n.startswith("_") and type(v) is Var and v not in names_of:
            names_of[v] = n
    if cyclic:
        value_names = {id(val): names[-1] for names, val in groups if id(val) in cyclic}
        groups = [(names, _break_cycles(val, value_names, names_of)
                   if id(val) in cyclic else val) for names, val in groups]
    printed = [val for names, val in groups if type(val) is not Var] + list(residual)
    # the other variables: _ when they occur once in the answer, _A, _B, ... otherwise
    counts: dict = {}
    order = []
    stack = list(reversed(printed))
    while stack:
        x = deref(stack.pop())
        if type(x) is Var:
            if x not in names_of:
                if x not in counts:
                    counts[x] = 0
                    order.append(x)
                counts[x] += 1
        elif type(x) is Struct:
            stack.extend(reversed(x.args))
    used = set(names_of.values())
    k = 0
    for x in order:
        if counts[x] == 1:
            names_of[x] = "_"
            continue
        while True:
            name = "_" + var_letter_name(k)
            k += 1
            if name not in used:
                break
        names_of[x] = name
    lines = []
    for names, val in groups:
        eqs = [f"{a} = {b}" for a, b in zip(names, names[1:])]
        if type(val) is not Var:
            eqs.append(f"{names[-1]} = " + term_to_text(
                val, quoted=True, spacing=True, ops=ops, priority=699, var_names=names_of))
        if eqs:
            lines.append(", ".join(eqs))
    for g in residual:
        lines.append(term_to_text(g, quoted=True, spacing=True, ops=ops, priority=999,
                                  var_names=names_of))
    return ",\n".join(lines) if lines else "true"


def prob_line(logp: float) -> str:
    return f"% p = {math.exp(logp):.4g} (log p = {logp:.4g})"


def format_load_error(e) -> str:
    """One line for a problem found while loading: file:line[:col]: message."""
    if isinstance(e, SlpSyntaxError):
        msg = e.message[:1].upper() + e.message[1:]
        return f"{e.filename}:{e.line}:{e.col}: Syntax error: {msg}"
    return str(e)


def format_error(e) -> str:
    """The words of an error, for ``ERROR: ...``."""
    if isinstance(e, SlpSyntaxError):
        msg = e.message[:1].upper() + e.message[1:]
        where = f"line {e.line}, column {e.col}" if e.line > 1 else f"column {e.col}"
        return f"Syntax error at {where}: {msg}"
    return str(e)


# -- the session --------------------------------------------------------------------------

ACTION_KEYS = {";": "next", "n": "next", "r": "next", " ": "next", "\t": "next",
               "\r": "stop", "\n": "stop", ".": "stop", "c": "stop", "a": "stop",
               "\x04": "stop", "t": "tree", "h": "help", "?": "help"}


class Session:
    """One top level: a Program with the top-level commands, the random generator of
    the session, the last stochastic answer's proof tree, and the output streams."""

    def __init__(self, seed=None, pure=False, stdout=None, stderr=None, debug=False,
                 max_steps=None, timeout=None, max_memory=None):
        self.stdout = stdout if stdout is not None else sys.stdout
        self.stderr = stderr if stderr is not None else sys.stderr
        self.debug = debug
        self.interactive = False
        self.at_line_start = True
        self.program = Program(max_steps=max_steps, timeout=timeout, max_memory=max_memory,
                               out=self.write)
        self.program.engine.write_err = self._write_err
        if pure:
            self.program.flags["sampling"] = "pure"
        self.rng = np.random.default_rng(seed)
        self.last_tree = None
        self.last_logp = None
        self.errors = 0
        repl_commands.register(self)

    # -- output --
    def write(self, text: str) -> None:
        if text:
            self.stdout.write(text)
            self.at_line_start = text.endswith("\n")

    def _write_err(self, text: str) -> None:
        self.fresh_line()
        self.stdout.flush()
        self.stderr.write(text)
        self.stderr.flush()

    def fresh_line(self) -> None:
        if not self.at_line_start:
            self.write("\n")

    def message(self, text: str) -> None:
        """A line for the user (warnings, errors, information) on standard error."""
        self._write_err(text + "\n")

    def error(self, text: str) -> None:
        self.errors += 1
        self.message("ERROR: " + text)

    def flush(self) -> None:
        self.stdout.flush()
        self.stderr.flush()

    # -- state --
    def set_seed(self, seed) -> None:
        self.rng = np.random.default_rng(seed)
        eng = self.program.engine
        if eng.rng is not None:   # a running query draws from the new generator
            eng.rng = self.rng

    def consult(self, path) -> None:
        """Load a file; load errors are printed (ERROR: file:line: ...), loading goes
        on; a missing file raises PrologError."""
        try:
            self.program.consult(path)
        except LoadErrors as e:
            for err in sorted(e.errors, key=lambda x: getattr(x, "line", 0) or 0):
                self.error(format_load_error(err))

    def load_files(self, files) -> None:
        for f in files:
            try:
                self.consult(f)
            except PrologError as e:
                self.error(format_error(e))

    def reset_engine(self) -> None:
        """After an interrupted query: no choice points, no trail, plain mode."""
        self.program.engine.reset()

    # -- running queries --
    def _has_alternatives(self) -> bool:
        return any(cp[CP_KIND] not in _NO_ANSWER_CPS for cp in self.program.engine.cps)

    def execute(self, text: str, ask) -> None:
        """Run one query and show its answers; ask() gives the user's action after an
        answer that has alternatives ('next', 'stop', 'tree', 'help' or another key).
        Errors are printed; Halt propagates; Ctrl-C aborts the query."""
        try:
            self._execute(text, ask)
        except (Halt, SystemExit):
            raise
        except KeyboardInterrupt:
            self.reset_engine()
            if self.interactive:   # past the ^C the terminal echoed
                self.write("\n")
            self.message("% Execution Aborted")
        except PrologError as e:
            self.error(format_error(e))
        except LoadErrors as e:
            for err in e.errors:
                self.error(format_load_error(err))
        except RecursionError:
            self.reset_engine()
            self.error("Not enough resources: Python stack (term too deep)")
        except Exception as e:  # a bug: say so in one line, go on
            self.reset_engine()
            if self.debug:
                traceback.print_exc(file=self.stderr)
            self.error(f"Internal error: {type(e).__name__}: {e}")
        finally:
            self.flush()

    def _execute(self, text, ask):
        p = self.program
        eng = p.engine
        goal, varnames = p.parse_query(text)
        while True:
            pure = p.flags.get("sampling") == "pure"
            session = eng.session(PURE if pure else SAMPLE, self.rng)
            session.__enter__()
            gen = eng.solve(goal)
            resample = False
            try:
                while True:
                    try:
                        next(gen)
                    except StopIteration:
                        self.fresh_line()
                        self.write("false.\n")
                        return
                    except SampleFailed:
                        self.fresh_line()
                        self.write("% the sample failed (pure sampling)\nfalse.\n")
                        return
                    stochastic = eng.plog is not None
                    pure = eng.mode == PURE
                    lines = []
                    if stochastic:
                        self.last_tree = build_tree(eng.plog)
                        self.last_logp = eng.logp
                        lines.append(prob_line(eng.logp))
                    residual = residual_goals(eng, Struct("$", tuple(varnames.values()))) \
                        if eng.attrs else ()
                    lines.append(answer_bindings(varnames, p.ops, residual))
                    block = "\n".join(lines)
                    self.fresh_line()
                    self.write(block)
                    more = (stochastic and pure) or self._has_alternatives()
                    if not more:
                        self.write(".\n")
                        return
                    action = self._ask(ask, block, stochastic)
                    if action == "stop":
                        self.write(".\n")
                        return
                    self.write(" ;\n")
                    if stochastic and pure:
                        resample = True
                        break
            finally:
                gen.close()
                session.__exit__(None, None, None)
            if resample:
                goal, varnames = p.parse_query(text)

    def _ask(self, ask, block, stochastic):
        while True:
            self.flush()
            key = ask()
            action = ACTION_KEYS.get(key, key) if len(key) == 1 else key
            if action in ("next", "stop"):
                return action
            if action == "\x1b":
                continue
            if action == "tree":
                if stochastic:
                    self.write("\n" + repl_commands.format_proof(
                        self.last_tree, self.last_logp, self.program.ops) + "\n" + block)
                else:
                    self.write("\n% no stochastic choice in this answer\n" + block)
            elif action == "help":
                self.write("\n" + _ACTION_HELP + block)
            else:
                self.write(f"\n% Unknown action: {key!r} (h for help)\n" + block)


_ACTION_HELP = """\
Actions:
  ;  n  r  space   next answer (stochastic: another draw)
  Enter  .  c  a   stop
  t                proof tree of this answer
  h  ?             this help
"""


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
    interactive = (stdin is sys.stdin and stdin.isatty() and sys.stdout.isatty())
    if interactive:
        return run_tty(session, history, banner=not quiet)
    return run_stream(session, stdin)
