"""Exact inference over a tabled grammar (slpy.pcfg.tabled), in Python.

For the small programs the generic compiler is meant for. Each production p of a
nonterminal N has a local probability q_p: its weight renormalised over the live
productions of N (the renormalisation of backtrackable sampling), and optionally a
log likelihood factor f_p (the leaf(rows(Id)) terms it builds, scored by a
leaf-decomposable likelihood). Then

    I(N) = sum_p q_p exp(f_p) prod_children I(child)

is computed bottom-up when the grammar is acyclic and by fixpoint iteration (the
least solution) when a goal variant can recur. A derivation is a nested
``(nonterminal, production index, [child derivations])``; its probability is
prod q_p exp(f_p) / I(root). With no likelihood and an acyclic grammar I(root) = 1.
"""
from __future__ import annotations

import math
from collections import Counter

import numpy as np

from ..terms.term import Struct, deref, mklist
from ..terms.unify import unify, undo_to
from ..terms.walk import copy_term, resolve, is_ground
from .kbest import LazyKBest
from .tabled import TabledGrammar, CompileError, variant_key, unpack

__all__ = ["TabledPosterior"]

_FIX_TOL = 1e-15
_FIX_MAX = 100_000


def _logsumexp(xs) -> float:
    xs = [x for x in xs if x > -math.inf]
    if not xs:
        return -math.inf
    m = max(xs)
    return m + math.log(sum(math.exp(x - m) for x in xs))


class TabledPosterior:
    """Inside scores, probabilities, MAP, k-best and samples of a TabledGrammar."""

    def __init__(self, grammar: TabledGrammar, likelihood=None, rowsets=None):
        self.g = grammar
        self.likelihood = likelihood
        self.rowsets = rowsets
        self.factor = [[0.0] * len(ps) for ps in grammar.prods]
        if likelihood is not None:
            if not likelihood.decomposable or rowsets is None:
                raise ValueError("data need a leaf-decomposable likelihood and row sets")
            for i, ps in enumerate(grammar.prods):
                before = _leaf_ids(grammar.terms[i])
                for k, p in enumerate(ps):
                    new = _leaf_ids(p.snapshot.args[0]) - before
                    self.factor[i][k] = float(sum(
                        likelihood.leaf_term(rowsets, r) * c for r, c in new.items()))
        self.alive = self._liveness()
        if not self.alive[0]:
            raise CompileError("the query has no derivation (every proof fails)")
        self.logq = []
        for i, ps in enumerate(grammar.prods):
            live = [k for k, p in enumerate(ps) if all(self.alive[c] for c in p.children)]
            tot = sum(ps[k].weight for k in live)
            self.logq.append([math.log(p.weight / tot) if k in live else -math.inf
                              for k, p in enumerate(ps)])
        self.order = self._topological()
        self.cyclic = self.order is None
        self.inside0 = self._inside(with_factor=False)
        self.inside = self.inside0 if likelihood is None else self._inside(True)
        self._vit = None

    # ---- structure ----------------------------------------------------------------------

    def _liveness(self):
        g = self.g
        alive = [False] * len(g)
        changed = True
        while changed:
            changed = False
            for i, ps in enumerate(g.prods):
                if not alive[i] and any(all(alive[c] for c in p.children) for p in ps):
                    alive[i] = changed = True
        return alive

    def _topological(self):
        """Children-first order of the live nonterminals, or None when cyclic."""
        g = self.g
        state = [0] * len(g)     # 0 new, 1 on the stack, 2 done
        order = []
        stack = [(0, iter(self._kids(0)))]
        state[0] = 1
        while stack:
            i, it = stack[-1]
            nxt = next(it, None)
            if nxt is None:
                stack.pop()
                state[i] = 2
                order.append(i)
            elif state[nxt] == 1:
                return None
            elif state[nxt] == 0:
                state[nxt] = 1
                stack.append((nxt, iter(self._kids(nxt))))
        return order

    def _kids(self, i):
        seen = []
        for k, p in enumerate(self.g.prods[i]):
            if self.logq[i][k] > -math.inf:
                seen.extend(c for c in p.children)
        return list(dict.fromkeys(seen))

    def _prod_score(self, i, k, table, with_factor=True):
        s = self.logq[i][k] + (self.factor[i][k] if with_factor else 0.0)
        for c in self.g.prods[i][k].children:
            s += table[c]
        return s

    def _inside(self, with_factor):
        n = len(self.g)
        ins = [-math.inf] * n
        if not self.cyclic:
            for i in self.order:
                ins[i] = _logsumexp(self._prod_score(i, k, ins, with_factor)
                                    for k in range(len(self.g.prods[i])))
            return ins
        for _ in range(_FIX_MAX):       # least fixpoint, from below
            delta = 0.0
            for i in range(n):
                if not self.alive[i]:
                    continue
                new = _logsumexp(self._prod_score(i, k, ins, with_factor)
                                 for k in range(len(self.g.prods[i])))
                if new > -math.inf:
                    delta = max(delta, abs(new - ins[i]) if ins[i] > -math.inf else math.inf)
                ins[i] = new
            if delta < _FIX_TOL:
                break
        return ins

    @property
    def log_z_prior(self) -> float:
        return float(self.inside0[0])

    @property
    def log_evidence(self) -> float:
        return float(self.inside[0])

    @property
    def log_marginal_likelihood(self) -> float:
        return float(self.inside[0] - self.inside0[0])

    # ---- derivations -------------------------------------------------------------------

    def log_weight(self, deriv, with_factor=True) -> float:
        i, k, kids = deriv
        s = self.logq[i][k] + (self.factor[i][k] if with_factor else 0.0)
        return s + sum(self.log_weight(c, with_factor) for c in kids)

    def log_prob(self, deriv) -> float:
        return self.log_weight(deriv) - self.log_evidence

    def log_prior(self, deriv) -> float:
        return self.log_weight(deriv, False) - self.log_z_prior

    def answer(self, deriv) -> dict:
        """The query's bindings (name -> term) that a derivation yields."""
        t = self._answer(deriv)
        return dict(zip(self.g.query_vars, unpack(t.args[0])))

    def _answer(self, deriv):
        i, k, kids = deriv
        snap = copy_term(self.g.prods[i][k].snapshot)
        tmpl, calls = snap.args
        trail: list = []
        for call, kid in zip(unpack(calls), kids):
            if not unify(call, self._answer(kid), trail):    # pragma: no cover
                raise CompileError("a child's answer does not fit its call")
        return resolve(tmpl)

    def log_prob_answer(self, bindings: dict, prior: bool = False) -> float:
        """Exact log probability that the query's answer is ``bindings`` (ground
        terms by variable name): the sum over every derivation that yields it."""
        vals = []
        for n in self.g.query_vars:
            if n not in bindings:
                raise ValueError(f"no value for the query variable {n}")
            if not is_ground(bindings[n]):
                raise ValueError(f"the value of {n} must be ground")
            vals.append(bindings[n])
        memo: dict = {}
        lp = self._match(0, Struct("$q", (mklist(vals),)), memo, not prior)
        return lp - (self.log_z_prior if prior else self.log_evidence)

    def _match(self, i, pattern, memo, with_factor):
        key = (i, variant_key(pattern))
        hit = memo.get(key)
        if hit is not None:
            if hit is _BUSY:
                raise CompileError("a goal variant derives itself with the same answer: "
                                   "its probability is an infinite sum")
            return hit
        memo[key] = _BUSY
        terms = []
        for k, p in enumerate(self.g.prods[i]):
            if self.logq[i][k] == -math.inf:
                continue
            snap = copy_term(p.snapshot)
            trail: list = []
            if not unify(snap.args[0], pattern, trail):
                continue
            s = self.logq[i][k] + (self.factor[i][k] if with_factor else 0.0)
            for c, call in zip(p.children, unpack(snap.args[1])):
                s += self._match(c, resolve(call), memo, with_factor)
                if s == -math.inf:
                    break
            undo_to(trail, 0)
            terms.append(s)
        memo[key] = out = _logsumexp(terms)
        return out

    # ---- MAP, k-best, samples, enumeration ---------------------------------------------------

    def _viterbi(self):
        if self._vit is None:
            n = len(self.g)
            best = [-math.inf] * n
            arg = [-1] * n
            sweeps = [self.order] if not self.cyclic else [range(n)] * (n + 1)
            for sweep in sweeps:
                for i in sweep:
                    for k in range(len(self.g.prods[i])):
                        s = self._prod_score(i, k, best)
                        if s > best[i]:
                            best[i], arg[i] = s, k
            self._vit = (best, arg)
        return self._vit

    def map(self):
        best, arg = self._viterbi()

        def build(i):
            k = arg[i]
            return (i, k, [build(c) for c in self.g.prods[i][k].children])
        return build(0)

    def kbest(self, k: int) -> list:
        """[(log prob, derivation)] of the k most probable derivations."""
        kb = LazyKBest(_Adapter(self))
        return [(s - self.log_evidence, _nest(t)) for s, t in kb.top(0, k)]

    def sample(self, rng, n: int = 1) -> list:
        """Exact samples: productions drawn with q_p exp(f_p) prod I(child) / I(N)."""
        cache = {}

        def probs(i):
            c = cache.get(i)
            if c is None:
                z = self.inside[i]
                c = cache[i] = np.cumsum([math.exp(self._prod_score(i, k, self.inside) - z)
                                          for k in range(len(self.g.prods[i]))])
            return c

        def draw(i):
            cum = probs(i)
            k = min(int(np.searchsorted(cum, rng.random() * cum[-1], side="right")),
                    len(cum) - 1)
            while cum[k] == (cum[k - 1] if k else 0.0):
                k -= 1
            return (i, k, [draw(c) for c in self.g.prods[i][k].children])
        return [draw(0) for _ in range(n)]

    def enumerate(self, limit: int = 100_000) -> list:
        """Every derivation with its log probability (acyclic grammars only)."""
        if self.cyclic:
            raise CompileError("the grammar is recursive: its derivations cannot be listed")
        memo: dict = {}
        for i in self.order:
            out = []
            for k, p in enumerate(self.g.prods[i]):
                if self.logq[i][k] == -math.inf:
                    continue
                combos = [(self.logq[i][k] + self.factor[i][k], [])]
                for c in p.children:
                    combos = [(s + cs, kids + [cd]) for s, kids in combos for cs, cd in memo[c]]
                    if len(combos) > limit:
                        raise CompileError(f"more than {limit} derivations")
                out.extend((s, (i, k, kids)) for s, kids in combos)
            memo[i] = out
        return [(s - self.log_evidence, d) for s, d in memo[0]]

    def answer_distribution(self, limit: int = 100_000) -> Counter:
        """Probability of each distinct answer (text of the bindings)."""
        from ..terms.writer import term_to_text
        out = Counter()
        for lp, d in self.enumerate(limit):
            a = self.answer(d)
            text = ", ".join(f"{n} = {term_to_text(v, quoted=True)}" for n, v in a.items())
            out[text] += math.exp(lp)
        return out


_BUSY = object()


def _leaf_ids(t) -> Counter:
    """Row-set ids of the leaf(rows(Id)) subterms of t, with multiplicities."""
    out = Counter()
    stack = [t]
    while stack:
        x = deref(stack.pop())
        if type(x) is Struct:
            if x.name == "leaf" and len(x.args) == 1:
                r = deref(x.args[0])
                if type(r) is Struct and r.name == "rows" and len(r.args) == 1 \
                        and type(deref(r.args[0])) is int:
                    out[deref(r.args[0])] += 1
                    continue
            stack.extend(x.args)
    return out


class _Adapter:
    def __init__(self, post):
        self.post = post
        self.best_, self.arg_ = post._viterbi()

    def best(self, v):
        return self.best_[v], self.arg_[v]

    def edge_tails(self, v, e):
        return self.post.g.prods[v][e].children

    def edges(self, v):
        p = self.post
        return [(k, p.logq[v][k] + p.factor[v][k], prod.children)
                for k, prod in enumerate(p.g.prods[v]) if p.logq[v][k] > -math.inf
                and all(p.alive[c] for c in prod.children)]


def _nest(t):
    v, e, kids = t
    return (v, e, [_nest(k) for k in kids])
