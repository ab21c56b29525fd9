"""Posteriors over trees for the estimators, on in-memory data.

Two back ends, both returning the posterior as weighted trees:

- MCMC: the chains of ``slpy run`` (``slpy.mcmc.worker.run_task``), one per
  ``n_chains``, seeded from one integer exactly as ``slpy run --seed``; chain i draws
  from ``SeedSequence(seed).spawn(i + 1)[i]``, so results do not depend on ``n_jobs``
  or the joblib backend. Their outputs stay in memory. A tree's weight is its share
  of the kept iterations, pooled over the chains.
- exact: the PCFG back end (``slpy.pcfg.compile_exact``, the tree-grammar route only),
  whose posterior predictive is a dynamic programme over the training data's row sets.
"""
from __future__ import annotations

import contextlib
import dataclasses
import importlib.resources
import math
import numbers
import os
import warnings
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


def mcmc_model(cfg, train, prior_text: str):
    """slpy run's build_model(cfg, train), with bad input as one-line ValueErrors.
    (The parameters are set after it, as they are read when the prior runs.)"""
    from ..mcmc.model import build_model
    with _prior_errors(cfg["prior"]):
        model = build_model(cfg.replace(params={}), train, prior_text=prior_text)
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

def fit_mcmc(cfg, train, n_chains: int, n_jobs=None, prior_text: str | None = None,
             quiet: bool = True):
    """Run ``n_chains`` chains of ``cfg`` (a slpy.mcmc.config.RunConfig) on ``train``,
    on the backend of the caller's ``joblib.parallel_config`` when there are several
    (each task carries the prior's text and the data: no files are shared).

    Returns (trees, trace, outputs): trees as [(Tree, weight)] most visited first
    (ties by canonical form), weights summing to 1; trace as a dict of arrays
    (TRACE_KEYS); outputs the chains' slpy.mcmc.output.ChainOutput. `quiet` False: a
    progress bar per chain run here, or one for the chains of worker processes of
    this machine.
    """
    from ..mcmc.dispatch import map_tasks
    from ..mcmc.model import read_prior
    from ..mcmc.output import merge_visits
    from ..mcmc.worker import ChainTask, run_task
    if prior_text is None:
        prior_text = read_prior(cfg["prior"])
    model = mcmc_model(cfg, train, prior_text)    # checks the prior and its parameters
    from ..errors import RunError
    from ..mcmc.moves import resolve_proposal
    from ..mcmc.paths import resolve_path
    try:      # the path once for all chains, as slpy run chooses it
        cfg = resolve_path(model, cfg)[0]
    except RunError as e:
        raise ValueError(str(e)) from None
    if cfg.path == "engine" and getattr(model, "engine_ran", False):
        # the moves the path's check allows (a prior it turned down has no exact move),
        # then a model whose engine has not run
        cfg = cfg.replace(proposal=resolve_proposal(model, cfg.proposal))
        model = mcmc_model(cfg, train, prior_text)
    tasks = [ChainTask(cfg, i, prior_text, train, all_models=True, quiet=quiet)
             for i in range(n_chains)]
    if n_chains == 1:
        outs = [run_task(tasks[0], model)]
    else:
        # each chain builds its own model: Prolog terms must not cross processes,
        # and a fresh model keeps the chains independent of n_jobs and the backend
        with contextlib.ExitStack() as stack:
            if not quiet and _worker_processes(n_jobs):
                # a worker's own bar would not reach a notebook: one bar here for all
                # the chains, as slpy run shows (they post to its file)
                from ..mcmc.progress import Board
                with contextlib.suppress(OSError):       # (no room for its file)
                    board = stack.enter_context(Board(n_chains, cfg["iterations"]))
                    tasks = [dataclasses.replace(t, quiet=True, board=board.path)
                             for t in tasks]
            with warnings.catch_warnings():
                # loky warns from its manager thread when it replaces a worker (one
                # that outgrew its memory): under a caller's "error" filter, that
                # warning would end the thread and the fit would wait forever
                warnings.filterwarnings("ignore", "A worker stopped while some jobs",
                                        UserWarning)
                outs = map_tasks(tasks, n_jobs)
    if any(o.interrupted for o in outs):
        raise KeyboardInterrupt
    merged = merge_visits(outs)
    trees = {}
    for o in outs:
        for key in o.visits:
            trees.setdefault(key, o.drawn[key])
    kept = sum(m["count"] for m in merged.values())
    ranked = sorted(merged, key=lambda k: (-merged[k]["count"], k))
    index = {k: i for i, k in enumerate(ranked)}
    weighted = [(trees[k], merged[k]["count"] / kept) for k in ranked]
    return weighted, _trace(outs, index), outs


def _worker_processes(n_jobs) -> bool:
    """Whether joblib would run the chains in several processes of this machine."""
    from joblib import effective_n_jobs
    from joblib.parallel import get_active_backend
    local = type(get_active_backend()[0]).__name__ in ("LokyBackend",
                                                      "MultiprocessingBackend")
    return local and effective_n_jobs(n_jobs) > 1


def _trace(outs, index) -> dict:
    """trace_: the chains' kept draws, one array per TRACE_KEYS column."""
    cols = {k: [] for k in TRACE_KEYS}
    for i, o in enumerate(outs):
        t = o.trace
        tree_of = np.array([index[key] for key in o.visits], dtype=np.int64)
        cols["chain"].append(np.full(len(t), i, dtype=np.int64))
        cols["iter"].append(t.iter)
        cols["tree"].append(tree_of[t.model] if len(t) else t.model)
        cols["log_lik"].append(np.array([round(x, 10) for x in t.log_lik.tolist()]))
        for k in ("leaves", "depth"):
            cols[k].append(t.stats[k])
        cols["d"].append(t.d)
        cols["accepted"].append(t.accepted)
    return {k: np.concatenate(v).astype(_TRACE_DTYPES[k]) for k, v in cols.items()}


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
