"""Private numba kernel of a tempered compiled chain's sweeps in one call
(slpy.compiled.ladder): every replica's move, then the swaps, as
slpy.mcmc.tempered.build_tempered_kernel around slpy.compiled.path's kernel makes them,
drawing the same numbers from the same generators (replica r's from gens[r], the swaps'
from swap_rng), so the chain is the same, byte for byte. Calling numba once a sweep
instead of once a replica-move is the point: a call costs about as much as a move.

Per sweep s it writes: each replica's move and whether it was accepted (by replica),
the replica that moved at heat 1, the swaps (i, j, accepted; their acceptance
probabilities), the levels' replicas after them, and the state at heat 1 after them
(log likelihood, nodes, leaves, depth; its split features and thresholds in pre-order
appended to feat_buf, thr_buf when it differs from the sweep before's, new[s]).

SMC's particles are moved here too, a group a call (:func:`_move_particles`).
"""
from __future__ import annotations

import math

import numpy as np

from .._numba_config import kernel
from ._exact import _move
from ._kernels import DEPTH, FEAT, THR, _tree_ll


@kernel
def _swaps(it, lls, at, heats, random_scheme, rng, o_swap, o_prob):
    """slpy.mcmc.tempering.propose_swaps after sweep `it`, applied to `at` (level ->
    replica); the swaps go to o_swap (i, j, accepted) and o_prob. Returns how many."""
    k = heats.shape[0]
    if k < 2:
        return 0
    ll = np.empty(k)
    for lv in range(k):
        ll[lv] = lls[at[lv]]
    q = 0
    if random_scheme:
        i = min(int(rng.random() * k), k - 1)
        j = min(int(rng.random() * (k - 1)), k - 2)
        if j >= i:
            j += 1
        o_swap[0, 0], o_swap[0, 1] = min(i, j), max(i, j)
        q = 1
    else:
        for i in range(it % 2, k - 1, 2):
            o_swap[q, 0], o_swap[q, 1] = i, i + 1
            q += 1
    for t in range(q):
        i, j = o_swap[t, 0], o_swap[t, 1]
        log_a = (heats[i] - heats[j]) * (ll[j] - ll[i])
        u = rng.random()            # slpy.mcmc.proposal.accept
        ok = log_a >= 0 or (u > 0 and math.log(u) < log_a)
        o_swap[t, 2] = ok
        o_prob[t] = math.exp(min(0.0, log_a))
    for t in range(q):
        if o_swap[t, 2]:
            i, j = o_swap[t, 0], o_swap[t, 1]
            at[i], at[j] = at[j], at[i]
    return q


@kernel
def _ladder(sweep0, n_sweeps, ns, lls, perms, Is, Fs, XT, rankT, uvals, uoff, z1, z2, y,
            alpha, m, ptab, bucket, boxes, heats, at, random_scheme, p_change, p_swap,
            p_exact, p_perturb, width, gens, swap_rng, perm2, I2, F2, tmp, counts, stack,
            regs, ht, ht2, el, anc, orderT, mark, y64, asum, aconst, fs, vs, h_max, work,
            o_acc, o_move, o_cold, o_swap, o_prob, o_nswap, o_at, o_ll, o_n, o_leaves,
            o_depth, o_new, o_off, feat_buf, thr_buf, last):
    """Sweeps sweep0 .. sweep0 + n_sweeps - 1 of replicas r (tree ns[r] nodes in
    perms[r], Is[r], Fs[r], log likelihood lls[r]; all updated) at heats[level], at
    (level -> replica) updated by the swaps. The scratch arrays (perm2 ... work) are
    shared: a move leaves nothing in them that the next one reads. `last`: the nodes
    of the state at heat 1 before the first sweep, whose tree is feat_buf[:last],
    thr_buf[:last] (the buffers start with it). Outputs as the module says; o_off[s]
    is where the state at heat 1 of sweep s starts in the buffers. Returns the nodes
    used in the buffers."""
    R = ns.shape[0]
    level = np.empty(R, dtype=np.int64)
    prev, prev_n, end = 0, last, last
    for s in range(n_sweeps):
        for lv in range(R):
            level[at[lv]] = lv
        for r in range(R):
            I, F = Is[r], Fs[r]
            n, acc, mv = _move(ns[r], perms[r], I, F, XT, rankT, uvals, uoff, z1, z2, y,
                               alpha, m, ptab, bucket, boxes, heats[level[r]], p_change,
                               p_swap, p_exact, p_perturb, width, gens[r], perm2, I2, F2,
                               tmp, counts, stack, regs, ht, ht2, el, anc, orderT, mark,
                               y64, asum, aconst, fs, vs, h_max, work)
            if acc:
                lls[r] = _tree_ll(n, I, F)
            ns[r] = n
            o_acc[s, r] = acc
            o_move[s, r] = mv
        o_cold[s] = at[0]
        o_nswap[s] = _swaps(sweep0 + s, lls, at, heats, random_scheme, swap_rng,
                            o_swap[s], o_prob[s])
        o_at[s, :] = at
        c = at[0]
        n, I, F = ns[c], Is[c], Fs[c]
        leaves, depth = 0, 0
        same = n == prev_n
        for j in range(n):
            f = I[j, FEAT]
            leaves += f < 0
            depth = max(depth, I[j, DEPTH])
            if same and (f != feat_buf[prev + j] or F[j, THR] != thr_buf[prev + j]):
                same = False
        o_ll[s], o_n[s], o_leaves[s], o_depth[s] = lls[c], n, leaves, depth
        o_new[s] = not same
        if not same:
            for j in range(n):
                feat_buf[end + j] = I[j, FEAT]
                thr_buf[end + j] = F[j, THR]
            prev, prev_n = end, n
            end += n
        o_off[s] = prev
    return end


@kernel
def _move_particles(k, ns, lls, perms, Is, Fs, n_moves, heat, p_change, p_swap, p_exact,
                    p_perturb, width, rng, perm, I, F, XT, rankT, uvals, uoff, z1, z2, y,
                    alpha, m, ptab, bucket, boxes, perm2, I2, F2, tmp, counts, stack, regs,
                    ht, ht2, el, anc, orderT, mark, y64, asum, aconst, fs, vs, h_max, work,
                    o_acc, o_n, o_ll, o_perm, o_I, o_F):
    """SMC's moves of particles 0 .. k-1 (particle p: tree ns[p] nodes Is[p], Fs[p],
    rows perms[p], log likelihood lls[p]), each copied into the chain's arrays (perm,
    I, F) and moved `n_moves` times at `heat` (:func:`slpy.compiled._exact._move`,
    drawing from `rng` in turn, as slpy.compiled.path's particles move one at a time).
    o_acc[p]: moves accepted; when some were, the particle after them in o_n, o_ll,
    o_perm, o_I, o_F."""
    for p in range(k):
        n = ns[p]
        perm[:] = perms[p]
        I[:n] = Is[p]
        F[:n] = Fs[p]
        ll = lls[p]
        acc = 0
        for _ in range(n_moves):
            n, a, mv = _move(n, perm, I, F, XT, rankT, uvals, uoff, z1, z2, y, alpha, m,
                             ptab, bucket, boxes, heat, p_change, p_swap, p_exact,
                             p_perturb, width, rng, perm2, I2, F2, tmp, counts, stack, regs,
                             ht, ht2, el, anc, orderT, mark, y64, asum, aconst, fs, vs,
                             h_max, work)
            if a:
                ll = _tree_ll(n, I, F)
                acc += 1
        o_acc[p] = acc
        if acc:
            o_n[p], o_ll[p] = n, ll
            o_perm[p] = perm
            o_I[p, :n] = I[:n]
            o_F[p, :n] = F[:n]
