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
from .paths import resolve_path
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
    (slpy.mcmc.dispatch); the results do not depend on them.

    With `until_converged`, a run that has not converged (slpy.mcmc.convergence) runs
    again with twice the iterations a chain, within `max_iterations` and
    `max_seconds`; the burn-in stays the first round's, and each round recomputes the
    chains from the start with the same seeds (what was written is kept), so a run
    that stops at N iterations equals a plain run of N iterations with that burn-in."""
    warn = warn or (lambda line: print(line, file=sys.stderr))
    t0 = time.perf_counter()
    cfg, summary = _run_once(cfg, out, resume, quiet, force, limits, warn, backend,
                             scheduler)
    if not cfg.until_converged:
        return summary
    rounds = [cfg.iterations]
    while True:
        n = 2 * cfg.iterations
        if cfg.max_iterations is not None:
            n = min(n, cfg.max_iterations)
        stop = None
        if summary.get("converged") or summary.get("interrupted"):
            break
        if n <= cfg.iterations:
            stop = f"the budget of --max-iterations {cfg.max_iterations}"
        elif cfg.max_seconds is not None and (time.perf_counter() - t0 + summary["seconds"]
                                              * n / cfg.iterations > cfg.max_seconds):
            stop = f"the budget of --max-time {cfg.max_seconds:g} s"
        if stop:
            _note_stop(out, summary, rounds, f"stopped by {stop}: not converged after "
                                             f"{cfg.iterations} iterations a chain")
            return summary
        if not quiet:
            warn(f"not converged after {cfg.iterations} iterations a chain: running "
                 f"again to {n} (the first {cfg.iterations} are not redone on disk)")
        cfg, summary = _run_once({"jobs": cfg.jobs, "iterations": n}, out, True, quiet,
                                 False, limits, warn, backend, scheduler)
        rounds.append(n)
    _note_stop(out, summary, rounds, None)
    return summary


def _note_stop(out, summary, rounds, why):
    """An --until-converged run's rounds (and why it stopped short) in its summary."""
    rd = RunDir(out, create=False)
    summary["rounds"] = rounds
    lines = rd.read_summary_text().rstrip("\n").split("\n")
    at = next((i + 1 for i, line in enumerate(lines) if line.startswith("convergence:")),
              len(lines))
    new = [f"until converged: {len(rounds)} round(s) of "
           + ", ".join(str(n) for n in rounds) + " iterations a chain"]
    if why:
        summary["stopped_by_budget"] = True
        new.append(why)
    text = "\n".join(lines[:at] + new + lines[at:])
    rd.write_summary({k: v for k, v in summary.items() if k not in TIMING}, text)


def _run_once(cfg, out, resume, quiet, force, limits, warn, backend, scheduler):
    """One run (or resumed run) of the chains: (its settings, its summary)."""
    from .._version import __version__
    rd = RunDir(out, create=False)    # created once the checks below have passed
    if resume:
        cfg = prepare.resume_config(rd, {k: v for k, v in dict(cfg).items()
                                         if k in ("jobs", "iterations")})
        auto_jobs = cfg.jobs is None
        cfg = cfg.resolved()
    else:
        auto_jobs = dict(cfg).get("jobs") is None
        cfg = RunConfig.from_dict(cfg).resolved()
        rd.check_new(force)
    cfg.check()
    if cfg.method == "smc":
        if resume:
            raise RunError("an SMC run cannot be resumed: run it again")
        if cfg.until_converged:
            raise RunError("--until-converged is for --method mcmc (an SMC run is as long "
                           "as its heats)")
        cfg = cfg.replace(temper=1)       # an island's particles are its replicas
    if not cfg.family:
        cfg = cfg.replace(family=declared_family(cfg.prior, limits) or "tree")
    family = family_of(cfg)
    if auto_jobs and type(family).__module__ == "__main__":
        cfg = cfg.replace(jobs=1)   # a family defined in the user's script: not in workers
    cfg = cfg.replace(query=cfg.query or family.query)
    warm_up(cfg.proposal)             # while the data and the program load
    train, test = family.load_data(cfg)
    dropped = _dropped_rows(cfg, family.dropped_rows(cfg, train, test), warn)
    from ..cliopts import data_notes
    for line in data_notes(cfg, train, test):     # columns no model can learn from, ...
        warn(line)
    if resume:
        prepare.check_data_hash(rd, family.data_hash(train))
        resume_rows = prepare.trace_rows(rd, cfg)
    # the prior is read and checked once, here, before any chain: its text travels
    prior_text = read_prior(cfg.prior)
    model = build_model(cfg, train, limits, prior_text)
    cfg, path_note = resolve_path(model, cfg)     # compiled or engine, and why
    ran = cfg.path == "engine" and getattr(model, "engine_ran", False)   # the check's
    if cfg.path == "engine":
        cfg = cfg.replace(proposal=resolve_proposal(model, cfg.proposal))   # what ran
    init_text = prepare.init_text(cfg)
    if prepare.init_term(cfg, model, train, init_text) is not None or ran:
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
        # --jobs left to the machine stays null: the same run on any machine, same bytes
        rd.write_config(dict(cfg.to_dict(), jobs=None if auto_jobs else cfg.jobs,
                             format=FORMAT, slpy_version=__version__,
                             data_hash=family.data_hash(train),
                             python=platform.python_version()))
        tasks = [ChainTask(cfg, i, prior_text, train, test, init_text, limits,
                           trace_dir=str(rd.path) if local else None,
                           keep_rows=resume_rows[i], workers=workers,
                           quiet=quiet or cfg.chains > 1)
                 for i in range(cfg.chains)]
        t0 = time.perf_counter()
        outs = dispatch.run_tasks(tasks, cfg.jobs, local, model, progress=not quiet)
        seconds = time.perf_counter() - t0
    tempered = cfg.tempering().k > 1
    for task, o in zip(tasks, outs):
        if task.trace_dir is None or o.evidence is not None:   # run elsewhere, or an
            rd.write_trace(o.index, o.trace, family.stats, tempered)   # SMC island
    summary, text = summarise(cfg, outs, seconds, dropped, getattr(test, "y", None))
    summary["path"] = cfg.path
    head = text.split("\n")
    text = "\n".join(head[:2] + [f"path: {path_note}"] + head[2:])
    if cfg.method == "smc":
        from .evidence import evidence_summary
        entry, lines = evidence_summary(outs)
        summary.update(entry)
        head = text.split("\n")
        head[1] = (f"SMC: {cfg.chains} island(s) of {cfg.particles:,} particles, "
                   f"{summary['iterations']:,} MCMC steps in all")
        text = "\n".join(head[:2] + lines + head[2:])
    _write_outputs(rd, cfg, outs, summary, text, train, test)
    return cfg, summary


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
    if rows and any(o.drawn for o in outs):
        # the run's most visited model (models.csv's rank 1): a chain's drawing of it,
        # else drawn again from its key (no chain had it among its own top models)
        key = rows[0]["model"]
        top = next((o.drawn[key] for o in outs if key in o.drawn), None)
        if top is None:
            top = family.describe(build_model(cfg, train).scorer, train, key)
        rd.write_model(family.folder, "top", top)
    best = max(outs, key=lambda o: o.best_log_lik)
    if best.best_drawn is not None:
        rd.write_model(family.folder, "best", best.best_drawn)
