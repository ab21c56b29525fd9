"""`parents`: a Gibbs move on one node's parent set, for the network priors whose pair
choices are `link(X, Y, Link)` (priors/bn.slp, priors/bn_expert.slp).

Pick a node v uniformly. Every u that is not a descendant of v (children included) may
be a parent of v without closing a cycle, whatever v's parents are; call them C. Draw
v's new parents S' among the subsets of C of at most MaxParents members from

    pi(S) ∝ prod over u in C of p(link of u and v as S says) * exp(heat * local(v, S)),

the link probabilities read off the proof's own choice points, and force those links
in the proof (slpy.logic.replay). C does not depend on v's parents, so the
reverse move draws from the same pi; the ratio returned,

    log p0(T')/p0(T) + log pi'(S) - log pi(S'),

is minus the likelihood part of the acceptance (Gibbs: it is accepted unless the prior
has choices this move does not see, and then MH corrects it).
"""
from __future__ import annotations

import itertools
import math

from ..mcmc.moves import Move
from ..terms.term import Atom, Struct, deref
from .dag import BNScorer

__all__ = ["parents_move", "parents_applies", "check_name", "link_states"]


def check_name(name: str) -> None:
    if name != "parents":
        raise ValueError(f"unknown proposal {name!r} (the network move is `parents`)")


def link_states(node) -> list:
    """[(state, Clause, probability)] of a link choice point: state 'none', 'fwd'
    (the call's first variable is the parent) or 'back', None if not a link."""
    out = []
    for x in node._cands:
        w, clause = x[0], x[1]
        h = clause.head
        a = deref(h.args[2])
        if type(a) is Atom and a.name == "none":
            st = "none"
        elif type(a) is Struct and a.name == "-" and len(a.args) == 2:
            st = "fwd" if a.args[0] is h.args[0] else "back" if a.args[0] is h.args[1] \
                else None
        else:
            st = None
        out.append((st, clause, w / node._total))
    return out


def parents_applies(model) -> bool:
    pred = model.program.db.preds.get(("link", 3))
    if not isinstance(model.scorer, BNScorer) or pred is None or not pred.clauses:
        return False
    heads = [deref(c.head.args[2]) for c in pred.clauses]
    return len(heads) == 3 and any(type(a) is Atom and a.name == "none" for a in heads)


def parents_move(model, name: str = "parents"):
    if not parents_applies(model):
        raise ValueError("the parents move needs a network prior whose pairs are "
                         "link(X, Y, Link) choices (priors/bn.slp)")
    scorer = model.scorer
    n = len(scorer.names)
    b = model.program.once("param(max_parents, K)")
    k_max = int(b["K"]) if b and isinstance(b.get("K"), int) else n - 1

    def links(state) -> dict:
        """(u, v) -> (path, {state: (Clause, p)}) for every pair, both orders."""
        out = {}
        for node in state.tree.children:
            if node.pred is None or node.pred.name != "link":
                continue
            x, y = (scorer.index[deref(a).name] for a in node.call.args[:2])
            opts = {st: (c, p) for st, c, p in link_states(node)}
            out[(x, y)] = (node.path, {"in": opts.get("fwd"), "none": opts.get("none")})
            out[(y, x)] = (node.path, {"in": opts.get("back"), "none": opts.get("none")})
        return out

    def conditional(state, v, heat):
        """(C, the subsets' log weights by frozenset, their log normaliser, links)."""
        ps = scorer.parent_sets(state.term)
        kids = [[c for c in range(n) if u in ps[c]] for u in range(n)]
        desc, stack = {v}, [v]
        while stack:
            for c in kids[stack.pop()]:
                if c not in desc:
                    desc.add(c)
                    stack.append(c)
        cand = [u for u in range(n) if u not in desc]
        lk = links(state)
        lin, lnone = {}, {}
        for u in cand:
            opts = lk[(u, v)][1]       # "in": u -> v
            lin[u] = math.log(opts["in"][1]) if opts["in"] and opts["in"][1] > 0 \
                else -math.inf
            lnone[u] = math.log(opts["none"][1]) if opts["none"] and opts["none"][1] > 0 \
                else -math.inf
        base = sum(lnone.values())
        logw = {}
        local = scorer.families.local if scorer.families is not None else None
        for size in range(min(k_max, len(cand)) + 1):
            for s in itertools.combinations(cand, size):
                w = base + sum(lin[u] - lnone[u] for u in s) if s else base
                if w == -math.inf or math.isnan(w):
                    continue
                if local is not None:
                    w += heat * local(v, s)
                logw[frozenset(s)] = w
        top = max(logw.values())
        log_z = top + math.log(sum(math.exp(w - top) for w in logw.values()))
        return cand, logw, log_z, lk

    def propose(rng, state, it, heat):
        v = int(rng.integers(n))
        cand, logw, log_z, lk = conditional(state, v, heat)
        subsets = list(logw)
        p = [math.exp(logw[s] - log_z) for s in subsets]
        new_s = subsets[min(int(rng.choice(len(subsets), p=p)), len(subsets) - 1)]
        old_s = frozenset(scorer.parent_sets(state.term)[v])
        forced = {}
        for u in cand:
            path, opts = lk[(u, v)]
            forced[path] = opts["in" if u in new_s else "none"][0]
        new, r = model.local(state, forced, rng)
        if new is None:
            return None, -math.inf
        cand2, logw2, log_z2, _ = conditional(new, v, heat)
        if set(cand2) != set(cand) or old_s not in logw2:
            return None, -math.inf      # cannot happen for a DAG prior; be safe
        back = logw2[old_s] - log_z2
        return new, (r.log_forced - r.log_forced_old) + r.log_correction + back - (logw[new_s] - log_z)

    return Move("parents", propose)
