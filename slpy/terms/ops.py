"""The operator table: ISO defaults, SWI-Prolog's common extras, and the SLP label operator.

One table is shared by the reader and the writer of a Program, and ``op/3`` changes it,
so clauses read after an ``op/3`` directive see the new operators.
"""
from __future__ import annotations

PREFIX_TYPES = ("fy", "fx")
INFIX_TYPES = ("xfx", "xfy", "yfx")
POSTFIX_TYPES = ("xf", "yf")

# (priority, type, names)
DEFAULT_OPS = [
    (1200, "xfx", [":-", "-->"]),
    (1200, "fx", [":-", "?-"]),
    (1100, "xfy", [";", "|"]),
    (1050, "xfy", ["->", "*->"]),
    (1000, "xfy", [","]),
    (990, "xfx", [":="]),
    (900, "fy", ["\\+"]),
    (700, "xfx", ["=", "\\=", "==", "\\==", "@<", "@>", "@=<", "@>=", "=..", "is",
                  "=:=", "=\\=", "<", ">", "=<", ">=", ">:<", ":<", "as", "=@=", "\\=@="]),
    (600, "xfy", [":"]),
    (500, "yfx", ["+", "-", "/\\", "\\/", "xor"]),
    (400, "yfx", ["*", "/", "//", "rem", "mod", "div", "<<", ">>", "divmod", "rdiv"]),
    (200, "xfx", ["**"]),
    (200, "xfy", ["^"]),
    (200, "fy", ["-", "+", "\\"]),
    (100, "yfx", ["."]),
    (1, "fx", ["$"]),
    (1150, "fx", ["dynamic", "discontiguous", "initialization", "module_transparent",
                  "multifile", "public", "thread_local", "table"]),
]

# SLP labels: `Label :: Head` and `Label : Head` must read the same, so `::` is given
# the priority of `:` as the IJCAI paper's Sicstus reader had it (200, xfy). The clause
# loader re-associates `1 - 1/D :: [D] :: h` into label, guard and head (see
# slpy.lang.clauses).
SLP_OPS = [
    (200, "xfy", ["::", ":"]),
]


class OpTable:
    """prefix/infix/postfix maps from operator name to (priority, type)."""

    def __init__(self, slp: bool = True):
        self.prefix: dict[str, tuple[int, str]] = {}
        self.infix: dict[str, tuple[int, str]] = {}
        self.postfix: dict[str, tuple[int, str]] = {}
        for pri, typ, names in DEFAULT_OPS + (SLP_OPS if slp else []):
            for n in names:
                self.add(pri, typ, n)

    def copy(self) -> "OpTable":
        t = OpTable.__new__(OpTable)
        t.prefix = dict(self.prefix)
        t.infix = dict(self.infix)
        t.postfix = dict(self.postfix)
        return t

    def add(self, priority: int, typ: str, name: str) -> None:
        """op/3 for one name (validation of arguments is the builtin's job)."""
        if typ in PREFIX_TYPES:
            table = self.prefix
        elif typ in INFIX_TYPES:
            table = self.infix
        else:
            table = self.postfix
        if priority == 0:
            table.pop(name, None)
        else:
            table[name] = (priority, typ)

    def is_op(self, name: str) -> bool:
        return name in self.prefix or name in self.infix or name in self.postfix

    def all_ops(self):
        """(priority, type, name) triples, for current_op/3."""
        for table in (self.prefix, self.infix, self.postfix):
            for name, (pri, typ) in table.items():
                yield pri, typ, name
