"""Model families: what is specific to a kind of model, so that the MCMC is not.

The sampler works on proof trees of any SLP; the answer of the prior's query is a
*model term*. A :class:`ModelFamily` says what the rest of slpy needs to know about
such terms: how to read the data they are scored on, how to score a term (its log
marginal likelihood, cached where it decomposes), how to key it canonically, which
integers to trace each iteration, and how to describe, predict with and report the
models a run visits. Trees (``slpy.trees.family``) and Bayesian networks
(``slpy.bn.family``) are families; a user registers their own with :func:`register`.
slpy's own are imported with its plugins, when first asked for (``import slpy`` hands
their loader to :func:`slpy.logic.plugins.add_loader`; trees load numba kernels).

A family is stateless; :meth:`ModelFamily.bind` gives a :class:`Scorer` for one run's
program and data, which is what a :class:`slpy.mcmc.model.PosteriorModel` holds.
"""
from __future__ import annotations

from .logic.plugins import load as load_plugins
from .logic.program import LoadErrors, Program
from .terms.term import PrologError

__all__ = ["ModelFamily", "Scorer", "register", "get", "names", "FamilyError",
           "declared_family", "holdout_rng"]


class FamilyError(ValueError):
    """An unknown family, or a model term a family cannot take: one line."""


class Scorer:
    """A family bound to one program and one data set.

    ``stats`` names the integers :meth:`score` returns beside the log-likelihood; they
    are traced each iteration (trace.csv, models.csv) and diagnosed like it.
    """

    stats: tuple = ()
    proposal = None     # the family's own default mixture of moves (None: slpy's)

    def score(self, term) -> tuple:
        """(log marginal likelihood, stats) of a model term (at heat 1)."""
        raise NotImplementedError

    def key(self, term) -> str:
        """A canonical text for the model: equal for the same model, whatever the
        proof or the run that found it (used to count visits across chains)."""
        raise NotImplementedError

    def check(self, term):
        """Why `term` (read from ``--init FILE``) is not a model of this family, or
        None."""
        return None

    def pattern(self, term):
        """The term to bind the query's answer to when a chain must start from
        `term` (``--init FILE``): the model with what the prior computes left open."""
        return term


class ModelFamily:
    """One kind of model. A family overrides load_data, data_hash and bind; the other
    methods have defaults that do nothing (no drawings, predictions or extra
    summary)."""

    name = ""
    query = ""            # the default query of its priors, e.g. "cart(T)"
    stats: tuple = ()     # names of the traced integers (Scorer.stats)
    folder = "models"     # the run directory's folder of drawn models (top, best)
    queries = False       # report_sections takes query= (slpy report --query)

    # -- data ---------------------------------------------------------------------------
    def load_data(self, cfg: dict):
        """(train, test or None) as a run with settings `cfg` sees them."""
        raise NotImplementedError

    def data_hash(self, train) -> str:
        """A hash of the training data (a resumed run must see the same)."""
        raise NotImplementedError

    def dropped_rows(self, cfg: dict, train, test) -> dict:
        """{role: (rows dropped for a missing value, rows kept)} by input."""
        return {}

    # -- scoring --------------------------------------------------------------------------
    def bind(self, program, train, cfg: dict) -> Scorer:
        """Give `program` the data (its builtins) and return the run's Scorer."""
        raise NotImplementedError

    def initial_term(self, cfg: dict, model, train):
        """A named start (``--init``) other than a file or the prior, or None. `model`:
        the run's slpy.mcmc.model.PosteriorModel (its program and scorer)."""
        return None

    # -- after the chains -------------------------------------------------------------------
    def describe(self, scorer: Scorer, train, key: str, term=None):
        """An object that draws the model (``str()``: text for the summary), from its
        term when this process has it, else from its key. Written to the run
        directory's `folder` when it has a ``to_json()``."""
        return None

    def predict(self, scorer: Scorer, train, test, visits: dict, kept: int, models):
        """Posterior predictive class probabilities of the test rows (a [rows,
        classes] array), or None when the family does not predict. `visits`: key ->
        Visit; `models`: key -> describe() for the keys it has."""
        return None

    #: what pointwise_predictive gives, as the run's summary names it
    predictive_label = "the predicted probability of each test row's class"

    def pointwise_predictive(self, cfg: dict, keys) -> "np.ndarray | None":
        """Each model's (by key) predictive probability of each test row's observed
        value (its class), or a monotone function of it (a log density: R-hat and ESS
        are rank-based, the same for both), a [models, rows] array, for the convergence
        of the predictions; None when the run has no test rows or the family cannot
        rebuild a model from its key outside the chain's process."""
        return None

    def predict_run(self, run, test_csv, data_path):
        """`slpy predict` of a run of this family (a slpy.report.rundir.Run) on the
        rows of the CSV file test_csv, the training data read again from data_path:
        (probabilities [rows, classes], the classes, the rows' true classes or None).
        A family that does not override it is not one `slpy predict` knows."""
        raise NotImplementedError

    def summary(self, merged: dict, kept: int) -> tuple:
        """(extra summary.json entries, extra summary lines) from the merged visits
        (key -> {"count", "log_lik", stats...}); e.g. edge marginals."""
        return {}, []

    def report_sections(self, runs, out, top: int) -> list:
        """Markdown lines of `slpy report` for runs of this family (slpy.report.rundir
        Runs) after the runs, convergence and top-model sections, with any figures
        written into the directory `out`. Trees have a report of their own. A family
        whose ``queries`` is true also takes ``query=`` (`slpy report --query`)."""
        return []

    def label(self, stats: dict) -> str:
        """A short text of a model's stats for the summary ("3 leaves")."""
        return ", ".join(f"{v} {k}" for k, v in stats.items())


_FAMILIES: dict = {}


def register(family: ModelFamily) -> ModelFamily:
    """Make a family known by its name (``slpy run --family NAME``, run directories)."""
    if not isinstance(family, ModelFamily) or not family.name:
        raise FamilyError("a family must be a ModelFamily with a name")
    _FAMILIES[family.name] = family
    return family


def get(name: str) -> ModelFamily:
    if name not in _FAMILIES:
        load_builtins()
    try:
        return _FAMILIES[name]
    except KeyError:
        raise FamilyError(f"unknown model family {name!r} (known: "
                          f"{', '.join(names())})") from None


def load_builtins() -> None:
    """Import the families slpy ships (they register themselves and their moves)."""
    load_plugins()


def names() -> list:
    load_builtins()
    return sorted(_FAMILIES)


def declared_family(path, limits: dict | None = None) -> str | None:
    """The family a prior file declares with `:- model_family(Name).`, or None (also
    when it does not load: its errors are reported where it is loaded for real), read
    under `limits` (Program() keyword arguments). A load stopped by a limit is raised
    (LoadErrors), so that a looping directive runs once, not here and again."""
    from .logic.kinds import Halt
    from .logic.sandbox import is_resource_error
    p = Program(**(limits or {}))
    try:
        p.consult(path)
    except LoadErrors as e:
        if any(is_resource_error(x) for x in e.errors):
            raise LoadErrors([x for x in e.errors if is_resource_error(x)]) from None
        return None
    except (OSError, Halt, PrologError):
        return None
    return getattr(p, "model_family", None)


def holdout_rng(cfg: dict):
    """The generator of a run's --holdout split: from --split-seed (runs written
    before it existed split with the chain seed), apart from the chains' seeds."""
    import numpy as np
    seed = cfg["split_seed"] if "split_seed" in cfg else cfg["seed"]
    return np.random.default_rng(np.random.SeedSequence([seed, 7]))
