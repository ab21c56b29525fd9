"""docs/ecosystem.md stays true for slpy: every slpy name its table writes in code
(`name`) exists, and every page it links to is there."""
import re
from pathlib import Path

import pytest

ROOT = Path(__file__).resolve().parents[1]
DOC = (ROOT / "docs" / "ecosystem.md").read_text()


def slpy_cells() -> list[str]:
    rows = [ln for ln in DOC.splitlines() if ln.startswith("| ") and not ln.startswith("|---")]
    head = [c.strip() for c in rows[0].strip("|").split("|")]
    col = head.index("slpy")
    return [re.split(r"(?<!\\)\|", r.strip().strip("|"))[col] for r in rows[1:]]


def test_the_table_has_the_features_the_issue_asks_for():
    features = {c.split("|")[1].strip() for c in DOC.splitlines() if c.startswith("| ")}
    for f in ("prior", "single interpretable trees", "exact answers", "proof trees",
              "categorical predictors", "missing values", "ArviZ", "predictive intervals",
              "variable importance / inclusion", "partial dependence", "clusters",
              "notebooks", "HTML report", "speed"):
        assert f in features, f


def test_slpy_names_in_the_table_exist():
    pytest.importorskip("sklearn")
    import slpy
    from slpy import BayesianTreeClassifier, BayesianTreeRegressor
    # Python names (not ArviZ's az.*, files or commands)
    names = {n for cell in slpy_cells() for n in re.findall(r"`([A-Za-z_]\w*)`", cell)}
    params = set(BayesianTreeClassifier().get_params())
    for n in sorted(names):
        assert (hasattr(slpy, n) or hasattr(BayesianTreeClassifier, n)
                or hasattr(BayesianTreeRegressor, n) or n in params), n
    assert {"to_inference_data", "predict_interval", "predict_proba_interval", "sample_y",
            "feature_inclusion_", "partial_dependence"} <= names


def test_links_to_the_repository_exist():
    for target in re.findall(r"\]\(((?!https?:)[^)#]+)", DOC):
        assert (ROOT / "docs" / target).resolve().exists(), target
