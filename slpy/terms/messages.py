"""The one-line SWI-Prolog-style message for an error ball (``describe_error``), as the
REPL, the CLI and uncaught errors print it."""
from __future__ import annotations

from .writer import term_to_text
from .term import Atom, Struct, Var, NIL, atom, deref, list_items
from .rational import Rational

__all__ = ["describe_error"]


def _q(t) -> str:
    return term_to_text(t, quoted=True, max_depth=10)


def _kind(t) -> str:
    t = deref(t)
    if type(t) is Var:
        return "a var"
    if type(t) is int:
        return "an integer"
    if type(t) is float:
        return "a float"
    if type(t) is Rational:
        return "a rational"
    if type(t) is Atom:
        return "an atom"
    if type(t) is str:
        return "a string"
    items, tail = list_items(t)
    if items and tail is NIL:
        return "a list"
    return "a compound"


def _plain(t) -> str:
    t = deref(t)
    if type(t) is Atom:
        return t.name
    if type(t) is str:
        return t
    return _q(t)


def _culprit(kind, t) -> str:
    """A culprit as the message shows it: a file name as it is, not quoted."""
    return _plain(t) if kind is atom("source_sink") else _q(t)


def _formal_message(f) -> str:
    f = deref(f)
    if type(f) is Atom:
        if f.name == "instantiation_error":
            return "Arguments are not sufficiently instantiated"
        if f.name == "system_error":
            return "System error"
        return f"Unknown error term: {_q(f)}"
    if type(f) is not Struct:
        return f"Unknown error term: {_q(f)}"
    a = [deref(x) for x in f.args]
    key = (f.name, len(a))
    if key == ("type_error", 2):
        if a[0] is atom("evaluable"):
            return f"Arithmetic: evaluable `{_plain(a[1])}' does not exist"
        return f"Type error: `{_plain(a[0])}' expected, found `{_q(a[1])}' ({_kind(a[1])})"
    if key == ("domain_error", 2):
        return f"Domain error: `{_plain(a[0])}' expected, found `{_q(a[1])}'"
    if key == ("existence_error", 2):
        if a[0] is atom("procedure"):
            return f"Unknown procedure: {_q(a[1])}"
        return f"{_plain(a[0])} `{_culprit(a[0], a[1])}' does not exist"
    if key == ("existence_error", 3):
        return f"{_plain(a[0])} `{_q(a[1])}' does not exist in {_q(a[2])}"
    if key == ("permission_error", 3):
        return f"No permission to {_plain(a[0])} {_plain(a[1])} `{_culprit(a[1], a[2])}'"
    if key == ("representation_error", 1):
        return f"Cannot represent due to `{_plain(a[0])}'"
    if key == ("evaluation_error", 1):
        return f"Arithmetic: evaluation error: {_plain(a[0])}"
    if key == ("resource_error", 1):
        return f"Not enough resources: {_plain(a[0])}"
    if key == ("syntax_error", 1):
        msg = _plain(a[0])
        if type(a[0]) is Atom and " " not in msg:
            msg = msg.replace("_", " ")
            msg = msg[:1].upper() + msg[1:]
        return f"Syntax error: {msg}"
    if key == ("uninstantiation_error", 1):
        return f"Uninstantiated argument expected, found {_q(a[0])}"
    if key == ("format", 1):
        return f"Format error: {_plain(a[0])}"
    if key == ("format_argument_type", 2):
        return f"Illegal argument to format sequence ~{_plain(a[0])}: {_q(a[1])}"
    return f"Unknown error term: {_q(f)}"


def describe_error(ball) -> str:
    """SWI-Prolog's one-line message for an exception ball (without 'ERROR: ')."""
    b = deref(ball)
    if type(b) is Struct and b.name == "error" and len(b.args) == 2:
        formal, ctx = b.args
        text = _formal_message(formal)
        prefix = extra = ""
        ctx = deref(ctx)
        if type(ctx) is Struct and ctx.name == "context" and len(ctx.args) == 2:
            where, msg = deref(ctx.args[0]), deref(ctx.args[1])
            if type(where) is Struct and where.name == "/" and len(where.args) == 2 \
                    and type(deref(where.args[0])) is not Var:
                prefix = f"{_q(where)}: "
            if type(msg) in (Atom, str) and _plain(msg):
                extra = f" ({_plain(msg)})"
        elif type(ctx) is Struct and ctx.name == "file" and len(ctx.args) >= 3:
            f, line, col = (deref(x) for x in ctx.args[:3])
            prefix = f"{_plain(f)}:{_plain(line)}:{_plain(col)}: "
        elif type(ctx) is Struct and ctx.name == "string" and len(ctx.args) == 2:
            extra = f" (in {_q(ctx.args[0])} at {_plain(ctx.args[1])})"
        return prefix + text + extra
    return f"Unhandled exception: Unknown message: {_q(b)}"
