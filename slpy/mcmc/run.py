"""`slpy run`: check the settings and the inputs, run the chains (here, or on the
workers of a joblib backend: slpy.mcmc.dispatch), write the run directory
(slpy.runs)."""
from __future__ import annotations

import platform
import sys
import time

import numpy as np

from ..errors import RunError
from ..family import declared_family
from ..runs import FORMAT, RunDir
from .config import RunConfig, family_of
from .model import build_model, read_prior
from .moves import resolve_proposal, warm_up
from .output import merge_visits
from .summary import TIMING, summarise
from .worker import ChainTask
from . import dispatch, prepare

__all__ = ["run", "RunError"]


def run(cfg, out, resume: bool = False, quiet: bool = False, force: bool = False,
        limits: dict | None = None, warn=None, backend: str = "loky",
        scheduler: str | None = None) -> dict:
    """Run (or resume) the chains of `cfg` (a RunConfig or a dict of settings) into the
    run directory `out`. A directory that holds a run is refused unless `force`;
    `resume` refuses changed inputs and corrupt traces (slpy.mcmc.prepare); only
    `jobs` may be given with it. `limits`: Program() limits of the prior's queries
    (not settings: they change nothing unless reached). `warn(line)` gets the
    warnings (default: standard error). `backend`, `scheduler`: where the chains run
    (slpy.mcmc.dispatch); the results do not depend on them."""
    from .._version import __version__
    warn = warn or (lambda line: print(line, file=sys.stderr))
    rd = RunDir(out, create=False)    # created once the checks below have passed
    if resume:
        cfg = prepare.resume_config(rd, {k: v for k, v in dict(cfg).items() if k == "jobs"})
    else:
        cfg = RunConfig.from_dict(cfg).resolved()
        rd.check_new(force)
    cfg.check()
    if not cfg.family:
        cfg = cfg.replace(family=declared_family(cfg.prior) or "tree")
    family = family_of(cfg)
    cfg = cfg.replace(query=cfg.query or family.query)
    warm_up(cfg.proposal)             # while the data and the program load
    train, test = family.load_data(cfg)
    dropped = _dropped_rows(cfg, family.dropped_rows(cfg, train, test), warn)
    if resume:
        prepare.check_data_hash(rd, family.data_hash(train))
        resume_rows = prepare.trace_rows(rd, cfg)
    # the prior is read and checked once, here, before any chain: its text travels
    prior_text = read_prior(cfg.prior)
    model = build_model(cfg, train, limits, prior_text)
    cfg = cfg.replace(proposal=resolve_proposal(model, cfg.proposal))   # what ran
    init_text = prepare.init_text(cfg)
    if prepare.init_term(cfg, model, train, init_text) is not None:
        model = None                          # it has run: the chains build their own
    local = backend == "loky" and scheduler is None
    # processes beyond one a chain go to the tempered replicas of each chain
    workers = max(1, cfg.jobs // cfg.chains) if local and cfg.tempering().k > 1 else 1
    with dispatch.backend(backend, scheduler, cfg.jobs):   # a cluster that does not
        if not resume:                                     # answer leaves no run behind
            prepare.start(rd, cfg, force)
            resume_rows = [0] * cfg.chains
        elif rd.read_manifest() is None:      # a run from before the manifest has one now
            rd.write_manifest("run", prepare.inputs(cfg))
        rd.write_config(dict(cfg.to_dict(), format=FORMAT, slpy_version=__version__,
                             data_hash=family.data_hash(train),
                             python=platform.python_version()))
        tasks = [ChainTask(cfg, i, prior_text, train, test, init_text, limits,
                           trace_dir=str(rd.path) if local else None,
                           keep_rows=resume_rows[i], workers=workers,
                           quiet=quiet or cfg.chains > 1)
                 for i in range(cfg.chains)]
        t0 = time.perf_counter()
        outs = dispatch.run_tasks(tasks, cfg.jobs, local, model)
        seconds = time.perf_counter() - t0
    tempered = cfg.tempering().k > 1
    for task, o in zip(tasks, outs):
        if task.trace_dir is None:            # run elsewhere: its trace came back
            rd.write_trace(o.index, o.trace, family.stats, tempered)
    summary, text = summarise(cfg, outs, seconds, dropped, getattr(test, "y", None))
    _write_outputs(rd, cfg, outs, summary, text, train, test)
    return summary


def _dropped_rows(cfg, counts, warn) -> dict:
    """Rows left out for a missing value, by input (`counts`: role -> (dropped, kept);
    a warning line for each)."""
    from ..cliopts import dropped_warning
    for role, (n, rows) in counts.items():
        if n:
            warn(dropped_warning(cfg[role], n, rows + n))
    return {role: n for role, (n, _) in counts.items()}


def _write_outputs(rd, cfg, outs, summary, text, train, test):
    family = family_of(cfg)
    merged = merge_visits(outs, family.stats)
    kept = max(1, summary["kept"])
    rows = sorted(({"model": k, **m} for k, m in merged.items()),
                  key=lambda m: (-m["count"], m["model"]))
    for m in rows:
        m["prob"] = m["count"] / kept
    rd.write_models(rows, family.stats)
    rd.write_summary({k: v for k, v in summary.items() if k not in TIMING}, text)
    rd.write_timing({**{k: summary[k] for k in TIMING},
                     "chain_seconds": [round(o.seconds, 3) for o in outs]})
    preds = [o.predictions for o in outs if o.predictions is not None]
    if preds:
        classes = getattr(test if test is not None else train, "classes", None)
        rd.write_predictions(classes, np.mean(preds, axis=0), getattr(test, "y", None))
    for o in outs:
        rd.write_chain_models(o.index, o.visits)
        if o.index == 0 and o.drawn:
            # chain 0's most visited model over the run, among its own top models
            top = max(o.drawn, key=lambda key: merged[key]["count"])
            rd.write_model(family.folder, "top", o.drawn[top])
    best = max(outs, key=lambda o: o.best_log_lik)
    if best.best_drawn is not None:
        rd.write_model(family.folder, "best", best.best_drawn)
