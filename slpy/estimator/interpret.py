"""Uncertainty and interpretation methods of the estimators (docs/python.md): posterior
predictive draws and intervals, posterior inclusion probabilities, partial dependence
with credible bands, and an ArviZ InferenceData. The computations are in
slpy.trees.interpret and slpy.inference; these methods validate and delegate.

The posterior they use: every visited tree with its share of the kept iterations
(``trees_``) for method="mcmc"; for method="exact", EXACT_DRAWS exact posterior draws
(seeded by ``seed_``), as ``trees_`` lists only the most probable trees.
"""
from __future__ import annotations

import numbers

import numpy as np
from sklearn.utils import Bunch
from sklearn.utils.validation import check_is_fitted

EXACT_DRAWS = 2000

__all__ = ["InterpretMixin", "ClassifierInterpretMixin", "RegressorInterpretMixin"]


class InterpretMixin:
    """What both estimators share."""

    def _weighted_trees(self):
        """The posterior as slpy.trees.interpret.WeightedTrees (cached per fit)."""
        from ..trees.interpret import WeightedTrees
        check_is_fitted(self)
        cached = self.__dict__.get("_wt_cache")
        if cached is not None and cached[0] is self.trees_:
            return cached[1]
        trees, weights = [t for t, _ in self.trees_], [w for _, w in self.trees_]
        if self.trace_ is None:                  # exact: draws, trees_ is only the top
            trees, weights = self._exact_draws()
        alpha = getattr(self, "dirichlet_alpha", None) if self._task == "classification" \
            else None
        wt = WeightedTrees(trees, np.asarray(weights), self._task, self.n_features_in_,
                           alpha=alpha, normal=getattr(self, "_normal", None))
        self._wt_cache = (self.trees_, wt)
        return wt

    def _exact_draws(self):
        post = self._exact_posterior()
        rng = np.random.default_rng(np.random.SeedSequence([self.seed_, 16]))
        found: dict = {}
        for d in post.sample(rng, EXACT_DRAWS):
            key = tuple(d)
            if key not in found:
                found[key] = [post.tree(d), 0]
            found[key][1] += 1
        return [t for t, _ in found.values()], [c for _, c in found.values()]

    @property
    def feature_inclusion_(self) -> np.ndarray:
        """Posterior inclusion probability of each feature [n_features_in_]: the
        posterior probability that the tree splits on it at least once."""
        return self._weighted_trees().inclusion()

    def partial_dependence(self, X, feature, *, grid_resolution: int = 100,
                           percentiles=(0.05, 0.95), coverage: float = 0.9) -> Bunch:
        """Partial dependence of the posterior mean prediction on one feature (an index
        or a name of feature_names_in_), averaged over the rows of X, with a central
        `coverage` credible band over the posterior's trees. The grid is chosen as
        sklearn.inspection.partial_dependence chooses it: for a categorical feature,
        its levels in X (by name; grid_resolution and percentiles do not apply).
        Returns a Bunch: grid_values ([array of G values]), average, lower, upper
        ([n_outputs, G]: one output for the regressor, one per class of classes_ for
        the classifier)."""
        X = self._check_X(X)
        j = self._feature_index(feature)
        if not (isinstance(grid_resolution, numbers.Integral) and grid_resolution > 1):
            raise ValueError(f"grid_resolution must be an integer > 1, got "
                             f"{grid_resolution!r}")
        from ..trees.interpret import level_grid, make_grid
        levels = (getattr(self, "feature_levels_", None) or [None] * self.n_features_in_)[j]
        if levels is not None:
            grid = level_grid(X[:, j], levels)[0]
            if not len(grid):
                names = list(getattr(self, "feature_names_in_", []))
                name = names[j] if names else j
                raise ValueError(f"{type(self).__name__}: X has no level of feature "
                                 f"{name!r} that the training data have")
        else:
            grid = make_grid(X[:, j], int(grid_resolution), percentiles)
        return Bunch(**self._weighted_trees().partial_dependence(X, j, grid, coverage))

    def _feature_index(self, feature) -> int:
        names = list(getattr(self, "feature_names_in_", []))
        if isinstance(feature, str):
            if feature not in names:
                raise ValueError(f"{type(self).__name__}: no feature {feature!r} (features: "
                                 f"{', '.join(names) or 'unnamed'})")
            return names.index(feature)
        if isinstance(feature, numbers.Integral) and 0 <= feature < self.n_features_in_:
            return int(feature)
        raise ValueError(f"{type(self).__name__}: feature must be a name or an index "
                         f"below {self.n_features_in_}, got {feature!r}")

    def _sample(self, X, n_samples, random_state):
        X = self._check_X(X)
        if not (isinstance(n_samples, numbers.Integral) and n_samples >= 1):
            raise ValueError(f"n_samples must be an integer >= 1, got {n_samples!r}")
        rng = random_state if isinstance(random_state, np.random.Generator) \
            else np.random.default_rng(random_state)
        return self._weighted_trees().sample_y(X, int(n_samples), rng)

    def to_inference_data(self, X=None, y=None, *, random_state=0, thin=1):
        """An arviz.InferenceData of the MCMC posterior: posterior (log_lik, leaves,
        depth per chain and draw), sample_stats (accepted, choice_points; heat and
        the swaps of a tempered fit, until it is saved),
        observed_data and the pointwise log_likelihood of the training rows (X, y:
        the data given to fit, kept in memory; pass them after load): log p(y_i |
        tree, leaf parameters) with the leaf parameters drawn from their posterior
        given the tree (random_state: an int or a Generator). thin: keep every
        thin-th draw."""
        from ..inference import estimator_inference_data
        return estimator_inference_data(self, X, y, random_state=random_state, thin=thin)

    def _training_rows(self, X, y):
        """(X, y as the likelihood sees it, y as observed) of the training data,
        checked against the leaves of the MAP tree."""
        check_is_fitted(self)
        if X is None and y is None:
            train = self.__dict__.get("_train")
            if train is None:
                raise ValueError(f"{type(self).__name__}: the training data are not kept "
                                 f"by save/load: pass to_inference_data(X, y)")
            X, y = train.X, train.y
        elif X is None or y is None:
            raise ValueError("give both X and y, or neither")
        else:
            X = self._check_X(X)
            y = self._encode_y(y)
        from ..trees.interpret import WeightedTrees
        one = WeightedTrees([self.map_tree_], np.ones(1), self._task, self.n_features_in_)
        leaf, counts = one.leaf_of(0, X), one.leaf_table(0)[1]
        got = np.zeros((len(counts), counts.shape[1] if self._task == "classification"
                        else 2))
        if self._task == "classification":
            np.add.at(got, (leaf, y), 1)
            observed = self.classes_[y]
        else:
            np.add.at(got[:, 0], leaf, 1)
            np.add.at(got[:, 1], leaf, y)
            observed, counts = y, counts[:, :2]
        if got.shape != counts.shape or not np.allclose(got, counts):
            raise ValueError(f"{type(self).__name__}: X, y are not the data the estimator "
                             f"was fitted on (the MAP tree's leaves disagree)")
        return X, y, observed


class ClassifierInterpretMixin(InterpretMixin):

    def predict_proba_interval(self, X, coverage: float = 0.9) -> np.ndarray:
        """Central `coverage` credible interval of each class probability at each row,
        [n_samples, n_classes, 2] (lower, upper; classes in classes_ order): the
        posterior of the leaf's class probabilities, mixed over the trees."""
        X = self._check_X(X)
        return self._weighted_trees().proba_interval(X, coverage)

    def sample_y(self, X, n_samples: int = 1, random_state=0) -> np.ndarray:
        """Draws from the posterior predictive of each row's class, [n_rows,
        n_samples] labels (as GaussianProcessRegressor.sample_y): a tree by its
        posterior weight, its leaves' class probabilities from their posterior, then
        the class."""
        return self.classes_[self._sample(X, n_samples, random_state)]

    def _encode_y(self, y):
        y = np.asarray(y)
        index = {c: k for k, c in enumerate(self.classes_)}
        try:
            return np.array([index[v] for v in y.tolist()], dtype=np.int64)
        except KeyError as e:
            raise ValueError(f"y holds a class the estimator has not seen: {e}") from None


class RegressorInterpretMixin(InterpretMixin):

    def predict_interval(self, X, coverage: float = 0.9) -> np.ndarray:
        """Central `coverage` interval of the posterior predictive of y at each row,
        [n_samples, 2] (lower, upper): each tree's Student-t leaf predictive (leaf
        mean and variance integrated out), mixed over the trees."""
        X = self._check_X(X)
        return self._weighted_trees().predict_interval(X, coverage)

    def sample_y(self, X, n_samples: int = 1, random_state=0) -> np.ndarray:
        """Draws from the posterior predictive of y at each row, [n_rows, n_samples]
        (as GaussianProcessRegressor.sample_y): a tree by its posterior weight, the
        noise variance and leaf means from their posterior, then y."""
        return self._sample(X, n_samples, random_state)

    def _encode_y(self, y):
        return np.asarray(y, dtype=np.float64).reshape(-1)
