"""Where the benchmarks find things, and what machine a figure came from."""
from __future__ import annotations

import os
import platform
from pathlib import Path

ROOT = Path(__file__).resolve().parents[2]
BUNDLED = ROOT / "examples" / "data"          # data shipped with slpy
SHARED_DATA = ROOT.parent / "shared" / "data"  # data beside the checkout (optional)
VANROY = ROOT.parent / "shared" / "prolog-suites" / "vanroy_bench_public_domain"
PRIORS = ROOT / "priors"
OUT = ROOT / "benchmarks" / "out"             # run directories (git-ignored)
RESULTS = ROOT / "docs" / "results"           # the experiment pages
FIGURES = RESULTS / "figures"


def cpu_model() -> str:
    """The processor's model name (from /proc/cpuinfo where there is one)."""
    try:
        for line in open("/proc/cpuinfo"):
            if line.startswith("model name"):
                return line.split(":", 1)[1].strip()
    except OSError:
        pass
    return platform.processor() or platform.machine()


def machine() -> dict:
    """What a timing was taken on: processor, cores, system, Python."""
    return dict(processor=cpu_model(), cpus=os.cpu_count(), system=platform.system(),
                release=platform.release(), arch=platform.machine(),
                platform=platform.platform(), python=platform.python_version())


def rel(path) -> str:
    """`path` relative to the repository when it lies inside it (as the docs show it)."""
    try:
        return str(Path(path).resolve().relative_to(ROOT))
    except ValueError:
        return str(path)


def slpy_version() -> str:
    import slpy
    return getattr(slpy, "__version__", "?")
