"""The estimators' verbose option: quiet by default, a progress report per chain
when verbose (a tqdm bar on a terminal or in a notebook, plain lines otherwise)."""
import pandas as pd
import pytest

from slpy import BayesianTreeClassifier
from slpy.estimator import ConvergenceWarning

from ..conftest import EXAMPLES


def test_quiet_by_default_and_progress_when_verbose(capfd):
    df = pd.read_csv(EXAMPLES / "kyphosis.csv")
    X, y = df.drop(columns="class"), df["class"]
    BayesianTreeClassifier(n_iter=60, tempering=1, random_state=0).fit(X, y)
    out, err = capfd.readouterr()
    assert out == "" and err == ""
    # chains run here one after the other (n_jobs=1): a report each
    BayesianTreeClassifier(n_iter=60, n_chains=2, n_jobs=1, tempering=1, random_state=0,
                           verbose=1).fit(X, y)
    out, err = capfd.readouterr()
    assert out == ""
    assert "chain 0: 60/60 it" in err and "chain 1: 60/60 it" in err


def test_verbose_until_converged_reports_its_rounds(capfd):
    df = pd.read_csv(EXAMPLES / "kyphosis.csv")
    X, y = df.drop(columns="class"), df["class"]
    # chains in worker processes post to one display here (slpy.mcmc.progress.Board)
    with pytest.warns(ConvergenceWarning):
        BayesianTreeClassifier(n_iter=30, n_jobs=2, tempering=1, random_state=0,
                               until_converged=True, max_iter=60, target_ess=1e9,
                               verbose=1).fit(X, y)
    out, err = capfd.readouterr()
    assert out == ""
    assert "BayesianTreeClassifier: not converged after 30 iterations a chain: fitting " \
           "again with 60" in err
