"""The run directory: what `slpy run` and `slpy exact` write, in one format.

    config.json       every setting, the seed, slpy's version, a hash of the data
    trace.csv         (MCMC) one row per kept iteration
    models.csv        one row per model: canonical term, count / probability, log-lik
    summary.json      the run's figures; summary.txt the same for people
    predictions.csv   per test row: true class, posterior class probabilities
    trees/*.json      the top trees (slpy-tree/1 JSON)

Files are written with a fixed column order and number formatting so that the same
run gives the same bytes.
"""
from __future__ import annotations

import csv
import json
import os
from pathlib import Path

MODEL_COLUMNS = ["rank", "model", "count", "prob", "log_lik", "leaves", "depth"]


def _fmt(x):
    if isinstance(x, float):
        return repr(round(x, 12))
    return x


class RunDir:
    def __init__(self, path, create: bool = True):
        self.path = Path(path)
        if create:
            self.path.mkdir(parents=True, exist_ok=True)

    def file(self, name: str) -> Path:
        return self.path / name

    def write_json(self, name: str, data: dict) -> None:
        tmp = self.file(name + ".tmp")
        tmp.write_text(json.dumps(data, indent=2, sort_keys=True, default=_json_default)
                       + "\n")
        os.replace(tmp, self.file(name))

    def read_json(self, name: str) -> dict:
        return json.loads(self.file(name).read_text())

    def write_config(self, config: dict) -> None:
        self.write_json("config.json", config)

    def write_summary(self, summary: dict, text: str) -> None:
        self.write_json("summary.json", summary)
        self.file("summary.txt").write_text(text.rstrip("\n") + "\n")

    def write_models(self, rows: list[dict]) -> None:
        """rows: dicts with the keys of MODEL_COLUMNS (count or prob may be empty)."""
        tmp = self.file("models.csv.tmp")
        with open(tmp, "w", newline="") as f:
            w = csv.writer(f, lineterminator="\n")
            w.writerow(MODEL_COLUMNS)
            for i, r in enumerate(rows, 1):
                w.writerow([i] + [_fmt(r.get(k, "")) for k in MODEL_COLUMNS[1:]])
        os.replace(tmp, self.file("models.csv"))

    def write_predictions(self, classes, probs, y_true=None, method: str = "mcmc") -> None:
        """Per-row posterior class probabilities (columns follow `classes`)."""
        name = "predictions.csv" if method == "mcmc" else f"predictions_{method}.csv"
        with open(self.file(name), "w", newline="") as f:
            w = csv.writer(f, lineterminator="\n")
            w.writerow(["row", "true"] + [f"p_{c}" for c in classes])
            for i, p in enumerate(probs):
                t = classes[y_true[i]] if y_true is not None else ""
                w.writerow([i, t] + [repr(round(float(x), 12)) for x in p])

    def write_tree(self, name: str, tree) -> None:
        (self.path / "trees").mkdir(exist_ok=True)
        (self.path / "trees" / f"{name}.json").write_text(tree.to_json() + "\n")


def _json_default(o):
    import numpy as np
    if isinstance(o, np.integer):
        return int(o)
    if isinstance(o, np.floating):
        return float(o)
    if isinstance(o, np.ndarray):
        return o.tolist()
    if isinstance(o, Path):
        return str(o)
    raise TypeError(f"not JSON serialisable: {type(o).__name__}")


def accuracy_figures(probs, y_true, model_probs=None):
    """acc_prob and acc_max of paper 002 (section 7.3).

    acc_prob: mean over test rows of the posterior probability of the true class;
    acc_max: fraction of rows whose most probable class (averaged over the posterior)
    is the true class.
    """
    import numpy as np
    probs = np.asarray(probs)
    y = np.asarray(y_true)
    acc_prob = float(probs[np.arange(len(y)), y].mean())
    acc_max = float((probs.argmax(axis=1) == y).mean())
    return {"acc_prob": acc_prob, "acc_max": acc_max}
