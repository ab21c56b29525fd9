"""slpy: stochastic logic programs as priors over models, and Bayesian C&RT."""
from .logic.terms import Var, Atom, Struct, PrologError
from .logic.program import Program, Sample, Proof, LoadErrors

__version__ = "0.1.0"
__all__ = ["Program", "Sample", "Proof", "PrologError", "LoadErrors", "Var", "Atom", "Struct",
           "__version__"]
