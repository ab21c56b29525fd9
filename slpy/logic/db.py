"""The clause store: predicates, clauses and first-argument indexes."""
from __future__ import annotations

from ..terms.term import Atom, Struct, deref

# predicate kinds (dispatch order in the engine follows frequency)
USER, DET, NONDET, CONTROL, STOCH, SBUILTIN = range(6)


class Clause:
    __slots__ = ("head", "body", "fn", "key", "label", "guard", "pred", "file", "line",
                 "erased", "ground_label", "number", "label_fn")

    def __init__(self, head, body, fn, key, label=None, guard=None, file=None, line=None):
        self.head = head
        self.body = body
        self.fn = fn
        self.key = key
        self.label = label      # label term for labelled clauses, else None
        self.guard = guard      # guard list term, else None
        self.file = file
        self.line = line
        self.erased = False
        self.ground_label = None  # the label's value when it is a constant number
        self.label_fn = None      # label under the guard alone (pure SLP normalisation)
        self.number = 0           # 1-based position in its predicate, for messages

    def term(self):
        """The clause as a term, label and guard included (as read)."""
        head = self.head
        if self.guard is not None:
            head = Struct("::", (self.guard, head))
        if self.label is not None:
            head = Struct("::", (self.label, head))
        return head if self.body is None else Struct(":-", (head, self.body))

    def where(self) -> str:
        loc = f" ({self.file}:{self.line})" if self.file else ""
        return f"clause {self.number} of {self.pred.name}/{self.pred.arity}{loc}"


def first_arg_key(t):
    """Index key of a (dereferenced) first argument; None for a variable.

    Compounds key on their name only: f/1 and f/2 then share a bucket, which costs a
    failed head unification at worst and saves a tuple per call.
    """
    tt = type(t)
    if tt is Struct:
        return t.name
    if tt is Atom or tt is int or tt is float or tt is str:
        return t
    return None


class Pred:
    __slots__ = ("name", "arity", "kind", "clauses", "index", "dynamic", "defined", "fn",
                 "discontiguous", "files", "builtin", "indicator_text", "library", "tabled",
                 "trace_goal")

    def __init__(self, name: str, arity: int):
        self.name = name
        self.arity = arity
        self.kind = USER
        self.clauses: list[Clause] = []
        self.index: dict = {}
        self.dynamic = False
        self.defined = False
        self.fn = None
        self.discontiguous = False
        self.files: set = set()
        self.builtin = False
        self.library = False
        self.tabled = None      # a tabled predicate: the Pred holding its clauses
        self.indicator_text = f"{name}/{arity}"
        self.trace_goal = None  # compiled arithmetic: (goal as written, its variables)

    def __repr__(self):
        return f"<Pred {self.indicator_text}>"

    def select(self, a0):
        """Candidate clauses for a call whose first argument is a0 (already dereferenced)."""
        if len(self.clauses) < 2:
            return self.clauses
        key = first_arg_key(a0)
        if key is None:
            return self.clauses
        lst = self.index.get(key)
        if lst is None:
            lst = [c for c in self.clauses if c.key is None or c.key == key]
            if len(lst) == len(self.clauses):
                lst = self.clauses
            if len(self.index) < 4096:  # numbers as first arguments must not grow it forever
                self.index[key] = lst
        return lst

    # Mutation keeps the logical update view: running calls hold (list, end) and
    # assertz only appends; anything else replaces the lists.
    def add_last(self, c: Clause) -> None:
        c.pred = self
        self.clauses.append(c)
        c.number = len(self.clauses)
        self.defined = True
        if self.index:
            k = c.key
            for key, lst in self.index.items():
                if lst is not self.clauses and (k is None or k == key):
                    lst.append(c)

    def add_first(self, c: Clause) -> None:
        c.pred = self
        self.clauses = [c] + self.clauses
        self._renumber()
        self.defined = True
        self.index = {}

    def remove(self, c: Clause) -> None:
        c.erased = True
        self.clauses = [x for x in self.clauses if x is not c]
        self._renumber()
        self.index = {}

    def clear(self) -> None:
        for c in self.clauses:
            c.erased = True
        self.clauses = []
        self.index = {}

    def _renumber(self):
        for i, x in enumerate(self.clauses, 1):
            x.number = i


class Database:
    """Predicates by (name, arity)."""

    def __init__(self):
        self.preds: dict[tuple[str, int], Pred] = {}

    def get(self, name: str, arity: int) -> Pred:
        p = self.preds.get((name, arity))
        if p is None:
            p = self.preds[(name, arity)] = Pred(name, arity)
        return p

    def lookup(self, name: str, arity: int):
        return self.preds.get((name, arity))


def term_indicator(t):
    t = deref(t)
    if type(t) is Atom:
        return t.name, 0
    if type(t) is Struct:
        return t.name, len(t.args)
    return None
