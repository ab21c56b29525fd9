"""docs/python.md against the code: the tables list exactly the estimators' parameters
(with their defaults), attributes, methods and save-format keys, the Program API's
methods, and the expected failures of scikit-learn's checks. (The page's runnable
code blocks and their output are checked by tests/test_docs.py.)"""
import inspect
import re
from pathlib import Path

import pandas as pd
import pytest
from sklearn.base import BaseEstimator

from slpy import Program
from slpy.estimator import BayesianTreeClassifier, BayesianTreeRegressor
from slpy.estimator.io import to_dict

from .test_checks import EXPECTED_FAILURES

ROOT = Path(__file__).resolve().parents[2]
DOC = (ROOT / "docs" / "python.md").read_text()
SHORT = {BayesianTreeClassifier: "classifier", BayesianTreeRegressor: "regressor"}
CLASSES = list(SHORT)


def table(section: str) -> list[list[str]]:
    """The rows of the table under '### section' whose first cell is code."""
    assert f"\n### {section}\n" in DOC, f"no section {section!r}"
    text = DOC.split(f"\n### {section}\n", 1)[1].split("\n#", 1)[0]
    rows = []
    for line in text.splitlines():
        if line.startswith("| `"):
            rows.append([c.strip() for c in re.split(r"(?<!\\)\|", line.strip())[1:-1]])
    assert rows, f"no table rows under {section!r}"
    return rows


def name(cell: str) -> str:
    return re.match(r"`([A-Za-z_][A-Za-z_0-9]*)", cell).group(1)


def documented(section: str, cls) -> dict:
    """name -> the row's remaining cells, for the rows that apply to cls."""
    out = {}
    for row in table(section):
        assert row[1] in ("both", "classifier", "regressor"), row
        if row[1] in ("both", SHORT[cls]):
            assert name(row[0]) not in out, f"{row[0]} listed twice"
            out[name(row[0])] = row[2:]
    return out


@pytest.fixture(scope="module")
def fitted():
    df = pd.read_csv(ROOT / "examples" / "data" / "kyphosis.csv")
    X, y = df.drop(columns="class"), df["class"]
    return {
        BayesianTreeClassifier: [
            BayesianTreeClassifier(n_iter=30, random_state=0).fit(X, y),
            BayesianTreeClassifier(method="exact", min_leaf=10).fit(X.iloc[:30],
                                                                    y.iloc[:30])],
        BayesianTreeRegressor: [
            BayesianTreeRegressor(n_iter=30, random_state=0).fit(X[["Number", "Start"]],
                                                                 X["Age"])],
    }


@pytest.mark.parametrize("cls", CLASSES)
def test_parameters_and_defaults(cls):
    sig = inspect.signature(cls)
    assert all(p.kind is p.KEYWORD_ONLY for p in sig.parameters.values())
    code = {k: f"`{p.default!r}`" for k, p in sig.parameters.items()}
    docs = {k: cells[0] for k, cells in documented("Parameters", cls).items()}
    assert docs == code
    # and every parameter is validated in fit
    assert set(cls._param_table) == set(code)


@pytest.mark.parametrize("cls", CLASSES)
def test_attributes(cls, fitted):
    docs = set(documented("Attributes", cls))
    # and the learnt attributes computed when read (properties)
    computed = {n for n in dir(cls) if n.endswith("_") and not n.startswith("_")
                and isinstance(getattr(cls, n), property)}
    for est in fitted[cls]:
        learnt = {k for k in vars(est) if k.endswith("_") and not k.startswith("_")}
        assert learnt | computed == docs


@pytest.mark.parametrize("cls", CLASSES)
def test_methods(cls):
    base = set(dir(BaseEstimator))
    public = {n for n in dir(cls) if not n.startswith("_") and callable(getattr(cls, n))
              and n not in base and not re.fullmatch(r"set_\w+_request", n)}
    assert set(documented("Methods", cls)) == public
    assert "`get_params` and `set_params`" in DOC


def test_program_methods():
    public = {n for n, v in vars(Program).items() if not n.startswith("_")
              and callable(v)}
    assert {name(r[0]) for r in table("Program methods")} == public


@pytest.mark.parametrize("cls", CLASSES)
def test_save_format_keys(cls, fitted):
    docs = set(documented("Save format", cls))
    for est in fitted[cls]:
        assert set(to_dict(est)) == docs


def test_expected_failures_are_documented():
    rows = table("scikit-learn compatibility")
    docs = {(r[1], r[0].strip("`")) for r in rows}
    code = {(cls.__name__, check) for cls, checks in EXPECTED_FAILURES.items()
            for check in checks}
    assert docs == code
    for r in rows:
        assert len(r[2]) > 100, f"{r[0]}: give the reason"
