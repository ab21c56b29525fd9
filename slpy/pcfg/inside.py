"""Exact inference over a tree grammar: inside scores, posterior, MAP, predictions.

For a derivation (tree) T of a :class:`~slpy.pcfg.grammar.TreeGrammar` let w(T) be
the product of its production weights and L(T) the product of its leaves'
marginal likelihoods (a leaf-decomposable likelihood, e.g. Dirichlet). Then

    prior      P(T | X)    = w(T) / Z0,          Z0 = I0(root): inside with L = 1
    posterior  P(T | X, Y) = w(T) L(T) / Z,      Z  = I(root)
    evidence   p(Y | X)    = Z / Z0

with I(N) = stop(N) L(N) + sum_s split(N) I(N_s) I(N_s-bar) (eq. 13 of paper 004
when stop = 1 and split = 1/phi; then Z0 = Q0 and Z = Q). For GROWTREE the weights
are the SLP's locally normalised choice probabilities, so Z0 = 1. Everything is in
logs. A derivation is a tuple of ``(j, d, s)`` in pre-order: local row set j, depth
index d, and the split index s (-1 for a leaf).
"""
from __future__ import annotations

import math
import time

import numpy as np

from ..data.splits import FEATURE_MASK, SIDE_SHIFT, threshold_value, value_term
from ..terms.term import Atom, Struct
from ..trees.likelihood import DirichletLikelihood, Likelihood
from ..trees.term import FlatTree
from . import _kernels as K
from .grammar import TreeGrammar

__all__ = ["TreePosterior"]


class TreePosterior:
    """Exact prior or posterior of a tree grammar (``likelihood`` None: the prior)."""

    def __init__(self, grammar: TreeGrammar, likelihood: Likelihood | None = None):
        t0 = time.perf_counter()
        self.grammar = g = grammar
        self.likelihood = likelihood
        self.rowsets = g.rowsets
        self.dataset = g.rowsets.dataset
        n = g.n_rowsets
        if likelihood is not None:
            if not likelihood.decomposable:
                raise ValueError(f"the {likelihood.name} likelihood is not leaf-"
                                 f"decomposable: the PCFG back end needs one that is")
            self.leaf = self._leaf_scores(likelihood)
        else:
            self.leaf = np.zeros(n)
        self.inside0 = self._inside(np.zeros(n))
        self.inside = self.inside0 if likelihood is None else self._inside(self.leaf)
        if not math.isfinite(self.inside[0, 0]):
            raise ValueError("the data have probability 0 under every tree of the prior")
        self._vit = None
        self._leaf_pred = None
        self._cum = {}
        self.seconds = {"inside": time.perf_counter() - t0}

    # ---- scores ----------------------------------------------------------------------------

    def _leaf_scores(self, lik: Likelihood) -> np.ndarray:
        rs = self.rowsets
        if type(lik) is DirichletLikelihood:     # vectorised; a subclass may rescore
            from scipy.special import gammaln
            counts = self.class_counts().astype(np.float64)
            a = lik.alpha
            s = (gammaln(counts + a) - gammaln(a)).sum(axis=1)
            return s + gammaln(a.sum()) - gammaln(counts.sum(axis=1) + a.sum())
        return np.fromiter((lik.leaf_term(rs, int(r)) for r in self.grammar.rid),
                           np.float64, self.grammar.n_rowsets)

    def class_counts(self) -> np.ndarray:
        """Class counts of every row set of the grammar, int64 [n_rowsets, n_classes]."""
        if getattr(self, "_counts", None) is None:
            self._counts = self.grammar.class_counts()
        return self._counts

    def _inside(self, leaf) -> np.ndarray:
        g = self.grammar
        return K._inside(g.order, g.ptr, g.left, g.right, g.reach, g.alive, g.keyed,
                         g.log_stop, g.log_split, leaf)

    @property
    def log_z_prior(self) -> float:
        """log of the prior's normalising constant (log Q0(root) for phi; 0 for GROWTREE)."""
        return float(self.inside0[0, 0])

    @property
    def log_evidence(self) -> float:
        """log of the posterior's normalising constant, log sum_T w(T) L(T)."""
        return float(self.inside[0, 0])

    @property
    def log_marginal_likelihood(self) -> float:
        """log p(Y | X) = log sum_T P(T | X) L(T) (0 with no likelihood)."""
        return float(self.inside[0, 0] - self.inside0[0, 0])

    # ---- derivations -------------------------------------------------------------------------

    def log_weight(self, deriv) -> float:
        g = self.grammar
        return float(sum(g.log_stop[j, d] if s < 0 else g.log_split[j, d]
                         for j, d, s in deriv))

    def log_lik(self, deriv) -> float:
        return float(sum(self.leaf[j] for j, d, s in deriv if s < 0))

    def log_prob(self, deriv) -> float:
        """Posterior log probability of a derivation (the prior's with no likelihood)."""
        if deriv is None:
            return -math.inf
        return self.log_weight(deriv) + self.log_lik(deriv) - self.log_evidence

    def log_prior(self, deriv) -> float:
        if deriv is None:
            return -math.inf
        return self.log_weight(deriv) - self.log_z_prior

    def derivation_of(self, term):
        """The derivation whose model term has the structure of ``term``, or None when
        the grammar cannot derive it (prior probability 0). Leaves' row ids are not
        compared: the structure determines the rows."""
        g = self.grammar
        flat = FlatTree.from_term(term, self.dataset)
        out = []
        pending = [(0, 0)]
        for i in range(flat.n_nodes):        # pre-order: a node's (j, d) is known first
            j, d = pending.pop()
            if not (g.reach[j, d] and g.alive[j, d]):
                return None
            if flat.feature[i] < 0:
                if g.log_stop[j, d] == -math.inf:
                    return None
                out.append((j, d, -1))
                continue
            code = int(flat.feature[i]) | (int(flat.side[i]) << SIDE_SHIFT)
            s = g.find_split(j, code, float(flat.value[i]))
            if s < 0 or g.log_split[j, d] == -math.inf:
                return None
            dc = g.child_depth(d)
            l, r = int(g.left[s]), int(g.right[s])
            if not (g.alive[l, dc] and g.alive[r, dc]):
                return None
            out.append((j, d, s))
            pending.append((r, dc))
            pending.append((l, dc))
        return tuple(out)

    def log_prob_term(self, term, prior: bool = False) -> float:
        """Exact log probability (posterior, or prior with ``prior``) of a model term."""
        d = self.derivation_of(term)
        return self.log_prior(d) if prior else self.log_prob(d)

    def term(self, deriv):
        """The model term node(F, V, L, R) / leaf(rows(Id)) of a derivation."""
        g = self.grammar
        names = [Atom(n) for n in self.dataset.feature_names]
        levels = self.dataset.levels
        built = []
        for j, d, s in reversed(deriv):     # reversed pre-order: children before parents
            if s < 0:
                built.append(Struct("leaf", (Struct("rows", (int(g.rid[j]),)),)))
            else:
                left = built.pop()
                right = built.pop()
                code, v = int(g.feat[s]), float(g.thr[s])
                f = code & FEATURE_MASK
                value = threshold_value(v) if levels is None and code == f else \
                    value_term(levels and levels[f], code, v)
                built.append(Struct("node", (names[f], value, left, right)))
        return built[0]

    def tree(self, deriv, alpha=None):
        """A :class:`~slpy.trees.model.Tree` (printing, JSON, prediction)."""
        from ..trees.model import Tree
        if alpha is None:
            alpha = self.likelihood.alpha if isinstance(self.likelihood,
                                                        DirichletLikelihood) else 1.0
        return Tree.from_term(self.term(deriv), self.rowsets, self.dataset, alpha)

    @staticmethod
    def shape(deriv) -> tuple[int, int]:
        """(leaves, depth) of a derivation."""
        leaves = sum(1 for _, _, s in deriv if s < 0)
        depth = 0
        stack = [0]
        for _, _, s in deriv:      # pre-order: track depth with a stack of pending children
            dd = stack.pop()
            depth = max(depth, dd)
            if s >= 0:
                stack.extend((dd + 1, dd + 1))
        return leaves, depth

    # ---- MAP (max-product) ---------------------------------------------------------------------

    def _viterbi(self):
        if self._vit is None:
            g = self.grammar
            t0 = time.perf_counter()
            self._vit = K._viterbi(g.order, g.ptr, g.left, g.right, g.reach, g.alive,
                                   g.keyed, g.log_stop, g.log_split, self.leaf)
            self.seconds["viterbi"] = time.perf_counter() - t0
        return self._vit

    def map(self):
        """The most probable derivation (the MAP tree; the prior mode with no data)."""
        best, arg = self._viterbi()
        g = self.grammar
        out = []
        stack = [(0, 0)]
        while stack:
            j, d = stack.pop()
            s = int(arg[j, d])
            out.append((j, d, s))
            if s >= 0:
                dc = g.child_depth(d)
                stack.append((int(g.right[s]), dc))
                stack.append((int(g.left[s]), dc))
        return tuple(out)

    def map_log_prob(self) -> float:
        best, _ = self._viterbi()
        return float(best[0, 0] - self.log_evidence)

    def kbest(self, k: int):
        """The k most probable derivations, best first: [(log prob, derivation)]."""
        from .kbest import kbest
        return kbest(self, k)

    def sample(self, rng, n: int = 1):
        """n exact samples from the posterior (the prior with no likelihood)."""
        from .sample import sample_derivations
        return sample_derivations(self, rng, n)

    # ---- prediction ----------------------------------------------------------------------------

    def leaf_predictions(self) -> np.ndarray:
        """Posterior mean class probabilities of a leaf on each row set [n_rowsets, C]."""
        if self._leaf_pred is None:
            if not isinstance(self.likelihood, DirichletLikelihood):
                raise ValueError("class predictions need the Dirichlet likelihood")
            self._leaf_pred = self.likelihood.predict_proba(self.class_counts())
        return self._leaf_pred

    def _rows(self, X) -> np.ndarray:
        X = np.ascontiguousarray(X, dtype=np.float64)
        if X.ndim != 2 or X.shape[1] != self.dataset.n_features:
            raise ValueError(f"X must have {self.dataset.n_features} columns")
        return X

    def _rules(self) -> tuple:
        """The splits' rules for the routing kernels: (feature, side, value,
        categorical per feature, default_left: where an unseen value goes, the side
        with more training rows)."""
        g = self.grammar
        cat = self.dataset.categorical
        return (g.feat & FEATURE_MASK, g.feat >> SIDE_SHIFT, g.thr, cat,
                g.size[g.left] >= g.size[g.right])

    def predict_proba(self, X) -> np.ndarray:
        """Exact posterior predictive class probabilities of new rows: the response of
        the ensemble of all trees weighted by their posterior (paper 004, 5.5)."""
        g = self.grammar
        t0 = time.perf_counter()
        out = K._predict(self._rows(X), g.ptr, g.left, g.right, *self._rules(), g.keyed,
                         g.log_stop, g.log_split, self.leaf, self.inside,
                         self.leaf_predictions())
        self.seconds["predict"] = time.perf_counter() - t0
        return out

    def path_sample(self, X, n_paths: int, rng) -> np.ndarray:
        """Algorithm 1 of paper 004: for each row, the mean over ``n_paths`` sampled
        root-to-leaf paths of the leaf's class probabilities (a Monte Carlo estimate
        of :meth:`predict_proba`)."""
        leaves = self.path_leaves(X, n_paths, rng)
        return self.leaf_predictions()[leaves].mean(axis=1)

    def path_leaves(self, X, n_paths: int, rng) -> np.ndarray:
        """Local row set of the leaf each sampled path ends in, [n_rows, n_paths]."""
        g = self.grammar
        if n_paths < 1:
            raise ValueError("n_paths must be >= 1")
        return K._path_sample(self._rows(X), int(n_paths), rng, g.ptr, g.left, g.right,
                              *self._rules(), g.keyed, g.log_stop, g.log_split,
                              self.leaf, self.inside)

    def map_predict_proba(self, X) -> np.ndarray:
        """Algorithm 2 of paper 004: the MAP tree's response."""
        return self.tree(self.map()).predict_proba(self._rows(X))
