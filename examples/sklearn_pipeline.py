"""Cross-validated accuracy of Bayesian classification trees on the Wisconsin breast
cancer data, with slpy's estimator inside a scikit-learn Pipeline.

    python examples/sklearn_pipeline.py [--n-iter 2000] [--folds 5] [--seed 0] [--jobs 1]

Each fold samples the posterior over trees under the GROWTREE prior (proof-tree MCMC)
and predicts the held-out rows with the posterior predictive: the class probabilities
of every visited tree, weighted by how often the chain visited it. Needs
scikit-learn and pandas (pip install 'slpy[sklearn]').
"""
from __future__ import annotations

import argparse
from pathlib import Path

import numpy as np
import pandas as pd
from sklearn.impute import SimpleImputer
from sklearn.model_selection import StratifiedKFold, cross_val_score
from sklearn.pipeline import Pipeline

from slpy import BayesianTreeClassifier

DATA = Path(__file__).resolve().parent / "data" / "bcw.csv"


def main(argv=None) -> float:
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("--data", default=str(DATA), help="CSV with a `class` column")
    ap.add_argument("--n-iter", type=int, default=2000, help="MCMC iterations per fit")
    ap.add_argument("--folds", type=int, default=5)
    ap.add_argument("--seed", type=int, default=0)
    ap.add_argument("--jobs", type=int, default=1, help="folds fitted in parallel")
    args = ap.parse_args(argv)

    # "?" marks a missing value in the UCI files; the imputer fills any with medians
    df = pd.read_csv(args.data, na_values=["?"])
    X, y = df.drop(columns="class"), df["class"]
    model = Pipeline([
        ("impute", SimpleImputer(strategy="median")),
        ("trees", BayesianTreeClassifier(n_iter=args.n_iter, random_state=args.seed)),
    ]).set_output(transform="pandas")      # the trees see the column names
    cv = StratifiedKFold(n_splits=args.folds, shuffle=True, random_state=args.seed)
    scores = cross_val_score(model, X, y, cv=cv, scoring="accuracy", n_jobs=args.jobs)
    print(f"BCW: {len(df)} rows, {X.shape[1]} features, classes "
          f"{', '.join(sorted(y.unique()))}")
    print("fold accuracies: " + " ".join(f"{s:.4f}" for s in scores))
    print(f"mean accuracy: {np.mean(scores):.4f} (sd {np.std(scores):.4f}, "
          f"{args.folds}-fold, {args.n_iter} iterations a fit)")
    return float(np.mean(scores))


if __name__ == "__main__":
    main()
