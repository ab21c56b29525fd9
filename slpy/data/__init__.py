"""Data for slpy: datasets loaded from CSV or arrays, and hash-consed row sets.

``Dataset``/``load_csv``/``from_arrays`` build the data a prior conditions on;
``RowSets`` gives priors and likelihoods integer handles to subsets of its rows;
``slpy.data.bucket`` maps features to at most K values (paper 004's preprocessing).
"""
from .dataset import (DataError, Dataset, MissingValueError, dataset_hash, from_arrays,
                      load_csv, read_rows, train_test_split)
from .rowsets import RowSets, SplitList

__all__ = ["DataError", "Dataset", "MissingValueError", "RowSets", "SplitList", "dataset_hash",
           "from_arrays", "load_csv", "read_rows", "train_test_split"]
