"""The tempered replicas of one chain in several processes.

Each worker process builds the model from the run's configuration and data, and owns
some replicas: their states and their random generators (slpy.mcmc.chain's
``replica_rngs``). After every sweep it sends the replicas' log-likelihoods; this
process decides the swaps with the swap generator and sends back each replica's new
heat. A state never crosses processes: swapping two levels' states is swapping the
two replicas' heats. The worker that holds the cold replica sends its summary (the
model's key, log-likelihood, traced integers, d_T) with its next answer.
The arithmetic is that of :func:`slpy.mcmc.chain.sample_chain`, so the chain is the
same, byte for byte, whatever the number of processes.
"""
from __future__ import annotations

import math
import signal
import time
from dataclasses import dataclass

from .chain import (ChainResult, Sweep, exchange, replica_rngs, tally,
                    tempering_settings, _initial_state)
from .kernel import Info
from .tempering import LadderTuner, SwapStats, ladder

__all__ = ["sample_chain_parallel", "StateRecord", "WorkerError"]


class WorkerError(RuntimeError):
    """A worker process failed; the message is the worker's one-line error."""


@dataclass(frozen=True)
class StateRecord:
    """What the trace and the visit counter need of a state, sent between processes."""
    key: str
    log_lik: float
    stats: tuple
    d: int
    term: object = None


def _record(model, state):
    return StateRecord(model.scorer.key(state.term), state.log_lik, state.stats, state.d)


def _worker(conn, cfg, train, index, mine):
    """A worker's loop: messages ("step", it, {replica: heat}, replica to report)."""
    signal.signal(signal.SIGINT, signal.SIG_IGN)    # the coordinator handles Ctrl-C
    try:
        from .kernel import build_kernel
        from .run import build_model, _init_term
        model = build_model(cfg, train)
        cfg = dict(cfg, init_term=_init_term(cfg, model, train))
        k = int(cfg["temper"])
        rngs, _ = replica_rngs(cfg["seed"], index, k)
        kernel = build_kernel(model, cfg["proposal"])
        states = {r: _initial_state(model, cfg, rngs[r]) for r in mine}
        conn.send(("ready", {r: s.log_lik for r, s in states.items()}))
        while True:
            msg = conn.recv()
            if msg[0] == "stop":
                return
            _, it, heats, report = msg
            rec = _record(model, states[report]) if report in states else None
            out = {}
            if it is not None:
                for r in mine:
                    states[r], info = kernel(rngs[r], states[r], it, heats[r])
                    out[r] = (states[r].log_lik, info)
            conn.send(("ok", out, rec))
    except Exception as e:      # noqa: BLE001 - sent as text: any error must cross
        conn.send(("error", f"{type(e).__name__}: {e}".splitlines()[0]))
    finally:
        conn.close()


def sample_chain_parallel(cfg: dict, train, index: int, n_workers: int,
                          observers=()) -> ChainResult:
    """:func:`slpy.mcmc.chain.sample_chain` with the replicas in `n_workers`
    processes. Observers see :class:`StateRecord` states (no terms)."""
    import multiprocessing as mp
    t = tempering_settings(cfg)
    k = t["k"]
    n_workers = max(1, min(n_workers, k))
    heats = ladder(k, t["ladder"], t["delta_t"], t["min_heat"])
    _, swap_rng = replica_rngs(cfg["seed"], index, k)
    owned = [list(range(w, k, n_workers)) for w in range(n_workers)]
    ctx = mp.get_context("spawn")
    conns, procs = [], []
    for w in range(n_workers):
        a, b = ctx.Pipe()
        p = ctx.Process(target=_worker, args=(b, cfg, train, index, owned[w]), daemon=True)
        p.start()
        b.close()
        conns.append(a)
        procs.append(p)
    at = list(range(k))
    level = list(range(k))
    ll = [0.0] * k
    n_iter, burn, thin = cfg["iterations"], cfg["burn_in"], cfg["thin"]
    tuner = LadderTuner(heats) if t["adapt"] and k > 2 and burn > 0 else None
    res = ChainResult(index, 0, 0, 0, 0, {}, {}, (-math.inf, None, None), 0.0)
    stats = SwapStats(k)
    t0 = time.perf_counter()

    def ask(it, report):
        for w, c in enumerate(conns):
            c.send(("step", it, {r: heats[level[r]] for r in owned[w]}, report))
        rec, out = None, {}
        for c in conns:
            msg = c.recv()
            if msg[0] == "error":
                raise WorkerError(msg[1])
            out.update(msg[1])
            rec = msg[2] if msg[2] is not None else rec
        return out, rec

    pending = None      # the last sweep, waiting for its cold state's record
    try:
        for c in conns:
            msg = c.recv()
            if msg[0] == "error":
                raise WorkerError(msg[1])
            for r, x in msg[1].items():
                ll[r] = x
        stop = False
        for it in range(n_iter):
            out, rec = ask(it, at[0])
            if pending is not None:
                stop = _deliver(pending, rec, observers)
            if stop:
                break
            info0 = None
            for r, (x, info) in out.items():
                ll[r] = x
                if level[r] == 0:
                    info0 = info
            swaps, heats = exchange(swap_rng, it, [ll[at[i]] for i in range(k)], heats,
                                    t["scheme"], at, level, stats,
                                    tuner if it < burn else None)
            tally(res, it, info0)
            pending = (it, info0, swaps, it >= burn and (it - burn) % thin == 0)
        if pending is not None and not stop:
            _, rec = ask(None, at[0])
            _deliver(pending, rec, observers)
    except KeyboardInterrupt:
        res.interrupted = True
    finally:
        for c in conns:
            try:
                c.send(("stop",))
            except (BrokenPipeError, OSError):
                pass
        for p in procs:
            p.join(timeout=5)
            if p.is_alive():
                p.terminate()
    res.seconds = time.perf_counter() - t0
    res.swaps = {key: [n, stats.accepted[key]] for key, n in sorted(stats.proposed.items())}
    res.heats = heats
    res.round_trips = stats.round_trips
    return res


def _deliver(pending, rec, observers) -> bool:
    it, info, swaps, kept = pending
    sw = Sweep(it, rec, info, swaps, kept)
    stop = False
    for obs in observers:
        stop = obs(sw) or stop
    return stop
