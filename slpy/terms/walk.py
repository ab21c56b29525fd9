"""Walks over whole terms: copying with fresh variables, resolving bindings, listing
variables, testing groundness.

Every walk is iterative (or falls back to an explicit stack past a few hundred levels),
so a list of a million cells does not hit Python's recursion limit.
"""
from __future__ import annotations

from .term import Struct, Var, deref

__all__ = ["resolve", "copy_term", "term_variables", "is_ground", "has_var_objects"]


def has_var_objects(t) -> bool:
    """True when a Var object (bound or not) occurs in t: only then must a copy be built."""
    stack = [t]
    while stack:
        t = stack.pop()
        while True:
            tt = type(t)
            if tt is Var:
                return True
            if tt is not Struct:
                break
            args = t.args
            if t.name == "." and len(args) == 2:
                h = args[0]
                th = type(h)
                if th is Var:
                    return True
                if th is Struct:
                    stack.append(h)
                t = args[1]
                continue
            stack.extend(args)
            break
    return False


def resolve(t):
    """A copy of t with every bound variable replaced by its value (unbound ones kept)."""
    t = deref(t)
    if type(t) is not Struct or not has_var_objects(t):
        return t
    return _rebuild(t, lambda v: v)


class _TooDeep(Exception):
    pass


def _rebuild(t, on_var):
    """Rebuild the compound t, mapping each unbound variable with on_var.

    A recursive walk that loops along list spines is fast for the usual shapes; a term
    nested deeper than a few hundred levels falls back to the explicit-stack walk.
    """
    try:
        return _rebuild_fast(t, on_var, 0)
    except _TooDeep:
        return _rebuild_deep(t, on_var)


def _rebuild_fast(t, on_var, depth):
    if depth > 300:
        raise _TooDeep
    d1 = depth + 1
    if t.name == "." and len(t.args) == 2:
        items = []
        while True:
            h = t.args[0]
            while type(h) is Var:
                r = h.ref
                if r is None:
                    h = on_var(h)
                    break
                h = r
            if type(h) is Struct:
                h = _rebuild_fast(h, on_var, d1)
            items.append(h)
            tail = t.args[1]
            while type(tail) is Var:
                r = tail.ref
                if r is None:
                    break
                tail = r
            if type(tail) is Struct and tail.name == "." and len(tail.args) == 2:
                t = tail
                continue
            break
        if type(tail) is Var:
            tail = on_var(tail)
        elif type(tail) is Struct:
            tail = _rebuild_fast(tail, on_var, d1)
        for x in reversed(items):
            tail = Struct(".", (x, tail))
        return tail
    out = []
    for a in t.args:
        while type(a) is Var:
            r = a.ref
            if r is None:
                a = on_var(a)
                break
            a = r
        if type(a) is Struct:
            a = _rebuild_fast(a, on_var, d1)
        out.append(a)
    return Struct(t.name, tuple(out))


def _rebuild_deep(t, on_var):
    """Rebuild the compound t bottom-up, mapping each unbound variable with on_var.

    Iterative post-order walk; shares nothing with the input but unbound variables
    (whatever on_var returns for them).
    """
    # Each work item: (struct, evaluated_args_list). We push children then assemble.
    result_stack = []
    work = [(t, False)]
    while work:
        node, done = work.pop()
        if done:
            n = len(node.args)
            if n:
                args = tuple(result_stack[-n:])
                del result_stack[-n:]
            else:
                args = ()
            result_stack.append(Struct(node.name, args))
            continue
        node = deref(node)
        if type(node) is Struct:
            work.append((node, True))
            for a in reversed(node.args):
                work.append((a, False))
        elif type(node) is Var:
            result_stack.append(on_var(node))
        else:
            result_stack.append(node)
    return result_stack[0]


def copy_term(t, mapping: dict | None = None):
    """Copy t with fresh variables; mapping (old Var -> new Var) is filled and shared."""
    if mapping is None:
        mapping = {}
    t = deref(t)
    if type(t) is Var:
        v = mapping.get(t)
        if v is None:
            v = mapping[t] = Var()
        return v
    if type(t) is not Struct or not has_var_objects(t):
        return t  # nothing to rename: ground terms are shared

    def fresh(v):
        nv = mapping.get(v)
        if nv is None:
            nv = mapping[v] = Var()
        return nv

    return _rebuild(t, fresh)


def term_variables(t, acc: list | None = None, seen: set | None = None) -> list:
    """Distinct unbound variables of t in depth-first, left-to-right order."""
    if acc is None:
        acc = []
    if seen is None:
        seen = set()
    stack = [t]
    while stack:
        t = stack.pop()
        while type(t) is Var:
            r = t.ref
            if r is None:
                break
            t = r
        if type(t) is Var:
            if id(t) not in seen:
                seen.add(id(t))
                acc.append(t)
        elif type(t) is Struct:
            stack.extend(reversed(t.args))
    return acc


def is_ground(t) -> bool:
    stack = [t]
    while stack:
        t = deref(stack.pop())
        if type(t) is Var:
            return False
        if type(t) is Struct:
            stack.extend(t.args)
    return True
