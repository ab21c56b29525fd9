"""scikit-learn estimators over the posterior of a tree prior (docs/python.md).

    classifier  BayesianTreeClassifier (Dirichlet leaves; MCMC or exact)
    regressor   BayesianTreeRegressor (conjugate normal leaves; MCMC)
    base        the shared parameter table, fitting and saving methods
    convergence convergence_, ConvergenceWarning and the rounds of until_converged
    fitting     the MCMC and exact back ends on in-memory data
    io          save/load: one JSON file, format slpy-estimator/1

Needs scikit-learn (``pip install 'slpy[sklearn]'``); ``import slpy`` does not.
"""
try:
    import sklearn  # noqa: F401  (a clear message when it is missing)
except ImportError as e:  # pragma: no cover - the test environment has scikit-learn
    raise ImportError("slpy's estimators need scikit-learn: pip install 'slpy[sklearn]'"
                      ) from e

from .classifier import BayesianTreeClassifier
from .convergence import ConvergenceWarning
from .io import FORMAT, load
from .regressor import BayesianTreeRegressor

__all__ = ["BayesianTreeClassifier", "BayesianTreeRegressor", "ConvergenceWarning",
           "FORMAT", "load"]
