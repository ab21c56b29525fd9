"""What the two estimators share: the parameter table, fitting, the posterior mixture.

``__init__`` only stores its keyword arguments (scikit-learn's convention);
:meth:`BayesianTreeBase._check_params` validates them in ``fit`` from the declarative
table ``_param_table``: name -> (predicate, what the value must be). The table is our
own rather than scikit-learn's ``_parameter_constraints``, whose machinery is private.
"""
from __future__ import annotations

import numbers
import os
import sys
import warnings
from typing import ClassVar

import numpy as np
from sklearn.base import BaseEstimator
from sklearn.utils.validation import check_is_fitted, validate_data

from . import convergence as _convergence, fitting, io as _io


# prediction_convergence's draws of a block of rows: at most this many numbers
_PREDICTION_BLOCK = 1 << 22


# ---- predicates of the parameter table ----------------------------------------------------

def _int(lo, hi=None):
    def ok(v):
        return isinstance(v, numbers.Integral) and not isinstance(v, bool) and v >= lo \
            and (hi is None or v <= hi)
    return ok


def _real(lo, hi=None, lo_open=False, hi_open=False):
    def ok(v):
        if not isinstance(v, numbers.Real) or isinstance(v, bool) or not np.isfinite(v):
            return False
        return (v > lo if lo_open else v >= lo) and \
            (hi is None or (v < hi if hi_open else v <= hi))
    return ok


def _none_or(pred):
    return lambda v: v is None or pred(v)


def _choice(*values):
    return lambda v: isinstance(v, str) and v in values


def _burn_in(v):
    return _int(0)(v) or (isinstance(v, float) and 0.0 <= v < 1.0)


def _prior(v):
    return isinstance(v, os.PathLike) or (isinstance(v, str) and v != "")


def _prior_params(v):
    return v is None or (isinstance(v, dict) and all(
        isinstance(k, str) and isinstance(x, (numbers.Real, str)) and not isinstance(x, bool)
        for k, x in v.items()))


def _random_state(v):
    return v is None or _int(0)(v) or isinstance(v, (np.random.RandomState,
                                                     np.random.Generator))


def _categorical_features(v):
    return v is None or (isinstance(v, str) and v == "from_dtype") or (
        isinstance(v, (list, tuple)) and all(
            isinstance(c, str) or (isinstance(c, numbers.Integral) and not isinstance(c, bool))
            for c in v))


def _n_jobs(v):
    return v is None or (isinstance(v, numbers.Integral) and not isinstance(v, bool)
                         and v != 0)


_SHARED = {
    "prior": (_prior, "a shipped prior's name (e.g. 'growtree') or a path to an .slp file"),
    "alpha": (_none_or(_real(0, 1)), "None or a number in [0, 1]"),
    "beta": (_none_or(_real(0)), "None or a number >= 0"),
    "min_leaf": (_none_or(_int(1)), "None or an integer >= 1"),
    "prior_params": (_prior_params, "None or a dict of parameter name -> number or "
                                    "Prolog text"),
    "query": (lambda v: isinstance(v, str) and v != "", "a Prolog goal such as 'cart(T)'"),
    "n_iter": (_int(1), "an integer >= 1"),
    "burn_in": (_burn_in, "an integer >= 0 (iterations) or a float in [0, 1) "
                          "(a fraction of n_iter)"),
    "thin": (_int(1), "an integer >= 1"),
    "proposal": (lambda v: isinstance(v, str), "'default', a move ('uc', 'q0', "
                 "'cycle:N', 'change', 'swap', 'exact[:H]') or a mixture "
                 "'uc:0.5,change:0.5'"),
    "mcmc_path": (_choice("auto", "compiled", "engine"), "'auto', 'compiled' or 'engine'"),
    "n_chains": (_int(1), "an integer >= 1"),
    "until_converged": (lambda v: isinstance(v, (bool, np.bool_)), "True or False"),
    "target_rhat": (_real(1, lo_open=True), "a number > 1"),
    "target_ess": (_real(0, lo_open=True), "a number > 0"),
    "max_iter": (_none_or(_int(1)), "None or an integer >= n_iter"),
    "max_time": (_none_or(_real(0, lo_open=True)), "None or a number of seconds > 0"),
    "tempering": (_int(1), "an integer >= 1 (1: no tempering)"),
    "delta_t": (_real(0, lo_open=True), "a number > 0"),
    "min_heat": (_none_or(_real(0, 1, lo_open=True, hi_open=True)),
                 "None or a number strictly between 0 and 1"),
    "swap": (_choice("neighbours", "random"), "'neighbours' or 'random'"),
    "init": (_choice("prior", "greedy"), "'prior' or 'greedy'"),
    "bucket": (_none_or(_int(2)), "None or an integer >= 2"),
    "categorical_features": (_categorical_features, "'from_dtype', None, or a list of "
                                                    "column names or indices"),
    "missing": (_choice("error", "split"), "'error' or 'split'"),
    "n_trees": (_int(1), "an integer >= 1"),
    "n_jobs": (_n_jobs, "None or a non-zero integer"),
    "random_state": (_random_state, "None, an integer >= 0, a numpy RandomState or "
                                    "Generator"),
    "verbose": (_int(0), "an integer >= 0 (0: quiet; 1: a progress bar per chain)"),
}


class BayesianTreeBase(BaseEstimator):
    """Fitting and the posterior mixture; subclasses add the response's side."""

    _task: ClassVar[str]
    _param_table: ClassVar[dict] = _SHARED

    # ---- parameters ------------------------------------------------------------------
    def _check_params(self) -> None:
        name = type(self).__name__
        for key, (ok, what) in self._param_table.items():
            value = getattr(self, key)
            if not ok(value):
                raise ValueError(f"{name}: {key} must be {what}, got {value!r}")
        if self._burn_in() >= self.n_iter:
            raise ValueError(f"{name}: burn_in ({self.burn_in!r}) leaves no kept "
                             f"iterations of n_iter={self.n_iter}")
        if not self.until_converged and (self.max_iter, self.max_time) != (None, None):
            raise ValueError(f"{name}: max_iter and max_time are budgets of "
                             f"until_converged=True: set it too")
        if self.max_iter is not None and self.max_iter < self.n_iter:
            raise ValueError(f"{name}: max_iter must be None or an integer >= n_iter "
                             f"({self.n_iter}), got {self.max_iter!r}")
        from ..mcmc.moves import check_proposal
        try:
            check_proposal(self.proposal)
        except ValueError as e:
            raise ValueError(f"{name}: {e}") from None
        clash = {"alpha", "beta", "min_leaf"} & set(self.prior_params or {})
        for key in sorted(clash):
            if getattr(self, key) is not None:
                raise ValueError(f"{name}: {key} is given both as a parameter and in "
                                 f"prior_params")

    def _burn_in(self) -> int:
        b = self.burn_in
        return int(b * self.n_iter) if isinstance(b, float) else int(b)

    def _prior_param_values(self) -> dict:
        """The prior's parameters to set: alpha/beta/min_leaf when given, then
        prior_params. Numbers become Python numbers (a grid search may pass numpy's)."""
        out = {}
        for key in ("alpha", "beta", "min_leaf"):
            v = getattr(self, key)
            if v is not None:
                out[key] = int(v) if key == "min_leaf" else float(v)
        for key, v in (self.prior_params or {}).items():
            if isinstance(v, numbers.Integral):
                v = int(v)
            elif isinstance(v, numbers.Real):
                v = float(v)
            out[key] = v
        return out

    # ---- fitting ---------------------------------------------------------------------
    def _feature_names(self) -> list[str]:
        names = getattr(self, "feature_names_in_", None)
        if names is not None and len(set(names)) == len(names):
            return [str(n) for n in names]
        return [f"x{j}" for j in range(self.n_features_in_)]

    def _fit_posterior(self, train, dirichlet_alpha: float | None = None) -> dict:
        """The learnt attributes of the posterior over trees given the Dataset
        ``train`` (the caller sets them all at once, so a failed fit changes none)."""
        from ..data.bucket import Bucketer
        if self.bucket is not None:
            train = Bucketer(int(self.bucket)).fit(train.X, train.categorical) \
                .transform_dataset(train)
        seed = fitting.seed_from(self.random_state)
        path = fitting.resolve_prior(self.prior)
        params = self._prior_param_values()
        # what the fit used, for saving and for rebuilding an exact posterior
        info = {"prior_file": path.name, "prior_source": path.read_text(),
                "prior_params": params, "query": self.query,
                "dirichlet_alpha": dirichlet_alpha}
        out = {"seed_": seed, "_fit_info": info, "_exact_train": None, "_exact_post": None,
               "_train": train}      # for to_inference_data (not saved)
        if self.method == "exact":
            program = fitting.build_program(params, train, path=path)
            post = fitting.fit_exact(program, self.query, train, dirichlet_alpha, seed)
            trees, map_tree = fitting.exact_trees(post, int(self.n_trees))
            return dict(out, trees_=trees, map_tree_=map_tree, trace_=None, chains_=None,
                        convergence_=None, n_iter_=None,
                        log_marginal_likelihood_=post.log_marginal_likelihood,
                        _exact_train=train, _exact_post=post)
        from ..mcmc.config import RunConfig
        cfg = RunConfig(prior=str(path), query=self.query, params=params,
                        iterations=int(self.n_iter), burn_in=self._burn_in(),
                        thin=int(self.thin), proposal=self.proposal, path=self.mcmc_path,
                        temper=int(self.tempering), delta_t=float(self.delta_t),
                        min_heat=None if self.min_heat is None else float(self.min_heat),
                        swap=self.swap, chains=int(self.n_chains), seed=seed,
                        init=self.init, top=1,
                        alpha=1.0 if dirichlet_alpha is None else float(dirichlet_alpha))

        def fit_round(n):      # the burn-in stays the first round's (resolved above)
            return fitting.fit_mcmc(cfg.replace(iterations=n), train, int(self.n_chains),
                                    self.n_jobs, prior_text=info["prior_source"],
                                    quiet=not self.verbose)
        name = type(self).__name__
        (trees, trace, chains), conv = _convergence.fit_rounds(
            fit_round, int(self.n_iter), int(self.n_chains),
            until=bool(self.until_converged), rhat=self.target_rhat, ess=self.target_ess,
            max_iter=self.max_iter, max_time=self.max_time,
            say=(lambda line: print(f"{name}: {line}", file=sys.stderr))
            if self.verbose else None)
        if conv["checked"] and not conv["converged"]:
            # (too few draws cannot be checked: convergence_ says so, fit stays quiet)
            warnings.warn(conv["verdict"], _convergence.ConvergenceWarning, stacklevel=3)
        out.update(trees_=trees, map_tree_=trees[0][0], trace_=trace, chains_=chains,
                   convergence_=conv, n_iter_=conv["rounds"][-1])
        if self._task == "classification":      # (regression has no exact method)
            out["log_marginal_likelihood_"] = None
        return out

    # ---- data ------------------------------------------------------------------------
    def _validate(self, X, y=None, fitting=False, **kw):
        """(X as float64 [n, p], categorical columns as level codes; y; the levels of
        each feature or None). ``fit`` learns the levels, prediction codes X with them
        (a level fit did not see: -1, which goes to the side of each split with more
        training rows)."""
        finite = "allow-nan" if self.missing == "split" else True
        levels = None if fitting else self.feature_levels_
        cats = self._categorical_columns(X) if fitting else None
        if not cats and levels is None:          # numbers only: scikit-learn's checks
            out = validate_data(self, X, y, reset=fitting, dtype=np.float64,
                                ensure_all_finite=finite, **kw) if fitting else \
                validate_data(self, X, reset=False, dtype=np.float64,
                              ensure_all_finite=finite)
            return (*out, None) if fitting else (out, None, None)
        if fitting:
            Xo, y = validate_data(self, X, y, dtype=None, ensure_all_finite=False, **kw)
        else:
            Xo = validate_data(self, X, reset=False, dtype=None, ensure_all_finite=False)
        from ..data.columns import encode_columns
        from ..data.dataset import DataError
        names = self._feature_names()
        try:
            Xf, levels = encode_columns(Xo, names, cats, type(self).__name__,
                                        levels=levels)
        except DataError as e:
            raise ValueError(str(e)) from None
        if self.missing != "split" and np.isnan(Xf).any():
            raise ValueError(f"{type(self).__name__}: X has missing values (None or NaN); "
                             f"missing='split' keeps them")
        return Xf, y, levels

    def _categorical_columns(self, X) -> list:
        """The columns fit reads as categories (indices)."""
        spec = self.categorical_features
        if spec is None:
            return []
        if spec == "from_dtype":
            dtypes = getattr(X, "dtypes", None)
            if dtypes is None:
                return []
            return [j for j, t in enumerate(dtypes) if str(t) in ("category", "str",
                                                                  "string", "object")]
        names = list(getattr(X, "columns", []))
        out = []
        for c in spec:
            if isinstance(c, str):
                if c not in names:
                    raise ValueError(f"{type(self).__name__}: categorical_features names "
                                     f"{c!r}, which is not a column of X")
                out.append(names.index(c))
            else:
                out.append(int(c))
        return out

    def _dataset(self, X, y, classes, task, levels):
        from ..data.dataset import DataError, Dataset
        try:
            ds = Dataset(X, y, self._feature_names(), classes, task, levels=levels,
                         missing=self.missing == "split")
        except DataError as e:
            raise ValueError(str(e)) from None
        # the CLI's data warnings (an identifier column, a constant one), as warnings
        head = f"warning: {ds.source}: "
        for line in ds.column_warnings():
            warnings.warn(f"{type(self).__name__}.fit: {line.removeprefix(head)}",
                          UserWarning, stacklevel=3)
        return ds

    # ---- prediction ------------------------------------------------------------------
    def _check_X(self, X) -> np.ndarray:
        check_is_fitted(self)
        return self._validate(X)[0]

    def _tree_prediction(self, tree, X) -> np.ndarray:
        """One tree's prediction of the rows of X [n_samples, n_outputs], the posterior
        predictive's term for that tree."""
        raise NotImplementedError

    @property
    def trees_mcse_(self) -> np.ndarray | None:
        """The Monte Carlo standard error of each weight of trees_ [len(trees_)], as
        ``slpy run``'s summary gives it for a top model's posterior probability (batch
        means within each chain); nan where a chain has fewer than 4 draws. None for
        method='exact', whose weights have no Monte Carlo error. Computed from trace_
        when read."""
        check_is_fitted(self)
        if self.trace_ is None:
            return None
        cached = self.__dict__.get("_mcse_cache")
        if cached is None or cached[0] is not self.trace_:
            cached = self._mcse_cache = (self.trace_, _convergence.weight_mcse(
                self.trace_, len(self.trees_)))
        return cached[1].copy()        # (the caller's to change)

    def prediction_convergence(self, X) -> dict | None:
        """Whether the chains agree on the prediction of each row of X: rank-normalised
        split R-hat, bulk and tail ESS (slpy.diagnostics, as in convergence_; ArviZ's
        defaults) of the per-draw prediction, the kept draws' trees' predicted class
        probabilities (the classifier) or means (the regressor), chains cut to one
        length (predict_proba and predict average every kept draw's).

        Returns a dict: "rhat", "ess_bulk", "ess_tail" arrays [n_samples, n_classes]
        (classifier, columns in classes_ order) or [n_samples] (regressor), nan where
        undefined (a row every draw predicts alike; one chain: its halves) and inf for chains
        stuck apart; "rhat_warning" (the rows with an R-hat above 1.01); "worst"
        (per figure, {"row", "class" (classifier), "value"} of the highest R-hat and
        the lowest ESS, or None); "chains", "draws" (a chain), "checked",
        "converged" and "verdict" (by target_rhat and target_ess, as convergence_).
        None for method='exact'.

        ``until_converged`` does not read these figures (only convergence_'s): the rows
        that matter are known only here. When "converged" is False, fit again with a larger
        n_iter (or n_chains)."""
        X = self._check_X(X)
        trace = self.trace_
        if trace is None:
            return None
        from ..diagnostics import equal_length
        ids = np.unique(trace["chain"])
        drawn = equal_length([trace["tree"][trace["chain"] == i] for i in ids]) \
            .astype(np.int64)
        used, at = np.unique(drawn, return_inverse=True)
        at = at.reshape(drawn.shape)
        classes = self.classes_.tolist() if self._task == "classification" else None
        n_out = 1 if classes is None else len(classes)
        # rows a block, so a block's draws stay near _PREDICTION_BLOCK numbers
        step = max(1, _PREDICTION_BLOCK // (drawn.size * n_out))
        diag: dict = {"rhat_warning": []}
        for a in range(0, X.shape[0], step):
            rows = X[a:a + step]
            per_tree = np.stack([self._tree_prediction(self.trees_[j][0], rows)
                                 for j in used])
            got = _convergence.prediction_figures(per_tree[at], start=a)
            diag["rhat_warning"] += got.pop("rhat_warning")
            diag.update(got)
        if classes is None:
            def label(i, c):
                return f"the prediction at row {i}"
        else:
            def label(i, c):
                return f"P({classes[c]}) at row {i}"
        conv = _convergence.diagnose_predictions(
            diag, (X.shape[0], n_out), len(ids), drawn.shape[1], self.target_rhat,
            self.target_ess, label)
        for s, w in conv["worst"].items():
            if w is not None:
                c = w.pop("output")
                conv["worst"][s] = w if classes is None else \
                    {"row": w["row"], "class": classes[c], "value": w["value"]}
        if classes is None:
            conv.update({s: conv[s][:, 0] for s in ("rhat", "ess_bulk", "ess_tail")})
        return conv

    def _exact_posterior(self):
        """The exact posterior (rebuilt from the training data after unpickling or
        loading, where it is not stored)."""
        if self._exact_post is None:
            info = self._fit_info
            program = fitting.build_program(info["prior_params"], self._exact_train,
                                            source=info["prior_source"],
                                            name=info["prior_file"])
            self._exact_post = fitting.fit_exact(program, info["query"], self._exact_train,
                                                 info["dirichlet_alpha"], self.seed_)
        return self._exact_post

    def __getstate__(self):
        # the exact posterior holds row-set tables whose ids are this process's own
        state = super().__getstate__()
        if state.get("_exact_post") is not None:
            state = dict(state, _exact_post=None)
        return state

    # ---- saving ----------------------------------------------------------------------
    def save(self, path) -> None:
        """Write the fitted model to ``path`` as JSON (format slpy-estimator/1,
        docs/python.md); :func:`slpy.estimator.load` reads it back."""
        _io.save(self, path)

    @classmethod
    def load(cls, path):
        """Read a model written by :meth:`save` (it must be of this class)."""
        est = _io.load(path)
        if not isinstance(est, cls):
            raise ValueError(f"{path}: holds a {type(est).__name__}, not a {cls.__name__}")
        return est
