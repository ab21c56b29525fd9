"""What the benchmark scripts share."""
from __future__ import annotations

import platform


def cpu_model() -> str:
    """The processor's model name (from /proc/cpuinfo where there is one)."""
    try:
        for line in open("/proc/cpuinfo"):
            if line.startswith("model name"):
                return line.split(":", 1)[1].strip()
    except OSError:
        pass
    return platform.processor() or platform.machine()
