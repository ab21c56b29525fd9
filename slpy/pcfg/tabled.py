"""The generic tabled compiler: a small SLP in the tractable fragment -> a PCFG.

Tabling each stochastic goal variant as a nonterminal and each clause as a
production turns an SLP whose stochastic goals are independent given their inputs
into a probabilistic context-free grammar (DESIGN.md, "The PCFG back end").

How a program is read (a symbolic run of the clause bodies, one goal variant at a time):

- A call to a labelled predicate is a *call nonterminal*, keyed by the call's variant
  (guard included). Its productions are the clauses whose head and guard unify, with
  their labels. Its unbound arguments are outputs: they stay unbound in the parent
  (a "hole" the child's answer fills) and no later goal of the parent may use them.
- A stochastic builtin (``uniform_split``, ``uniform_member``, ...) is a *choice
  nonterminal* keyed by the builtin call together with the rest of the body: each
  candidate is a production that runs the rest. Nesting it under the clause gives
  exactly the renormalisation of backtrackable sampling (a candidate whose rest fails
  drops out; a clause with no surviving candidate drops out).
- Unlabelled predicates that reach no stochastic goal run in the engine and must have
  at most one solution. Those that do reach one are unfolded when exactly one clause
  head matches.
- After the walk, nonterminals with no finite derivation are dead; every other
  nonterminal's productions are renormalised over its live ones. That is the
  distribution of backtrackable sampling (the invariant that ties this back end to
  the sampler).

Outside the fragment, compilation stops with :class:`NotInFragment` naming the reason
and the clause (file:line): an output used by a later goal (sibling goals sharing an
unbound variable), a plain goal with several solutions, a choice among several
clauses of an unlabelled predicate around stochastic goals, a cut or a disjunction
around stochastic goals, an uninstantiated label, more goal variants than the limit
(the goal space is not finite, or too large for Python).
"""
from __future__ import annotations

import math
from collections import deque
from dataclasses import dataclass

from ..logic.plugins import UniformChoice
from ..logic.db import STOCH, SBUILTIN, USER
from ..terms.term import Var, Atom, Struct, deref, PrologError, mklist, list_items
from ..terms.unify import unify, undo_to
from ..terms.walk import copy_term, resolve, term_variables
from ..terms.control import is_connective
from ..errors import PicklableError
from ..logic.variant import StochasticReach, variant_key

__all__ = ["CompileError", "NotInFragment", "Production", "TabledGrammar", "compile_slp",
           "variant_key"]

class CompileError(PicklableError, ValueError):
    """The program could not be compiled; ``str()`` is one line naming the clause."""

    def __init__(self, reason: str, clause=None):
        self.reason = reason
        self.where = _where(clause)
        super().__init__(f"{self.where}: {reason}" if self.where else reason)


class NotInFragment(CompileError):
    """The program is outside the tractable fragment (see the module docstring)."""


def _where(clause) -> str:
    if clause is None:
        return ""
    if isinstance(clause, str):
        return clause
    loc = f"{clause.file}:{clause.line}" if clause.file else ""
    what = f"clause {clause.number} of {clause.pred.name}/{clause.pred.arity}"
    return f"{loc}: {what}" if loc else what


@dataclass
class Production:
    """One production: ``weight`` (label x candidate weight), the child nonterminals,
    and ``snapshot`` = '$p'(Template, [Call_1, ..., Call_k]): the nonterminal's
    answer with holes, and the calls whose answers fill them."""
    weight: float
    children: tuple
    snapshot: object
    origin: str


class TabledGrammar:
    """Nonterminals (``keys``, ``terms``, ``kinds``: query, call or choice) and their
    productions. Inference lives in :mod:`slpy.pcfg.hypergraph`."""

    def __init__(self):
        self.keys: list = []
        self.terms: list = []
        self.kinds: list = []
        self.ctx: list = []
        self.prods: list[list[Production]] = []
        self.index: dict = {}
        self.query_vars: list = []

    def __len__(self) -> int:
        return len(self.keys)

    @property
    def n_productions(self) -> int:
        return sum(len(p) for p in self.prods)

    def describe(self) -> dict:
        return {"family": "tabled", "nonterminals": len(self),
                "productions": self.n_productions}


class _Compiler:
    def __init__(self, program, max_nonterminals: int):
        self.p = program
        self.eng = program.engine
        self.db = program.db
        self.trail = self.eng.trail
        self.limit = max_nonterminals
        self.g = TabledGrammar()
        self.queue = deque()
        self.reach = StochasticReach(program.db)

    # ---- nonterminals ------------------------------------------------------------------

    def nt(self, term, kind, ctx=None) -> int:
        key = (kind, variant_key(term))
        i = self.g.index.get(key)
        if i is None:
            i = self.g.index[key] = len(self.g.keys)
            if i >= self.limit:
                raise NotInFragment(
                    f"more than {self.limit} goal variants: the goal space is not finite "
                    f"(or too large for the tabled compiler)", ctx[0][1] if ctx else None)
            self.g.keys.append(key)
            self.g.terms.append(copy_term(term))
            self.g.kinds.append(kind)
            self.g.ctx.append(ctx)
            self.g.prods.append(None)
            self.queue.append(i)
        return i

    def start(self, goal, varnames) -> None:
        names = [n for n in varnames if not n.startswith("_")]
        self.g.query_vars = names
        tmpl = Struct("$q", (mklist([varnames[n] for n in names]),))
        root = Struct("$query", (tmpl, goal))
        self.nt(root, "query", [(goal, "<query>")])

    def run(self, goal, varnames):
        self.start(goal, varnames)
        while self.queue:
            i = self.queue.popleft()
            self.g.prods[i] = self.expand(i)
        return self.g

    def productions(self, i) -> list:
        """The productions of nonterminal i, expanding it on first use."""
        if self.g.prods[i] is None:
            self.g.prods[i] = self.expand(i)
        return self.g.prods[i]

    def lazy_log_prob(self, values, i=0, memo=None) -> float:
        """log probability that nonterminal i answers ``values`` (ground), expanding
        only the nonterminals on the way and assuming every nonterminal has a
        derivation (true of tree priors, whose nodes can always be leaves)."""
        if memo is None:
            memo = {}
            values = Struct("$q", (mklist(list(values)),))
        key = (i, variant_key(values))
        if key in memo:
            return memo[key]
        prods = self.productions(i)
        total = sum(p.weight for p in prods)
        terms = []
        for p in prods:
            snap = copy_term(p.snapshot)
            mark = len(self.trail)
            if unify(snap.args[0], values, self.trail):
                s = math.log(p.weight / total)
                for c, call in zip(p.children, unpack(snap.args[1])):
                    s += self.lazy_log_prob(resolve(call), c, memo)
                terms.append(s)
            undo_to(self.trail, mark)
        m = max(terms, default=-math.inf)
        out = m + math.log(sum(math.exp(t - m) for t in terms)) if m > -math.inf else m
        memo[key] = out
        return out

    def expand(self, i) -> list:
        term = copy_term(self.g.terms[i])
        kind = self.g.kinds[i]
        if kind == "query":
            tmpl, goal = term.args
            return self._productions([(1.0, tmpl, [(goal, self.g.ctx[i][0][1])], "query")])
        if kind == "choice":
            return self._choice(i, term)
        return self._call(term)

    def _productions(self, alts) -> list:
        """alts: (weight, template, goals, origin), each run with its bindings undone."""
        out = []
        for w, tmpl, goals, origin in alts:
            mark = len(self.trail)
            try:
                kids = self._run(goals)
                if kids is not None:
                    snap = copy_term(Struct("$p", (tmpl, mklist([c for _, c in kids]))))
                    out.append(Production(float(w), tuple(k for k, _ in kids), snap, origin))
            finally:
                undo_to(self.trail, mark)
        return out

    def _call(self, term) -> list:
        from ..logic.arith import eval_arith
        guard = None
        call = term
        if type(term) is Struct and term.name == "::" and len(term.args) == 2:
            guard, call = term.args
        call = deref(call)
        name, args = (call.name, call.args) if type(call) is Struct else (call.name, ())
        pred = self.db.lookup(name, len(args))
        out = []
        for c in list(pred.clauses):
            mark = len(self.trail)
            m: dict = {}
            head = copy_term(c.head, m)
            body = copy_term(c.body, m) if c.body is not None else None
            label = copy_term(c.label, m)
            cg = copy_term(c.guard, m) if c.guard is not None else None
            ok = unify(head, call, self.trail)
            if ok and guard is not None and cg is not None:
                ok = unify(cg, guard, self.trail)
            if not ok:
                undo_to(self.trail, mark)
                continue
            try:
                w = eval_arith(deref(label))
            except PrologError as e:
                undo_to(self.trail, mark)
                raise NotInFragment(f"the label {resolve(label)} cannot be evaluated when "
                                    f"the clause is selected ({e})", c)
            if type(w) not in (int, float) or not math.isfinite(w) or w < 0:
                undo_to(self.trail, mark)
                raise CompileError(f"label {w}: a label must be a finite number >= 0", c)
            if w > 0:
                goals = [(body, c)] if body is not None else []
                try:
                    out.extend(self._productions([(w, call, goals, _where(c))]))
                finally:
                    undo_to(self.trail, mark)
            undo_to(self.trail, mark)
        return out

    def _choice(self, i, term) -> list:
        b, rest = term.args
        b = deref(b)
        ctxs = self.g.ctx[i]
        goals = [(g, ctx) for g, (_, ctx) in zip(unpack(rest), ctxs[1:])]
        pred = self.db.lookup(b.name, len(b.args))
        try:
            target, cands = pred.fn(self.eng, *b.args)
        except PrologError as e:
            raise NotInFragment(f"{b.name}/{len(b.args)} needs ground inputs ({e})", ctxs[0][1])
        if type(cands) is UniformChoice:
            cands = cands.materialise()
        out = []
        for w, value, key in cands:
            if w <= 0:
                continue
            mark = len(self.trail)
            if unify(target, value, self.trail):
                out.extend(self._productions([(w, term, goals, f"{b.name} = {key}")]))
            undo_to(self.trail, mark)
        return out

    # ---- one body -----------------------------------------------------------------------

    def _run(self, goals):
        """Run a goal list symbolically: [(child nonterminal, call instance)], or None
        when it fails. Bindings stay on the trail for the caller to snapshot."""
        goals = list(goals)
        kids = []
        opaque: dict = {}      # id(var) -> the call that outputs it
        while goals:
            g, cl = goals.pop(0)
            g = deref(g)
            for v in term_variables(g):
                if id(v) in opaque:
                    raise NotInFragment(
                        f"the output {_show(v)} of {_show(opaque[id(v)])} is used by the "
                        f"later goal {_show(g)}: sibling goals must not share unbound "
                        f"variables", cl)
            if type(g) is Var:
                raise NotInFragment("a variable as a goal", cl)
            if type(g) not in (Atom, Struct):
                raise CompileError(f"{_show(g)} is not callable", cl)
            name, args = (g.name, g.args) if type(g) is Struct else (g.name, ())
            if (name, len(args)) == (",", 2):
                goals[0:0] = [(args[0], cl), (args[1], cl)]
                continue
            if (name, len(args)) == ("$tbl_call", 2):
                # a tabled predicate (:- table): its clauses are the productions
                goals[0:0] = [(args[1], cl)]
                continue
            if g is Atom("true"):
                continue
            target = g
            if name in ("::", ":") and len(args) == 2:
                target = deref(args[1])
            tname = target.name if type(target) in (Atom, Struct) else None
            tar = len(target.args) if type(target) is Struct else 0
            pred = self.db.lookup(tname, tar) if tname is not None else None
            if pred is not None and pred.kind == STOCH:
                # the key keeps the guard (it sets the labels); the answer is the goal
                for v in term_variables(target):
                    opaque[id(v)] = target
                kids.append((self.nt(g, "call", [(g, cl)]), target))
                continue
            if pred is not None and pred.kind == SBUILTIN and target is g:
                for v in term_variables(Struct("$", tuple(x for x, _ in goals))):
                    if id(v) in opaque:
                        raise NotInFragment(
                            f"the output {_show(v)} of {_show(opaque[id(v)])} is used after "
                            f"{_show(g)}: sibling goals must not share unbound variables", cl)
                cont = Struct("$cont", (g, mklist([x for x, _ in goals])))
                ctx = [(g, cl)] + [(x, c) for x, c in goals]
                kids.append((self.nt(cont, "choice", ctx), cont))
                return kids
            if pred is not None and pred.kind == USER and not pred.builtin \
                    and self.reach.stochastic(pred) and target is g:
                body = self._unfold(g, pred, cl)
                if body is None:
                    return None
                goals[0:0] = body
                continue
            if self.reach.hides_stochastic(g):
                raise NotInFragment(f"{_show(g)}: stochastic goals inside a control "
                                    f"construct or meta-call", cl)
            if not self._det(g, cl):
                return None
        return kids

    def _unfold(self, g, pred, cl):
        """The body goals of the one clause of an unlabelled predicate matching g."""
        match = None
        for c in pred.clauses:
            mark = len(self.trail)
            m: dict = {}
            head = copy_term(c.head, m)
            ok = unify(head, g, self.trail)
            undo_to(self.trail, mark)
            if ok:
                if match is not None:
                    raise NotInFragment(
                        f"{_show(g)} matches several clauses of {pred.name}/{pred.arity}, "
                        f"which calls stochastic goals: a plain Prolog choice around them",
                        match)
                match = c
        if match is None:
            return None
        m = {}
        head = copy_term(match.head, m)
        body = copy_term(match.body, m) if match.body is not None else None
        unify(head, g, self.trail)
        if body is None:
            return []
        if self._has_cut(body):
            raise NotInFragment("a cut in a clause that calls stochastic goals", match)
        return [(body, match)]

    def _det(self, g, cl) -> bool:
        """Run a plain goal in the engine: it must have at most one solution."""
        gc = copy_term(g)
        sols = []
        try:
            for _ in self.eng.solve(gc):
                sols.append(resolve(gc))
                if len(sols) > 1:
                    break
        except PrologError as e:
            raise CompileError(f"{_show(g)}: {e}", cl)
        if not sols:
            return False
        if len(sols) > 1:
            raise NotInFragment(f"{_show(g)} has more than one solution: a plain goal "
                                f"must be deterministic", cl)
        return unify(g, sols[0], self.trail)

    @staticmethod
    def _has_cut(body) -> bool:
        stack = [body]
        while stack:
            g = deref(stack.pop())
            if g is Atom("!"):
                return True
            if is_connective(g):
                stack.extend(g.args)
        return False


def unpack(t) -> list:
    """The items of a proper list term (goal lists and child calls are kept as lists:
    terms.unify does not take compounds with no arguments)."""
    return list_items(t)[0]


def _show(t) -> str:
    from ..terms.writer import term_to_text
    try:
        return term_to_text(resolve(t), quoted=True)
    except Exception:      # pragma: no cover - printing must never hide the real error
        return str(t)


def lazy_compiler(program, query: str = "cart(T)", max_nonterminals: int = 1_000_000):
    """A compiler that expands nonterminals on demand (see ``lazy_log_prob``)."""
    goal, varnames = program.parse_query(query)
    comp = _Compiler(program, max_nonterminals)
    comp.start(goal, varnames)
    return comp


def compile_slp(program, query: str = "cart(T)", max_nonterminals: int = 20000) -> TabledGrammar:
    """Compile ``query`` of a loaded Program into a :class:`TabledGrammar`.

    Raises :class:`NotInFragment` (with the reason and the clause) for a program
    outside the tractable fragment.
    """
    goal, varnames = program.parse_query(query)
    return _Compiler(program, max_nonterminals).run(goal, varnames)
