"""Marginal likelihoods p(Y | X, T) of a tree's leaves, as plugins.

A tree's likelihood only sees its leaves, each a row-set id of a
:class:`~slpy.data.RowSets`. A plugin caches one *leaf term* per row set and
*combines* the terms of a tree's leaves:

- ``dirichlet`` (classification): leaf class probabilities ~ Dirichlet(alpha).
  The leaf term is a log score and the combine is a sum (``decomposable = True``,
  which the PCFG back end needs).
- ``normal`` (regression): the conjugate model of Chipman, George & McCulloch
  (1998). The variance is shared by all leaves, so the combine is not a sum.

Adding a likelihood is one module::

    from slpy.trees.likelihood import Likelihood, register_likelihood

    @register_likelihood
    class PoissonLikelihood(Likelihood):
        name, task, decomposable = "poisson", "regression", True
        def __init__(self, shape=1.0, rate=1.0): ...
        @classmethod
        def from_dataset(cls, dataset, **hyper): return cls(**hyper)
        def _compute_leaf(self, rowsets, rid): ...   # the cached per-leaf term
        def combine(self, terms): return sum(terms)

Importing the module registers it; ``make_likelihood("poisson", ds)`` then works.
"""
from __future__ import annotations

import abc
import math
from typing import ClassVar, Iterable, Sequence

import numpy as np

from ..data.dataset import Dataset
from ..data.rowsets import RowSets
from . import _lik_kernels as K

__all__ = ["Likelihood", "DirichletLikelihood", "NormalLikelihood", "LIKELIHOODS",
           "register_likelihood", "make_likelihood", "tree_log_likelihood",
           "normal_tree_log_likelihood", "leaf_class_counts", "leaf_stats"]


class Likelihood(abc.ABC):
    """Base class: per-leaf terms cached per (row-set table, row-set id).

    Subclasses set ``name``, ``task`` ("classification" or "regression") and
    ``decomposable`` (True when ``combine`` is the sum of float leaf terms), and
    implement ``from_dataset``, ``_compute_leaf`` and ``combine``.
    """

    name: ClassVar[str]
    task: ClassVar[str]
    decomposable: ClassVar[bool]

    @classmethod
    @abc.abstractmethod
    def from_dataset(cls, dataset: Dataset, **hyper) -> "Likelihood":
        """Build with defaults that may depend on the data."""

    @abc.abstractmethod
    def _compute_leaf(self, rowsets: RowSets, rid: int):
        """The leaf term of ``rid`` (uncached)."""

    @abc.abstractmethod
    def combine(self, terms: Sequence) -> float:
        """log p(Y | X, T) from the leaf terms of T's leaves."""

    def _check_rowsets(self, rowsets: RowSets) -> None:
        """Raise if ``rowsets`` cannot be scored by this likelihood."""
        if rowsets.dataset.task != self.task:
            raise TypeError(f"the {self.name} likelihood needs a {self.task} dataset")

    def _cache(self, rowsets: RowSets) -> dict:
        # Ids are only meaningful within one table, hence one cache per table.
        # Created lazily so that subclasses need not call super().__init__.
        try:
            return self._caches[rowsets.uid]
        except (AttributeError, KeyError):
            pass
        self._check_rowsets(rowsets)
        if "_caches" not in self.__dict__:
            self._caches = {}
        c = self._caches[rowsets.uid] = {}
        rowsets.on_clear(c.clear)  # dropped with the row sets' caches
        return c

    def leaf_term(self, rowsets: RowSets, rid: int):
        """The cached leaf term of row set ``rid``."""
        c = self._cache(rowsets)
        t = c.get(rid)
        if t is None:
            t = c[rid] = self._compute_leaf(rowsets, rid)
        return t

    def log_likelihood(self, rowsets: RowSets, leaf_ids: Iterable[int]) -> float:
        """log p(Y | X, T) for the tree whose leaves are the row sets ``leaf_ids``."""
        c = self._cache(rowsets)
        try:
            terms = [c[r] for r in leaf_ids]
        except KeyError:
            terms = [self.leaf_term(rowsets, r) for r in leaf_ids]
        return self.combine(terms)

    def clear_cache(self) -> None:
        """Forget every cached leaf term."""
        for c in self.__dict__.get("_caches", {}).values():
            c.clear()  # in place: the row sets' clear hook holds this dict


LIKELIHOODS: dict[str, type[Likelihood]] = {}


def register_likelihood(cls: type[Likelihood]) -> type[Likelihood]:
    """Class decorator: make ``cls`` available to :func:`make_likelihood` by its name."""
    if not (isinstance(cls, type) and issubclass(cls, Likelihood)):
        raise TypeError("register_likelihood needs a Likelihood subclass")
    LIKELIHOODS[cls.name] = cls
    return cls


def make_likelihood(name: str, dataset: Dataset, **hyper) -> Likelihood:
    """The likelihood registered as ``name``, with hyperparameters ``hyper``."""
    cls = LIKELIHOODS.get(name)
    if cls is None:
        raise ValueError(f"unknown likelihood {name!r}; known: {sorted(LIKELIHOODS)}")
    if dataset.task != cls.task:
        raise ValueError(f"the {name} likelihood is for {cls.task}, but the dataset "
                         f"{dataset.source} is a {dataset.task} dataset")
    return cls.from_dataset(dataset, **hyper)


def _positive(name: str, v) -> float:
    v = float(v)
    if not (math.isfinite(v) and v > 0):
        raise ValueError(f"{name} must be a positive number, not {v}")
    return v


# ---- Dirichlet-multinomial ----------------------------------------------------------


def _alpha_vector(alpha, n_classes: int) -> np.ndarray:
    a = np.array(alpha, dtype=np.float64).reshape(-1)
    if a.size == 1:
        a = np.full(n_classes, a[0])
    if a.size != n_classes:
        raise ValueError(f"alpha has {a.size} values for {n_classes} classes")
    if not (np.isfinite(a).all() and (a > 0).all()):
        raise ValueError("alpha must be positive and finite")
    a.setflags(write=False)
    return a


@register_likelihood
class DirichletLikelihood(Likelihood):
    """Dirichlet-multinomial marginal likelihood of class labels.

    With n_ik rows of class k in leaf i, n_i = sum_k n_ik and A = sum_k alpha_k,
    the leaf term is

        log Gamma(A) - log Gamma(n_i + A) + sum_k [log Gamma(n_ik + alpha_k) - log Gamma(alpha_k)]

    and log p(Y|X,T) is the sum over leaves: eq. 1 of Angelopoulos & Cussens (ICML
    2005), with the prior normaliser Gamma(A)/prod_k Gamma(alpha_k) once per leaf
    (each leaf has its own theta_i; the extracted text of eq. 1 shows it once,
    which is the same when it equals 1, e.g. two classes with alpha = 1).
    """

    name, task, decomposable = "dirichlet", "classification", True

    def __init__(self, n_classes: int, alpha=1.0):
        if not (isinstance(n_classes, (int, np.integer)) and n_classes >= 1):
            raise ValueError(f"n_classes must be a positive integer, not {n_classes!r}")
        self.n_classes = int(n_classes)
        self.alpha = _alpha_vector(alpha, self.n_classes)

    @classmethod
    def from_dataset(cls, dataset: Dataset, alpha=1.0) -> "DirichletLikelihood":
        return cls(dataset.n_classes, alpha)

    def _check_rowsets(self, rowsets: RowSets) -> None:
        super()._check_rowsets(rowsets)
        if rowsets.dataset.n_classes != self.n_classes:
            raise ValueError(f"likelihood has {self.n_classes} classes, the data "
                             f"{rowsets.dataset.n_classes}")

    def _compute_leaf(self, rowsets: RowSets, rid: int) -> float:
        return float(K._dirichlet_leaf(rowsets.class_counts(rid), self.alpha))

    def combine(self, terms: Sequence[float]) -> float:
        return float(sum(terms))

    def log_likelihood(self, rowsets: RowSets, leaf_ids: Iterable[int]) -> float:
        # Hot path of the sampler: a sum of dict lookups.
        c = self._cache(rowsets)
        try:
            return float(sum(map(c.__getitem__, leaf_ids)))
        except KeyError:
            return float(sum(self.leaf_term(rowsets, r) for r in leaf_ids))

    def predict_proba(self, counts) -> np.ndarray:
        """Posterior mean class probabilities (n_ik + alpha_k) / (n_i + A); [K] or [b, K]."""
        c = np.asarray(counts, dtype=np.float64)
        if c.shape[-1] != self.n_classes:
            raise ValueError(f"counts have {c.shape[-1]} classes, expected {self.n_classes}")
        post = c + self.alpha
        return post / post.sum(axis=-1, keepdims=True)


# ---- conjugate normal (Chipman, George & McCulloch 1998) -------------------------------


@register_likelihood
class NormalLikelihood(Likelihood):
    """Conjugate normal marginal likelihood (Chipman, George & McCulloch 1998).

    Model: y_ij ~ N(mu_i, sigma^2) in leaf i, mu_i | sigma ~ N(mu_bar, sigma^2 / a),
    sigma^2 ~ InvGamma(nu/2, nu*lam/2). Integrating mu_i per leaf and sigma once,
    with b leaves, n rows, s_i = sum_j (y_ij - ybar_i)^2 and
    t_i = n_i a / (n_i + a) (ybar_i - mu_bar)^2:

        p(Y|X,T) = c a^(b/2) / prod_i sqrt(n_i + a) * (sum_i (s_i + t_i) + nu lam)^(-(n+nu)/2),
        c = pi^(-n/2) (nu lam)^(nu/2) Gamma((n+nu)/2) / Gamma(nu/2).

    The leaf term is ``(n_i, -log(n_i + a)/2, s_i + t_i)``; ``combine`` sums the
    pieces and applies the formula, so changing a few leaves costs O(b).

    Defaults: ``mu_bar`` = mean(y); ``lam`` puts prior probability ``sigma_quantile``
    (0.9) on sigma^2 <= var(y), i.e. lam = var(y) chi2.ppf(1 - q, nu) / nu (the
    calibration of Chipman, George & McCulloch's later BART paper; var(y) is the
    data-based upper guess for sigma^2 that CGM 1998 also start from); nu = 3, a = 1/3.
    """

    name, task, decomposable = "normal", "regression", False

    def __init__(self, nu: float = 3.0, lam: float | None = None,
                 mu_bar: float | None = None, a: float = 1 / 3, *, y=None,
                 sigma_quantile: float = 0.9):
        self.nu = _positive("nu", nu)
        self.a = _positive("a", a)
        if lam is None or mu_bar is None:
            if y is None:
                raise ValueError("lam and mu_bar default from the data: pass y= or "
                                 "use NormalLikelihood.from_dataset")
            y = np.asarray(y, dtype=np.float64)
            if y.size < 2 or not np.isfinite(y).all():
                raise ValueError("data defaults need at least two finite responses")
        if mu_bar is None:
            mu_bar = float(np.mean(y))
        if lam is None:
            q = float(sigma_quantile)
            if not 0.0 < q < 1.0:
                raise ValueError(f"sigma_quantile must be in (0, 1), not {q}")
            var = float(np.var(y, ddof=1))
            if var <= 0.0:
                raise ValueError("the response is constant: give lam explicitly")
            from scipy.stats import chi2   # lazy: scipy.stats is slow to import
            lam = var * float(chi2.ppf(1.0 - q, self.nu)) / self.nu
        self.lam = _positive("lam", lam)
        self.mu_bar = float(mu_bar)
        if not math.isfinite(self.mu_bar):
            raise ValueError("mu_bar must be finite")

    @classmethod
    def from_dataset(cls, dataset: Dataset, **hyper) -> "NormalLikelihood":
        return cls(y=dataset.y, **hyper)

    def _compute_leaf(self, rowsets: RowSets, rid: int) -> tuple[float, float, float]:
        n, s, css = rowsets.stats(rid).tolist()
        lp, quad = K._normal_leaf(n, s, css, self.mu_bar, self.a)
        return n, lp, quad

    def combine(self, terms: Sequence[tuple[float, float, float]]) -> float:
        n = lp = quad = 0.0
        for ni, li, qi in terms:
            n += ni
            lp += li
            quad += qi
        return float(K._normal_combine(n, len(terms), lp, quad, self.nu, self.lam, self.a))

    def predict_mean(self, stats) -> np.ndarray | float:
        """Posterior mean of mu_i, (sum_i + a mu_bar) / (n_i + a), from [n, sum, css] rows."""
        s = np.asarray(stats, dtype=np.float64)
        out = (s[..., 1] + self.a * self.mu_bar) / (s[..., 0] + self.a)
        return float(out) if out.ndim == 0 else out


# ---- from scratch: one kernel call per tree ---------------------------------------------


def _flat_leaves(leaves, rows, offsets) -> tuple[np.ndarray, np.ndarray]:
    if leaves is not None:
        if rows is not None or offsets is not None:
            raise ValueError("give either leaves or rows and offsets, not both")
        parts = [np.asarray(r).reshape(-1) for r in leaves]
        if not parts:
            raise ValueError("a tree has at least one leaf")
        lens = np.fromiter((p.shape[0] for p in parts), np.int64, len(parts))
        rows = np.concatenate(parts)
        offsets = np.zeros(len(parts) + 1, dtype=np.int64)
        np.cumsum(lens, out=offsets[1:])
        if rows.size == 0:   # all leaves empty: concatenate gave float64
            rows = rows.astype(np.int64)
    elif rows is None or offsets is None:
        raise ValueError("give leaves, or rows and offsets")
    else:
        rows = np.asarray(rows)
        offsets = np.ascontiguousarray(offsets, dtype=np.int64)
        if (offsets.ndim != 1 or offsets.size < 2 or offsets[0] != 0
                or offsets[-1] != rows.shape[0] or (np.diff(offsets) < 0).any()):
            raise ValueError("offsets must rise from 0 to len(rows)")
    if not np.issubdtype(rows.dtype, np.integer):
        raise ValueError(f"row indices must be integers, not {rows.dtype}")
    if rows.dtype not in (np.int32, np.int64):
        rows = rows.astype(np.int64)
    return np.ascontiguousarray(rows), offsets


def tree_log_likelihood(y, leaves=None, *, alpha=1.0, n_classes: int | None = None,
                        rows=None, offsets=None) -> float:
    """Dirichlet log p(Y|X,T) from scratch (no cache), in one kernel call.

    ``y`` holds class codes 0..K-1; the leaves are a list of row-index arrays, or
    ``rows`` (all leaves concatenated) with ``offsets`` (leaf i is
    ``rows[offsets[i]:offsets[i+1]]``). ``n_classes`` defaults to the length of an
    ``alpha`` vector, else to max(y) + 1.
    """
    y = np.asarray(y)
    if not np.issubdtype(y.dtype, np.integer):
        raise ValueError("y must hold integer class codes")
    if y.dtype != np.int32:
        y = y.astype(np.int32)
    if n_classes is None:
        a = np.asarray(alpha)
        n_classes = a.size if a.ndim == 1 else int(y.max()) + 1
    alpha = _alpha_vector(alpha, n_classes)
    r, off = _flat_leaves(leaves, rows, offsets)
    out = K._dirichlet_tree(np.ascontiguousarray(y), r, off, alpha)
    if math.isnan(out):
        raise ValueError("a row index or a class code is out of range")
    return float(out)


def leaf_class_counts(y, leaves=None, *, n_classes: int, rows=None,
                      offsets=None) -> np.ndarray:
    """Class counts of each leaf, int64 [b, n_classes] (leaves given as in
    :func:`tree_log_likelihood`); feed rows to :meth:`DirichletLikelihood.predict_proba`."""
    y = np.ascontiguousarray(y, dtype=np.int32)
    r, off = _flat_leaves(leaves, rows, offsets)
    counts, ok = K._class_counts_segments(y, r, off, int(n_classes))
    if not ok:
        raise ValueError("a row index or a class code is out of range")
    return counts


def leaf_stats(y, leaves=None, *, rows=None, offsets=None) -> np.ndarray:
    """[n, sum, central sum of squares] of each leaf, float64 [b, 3]; feed rows to
    :meth:`NormalLikelihood.predict_mean`."""
    y = np.ascontiguousarray(y, dtype=np.float64)
    r, off = _flat_leaves(leaves, rows, offsets)
    out, ok = K._moments_segments(y, r, off)
    if not ok:
        raise ValueError("a row index is out of range")
    return out


def normal_tree_log_likelihood(y, leaves=None, *, nu: float, lam: float, mu_bar: float,
                               a: float, rows=None, offsets=None) -> float:
    """CGM 1998 normal log p(Y|X,T) from scratch, in one kernel call (see NormalLikelihood)."""
    y = np.ascontiguousarray(y, dtype=np.float64)
    r, off = _flat_leaves(leaves, rows, offsets)
    out = K._normal_tree(y, r, off, _positive("nu", nu), _positive("lam", lam),
                         float(mu_bar), _positive("a", a))
    if math.isnan(out):
        raise ValueError("a row index is out of range (or y is not finite)")
    return float(out)
