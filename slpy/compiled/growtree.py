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
    """One chain of regrow and change moves on a GROWTREE tree, started at the single
    leaf (outside the prior's support when alpha = 1: :meth:`sample_prior` starts
    from a draw of the prior instead).

    ``alpha``, ``beta``, ``min_leaf``: the prior's parameters (priors/growtree.slp).
    ``dirichlet``: the Dirichlet likelihood's parameter (a number or one per class).
    ``rowsets``: the data's RowSets (made here when not given).
    """

    def __init__(self, dataset: Dataset, alpha: float = 0.95, beta: float = 1.0,
                 min_leaf: int = 5, dirichlet=1.0, rowsets: RowSets | None = None):
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
        # the split scan's own inputs, as RowSets.valid_splits passes them
        self._data = (np.ascontiguousarray(dataset.X.T, dtype=np.float64), rs._rankT,
                      rs._uvals, rs._uoff, rs._z1, rs._z2,
                      np.ascontiguousarray(dataset.y, dtype=np.int32), self.alpha_vec,
                      int(min_leaf), alpha, beta, float(rs.bucket_factor))
        cap = 2 * N + 1
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

    def sample_prior(self, rng: np.random.Generator) -> None:
        """Make the state a tree drawn from the prior (as the engine's chains start)."""
        N = self.dataset.n_rows
        perm2, I2, F2, tmp, counts, stack = self._scratch
        self.perm[:] = np.arange(N, dtype=np.int32)
        self.n, _ = K._grow(0, N, 0, self.perm, self.I, self.F, *self._data[:12], rng,
                            tmp, counts, stack)
        self.log_lik = float(K._tree_ll(self.n, self.I, self.F))

    def run(self, n_iter: int, rng: np.random.Generator, heat: float = 1.0,
            change: float = 0.0, swap: float = 0.0) -> dict:
        """``n_iter`` moves at heat ``heat``, each a change move with probability
        ``change``, a swap move with probability ``swap``, else a regrow move; the
        trace per iteration: log likelihood, nodes, accepted and the move (0 regrow,
        1 change, 2 swap)."""
        n_iter = int(n_iter)
        change, swap = float(change), float(swap)
        if not (0.0 <= change and 0.0 <= swap and change + swap <= 1.0):
            raise CompiledPathError(f"change and swap must be probabilities summing to at "
                                    f"most 1, not {change!r} and {swap!r}")
        out = {"log_lik": np.empty(n_iter), "nodes": np.empty(n_iter, dtype=np.int64),
               "accepted": np.empty(n_iter, dtype=np.bool_),
               "move": np.empty(n_iter, dtype=np.int8)}
        perm2, I2, F2, tmp, counts, stack = self._scratch
        self.n, ll = K._run(n_iter, self.n, self.perm, self.I, self.F, *self._data,
                            float(heat), change, swap, rng, perm2, I2, F2, tmp, counts,
                            stack, out["log_lik"], out["nodes"], out["accepted"],
                            out["move"], self.log_lik)
        self.log_lik = float(ll)
        return out

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
        from ..trees.term import feature_key
        names = self.dataset.feature_names
        parts = []
        stack = []
        for nd in self.preorder():
            if nd is None:
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
                f, t = nd
                parts.append(f"node({feature_key(names[f])},{threshold_value(t)!r},")
                stack.append(False)
        return "".join(parts)

    def log_prior(self) -> float:
        """log P(T) under GROWTREE (a check on the tree; the moves never need it)."""
        from ..data._kernels import _scan_splits
        _, rankT, uvals, uoff, z1, z2, _, _, m, a, b, bucket = self._data
        lp = 0.0
        for j in range(self.n):
            lo, hi, d = (int(x) for x in self.I[j, [K.LO, K.HI, K.DEPTH]])
            rows = np.sort(self.perm[lo:hi])
            S = len(_scan_splits(rankT, uvals, uoff, rows, z1, z2, m, bucket)[0])
            p = a * (1 + d) ** (-b)
            if self.I[j, K.FEAT] >= 0:
                lp += math.log(p) - math.log(S)
            elif S:
                lp += math.log1p(-p) if p < 1 else -math.inf
        return lp
