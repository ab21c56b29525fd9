"""benchmarks/ is a package: every module imports (the scripts no test runs included),
and none is over 500 lines."""
import importlib
from pathlib import Path

import pytest

BENCHMARKS = Path(__file__).resolve().parents[2] / "benchmarks"
MODULES = sorted(p for p in BENCHMARKS.rglob("*.py") if "out" not in p.parts)


@pytest.mark.parametrize("path", MODULES, ids=lambda p: str(p.relative_to(BENCHMARKS)))
def test_module_imports_and_is_short(path):
    rel = path.relative_to(BENCHMARKS.parent).with_suffix("")
    name = ".".join(rel.parts[:-1] if rel.name == "__init__" else rel.parts)
    importlib.import_module(name)
    assert len(path.read_text().splitlines()) <= 500
