"""Where the chains of a run go: this process, or workers of a joblib backend.

``loky`` (the default) runs chains in processes on this machine; ``dask`` on a
dask.distributed cluster (``slpy run --scheduler ADDRESS``, else a local one with
``--jobs`` worker processes); ``ray`` on a Ray cluster (its address, else a local
one). Each chain is a slpy.mcmc.worker.ChainTask, which carries its data and the
prior's text, and comes back a ChainOutput: a chain on a cluster reads and writes no
file, and the results do not depend on the backend or the number of jobs.
The estimators call :func:`map_tasks` under the caller's ``joblib.parallel_config``.
"""
from __future__ import annotations

import contextlib
import logging

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
    from joblib import parallel_config
    if name == "loky":
        if scheduler is not None:
            raise RunError("--scheduler is for --backend dask or ray")
        with parallel_config(backend="loky"):
            yield
        return
    if name == "dask":
        with _dask_client(scheduler, jobs), parallel_config(backend="dask"):
            yield
        return
    if name == "ray":
        with _ray(scheduler), parallel_config(backend="ray"):
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
        except OSError as e:
            raise RunError(f"--scheduler {scheduler}: cannot reach the dask scheduler "
                           f"({e})") from None
        with client:
            yield
        return
    with LocalCluster(n_workers=jobs, threads_per_worker=1, processes=True,
                      dashboard_address=None, silence_logs=logging.ERROR) as cluster, \
            Client(cluster):
        yield


@contextlib.contextmanager
def _ray(address):
    try:
        import ray
        from ray.util.joblib import register_ray
    except ImportError as e:
        raise _missing("ray", e) from None
    started = not ray.is_initialized()
    if started:
        ray.init(address=address, include_dashboard=False, log_to_driver=False)
    register_ray()
    try:
        yield
    finally:
        if started:
            ray.shutdown()


def run_tasks(tasks, jobs: int, local: bool = True, model=None) -> list:
    """The chains' outputs, in task order, inside a :func:`backend`. On this machine
    (`local`) with one job or one chain they run here, one after the other (the first
    on `model`, built by the caller, when given), else in at most `jobs` processes;
    on a cluster, on every worker it has."""
    if local and (jobs == 1 or len(tasks) == 1):
        return [run_task(t, model if i == 0 else None) for i, t in enumerate(tasks)]
    return map_tasks(tasks, min(jobs, len(tasks)) if local else -1)
