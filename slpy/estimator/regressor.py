"""BayesianTreeRegressor: the posterior over regression trees as a scikit-learn
regressor (docs/python.md)."""
from __future__ import annotations

import numpy as np
from sklearn.base import RegressorMixin

from ..trees.model import Leaf
from .base import BayesianTreeBase, _SHARED, _choice
from .interpret import RegressorInterpretMixin
from .io import loadable


@loadable
class BayesianTreeRegressor(RegressorMixin, RegressorInterpretMixin, BayesianTreeBase):
    """Bayesian regression trees under an SLP prior (GROWTREE by default).

    Leaves score the response by the conjugate normal model of Chipman, George &
    McCulloch (1998) (``slpy.trees.likelihood.NormalLikelihood``: mu_bar = mean(y),
    a = 1/3, nu = 3, lam calibrated on var(y)); the posterior over trees is sampled by
    proof-tree MCMC. ``predict`` is the posterior predictive mean: each leaf's
    posterior mean (sum_i + a mu_bar) / (n_i + a), averaged over the trees with their
    posterior weights. Parameters, attributes and the save format: docs/python.md.
    """

    _task = "regression"
    _param_table = dict(
        {k: v for k, v in _SHARED.items() if k != "n_trees"},
        method=(_choice("mcmc"), "'mcmc' (the exact back end needs a leaf-decomposable "
                                 "likelihood, and the normal one is not)"),
        init=(_choice("prior"), "'prior' (the greedy CART tree is built for classes)"))

    def __init__(self, *, prior="growtree", alpha=None, beta=None, min_leaf=None,
                 prior_params=None, query="cart(T)", method="mcmc", n_iter=5000,
                 burn_in=0.2, thin=1, proposal="default", mcmc_path="auto", n_chains=4,
                 until_converged=False,
                 target_rhat=1.01, target_ess=400, max_iter=None, max_time=None,
                 tempering=8, delta_t=0.2, min_heat=0.05, swap="neighbours", init="prior",
                 bucket=None, categorical_features="from_dtype", missing="error", n_jobs=-1,
                 random_state=None, verbose=0):
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
        self.n_jobs = n_jobs
        self.random_state = random_state
        self.verbose = verbose

    def fit(self, X, y):
        """Fit the posterior over trees to X [n_samples, n_features] and numbers y."""
        from ..trees.interpret import normal_prior
        self._check_params()
        X, y, levels = self._validate(X, y, fitting=True, y_numeric=True)
        y = np.asarray(y, dtype=np.float64)
        name = type(self).__name__
        if y.shape[0] < 2:
            raise ValueError(f"{name} needs at least two samples, got 1 sample")
        if np.ptp(y) == 0:
            raise ValueError(f"{name}: y is constant ({y[0]!r}); the normal likelihood's "
                             f"scale is calibrated on the variance of y")
        train = self._dataset(X, y, None, "regression", levels)
        normal = normal_prior(train)       # (checks the data before the fit)
        learnt = self._fit_posterior(train)
        self.feature_levels_ = levels
        self._normal = normal
        vars(self).update(learnt)
        return self

    def predict(self, X) -> np.ndarray:
        """Posterior predictive mean of y for each row of X."""
        X = self._check_X(X)
        out = np.zeros(X.shape[0])
        total = 0.0
        for tree, w in self.trees_:
            out += w * self._tree_prediction(tree, X)[:, 0]
            total += w
        return out / total

    def _tree_prediction(self, tree, X) -> np.ndarray:
        """The leaves' posterior means [n_samples, 1]."""
        a, mu_bar = self._normal["a"], self._normal["mu_bar"]
        stats = _node_stats(tree)[tree.apply(X)]
        return ((stats[:, 1] + a * mu_bar) / (stats[:, 0] + a))[:, None]


def _node_stats(tree) -> np.ndarray:
    """[n, sum, css] of each node in pre-order (the order of Tree.apply); 0 at splits."""
    return np.array([n.counts if isinstance(n, Leaf) else np.zeros(3)
                     for n in tree.nodes()], dtype=np.float64).reshape(-1, 3)
