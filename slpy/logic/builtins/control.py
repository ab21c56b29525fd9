"""Messages and variable numbering: print_message/2 and numbervars/3 (setup_call_cleanup/3 and friends are in the engine, assertion/1 in the
core library).

print_message(Kind, Term) writes Term's message on standard error as SWI-Prolog does:
``ERROR: `` before an error, ``Warning: `` before a warning, ``% `` before an
informational line, nothing for silent. The message of ``format(Fmt, Args)`` is the
formatted text, of an error term the usual one-line description.
"""
from __future__ import annotations

from . import det
from ...terms.term import Var, Atom, Struct, atom, deref
from ...terms.walk import term_variables
from ...terms.errors import instantiation_error, type_error, domain_error
from .fmt import format_to_text
from ...terms.messages import describe_error
from ...terms.writer import term_to_text

_PREFIX = {"error": "ERROR: ", "warning": "Warning: ", "informational": "% ",
           "debug": "% ", "help": "", "query": "", "information": "% ",
           "banner": "", "silent": None}


def message_text(eng, term) -> str:
    """The text of a message term (without the kind's prefix)."""
    t = deref(term)
    if type(t) is Struct and t.name == "format" and len(t.args) == 2:
        return format_to_text(t.args[0], t.args[1], eng.ops)
    if type(t) is Struct and t.name == "error" and len(t.args) == 2:
        return describe_error(t)
    if type(t) is Struct and t.name == "assertion_failed" and len(t.args) == 2:
        reason = deref(t.args[0])
        goal = term_to_text(t.args[1], quoted=True, ops=eng.ops)
        if reason is atom("fail"):
            return f"Assertion failed: goal unexpectedly failed: {goal}"
        return f"Assertion failed: goal raised {term_to_text(reason, quoted=True)}: {goal}"
    return "Unknown message: " + term_to_text(t, quoted=True, ops=eng.ops)


def _kind(k):
    k = deref(k)
    if type(k) is Var:
        raise instantiation_error()
    name = k.name if type(k) in (Atom, Struct) else None
    if name not in _PREFIX:
        raise domain_error("message_kind", k)
    return name


@det("print_message", 2)
def bi_print_message(eng, kind, term):
    """print_message(+Kind, +Term): write Term's message on standard error (Kind:
    error, warning, informational, silent, help, debug(Topic))."""
    prefix = _PREFIX[_kind(kind)]
    if prefix is None:
        return True
    text = message_text(eng, term)
    eng.write_err("".join(prefix + line + "\n" for line in text.split("\n")))
    return True


@det("numbervars", 3)
def bi_numbervars(eng, term, start, end):
    """numbervars(+Term, +Start, -End): bind the variables of Term, left to right, to
    '$VAR'(Start), '$VAR'(Start + 1), ...; End is the next number."""
    n = deref(start)
    if type(n) is Var:
        raise instantiation_error()
    if type(n) is not int:
        raise type_error("integer", n)
    for v in term_variables(term):
        eng.unify(v, Struct("$VAR", (n,)))
        n += 1
    return eng.unify(end, n)
