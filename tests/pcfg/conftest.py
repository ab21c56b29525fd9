import numpy as np
import pytest

import slpy.pcfg.builtins  # noqa: F401  (phi_stop_prob/4 and phi_split/4 for phi.slp)
from slpy.data.dataset import from_arrays

from ..conftest import ROOT

PRIORS = ROOT / "priors"


def tiny_dataset(seed=6, n=8, levels=(5, 4), classes=2):
    """A data set small enough to list every tree: n rows, one feature per level count."""
    rng = np.random.default_rng(seed)
    X = np.column_stack([rng.integers(0, k, n) for k in levels]).astype(float)
    y = rng.integers(0, classes, n)
    y[:classes] = np.arange(classes)    # every class present
    return from_arrays(X, y, [f"x{j}" for j in range(len(levels))],
                       [str(c) for c in range(classes)])


@pytest.fixture
def tiny():
    return tiny_dataset()


def program(prior, ds=None, **params):
    from slpy import Program
    p = Program()
    if ds is not None:
        p.attach_data(ds)
    p.consult(PRIORS / prior)
    for k, v in params.items():
        p.set_param(k, v)
    return p
