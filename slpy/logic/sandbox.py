"""What loading a program may do: the folders a program may load files from, the
libraries it may ask for, and the limits its directives run under.

A program's own requests to load (consult/1, ensure_loaded/1, use_module/1,2,
include/1, load_files/2; the top level's [File] in a file) may load only files below
the folder of a file the caller loaded (Program.consult, the files a command is
given) or below a folder the caller allows (Program(allow_load=...), `--allow-load
DIR`); the path is checked as written, after `.` and `..` are resolved, before the
file is looked for, so a refused path tells nothing of what is there.
``library(Name)`` names one of slpy's libraries or one whose predicates slpy has
built in; any other is an existence error, as in SWI-Prolog.

Loading a file the caller asked for, with the directives it runs and the files they
load, has one time budget (Program(load_timeout=...), LOAD_TIMEOUT by default) and the
memory limit (the program's, else default_max_memory()): a directive that loops or
allocates stops with a resource error naming its file and line.
"""
from __future__ import annotations

import contextlib
import os
import time

from ..terms.errors import existence_error, instantiation_error, permission_error
from ..terms.term import Atom, PrologError, Struct, Var, atom, deref
from .autoload import library_path

LOAD_TIMEOUT = 10.0            # seconds for loading a file, its directives included
MEMORY_CAP = 4096              # MiB; or half the machine's memory when that is less

# SWI-Prolog libraries whose predicates slpy has built in: use_module of one loads
# nothing (a name that maps to another names slpy's library of those predicates)
BUILTIN_LIBRARIES = {"apply": None, "apply_macros": None, "yall": None, "error": None,
                     "dif": None, "when": "coroutining"}


def default_max_memory() -> int:
    """The default memory limit in MiB: 4 GiB, or half of the machine's memory."""
    try:
        total = os.sysconf("SC_PHYS_PAGES") * os.sysconf("SC_PAGE_SIZE") >> 20
    except (ValueError, OSError, AttributeError):
        return MEMORY_CAP
    return max(256, min(MEMORY_CAP, total // 2))


def _norm(path) -> str:
    return os.path.normpath(os.path.abspath(os.fspath(path)))


class Sandbox:
    """The folders a program may load files from; open/3,4 may open files there and
    below the folders of ``stream_roots`` (the top level adds its current folder)."""

    def __init__(self, allow=()):
        self.roots: list[str] = []
        self.stream_roots: list[str] = []
        for d in allow:
            self.allow(d)

    def allow(self, folder) -> None:
        d = _norm(folder)
        if d not in self.roots:
            self.roots.append(d)

    def allow_file(self, path) -> None:
        """The folder of a file the caller loads."""
        self.allow(os.path.dirname(_norm(path)))

    def check(self, path, written=None, action="load") -> None:
        """A permission error unless `path` is below an allowed folder (`written`: the
        name as the program wrote it, for the message; action: load, or open for a
        stream, which may also use the stream roots)."""
        p = _norm(path)
        path = path if written is None else written
        roots = self.roots + (self.stream_roots if action == "open" else [])
        if any(p == r or p.startswith(r.rstrip(os.sep) + os.sep) for r in roots):
            return
        if roots:
            shown = "it" if p == str(path) else p
            why = (f"{shown} is not below {' or '.join(roots)}, where this program "
                   f"may {action} files; --allow-load DIR allows another folder")
        else:
            why = f"this program may {action} no files; --allow-load DIR allows a folder"
        raise permission_error(action, "source_sink", atom(str(path)), Struct(
            "context", (Var(), atom(why)))) from None


def library_file(t):
    """The slpy library to load for library(Name) (None: built in); an existence error
    for a library slpy does not have (or a name that is not a plain atom)."""
    name = deref(t.args[0])
    if type(name) is Var:
        raise instantiation_error()
    if type(name) is Atom:
        if name.name in BUILTIN_LIBRARIES:
            return BUILTIN_LIBRARIES[name.name]
        # a library's name is a file of slpy/logic/lib, never a path
        plain = "/" not in name.name and os.sep not in name.name
        if plain and name.name not in ("", ".", "..") and library_path(name.name):
            return name.name
    raise existence_error("source_sink", t, Struct("context", (
        Var(), atom("slpy has no such library")))) from None


def relative_to_loading(base: str | None, name: str) -> str:
    """A relative file name as a program means it: next to the file being loaded when
    that has it, else from the current folder."""
    if base and not os.path.isabs(name) and base != "<string>":
        cand = os.path.join(os.path.dirname(base), name)
        if any(os.path.exists(cand + ext) for ext in ("", ".slp", ".pl")) \
                or not any(os.path.exists(name + ext) for ext in ("", ".slp", ".pl")):
            return cand
    return name


# -- the load's limits --------------------------------------------------------------------

class LoadBudget:
    """The limits of one load the caller asked for (begun by Program.consult or
    consult_text outside any query): its deadline and memory limit in bytes."""

    def __init__(self, timeout, max_memory):
        self.timeout = timeout
        self.deadline = None if timeout is None else time.monotonic() + timeout
        self.max_memory = max_memory


@contextlib.contextmanager
def load_budget(program):
    """Around a load: the first, outermost load outside a query sets the budget."""
    if program._budget is not None or program.engine.cps:
        yield
        return
    memory = program.engine.max_memory
    if memory is None and program.load_timeout is not None:
        memory = default_max_memory() << 20
    program._budget = LoadBudget(program.load_timeout, memory)
    try:
        yield
    finally:
        program._budget = None


@contextlib.contextmanager
def directive_limits(program):
    """Around a directive: outside a query, the load's budget is the limit (a query
    that loads a file keeps its own limits); a time limit passed names the budget."""
    eng, budget = program.engine, program._budget
    if budget is None or eng.cps:
        yield
        return
    saved = eng.timeout, eng.max_memory
    if budget.deadline is not None:
        eng.timeout = max(1e-6, budget.deadline - time.monotonic())
    eng.max_memory = budget.max_memory
    try:
        yield
    except PrologError as e:
        if budget.timeout is not None and _resource(e) == "time":
            raise type(e)(e.term, f"Resource error: time limit of {budget.timeout:g} s "
                                  f"for loading the program exceeded") from None
        raise
    finally:
        eng.timeout, eng.max_memory = saved


def _resource(e) -> str | None:
    """The kind of a resource error (time, memory, ...), else None."""
    t = deref(e.term)
    if type(t) is Struct and t.name == "error" and t.args:
        f = deref(t.args[0])
        if type(f) is Struct and f.name == "resource_error" and len(f.args) == 1:
            return getattr(deref(f.args[0]), "name", None)
    return None


def is_resource_error(e) -> bool:
    return isinstance(e, PrologError) and _resource(e) is not None
