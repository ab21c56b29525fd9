"""The front door of the PCFG back end: a loaded prior (+ data) -> an exact posterior.

Two routes give the same answers where both apply (tests/pcfg check it):

- the *tree grammar* (slpy.pcfg.grammar, numba dynamic programs) for the two tree
  families, recognised from the program: priors calling ``phi_split/4`` are the
  BCART-PCFG prior of priors/phi.slp; priors declaring the parameters ``alpha``,
  ``beta`` and ``min_leaf`` and calling ``uniform_split/3`` are GROWTREE
  (priors/growtree.slp). Recognition is then *checked*: the generic compiler,
  expanding only the goals along the way, must give the MAP tree and a few sampled
  trees the prior probabilities the tree grammar gives them (to 1e-9). A program
  that fails the check goes the generic way.
- the *tabled compiler* (slpy.pcfg.tabled) for any other program in the tractable
  fragment; it runs in Python, for small goal spaces.
"""
from __future__ import annotations

from dataclasses import dataclass, field

import numpy as np

from ..terms.term import Atom, deref
from .grammar import TreeGrammar, growtree_grammar, phi_grammar
from .hypergraph import TabledPosterior
from .inside import TreePosterior
from .tabled import CompileError, compile_slp, lazy_compiler

__all__ = ["ExactModel", "detect_family", "compile_exact", "CompileError"]

CHECK_TOL = 1e-9


@dataclass
class ExactModel:
    """An exact posterior with a uniform face for the command line.

    ``route`` is "tree" (a TreePosterior) or "tabled" (a TabledPosterior);
    ``family`` the recognised prior; ``checked`` how many trees the recognition
    check compared.
    """
    post: object
    route: str
    family: str
    params: dict = field(default_factory=dict)
    checked: int = 0
    answer_var: str = "T"

    def term(self, deriv):
        if self.route == "tree":
            return self.post.term(deriv)
        return self.post.answer(deriv)[self.answer_var]

    def shape(self, deriv) -> tuple[int, int]:
        from ..trees.term import shape
        return shape(self.term(deriv))

    def log_lik(self, deriv) -> float:
        if self.route == "tree":
            return self.post.log_lik(deriv)
        return self.post.log_weight(deriv) - self.post.log_weight(deriv, False)

    @property
    def n_nonterminals(self) -> int:
        if self.route == "tree":
            return self.post.grammar.n_nonterminals
        return len(self.post.g)

    def describe(self) -> dict:
        g = self.post.grammar if self.route == "tree" else self.post.g
        return {"route": self.route, "family": self.family, **g.describe(),
                "recognition_checked_trees": self.checked}


def _param(program, name):
    from ..terms.term import PrologError
    try:
        b = program.once(f"param({name}, X)")
    except PrologError:          # not declared
        return None
    return None if b is None else deref(b["X"])


def _calls(program, name, arity) -> bool:
    from ..logic.variant import META as _META
    for pred in program.db.preds.values():
        if pred.builtin or pred.library:
            continue
        for c in pred.clauses:
            stack = [c.body] if c.body is not None else []
            while stack:
                g = deref(stack.pop())
                if type(g) is Atom:
                    continue
                if getattr(g, "name", None) == name and len(g.args) == arity:
                    return True
                meta = _META.get((getattr(g, "name", None), len(getattr(g, "args", ()))))
                if meta:
                    stack.extend(g.args[k] for k in meta)
    return False


def detect_family(program) -> tuple[str, dict] | None:
    """("phi" | "growtree", parameters) when the program looks like a tree-family
    prior, else None. The caller checks the guess (see the module docstring)."""
    def num(v):
        return float(v) if type(v) in (int, float) else None
    if _calls(program, "phi_split", 4):
        lp, md, ml = (_param(program, n) for n in ("log_phi", "max_depth", "min_leaf"))
        if num(lp) is None:
            return None
        if type(md) is Atom and md.name == "none":
            md = None
        elif type(md) is not int:
            return None
        ml = 1 if ml is None else ml
        if type(ml) is not int:
            return None
        return "phi", {"log_phi": float(lp), "max_depth": md, "min_leaf": ml}
    if _calls(program, "uniform_split", 3):
        a, b, m = (_param(program, n) for n in ("alpha", "beta", "min_leaf"))
        if num(a) is None or num(b) is None or type(m) is not int:
            return None
        return "growtree", {"alpha": float(a), "beta": float(b), "min_leaf": m}
    return None


def _tree_grammar(program, family, params, max_depth, max_row_sets) -> TreeGrammar:
    rs = program.rowsets
    if family == "phi":
        return phi_grammar(rs, params["log_phi"], max_depth=params["max_depth"],
                           min_leaf=params["min_leaf"], max_nonterminals=max_row_sets)
    return growtree_grammar(rs, params["alpha"], params["beta"], params["min_leaf"],
                            max_depth=max_depth, max_nonterminals=max_row_sets)


def check_recognition(program, query, post: TreePosterior, rng, n_samples=4) -> int:
    """Compare prior probabilities of the MAP tree and some sampled trees between the
    tree grammar and the generic compiler; raises CompileError on a mismatch."""
    comp = lazy_compiler(program, query)
    derivs = [post.map()] + post.sample(rng, n_samples)
    prior = TreePosterior(post.grammar) if post.likelihood is not None else post
    derivs += prior.sample(rng, n_samples)
    for d in derivs:
        term = post.term(d)
        a = comp.lazy_log_prob([term])
        b = post.log_prior(d)
        if not (abs(a - b) <= CHECK_TOL * max(1.0, abs(b))):
            from ..trees.term import canonical
            raise CompileError(f"the tree grammar does not match the program on "
                               f"{canonical(term)} (log prior {b:.12g} vs {a:.12g})")
    return len(derivs)


def compile_exact(program, query: str = "cart(T)", likelihood=None, family: str = "auto",
                  max_depth: int | None = None, check: bool = True, seed: int = 0,
                  max_nonterminals: int = 20000, max_row_sets: int | None = None
                  ) -> ExactModel:
    """The exact posterior of a loaded program's ``query`` given its attached data.

    ``family``: "auto" (recognise a tree prior, else the tabled compiler), "tree"
    (require a tree prior), or "tabled" (always the generic compiler). ``max_depth``
    truncates a GROWTREE grammar (phi.slp has its own ``max_depth`` parameter).
    ``max_nonterminals`` bounds the generic compiler's goal variants and
    ``max_row_sets`` the tree grammar's row sets (default grammar.MAX_ROW_SETS).
    """
    if family not in ("auto", "tree", "tabled"):
        raise ValueError(f"family must be auto, tree or tabled, not {family!r}")
    goal, varnames = program.parse_query(query)
    names = [n for n in varnames if not n.startswith("_")]
    if len(names) != 1:
        raise CompileError(f"the query {query} must have exactly one variable for the model")
    rowsets = getattr(program, "rowsets", None)
    found = detect_family(program) if family != "tabled" and rowsets is not None else None
    if found is None and family == "tree":
        raise CompileError("not a tree prior of a known family (phi.slp or growtree.slp "
                           "style), or no data attached")
    if found is not None:
        fam, params = found
        if max_depth is not None and fam == "phi":
            raise CompileError("phi priors take their depth limit from the max_depth "
                               "parameter (-p max_depth=D)")
        grammar = _tree_grammar(program, fam, params, max_depth, max_row_sets)
        post = TreePosterior(grammar, likelihood)
        model = ExactModel(post, "tree", fam, dict(params, max_depth=grammar.max_depth),
                           answer_var=names[0])
        if fam == "phi":
            from .builtins import share_table
            share_table(program.engine, grammar, post.inside0)
        if not check or max_depth is not None:
            return model
        try:
            model.checked = check_recognition(program, query, post,
                                              np.random.default_rng(seed))
            return model
        except CompileError:
            if family == "tree":
                raise
    if max_depth is not None:
        raise CompileError("max_depth applies to the tree grammars only")
    grammar = compile_slp(program, query, max_nonterminals)
    post = TabledPosterior(grammar, likelihood, rowsets)
    return ExactModel(post, "tabled", "tabled", {}, answer_var=names[0])
