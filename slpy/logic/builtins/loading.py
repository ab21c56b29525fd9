"""Builtins that load files: consult/1, ensure_loaded/1, use_module/1,2, include/1 and
load_files/2. What they may load is the sandbox's to say (slpy.logic.sandbox): files
below the allowed folders, and libraries slpy has."""
from __future__ import annotations

from . import det
from ...terms.term import Var, Atom, Struct, deref
from ...terms.args import items_arg
from ...terms.errors import type_error, instantiation_error
from ..sandbox import library_file


def _file_name(t):
    t = deref(t)
    if type(t) is Var:
        raise instantiation_error()
    if type(t) is Atom:
        return t.name
    if type(t) is str:
        return t
    raise type_error("atom", t)


def load_files(program, t) -> bool:
    """Load a file, a library(Name) or a list of them, as the program asks."""
    for f in items_arg(t):
        if type(f) is Struct and f.name == "library" and len(f.args) == 1:
            lib = library_file(f)
            if lib is not None:
                program.load_library(lib)
            continue
        program.load_file(_file_name(f))
    return True


@det("consult", 1)
def consult(eng, t):
    return load_files(eng.program, t)


@det("ensure_loaded", 1)
def ensure_loaded(eng, t):
    return load_files(eng.program, t)


@det("include", 1)
def include(eng, t):
    """As consult/1 (slpy has one name space, so including a file's clauses and
    loading them are the same)."""
    return load_files(eng.program, t)


@det("load_files", 2)
def load_files2(eng, t, options):
    items_arg(options)       # a list; the options themselves are not used
    return load_files(eng.program, t)


@det("use_module", 1)
def use_module(eng, t):
    return load_files(eng.program, t)


@det("use_module", 2)
def use_module2(eng, t, _imports):
    return load_files(eng.program, t)
