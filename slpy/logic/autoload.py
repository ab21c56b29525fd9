"""Libraries loaded on first use, as SWI-Prolog autoloads its libraries.

Each file of ``slpy/logic/lib/`` starts with ``:- module(Name, [Name/Arity, ...]).``
listing what it exports. A Program loads a library when a program first calls one of
its exports (or asks for it with ``use_module(library(Name))``), so a Program that
uses none pays nothing for them at start-up. A program may define a predicate of the
same name: its own definition wins, as with the core library.
"""
from __future__ import annotations

from functools import lru_cache
from pathlib import Path

from ..terms.term import Struct, Atom, deref, list_items

LIB_DIR = Path(__file__).with_name("lib")


@lru_cache(maxsize=None)
def exports() -> dict:
    """(name, arity) -> library name, read from the module/2 line of each file."""
    from ..terms.ops import OpTable
    from ..lang.reader import Reader
    out = {}
    for path in sorted(LIB_DIR.glob("*.pl")):
        text = path.read_text()
        first = next(Reader(OpTable(), {}).read_clauses(text, str(path)))
        decl = deref(first.term)
        mod = deref(decl.args[0]) if type(decl) is Struct and decl.name == ":-" else None
        if not (type(mod) is Struct and mod.name == "module" and len(mod.args) == 2):
            raise ValueError(f"{path}: the first clause must be :- module(Name, Exports).")
        for pi in list_items(mod.args[1])[0]:
            pi = deref(pi)
            out[(deref(pi.args[0]).name, deref(pi.args[1]))] = path.stem
    return out


def library_path(name: str) -> Path | None:
    """The file of library(name), or None when slpy has no such library file."""
    p = LIB_DIR / f"{name}.pl"
    return p if p.parent == LIB_DIR and p.exists() else None   # a name, never a path


def library_name(t) -> str | None:
    """Name for a library(Name) term, else None."""
    t = deref(t)
    if type(t) is Struct and t.name == "library" and len(t.args) == 1:
        n = deref(t.args[0])
        if type(n) is Atom:
            return n.name
    return None
