"""Unification and the trail: ``unify`` binds variables and records them on a trail,
``undo_to`` unbinds back to a mark; ``variant`` tests equality up to renaming.

``unify`` is the engine's innermost loop: keep it free of calls and attribute lookups
it does not need.
"""
from __future__ import annotations

import math

from .term import Struct, Var, deref

__all__ = ["unify", "undo_to", "unify_occurs_check", "variant"]


def undo_to(trail: list, mark: int) -> None:
    for i in range(len(trail) - 1, mark - 1, -1):
        trail[i].ref = None
    del trail[mark:]


def unify(a, b, trail: list) -> bool:
    """Unify a and b, recording bindings on trail. On failure the caller undoes."""
    stack = None
    while True:
        while type(a) is Var:
            r = a.ref
            if r is None:
                break
            a = r
        while type(b) is Var:
            r = b.ref
            if r is None:
                break
            b = r
        if a is b:
            pass
        elif type(a) is Var:
            a.ref = b
            trail.append(a)
        elif type(b) is Var:
            b.ref = a
            trail.append(b)
        else:
            ta = type(a)
            if ta is not type(b):
                return False
            if ta is Struct:
                aa = a.args
                ba = b.args
                if a.name != b.name or len(aa) != len(ba):
                    return False
                n = len(aa)
                if n == 0:
                    if not stack:
                        return True
                    a, b = stack.pop()
                    continue
                if n == 1:
                    a = aa[0]
                    b = ba[0]
                    continue
                if stack is None:
                    stack = []
                # last argument handled by the loop: lists unify without growing the stack
                for i in range(n - 2, -1, -1):
                    stack.append((aa[i], ba[i]))
                a = aa[n - 1]
                b = ba[n - 1]
                continue
            elif ta is float:
                # 0.0 and -0.0 are different Prolog floats; nan never equals itself
                if not (a == b and math.copysign(1.0, a) == math.copysign(1.0, b)):
                    return False
            elif a != b:
                return False
        if not stack:
            return True
        a, b = stack.pop()


def occurs_in(v: Var, t) -> bool:
    stack = [t]
    while stack:
        t = deref(stack.pop())
        if t is v:
            return True
        if type(t) is Struct:
            stack.extend(t.args)
    return False


def unify_occurs_check(a, b, trail: list) -> bool:
    stack = [(a, b)]
    while stack:
        a, b = stack.pop()
        a = deref(a)
        b = deref(b)
        if a is b:
            continue
        if type(a) is Var:
            if occurs_in(a, b):
                return False
            a.ref = b
            trail.append(a)
        elif type(b) is Var:
            if occurs_in(b, a):
                return False
            b.ref = a
            trail.append(b)
        elif type(a) is Struct:
            if type(b) is not Struct or a.name != b.name or len(a.args) != len(b.args):
                return False
            stack.extend(zip(a.args, b.args))
        elif type(a) is not type(b) or a != b:
            return False
        elif type(a) is float and math.copysign(1.0, a) != math.copysign(1.0, b):
            return False
    return True


def variant(a, b) -> bool:
    """True when a and b are equal up to a consistent renaming of variables."""
    m1: dict = {}
    m2: dict = {}
    stack = [(a, b)]
    while stack:
        a, b = stack.pop()
        a = deref(a)
        b = deref(b)
        ta = type(a)
        if ta is not type(b):
            return False
        if ta is Var:
            x = m1.get(a)
            y = m2.get(b)
            if x is None and y is None:
                m1[a] = b
                m2[b] = a
            elif x is not b or y is not a:
                return False
        elif ta is Struct:
            if a.name != b.name or len(a.args) != len(b.args):
                return False
            stack.extend(zip(a.args, b.args))
        elif a != b or (ta is float and math.copysign(1.0, a) != math.copysign(1.0, b)):
            return False
    return True
