"""Prolog terms: the representation every part of slpy shares.

Representation (chosen for speed in CPython):
- variable: ``Var`` (``ref`` is None while unbound, else the bound term);
- atom: ``Atom``, interned, so atoms compare with ``is``;
- compound: ``Struct(name, args)`` with ``name`` a Python ``str`` and ``args`` a tuple;
- integer / float: Python ``int`` / ``float`` (never ``bool``);
- string (SWI string object): Python ``str``.
Lists are ``'.'/2`` compounds ending in the atom ``[]``.

Every walk over a term is iterative, so a list of a million cells does not hit
Python's recursion limit.
"""
from __future__ import annotations

import itertools
import math
import sys

from ..errors import PicklableError

__all__ = [
    "Var", "Atom", "Struct", "atom", "deref", "unify", "PrologError", "NIL", "TRUE",
    "FAIL", "CURLY", "DOT", "mklist", "list_items", "copy_term", "term_variables",
    "compare", "is_callable", "is_atomic", "is_list_term", "resolve", "variant",
    "type_error", "domain_error", "instantiation_error", "existence_error",
    "evaluation_error", "representation_error", "permission_error", "resource_error",
    "syntax_error", "undo_to", "is_ground", "unify_occurs_check", "indicator",
]

_next_serial = itertools.count(1).__next__


class Var:
    """A logic variable; ``serial`` orders variables by age (the standard order of
    terms) and names them when printed."""
    __slots__ = ("ref", "serial")

    def __init__(self):
        self.ref = None
        self.serial = _next_serial()

    def __repr__(self):
        return f"Var({self.display()})"

    def display(self):
        return f"_G{self.serial}"

    def __str__(self):
        t = deref(self)
        if type(t) is Var:
            return t.display()
        return str(t)


# Atoms are interned for good: refuse longer ones (a resource error) rather than let a
# program that grows an atom fill the memory.
MAX_ATOM_LENGTH = 1 << 24


class Atom:
    __slots__ = ("name", "__weakref__")
    _table: dict[str, "Atom"] = {}

    def __new__(cls, name: str):
        a = cls._table.get(name)
        if a is None:
            if len(name) > MAX_ATOM_LENGTH:
                raise PrologError(resource_error("memory").term, f"Resource error: an "
                                  f"atom of more than {MAX_ATOM_LENGTH} characters")
            a = object.__new__(cls)
            a.name = sys.intern(name)
            cls._table[name] = a
        return a

    def __reduce__(self):
        return (Atom, (self.name,))

    def __repr__(self):
        return f"Atom({self.name!r})"

    def __str__(self):
        from ..lang.writer import term_to_text
        return term_to_text(self, quoted=True)

    def __lt__(self, other):
        return self.name < other.name


def atom(name: str) -> Atom:
    a = Atom._table.get(name)
    return a if a is not None else Atom(name)


class Struct:
    __slots__ = ("name", "args")

    def __init__(self, name: str, args: tuple):
        self.name = name
        self.args = args

    def __repr__(self):
        return f"Struct({self.name!r}, {self.args!r})"

    def __str__(self):
        from ..lang.writer import term_to_text
        return term_to_text(self, quoted=True)

    def __eq__(self, other):
        # Structural equality (==/2 semantics) so Python users can compare answers.
        return type(other) is Struct and compare(self, other) == 0

    def __ne__(self, other):
        return not self.__eq__(other)

    __hash__ = None  # mutable through its variables

    @property
    def indicator(self):
        return (self.name, len(self.args))


NIL = Atom("[]")
TRUE = Atom("true")
FAIL = Atom("fail")
CURLY = Atom("{}")
MINUS = Atom("-")
DOT = "."


def deref(t):
    while type(t) is Var:
        r = t.ref
        if r is None:
            return t
        t = r
    return t


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


# -- standard order of terms: Var < Number < Atom < String < Compound ----------------

def _ord_class(t):
    tt = type(t)
    if tt is Var:
        return 0
    if tt is int or tt is float:
        return 1
    if tt is Atom:
        return 3
    if tt is str:
        return 4
    return 5


def compare(a, b) -> int:
    """Standard order comparison: -1, 0 or 1."""
    stack = [(a, b)]
    while stack:
        a, b = stack.pop()
        a = deref(a)
        b = deref(b)
        if a is b:
            continue
        ca = _ord_class(a)
        cb = _ord_class(b)
        if ca != cb:
            return -1 if ca < cb else 1
        if ca == 1:
            # compare by value; if equal, Float < Int (ISO 7.2.2)
            if a != b:
                if a != a or b != b:  # nan
                    ka, kb = (a != a), (b != b)
                    if ka != kb:
                        return -1 if ka else 1
                    continue
                return -1 if a < b else 1
            ta, tb = type(a), type(b)
            if ta is not tb:
                return -1 if ta is float else 1
            if ta is float:
                sa, sb = math.copysign(1.0, a), math.copysign(1.0, b)
                if sa != sb:
                    return -1 if sa < sb else 1
            continue
        if ca == 0:
            return -1 if a.serial < b.serial else 1
        if ca == 3:
            if a.name != b.name:
                return -1 if a.name < b.name else 1
            continue
        if ca == 4:
            if a != b:
                return -1 if a < b else 1
            continue
        # compound: arity, then name, then args left to right
        la, lb = len(a.args), len(b.args)
        if la != lb:
            return -1 if la < lb else 1
        if a.name != b.name:
            return -1 if a.name < b.name else 1
        stack.extend(reversed(list(zip(a.args, b.args))))
    return 0


# -- lists -------------------------------------------------------------------------

def mklist(items, tail=NIL):
    t = tail
    for x in reversed(items):
        t = Struct(DOT, (x, t))
    return t


def list_items(t):
    """Python list of the items of a Prolog list and its (dereferenced) tail."""
    items = []
    t = deref(t)
    while type(t) is Struct and t.name == DOT and len(t.args) == 2:
        items.append(t.args[0])
        t = deref(t.args[1])
    return items, t


def is_list_term(t) -> bool:
    _, tail = list_items(t)
    return tail is NIL


def is_callable(t) -> bool:
    t = deref(t)
    return type(t) is Atom or type(t) is Struct


def is_atomic(t) -> bool:
    t = deref(t)
    return type(t) is not Var and type(t) is not Struct


def indicator(name: str, arity: int):
    return Struct("/", (atom(name), arity))


# -- errors ------------------------------------------------------------------------

class PrologError(PicklableError):
    """A Prolog exception; ``term`` is the ball (for ISO errors ``error(Formal, Context)``)."""

    def __init__(self, term, message: str | None = None):
        self.term = term
        super().__init__(message if message is not None else None)

    def __str__(self):
        if self.args and self.args[0]:
            return self.args[0]
        from ..lang.messages import describe_error
        return describe_error(self.term)


def _err(formal, context=None):
    return PrologError(Struct("error", (formal, Var() if context is None else context)))


def type_error(typ: str, culprit, context=None):
    return _err(Struct("type_error", (atom(typ), culprit)), context)


def domain_error(dom: str, culprit, context=None):
    return _err(Struct("domain_error", (atom(dom), culprit)), context)


def instantiation_error(context=None):
    return _err(atom("instantiation_error"), context)


def existence_error(kind: str, what, context=None):
    return _err(Struct("existence_error", (atom(kind), what)), context)


def evaluation_error(what: str, context=None):
    return _err(Struct("evaluation_error", (atom(what),)), context)


def representation_error(what: str, context=None):
    return _err(Struct("representation_error", (atom(what),)), context)


def permission_error(action: str, typ: str, culprit, context=None):
    return _err(Struct("permission_error", (atom(action), atom(typ), culprit)), context)


def resource_error(what: str, context=None):
    return _err(Struct("resource_error", (atom(what),)), context)


def syntax_error(what: str, context=None):
    return _err(Struct("syntax_error", (atom(what),)), context)
