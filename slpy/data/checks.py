"""Columns that cannot support a model, found when data load: one warning line each.

A column with a different value in every row is an identifier (a row number, a name):
a tree can split it to isolate rows and a network can give it parents, and either
gives confident answers about nothing. A column with one value in every row tells no
rows apart. Neither is an error (the model still runs); both are said on standard
error by the commands that load data, for trees, networks and clusterings alike.
"""
from __future__ import annotations

import numpy as np

__all__ = ["column_warnings", "dataset_warnings", "MIN_ROWS_IDENTIFIER"]

#: Fewer rows than this and a column with a different value in each is not suspicious.
MIN_ROWS_IDENTIFIER = 10


def _identifier(source, name, what) -> str:
    return (f"warning: {source}: column {name!r} has {what} (an identifier?): no "
            f"model can learn from it; leave it out of the data")


def column_warnings(source, columns, samples: int | None = None) -> list:
    """Warning lines for the columns of one data set, in their order. `columns`:
    (name, values, levels) with levels true for int codes of categories (a code
    below 0: missing) and false for float values (NaN: missing); `samples`: how many
    samples the rows stand for (default: the rows)."""
    out = []
    for name, x, levels in columns:
        x = np.asarray(x)
        x = x[x >= 0] if levels else x[~np.isnan(x.astype(np.float64))]
        n = samples if samples is not None else x.size
        k = np.unique(x).size
        if k == 1 and n >= 2:
            out.append(f"warning: {source}: column {name!r} has the same value in every "
                       f"row: it tells no rows apart")
        elif n < MIN_ROWS_IDENTIFIER or k != n:
            continue
        elif levels:
            out.append(_identifier(source, name, f"a different value in each of its "
                                                 f"{n} rows"))
        elif (x == np.round(x)).all() and x.max() - x.min() == n - 1:
            # measurements may all differ; whole numbers k..k+n-1, each once, count rows
            out.append(_identifier(source, name, f"the whole numbers {x.min():.0f} to "
                                                 f"{x.max():.0f}, one in each row"))
    return out


def dataset_warnings(ds) -> list:
    """column_warnings() of a slpy.data.Dataset, its response included."""
    levels = ds.levels or [None] * ds.n_features
    out = column_warnings(ds.source, [
        (n, np.where(np.isnan(ds.X[:, j]), -1, ds.X[:, j]).astype(np.int64), True)
        if levels[j] is not None else (n, ds.X[:, j], False)
        for j, n in enumerate(ds.feature_names)])
    y = np.asarray(ds.y)
    if y.size >= 2 and np.unique(y).size == 1:
        out.append(f"warning: {ds.source}: the response has the same value in every "
                   f"row: there is nothing to predict")
    return out
