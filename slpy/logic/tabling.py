"""Tabling (``:- table p/2.``): each call variant of a tabled predicate gets a table
of its answers, so left recursion terminates and each answer comes once.

``:- table p/2`` moves p/2's clauses to a hidden predicate ``'p tabled'/2`` and gives
p/2 one clause, ``p(A, B) :- '$tbl_call'(p(A, B), 'p tabled'(A, B))``. The driver
(lib/tabling.pl) evaluates a new variant to a fixpoint: it runs the clauses, adding
each new answer, and runs them again until a pass adds none; a call of a variant that
is being evaluated (recursion) returns the answers found so far. Variants that call
each other form a strongly connected component: one that consumed the answers of a
table still being evaluated below it on the stack is not complete when its own loop
ends; the oldest table of the component (the leader) loops until a pass of its own
changes no table, then completes them all (linear tabling with SCC completion, as in
B-Prolog; SWI-Prolog's SLG resolution gives the same answers).

Stochastic tabled predicates (labelled clauses, or a body that reaches one) are
tabled under enumeration only (prob/2, Program.proofs, plain queries): each answer
keeps its explanations, one per derivation of the final pass (the probabilities of
its choices, and the tabled answers it used), and its probability is the sum over
them, solved as a least fixpoint when answers depend on each other in a cycle
(PRISM's explanation graphs; slpy.logic.explain). Sampling calls them untabled, so
proof trees and MCMC see the same choices as without the directive.

Tables last for one top-level query (``abolish_all_tables/0`` empties them sooner).
This module holds the tables; the driver's builtins are in builtins/tabled.py.
"""
from __future__ import annotations

from .db import STOCH
from .kinds import ENUM, PLAIN
from .variant import StochasticReach
from ..terms.term import Var, Struct, atom, deref

RUNNING, INCOMPLETE, COMPLETE = range(3)


class Table:
    __slots__ = ("id", "goal", "answers", "index", "status", "pos", "low", "stamp",
                 "iter_no", "iter_mark", "eval_pass", "scc", "explain", "expl", "prob",
                 "plog_base", "saved_min_prob", "key", "used")

    def __init__(self, tid, key, goal, explain):
        self.id = tid
        self.key = key
        self.goal = goal
        self.answers: list = []
        self.index: dict = {}
        self.status = INCOMPLETE
        self.pos = self.low = -1
        self.stamp = None
        self.iter_no = 0
        self.iter_mark = 0
        self.eval_pass = -1
        self.scc: list = []
        self.explain = explain
        self.expl: list = []      # per answer: [(weight, (Ref, ...)), ...]
        # per answer, aligned with expl: each explanation's entries, oldest first (a Ref,
        # or (clause or None, probability, value) of a choice): what learning and MPE
        # need beyond the weight (slpy.learning)
        self.used: list = []
        self.prob: list = []      # per answer, once complete (explain tables)
        self.plog_base = None
        self.saved_min_prob = 0.0


class Ref:
    """A derivation's use of a tabled answer (an entry of the proof log while a
    table is evaluated under enumeration)."""
    __slots__ = ("table", "i")

    def __init__(self, table, i):
        self.table = table
        self.i = i


class Tables:
    """A Program's tables and the stack of the tables being evaluated."""

    def __init__(self, db):
        self.db = db
        self.reset()

    def reset(self):
        self.tables: dict = {}
        self.by_id: list = []
        self.stack: list = []
        self.added = 0       # answers added to tables, ever
        self.passes = 0      # fixpoint passes started, ever
        self.reach = StochasticReach(self.db)

    def mode(self, eng, impl):
        """'direct', 'explain' or 'plain' for a call of the tabled predicate impl."""
        g = deref(impl)
        if type(g) is Struct and g.name == "::" and len(g.args) == 2:
            g = deref(g.args[1])
        pred = self.db.lookup(g.name, len(g.args) if type(g) is Struct else 0)
        if pred is None or not (pred.kind == STOCH or self.reach.stochastic(pred)):
            return "plain"
        m = eng.mode
        if m == ENUM or (m == PLAIN and eng.rng is None):
            return "explain"
        return "direct"


def guarded_tabled(eng, pred, gargs, guard, nxt, cb, pn):
    """The frame of Guard :: p(...) for a tabled p: the guard goes to the table's
    clauses, and is part of the call's variant."""
    impl = pred.tabled
    goal = Struct(pred.name, gargs) if gargs else atom(pred.name)
    inner = Struct(impl.name, gargs) if gargs else atom(impl.name)
    args = (Struct("::", (guard, goal)), Struct("::", (guard, inner)))
    return (eng.db.get("$tbl_call", 2), args, nxt, cb, pn)


def impl_name(name: str) -> str:
    return f"{name} tabled"


def wrapper_clause(name: str, arity: int):
    """p(A1, ..., An) :- '$tbl_call'(p(A1, ..., An), 'p tabled'(A1, ..., An))."""
    args = tuple(Var() for _ in range(arity))
    head = Struct(name, args) if arity else atom(name)
    impl = Struct(impl_name(name), args) if arity else atom(impl_name(name))
    return Struct(":-", (head, Struct("$tbl_call", (head, impl))))

