"""docs/conformance.md lists every builtin, library predicate and arithmetic function
against SWI-Prolog, as tests/conformance/builtins_doc.py generates it."""
from pathlib import Path

from .builtins_doc import MARKER, section, DIFFERS, OWN, registries

DOC = Path(__file__).resolve().parents[2] / "docs" / "conformance.md"


def test_the_builtins_section_is_current():
    text = DOC.read_text()
    assert MARKER in text, "run: python -m tests.conformance.iso_runner --doc docs/conformance.md"
    assert text[text.index(MARKER):] == section(), \
        "docs/conformance.md is stale: python -m tests.conformance.iso_runner --doc docs/conformance.md"


def test_every_difference_names_a_predicate_slpy_has():
    have = {f"{n}/{a}" for n, a, _ in registries()}
    assert set(DIFFERS) <= have, sorted(set(DIFFERS) - have)
    assert set(OWN) <= have, sorted(set(OWN) - have)
