"""Private numba kernels of the tree grammar (slpy.pcfg.grammar). Flat arrays only.

Layout (built and validated by :class:`slpy.pcfg.grammar.TreeGrammar`):

- nonterminal (j, d): local row set j (0 = the root) at depth index d. With
  ``keyed`` false there is one depth index and a child is (c, d); with ``keyed``
  true a child of (j, d) is (c, d + 1). ``reach[j, d]`` marks the nonterminals that
  occur in some derivation from (0, 0).
- the splits of row set j are ``ptr[j]:ptr[j + 1]`` in ``left``, ``right`` (local
  indices), ``feat`` and ``thr``: a split rule (code, value) of slpy.data.splits (a
  row x goes left when ``x[feat] <= thr`` for a numeric feature without a missing
  side; the routing kernels take the code apart into feature and side).
- ``order``: local indices by increasing size. A child is a strict subset of its
  parent, so children come first in ``order``; ``keyed`` grammars are also swept
  by decreasing depth.
- ``log_stop[j, d]`` is the log weight of the stop production and
  ``log_split[j, d]`` that of *each* split whose children are alive (-inf: no split
  production). ``alive[j, d]``: some derivation exists (the prior's support).

Scores are logs; -inf marks a dead or unreachable nonterminal.
"""
from __future__ import annotations

import math

import numpy as np

from .._numba_config import kernel
from ..data._kernels import _goes_left, _rule_mask

NEG_INF = -np.inf


@kernel
def _depth_bound(order, ptr, left, right, expanded):
    """Longest derivation path from the root: the number of depth indices needed."""
    n = order.shape[0]
    dmax = np.full(n, -1, dtype=np.int64)
    dmax[0] = 0
    best = 0
    for k in range(n - 1, -1, -1):      # parents (larger sets) first
        j = order[k]
        if dmax[j] < 0 or not expanded[j]:
            continue
        for s in range(ptr[j], ptr[j + 1]):
            for c in (left[s], right[s]):
                if dmax[j] + 1 > dmax[c]:
                    dmax[c] = dmax[j] + 1
                    if dmax[c] > best:
                        best = dmax[c]
    return best + 1


@kernel
def _reach(order, ptr, left, right, expanded, n_depth, keyed, max_depth):
    """Which (j, d) occur in a derivation from (0, 0) (ignoring liveness)."""
    n = order.shape[0]
    reach = np.zeros((n, n_depth), dtype=np.bool_)
    reach[0, 0] = True
    for k in range(n - 1, -1, -1):
        j = order[k]
        if not expanded[j]:
            continue
        for d in range(n_depth):
            if not reach[j, d] or (max_depth >= 0 and d >= max_depth):
                continue
            dc = d + 1 if keyed else d
            for s in range(ptr[j], ptr[j + 1]):
                reach[left[s], dc] = True
                reach[right[s], dc] = True
    return reach


@kernel
def _liveness(order, ptr, left, right, expanded, reach, keyed, max_depth, mode,
              log_p, log_q):
    """Production weights given the family and the prior's support.

    mode 0 (GROWTREE): a node at depth d splits with probability p_d = exp(log_p[d]),
    uniformly among its *alive* splits; with none it is a leaf with probability 1
    (backtracking drops the split clause), or dead when p_d = 1.
    mode 1 (phi): stop weight exp(log_q[d]), each split exp(log_p[d]).
    Returns (alive, log_stop, log_split).
    """
    n, n_depth = reach.shape
    alive = np.zeros((n, n_depth), dtype=np.bool_)
    log_stop = np.full((n, n_depth), NEG_INF)
    log_split = np.full((n, n_depth), NEG_INF)
    for d in range(n_depth - 1, -1, -1):
        dc = d + 1 if keyed else d
        for k in range(n):
            j = order[k]
            if not reach[j, d]:
                continue
            na = 0
            if expanded[j] and (max_depth < 0 or d < max_depth) and log_p[d] > NEG_INF:
                for s in range(ptr[j], ptr[j + 1]):
                    if alive[left[s], dc] and alive[right[s], dc]:
                        na += 1
            if mode == 1:
                log_stop[j, d] = log_q[d]
                if na > 0:
                    log_split[j, d] = log_p[d]
            elif na > 0:
                log_stop[j, d] = log_q[d]
                log_split[j, d] = log_p[d] - math.log(na)
            elif log_q[d] > NEG_INF:
                log_stop[j, d] = 0.0
            alive[j, d] = log_stop[j, d] > NEG_INF or na > 0
    return alive, log_stop, log_split


@kernel
def _set_counts(rows, off, src, XT, y, n_classes, par, pfeat, pside, pthr, pleft, cat):
    """Class counts of every row set [n, n_classes]. Set j with ``src[j] >= 0`` owns
    ``rows[off[src[j]]:off[src[j] + 1]]``; any other set is the side ``pleft[j]`` of
    the split (pfeat[j], pside[j], pthr[j]) of its parent ``par[j]``, whose rows are
    listed (slpy.data.splits: ``x <= t`` for a numeric feature without a side)."""
    n = src.shape[0]
    out = np.zeros((n, n_classes), dtype=np.int64)
    for j in range(n):
        k = src[j]
        if k >= 0:
            for i in range(off[k], off[k + 1]):
                out[j, y[rows[i]]] += 1
        else:
            k = src[par[j]]
            f = pfeat[j]
            t = pthr[j]
            want = pleft[j]
            if pside[j] == 0 and not cat[f]:
                for i in range(off[k], off[k + 1]):
                    r = rows[i]
                    if (XT[f, r] <= t) == want:
                        out[j, y[r]] += 1
            else:
                prows = rows[off[k]:off[k + 1]]
                go = _rule_mask(XT[f], prows, pside[j], cat[f], t)
                for i in range(prows.shape[0]):
                    if go[i] == want:
                        out[j, y[prows[i]]] += 1
    return out


@kernel
def _inside(order, ptr, left, right, reach, alive, keyed, log_stop, log_split, leaf):
    """Inside scores I[j, d] = log(sum over derivations of weights x leaf factors):
    I = log(exp(stop + leaf[j]) + sum_s exp(split + I[l_s] + I[r_s]))."""
    n, n_depth = reach.shape
    ins = np.full((n, n_depth), NEG_INF)
    for d in range(n_depth - 1, -1, -1):
        dc = d + 1 if keyed else d
        for k in range(n):
            j = order[k]
            if not (reach[j, d] and alive[j, d]):
                continue
            a0 = log_stop[j, d] + leaf[j]
            m = a0
            w = log_split[j, d]
            if w > NEG_INF:
                for s in range(ptr[j], ptr[j + 1]):
                    a = w + ins[left[s], dc] + ins[right[s], dc]
                    if a > m:
                        m = a
            if m == NEG_INF:
                continue
            tot = math.exp(a0 - m)
            if w > NEG_INF:
                for s in range(ptr[j], ptr[j + 1]):
                    a = w + ins[left[s], dc] + ins[right[s], dc]
                    if a > NEG_INF:
                        tot += math.exp(a - m)
            ins[j, d] = m + math.log(tot)
    return ins


@kernel
def _viterbi(order, ptr, left, right, reach, alive, keyed, log_stop, log_split, leaf):
    """Max-product scores V[j, d] and the best production: -1 stop, s a split, -2 none.
    Ties go to the stop production, then to the first split in (feature, threshold)
    order, so the MAP tree is deterministic."""
    n, n_depth = reach.shape
    best = np.full((n, n_depth), NEG_INF)
    arg = np.full((n, n_depth), -2, dtype=np.int64)
    for d in range(n_depth - 1, -1, -1):
        dc = d + 1 if keyed else d
        for k in range(n):
            j = order[k]
            if not (reach[j, d] and alive[j, d]):
                continue
            m = log_stop[j, d] + leaf[j]
            a_m = -1 if m > NEG_INF else -2
            w = log_split[j, d]
            if w > NEG_INF:
                for s in range(ptr[j], ptr[j + 1]):
                    a = w + best[left[s], dc] + best[right[s], dc]
                    if a > m:
                        m = a
                        a_m = s
            best[j, d] = m
            arg[j, d] = a_m
    return best, arg


@kernel
def _predict(X, ptr, left, right, feat, side, thr, cat, default_left, keyed, log_stop,
             log_split, leaf, ins, leaf_pred):
    """Exact posterior predictive of each row of X: the ensemble over all trees.

    R(j, d) = P(stop) pred[j] + sum_s P(s) R(child of s on x's side), with
    P(stop) = exp(stop + leaf[j] - I[j, d]) and P(s) = exp(split + I[l] + I[r] - I[j, d]).
    Only the nonterminals x is routed through are visited: a post-order walk with
    an explicit stack and a memo stamped per row.
    """
    n, n_depth = ins.shape
    C = leaf_pred.shape[1]
    out = np.zeros((X.shape[0], C))
    memo = np.zeros((n, n_depth, C))
    stamp = np.full((n, n_depth), -1, dtype=np.int64)
    stack_j = np.empty(64, dtype=np.int64)
    stack_d = np.empty(64, dtype=np.int64)
    stack_e = np.empty(64, dtype=np.bool_)
    for i in range(X.shape[0]):
        top = 0
        stack_j[0] = 0
        stack_d[0] = 0
        stack_e[0] = False
        top = 1
        while top > 0:
            top -= 1
            j = stack_j[top]
            d = stack_d[top]
            expanded = stack_e[top]
            if stamp[j, d] == i:
                continue
            z = ins[j, d]
            if z == NEG_INF:        # a dead child: no mass ever reaches it
                for c in range(C):
                    memo[j, d, c] = 0.0
                stamp[j, d] = i
                continue
            dc = d + 1 if keyed else d
            w = log_split[j, d]
            if not expanded:
                # revisit after the children on x's side are done
                need = top + 1 + (ptr[j + 1] - ptr[j] if w > NEG_INF else 0)
                if need > stack_j.shape[0]:
                    cap = max(2 * stack_j.shape[0], need)
                    sj = np.empty(cap, dtype=np.int64)
                    sd = np.empty(cap, dtype=np.int64)
                    se = np.empty(cap, dtype=np.bool_)
                    sj[:top] = stack_j[:top]
                    sd[:top] = stack_d[:top]
                    se[:top] = stack_e[:top]
                    stack_j, stack_d, stack_e = sj, sd, se
                stack_j[top] = j
                stack_d[top] = d
                stack_e[top] = True
                top += 1
                if w > NEG_INF:
                    for s in range(ptr[j], ptr[j + 1]):
                        c = left[s] if _goes_left(X[i, feat[s]], side[s], cat[feat[s]],
                                                  thr[s], default_left[s]) else right[s]
                        if stamp[c, dc] != i:
                            stack_j[top] = c
                            stack_d[top] = dc
                            stack_e[top] = False
                            top += 1
                continue
            p0 = math.exp(log_stop[j, d] + leaf[j] - z)
            for c in range(C):
                memo[j, d, c] = p0 * leaf_pred[j, c]
            if w > NEG_INF:
                for s in range(ptr[j], ptr[j + 1]):
                    a = w + ins[left[s], dc] + ins[right[s], dc]
                    if a == NEG_INF:
                        continue
                    ps = math.exp(a - z)
                    ch = left[s] if _goes_left(X[i, feat[s]], side[s], cat[feat[s]],
                                               thr[s], default_left[s]) else right[s]
                    for c in range(C):
                        memo[j, d, c] += ps * memo[ch, dc, c]
            stamp[j, d] = i
        for c in range(C):
            out[i, c] = memo[0, 0, c]
    return out


@kernel
def _path_sample(X, n_paths, rng, ptr, left, right, feat, side, thr, cat, default_left,
                 keyed, log_stop, log_split, leaf, ins):
    """Algorithm 1 of paper 004: per row of X, ``n_paths`` root-to-leaf paths drawn
    from the posterior PCFG, following x's side of each drawn split. Returns the
    local row set of each path's leaf, int64 [n_rows, n_paths]."""
    out = np.empty((X.shape[0], n_paths), dtype=np.int64)
    for i in range(X.shape[0]):
        for t in range(n_paths):
            j = 0
            d = 0
            while True:
                z = ins[j, d]
                u = rng.random()
                acc = math.exp(log_stop[j, d] + leaf[j] - z)
                w = log_split[j, d]
                if u < acc or w == NEG_INF:
                    break
                dc = d + 1 if keyed else d
                nxt = -1
                last = -1
                for s in range(ptr[j], ptr[j + 1]):
                    a = w + ins[left[s], dc] + ins[right[s], dc]
                    if a == NEG_INF:
                        continue
                    last = s
                    acc += math.exp(a - z)
                    if u < acc:
                        nxt = s
                        break
                if nxt < 0:
                    nxt = last     # rounding: u fell past the last split's share
                if nxt < 0:
                    break
                j = left[nxt] if _goes_left(X[i, feat[nxt]], side[nxt], cat[feat[nxt]],
                                            thr[nxt], default_left[nxt]) else right[nxt]
                d = dc
            out[i, t] = j
    return out
