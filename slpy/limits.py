"""Limits for programs from elsewhere: the defaults of every command, and its options.

Every command that runs a loaded program (its directives, queries, samples, the MCMC's
proposals) runs each query under a time limit, an inference limit and a memory limit;
terms, atoms (slpy.terms.term.MAX_ATOM_LENGTH) and integers
(slpy.logic.arith_checks.MAX_INT_BITS) have fixed size limits. Passing a limit is a resource
error that catch/3 can catch once; still past it at the engine's next check, the query
ends. The Python API (``Program()``) has no time, inference or memory limit unless given.
"""
from __future__ import annotations

import os

import click

from .cliopts import FiniteFloat

TIMEOUT = 60.0                 # seconds a query
MAX_STEPS = 100_000_000        # inferences a query: about a minute at 1.5 million a second
MEMORY_CAP = 4096              # MiB; or half the machine's memory when that is less


def default_max_memory() -> int:
    """The default memory limit in MiB: 4 GiB, or half of the machine's memory."""
    try:
        total = os.sysconf("SC_PHYS_PAGES") * os.sysconf("SC_PAGE_SIZE") >> 20
    except (ValueError, OSError, AttributeError):
        return MEMORY_CAP
    return max(256, min(MEMORY_CAP, total // 2))


def options(timeout: float = TIMEOUT, what: str = "query"):
    """The --timeout, --max-steps and --max-memory options (0: no limit)."""
    def deco(f):
        f = click.option("--max-memory", type=click.IntRange(min=0), default=None,
                         metavar="MIB",
                         help="Stop a program whose process uses more memory than this, "
                              "in MiB (default: 4096 or half the machine's memory; "
                              "0: no limit).")(f)
        f = click.option("--max-steps", type=click.IntRange(min=0), default=MAX_STEPS,
                         show_default=True, metavar="N",
                         help=f"Inferences allowed to each {what} (0: no limit).")(f)
        return click.option("--timeout", type=FiniteFloat(min=0, max=1e9),
                            default=timeout, show_default=True, metavar="SECONDS",
                            help=f"Time allowed to each {what} (0: no limit).")(f)
    return deco


def program_limits(timeout, max_steps, max_memory) -> dict:
    """Keyword arguments of Program() from the options' values (0 or None: none;
    max_memory None: the default)."""
    if max_memory is None:
        max_memory = default_max_memory()
    return {"timeout": float(timeout) if timeout else None,
            "max_steps": int(max_steps) if max_steps else None,
            "max_memory": int(max_memory) << 20 if max_memory else None}
