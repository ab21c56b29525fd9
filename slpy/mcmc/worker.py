"""A chain as a task that can run anywhere: in this process, a joblib worker, or a
dask or Ray worker on another machine (under ``--method smc``, an SMC island:
slpy.mcmc.evidence).

A :class:`ChainTask` carries everything the chain needs as data, no paths: the run's
settings, the prior's text, the training and test data, the text of an --init file.
:func:`run_task` builds the model from it, runs the chain (slpy.mcmc.sampler), draws
and predicts with the family, and returns a :class:`slpy.mcmc.output.ChainOutput`
holding no Prolog terms. The trace is in the output; it is also written as the chain
goes when the task names a run directory this process can write to (``trace_dir``:
``slpy run`` on this machine), so an interrupted run keeps it.
"""
from __future__ import annotations

import contextlib
from dataclasses import dataclass

from ..errors import portable
from ..runs import RunDir
from .config import RunConfig, family_of
from .model import build_model, initial_term
from .observers import TraceWriter
from .output import ChainOutput
from .progress import Progress
from .sampler import run_chain

__all__ = ["ChainTask", "run_task", "run_task_safely"]


@dataclass(frozen=True)
class ChainTask:
    """Chain `index` of a run, as data that crosses processes and machines."""
    config: RunConfig
    index: int
    prior_text: str            # the prior's source (config.prior names it in messages)
    train: object              # the training data (a family's, e.g. slpy.data.Dataset)
    test: object = None        # test rows to predict, or None
    init_text: str | None = None   # the --init file's text, when it names a file
    limits: dict | None = None     # Program() limits (slpy.limits.program_limits)
    trace_dir: str | None = None   # a run directory to write the trace to as it goes
    keep_rows: int = 0             # trace rows written already (a resumed run)
    all_models: bool = False       # draw every visited model, not only the top ones
    workers: int = 1               # processes for the tempered replicas
    quiet: bool = True             # no progress bar
    board: str | None = None       # a progress.Board's file to post progress to


def run_task(task: ChainTask, model=None) -> ChainOutput:
    """Run the task's chain here. `model`: the task's model built already (by the
    caller, who checked the prior with it), which must not have run."""
    cfg = task.config
    if model is None:
        model = build_model(cfg, task.train, task.limits, task.prior_text)
    family = family_of(cfg)
    if cfg.get("method") == "smc":
        from .evidence import run_island
        out = run_island(task, model)
    else:
        out = _run_chain(task, model)

    def draw(key, term):
        return family.describe(model.scorer, task.train, key, term)

    drawn = {key: draw(key, v.term) for key, v in out.models_by_count()[:cfg.top]}
    if task.all_models:
        drawn = {key: drawn.get(key) or draw(key, v.term) for key, v in out.visits.items()}
    if out.best_model is not None:
        out.best_drawn = draw(out.best_model, out.best_term)
    out.drawn = drawn
    out.predictions = family.predict(model.scorer, task.train, task.test, out.visits,
                                     out.kept, drawn)
    return out.forget_terms()



def _run_chain(task: ChainTask, model) -> ChainOutput:
    cfg = task.config
    init = initial_term(cfg, model, task.train, task.init_text)
    progress = Progress(cfg.iterations, f"chain {task.index}", show=not task.quiet,
                        board=task.board, index=task.index)
    with contextlib.ExitStack() as stack:
        stack.callback(progress.close)
        observers = [progress]
        if task.trace_dir is not None:
            trace = stack.enter_context(RunDir(task.trace_dir, create=False).open_trace(
                task.index, model.scorer.stats, cfg.tempering().k > 1, task.keep_rows))
            observers.insert(0, TraceWriter(trace.write, task.keep_rows))
        stack.enter_context(progress.deferred_interrupt())
        out = run_chain(model, cfg, task.index, observers, init_term=init, task=task,
                        workers=task.workers)
    return out


def run_task_safely(task: ChainTask) -> ChainOutput:
    """run_task for a worker process or machine: an error that would not survive the
    trip back becomes a WorkerError with its message (slpy.errors.portable)."""
    try:
        return run_task(task)
    except Exception as e:      # noqa: BLE001 - re-raised as it is when it can be
        sent = portable(e)
        if sent is e:
            raise
        raise sent from None
