"""format/2 directives, as SWI-Prolog's format/2 implements them.

``format_to_text(fmt, args, ops)`` returns the text format/2 would print. Column stops
(``~t``, ``~|``, ``~+``) work as in SWI: text since the last stop is held back with
its fill points ("rubber"); at the next stop the missing columns are shared among the
fill points, from the centre out; with no ``~t`` the padding goes at the stop, so the
text is left-aligned.

Errors: too few or too many arguments -> ``error(format(Msg), _)``; an argument of the
wrong kind -> ``error(format_argument_type(Directive, Arg), _)``; an unknown directive
-> ``existence_error(format_character, C)``.
"""
from __future__ import annotations

from decimal import Decimal

from ..arith import eval_arith
from ...terms.errors import instantiation_error, type_error, domain_error, existence_error
from ...terms.ops import OpTable
from ...terms.term import Atom, Struct, Var, NIL, PrologError, atom, deref, list_items
from ...terms.text import canonical_var_names
from ...terms.writer import term_to_text, parse_write_options

__all__ = ["format_to_text", "text_of", "format_error"]

_DIGITS = "0123456789abcdefghijklmnopqrstuvwxyz"


def format_error(msg: str) -> PrologError:
    return PrologError(Struct("error", (Struct("format", (atom(msg),)), Var())))


def _arg_error(directive: str, arg) -> PrologError:
    return PrologError(Struct("error", (
        Struct("format_argument_type", (atom(directive), arg)), Var())))


def text_of(t, what: str = "text") -> str | None:
    """The text of an atom, string, number, code list or char list; None if t is none."""
    t = deref(t)
    tt = type(t)
    if tt is str:
        return t
    if tt is Atom:
        return "" if t is NIL else t.name
    if tt is int or tt is float:
        return term_to_text(t)
    if tt is Struct:
        items, tail = list_items(t)
        if tail is not NIL:
            return None
        chars = []
        for x in items:
            x = deref(x)
            if type(x) is int and 0 <= x <= 0x10FFFF:
                chars.append(chr(x))
            elif type(x) is Atom and len(x.name) == 1:
                chars.append(x.name)
            else:
                return None
        return "".join(chars)
    return None


def _format_string(fmt) -> str:
    f = deref(fmt)
    if type(f) is Var:
        raise instantiation_error()
    s = text_of(f)
    if s is None:
        items, tail = list_items(f)
        if type(tail) is Var or any(type(deref(x)) is Var for x in items):
            raise instantiation_error()
        raise type_error("text", f)
    return s


def _group(digits: str, sep: str = ",", size: int = 3) -> str:
    head = len(digits) % size or size
    parts = [digits[:head]]
    parts.extend(digits[i:i + size] for i in range(head, len(digits), size))
    return sep.join(parts)


def _format_int(n: int, point: int, group: bool) -> str:
    """~Nd / ~ND: n with a decimal point inserted N digits from the right."""
    sign = "-" if n < 0 else ""
    s = str(abs(n))
    if point > 0:
        s = s.rjust(point + 1, "0")
        ip, fp = s[:-point], s[-point:]
        return sign + (_group(ip) if group else ip) + "." + fp
    return sign + (_group(s) if group else s)


def _radix(n: int, base: int, upper: bool) -> str:
    if n == 0:
        return "0"
    sign = "-" if n < 0 else ""
    n = abs(n)
    out = []
    while n:
        n, d = divmod(n, base)
        out.append(_DIGITS[d])
    s = "".join(reversed(out))
    return sign + (s.upper() if upper else s)


def _format_float(x, how: str, prec: int) -> str:
    if type(x) is int:
        if how in "fe":
            # exact for big integers, as SWI does with GMP
            return format(Decimal(x), f".{prec}{how}")
        x = float(x)
    return f"%.{prec}{how}" % x


def _column_after(col: int, s: str) -> int:
    if "\n" not in s and "\r" not in s and "\t" not in s and "\b" not in s:
        return col + len(s)
    for c in s:
        if c == "\n" or c == "\r":
            col = 0
        elif c == "\t":
            col = (col + 1) | 7
        elif c == "\b":
            col = max(col - 1, 0)
        else:
            col += 1
    return col


class _State:
    """Output with pending fill points, as SWI's format_state."""

    __slots__ = ("out", "pending", "rubber", "column", "tab_stop")

    def __init__(self, column):
        self.out = []
        self.pending = []        # text since the last column stop while rubber is pending
        self.rubber = []         # [position in pending text, pad char, size]
        self.column = column
        self.tab_stop = 0            # SWI: ~+ counts from column 0 until the first stop

    def emit(self, s: str):
        if not s:
            return
        (self.pending if self.rubber else self.out).append(s)
        self.column = _column_after(self.column, s)

    def add_rubber(self, pad: str):
        if not self.rubber:
            self.pending = []
        self.rubber.append([sum(map(len, self.pending)), pad, 0])

    def column_stop(self, stop: int):
        if not self.rubber:
            self.pending = []
            self.rubber.append([0, " ", 0])
        space = stop - self.column
        rn = len(self.rubber)
        if space > 0:
            each = space // rn
            for r in self.rubber:
                r[2] = each
            rest = space - each * rn
            m, n = rn // 2, 0
            while rest:                    # the remainder goes from the centre out
                self.rubber[m + (n if n % 2 else -n)][2] += 1
                n += 1
                rest -= 1
            self.column = stop
        self.flush()
        self.tab_stop = stop

    def flush(self):
        if not self.rubber:
            return
        text = "".join(self.pending)
        pos = 0
        for where, pad, size in self.rubber:
            self.out.append(text[pos:where])
            self.out.append(pad * size)
            pos = where
        self.out.append(text[pos:])
        self.pending = []
        self.rubber = []


def format_to_text(fmt, args, ops: OpTable | None = None, *, start_col: int = 0,
                   call_goal=None) -> str:
    """The text format(Fmt, Args) prints.

    fmt: an atom, string, code list or char list (a Prolog term or a Python str);
    args: a Prolog list, or any other term taken as the single argument. start_col is
    the column the output starts at (for column stops); call_goal(Goal) -> str runs
    a goal for ~@ and returns its output.
    """
    f = fmt if type(fmt) is str else _format_string(fmt)
    items, tail = list_items(args)
    argv = items if tail is NIL else [args]
    nargs = len(argv)
    ai = 0
    st = _State(start_col)
    i, n = 0, len(f)

    def next_arg():
        nonlocal ai
        if ai >= nargs:
            raise format_error("not enough arguments")
        a = argv[ai]
        ai += 1
        return a

    while i < n:
        c = f[i]
        if c != "~":
            j = f.find("~", i)
            if j < 0:
                j = n
            st.emit(f[i:j])
            i = j
            continue
        i += 1
        if i >= n:
            raise format_error("truncated format specification")
        c = f[i]
        num = None                                   # the numeric argument
        if c.isdigit():
            j = i
            while j < n and f[j].isdigit():
                j += 1
            num = int(f[i:j])
            i = j
        elif c == "*":
            v = deref(next_arg())
            if type(v) is not int or v < 0:
                raise format_error("no or negative integer for `*' argument")
            num = v
            i += 1
        elif c == "`":
            if i + 1 >= n:
                raise format_error("truncated format specification")
            num = ord(f[i + 1])
            i += 2
        if i < n and f[i] == ":":                    # locale modifier: no locale here
            i += 1
        if i >= n:
            raise format_error("truncated format specification")
        d = f[i]
        i += 1
        if d == "w":
            st.emit(term_to_text(next_arg(), ops=ops))
        elif d == "p" or d == "q":
            st.emit(term_to_text(next_arg(), quoted=True, ops=ops))
        elif d == "k":
            a = next_arg()
            st.emit(term_to_text(a, quoted=True, ignore_ops=True, numbervars=False,
                                 ops=ops, var_names=canonical_var_names(a),
                                 brace_terms=False))
        elif d == "W":
            a = next_arg()
            kw = parse_write_options(next_arg())
            kw.pop("fullstop")
            kw.pop("nl")
            st.emit(term_to_text(a, ops=ops, **kw))
        elif d == "a":
            a = next_arg()
            t = deref(a)
            if type(t) is Atom:
                st.emit(t.name)                 # '[]' too: here it is an atom, not a list
            elif type(t) in (str, int, float):
                st.emit(text_of(t))
            else:
                raise _arg_error("a", a)
        elif d in "dD":
            a = next_arg()
            v = deref(a)
            if type(v) is not int:
                if type(v) is Var:
                    raise instantiation_error()
                v = eval_arith(v)          # SWI evaluates: format("~d", [1+2]) prints 3
                if type(v) is not int:
                    raise _arg_error(d, a)
            st.emit(_format_int(v, num or 0, d == "D"))
        elif d == "I":                   # digit groups with _: 1_000_000
            a = next_arg()
            v = deref(a)
            if type(v) is not int:
                if type(v) is Var:
                    raise instantiation_error()
                v = eval_arith(v)
                if type(v) is not int:
                    raise _arg_error("I", a)
            sign = "-" if v < 0 else ""
            st.emit(sign + _group(str(abs(v)), "_", num or 3))
        elif d in "eEfgG":
            a = next_arg()
            v = eval_arith(a)
            st.emit(_format_float(v, d, 6 if num is None else num))
        elif d in "rR":
            a = next_arg()
            v = deref(a)
            if type(v) is not int:
                v = eval_arith(v)
                if type(v) is not int:
                    raise _arg_error(d, a)
            if num is None:
                raise format_error("r,R requires radix specifier")
            if not 2 <= num <= 36:
                raise domain_error("radix", num)
            st.emit(_radix(v, num, d == "R"))
        elif d == "c":
            a = next_arg()
            v = deref(a)
            if type(v) is not int or not 0 <= v <= 0x10FFFF:
                raise _arg_error("c", a)
            st.emit(chr(v) * (1 if num is None else num))
        elif d == "s":
            a = next_arg()
            s = text_of(a)
            if s is None or type(deref(a)) in (int, float):
                raise _arg_error("s", a)
            st.emit(s)
        elif d == "i":
            next_arg()
        elif d == "n":
            st.emit("\n" * (1 if num is None else num))
        elif d == "N":
            if st.column != 0:
                st.emit("\n")
        elif d == "~":
            st.emit("~")
        elif d == "t":
            st.add_rubber(" " if num is None else chr(num))
        elif d == "|":
            st.column_stop(st.column if num is None else num)
        elif d == "+":
            st.column_stop(st.tab_stop + (8 if num is None else num))
        elif d == "@":
            goal = next_arg()
            if call_goal is None:
                raise format_error("~@ is not available here")
            st.emit(call_goal(goal))
        else:
            raise existence_error("format_character", atom(d))
    st.flush()
    if ai < nargs:
        raise format_error("too many arguments")
    return "".join(st.out)
