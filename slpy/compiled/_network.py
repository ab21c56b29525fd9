"""Private numba kernels of the compiled network path (slpy.compiled.network). Flat
arrays only.

A chain's state: ``link[e]`` in {0 none, 1 u -> v, 2 v -> u} for the pair e = (pu[e],
pv[e]); ``pa[v]`` the parents of v and ``ch[u]`` the children of u as bit masks (so at
most 62 variables); ``fam[v]`` the family score of v with its parents now.

Family scores are read from ``table[v, rank]``, filled on first use (NaN: not yet
scored), where rank numbers v's parent sets of at most K members among the other
n - 1 variables: ``offset[k]`` sets of fewer than k members come first, then the
k-sets in the combinatorial number system (sum over the i-th smallest member q_i, as
a position among the others, of C(q_i, i)). A score is the one slpy.bn.score computes
(the same kernels, the same Dirichlet pseudo-counts).
"""
from __future__ import annotations

import math

import numpy as np

from .._numba_config import kernel
from ..bn._kernels import _family_dense, _family_sorted
from ._ladder import _swaps


@kernel
def _rank(v, mask, n, binom, offset):
    r = 0
    k = 0
    for i in range(n):
        if (mask >> i) & 1:
            k += 1
            r += binom[i if i < v else i - 1, k]
    return offset[k] + r


@kernel
def _local(v, mask, n, table, binom, offset, cols, w, arities, ess, bdeu, dense_limit):
    """The family score of v with the parents in `mask` (scored once, then read)."""
    at = _rank(v, mask, n, binom, offset)
    x = table[v, at]
    if not math.isnan(x):
        return x
    k = 0
    for i in range(n):
        k += (mask >> i) & 1
    parents = np.empty(k, dtype=np.int64)
    j = 0
    q = 1
    for i in range(n):
        if (mask >> i) & 1:
            parents[j] = i
            j += 1
            q *= arities[i]
    r = arities[v]
    if bdeu:
        alpha_j, alpha_jk = ess / q, ess / (q * r)
    else:
        alpha_j, alpha_jk = float(r), 1.0
    if q * r <= dense_limit:
        x = _family_dense(cols, w, v, parents, arities, alpha_j, alpha_jk)
    else:
        x = _family_sorted(cols, w, v, parents, arities, alpha_j, alpha_jk)
    table[v, at] = x
    return x


@kernel
def _reaches(a, b, ch):
    """Is there a directed path from a to b?"""
    seen = np.int64(1) << a
    todo = seen
    target = np.int64(1) << b
    while todo != 0:
        low = todo & -todo
        todo ^= low
        i = 0
        while (low >> i) != 1:
            i += 1
        nxt = ch[i] & ~seen
        if nxt & target:
            return True
        seen |= nxt
        todo |= nxt
    return False


@kernel
def _set(u, v, state, pa, ch, on):
    """Add (on) or remove the edge of pair (u, v) in `state` (1 u -> v, 2 v -> u)."""
    a, b = (u, v) if state == 1 else (v, u)
    bit_a, bit_b = np.int64(1) << a, np.int64(1) << b
    if on:
        pa[b] |= bit_a
        ch[a] |= bit_b
    else:
        pa[b] &= ~bit_a
        ch[a] &= ~bit_b


@kernel
def _allowed(u, v, new, pa, ch, max_parents):
    """May the pair (u, v), now unlinked, take state `new` (no cycle, in-degree within
    max_parents)?"""
    if new == 0:
        return True
    a, b = (u, v) if new == 1 else (v, u)
    k = 0
    m = pa[b]
    while m != 0:
        m &= m - 1
        k += 1
    return k < max_parents and not _reaches(b, a, ch)


@kernel
def _sample(rng, link, pu, pv, prob, pa, ch, max_parents):
    """A sequential draw: the pairs in order, each drawn from its link probabilities
    among the states allowed by the pairs before it (what backtracking sampling of the
    prior gives). Returns its importance weight against the normalised prior, the log
    of the product over pairs of the allowed states' share of their probability; -inf
    when a pair has no state left (the draw stops there)."""
    pa[:] = 0
    ch[:] = 0
    w = np.empty(3)
    log_w = 0.0
    for e in range(link.shape[0]):
        u, v = pu[e], pv[e]
        total = 0.0
        last = -1
        for s in range(3):
            w[s] = prob[e, s] if _allowed(u, v, s, pa, ch, max_parents) else 0.0
            total += w[s]
            if w[s] > 0.0:
                last = s
        if last < 0:
            return -np.inf
        log_w += math.log(total / (prob[e, 0] + prob[e, 1] + prob[e, 2]))
        x = rng.random() * total
        s = 0
        while s < last and (w[s] == 0.0 or x >= w[s]):
            x -= w[s]
            s += 1
        link[e] = s
        if s:
            _set(u, v, s, pa, ch, True)
    return log_w


@kernel
def _sample_exact(rng, tries, link, pu, pv, prob, pa, ch, max_parents):
    """An exact draw of the normalised prior, by rejection (as pure sampling of the
    program draws it): every pair's link drawn from its probabilities alone, kept when
    all of them make a DAG of in-degree at most max_parents. Returns the draws it
    took, or -1 when `tries` draws all failed."""
    for k in range(1, tries + 1):
        pa[:] = 0
        ch[:] = 0
        ok = True
        for e in range(link.shape[0]):
            last = 2
            while prob[e, last] <= 0.0:
                last -= 1
            x = rng.random() * (prob[e, 0] + prob[e, 1] + prob[e, 2])
            s = 0
            while s < last and (prob[e, s] <= 0.0 or x >= prob[e, s]):
                x -= prob[e, s]
                s += 1
            link[e] = s
            if s:
                if not _allowed(pu[e], pv[e], s, pa, ch, max_parents):
                    ok = False
                    break
                _set(pu[e], pv[e], s, pa, ch, True)
        if ok:
            return k
    return -1


@kernel
def _family_scores(n, pa, fam, table, binom, offset, cols, w, arities, ess, bdeu,
                   dense_limit):
    """Score every family; return the total (summed in the variables' order)."""
    total = 0.0
    for v in range(n):
        fam[v] = _local(v, pa[v], n, table, binom, offset, cols, w, arities, ess, bdeu,
                        dense_limit)
        total += fam[v]
    return total


@kernel
def _run(n_iter, per_it, rng, heat, link, pu, pv, prob, log_rest, pa, ch, fam, max_parents,
         n, table, binom, offset, cols, w, arities, ess, bdeu, dense_limit, ll, out_ll,
         out_acc):
    """`n_iter` iterations of `per_it` change moves each (1: the engine's change; the
    number of pairs: a sweep) from the state with log likelihood `ll`: a pair e drawn
    uniformly takes another state s' drawn in proportion to its link probability,
    accepted with probability

        min(1, (1 - P(s)) / (1 - P(s')) * (L' / L) ** heat)

    (prior ratio P(s')/P(s) times proposal ratio P(s)/(1-P(s')) over P(s')/(1-P(s)));
    a state that closes a cycle or passes max_parents is rejected. ``log_rest[e, s]``
    is log(1 - P(s)), ``prob[e, s]`` P(s); P(s) = 1 has no other state (the move
    stays). Returns the log likelihood; per iteration it and whether any move was
    accepted go to out_ll and out_acc."""
    n_pairs = link.shape[0]
    for it in range(n_iter * per_it):
        if it % per_it == 0:
            moved = False
        e = min(int(rng.random() * n_pairs), n_pairs - 1)
        s = link[e]
        acc = False
        if log_rest[e, s] > -np.inf:
            # the other two states, drawn in proportion to their probabilities
            s1, s2 = (s + 1) % 3, (s + 2) % 3
            p1 = prob[e, s1]
            new = s1 if rng.random() * (p1 + prob[e, s2]) < p1 else s2
            u, v = pu[e], pv[e]
            if s:
                _set(u, v, s, pa, ch, False)
            if _allowed(u, v, new, pa, ch, max_parents):
                old_u, old_v = fam[u], fam[v]
                if new:
                    _set(u, v, new, pa, ch, True)
                new_u = _local(u, pa[u], n, table, binom, offset, cols, w, arities, ess,
                               bdeu, dense_limit)
                new_v = _local(v, pa[v], n, table, binom, offset, cols, w, arities, ess,
                               bdeu, dense_limit)
                log_a = log_rest[e, s] - log_rest[e, new] \
                    + heat * ((new_u - old_u) + (new_v - old_v))
                if log_a >= 0.0 or np.log(rng.random()) < log_a:
                    acc = True
                    link[e] = new
                    fam[u], fam[v] = new_u, new_v
                    ll = 0.0                # summed afresh: no drift along the chain
                    for i in range(n):
                        ll += fam[i]
                elif new:
                    _set(u, v, new, pa, ch, False)
            if not acc and s:
                _set(u, v, s, pa, ch, True)
        moved |= acc
        if it % per_it == per_it - 1:
            out_ll[it // per_it] = ll
            out_acc[it // per_it] = moved
    return ll


@kernel
def _ladder(sweep0, n_sweeps, lls, links, pas, chs, fams, pu, pv, prob, log_rest,
            max_parents, n, table, binom, offset, cols, w, arities, ess, bdeu, dense_limit,
            heats, at, random_scheme, p_change, pairs, gens, swap_rng, o_acc, o_move,
            o_cold, o_swap, o_prob, o_nswap, o_at, o_ll, o_new, o_edges, o_pa):
    """Sweeps sweep0 .. sweep0 + n_sweeps - 1 of replicas r (links[r], pas[r], chs[r],
    fams[r], log likelihood lls[r]; all updated) at heats[level], each replica's
    iteration as slpy.compiled.network's kernel makes it (one change move with
    probability p_change, drawn from its generator when 0 < p_change < 1, else a
    sweep of `pairs` of them), then the swaps (slpy.compiled._ladder._swaps). Per
    sweep as slpy.compiled._ladder: o_acc, o_move (0 change, 1 sweep), ...; the state
    at heat 1 after the swaps: o_edges and its parent masks o_pa[s] (o_new: they
    differ from the sweep before's, o_pa[s - 1], or for s = 0 from o_pa[n_sweeps],
    which the caller sets)."""
    R = lls.shape[0]
    level = np.empty(R, dtype=np.int64)
    one_ll = np.empty(1)
    one_acc = np.empty(1, dtype=np.bool_)
    prev = n_sweeps
    for s in range(n_sweeps):
        for lv in range(R):
            level[at[lv]] = lv
        for r in range(R):
            rng = gens[r]
            one = p_change == 1.0 or 0.0 < p_change and rng.random() < p_change
            lls[r] = _run(1, 1 if one else pairs, rng, heats[level[r]], links[r], pu, pv,
                          prob, log_rest, pas[r], chs[r], fams[r], max_parents, n, table,
                          binom, offset, cols, w, arities, ess, bdeu, dense_limit, lls[r],
                          one_ll, one_acc)
            o_acc[s, r] = one_acc[0]
            o_move[s, r] = 0 if one else 1
        o_cold[s] = at[0]
        o_nswap[s] = _swaps(sweep0 + s, lls, at, heats, random_scheme, swap_rng,
                            o_swap[s], o_prob[s])
        o_at[s, :] = at
        c = at[0]
        o_ll[s] = lls[c]
        link = links[c]
        edges = 0
        for e in range(link.shape[0]):
            edges += link[e] != 0
        o_edges[s] = edges
        same = True
        for v in range(n):
            o_pa[s, v] = pas[c][v]
            same = same and o_pa[s, v] == o_pa[prev, v]
        o_new[s] = not same
        prev = s


@kernel
def _move_particles(k, lls, links, pas, chs, fams, n_steps, heat, p_change, pairs, rng,
                    link, pa, ch, fam, pu, pv, prob, log_rest, max_parents, n, table, binom,
                    offset, cols, w, arities, ess, bdeu, dense_limit, o_acc, o_ll, o_link,
                    o_pa, o_ch, o_fam):
    """SMC's moves of particles 0 .. k-1 (particle p: links[p], pas[p], chs[p], fams[p],
    log likelihood lls[p]), each copied into the chain's arrays (link, pa, ch, fam)
    and given `n_steps` iterations at `heat` as slpy.compiled.network's kernel makes
    them, drawing from `rng` in turn. o_acc[p]: iterations that accepted a move; when
    some did, the particle after them in o_ll, o_link, o_pa, o_ch, o_fam."""
    one_ll = np.empty(1)
    one_acc = np.empty(1, dtype=np.bool_)
    for p in range(k):
        link[:] = links[p]
        pa[:] = pas[p]
        ch[:] = chs[p]
        fam[:] = fams[p]
        ll = lls[p]
        acc = 0
        for _ in range(n_steps):
            one = p_change == 1.0 or 0.0 < p_change and rng.random() < p_change
            ll = _run(1, 1 if one else pairs, rng, heat, link, pu, pv, prob, log_rest, pa,
                      ch, fam, max_parents, n, table, binom, offset, cols, w, arities, ess,
                      bdeu, dense_limit, ll, one_ll, one_acc)
            acc += one_acc[0]
        o_acc[p] = acc
        if acc:
            o_ll[p] = ll
            o_link[p] = link
            o_pa[p] = pa
            o_ch[p] = ch
            o_fam[p] = fam
