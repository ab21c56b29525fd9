"""Clocks and medians. The machine is shared, so a figure is a median of repeats, and
a comparison is a ratio measured in one run."""
from __future__ import annotations

import resource
import statistics
import time


def median_of(fn, repeat: int, *args):
    """The median of `repeat` calls fn(*args), and the values."""
    values = [fn(*args) for _ in range(repeat)]
    return statistics.median(values), values


def median_over_seeds(fn, repeat: int):
    """The median of fn(seed) for the seeds 0, 1, ..., repeat - 1, and the values."""
    values = [fn(seed) for seed in range(repeat)]
    return statistics.median(values), values


def spread(values, unit: str = "s", digits: int = 2) -> str:
    """'median 1.23 s (min 1.10, max 1.50, 5 runs)'."""
    f = f".{digits}f"
    return (f"median {statistics.median(values):{f}} {unit} (min {min(values):{f}}, "
            f"max {max(values):{f}}, {len(values)} runs)")


def child_cpu() -> float:
    """CPU seconds used so far by this process's finished children."""
    u = resource.getrusage(resource.RUSAGE_CHILDREN)
    return u.ru_utime + u.ru_stime


class Clock:
    """Wall-clock and CPU time since it was made (or last reset)."""

    def __init__(self):
        self.reset()

    def reset(self) -> None:
        self.wall0, self.cpu0 = time.perf_counter(), time.process_time()

    @property
    def wall(self) -> float:
        return time.perf_counter() - self.wall0

    @property
    def cpu(self) -> float:
        return time.process_time() - self.cpu0
