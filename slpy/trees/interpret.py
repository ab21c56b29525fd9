"""Uncertainty and interpretation of a posterior over trees.

A posterior is held as :class:`WeightedTrees`: distinct trees (``slpy.trees.model.Tree``,
their leaves summarising the training rows) with posterior weights summing to 1 (an MCMC
run's visit shares, or exact draws), and the leaves' conjugate hyperparameters. The leaf
parameters are integrated out by conjugacy, so every quantity below is the tree
posterior mixed with each tree's leaf posterior:

- classification, leaf counts c, Dirichlet(alpha) prior: theta | T, y ~ Dir(c + alpha);
  the class probability theta_k of a row is Beta(c_k + alpha_k, n + A - c_k - alpha_k)
  given the tree, and a mixture of such Betas over the trees;
- regression (Chipman, George & McCulloch 1998, slpy.trees.likelihood.NormalLikelihood):
  with N training rows and Q = sum over leaves of css_i + n_i a / (n_i + a) (ybar_i -
  mu_bar)^2, sigma^2 | T, y ~ InvGamma((N + nu)/2, (Q + nu lam)/2),
  mu_i | sigma^2, T, y ~ N(m_i, sigma^2 / (n_i + a)) with m_i = (s_i + a mu_bar) /
  (n_i + a), so a new y in leaf i is Student-t with N + nu degrees of freedom, location
  m_i and scale^2 (Q + nu lam) / (N + nu) (1 + 1 / (n_i + a)) given the tree.

Intervals are quantiles of these mixtures, found by bisection on the mixture CDF (no
sampling: the same input gives the same interval). Partial dependence and inclusion
probabilities are functions of the tree alone; their bands are weighted quantiles over
the trees (as over the kept draws of a chain).
"""
from __future__ import annotations

from dataclasses import dataclass, field

import numpy as np

from .model import Leaf, Split

__all__ = ["WeightedTrees", "weighted_quantile", "mixture_quantile", "make_grid",
           "level_grid", "normal_prior"]


def weighted_quantile(values, weights, q: float) -> np.ndarray:
    """The q-quantile along axis 0 of `values` [S, ...] with weights [S]: the smallest
    value whose cumulative weight reaches q (numpy's "inverted_cdf" quantile of the
    values repeated in proportion to their weights)."""
    v = np.asarray(values, dtype=np.float64)
    w = np.asarray(weights, dtype=np.float64)
    order = np.argsort(v, axis=0, kind="stable")
    sv = np.take_along_axis(v, order, 0)
    cw = np.cumsum(w[order], axis=0)
    cw /= cw[-1]
    # cumulative weights equal to q up to rounding count as reaching it
    k = np.minimum((cw < q - 1e-9).sum(axis=0), len(v) - 1)
    return np.take_along_axis(sv, k[None], 0)[0]


def mixture_quantile(cdf, weights, q: float, lo, hi, tol: float = 1e-12,
                     max_iter: int = 200) -> np.ndarray:
    """x with sum_t w_t cdf(x, cols)[t] = q for each column, bracketed by [lo, hi]
    (arrays [n]); cdf(x [m], cols [m]) -> [T, m]: the component CDFs of the columns
    cols at x. The Illinois variant of regula falsi:
    it keeps the bracket of bisection and converges superlinearly (a dozen mixture
    evaluations instead of bisection's fifty)."""
    w = np.asarray(weights, dtype=np.float64)[:, None]

    def f(x, cols):
        return (w * cdf(x, cols)).sum(axis=0) - q
    lo = np.array(lo, dtype=np.float64)
    hi = np.array(hi, dtype=np.float64)
    every = np.arange(len(lo))
    flo, fhi = f(lo, every), f(hi, every)
    x = np.where(flo >= 0, lo, hi)               # a bracket end that is the answer
    todo = (flo < 0) & (fhi > 0)
    side = np.zeros(len(lo), np.int8)
    for _ in range(max_iter):
        if not todo.any():
            break
        i = np.nonzero(todo)[0]
        xi = (lo[i] * fhi[i] - hi[i] * flo[i]) / (fhi[i] - flo[i])
        xi = np.clip(xi, lo[i], hi[i])
        fx = f(xi, i)
        x[i] = xi
        up = fx < 0                              # the root is above xi
        lo[i] = np.where(up, xi, lo[i])
        flo[i] = np.where(up, fx, flo[i])
        hi[i] = np.where(up, hi[i], xi)
        fhi[i] = np.where(up, fhi[i], fx)
        # Illinois: an end kept twice running has its value halved
        fhi[i] = np.where(up & (side[i] == 1), fhi[i] / 2, fhi[i])
        flo[i] = np.where(~up & (side[i] == -1), flo[i] / 2, flo[i])
        side[i] = np.where(up, 1, -1)
        done = (np.abs(fx) <= tol) | (hi[i] - lo[i] <= 1e-14 * np.maximum(1, np.abs(xi)))
        todo[i[done]] = False
    return x


def make_grid(x, grid_resolution: int = 100, percentiles=(0.05, 0.95)) -> np.ndarray:
    """The values of a feature at which partial dependence is evaluated, as
    scikit-learn's partial_dependence chooses them: the distinct values when there are
    fewer than grid_resolution, else grid_resolution points evenly spaced between the
    percentiles."""
    x = np.asarray(x, dtype=np.float64)
    uniq = np.unique(x)
    if len(uniq) < grid_resolution:
        return uniq
    from scipy.stats.mstats import mquantiles      # the percentiles scikit-learn takes
    lo, hi = mquantiles(x, prob=percentiles)
    if lo == hi:
        raise ValueError("the percentiles of the feature are equal: widen percentiles")
    return np.linspace(lo, hi, grid_resolution)


def level_grid(x, levels) -> tuple[np.ndarray, np.ndarray]:
    """The grid of a categorical feature: (the level codes present in x, sorted, as
    floats; their names) -- every level, as scikit-learn's partial_dependence takes a
    categorical feature's values; missing values (NaN) and levels the training data
    lack (-1) are not levels."""
    x = np.asarray(x, dtype=np.float64)
    codes = np.unique(x[np.isfinite(x) & (x >= 0)])
    return codes, np.array([levels[int(c)] for c in codes], dtype=object)


def normal_prior(train) -> dict | None:
    """WeightedTrees.normal of a regression data set (the normal leaf model's
    hyperparameters as slpy.trees.likelihood sets them from the data); None for
    classification."""
    if train.task != "regression":
        return None
    from .likelihood import NormalLikelihood
    lik = NormalLikelihood.from_dataset(train)
    return {"nu": lik.nu, "lam": lik.lam, "mu_bar": lik.mu_bar, "a": lik.a}


def _coverage(coverage) -> tuple[float, float]:
    c = float(coverage)
    if not 0.0 < c < 1.0:
        raise ValueError(f"coverage must be a number strictly between 0 and 1, got "
                         f"{coverage!r}")
    return (1.0 - c) / 2.0, (1.0 + c) / 2.0


@dataclass
class WeightedTrees:
    """Trees with posterior weights (summing to 1) and the leaves' hyperparameters:
    ``alpha`` (classification: the Dirichlet prior per class) or ``normal``
    (regression: {"nu", "lam", "mu_bar", "a"})."""
    trees: list
    weights: np.ndarray
    task: str
    n_features: int
    alpha: np.ndarray | None = None
    normal: dict | None = None
    _leaves: dict = field(default_factory=dict, repr=False)

    def __post_init__(self):
        w = np.asarray(self.weights, dtype=np.float64)
        if not len(self.trees) or len(w) != len(self.trees) or (w < 0).any() or w.sum() <= 0:
            raise ValueError("a posterior needs trees with non-negative weights")
        self.weights = w / w.sum()
        if self.task == "classification":
            k = len(self.trees[0].classes)
            a = np.broadcast_to(np.asarray(1.0 if self.alpha is None else self.alpha,
                                           dtype=np.float64), (k,))
            self.alpha = np.array(a)

    # ---- per tree ----------------------------------------------------------------------
    def leaf_table(self, t: int):
        """(leaf index of each node in pre-order (-1 at splits), leaf summaries [b, w])
        of tree t: class counts, or [n, sum, css] for regression."""
        got = self._leaves.get(t)
        if got is None:
            nodes = list(self.trees[t].nodes())
            index = np.full(len(nodes), -1, np.int64)
            rows = []
            for i, n in enumerate(nodes):
                if isinstance(n, Leaf):
                    index[i] = len(rows)
                    rows.append(np.asarray(n.counts, dtype=np.float64))
            got = self._leaves[t] = (index, np.array(rows))
        return got

    def leaf_of(self, t: int, X) -> np.ndarray:
        """The leaf (0..b-1, left to right) of tree t that each row of X reaches."""
        return self.trees[t].flat.leaf_of(X)

    def normal_leaf(self, t: int) -> tuple:
        """Regression: (m [b], n [b], Q, N) of tree t (see the module docstring)."""
        h = self.normal
        _, s = self.leaf_table(t)
        n, tot, css = s[:, 0], s[:, 1], s[:, 2]
        ybar = np.divide(tot, n, out=np.zeros_like(tot), where=n > 0)
        shift = np.where(n > 0, n * h["a"] / (n + h["a"]) * (ybar - h["mu_bar"]) ** 2, 0.0)
        m = (tot + h["a"] * h["mu_bar"]) / (n + h["a"])
        return m, n, float((css + shift).sum()), float(n.sum())

    # ---- inclusion ---------------------------------------------------------------------
    def inclusion(self) -> np.ndarray:
        """Posterior inclusion probability of each feature: the posterior weight of the
        trees that split on it at least once [n_features]."""
        used = np.zeros((len(self.trees), self.n_features))
        for t, tree in enumerate(self.trees):
            for n in tree.nodes():
                if isinstance(n, Split):
                    used[t, n.feature] = 1.0
        return self.weights @ used

    # ---- predictions of one tree ---------------------------------------------------------
    def node_values(self, t: int) -> np.ndarray:
        """Each node's posterior mean response in pre-order: class probabilities [k, K]
        or leaf means [k, 1] (0 at splits)."""
        index, s = self.leaf_table(t)
        if self.task == "classification":
            post = s + self.alpha
            vals = post / post.sum(axis=1, keepdims=True)
        else:
            vals = self.normal_leaf(t)[0][:, None]
        out = np.zeros((len(index), vals.shape[1]))
        out[index >= 0] = vals[index[index >= 0]]
        return out

    # ---- intervals ---------------------------------------------------------------------
    def predict_interval(self, X, coverage: float = 0.9) -> np.ndarray:
        """Regression: the central `coverage` interval of the posterior predictive of y
        at each row, [n, 2] (lower, upper)."""
        from scipy.special import stdtr
        qlo, qhi = _coverage(coverage)
        X = np.asarray(X, dtype=np.float64)
        h = self.normal
        df = self.normal_leaf(0)[3] + h["nu"]          # N: every tree holds all rows
        locs, scales = [], []
        for t in range(len(self.trees)):
            m, n, Q, _ = self.normal_leaf(t)
            leaf = self.leaf_of(t, X)
            locs.append(m[leaf])
            scales.append(np.sqrt((Q + h["nu"] * h["lam"]) / df
                                  * (1 + 1 / (n[leaf] + h["a"]))))
        loc, scale = np.array(locs), np.array(scales)

        def cdf(x, cols):
            return stdtr(df, (x[None, :] - loc[:, cols]) / scale[:, cols])
        # every component puts at most 1e-7 of its mass beyond either end
        from scipy.stats import t as student_t
        reach = float(student_t.ppf(1 - 1e-7, df))
        lo, hi = (loc - reach * scale).min(axis=0), (loc + reach * scale).max(axis=0)
        return np.stack([mixture_quantile(cdf, self.weights, q, lo, hi)
                         for q in (qlo, qhi)], axis=1)

    def proba_interval(self, X, coverage: float = 0.9) -> np.ndarray:
        """Classification: the central `coverage` credible interval of each class's
        probability at each row, [n, K, 2] (lower, upper)."""
        from scipy.special import betainc
        qlo, qhi = _coverage(coverage)
        X = np.asarray(X, dtype=np.float64)
        A = float(self.alpha.sum())
        a_s, b_s = [], []
        for t in range(len(self.trees)):
            c = self.leaf_table(t)[1][self.leaf_of(t, X)]        # [n, K]
            a_s.append(c + self.alpha)
            b_s.append(c.sum(axis=1, keepdims=True) + A - a_s[-1])
        a, b = np.array(a_s), np.array(b_s)                     # [T, n, K]
        out = np.empty(a.shape[1:] + (2,))
        zeros, ones = np.zeros(a.shape[1]), np.ones(a.shape[1])
        for k in range(a.shape[2]):
            ak, bk = a[:, :, k], b[:, :, k]

            def cdf(x, cols):
                return betainc(ak[:, cols], bk[:, cols], x[None, :])
            for j, q in enumerate((qlo, qhi)):
                out[:, k, j] = mixture_quantile(cdf, self.weights, q, zeros, ones)
        return out

    # ---- draws -------------------------------------------------------------------------
    def sample_y(self, X, n_samples: int, rng) -> np.ndarray:
        """Posterior predictive draws of y at the rows of X, [n_rows, n_samples]: for
        each draw a tree by weight, its leaf parameters from their posterior given the
        tree (one draw shared by all rows), then y at each row (class codes for
        classification)."""
        X = np.asarray(X, dtype=np.float64)
        which = rng.choice(len(self.trees), size=int(n_samples), p=self.weights)
        out = np.empty((len(X), int(n_samples)),
                       dtype=np.int64 if self.task == "classification" else np.float64)
        for t in np.unique(which):
            cols = np.nonzero(which == t)[0]
            leaf = self.leaf_of(t, X)
            params = self.draw_leaf_params(t, len(cols), rng)
            if self.task == "classification":
                theta = params[:, leaf, :]                        # [m, n, K]
                u = rng.random((len(cols), len(X), 1))
                k = (u > np.cumsum(theta, axis=2)).sum(axis=2)
                out[:, cols] = np.minimum(k, theta.shape[2] - 1).T   # (rounding)
            else:
                mu, sigma2 = params
                noise = rng.standard_normal((len(cols), len(X)))
                out[:, cols] = (mu[:, leaf] + np.sqrt(sigma2)[:, None] * noise).T
        return out

    def draw_leaf_params(self, t: int, m: int, rng):
        """m draws of tree t's leaf parameters from their posterior given the tree:
        class probabilities [m, b, K], or (leaf means [m, b], sigma^2 [m])."""
        _, s = self.leaf_table(t)
        if self.task == "classification":
            g = rng.standard_gamma(np.broadcast_to(s + self.alpha, (m,) + s.shape))
            return g / g.sum(axis=2, keepdims=True)
        h = self.normal
        mm, n, Q, N = self.normal_leaf(t)
        sigma2 = (Q + h["nu"] * h["lam"]) / 2 / rng.standard_gamma((N + h["nu"]) / 2, m)
        mu = mm + np.sqrt(sigma2[:, None] / (n + h["a"])) * rng.standard_normal((m, len(n)))
        return mu, sigma2

    # ---- pointwise log-likelihood --------------------------------------------------------
    def pointwise_log_lik(self, t: int, X, y, m: int, rng) -> np.ndarray:
        """log p(y_i | T, theta) of each training row (X, y; class codes for
        classification) for m draws of tree t's leaf parameters theta from their
        posterior given the tree, [m, n] (slpy.inference says why)."""
        leaf = self.leaf_of(t, np.asarray(X, dtype=np.float64))
        params = self.draw_leaf_params(t, m, rng)
        if self.task == "classification":
            return np.log(params[:, leaf, np.asarray(y)])
        mu, sigma2 = params
        r = np.asarray(y, dtype=np.float64)[None, :] - mu[:, leaf]
        return -0.5 * (np.log(2 * np.pi * sigma2)[:, None] + r * r / sigma2[:, None])

    # ---- partial dependence ----------------------------------------------------------------
    def partial_dependence(self, X, feature: int, grid, coverage: float = 0.9) -> dict:
        """Partial dependence of the posterior mean response on one feature: for each
        tree, the mean over the rows of X of its prediction with the feature set to
        each grid value; `average` is the posterior mean of these curves, `lower` and
        `upper` the central `coverage` band over the trees. Arrays [n_outputs, G]:
        one output for regression, one per class for classification. For a categorical
        feature the grid holds level codes (as X does) and `grid_values` their names."""
        qlo, qhi = _coverage(coverage)
        X = np.asarray(X, dtype=np.float64)
        grid = np.asarray(grid, dtype=np.float64)
        levels = (self.trees[0].feature_levels or [None] * self.n_features)[feature]
        values = grid
        if levels is not None:
            if not np.isin(grid, np.arange(len(levels))).all():
                raise ValueError(f"the grid of a categorical feature holds level codes "
                                 f"0..{len(levels) - 1}")
            values = np.array([levels[int(c)] for c in grid], dtype=object)
        curves = np.array([self._tree_pd(t, X, feature, grid)
                           for t in range(len(self.trees))])   # [T, out, G]
        return {"grid_values": [values], "average": np.tensordot(self.weights, curves, 1),
                "lower": weighted_quantile(curves, self.weights, qlo),
                "upper": weighted_quantile(curves, self.weights, qhi)}

    def _tree_pd(self, t: int, X, feature: int, grid) -> np.ndarray:
        # a numeric feature's curve only changes at the tree's thresholds on it: evaluate
        # one grid value per interval between them (and one for missing values, which
        # go where each split says); a subset split has no order, so each level of a
        # categorical feature is routed on its own
        tree = self.trees[t]
        flat = tree.flat
        if flat.levels[feature] is not None:
            cell = np.unique(grid, return_inverse=True)[1].reshape(-1)
        else:
            thr = np.unique(flat.value[flat.feature == feature])
            cell = np.searchsorted(thr, grid, side="left")     # x <= t goes left
            cell[np.isnan(grid)] = len(thr) + 1
        first = np.unique(cell, return_index=True)[1]
        vals = self.node_values(t)
        Xg = np.tile(X, (len(first), 1))            # one copy of X per interval, routed
        Xg[:, feature] = np.repeat(grid[first], len(X))   # in one pass
        means = vals[tree.apply(Xg)].reshape(len(first), len(X), -1).mean(axis=1)
        out = np.empty((vals.shape[1], len(grid)))
        for k, i in enumerate(first):
            out[:, cell == cell[i]] = means[k][:, None]
        return out
