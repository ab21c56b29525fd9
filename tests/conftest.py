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


@pytest.fixture
def prog():
    from slpy import Program
    return Program()


@pytest.fixture
def rng():
    return np.random.default_rng(12345)


def answers(p, q, var="X"):
    return [str(b[var]) for b in p.query(q)]
