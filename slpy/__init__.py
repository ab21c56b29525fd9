"""slpy: stochastic logic programs as priors over models, and Bayesian C&RT."""
from .terms.term import Var, Atom, Struct, PrologError
from .logic.program import Program, Sample, Proof, LoadErrors

__version__ = "0.1.0"
__all__ = ["Program", "Sample", "Proof", "PrologError", "LoadErrors", "Var", "Atom", "Struct",
           "__version__"]

# The scikit-learn estimators load on first use, so `import slpy` works without
# scikit-learn (an optional extra: pip install 'slpy[sklearn]'). They stay out of
# __all__ so that `from slpy import *` does too.
_LAZY = {"BayesianTreeClassifier": "estimator", "BayesianTreeRegressor": "estimator",
         "to_inference_data": "inference"}     # (ArviZ: an optional extra too)


def __getattr__(name):
    mod = _LAZY.get(name)
    if mod is None:
        raise AttributeError(f"module 'slpy' has no attribute {name!r}")
    import importlib
    return getattr(importlib.import_module(f"{__name__}.{mod}"), name)
