"""Writing terms as text, the way SWI-Prolog's write/writeq/print/write_canonical do.

``term_to_text`` is the entry point for terms; ``parse_write_options`` turns a
write_term/2 option list into ``term_to_text`` keyword arguments. The text of single
tokens (quoted atoms, floats, variable names) is in text.py; error messages are in
messages.py.

Spacing follows SWI's token rule: a space is written between two tokens only where
they would otherwise read back as one token (``a- -1``, ``1 rem 2``, ``a= \\+b``), after
a prefix operator before ``(`` (``- (a+b)``) and around an alphanumeric infix operator.
``-(1)`` keeps its functional form so that it does not read back as the integer -1.

The walk uses an explicit stack of work items, so a list of a million cells or a
100,000-deep ``1+1+...`` prints without recursion.
"""
from __future__ import annotations

import math
import sys

from .errors import domain_error, instantiation_error, type_error
from .ops import OpTable
from .term import NIL, TRUE, Atom, Struct, Var, atom, deref, list_items
from .rational import Rational
from .text import (PUNCT, atom_text, format_float, is_alnum, is_symbol, is_var_name,
                   quote_text, var_letter_name)

__all__ = ["term_to_text", "parse_write_options"]

if hasattr(sys, "set_int_max_str_digits"):
    # Prolog integers are unbounded and must print (and read) in full; Python 3.11 limits
    # int<->str conversion to 4300 digits by default.
    sys.set_int_max_str_digits(0)

_DEFAULT_OPS: OpTable | None = None


def _default_ops() -> OpTable:
    global _DEFAULT_OPS
    if _DEFAULT_OPS is None:
        _DEFAULT_OPS = OpTable()
    return _DEFAULT_OPS


# flags on the last token written (SWI's C_PREFIX_SIGN / C_PREFIX_OP / C_INFIX_OP)
_F_SIGN, _F_PREFIX, _F_INFIX, _F_SPACE = 1, 2, 4, 8
# work item kinds
_TERM, _RAW, _ATOM, _INFIX, _LIST = range(5)


class _Writer:
    __slots__ = ("quoted", "ignore_ops", "numbervars", "ops", "max_depth", "var_names",
                 "comma", "brace_terms", "out", "last", "flags")

    def __init__(self, quoted, ignore_ops, numbervars, ops, max_depth, var_names,
                 spacing, brace_terms):
        self.quoted = quoted
        self.ignore_ops = ignore_ops
        self.numbervars = numbervars
        self.ops = ops
        self.max_depth = max_depth
        self.var_names = var_names
        self.comma = ", " if spacing else ","
        self.brace_terms = brace_terms
        self.out = []
        self.last = ""
        self.flags = 0

    # -- output primitives --
    def raw(self, s):
        self.out.append(s)
        self.last = s[-1]
        self.flags = 0

    def need_space(self, c) -> bool:
        last = self.last
        if not last:
            return False
        fl = self.flags
        if fl:
            if fl & _F_SPACE:
                return True
            if fl & _F_SIGN and (c.isdigit() or is_symbol(c)):
                return True
            if fl & _F_PREFIX and c in "({":
                return True
            if fl & _F_INFIX and c == "(":
                return False
        if c == "(":
            return last not in PUNCT
        if is_alnum(last):
            return is_alnum(c) or (c == "'" and last.isdigit())
        if is_symbol(last):
            return is_symbol(c)
        return (c == "'" or c == '"') and last == c

    def token(self, s) -> bool:
        """Write s as a token, with a space before it when needed; True if one was written."""
        sp = self.need_space(s[0])
        if sp:
            self.out.append(" ")
        self.out.append(s)
        self.last = s[-1]
        self.flags = 0
        return sp

    def atom(self, name) -> bool:
        if not name:
            if self.quoted:
                return self.token("''")
            return False
        return self.token(atom_text(name, self.quoted))

    def is_op(self, name) -> bool:
        ops = self.ops
        return name in ops.infix or name in ops.prefix or name in ops.postfix

    # -- the main loop --
    def run(self, t, prec):
        stack = [(_TERM, t, prec, 1, False)]
        pop = stack.pop
        push = stack.append
        while stack:
            item = pop()
            kind = item[0]
            if kind == _TERM:
                self.term(item[1], item[2], item[3], item[4], push)
            elif kind == _RAW:
                self.raw(item[1])
            elif kind == _LIST:
                self.list_rest(item[1], item[2], push)
            elif kind == _INFIX:
                name = item[1]
                if name == ",":
                    self.raw(self.comma)
                elif name == "|":
                    self.raw("|")
                elif self.atom(name):
                    self.raw(" ")            # symmetric spacing: 1 rem 2
                self.flags = _F_INFIX
            else:  # _ATOM
                self.atom(item[1])
        return "".join(self.out)

    def term(self, t, prec, depth, oparg, push):
        if self.max_depth and depth > self.max_depth:
            if self.need_space("."):
                self.out.append(" ")
            self.raw("...")
            return
        while type(t) is Var:
            r = t.ref
            if r is None:
                break
            t = r
        tt = type(t)
        if tt is Atom:
            name = t.name
            if oparg and self.is_op(name):
                self.token("(")
                self.atom(name)
                self.raw(")")
            else:
                self.atom(name)
        elif tt is int:
            self.token(str(t))
        elif tt is float:
            self.token(format_float(t))
        elif tt is Var:
            vn = self.var_names
            self.token((vn.get(t) if vn else None) or t.display())
        elif tt is str:
            if self.quoted:
                self.token(quote_text(t, '"'))
            elif t:
                self.raw(t)
        elif tt is Struct:
            self.compound(t, prec, depth, push)
        else:
            self.token(str(t))

    def compound(self, t, prec, depth, push):
        name = t.name
        args = t.args
        n = len(args)
        if n == 2 and name == ".":
            self.raw("[")
            push((_LIST, args[1], depth))
            push((_TERM, args[0], 999, depth + 1, False))
            return
        if n == 1:
            if name == "$VAR" and self.numbervars and self.numbervar(args[0]):
                return
            if name == "$stream" and type(args[0]) is int:   # a stream, as SWI shows its blob
                self.raw(f"<stream>({args[0]})")
                return
            if name == "{}" and self.brace_terms:
                self.token("{")
                push((_RAW, "}"))
                push((_TERM, args[0], 1200, depth + 1, False))
                return
        if not self.ignore_ops:
            ops = self.ops
            if n == 2:
                op = ops.infix.get(name)
                if op is not None:
                    pri, typ = op
                    if pri > prec:
                        self.token("(")
                        push((_RAW, ")"))
                    push((_TERM, args[1], pri - 1 if typ != "xfy" else pri, depth + 1, True))
                    push((_INFIX, name))
                    push((_TERM, args[0], pri - 1 if typ != "yfx" else pri, depth + 1, True))
                    return
            elif n == 1:
                op = ops.prefix.get(name)
                if op is not None:
                    self.prefix_op(name, op, args[0], prec, depth, push)
                    return
                op = ops.postfix.get(name)
                if op is not None:
                    pri, typ = op
                    if pri > prec:
                        self.token("(")
                        push((_RAW, ")"))
                    push((_ATOM, name))
                    push((_TERM, args[0], pri - 1 if typ == "xf" else pri, depth + 1, True))
                    return
        # canonical form f(a1,...,an)
        if name == "[]" and self.quoted:
            self.token("'[]'")              # [](1) would not read back
        else:
            self.atom(name)
        self.raw("(")
        push((_RAW, ")"))
        comma = (_RAW, self.comma)
        for i in range(n - 1, -1, -1):
            push((_TERM, args[i], 999, depth + 1, False))
            if i:
                push(comma)

    def prefix_op(self, name, op, arg, prec, depth, push):
        pri, typ = op
        argmax = pri - 1 if typ == "fx" else pri
        if pri > prec:
            self.token("(")
            push((_RAW, ")"))
        if (name == "-" or name == "+") and self.starts_with_digit(arg, argmax):
            # -(1) must not read back as the integer -1: keep the functional form
            self.atom(name)
            self.raw("(")
            push((_RAW, ")"))
            push((_TERM, arg, 999, depth + 1, False))
            return
        self.atom(name)
        self.flags = _F_PREFIX | (_F_SIGN if name == "-" or name == "+" else 0)
        if is_alnum(self.last):
            # 'dynamic -1' must not read back as dynamic-1 (SWI writes it glued)
            self.flags |= _F_SPACE
        push((_TERM, arg, argmax, depth + 1, True))

    def starts_with_digit(self, t, maxp) -> bool:
        """Would t, written at priority maxp, begin with a digit?"""
        ops = self.ops
        while True:
            while type(t) is Var and t.ref is not None:
                t = t.ref
            tt = type(t)
            if tt is int:
                return t >= 0
            if tt is float:
                return math.copysign(1.0, t) > 0 or t != t
            if tt is Rational:
                return t > 0
            if tt is not Struct or t.name in (".", "{}", "$VAR"):
                return False
            n = len(t.args)
            if n == 2 and t.name in ops.infix:
                pri, typ = ops.infix[t.name]
                lp = pri - 1 if typ != "yfx" else pri
            elif n == 1 and t.name in ops.postfix and t.name not in ops.prefix:
                pri, typ = ops.postfix[t.name]
                lp = pri - 1 if typ == "xf" else pri
            else:
                return False
            if pri > maxp:
                return False          # embraced: starts with '('
            t, maxp = t.args[0], lp

    def numbervar(self, a) -> bool:
        while type(a) is Var and a.ref is not None:
            a = a.ref
        if type(a) is int:
            self.token(var_letter_name(a))
            return True
        if type(a) is Atom and is_var_name(a.name):
            self.token(a.name)
            return True
        if type(a) is str and is_var_name(a):
            self.token(a)
            return True
        return False

    def list_rest(self, tail, depth, push):
        """After a list element: the rest of the list, with SWI's max_depth cut."""
        while type(tail) is Var and tail.ref is not None:
            tail = tail.ref
        if tail is NIL:
            self.raw("]")
            return
        depth += 1
        if self.max_depth and depth >= self.max_depth:
            self.raw("|...]")
            return
        if type(tail) is Struct and tail.name == "." and len(tail.args) == 2:
            self.raw(self.comma)
            if not self.max_depth:
                # long lists of numbers and atoms: write the elements in this loop
                while True:
                    h = tail.args[0]
                    while type(h) is Var and h.ref is not None:
                        h = h.ref
                    if type(h) is int:
                        self.token(str(h))
                    elif type(h) is Atom:
                        self.atom(h.name)
                    else:
                        break
                    tail = tail.args[1]
                    while type(tail) is Var and tail.ref is not None:
                        tail = tail.ref
                    if type(tail) is Struct and tail.name == "." and len(tail.args) == 2:
                        self.raw(self.comma)
                    else:
                        push((_LIST, tail, depth))
                        return
            push((_LIST, tail.args[1], depth))
            push((_TERM, tail.args[0], 999, depth + 1, False))
        else:
            self.raw("|")
            push((_RAW, "]"))
            push((_TERM, tail, 999, depth + 1, False))


def term_to_text(t, quoted=False, ignore_ops=False, numbervars=True, ops: OpTable | None = None,
                 max_depth=0, var_names: dict | None = None, *, priority=1200,
                 spacing=False, brace_terms=True) -> str:
    """Text of t as SWI-Prolog's write_term/2 would write it with these options.

    write: quoted=False; writeq/print: quoted=True; write_canonical: quoted=True,
    ignore_ops=True, numbervars=False, brace_terms=False and
    var_names=canonical_var_names(t). var_names maps Var -> name; spacing=True puts a
    space after argument commas (SWI's spacing(next_argument)).
    """
    # atoms and numbers are most of what gets written: skip the machinery
    while type(t) is Var and t.ref is not None:
        t = t.ref
    tt = type(t)
    if tt is int:
        return str(t)
    if tt is Atom:
        return atom_text(t.name, quoted)
    if tt is float:
        return format_float(t)
    w = _Writer(quoted, ignore_ops, numbervars, ops if ops is not None else _default_ops(),
                max_depth, var_names, spacing, brace_terms)
    return w.run(t, priority)



# -- write_term/2 options -------------------------------------------------------------

_BOOL_OPTS = {"quoted": "quoted", "ignore_ops": "ignore_ops", "numbervars": "numbervars",
              "brace_terms": "brace_terms", "fullstop": "fullstop", "nl": "nl",
              "portray": "portray", "character_escapes": None, "cycles": None,
              "partial": None, "quote_non_ascii": None, "no_lists": None,
              "dotlists": None}
_IGNORED_OPTS = {"module", "attributes", "back_quotes", "blobs", "portray_goal",
                 "portrayed", "character_escapes_unicode"}


def _bool_value(opt, v):
    v = deref(v)
    if type(v) is Var:
        raise instantiation_error()
    if v is TRUE:
        return True
    if type(v) is Atom and v.name == "false":
        return False
    raise domain_error("write_option", opt)


def parse_write_options(opts) -> dict:
    """write_term/2 options -> keyword arguments of term_to_text, plus 'fullstop' and 'nl'.

    ISO errors: a partial list or an unbound option -> instantiation_error; not a list
    -> type_error(list, Opts); an unknown or malformed option ->
    domain_error(write_option, Opt).
    """
    items, tail = list_items(opts)
    if type(tail) is Var:
        raise instantiation_error()
    if tail is not NIL:
        raise type_error("list", deref(opts))
    kw = {"quoted": False, "ignore_ops": False, "numbervars": None, "max_depth": 0,
          "var_names": None, "priority": 1200, "spacing": False, "brace_terms": True,
          "fullstop": False, "nl": False}
    portray = False
    for o in items:
        o = deref(o)
        if type(o) is Var:
            raise instantiation_error()
        if type(o) is not Struct or len(o.args) != 1:
            raise domain_error("write_option", o)
        name, arg = o.name, o.args[0]
        if name in _BOOL_OPTS:
            b = _bool_value(o, arg)
            key = _BOOL_OPTS[name]
            if key == "portray":
                portray = b
            elif key is not None:
                kw[key] = b
        elif name in ("max_depth", "priority"):
            v = deref(arg)
            if type(v) is Var:
                raise instantiation_error()
            if type(v) is not int or (name == "priority" and not 0 <= v <= 1200):
                raise domain_error("write_option", o)
            kw[name] = v
        elif name == "spacing":
            v = deref(arg)
            if type(v) is Var:
                raise instantiation_error()
            if v is not atom("standard") and v is not atom("next_argument"):
                raise domain_error("write_option", o)
            kw["spacing"] = v is atom("next_argument")
        elif name == "variable_names":
            kw["var_names"] = _variable_names(arg, o)
        elif name not in _IGNORED_OPTS:
            raise domain_error("write_option", o)
    if kw["numbervars"] is None:
        kw["numbervars"] = portray        # SWI: numbervars defaults to the portray option
    return kw


def _variable_names(arg, opt) -> dict:
    items, tail = list_items(arg)
    if type(tail) is Var:
        raise instantiation_error()
    if tail is not NIL:
        raise domain_error("write_option", opt)
    names = {}
    for eq in items:
        eq = deref(eq)
        if type(eq) is Var:
            raise instantiation_error()
        if type(eq) is not Struct or eq.name != "=" or len(eq.args) != 2:
            raise domain_error("write_option", opt)
        n = deref(eq.args[0])
        if type(n) is Var:
            raise instantiation_error()
        if type(n) is not Atom:
            raise domain_error("write_option", opt)
        v = deref(eq.args[1])
        if type(v) is Var and v not in names:
            names[v] = n.name
    return names
