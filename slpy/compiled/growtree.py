"""A compiled chain for the GROWTREE prior (priors/growtree.slp): the tree on flat
arrays and every move in numba; no proof, no engine.

The target at heat b is pi_b(T) ∝ P(T) L(T)^b with P the GROWTREE prior of the
program (a node at depth d with a valid split splits with probability
p_d = alpha (1 + d)^-beta, on a split drawn uniformly among those leaving >= min_leaf
rows a side; a node without one is a leaf) and L the Dirichlet marginal likelihood
of the leaves (slpy.trees.likelihood.DirichletLikelihood).

The prior is a product over nodes and the factors of the nodes below a node k
depend only on k's rows and depth: P(T) = P(T outside k) P(T_k | rows_k, d_k).

**Regrow.** Pick a node k uniformly among the n(T) nodes (leaves included); draw a
new subtree T'_k from P(. | rows_k, d_k), the prior itself; T' is T with T_k
replaced. The node k (its path from the root) is in T' too, with the same rows and
depth, so the reverse move picks it with probability 1/n(T') and draws T_k back
with probability P(T_k | rows_k, d_k). Treating k as part of the proposal,

    a(T -> T') = min(1, [pi_b(T') q(T | T')] / [pi_b(T) q(T' | T)])
               = min(1, [P(T') L(T')^b P(T_k | .) / n(T')]
                        / [P(T) L(T)^b P(T'_k | .) / n(T)])
               = min(1, n(T) / n(T') * (L(T') / L(T))^b),

since P(T') / P(T) = P(T'_k | .) / P(T_k | .). L(T') / L(T) is the ratio of the
leaves' terms below k alone. This is the ``uc`` move of DESIGN.md ("MCMC") with the
choice points of the proof replaced by the tree's nodes: a different proposal,
the same target.

**Change** (Chipman, George & McCulloch 1998). Pick a split node k uniformly among
the s(T) split nodes; draw its new split uniformly among the |S(rows_k)| valid
splits of its rows; every node below keeps its rule and takes its new rows. If a
rule below is no longer a valid split of its new rows (fewer than min_leaf rows a
side, or a threshold not among the rows' values), P(T') = 0 and the move is
rejected. Otherwise T' has the same shape, s(T') = s(T) and rows_k is unchanged, so
the proposal is symmetric and

    a(T -> T') = min(1, P(T') / P(T) * (L(T') / L(T))^b),

where P(T') / P(T) is the product over the nodes strictly below k of their new
factor over their old one: |S(old rows)| / |S(new rows)| for a split node (p_d is
the same), and (1 - p_d or 1, as the leaf's new rows have a valid split or not) over
the old one for a leaf. Node k's own factor p_d / |S(rows_k)| cancels.

**Swap** (Chipman, George & McCulloch 1998). Pick a pair (split node k, split child
c) uniformly among the pairs of the tree; k and c trade rules, and when k's other
child splits on the same rule as c, it takes k's rule too. The rows of k are
unchanged and c's rule, valid on a subset of them, is valid on them. The shape is
unchanged, so the number of pairs is, and the reverse move is the same pair (a child
never has its parent's rule: all its rows fall on one side of it), so the proposal
is symmetric and a(T -> T') is the change move's formula: P(T')/P(T) over the nodes
strictly below k, times (L'/L)^b; node k's factor p_d / |S(rows_k)| is unchanged.

**Perturb** (Pratola 2016). Pick a split node k uniformly among the s(T) split nodes;
its rule is the i-th of the |S(rows_k)| valid splits of its rows, in their order
(feature, then threshold); draw j uniformly among the N(i) = min(i, K) +
min(|S| - 1 - i, K) places within K of i, i excluded, and give k the j-th rule,
the nodes below keeping theirs as in change. The reverse move draws i among the N(j)
places near j, so

    a(T -> T') = min(1, N(i) / N(j) * P(T') / P(T) * (L(T') / L(T))^b),

P(T') / P(T) as in change. It is the engine's ``perturb`` move with a tree node in
place of a choice point.

A run mixes the moves with fixed probabilities (``run(change=..., swap=...)``): a
mixture of kernels that each leave pi_b invariant.

The split rule is :meth:`slpy.data.RowSets.valid_splits`'s own kernel, so the
compiled chain and the engine sample the same prior (tests/compiled check both
against the exact posterior). Data must be numeric without missing values
(``Dataset.plain``), the task classification.
"""
from __future__ import annotations

import math

import numpy as np

from ..data.dataset import Dataset
from ..data.rowsets import RowSets
from ..data.splits import threshold_value
from ..pcfg.block import BLOCK_DEPTHS, split_table
from . import _exact as X
from . import _kernels as K

__all__ = ["GrowtreeChain", "CompiledPathError", "supports"]


class CompiledPathError(ValueError):
    """The compiled path does not apply (a one-line reason)."""


def supports(dataset: Dataset) -> str | None:
    """None when the compiled GROWTREE chain can run on ``dataset``, else why not."""
    if dataset.task != "classification":
        return "the compiled path scores classification data only"
    if not dataset.plain:
        return ("the compiled path needs numeric features without missing values "
                "(these data have categorical features or missing values)")
    return None


class GrowtreeChain:
    """One chain of regrow, change, swap, perturb and exact moves on a GROWTREE tree,
    started at the single leaf (outside the prior's support when alpha = 1:
    :meth:`sample_prior` starts from a draw of the prior instead).

    ``alpha``, ``beta``, ``min_leaf``: the prior's parameters (priors/growtree.slp).
    ``dirichlet``: the Dirichlet likelihood's parameter (a number or one per class).
    ``rowsets``: the data's RowSets (made here when not given). ``split_probs``: a
    node's split probability by its depth, in place of alpha (1 + d)^-beta (another
    prior of GROWTREE's shape, as priors/depth.slp: :func:`depth_split_probs`).
    ``boxes``: box constraints (priors/boxes.slp), an array [boxes, 2, features] of
    each box's lower and upper bounds (-inf, inf where it sets none): no split a box
    forbids is drawn (slpy.compiled._kernels), and the exact move is not made.
    """

    def __init__(self, dataset: Dataset, alpha: float = 0.95, beta: float = 1.0,
                 min_leaf: int = 5, dirichlet=1.0, rowsets: RowSets | None = None,
                 exact_depth: int = 2, split_probs: np.ndarray | None = None,
                 boxes: np.ndarray | None = None):
        why = supports(dataset)
        if why:
            raise CompiledPathError(why)
        alpha, beta = float(alpha), float(beta)
        if not (0.0 <= alpha <= 1.0) or not (math.isfinite(beta) and beta >= 0):
            raise CompiledPathError(f"GROWTREE needs 0 <= alpha <= 1 and beta >= 0 "
                                    f"(alpha={alpha}, beta={beta})")
        if not isinstance(min_leaf, (int, np.integer)) or min_leaf < 1:
            raise CompiledPathError(f"min_leaf must be an integer >= 1, not {min_leaf!r}")
        rs = rowsets if rowsets is not None else RowSets(dataset)
        self.dataset = dataset
        self.params = {"alpha": alpha, "beta": beta, "min_leaf": int(min_leaf)}
        from ..trees.likelihood import DirichletLikelihood
        self.alpha_vec = np.array(DirichletLikelihood(dataset.n_classes, dirichlet).alpha)
        N = dataset.n_rows
        p = dataset.n_features
        if boxes is not None:
            boxes = np.ascontiguousarray(boxes, dtype=np.float64)
            if boxes.ndim != 3 or boxes.shape[1:] != (2, p):
                raise CompiledPathError(f"boxes must be an array [boxes, 2, {p}] of "
                                        f"bounds, not of shape {boxes.shape}")
        # None, not an empty array, when there are none: the kernels are then compiled
        # without the regions' code (a shorter first compile)
        self.boxes = boxes if boxes is not None and len(boxes) else None
        # the split scan's own inputs, as RowSets.valid_splits passes them
        self._data = (np.ascontiguousarray(dataset.X.T, dtype=np.float64), rs._rankT,
                      rs._uvals, rs._uoff, rs._z1, rs._z2,
                      np.ascontiguousarray(dataset.y, dtype=np.int32), self.alpha_vec,
                      int(min_leaf), split_table(alpha, beta, N) if split_probs is None
                      else _checked(split_probs, N), float(rs.bucket_factor), self.boxes)
        cap = 2 * N + 1
        self._regs = np.zeros((cap + 1, 2, p))     # regions of nodes being grown
        self.perm = np.arange(N, dtype=np.int32)
        self.I = np.zeros((cap, 6), dtype=np.int64)
        self.F = np.zeros((cap, 2), dtype=np.float64)
        self._scratch = (np.zeros(N, dtype=np.int32), np.zeros((cap, 6), dtype=np.int64),
                         np.zeros((cap, 2), dtype=np.float64), np.zeros(N, dtype=np.int32),
                         np.zeros(dataset.n_classes, dtype=np.int64),
                         np.zeros((cap, 3), dtype=np.int64))
        # the single leaf
        self.I[0] = (-1, 0, N, 0, 1, -1)
        self.F[0, K.LL] = K._leaf_ll(self.perm, self._data[6], self.alpha_vec,
                                     self._scratch[4])
        self.n = 1
        self.log_lik = float(self.F[0, K.LL])
        # one iteration's outputs, for step()
        self._one = (np.empty(1), np.empty(1, dtype=np.int64), np.empty(1, dtype=np.bool_),
                     np.empty(1, dtype=np.int8))
        self._exact = self._exact_inputs(rs, int(exact_depth))
        # what the move loop's own exact move takes (the sampler's inputs, no ptab)
        ht, ht2, el, anc, orderT, mark, y64, asum, aconst, fs, vs, _, h_max, work = \
            self._exact
        self._exact_loop = (ht, ht2, el, anc, orderT, mark, y64, asum, aconst, fs, vs,
                            h_max, work)

    def _exact_inputs(self, rs: RowSets, h_max: int) -> tuple:
        """The exact move's arrays: its bookkeeping of the tree, then the block
        sampler's inputs as slpy.pcfg.block.GrowtreeBlock makes them."""
        from ..pcfg.exact_move import MAX_DEPTH, WORK
        if not 1 <= h_max <= MAX_DEPTH:
            raise CompiledPathError(f"the exact move's depth must be between 1 and "
                                    f"{MAX_DEPTH}, not {h_max!r}")
        cap = len(self.I)
        a = self.alpha_vec
        return (np.zeros(cap, dtype=np.int64), np.zeros(cap, dtype=np.int64),
                np.zeros(cap, dtype=np.int64), np.zeros(cap, dtype=np.int64),
                np.ascontiguousarray(np.argsort(rs._rankT, axis=1, kind="stable"),
                                     dtype=np.int32),
                np.zeros(self.dataset.n_rows, dtype=np.int8),
                np.array(self.dataset.y, dtype=np.int64), float(a.sum()),
                float(math.lgamma(a.sum()) - sum(math.lgamma(x) for x in a)),
                np.empty(2 ** (h_max + 1), dtype=np.int64),
                np.empty(2 ** (h_max + 1), dtype=np.float64), np.zeros(1), h_max,
                float(WORK))

    def sample_prior(self, rng: np.random.Generator) -> None:
        """Make the state a tree drawn from the prior (as the engine's chains start)."""
        N = self.dataset.n_rows
        perm2, I2, F2, tmp, counts, stack = self._scratch
        self.perm[:] = np.arange(N, dtype=np.int32)
        self._regs[0, 0], self._regs[0, 1] = -np.inf, np.inf
        self.n, _ = K._grow(0, N, 0, self.perm, self.I, self.F, *self._data, rng,
                            tmp, counts, stack, self._regs)
        self.log_lik = float(K._tree_ll(self.n, self.I, self.F))

    def run(self, n_iter: int, rng: np.random.Generator, heat: float = 1.0,
            change: float = 0.0, swap: float = 0.0, exact: float = 0.0,
            perturb: float = 0.0, width: int = 3) -> dict:
        """``n_iter`` moves at heat ``heat``, each a change move with probability
        ``change``, a swap move with probability ``swap``, an exact move (of the depth
        the chain was made with) with probability ``exact``, a perturb move within
        ``width`` places with probability ``perturb``, else a regrow move; the trace
        per iteration: log likelihood, nodes, accepted and the move (0 regrow,
        1 change, 2 swap, 3 exact, 4 perturb)."""
        n_iter = int(n_iter)
        change, swap, exact, perturb = (float(change), float(swap), float(exact),
                                        float(perturb))
        if not (0.0 <= change and 0.0 <= swap and 0.0 <= exact and 0.0 <= perturb
                and change + swap + exact + perturb <= 1.0 + 1e-12):
            raise CompiledPathError(f"change, swap, exact and perturb must be "
                                    f"probabilities summing to at most 1, not {change!r}, "
                                    f"{swap!r}, {exact!r} and {perturb!r}")
        if not isinstance(width, (int, np.integer)) or width < 1:
            raise CompiledPathError(f"the perturb move's width must be a whole number "
                                    f">= 1, not {width!r}")
        if exact > 0.0 and self.boxes is not None:
            raise CompiledPathError("the exact move is not made under box constraints")
        out = {"log_lik": np.empty(n_iter), "nodes": np.empty(n_iter, dtype=np.int64),
               "accepted": np.empty(n_iter, dtype=np.bool_),
               "move": np.empty(n_iter, dtype=np.int8)}
        self._run(n_iter, rng, float(heat), change, swap, exact, perturb, int(width),
                  out["log_lik"], out["nodes"], out["accepted"], out["move"])
        return out

    def step(self, rng: np.random.Generator, heat: float, change: float, swap: float,
             exact: float = 0.0, perturb: float = 0.0, width: int = 3) -> tuple[bool, int]:
        """One move, as :meth:`run` makes them (arguments unchecked: the caller's):
        (accepted, the move: 0 regrow, 1 change, 2 swap, 3 exact, 4 perturb)."""
        ll, nodes, acc, move = self._one
        self._run(1, rng, heat, change, swap, exact, perturb, width, ll, nodes, acc, move)
        return bool(acc[0]), int(move[0])

    def _run(self, n_iter, rng, heat, change, swap, exact, perturb, width, ll, nodes, acc,
             move):
        perm2, I2, F2, tmp, counts, stack = self._scratch
        start = 0
        while start < n_iter:
            self.n, lik, at = X._run(start, n_iter, self.n, self.perm, self.I, self.F,
                                     *self._data, heat, change, swap, exact, perturb,
                                     width, rng, perm2, I2, F2, tmp, counts, stack,
                                     self._regs, ll, nodes, acc, move, self.log_lik,
                                     *self._exact_loop)
            self.log_lik = float(lik)
            if at < 0:
                break
            ok = self._exact_move(rng, heat)
            if ok:
                self.log_lik = float(K._tree_ll(self.n, self.I, self.F))
            ll[at], nodes[at], acc[at] = self.log_lik, self.n, ok
            start = at + 1

    def _exact_move(self, rng, heat) -> bool:
        """One exact block move of a depth limit above 1 (slpy.compiled._exact; the
        move loop makes those of limit 1 itself); accepted?"""
        from ..pcfg._block import _sample, _sorted_rows
        ht, ht2, el, anc, orderT, mark, y64, asum, aconst, fs, vs, logp, h_max, work = \
            self._exact
        XT, rankT, uvals, uoff, z1, z2, y, alpha, m, ptab, bucket, _ = self._data
        k, count = X._exact_pick(self.n, self.perm, self.I, XT, rankT, uvals, uoff, z1,
                                 z2, m, bucket, rng, ht, el, h_max, work)
        if k < 0:
            return False
        lo, hi = int(self.I[k, K.LO]), int(self.I[k, K.HI])
        srt = _sorted_rows(self.perm[lo:hi].copy(), orderT, mark)
        logp[0] = 0.0
        # the block sampler called as slpy.pcfg.block calls it (one compiled copy)
        _sample(srt, XT, y64, alpha, asum, aconst, m, int(self.I[k, K.DEPTH]),
                int(el[k]), float(heat), ptab, rng, fs, vs, 0, logp)
        perm2, I2, F2, tmp, counts, stack = self._scratch
        self.n, ok = X._exact_finish(k, count, self.n, self.perm, self.I, self.F, XT, rankT,
                                     uvals, uoff, z1, z2, y, alpha, m, bucket, rng, perm2,
                                     I2, F2, tmp, counts, stack, ht, ht2, el, anc, fs, vs,
                                     h_max, work)
        return bool(ok)

    def snapshot(self) -> tuple:
        """The tree as copies of its arrays (what :meth:`restore` takes back): the
        chain's state, without its scratch arrays."""
        n = self.n
        return n, self.perm.copy(), self.I[:n].copy(), self.F[:n].copy(), self.log_lik

    def restore(self, snap: tuple) -> None:
        """Make the state the tree of a :meth:`snapshot` (of this chain or another on
        the same data and prior)."""
        n, perm, I, F, log_lik = snap
        self.perm[:] = perm
        self.I[:n] = I
        self.F[:n] = F
        self.n, self.log_lik = n, log_lik

    def set_tree(self, preorder) -> None:
        """Make the state the tree given in pre-order ((feature, threshold) for a split,
        None for a leaf); a CompiledPathError when a split is not one of the prior's
        valid splits of its rows, or a box forbids it (the prior gives the tree
        probability 0)."""
        from ..data._kernels import _scan_splits
        nodes = list(preorder)
        XT, rankT, uvals, uoff, z1, z2, y, alpha, m, _, bucket, boxes = self._data
        tmp, counts = self._scratch[3], self._scratch[4]
        perm = np.arange(self.dataset.n_rows, dtype=np.int32)
        I = np.zeros_like(self.I)
        F = np.zeros_like(self.F)
        whole = np.array([[-np.inf] * XT.shape[0], [np.inf] * XT.shape[0]])
        stack = [(0, self.dataset.n_rows, 0, whole)]
        for j, nd in enumerate(nodes):
            if not stack or j >= len(I):
                raise CompiledPathError("not a whole tree in pre-order")
            lo, hi, d, reg = stack.pop()
            I[j] = (-1, lo, hi, d, 1, -1)
            if nd is None:
                F[j, K.LL] = K._leaf_ll(perm[lo:hi], y, alpha, counts)
                continue
            f, t = int(nd[0]), float(nd[1])
            fs, ts = _scan_splits(rankT, uvals, uoff, np.sort(perm[lo:hi]), z1, z2, m,
                                  bucket)[:2]
            if not ((fs == f) & (ts == t)).any():
                raise CompiledPathError(f"split {self.dataset.feature_names[f]} =< "
                                        f"{threshold_value(t)!r} is not a valid split of "
                                        f"its {hi - lo} rows")
            if boxes is not None and K._forbidden(f, t, reg, boxes):
                raise CompiledPathError(f"a box forbids the split "
                                        f"{self.dataset.feature_names[f]} =< "
                                        f"{threshold_value(t)!r} where the tree makes it")
            mid = K._split_rows(perm, lo, hi, XT[f], t, tmp)
            I[j, K.FEAT] = f
            F[j, K.THR] = t
            left, right = np.empty_like(reg), np.empty_like(reg)
            K._child_regions(reg, f, t, left, right)
            stack += [(mid, hi, d + 1, right), (lo, mid, d + 1, left)]
        if stack:
            raise CompiledPathError("not a whole tree in pre-order")
        n = len(nodes)
        for j in range(n - 1, -1, -1):       # subtree sizes, children first
            if I[j, K.FEAT] >= 0:
                left = j + 1
                I[j, K.SIZE] = 1 + I[left, K.SIZE] + I[left + I[left, K.SIZE], K.SIZE]
        self.perm[:], self.I[:], self.F[:] = perm, I, F
        self.n = n
        self.log_lik = float(K._tree_ll(n, self.I, self.F))

    def shape(self) -> tuple[int, int, int]:
        """(leaves, depth, d): the tree family's traced integers and the choice points
        of the prior's proof (a leaf/split choice at every node and a split draw at
        every split node)."""
        feat = self.I[:self.n, K.FEAT]
        leaves = int((feat < 0).sum())
        return leaves, int(self.I[:self.n, K.DEPTH].max()), 2 * self.n - leaves

    # ---- reading the tree ---------------------------------------------------------

    def preorder(self) -> list:
        """The nodes in pre-order: (feature, threshold) for a split, None for a leaf."""
        feat = self.I[:self.n, K.FEAT].tolist()
        thr = self.F[:self.n, K.THR].tolist()
        return [None if f < 0 else (f, t) for f, t in zip(feat, thr)]

    def leaf_rows(self) -> list:
        """Each leaf's rows (sorted), in pre-order."""
        out = []
        for j in range(self.n):
            if self.I[j, K.FEAT] < 0:
                out.append(np.sort(self.perm[self.I[j, K.LO]:self.I[j, K.HI]]))
        return out

    def canonical(self) -> str:
        """The tree as slpy.trees.term.canonical writes the engine's model term."""
        return canonical_text(self.I[:self.n, K.FEAT].tolist(),
                              self.F[:self.n, K.THR].tolist(), self.dataset.feature_names)

    def log_prior(self) -> float:
        """log P(T) under the chain's prior (a check on the tree; the moves never
        need it)."""
        _, rankT, uvals, uoff, z1, z2, _, _, m, ptab, bucket, boxes = self._data
        reg = np.empty((2, len(rankT)))
        lp = 0.0
        for j in range(self.n):
            lo, hi, d = (int(x) for x in self.I[j, [K.LO, K.HI, K.DEPTH]])
            rows = np.sort(self.perm[lo:hi])
            K._region(j, self.I, self.F, reg)
            S = K._n_splits(rows, rankT, uvals, uoff, z1, z2, m, bucket, boxes, reg)
            p = ptab[d]
            if self.I[j, K.FEAT] >= 0:
                lp += math.log(p) - math.log(S)
            elif S:
                lp += math.log1p(-p) if p < 1 else -math.inf
        return lp


def depth_split_probs(start_depth: int, n_rows: int) -> np.ndarray:
    """priors/depth.slp's split probability 1 / D, D = start_depth + the node's depth,
    at every depth a tree of n_rows rows and its exact blocks reach."""
    return np.array([1 / (start_depth + d) for d in range(n_rows + BLOCK_DEPTHS + 1)])


def _checked(probs, n_rows: int) -> np.ndarray:
    p = np.ascontiguousarray(probs, dtype=np.float64)
    if p.ndim != 1 or len(p) < n_rows + BLOCK_DEPTHS + 1 \
            or not np.all((p >= 0) & (p <= 1)):
        raise CompiledPathError("split_probs must be probabilities for every depth up to "
                                "the number of rows and a block below it")
    return p


def canonical_text(feat, thr, names) -> str:
    """slpy.trees.term.canonical's text of the tree whose pre-order split features are
    `feat` (-1 at a leaf) and thresholds `thr`; `names`: the features' names."""
    from ..trees.term import feature_key
    parts = []
    stack = []
    for f, t in zip(feat, thr):
        if f < 0:
            parts.append("leaf")
            while stack:            # close the splits whose right child this ends
                if stack[-1]:
                    stack.pop()
                    parts.append(")")
                else:
                    stack[-1] = True
                    parts.append(",")
                    break
        else:
            parts.append(f"node({feature_key(names[f])},{threshold_value(t)!r},")
            stack.append(False)
    return "".join(parts)
