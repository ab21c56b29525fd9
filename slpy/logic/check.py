"""The static checks of `slpy check`: load programs and collect their problems, each
with its place in the source.

Errors: syntax errors, load errors (a directive that fails or throws, a bad label),
calls to predicates that no file, builtin or library defines (meta-calls
included: ``findall(X, foo(X), L)`` calls foo/1, ``maplist(bar, L)`` calls bar/1),
and labels with a variable that neither the head nor the guard binds (the label is
computed before the body runs, so nothing could).
Warnings: what the loader warns about, labelled predicates whose constant labels do
not sum to 1, and singleton variables.
"""
from __future__ import annotations

import contextlib
import io
import re
from pathlib import Path

from ..terms.term import Atom, Struct, PrologError, deref
from ..terms.control import META_ARGS
from ..terms.walk import term_variables
from ..lang.clauses import split_clause
from ..lang.reader import Reader
from ..lang.syntax_errors import SlpSyntaxError, format_error, format_load_error
from .autoload import exports
from .db import STOCH
from .kinds import Halt
from .program import Program, LoadErrors

__all__ = ["Problems", "check_program"]

_LOC = re.compile(r"^(?P<file>.+?):(?P<line>\d+)(?::(?P<col>\d+))?: (?P<msg>.*)$", re.S)

# the top level's commands are meta-predicates too
_META = {**META_ARGS, ("prob", 2): ((0, 0),), ("prob", 3): ((0, 0),),
         ("sample", 3): ((0, 0),)}


def _called(body):
    """(name, arity) of each predicate a clause body calls, meta-calls included."""
    stack = [(body, 0)]
    while stack:
        g, extra = stack.pop()
        g = deref(g)
        while type(g) is Struct and g.name == "^" and len(g.args) == 2 and extra == 0:
            g = deref(g.args[1])
        if type(g) is Atom:
            name, args = g.name, ()
        elif type(g) is Struct:
            name, args = g.name, g.args
        else:
            continue  # a variable or a number: nothing known statically
        key = (name, len(args) + extra)
        if name in (":", "::") and len(args) == 2 and extra == 0:
            stack.append((args[1], 0))   # Guard :: Goal, Guard : Goal, Module : Goal
            continue
        yield key
        if extra == 0:
            for i, k in _META.get(key, ()):
                stack.append((args[i], k))


def _known(pred) -> bool:
    return pred is not None and (pred.defined or pred.dynamic or pred.builtin
                                 or bool(pred.clauses))


class Problems:
    """The problems found, each (file, line, col, severity, message)."""

    def __init__(self):
        self.items = []

    def add(self, severity, msg, file="", line=0, col=None):
        self.items.append((file, line or 0, col, severity, msg))

    def add_located(self, severity, text):
        """A message that may start with ``file:line[:col]: ``."""
        m = _LOC.match(text)
        if m:
            col = int(m["col"]) if m["col"] else None
            self.add(severity, m["msg"], m["file"], int(m["line"]), col)
        else:
            self.add(severity, text)

    def count(self, severity):
        return sum(1 for x in self.items if x[3] == severity)

    def lines(self):
        """One line per problem, in file and line order: ``file:line:col: error: ...``."""
        for file, line, col, sev, msg in sorted(
                self.items, key=lambda x: (x[0], x[1], x[2] or 0)):
            where = f"{file}:{line}:" if file else ""
            if file and col:
                where += f"{col}:"
            yield f"{where} {sev}: {msg}" if where else f"{sev}: {msg}"


def check_program(paths, **limits) -> Problems:
    """Load the files and collect syntax errors, load errors, calls to undefined
    predicates, labelled predicates whose constant labels do not sum to 1, label
    variables that nothing binds and singleton variables. `limits`: Program() keyword
    arguments (load_timeout bounds the loading of each file, its directives included)."""
    probs = Problems()
    p = Program(out=lambda s: None, **limits)
    loaded = []
    for path in paths:
        err = io.StringIO()
        try:
            with contextlib.redirect_stderr(err):
                p.consult(path)
        except LoadErrors as e:
            for x in e.errors:
                probs.add_located("error", format_load_error(x))
        except PrologError as e:
            probs.add("error", format_error(e), str(path))
        except Halt as h:
            probs.add_located("error", f"{getattr(h, 'where', None) or path}: halt called "
                                       f"while loading")
        for line in err.getvalue().splitlines():
            if line.startswith("Warning: "):
                probs.add_located("warning", line[len("Warning: "):])
            elif line.strip():
                probs.add_located("warning", line)
        loaded.append(str(path))
    _check_calls_and_labels(p, probs)
    _check_singletons(p, loaded, probs)
    return probs


def _check_calls_and_labels(p, probs) -> None:
    """Calls to undefined predicates (those of a library load when called), and
    labels that do not sum to 1."""
    for pred in list(p.db.preds.values()):
        if pred.builtin or pred.library or not pred.clauses:
            continue
        seen = set()
        for c in pred.clauses:
            if c.body is None:
                continue
            for key in _called(c.body):
                if key in seen or _known(p.db.lookup(*key)) or key in exports():
                    continue
                seen.add(key)
                probs.add("error", f"{pred.name}/{pred.arity} calls undefined procedure "
                                   f"{key[0]}/{key[1]}", c.file or "", c.line)
        if pred.kind == STOCH and all(c.ground_label is not None for c in pred.clauses):
            total = sum(c.ground_label for c in pred.clauses)
            if abs(total - 1.0) > 1e-9:
                c = pred.clauses[0]
                probs.add("warning", f"labels of {pred.name}/{pred.arity} sum to "
                                     f"{total:.6g}, not 1", c.file or "", c.line)


def _check_singletons(p, paths, probs) -> None:
    for path in paths:
        try:
            text = Path(path).read_text(encoding="utf-8-sig")
        except (OSError, UnicodeDecodeError):   # reported by the loader
            continue
        for r in Reader(p.ops, p.flags).iter_terms(text, path):
            if isinstance(r, SlpSyntaxError):
                continue
            _check_label_vars(r, path, probs)
            if r.singletons:
                probs.add("warning", f"singleton variables: [{','.join(r.singletons)}]",
                          path, r.line, r.col)


def _check_label_vars(r, path, probs) -> None:
    """An error for a label variable that neither the head nor the guard binds: the
    label is computed when the clause is chosen, before its body runs."""
    try:
        parts = split_clause(r.term)
    except PrologError:          # reported by the loader
        return
    if parts.label is None:
        return
    bound = {id(v) for v in term_variables(Struct("g", (parts.head, parts.guard))
                                           if parts.guard is not None else parts.head)}
    names = {id(v): n for n, v in r.varnames.items()}
    free = [v for v in term_variables(parts.label) if id(v) not in bound]
    if free:
        what = ", ".join(names.get(id(v), "_") for v in free)
        head = parts.head
        pi = f"{head.name}/{len(head.args) if type(head) is Struct else 0}"
        probs.add("error", f"the label of {pi} uses {what}, which neither its head nor "
                           f"its guard binds: the label is computed before the body runs",
                  path, r.line, r.col)
