"""Where the chains of a run go: this process, or workers of a joblib backend.

``loky`` (the default) runs chains in processes on this machine; ``dask`` on a
dask.distributed cluster (``slpy run --scheduler ADDRESS``, else a local one with
``--jobs`` worker processes); ``ray`` on a Ray cluster (its address, else a local
one with ``--jobs`` CPUs). Each chain is a slpy.mcmc.worker.ChainTask, which carries
its data and the prior's text, and comes back a ChainOutput: a chain on a cluster
reads and writes no file, and the results do not depend on the backend or the number
of jobs. The estimators call :func:`map_tasks` under the caller's
``joblib.parallel_config``.

A cluster that does not answer is refused within 10 s, as dask's client does: Ray's
own ``ray.init`` retries for minutes, printing as it goes, so an address is first
tried by a TCP connection and then by a connection of Ray's in a subprocess that can
be stopped. Ray's log lines are kept off the terminal, and a local Ray instance gets
its authentication token in this process's environment rather than in a file it
would write in the user's home (~/.ray/auth_token).
"""
from __future__ import annotations

import contextlib
import dataclasses
import logging
import os

from ..errors import RunError
from .worker import run_task, run_task_safely

__all__ = ["BACKENDS", "map_tasks", "backend", "run_tasks"]

BACKENDS = ("loky", "dask", "ray")
# pip extras that bring each backend (pyproject.toml)
_EXTRA = {"dask": "dask", "ray": "ray"}


def map_tasks(tasks, n_jobs=None) -> list:
    """Run the tasks with joblib.Parallel (the backend of the caller's
    ``joblib.parallel_config``; n_jobs None: its n_jobs, else one at a time here)."""
    from joblib import Parallel, delayed
    return Parallel(n_jobs=n_jobs)(delayed(run_task_safely)(t) for t in tasks)


@contextlib.contextmanager
def backend(name: str, scheduler: str | None = None, jobs: int = 1):
    """joblib's parallel_config for `name`, with its cluster connected (or a local
    one started and stopped)."""
    if name == "loky":
        if scheduler is not None:
            raise RunError("--scheduler is for --backend dask or ray")
        if jobs == 1:              # all in this process: no need of joblib (its import
            yield                  # is a twentieth of a second of a short run)
            return
        from joblib import parallel_config
        with parallel_config(backend="loky"):
            yield
        return
    from joblib import parallel_config
    if name == "dask":
        with _dask_client(scheduler, jobs), parallel_config(backend="dask"):
            yield
        return
    if name == "ray":
        with _ray(scheduler, jobs), parallel_config(backend="ray"):
            yield
        return
    raise RunError(f"unknown backend {name!r} (use {', '.join(BACKENDS)})")


def _missing(name: str, e: ImportError) -> RunError:
    return RunError(f"--backend {name} needs {name} installed (pip install "
                    f"'slpy[{_EXTRA[name]}]'): {e}")


@contextlib.contextmanager
def _dask_client(scheduler, jobs):
    try:
        from distributed import Client, LocalCluster
    except ImportError as e:
        raise _missing("dask", e) from None
    if scheduler is not None:
        try:
            client = Client(scheduler, timeout="10s")
        except (OSError, ValueError, TypeError) as e:   # ValueError: not an address
            raise RunError(f"--scheduler {scheduler}: cannot reach the dask scheduler "
                           f"({e})") from None
        with _quiet_close(), client:
            yield
        return
    with _quiet_close(), LocalCluster(n_workers=jobs, threads_per_worker=1, processes=True,
                                      dashboard_address=None,
                                      silence_logs=logging.ERROR) as cluster, \
            Client(cluster):
        yield


@contextlib.contextmanager
def _quiet_close():
    """No log of dask's own while its client works and closes (a chain's error closes it
    with futures in flight, which tornado logs with a traceback; the error itself
    reaches the caller): the levels are restored after the close."""
    logs = [logging.getLogger(n) for n in ("tornado.application", "distributed")]
    levels = [g.level for g in logs]
    for g in logs:
        g.setLevel(logging.CRITICAL)
    try:
        yield
    finally:
        for g, lv in zip(logs, levels):
            g.setLevel(lv)


RAY_TIMEOUT = 10.0     # seconds a Ray cluster has to answer
RAY_PORTS = {"": 6379, "ray": 10001}   # Ray's default ports: GCS, Ray Client


@contextlib.contextmanager
def _ray(address, jobs: int = 1):
    try:
        import ray
        from ray.util.joblib import register_ray
    except ImportError as e:
        raise _missing("ray", e) from None
    started = not ray.is_initialized()
    with _ray_quiet(local=started and address is None):
        if started:
            if address is not None:
                _ray_answers(address)
            kw = dict(include_dashboard=False, log_to_driver=False,
                      logging_level=logging.CRITICAL)
            try:
                ray.init(address=address, **kw, **({"num_cpus": jobs} if address is None
                                                  else {}))
            except Exception as e:     # noqa: BLE001 - whatever Ray raises, one line
                where = "a local Ray instance did not start" if address is None else \
                    f"--scheduler {address}: cannot connect to the Ray cluster"
                raise RunError(f"--backend ray: {where} ({_first_line(e)})") from None
        register_ray()
        try:
            yield
        finally:
            if started:
                ray.shutdown()


def _first_line(e) -> str:
    lines = [x.strip() for x in str(e).splitlines() if x.strip()]
    return lines[0] if lines else type(e).__name__


@contextlib.contextmanager
def _ray_quiet(local: bool):
    """Ray's log lines off the terminal while it runs (they stay in its session's log
    files); for a local instance (`local`), its authentication token in this
    process's environment, where Ray and its workers look first, unless the user
    has one: Ray would otherwise write one to ~/.ray/auth_token."""
    import secrets
    from pathlib import Path
    log = logging.getLogger("ray")
    level = log.level
    log.setLevel(logging.CRITICAL)
    token = local and not {"RAY_AUTH_TOKEN", "RAY_AUTH_TOKEN_PATH"} & set(os.environ) \
        and not (Path.home() / ".ray" / "auth_token").exists()
    if token:
        os.environ["RAY_AUTH_TOKEN"] = secrets.token_hex(32)
    try:
        yield
    finally:
        log.setLevel(level)
        if token:
            os.environ.pop("RAY_AUTH_TOKEN", None)


def _ray_answers(address: str) -> None:
    """A RunError unless a Ray cluster answers at `address` within RAY_TIMEOUT: a TCP
    connection to it, then Ray's own connection in a subprocess (stopped when it
    takes longer; its output captured, not shown)."""
    import socket
    import subprocess
    import sys
    import time
    from urllib.parse import urlsplit
    what = f"--scheduler {address}"
    deadline = time.monotonic() + RAY_TIMEOUT
    if address != "auto":
        scheme, _, rest = address.rpartition("://")
        try:
            url = urlsplit("//" + rest)
            host, port = url.hostname, url.port or RAY_PORTS.get(scheme)
        except ValueError as e:
            raise RunError(f"{what}: not a Ray address HOST:PORT ({e})") from None
        if not host or port is None or url.path or scheme not in RAY_PORTS:
            raise RunError(f"{what}: not a Ray address (HOST:PORT or ray://HOST:PORT)")
        try:
            socket.create_connection((host, port), timeout=RAY_TIMEOUT).close()
        except TimeoutError:
            raise RunError(f"{what}: no Ray cluster answered within {RAY_TIMEOUT:g} "
                           f"s") from None
        except OSError as e:
            raise RunError(f"{what}: cannot reach the Ray cluster "
                           f"({e.strerror or type(e).__name__})") from None
    probe = ("import logging, sys, ray; ray.init(address=sys.argv[1], log_to_driver=False, "
             "logging_level=logging.CRITICAL); ray.shutdown()")
    try:
        r = subprocess.run([sys.executable, "-c", probe, address], capture_output=True,
                           text=True, timeout=max(deadline - time.monotonic(), 1.0),
                           stdin=subprocess.DEVNULL)
    except subprocess.TimeoutExpired:
        raise RunError(f"{what}: no Ray cluster answered within {RAY_TIMEOUT:g} "
                       f"s") from None
    if r.returncode != 0:
        last = [x for x in r.stderr.splitlines() if x.strip()]
        raise RunError(f"{what}: cannot connect to the Ray cluster"
                       + (f" ({last[-1].strip()})" if last else "")) from None


def run_tasks(tasks, jobs: int, local: bool = True, model=None,
              progress: bool = False) -> list:
    """The chains' outputs, in task order, inside a :func:`backend`. On this machine
    (`local`) with one job or one chain they run here, one after the other (the first
    on `model`, built by the caller, when given), else in at most `jobs` processes;
    on a cluster, on every worker it has. `progress`: several chains on this machine
    show one bar (or line) for all, which they post to (slpy.mcmc.progress.Board)."""
    with contextlib.ExitStack() as stack:
        smc = tasks[0].config.get("method") == "smc"    # islands post no progress
        if progress and local and len(tasks) > 1 and not smc:
            from .progress import Board
            try:
                board = stack.enter_context(Board(len(tasks),
                                                  tasks[0].config["iterations"]))
                tasks = [dataclasses.replace(t, board=board.path) for t in tasks]
            except OSError:       # no room for its file (a full disk): no bar, but a run
                pass
        if local and (jobs == 1 or len(tasks) == 1):
            outs = []
            for i, t in enumerate(tasks):
                outs.append(run_task(t, model if i == 0 else None))
                if outs[-1].interrupted and i + 1 < len(tasks):
                    raise KeyboardInterrupt     # Ctrl-C stops the run, not one chain
            return outs
        return map_tasks(tasks, min(jobs, len(tasks)) if local else -1)
