"""The PCFG back end: exact inference for tractable priors (docs/pcfg.md).

    grammar     the tree-grammar family (GROWTREE, BCART-PCFG): nonterminals are row
                sets (and depths), built with RowSets; numba kernels in _kernels
    inside      TreePosterior: inside scores, evidence, exact tree probabilities, MAP,
                exact predictive, path sampling
    sample      exact samples;  kbest: the k most probable trees
    tabled      the generic tabled compiler (any SLP in the fragment) -> TabledGrammar
    hypergraph  TabledPosterior: the same questions for a TabledGrammar, in Python
    compile     compile_exact: recognise a tree prior (checked) or compile generically
    block       exact conditionals of a bounded subtree (numba kernels in _block)
    exact_move  the MCMC's exact block move for GROWTREE priors, built on block (a
                move it registers for the tree family)
    builtins    phi_stop_prob/4 and phi_split/4, the builtins of priors/phi.slp
    cli         the `slpy exact` command

Names are imported on first use, so ``import slpy.pcfg.builtins`` (done when a
Program loads its builtins) does not pay for numba and SciPy.
"""
from __future__ import annotations

import importlib

_NAMES = {
    "TreeGrammar": "grammar", "growtree_grammar": "grammar", "phi_grammar": "grammar",
    "TreePosterior": "inside", "compile_slp": "tabled", "NotInFragment": "tabled",
    "CompileError": "tabled", "TabledPosterior": "hypergraph", "compile_exact": "compile",
    "ExactModel": "compile",
}

__all__ = sorted(_NAMES)


def __getattr__(name):
    mod = _NAMES.get(name)
    if mod is None:
        raise AttributeError(f"module 'slpy.pcfg' has no attribute {name!r}")
    return getattr(importlib.import_module(f"{__name__}.{mod}"), name)
