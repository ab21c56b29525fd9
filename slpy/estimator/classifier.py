"""BayesianTreeClassifier: the posterior over classification trees as a scikit-learn
classifier (docs/python.md)."""
from __future__ import annotations

import numpy as np
from sklearn.base import ClassifierMixin
from sklearn.utils.multiclass import check_classification_targets

from .base import BayesianTreeBase, _SHARED, _choice, _real
from .interpret import ClassifierInterpretMixin
from .io import loadable


@loadable
class BayesianTreeClassifier(ClassifierMixin, ClassifierInterpretMixin, BayesianTreeBase):
    """Bayesian classification trees under an SLP prior (GROWTREE by default).

    Leaves score classes by the Dirichlet-multinomial marginal likelihood; the
    posterior over trees is sampled by proof-tree MCMC (``method="mcmc"``) or computed
    exactly by the PCFG back end (``method="exact"``). ``predict_proba`` is the
    posterior predictive: the leaves' posterior mean class probabilities
    (n_k + a) / (n + K a), averaged over the trees with their posterior weights.
    Parameters, attributes and the save format: docs/python.md.
    """

    _task = "classification"
    _param_table = dict(_SHARED, method=(_choice("mcmc", "exact"), "'mcmc' or 'exact'"),
                        dirichlet_alpha=(_real(0, lo_open=True), "a number > 0"))

    def __init__(self, *, prior="growtree", alpha=None, beta=None, min_leaf=None,
                 prior_params=None, query="cart(T)", method="mcmc", n_iter=5000,
                 burn_in=0.2, thin=1, proposal="default", mcmc_path="auto", n_chains=4,
                 until_converged=False,
                 target_rhat=1.01, target_ess=400, max_iter=None, max_time=None,
                 tempering=8, delta_t=0.2, min_heat=0.05, swap="neighbours", init="prior",
                 bucket=None, categorical_features="from_dtype", missing="error",
                 n_trees=20, dirichlet_alpha=1.0, n_jobs=-1, random_state=None, verbose=0):
        self.prior = prior
        self.alpha = alpha
        self.beta = beta
        self.min_leaf = min_leaf
        self.prior_params = prior_params
        self.query = query
        self.method = method
        self.n_iter = n_iter
        self.burn_in = burn_in
        self.thin = thin
        self.proposal = proposal
        self.mcmc_path = mcmc_path
        self.n_chains = n_chains
        self.until_converged = until_converged
        self.target_rhat = target_rhat
        self.target_ess = target_ess
        self.max_iter = max_iter
        self.max_time = max_time
        self.tempering = tempering
        self.delta_t = delta_t
        self.min_heat = min_heat
        self.swap = swap
        self.init = init
        self.bucket = bucket
        self.categorical_features = categorical_features
        self.missing = missing
        self.n_trees = n_trees
        self.dirichlet_alpha = dirichlet_alpha
        self.n_jobs = n_jobs
        self.random_state = random_state
        self.verbose = verbose

    def fit(self, X, y):
        """Fit the posterior over trees to X [n_samples, n_features] and class labels y."""
        self._check_params()
        X, y, levels = self._validate(X, y, fitting=True)
        check_classification_targets(y)
        classes, codes = np.unique(y, return_inverse=True)
        if len(classes) < 2:
            raise ValueError(f"{type(self).__name__} needs at least two classes in y, "
                             f"got 1 class ({classes[0]!r})")
        train = self._dataset(X, codes.astype(np.int32), [str(c) for c in classes],
                              "classification", levels)
        learnt = self._fit_posterior(train, float(self.dirichlet_alpha))
        self.classes_ = classes
        self.feature_levels_ = levels
        vars(self).update(learnt)
        return self

    def predict_proba(self, X) -> np.ndarray:
        """Posterior predictive class probabilities [n_samples, n_classes] (columns in
        classes_ order)."""
        X = self._check_X(X)
        if self._exact_train is not None:
            return self._exact_posterior().predict_proba(X)
        out = np.zeros((X.shape[0], len(self.classes_)))
        total = 0.0
        for tree, w in self.trees_:
            out += w * self._tree_prediction(tree, X)
            total += w
        return out / total

    def _tree_prediction(self, tree, X) -> np.ndarray:
        """The leaves' posterior mean class probabilities [n_samples, n_classes]."""
        return tree.predict_proba(X)

    def predict(self, X) -> np.ndarray:
        """The most probable class of each row under the posterior predictive."""
        proba = self.predict_proba(X)
        return self.classes_[np.argmax(proba, axis=1)]
