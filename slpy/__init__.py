"""slpy: stochastic logic programs as priors over models, and Bayesian C&RT.

This package's __init__ is the public face and the one place that knows what slpy
ships: nothing inside slpy imports it (the version is in slpy/_version.py).
"""
from ._version import __version__
from .logic import plugins as _plugins
from .logic.program import Program, Sample, Proof, LoadErrors
from .terms.term import Var, Atom, Struct, PrologError

__all__ = ["Program", "Sample", "Proof", "PrologError", "LoadErrors", "Var", "Atom", "Struct",
           "__version__"]


def _load_shipped_plugins():
    """slpy's own plugins and model families; each registers itself when imported.

    Run by slpy.logic.plugins when the first program is made (or a family asked
    for), not by `import slpy`: the data plugin loads numba.
    """
    from .data import builtins as _data          # noqa: F401  data_rows/1, uniform_split/3, ...
    from .pcfg import builtins as _pcfg          # noqa: F401  phi_split/4, ...
    from .bn import builtins as _bn, family as _bn_family  # noqa: F401  bn_variables/1, ...
    from .cluster import builtins as _cl, family as _cl_family  # noqa: F401  cluster_items/1
    from .trees import family as _tree_family    # noqa: F401
    from .pcfg import exact_move as _exact_move  # noqa: F401  the tree family's exact move
    from .compiled import path as _compiled      # noqa: F401  GROWTREE's compiled path
    from .compiled import network as _compiled_bn  # noqa: F401  the networks' compiled path


_plugins.add_loader(_load_shipped_plugins)

# The scikit-learn estimators load on first use, so `import slpy` works without
# scikit-learn (an optional extra: pip install 'slpy[sklearn]'). They stay out of
# __all__ so that `from slpy import *` does too.
_LAZY = {"BayesianTreeClassifier": "estimator", "BayesianTreeRegressor": "estimator",
         "ConvergenceWarning": "estimator",
         "to_inference_data": "inference",     # (ArviZ: an optional extra too)
         "learn": "learning", "mpe": "learning"}


def __getattr__(name):
    mod = _LAZY.get(name)
    if mod is None:
        raise AttributeError(f"module 'slpy' has no attribute {name!r}")
    import importlib
    return getattr(importlib.import_module(f"{__name__}.{mod}"), name)
