"""The ISO conformance suite: at least 85% of the covered patterns pass, and every
failure is a documented, deliberate deviation."""
import pytest

from .iso_runner import REASONS, SUITE, run

pytestmark = pytest.mark.skipif(not (SUITE / "iso.tst").exists(),
                                reason="../shared is not beside the repo")


@pytest.fixture(scope="module")
def outcomes():
    return run()


def test_iso_pass_rate(outcomes):
    passed = sum(o.passed for o in outcomes)
    assert len(outcomes) > 600
    assert passed / len(outcomes) >= 0.85, f"{passed}/{len(outcomes)}"


def test_every_iso_failure_has_a_reason(outcomes):
    unexplained = [(o.line, o.text, o.reason) for o in outcomes
                   if not o.passed and o.line not in REASONS]
    assert not unexplained
