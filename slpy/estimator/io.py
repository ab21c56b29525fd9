"""Saving and loading fitted estimators: one JSON file, format ``slpy-estimator/1``.

The format is documented in docs/python.md ("Save and load"); it holds the
parameters, what the fit learnt (classes, feature names, the weighted trees in
slpy-tree/1 form, the trace) and the prior's source, not a pickle. An exact fit
also holds its (bucketed) training data: its posterior predictive is a dynamic
programme over the training data's row sets, recomputed when first needed.
"""
from __future__ import annotations

import json
import os
from pathlib import Path

import numpy as np

from sklearn.utils.validation import check_is_fitted

from .._version import __version__
from ..data.dataset import Dataset
from ..trees.model import Tree
from .fitting import trace_arrays

FORMAT = "slpy-estimator/1"

__all__ = ["FORMAT", "save", "load", "to_dict", "from_dict", "loadable"]

# the classes a file may name (its "estimator" field): name -> class
_CLASSES: dict = {}


def loadable(cls):
    """Class decorator: :func:`load` makes estimators of this class (by its name)."""
    _CLASSES[cls.__name__] = cls
    return cls


def to_dict(est) -> dict:
    """The JSON-ready dict of a fitted estimator."""
    check_is_fitted(est)
    params = est.get_params(deep=False)
    params["prior"] = os.fspath(params["prior"])
    if params["random_state"] is not None and not isinstance(params["random_state"], int):
        params["random_state"] = est.seed_      # a RandomState or Generator: its draw
    info = est._fit_info
    d = {
        "format": FORMAT,
        "estimator": type(est).__name__,
        "slpy_version": __version__,
        "params": params,
        "prior": {"file": info["prior_file"], "source": info["prior_source"],
                  "params": info["prior_params"], "query": info["query"]},
        "task": est._task,
        "n_features_in": int(est.n_features_in_),
        "feature_names_in": (est.feature_names_in_.tolist()
                             if hasattr(est, "feature_names_in_") else None),
        "feature_levels": est.feature_levels_,
        "seed": est.seed_,
        "trees": [{"weight": float(w), "tree": t.to_dict()} for t, w in est.trees_],
        "map_tree": est.map_tree_.to_dict(),
        "trace": (None if est.trace_ is None else
                  {k: v.tolist() for k, v in est.trace_.items()}),
        "convergence": est.convergence_,
        "exact": None,
    }
    if est._task == "classification":
        d["classes"] = est.classes_.tolist()
        d["classes_dtype"] = est.classes_.dtype.str
        d["log_marginal_likelihood"] = est.log_marginal_likelihood_
        d["likelihood"] = {"name": "dirichlet", "alpha": info["dirichlet_alpha"]}
    else:
        d["likelihood"] = dict(est._normal, name="normal")
    if est._exact_train is not None:
        tr = est._exact_train
        d["exact"] = {"X": tr.X.tolist(), "y": tr.y.tolist(),
                      "feature_names": tr.feature_names, "classes": tr.classes}
        if tr.levels is not None or tr.missing:    # (NaN is written as JSON's NaN)
            d["exact"].update(levels=tr.levels, missing=tr.missing)
    return d


def save(est, path) -> None:
    """Write ``est`` to ``path`` (format slpy-estimator/1)."""
    try:
        text = json.dumps(to_dict(est), default=_numpy_scalar)
    except TypeError as e:
        raise ValueError(f"cannot save {type(est).__name__}: {e} (classes_ and "
                         f"prior_params must be JSON values)") from None
    path = Path(path)
    tmp = path.with_name(path.name + ".tmp")
    tmp.write_text(text + "\n")
    os.replace(tmp, path)


def _numpy_scalar(o):
    if isinstance(o, np.generic):     # e.g. a grid search's numpy values in params
        return o.item()
    raise TypeError(f"{type(o).__name__} is not a JSON value")


def from_dict(d: dict, source: str = "<dict>"):
    """The estimator a :func:`to_dict` dict describes."""
    if not isinstance(d, dict) or d.get("format") != FORMAT:
        raise ValueError(f"{source}: not an slpy estimator file (format {FORMAT})")
    cls = _CLASSES.get(d.get("estimator"))
    if cls is None:
        raise ValueError(f"{source}: unknown estimator {d.get('estimator')!r}")
    try:
        est = cls(**d["params"])
        est.n_features_in_ = int(d["n_features_in"])
        if d["feature_names_in"] is not None:
            est.feature_names_in_ = np.asarray(d["feature_names_in"], dtype=object)
        est.feature_levels_ = d.get("feature_levels")     # (files before categories)
        if est._task == "classification":
            est.classes_ = np.asarray(d["classes"], dtype=np.dtype(d["classes_dtype"]))
            est.log_marginal_likelihood_ = d["log_marginal_likelihood"]
        else:
            lik = d["likelihood"]
            est._normal = {k: float(lik[k]) for k in ("nu", "lam", "mu_bar", "a")}
        est.seed_ = d["seed"]
        est.trees_ = [(Tree.from_dict(t["tree"]), float(t["weight"])) for t in d["trees"]]
        est.map_tree_ = Tree.from_dict(d["map_tree"])
        est.trace_ = None if d["trace"] is None else trace_arrays(d["trace"])
        est.chains_ = None        # not saved: trace_ has the draws
        est.convergence_ = d.get("convergence")      # (files before convergence_)
        est.n_iter_ = None if est.trace_ is None else \
            est.convergence_["rounds"][-1] if est.convergence_ else est.n_iter
        p = d["prior"]
        est._fit_info = {"prior_file": p["file"], "prior_source": p["source"],
                         "prior_params": p["params"], "query": p["query"],
                         "dirichlet_alpha": d["likelihood"].get("alpha")}
        est._exact_post = None
        est._exact_train = None
        if d["exact"] is not None:
            e = d["exact"]
            est._exact_train = Dataset(np.asarray(e["X"], dtype=np.float64),
                                       np.asarray(e["y"], dtype=np.int32),
                                       e["feature_names"], e["classes"], "classification",
                                       levels=e.get("levels"),
                                       missing=e.get("missing", False))
    except (KeyError, TypeError, ValueError) as e:
        raise ValueError(f"{source}: a malformed {FORMAT} file ({type(e).__name__}: "
                         f"{e})") from None
    return est


def load(path):
    """Read an estimator written by ``save`` (format slpy-estimator/1)."""
    try:
        d = json.loads(Path(path).read_text())
    except OSError as e:
        raise ValueError(f"{path}: cannot read ({e.strerror or e})") from None
    except json.JSONDecodeError as e:
        raise ValueError(f"{path}: not an slpy estimator file (not JSON: {e})") from None
    return from_dict(d, str(path))
