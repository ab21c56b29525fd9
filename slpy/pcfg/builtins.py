"""Builtins of priors/phi.slp: the BCART-PCFG prior (paper 004) as a sampling SLP.

P(T | X) proportional to phi^-b(T) is a global constraint, but it factorises into
local choices through the data-free box score Q0(N) = 1 + (1/phi) sum_s Q0(N_s) Q0(N_s-bar)
(eq. 13 with L = 1): stop at N with probability 1/Q0(N), split s with probability
Q0(N_s) Q0(N_s-bar) / (phi Q0(N)). The products telescope to phi^-(b-1) / Q0(root).

    phi_stop_prob(G, Rows, D, P)   P = 1 / Q0(Rows, D): the stop probability
    phi_split(G, Rows, D, S)       a stochastic choice point: S = split(F, V, L, R)
                                   drawn with probability Q0(L) Q0(R) / (phi Q0(Rows) - phi);
                                   fails when Rows has no split

G is ``phi(LogPhi, MaxDepth, MinLeaf)``: ln phi, the depth limit (an integer, or
``none``) and the fewest rows a side (1: non-empty boxes, as in the paper). D is the
depth of Rows (0 at the root); it matters only with a depth limit. Splits giving the
same two row sets count once, represented by the first in (feature, threshold) order.
The Q0 table is a :class:`~slpy.pcfg.grammar.TreeGrammar`, built on first use and
cached in the engine's ``plugin_state["pcfg"]``: these builtins are the "pcfg" plugin
(slpy.logic.plugins), and work on the data plugin's row sets.
"""
from __future__ import annotations

import math

import numpy as np

from ..logic.plugins import Plugin, register
from ..terms.term import Var, Atom, Struct, deref
from ..terms.errors import instantiation_error, type_error, domain_error
from ..terms.args import nonneg_int_arg
from ..data.builtins import data_state, row_id, rows_term
from ..data.splits import FEATURE_MASK, threshold_value, value_term

__all__ = ["PCFG", "phi_table", "parse_spec", "share_table"]

PCFG = register(Plugin("pcfg"))


def _tables(eng) -> dict:
    """This program's phi tables: (row sets, root, depth offset, spec) -> (grammar, Q0)."""
    return eng.plugin_state.setdefault("pcfg", {})


def parse_spec(g) -> tuple[float, int | None, int]:
    """(log_phi, max_depth, min_leaf) from a term phi(LogPhi, MaxDepth, MinLeaf)."""
    g = deref(g)
    if type(g) is Var:
        raise instantiation_error()
    if not (type(g) is Struct and g.name == "phi" and len(g.args) == 3):
        raise type_error("phi_spec", g)
    lp, md, ml = (deref(a) for a in g.args)
    if type(lp) is Var or type(md) is Var or type(ml) is Var:
        raise instantiation_error()
    if type(lp) not in (int, float) or not math.isfinite(lp):
        raise type_error("number", lp)
    if type(md) is Atom and md.name == "none":
        md = None
    elif type(md) is not int:
        raise type_error("integer", md)
    elif md < 0:
        raise domain_error("not_less_than_zero", md)
    if type(ml) is not int:
        raise type_error("integer", ml)
    if ml < 1:
        raise domain_error("positive_integer", ml)
    return float(lp), md, ml


def share_table(eng, grammar, q0) -> None:
    """Let the builtins use a phi grammar (and its Q0 table) built elsewhere."""
    p = grammar.params
    key = (grammar.rowsets.uid, int(grammar.rid[0]), 0, p["log_phi"], p["max_depth"],
           p["min_leaf"])
    _tables(eng)[key] = (grammar, q0)


def phi_table(eng, spec, rid: int, depth: int):
    """(grammar, Q0 inside table, j, d) for the box ``rid`` at ``depth``.

    The table of the whole data (rooted at the root row set) serves every box it
    reaches; a box it does not reach at that depth gets its own table.
    """
    from .grammar import phi_grammar
    from . import _kernels as K
    rs = data_state(eng).rowsets
    cache = _tables(eng)
    log_phi, max_depth, min_leaf = spec
    for root, offset in ((rs.root(), 0), (rid, depth)):
        key = (rs.uid, root, offset, log_phi, max_depth, min_leaf)
        hit = cache.get(key)
        if hit is None:
            md = None if max_depth is None else max(max_depth - offset, 0)
            g = phi_grammar(rs, log_phi, max_depth=md, min_leaf=min_leaf, root=root)
            q0 = K._inside(g.order, g.ptr, g.left, g.right, g.reach, g.alive, g.keyed,
                           g.log_stop, g.log_split, np.zeros(g.n_rowsets))
            hit = cache[key] = (g, q0)
        g, q0 = hit
        j = g.local_of(rid)
        d = depth - offset if g.keyed else 0
        if j >= 0 and 0 <= d < g.n_depth and g.reach[j, d]:
            return g, q0, j, d
    raise AssertionError("a box is always in its own table")   # pragma: no cover


@PCFG.det("phi_stop_prob", 4)
def phi_stop_prob(eng, g, rows, depth, p):
    spec = parse_spec(g)
    g_, q0, j, d = phi_table(eng, spec, row_id(rows), nonneg_int_arg(depth))
    return eng.unify(p, math.exp(g_.log_stop[j, d] - q0[j, d]))


@PCFG.stochastic("phi_split", 4)
def phi_split(eng, g, rows, depth, s):
    spec = parse_spec(g)
    g_, q0, j, d = phi_table(eng, spec, row_id(rows), nonneg_int_arg(depth))
    if g_.log_split[j, d] == -math.inf:
        return s, []
    dc = g_.child_depth(d)
    st = data_state(eng)
    fa = st.feature_atoms
    levels = st.feature_levels
    z = q0[j, d]
    w = g_.log_split[j, d]
    cands = []
    for k in g_.splits(j):
        l, r = int(g_.left[k]), int(g_.right[k])
        f, t = int(g_.feat[k]), float(g_.thr[k])
        wt = math.exp(w + q0[l, dc] + q0[r, dc] - z)
        fi = f & FEATURE_MASK
        v = threshold_value(t) if f == fi and levels[fi] is None else \
            value_term(levels[fi], f, t)
        val = Struct("split", (fa[fi], v, rows_term(int(g_.rid[l])),
                               rows_term(int(g_.rid[r]))))
        cands.append((wt, val, (f, t)))
    return s, cands
