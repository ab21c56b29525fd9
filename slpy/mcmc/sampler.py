"""One chain of a run, on a model in this process: its generators, its kernel (plain
or tempered), its start, and the loop with the observers every chain has.

:func:`run_chain` is what ``slpy run``, the estimators and cluster workers run
(through slpy.mcmc.worker, which also builds the model from a task and writes or
returns the trace); it returns a :class:`slpy.mcmc.output.ChainOutput`.

Interrupting (Ctrl-C) keeps what was done; a resumed run recomputes the chain from
the start with the same seed (its writer skips the rows already written) and goes on,
so it equals an uninterrupted one byte for byte.
"""
from __future__ import annotations

import contextlib

from .chain import sample_chain
from .config import RunConfig
from .kernel import build_kernel
from .model import initial_state
from .moves import DEFAULT_PROPOSAL
from .paths import fast_path, resolve_path
from .observers import SwapCounter, Tally, TraceRecorder, VisitCounter
from .output import ChainOutput
from .seeds import ReplicaRngs, chain_rng, replica_rngs
from .tempered import build_tempered_kernel, local_replicas, tempered_start

__all__ = ["run_chain", "chain_kernel"]


def _unresolved(cfg) -> bool:
    """Is the path, or a compiled path's default mixture, still to be chosen? (slpy run
    chooses them once, before its chains; a chain of the Python API here.)"""
    path = cfg.get("path", "engine")
    return path == "auto" or path != "engine" and cfg.get("proposal") == DEFAULT_PROPOSAL


def chain_kernel(model, cfg: RunConfig, index: int, init_term=None, replicas=None):
    """(rng, kernel, first state) of chain `index`: the plain kernel of cfg's proposal,
    or with cfg.temper > 1 the tempered kernel around it. `replicas`: a
    slpy.mcmc.parallel.ProcessReplicas that holds the replicas in other processes.
    On a compiled path (cfg.path, slpy.mcmc.paths) its kernel and states instead."""
    if _unresolved(cfg):
        cfg = resolve_path(model, cfg)[0]
    path = fast_path(cfg, model)
    if path is None:
        base = build_kernel(model, cfg.proposal)

        def start(rng):
            return initial_state(model, init_term, rng)
    else:
        base = path.kernel(model, cfg)

        def start(rng):
            return path.start(model, cfg, rng, init_term)
    t = cfg.tempering()
    if t.k == 1:
        rng = chain_rng(cfg.seed, index)
        batches = path and path.ladder and path.ladder(model, cfg, None, t.scheme, 0)
        if batches:     # a ladder of one: the same draws, its iterations in batches
            return ReplicaRngs((rng,), rng), batches, tempered_start([start(rng)], [1.0])
        return rng, base, start(rng)
    rngs = replica_rngs(cfg.seed, index, t.k)
    if replicas is None:
        step = local_replicas(base)
        first = [start(r) for r in rngs.replicas]
    else:
        step = replicas.step
        first = replicas.start()
    adapt = t.adapt and t.k > 2 and cfg.burn_in > 0
    kernel = build_tempered_kernel(step, t.scheme, cfg.burn_in if adapt else 0)
    if path is not None and path.ladder is not None and replicas is None:
        kernel = path.ladder(model, cfg, kernel, t.scheme, cfg.burn_in if adapt else 0)
    return rngs, kernel, tempered_start(first, t.heats(), adapt)


def run_chain(model, cfg: RunConfig, index: int, observers=(), *, init_term=None,
              task=None, workers: int = 1) -> ChainOutput:
    """Run chain `index` of cfg (a RunConfig, or a dict of its settings) on `model` for
    cfg.iterations iterations (or until an observer returns True: a budget), with the
    visit counter, trace recorder and tallies first, then `observers`. With `workers` >
    1 and tempering, the replicas run in that many processes, built from `task`
    (slpy.mcmc.worker.ChainTask); the visits then hold no terms."""
    if not isinstance(cfg, RunConfig):
        cfg = RunConfig.from_dict(cfg)
    cfg = cfg.resolved()
    if _unresolved(cfg):
        cfg = resolve_path(model, cfg)[0]
    k = cfg.tempering().k
    visits = VisitCounter(model.scorer.key)
    trace = TraceRecorder(model.scorer.stats)
    tally, swaps = Tally(), SwapCounter(k)
    with contextlib.ExitStack() as stack:
        replicas = None
        if workers > 1 and k > 1 and fast_path(cfg, model) is None:
            from .parallel import ProcessReplicas
            replicas = stack.enter_context(ProcessReplicas(task, k, workers))
        rng, kernel, state = chain_kernel(model, cfg, index, init_term, replicas)
        end = sample_chain(rng, kernel, state, cfg.iterations, burn_in=cfg.burn_in,
                           thin=cfg.thin,
                           observers=[tally, swaps, visits, trace, *observers])
    best_lik, best_key, best_term = visits.best_model()
    return ChainOutput(index, end.iterations, trace.trace(), visits.visits, tally.accepted,
                       tally.replay_failures, tally.moves, swaps.counts(),
                       list(getattr(end.state, "heats", [1.0])), swaps.round_trips,
                       best_lik, best_key, best_term, end.seconds, end.interrupted)
