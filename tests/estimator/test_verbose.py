"""The estimators' verbose option: quiet by default, a progress report per chain
when verbose (a tqdm bar on a terminal or in a notebook, plain lines otherwise)."""
import pandas as pd

from slpy import BayesianTreeClassifier

from ..conftest import EXAMPLES


def test_quiet_by_default_and_progress_when_verbose(capfd):
    df = pd.read_csv(EXAMPLES / "kyphosis.csv")
    X, y = df.drop(columns="class"), df["class"]
    BayesianTreeClassifier(n_iter=60, tempering=1, random_state=0).fit(X, y)
    out, err = capfd.readouterr()
    assert out == "" and err == ""
    BayesianTreeClassifier(n_iter=60, n_chains=2, tempering=1, random_state=0,
                           verbose=1).fit(X, y)
    out, err = capfd.readouterr()
    assert out == ""
    assert "chain 0: 60/60 it" in err and "chain 1: 60/60 it" in err
