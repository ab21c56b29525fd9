import sys
from pathlib import Path

import numpy as np
import pytest

ROOT = Path(__file__).resolve().parents[1]
SHARED = ROOT.parent / "shared"
PEPL = SHARED / "prolog-suites" / "pepl_slp" / "slp"
# the example programs of ../shared (a development workspace beside the repository)
needs_pepl = pytest.mark.skipif(not PEPL.is_dir(),
                                reason="../shared (pepl example programs) is not beside the repo")
EXAMPLES = ROOT / "examples" / "data"
SLOW_LIST = Path(__file__).with_name("slow_tests.txt")


def _slow_ids() -> tuple[set, tuple]:
    """(test ids, module paths) tests/slow_tests.txt names."""
    lines = [x.strip() for x in SLOW_LIST.read_text().splitlines()]
    lines = [x for x in lines if x and not x.startswith("#")]
    return {x for x in lines if "::" in x}, tuple(x for x in lines if "::" not in x)


@pytest.hookimpl(tryfirst=True)      # before -m reads the marks
def pytest_collection_modifyitems(config, items):
    ids, modules = _slow_ids()
    for item in items:
        if item.nodeid in ids or item.nodeid.split("::")[0] in modules:
            item.add_marker(pytest.mark.slow)


@pytest.fixture
def prog():
    from slpy import Program
    return Program()


@pytest.fixture
def rng():
    return np.random.default_rng(12345)


def answers(p, q, var="X"):
    return [str(b[var]) for b in p.query(q)]
