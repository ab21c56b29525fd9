"""Small SLPs whose choice structure depends on earlier choices, each with its exact
answer distribution computed in plain Python (tests/mcmc/test_dependent.py).

The target is the normalised SLP distribution (pure semantics, what
``Program.proofs`` enumerates): a labelled call chooses clause c with probability
label(c) / (sum of the labels of ALL the predicate's clauses whose guard unifies with
the call), whether or not their heads unify with it; a stochastic builtin chooses a
candidate with probability 1 / (number of candidates); a derivation's probability is
the product of its choices', and the answers' distribution is that of the successful
derivations, normalised (conditioned on success). So a call whose clause heads do not
all unify, or a body that fails after a choice, loses mass, and the answer
distribution differs from what backtrackable sampling (``slpy sample``) gives.

Each :class:`Case` holds the program, its query (one answer variable), an independent
reference (`reference()`: answer key -> probability, written from the generative
process, never from the engine), a small-data log-likelihood of an answer's key
(`loglik(key)`) under which the posterior clearly differs from the prior, and whether
the program has choice points the `perturb` and `swap` moves act on.

Keys are the answers' text as slpy.mcmc.model.TermScorer().key writes them
(``term_to_text(term, quoted=True)``: ``[a,b]-a``, ``s(the,cat,sleeps)``, ``1-2-3``).
Every program here has exactly one proof per answer (a fast test checks it), so an
answer names a proof and a state can be built from a key.
"""
from __future__ import annotations

import math
from collections import defaultdict
from dataclasses import dataclass
from fractions import Fraction
from itertools import product
from typing import Callable

__all__ = ["Case", "CASES", "BY_NAME", "normalise", "posterior"]


@dataclass(frozen=True)
class Case:
    name: str
    kind: str                       # how its choices depend on earlier ones
    text: str                       # the SLP
    query: str                      # one answer variable
    reference: Callable[[], dict]   # key -> exact probability (plain Python)
    loglik: Callable[[str], float]  # the small-data log-likelihood of an answer's key
    perturb: bool                   # has uniform draws (UniformChoice) with >= 2 candidates
    swap: bool                      # has swap pairs (a builtin draw and the same
                                    # builtin's draw below a sibling)

    def __str__(self):
        return self.name


def normalise(weights: dict) -> dict:
    z = sum(weights.values())
    return {k: float(v / z) for k, v in weights.items() if v > 0}


def posterior(probs: dict, loglik: Callable[[str], float], heat: float = 1.0) -> dict:
    """prior x likelihood^heat, normalised."""
    logw = {k: math.log(p) + heat * loglik(k) for k, p in probs.items()}
    top = max(logw.values())
    w = {k: math.exp(v - top) for k, v in logw.items()}
    z = sum(w.values())
    return {k: v / z for k, v in w.items()}


def _lst(items) -> str:
    return "[" + ",".join(str(x) for x in items) + "]"


F = Fraction

# -----------------------------------------------------------------------------------------
# 1. partitions: a Chinese restaurant process over 4 items, labels from the table counts
# -----------------------------------------------------------------------------------------
CRP_TEXT = r"""
% item i sits at an open table with weight its count, or opens the next table with
% weight alpha = 3/2; the answer lists each item's table (tables numbered in order of
% opening). The number of open tables (and so of candidates with a label > 0) grows.
crp(Zs) :- seat(4, [0, 0, 0], 0, Zs).

seat(N, Cs, K, Zs) :-
    (   N =:= 0
    ->  Zs = []
    ;   Cs = [C1, C2, C3],
        [C1, C2, C3] :: table(K, Z),
        bump(Z, Cs, Cs1),
        K1 is max(K, Z), N1 is N - 1,
        Zs = [Z|Zs1],
        seat(N1, Cs1, K1, Zs1)
    ).

C1 :: [C1, _, _] :: table(_, 1).
C2 :: [_, C2, _] :: table(_, 2).
C3 :: [_, _, C3] :: table(_, 3).
3/2 :: [_, _, _] :: table(K, Z) :- Z is K + 1.

% the count of table Z goes up by one (a fourth table is only ever opened by the last
% item, so its count is never needed)
bump(1, [C|Cs], [C1|Cs]) :- !, C1 is C + 1.
bump(Z, [C|Cs], [C|Cs1]) :- Z > 1, !, Z1 is Z - 1, bump(Z1, Cs, Cs1).
bump(_, [], []).
"""


def _set_partitions(n):
    """Restricted growth strings of length n (tables numbered from 1 in order)."""
    def rec(prefix, k):
        if len(prefix) == n:
            yield list(prefix)
            return
        for z in range(1, k + 2):
            yield from rec(prefix + [z], max(k, z))
    yield from rec([], 0)


def crp_reference():
    # the closed form: alpha^K prod_k (n_k - 1)! / (alpha (alpha + 1) ... (alpha + n - 1))
    alpha = F(3, 2)
    out = {}
    for zs in _set_partitions(4):
        sizes = [zs.count(t) for t in set(zs)]
        num = alpha ** len(sizes)
        for s in sizes:
            num *= math.factorial(s - 1)
        den = F(1)
        for i in range(4):
            den *= alpha + i
        out[_lst(zs)] = num / den
    return normalise(out)


_CRP_X = [0.0, 0.3, 2.0, 2.6]     # one observation per item


def crp_loglik(key):
    # items close together like sharing a table: a Gaussian within-table spread
    # penalty and a cost per table
    zs = [int(t) for t in key.strip("[]").split(",")]
    ssw = 0.0
    for t in set(zs):
        xs = [x for x, z in zip(_CRP_X, zs) if z == t]
        m = sum(xs) / len(xs)
        ssw += sum((x - m) ** 2 for x in xs)
    return -0.8 * ssw - 0.6 * len(set(zs))


# -----------------------------------------------------------------------------------------
# 2. a grammar with number agreement: clause heads that do not unify with the call
# -----------------------------------------------------------------------------------------
AGREE_TEXT = r"""
% number agreement: det/2, noun/2 and vp/2 have clauses for sg, for pl and generic ones;
% once the number is bound (a, many, cat, cats), the other number's clauses do not
% unify but still count in the normalisation (their mass is lost)
s(s(D, N, V)) :- det(Num, D), noun(Num, N), vp(Num, V).

0.4 :: det(sg, a).
0.3 :: det(pl, many).
0.3 :: det(_, the).

0.5 :: noun(sg, cat).
0.2 :: noun(pl, cats).
0.3 :: noun(_, sheep).

0.3 :: vp(sg, sleeps).
0.25 :: vp(pl, sleep).
0.25 :: vp(_, slept).
0.2 :: vp(Num, aux(A, nap)) :- aux(Num, A).

0.5 :: aux(sg, does).
0.5 :: aux(pl, do).
"""


def agree_reference():
    det = [("sg", "a", F(4, 10)), ("pl", "many", F(3, 10)), (None, "the", F(3, 10))]
    noun = [("sg", "cat", F(5, 10)), ("pl", "cats", F(2, 10)), (None, "sheep", F(3, 10))]
    vp = [("sg", "sleeps", F(3, 10)), ("pl", "sleep", F(25, 100)),
          (None, "slept", F(25, 100)), (None, "AUX", F(2, 10))]
    aux = [("sg", "does", F(1, 2)), ("pl", "do", F(1, 2))]

    def agree(num, n):     # unify a number (None: unbound) with a clause's
        if n is None:
            return True, num
        if num is None or num == n:
            return True, n
        return False, num
    out = defaultdict(F)
    for (n1, d, p1), (n2, w, p2), (n3, v, p3) in product(det, noun, vp):
        ok, num = agree(None, n1)
        ok2, num = agree(num, n2)
        ok3, num = agree(num, n3)
        if not (ok and ok2 and ok3):
            continue          # a head that does not unify: the mass is lost
        p = p1 * p2 * p3
        if v != "AUX":
            out[f"s({d},{w},{v})"] += p
            continue
        for n4, a, p4 in aux:
            ok4, _ = agree(num, n4)
            if ok4:
                out[f"s({d},{w},aux({a},nap))"] += p * p4
    return normalise(out)


def agree_loglik(key):
    # a few observed sentences were about sheep, in the past, rarely with "a"
    score = {"sheep": 1.2, "slept": 0.9, "a": -0.8, "do": 0.6, "cats": 0.4}
    words = key.replace("(", ",").replace(")", ",").split(",")
    return sum(score.get(w, 0.0) for w in words)


# -----------------------------------------------------------------------------------------
# 3. pick-then-draw: pick a list, then draw from it (random_member: a UniformChoice)
# -----------------------------------------------------------------------------------------
BAG_TEXT = r"""
% the bag picked decides how many candidates the draw has (2, 5 or 1)
0.5 :: bag([a, b]).
0.3 :: bag([a, b, c, d, e]).
0.2 :: bag([c]).

draw(B-X) :- bag(B), random_member(X, B).
"""


def bag_reference():
    out = defaultdict(F)
    for bag, p in ((["a", "b"], F(1, 2)), (list("abcde"), F(3, 10)), (["c"], F(2, 10))):
        for x in bag:
            out[f"{_lst(bag)}-{x}"] += p / len(bag)
    return normalise(out)


def bag_loglik(key):
    x = key.rsplit("-", 1)[1]
    return {"a": 0.0, "b": 1.0, "c": 1.5, "d": -1.0, "e": 0.5}[x] + \
        (0.7 if key.count(",") == 4 else 0.0)


# -----------------------------------------------------------------------------------------
# 3b. pick a distribution, then draw from it by a labelled call that depends on the pick
# -----------------------------------------------------------------------------------------
MIX_TEXT = r"""
% out/2 has clauses for each distribution and a generic one: a call out(d1, X) has 3
% matching clauses of 5, out(d2, X) has 4, and they lose different masses
0.6 :: dist(d1).
0.4 :: dist(d2).

0.5 :: out(d1, x).
0.2 :: out(d1, y).
0.05 :: out(d2, y).
0.05 :: out(d2, z).
0.05 :: out(d2, v).
0.15 :: out(_, w).

mix(D-X) :- dist(D), out(D, X).
"""


def mix_reference():
    outs = [("d1", "x", F(50)), ("d1", "y", F(20)), ("d2", "y", F(5)), ("d2", "z", F(5)),
            ("d2", "v", F(5)), (None, "w", F(15))]
    total = sum(w for _, _, w in outs)
    out = defaultdict(F)
    for d, pd in (("d1", F(6, 10)), ("d2", F(4, 10))):
        for d2, x, w in outs:
            if d2 is None or d2 == d:
                out[f"{d}-{x}"] += pd * w / total
    return normalise(out)


def mix_loglik(key):
    d, x = key.split("-")
    return {"x": -1.0, "y": 0.8, "z": 0.3, "v": 1.6, "w": 0.0}[x] + (0.5 if d == "d2" else 0)


# -----------------------------------------------------------------------------------------
# 4. a DAG prior on 3 variables: a link that closes a cycle fails
# -----------------------------------------------------------------------------------------
DAG_TEXT = r"""
% each pair gets no link, X -> Y or Y -> X; a link that would close a directed cycle
% fails (its mass is lost), so which links can be drawn depends on the earlier ones
dag(Es) :- link(a, b, [], E1), link(a, c, E1, E2), link(b, c, E2, Es).

0.5 :: link(_, _, Es, Es).
0.3 :: link(X, Y, Es, [X-Y|Es]) :- \+ path(Y, X, Es).
0.2 :: link(X, Y, Es, [Y-X|Es]) :- \+ path(X, Y, Es).

path(X, Y, Es) :- memberchk(X-Y, Es).
path(X, Y, Es) :- member(X-Z, Es), path(Z, Y, Es).
"""


def dag_reference():
    pairs = [("a", "b"), ("a", "c"), ("b", "c")]
    opts = [(None, F(5, 10)), ("fwd", F(3, 10)), ("bwd", F(2, 10))]
    out = defaultdict(F)
    for choice in product(opts, repeat=3):
        edges, p = [], F(1)
        for (x, y), (o, w) in zip(pairs, choice):
            p *= w
            if o == "fwd":
                edges.insert(0, (x, y))
            elif o == "bwd":
                edges.insert(0, (y, x))
        if _has_cycle(edges):
            continue
        out[_lst(f"{u}-{v}" for u, v in edges)] += p
    return normalise(out)


def _has_cycle(edges):
    succ = defaultdict(set)
    for u, v in edges:
        succ[u].add(v)

    def reach(u, target, seen=()):
        return any(v == target or (v not in seen and reach(v, target, seen + (v,)))
                   for v in succ[u])
    return any(reach(u, u) for u in "abc")


def dag_loglik(key):
    # the data like a -> b and dislike c's having a parent
    edges = [e for e in key.strip("[]").split(",") if e]
    s = 1.3 * ("a-b" in edges) - 0.7 * sum(e.endswith("-c") for e in edges)
    return s + 0.4 * len(edges)


# -----------------------------------------------------------------------------------------
# 5. a varying number of choice points: a random length, then that many draws
# -----------------------------------------------------------------------------------------
GEOM_TEXT = r"""
% stop with probability (K + 1) / 4 after K elements (so at most 3), then draw each
% element: 1 + 2 + 4 + 8 answers, 1 to 7 choice points
seq(L) :- [0] :: len(N), length(L, N), maplist(sym, L).

(K + 1) / 4 :: [K] :: len(K).
1 - (K + 1) / 4 :: [K] :: len(N) :- K1 is K + 1, [K1] :: len(N).

0.7 :: sym(a).
0.3 :: sym(b).
"""


def geom_reference():
    out = {}
    for n in range(4):
        pn = F(1)
        for k in range(n):
            pn *= 1 - F(k + 1, 4)
        pn *= F(n + 1, 4)
        for syms in product("ab", repeat=n):
            p = pn
            for s in syms:
                p *= F(7, 10) if s == "a" else F(3, 10)
            out[_lst(syms)] = p
    return normalise(out)


def geom_loglik(key):
    syms = [s for s in key.strip("[]").split(",") if s]
    return 0.9 * syms.count("b") - 0.4 * abs(len(syms) - 2)


# -----------------------------------------------------------------------------------------
# 6. failure between dependent choices: a later draw must differ from the earlier ones
# -----------------------------------------------------------------------------------------
TRIPLE_TEXT = r"""
% three draws, each with labels that depend on the previous value; a draw equal to an
% earlier one fails (after the draw: no backtracking across another choice). With 5
% values there are always free ones, so changing one draw at a time connects them all
triple(X-Y-Z) :- c(X), [X] :: d(Y), Y =\= X, [Y] :: d(Z), Z =\= Y, Z =\= X.

0.6 :: c(1).
0.4 :: c(2).

P :: [P] :: d(1).
1 :: [_] :: d(2).
5 - P :: [P] :: d(3).
1/2 :: [_] :: d(4).
1 :: [_] :: d(5).
"""


def triple_reference():
    c = {1: F(6, 10), 2: F(4, 10)}

    def d(prev):
        w = {1: F(prev), 2: F(1), 3: F(5 - prev), 4: F(1, 2), 5: F(1)}
        t = sum(w.values())
        return {k: v / t for k, v in w.items()}
    out = {}
    for x in c:
        for y, py in d(x).items():
            if y == x:
                continue
            for z, pz in d(y).items():
                if z in (x, y) or pz == 0:
                    continue
                out[f"{x}-{y}-{z}"] = c[x] * py * pz
    return normalise(out)


def triple_loglik(key):
    x, y, z = (int(v) for v in key.split("-"))
    return {1: 0.0, 2: 0.4, 3: 1.2, 4: -0.6, 5: 0.3}[y] - 0.4 * (z == 5) + 0.2 * x


# -----------------------------------------------------------------------------------------
# 7. stochastic builtins: a draw, and the same builtin drawn below a labelled call whose
#    label depends on the first draw (swap and perturb act)
# -----------------------------------------------------------------------------------------
NEST_TEXT = r"""
% X in 1..4; below sub/1 (label X against 2) Y in 1..5: swapping X and Y fails when
% Y = 5, and changes sub/1's probability
nest(X-S) :- random_between(1, 4, X), [X] :: sub(S).

X :: [X] :: sub(v(Y)) :- random_between(1, 5, Y).
2 :: [_] :: sub(leaf).
"""


def nest_reference():
    out = {}
    for x in range(1, 5):
        px = F(1, 4)
        out[f"{x}-leaf"] = px * F(2, x + 2)
        for y in range(1, 6):
            out[f"{x}-v({y})"] = px * F(x, x + 2) * F(1, 5)
    return normalise(out)


def nest_loglik(key):
    x, s = key.split("-", 1)
    y = int(s[2:-1]) if s.startswith("v(") else 0
    return -0.3 * (int(x) - 2) ** 2 + (0.8 if y and abs(y - int(x)) <= 1 else 0.0) - \
        (0.5 if y == 5 else 0.0)


# -----------------------------------------------------------------------------------------
# 7b. uniform_member over a list built from earlier choices (empty: the draw fails)
# -----------------------------------------------------------------------------------------
SUBSET_TEXT = r"""
% each item is kept with its own probability (a computed label), then one of the kept
% items is drawn: 1, 2 or 3 candidates, none when nothing was kept (the draw fails)
pick(Xs-Y) :- keep([a-0.6, b-0.5, c-0.25], Xs), uniform_member(Y, Xs).

keep([], []).
keep([X-W|T], Out) :-
    [W] :: inc(D),
    ( D == yes -> Out = [X|Out1] ; Out = Out1 ),
    keep(T, Out1).

W :: [W] :: inc(yes).
1 - W :: [W] :: inc(no).
"""


def subset_reference():
    items = [("a", F(6, 10)), ("b", F(5, 10)), ("c", F(25, 100))]
    out = {}
    for mask in product((True, False), repeat=3):
        p = F(1)
        kept = []
        for (x, w), m in zip(items, mask):
            p *= w if m else 1 - w
            if m:
                kept.append(x)
        for y in kept:
            out[f"{_lst(kept)}-{y}"] = p / len(kept)
    return normalise(out)


def subset_loglik(key):
    xs, y = key.rsplit("-", 1)
    n = xs.count(",") + 1
    return {"a": -0.6, "b": 0.4, "c": 1.2}[y] - 0.5 * (n == 3) + 0.3 * n


# -----------------------------------------------------------------------------------------
# 7c. a draw whose candidates are computed from an earlier draw (random_select, then
#     random_member among the smaller items: none when the first was the smallest)
# -----------------------------------------------------------------------------------------
SMALLER_TEXT = r"""
sel(X-Y) :-
    random_select(X, [1, 2, 3, 4, 5], Rest),
    findall(Z, (member(Z, Rest), Z < X), Smaller),
    random_member(Y, Smaller).
"""


def smaller_reference():
    out = {}
    for x in range(1, 6):
        for y in range(1, x):
            out[f"{x}-{y}"] = F(1, 5) * F(1, x - 1)
    return normalise(out)


def smaller_loglik(key):
    x, y = (int(v) for v in key.split("-"))
    return -0.7 * (x - y) + 0.5 * (x == 3)


# -----------------------------------------------------------------------------------------
# 8. guards and computed labels depending on earlier choices: an Ising chain
# -----------------------------------------------------------------------------------------
ISING_TEXT = r"""
% four spins; each spin's labels are exp(+-J P) for the previous spin P (0 for the
% first), computed through the guard
ising(Ss) :- spins(4, 0, Ss).

spins(0, _, []) :- !.
spins(N, P, [S|Ss]) :- [P] :: spin(S), N1 is N - 1, spins(N1, S, Ss).

exp(0.8 * P) :: [P] :: spin(1).
exp(-0.8 * P) :: [P] :: spin(-1).
"""


def ising_reference():
    out = {}
    for ss in product((1, -1), repeat=4):
        p, prev = 1.0, 0
        for s in ss:
            p *= math.exp(0.8 * prev * s) / (math.exp(0.8 * prev) + math.exp(-0.8 * prev))
            prev = s
        out[_lst(ss)] = F(p)
    return normalise(out)


def ising_loglik(key):
    ss = [int(s) for s in key.strip("[]").split(",")]
    # a field on the last spin, and data that like a change of sign in the middle
    return 0.8 * (ss[3] == -1) + 0.6 * (ss[1] != ss[2]) + 0.3 * ss[0]


# -----------------------------------------------------------------------------------------
# 9. a labelled call whose number of unifying clauses changes along the way: a walk
# -----------------------------------------------------------------------------------------
WALK_TEXT = r"""
% three steps from 1, each step's choice made inside the previous one's clause; mv/3
% has 2 matching clauses at 1, 3 at 2 and 2 at 3, and the others' labels still count
% (pure normalisation: a walk loses mass at each step)
walk(Ps) :- steps(3, 1, Ps).

steps(0, _, []) :- !.
steps(N, X, Ps) :- N1 is N - 1, mv(X, N1, Ps).

0.3 :: mv(1, N, [2|Ps]) :- steps(N, 2, Ps).
0.15 :: mv(2, N, [3|Ps]) :- steps(N, 3, Ps).
0.15 :: mv(2, N, [1|Ps]) :- steps(N, 1, Ps).
0.1 :: mv(3, N, [1|Ps]) :- steps(N, 1, Ps).
0.3 :: mv(P, N, [P|Ps]) :- steps(N, P, Ps).
"""


def walk_reference():
    mv = [(1, 2, F(3, 10)), (2, 3, F(15, 100)), (2, 1, F(15, 100)), (3, 1, F(1, 10)),
          (None, None, F(3, 10))]
    total = sum(w for _, _, w in mv)
    out = {}

    def rec(x, path, p):
        if len(path) == 3:
            out[_lst(path)] = p
            return
        for a, b, w in mv:
            if a is None:
                rec(x, path + [x], p * w / total)
            elif a == x:
                rec(b, path + [b], p * w / total)
    rec(1, [], F(1))
    return normalise(out)


def walk_loglik(key):
    ps = [int(v) for v in key.strip("[]").split(",")]
    return 1.0 * (ps[-1] == 3) + 0.5 * ps.count(2) - 0.4 * ps.count(1)


# -----------------------------------------------------------------------------------------
# 10. recursion whose depth depends on an earlier choice
# -----------------------------------------------------------------------------------------
DEPTH_TEXT = r"""
% draw a depth D, then a chain of a/b nodes: a node is a leaf, or (only above depth 0:
% below it the body fails) a(T) or b(T) one level down
rec(D-T) :- depth(D), [D] :: t(T).

0.5 :: depth(1).
0.3 :: depth(2).
0.2 :: depth(3).

0.4 :: [_] :: t(leaf).
0.35 :: [D] :: t(a(T)) :- D > 0, D1 is D - 1, [D1] :: t(T).
0.25 :: [D] :: t(b(T)) :- D > 0, D1 is D - 1, [D1] :: t(T).
"""


def depth_reference():
    out = {}

    def chains(d):
        # (text, probability) of every chain t(T) at depth d, including failures' loss
        yield "leaf", F(4, 10)
        if d > 0:
            for inner, p in chains(d - 1):
                yield f"a({inner})", F(35, 100) * p
                yield f"b({inner})", F(25, 100) * p
    for d, pd in ((1, F(5, 10)), (2, F(3, 10)), (3, F(2, 10))):
        for t, p in chains(d):
            out[f"{d}-{t}"] = pd * p
    return normalise(out)


def depth_loglik(key):
    d, t = key.split("-")
    return 0.8 * t.count("b") - 0.3 * int(d) + 0.5 * (t.count("(") == 2)


# -----------------------------------------------------------------------------------------
# 10b. a tiny tree prior: split values drawn in ranges that shrink with depth, a split's
#      label is its parent's value (swap exchanges a parent's and a child's values)
# -----------------------------------------------------------------------------------------
TREE_TEXT = r"""
tree(T) :- [2, 1] :: node(T).

1 :: [_, _] :: node(leaf).
P :: [D, P] :: node(split(V, L)) :-
    D > 0, Hi is D + 1, random_between(1, Hi, V), D1 is D - 1, [D1, V] :: node(L).
"""


def tree_reference():
    out = {}

    def nodes(d, parent):
        z = 1 + parent
        yield "leaf", F(1, z)
        if d > 0:
            for v in range(1, d + 2):
                for inner, p in nodes(d - 1, v):
                    yield f"split({v},{inner})", F(parent, z) * F(1, d + 1) * p
    for t, p in nodes(2, 1):
        out[t] = p
    return normalise(out)


def tree_loglik(key):
    # the data want two splits, the first on 3
    vals = [int(c) for c in key if c.isdigit()]
    return 1.2 * (vals[:1] == [3]) + 0.8 * (len(vals) == 2) - 0.5 * (vals[-1:] == [1])


CASES = [
    Case("crp", "partitions: a Chinese restaurant process, labels from counts",
         CRP_TEXT, "crp(Zs)", crp_reference, crp_loglik, False, False),
    Case("agreement", "grammar: number agreement, heads that do not unify",
         AGREE_TEXT, "s(S)", agree_reference, agree_loglik, False, False),
    Case("bag", "pick a list, then random_member from it", BAG_TEXT, "draw(D)",
         bag_reference, bag_loglik, True, False),
    Case("mixture", "pick a distribution, then a labelled draw that depends on it",
         MIX_TEXT, "mix(M)", mix_reference, mix_loglik, False, False),
    Case("dag", "DAG on 3 variables, cycle-closing links fail", DAG_TEXT, "dag(G)",
         dag_reference, dag_loglik, False, False),
    Case("geometric", "random length, then that many draws", GEOM_TEXT, "seq(L)",
         geom_reference, geom_loglik, False, False),
    Case("distinct", "later draws must differ from earlier ones (failure)", TRIPLE_TEXT,
         "triple(T)", triple_reference, triple_loglik, False, False),
    Case("nested", "random_between below a label that depends on random_between",
         NEST_TEXT, "nest(N)", nest_reference, nest_loglik, True, True),
    Case("subset", "uniform_member over a list built from earlier choices", SUBSET_TEXT,
         "pick(P)", subset_reference, subset_loglik, False, False),
    Case("smaller", "random_member among values computed from a random_select",
         SMALLER_TEXT, "sel(S)", smaller_reference, smaller_loglik, True, False),
    Case("ising", "labels exp(+-J P) from the previous spin, through guards", ISING_TEXT,
         "ising(S)", ising_reference, ising_loglik, False, False),
    Case("walk", "a labelled call with 2 or 3 unifying clauses of 5 along a walk",
         WALK_TEXT, "walk(W)", walk_reference, walk_loglik, False, False),
    Case("depth", "recursion whose depth is an earlier choice", DEPTH_TEXT, "rec(R)",
         depth_reference, depth_loglik, False, False),
    Case("tree", "split values in ranges shrinking with depth, labels from the parent",
         TREE_TEXT, "tree(T)", tree_reference, tree_loglik, True, True),
]

BY_NAME = {c.name: c for c in CASES}
