"""Builtins that give a Bayesian-network prior access to the data's variables.

A structure prior is conditional on which variables there are (not on their values):

    bn_variables(Vs)          Vs: the variables' names, as atoms, in the data's order
    bn_can_add(X, Y, Es, K)   adding X -> Y to the edges Es (a list of From-To) keeps
                              the graph acyclic and Y's parents at most K
    bn_families(Vs, Es, G)    G = [V-Parents, ...] for the variables Vs and edges Es,
                              each Parents list in the order of Vs
    bn_acyclic(G)             G = [Node-Parents, ...] has no directed cycle
    bn_agrees(G, X, Y, L)     G is unbound, or the link L (none, X-Y or Y-X) of the
                              pair X, Y is the one the families G have

The checks are builtins because a prior replays them at every step of the sampler.
They are the "bn" plugin (slpy.logic.plugins): ``program.attach("bn", data)`` gives a
program the variables, kept in ``engine.plugin_state["bn"]``.
"""
from __future__ import annotations

from ..logic.plugins import Plugin, register
from ..terms.term import Struct, Var, atom, deref, list_items, mklist
from ..terms.errors import existence_error, instantiation_error, type_error


def _attach(program, data) -> None:
    """program.attach("bn", data): the variables of a DiscreteData (slpy.bn.data)."""
    program.engine.plugin_state["bn"] = mklist([atom(n) for n in data.names])


BN = register(Plugin("bn", attach=_attach))


@BN.det("bn_variables", 1)
def bn_variables(eng, vs):
    t = eng.plugin_state.get("bn")
    if t is None:
        raise existence_error("data", atom("bayesian_network_data"), Struct("context", (
            Var(), atom("this prior needs data: give --data FILE"))))
    return eng.unify(vs, t)


def _items(t):
    items, tail = list_items(t)
    if type(deref(tail)) is Var:
        raise instantiation_error()
    return items


def _edges(es):
    out = []
    for e in _items(es):
        e = deref(e)
        if not (type(e) is Struct and e.name == "-" and len(e.args) == 2):
            raise type_error("edge", e)
        a, b = deref(e.args[0]), deref(e.args[1])
        if type(a) is Var or type(b) is Var:
            raise instantiation_error()
        out.append((a, b))
    return out


@BN.det("bn_can_add", 4)
def bn_can_add(eng, x, y, es, k):
    x, y, k = deref(x), deref(y), deref(k)
    if type(k) is not int:
        raise type_error("integer", k)
    children: dict = {}
    indeg = 0
    for a, b in _edges(es):
        children.setdefault(a, []).append(b)
        indeg += b == y
    if indeg >= k:
        return False
    stack, seen = [y], {y}        # is x reachable from y?
    while stack:
        n = stack.pop()
        if n == x:
            return False
        for c in children.get(n, ()):
            if c not in seen:
                seen.add(c)
                stack.append(c)
    return True


@BN.det("bn_families", 3)
def bn_families(eng, vs, es, g):
    names = [deref(v) for v in _items(vs)]
    order = {v: i for i, v in enumerate(names)}
    parents: dict = {v: [] for v in names}
    for a, b in _edges(es):
        if b not in parents or a not in order:
            raise existence_error("variable", b if b not in parents else a)
        parents[b].append(a)
    fams = [Struct("-", (v, mklist(sorted(parents[v], key=order.__getitem__))))
            for v in names]
    return eng.unify(g, mklist(fams))


@BN.det("bn_agrees", 4)
def bn_agrees(eng, g, x, y, link):
    """Lets a prior run with its answer given (a chain started from a DAG) fail at the
    first link that disagrees, not after every pair is drawn."""
    g = deref(g)
    if type(g) is Var:
        return True
    x, y, link = deref(x), deref(y), deref(link)
    px = py = None
    for fam in _items(g):
        fam = deref(fam)
        if not (type(fam) is Struct and fam.name == "-" and len(fam.args) == 2):
            raise type_error("family", fam)
        node = deref(fam.args[0])
        if node == x:
            px = [deref(p) for p in _items(fam.args[1])]
        elif node == y:
            py = [deref(p) for p in _items(fam.args[1])]
    if px is None or py is None:
        return False
    want = Struct("-", (x, y)) if x in py else \
        Struct("-", (y, x)) if y in px else atom("none")
    return eng.unify(link, want)


@BN.det("bn_acyclic", 1)
def bn_acyclic(eng, g):
    """Kahn's algorithm on the parent lists: a deterministic check the prior would
    otherwise spend hundreds of inferences on in every replay."""
    parents = {}
    for fam in _items(g):
        fam = deref(fam)
        if not (type(fam) is Struct and fam.name == "-" and len(fam.args) == 2):
            raise type_error("family", fam)
        node = deref(fam.args[0])
        if type(node) is Var:
            raise instantiation_error()
        parents[node] = [deref(p) for p in _items(fam.args[1])]
    indeg = {n: 0 for n in parents}
    children: dict = {}
    for n, ps in parents.items():
        for p in ps:
            if type(p) is Var:
                raise instantiation_error()
            if p in indeg:
                indeg[n] += 1
                children.setdefault(p, []).append(n)
    ready = [n for n, d in indeg.items() if d == 0]
    seen = 0
    while ready:
        n = ready.pop()
        seen += 1
        for c in children.get(n, ()):
            indeg[c] -= 1
            if indeg[c] == 0:
                ready.append(c)
    return seen == len(parents)
