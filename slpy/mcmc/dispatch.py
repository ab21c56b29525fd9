"""Where the chains of a run go: this process, or joblib's worker processes.

Each chain is a slpy.mcmc.worker.ChainTask, which carries its data and the prior's
text, and comes back a ChainOutput; the results do not depend on the number of jobs.
The estimators call :func:`map_tasks` under the caller's ``joblib.parallel_config``.
"""
from __future__ import annotations

from .worker import run_task

__all__ = ["map_tasks", "run_tasks"]


def map_tasks(tasks, n_jobs=None) -> list:
    """Run the tasks with joblib.Parallel (the backend of the caller's
    ``joblib.parallel_config``; n_jobs None: its n_jobs, else one at a time here)."""
    from joblib import Parallel, delayed
    return Parallel(n_jobs=n_jobs)(delayed(run_task)(t) for t in tasks)


def run_tasks(tasks, jobs: int, name: str = "loky", scheduler: str | None = None,
              model=None) -> list:
    """The chains' outputs, in task order. With one job or one chain they run here,
    one after the other (the first on `model`, built by the caller, when given); else
    in `jobs` processes."""
    if jobs == 1 or len(tasks) == 1:
        return [run_task(t, model if i == 0 else None) for i, t in enumerate(tasks)]
    return map_tasks(tasks, min(jobs, len(tasks)))
