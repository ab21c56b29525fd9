"""Limits for programs from elsewhere: the defaults of every command, and its options.

Every command that runs a loaded program (its directives, queries, samples, the MCMC's
proposals) runs each query under a time limit, an inference limit and a memory limit;
terms, atoms (slpy.terms.term.MAX_ATOM_LENGTH) and integers
(slpy.logic.arith_checks.MAX_INT_BITS) have fixed size limits. Passing a limit is a resource
error that catch/3 can catch once; still past it at the engine's next check, the query
ends. Loading a program, its directives included, has a time limit of its own: --timeout
when given, else LOAD_TIMEOUT (slpy.logic.sandbox). The Python API (``Program()``) has
no time, inference or memory limit on queries unless given, and the load limits.
"""
from __future__ import annotations

import click

from .cliopts import FiniteFloat
from .logic.sandbox import LOAD_TIMEOUT, MEMORY_CAP, default_max_memory  # noqa: F401

TIMEOUT = 60.0                 # seconds a query
MAX_STEPS = 100_000_000        # inferences a query: about a minute at 1.5 million a second


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
        if timeout == LOAD_TIMEOUT:       # a command that only loads programs
            text = (f"Time allowed to loading each program, its directives included (0: "
                    f"no limit) [default: {timeout:g}].")
        else:
            text = (f"Time allowed to each {what}, and to loading the program with its "
                    f"directives (0: no limit) [default: {timeout:g}; loading: "
                    f"{LOAD_TIMEOUT:g}].")
        return click.option("--timeout", type=FiniteFloat(min=0, max=1e9),
                            default=None, metavar="SECONDS", help=text)(f)
    return deco


def allow_load_option(f):
    """--allow-load DIR (repeatable): folders a program may load files from, besides
    its own (slpy.logic.sandbox)."""
    return click.option("--allow-load", "allow_load", multiple=True, metavar="DIR",
                        type=click.Path(exists=True, file_okay=False),
                        help="A folder whose files the program may load (consult/1, "
                             "use_module/1, ...) besides its own. Repeatable.")(f)


def program_limits(timeout, max_steps, max_memory, allow_load=(),
                   default_timeout: float = TIMEOUT) -> dict:
    """Keyword arguments of Program() from the options' values (0: none; timeout None:
    `default_timeout` a query and LOAD_TIMEOUT for loading; max_memory None: the
    default); `allow_load`: the --allow-load folders."""
    if max_memory is None:
        max_memory = default_max_memory()
    load = LOAD_TIMEOUT if timeout is None else timeout
    if timeout is None:
        timeout = default_timeout
    return {"timeout": float(timeout) if timeout else None,
            "max_steps": int(max_steps) if max_steps else None,
            "max_memory": int(max_memory) << 20 if max_memory else None,
            "load_timeout": float(load) if load else None,
            "allow_load": tuple(str(d) for d in allow_load)}
