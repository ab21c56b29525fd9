"""The ISO conformance suite must pass at least 85% of the covered patterns."""
from .iso_runner import run, SUITE
import pytest


@pytest.mark.skipif(not (SUITE / "iso.tst").exists(), reason="../shared is not beside the repo")
def test_iso_pass_rate():
    outcomes = run()
    passed = sum(o.passed for o in outcomes)
    assert len(outcomes) > 500
    assert passed / len(outcomes) >= 0.85, f"{passed}/{len(outcomes)}"
