"""Posteriors over trees for the estimators, on in-memory data.

Two back ends, both returning the posterior as weighted trees:

- MCMC: the chains of ``slpy run`` (``slpy.mcmc.run.chain_on_data``), one per
  ``n_chains``, seeded from one integer exactly as ``slpy run --seed``; chain i draws
  from ``SeedSequence(seed).spawn(i + 1)[i]``, so results do not depend on ``n_jobs``.
  A tree's weight is its share of the kept iterations, pooled over the chains.
- exact: the PCFG back end (``slpy.pcfg.compile_exact``, the tree-grammar route only),
  whose posterior predictive is a dynamic programme over the training data's row sets.
"""
from __future__ import annotations

import contextlib
import csv
import importlib.resources
import math
import numbers
import os
import tempfile
from pathlib import Path

import numpy as np

__all__ = ["resolve_prior", "prior_names", "build_program", "mcmc_model", "seed_from",
           "fit_mcmc", "fit_exact", "exact_trees", "trace_arrays", "MAX_ROW_SETS",
           "TRACE_KEYS"]

# The most row sets an exact fit may table (about 1 GB of memory a million,
# docs/pcfg.md); past it the fit stops with a ValueError that suggests `bucket`.
MAX_ROW_SETS = 1_000_000

# trace_ columns: the chain, the kept iteration, the visited tree (an index into
# trees_), and the per-iteration columns of slpy run's trace.csv.
TRACE_KEYS = ("chain", "iter", "tree", "log_lik", "leaves", "depth", "d", "accepted")
_TRACE_DTYPES = {"chain": np.int64, "iter": np.int64, "tree": np.int64,
                 "log_lik": np.float64, "leaves": np.int64, "depth": np.int64,
                 "d": np.int64, "accepted": bool}


# ---- the prior ------------------------------------------------------------------------

def _priors_dir() -> Path:
    """priors/ beside the source tree first, else the installed package data."""
    p = Path(__file__).resolve().parents[2] / "priors"
    if p.is_dir():
        return p
    return Path(str(importlib.resources.files("slpy") / "priors"))


def prior_names() -> list[str]:
    """Names of the priors shipped with slpy (growtree, phi, ...)."""
    return sorted(p.stem for p in _priors_dir().glob("*.slp"))


def resolve_prior(prior) -> Path:
    """A shipped prior's name (``"growtree"``) or a path to an .slp/.pl file."""
    text = os.fspath(prior)
    if isinstance(prior, str) and os.sep not in text and "/" not in text \
            and not Path(text).suffix:
        path = _priors_dir() / f"{text}.slp"
        if path.is_file():
            return path
        raise ValueError(f"unknown prior {text!r}: give a path to an .slp file or one of "
                         f"{', '.join(prior_names())}")
    path = Path(text)
    if not path.is_file():
        raise ValueError(f"prior file {text!r} does not exist")
    return path


def build_program(prior_params: dict, train, *, path=None, source=None, name=None):
    """A Program with the prior loaded (from ``path``, or ``source`` text called
    ``name``), its parameters set and ``train`` attached. Bad input: ValueError."""
    from ..logic.program import Program
    p = Program()
    label = str(path) if path is not None else name
    with _prior_errors(label):
        if path is not None:
            p.consult(path)
        else:
            p.consult_text(source, name)
    _set_params(p, prior_params, label)
    p.attach_data(train)
    return p


def mcmc_model(cfg: dict, train):
    """slpy run's build_model(cfg, train), with bad input as one-line ValueErrors.
    (The parameters are set after it, as they are read when the prior runs.)"""
    from ..mcmc.run import build_model
    with _prior_errors(cfg["prior"]):
        model = build_model(dict(cfg, params={}), train)
    _set_params(model.program, cfg["params"], cfg["prior"])
    return model


def _set_params(program, prior_params: dict, label) -> None:
    """Set the prior's parameters (text is read as a Prolog term), each of which the
    prior must declare."""
    from ..terms.term import PrologError
    for key, value in prior_params.items():
        if key not in program.params:
            declared = ", ".join(sorted(program.params)) or "none"
            raise ValueError(f"the prior {label} declares no parameter {key!r} "
                             f"(it declares: {declared})")
        if isinstance(value, str):
            try:
                value, _ = program.parse_query(value)
            except PrologError as e:
                raise ValueError(f"prior parameter {key}={value!r}: {e}") from None
        program.set_param(key, value)


@contextlib.contextmanager
def _prior_errors(label):
    """Turn the errors of loading a prior into one-line ValueErrors."""
    from ..logic.program import LoadErrors
    from ..terms.term import PrologError
    try:
        yield
    except LoadErrors as e:
        raise ValueError(f"cannot load the prior: {e.errors[0]}") from None
    except PrologError as e:
        raise ValueError(f"the prior {label}: {e}") from None


def seed_from(random_state) -> int:
    """The integer seed of the chains: the int itself (as ``slpy run --seed``), an
    int drawn from a RandomState or Generator, or fresh OS entropy for None."""
    if random_state is None:
        return int(np.random.SeedSequence().entropy)
    if isinstance(random_state, numbers.Integral) and not isinstance(random_state, bool):
        return int(random_state)
    if isinstance(random_state, np.random.RandomState):
        return int(random_state.randint(np.iinfo(np.int32).max))
    if isinstance(random_state, np.random.Generator):
        return int(random_state.integers(2 ** 63 - 1))
    raise ValueError(f"random_state must be None, an int, a numpy RandomState or "
                     f"Generator, got {random_state!r}")


# ---- MCMC -----------------------------------------------------------------------------

def fit_mcmc(cfg: dict, train, n_chains: int, n_jobs=None, quiet: bool = True):
    """Run ``n_chains`` chains of ``cfg`` (slpy run's settings) on ``train``.

    Returns (trees, trace): trees as [(Tree, weight)] most visited first (ties by
    canonical form), weights summing to 1; trace as a dict of arrays (TRACE_KEYS).
    """
    from ..mcmc.run import chain_on_data
    model = mcmc_model(cfg, train)    # checks the prior and its parameters first
    with tempfile.TemporaryDirectory(prefix="slpy-fit-") as tmp:
        if n_chains == 1:
            outs = [chain_on_data(cfg, train, None, 0, tmp, all_models=True, model=model,
                                  quiet=quiet)]
        else:
            # each chain builds its own model: Prolog terms must not cross processes,
            # and a fresh model keeps the chains independent of n_jobs
            from joblib import Parallel, delayed
            outs = Parallel(n_jobs=n_jobs)(
                delayed(chain_on_data)(cfg, train, None, i, tmp, all_models=True,
                                       quiet=quiet)
                for i in range(n_chains))
        if any(o["result"].interrupted for o in outs):
            raise KeyboardInterrupt
        rows = [_read_trace(Path(tmp) / f"chain_{i}" / "trace.csv") for i in range(n_chains)]
    counts: dict = {}
    trees: dict = {}
    for o in outs:
        r = o["result"]
        for key in r.order:
            counts[key] = counts.get(key, 0) + r.visits[key].count
            trees.setdefault(key, o["all_models"][key])
    kept = sum(counts.values())
    ranked = sorted(counts, key=lambda k: (-counts[k], k))
    index = {k: i for i, k in enumerate(ranked)}
    weighted = [(trees[k], counts[k] / kept) for k in ranked]
    cols = {k: [] for k in TRACE_KEYS}
    for i, (o, chain_rows) in enumerate(zip(outs, rows)):
        by_id = {v.id: key for key, v in o["result"].visits.items()}
        for row in chain_rows:
            cols["chain"].append(i)
            cols["iter"].append(int(row["iter"]))
            cols["tree"].append(index[by_id[int(row["model"])]])
            cols["log_lik"].append(float(row["log_lik"]))
            for k in ("leaves", "depth", "d"):
                cols[k].append(int(row[k]))
            cols["accepted"].append(row["accepted"] == "1")
    trace = {k: np.asarray(v, dtype=_TRACE_DTYPES[k]) for k, v in cols.items()}
    return weighted, trace


def _read_trace(path: Path) -> list[dict]:
    with open(path, newline="") as f:
        return list(csv.DictReader(f))


def trace_arrays(lists: dict) -> dict:
    """trace_ from JSON lists (the save format)."""
    if set(lists) != set(TRACE_KEYS):
        raise ValueError(f"a trace has the columns {', '.join(TRACE_KEYS)}")
    return {k: np.asarray(lists[k], dtype=_TRACE_DTYPES[k]) for k in TRACE_KEYS}


# ---- exact ----------------------------------------------------------------------------

def fit_exact(program, query: str, train, dirichlet_alpha: float, seed: int):
    """The exact posterior (a TreePosterior) of a tree-family prior on ``train``."""
    from ..terms.term import PrologError
    from ..pcfg.compile import CompileError, compile_exact
    from ..pcfg.grammar import GrammarTooLarge
    from ..trees.likelihood import DirichletLikelihood
    lik = DirichletLikelihood.from_dataset(train, alpha=dirichlet_alpha)
    try:
        model = compile_exact(program, query, lik, family="tree", seed=seed,
                              max_row_sets=MAX_ROW_SETS)
    except GrammarTooLarge as e:
        raise ValueError(f"method='exact': {e} (the estimator's bucket=K buckets the "
                         f"features; method='mcmc' has no such limit)") from None
    except CompileError as e:
        raise ValueError(f"method='exact' needs a tree prior of a known family "
                         f"(growtree.slp or phi.slp style): {e}") from None
    except PrologError as e:
        raise ValueError(f"method='exact': the prior raised an error: {e}") from None
    return model.post


def exact_trees(post, n_trees: int):
    """(the n_trees most probable trees as [(Tree, posterior probability)], MAP tree)."""
    top = [(post.tree(d), math.exp(lp)) for lp, d in post.kbest(n_trees)]
    return top, post.tree(post.map())
