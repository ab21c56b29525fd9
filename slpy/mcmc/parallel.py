"""The tempered replicas of one chain in several processes: a replica step for
slpy.mcmc.tempered.build_tempered_kernel.

Each worker process builds the model from the chain's task (the prior's text, the
data) and owns some replicas: their states and their random generators
(slpy.mcmc.seeds.replica_rngs). Each iteration it is sent the heats of its replicas,
moves them, and answers with each move's Info and, for a replica whose state changed,
a :class:`StateRecord` (what the swaps, the trace and the visit counter need of a
state: its key, log-likelihood, traced integers, d_T). A state never crosses
processes: swapping two levels' states is swapping the two replicas' heats, which
the tempered kernel does here from the records. The arithmetic is that of
:func:`slpy.mcmc.tempered.local_replicas`, so the chain is the same, byte for byte,
whatever the number of processes.
"""
from __future__ import annotations

import signal
from dataclasses import dataclass

from ..errors import portable
from .kernel import build_kernel
from .model import build_model, initial_state, initial_term
from .seeds import replica_rngs

__all__ = ["ProcessReplicas", "StateRecord"]


@dataclass(frozen=True)
class StateRecord:
    """What the chain needs of a replica's state, sent between processes."""
    key: str
    log_lik: float
    stats: tuple
    d: int
    term: object = None


def _record(model, state) -> StateRecord:
    return StateRecord(model.scorer.key(state.term), state.log_lik, state.stats, state.d)


def _worker(conn, task, k: int, mine: list) -> None:
    """A worker's loop: messages ("step", it, {replica: heat}) until ("stop",)."""
    signal.signal(signal.SIGINT, signal.SIG_IGN)    # the coordinator handles Ctrl-C
    try:
        cfg = task.config
        model = build_model(cfg, task.train, task.limits, task.prior_text)
        term = initial_term(cfg, model, task.train, task.init_text)
        rngs = replica_rngs(cfg["seed"], task.index, k).replicas
        kernel = build_kernel(model, cfg["proposal"])
        states = {r: initial_state(model, term, rngs[r]) for r in mine}
        conn.send(("ready", {r: _record(model, s) for r, s in states.items()}))
        while True:
            msg = conn.recv()
            if msg[0] == "stop":
                return
            _, it, heats = msg
            out = {}
            for r in mine:
                old = states[r]
                new, info = kernel(rngs[r], old, it, heats[r])
                states[r] = new
                out[r] = (info, None if new is old else _record(model, new))
            conn.send(("ok", out))
    except Exception as e:      # noqa: BLE001 - every error must reach the coordinator
        conn.send(("error", portable(e)))
    finally:
        conn.close()


class ProcessReplicas:
    """k replicas of chain `task.index` in `n_workers` processes (replica r in worker
    r mod n_workers). A context manager: leaving it stops the workers."""

    def __init__(self, task, k: int, n_workers: int):
        import multiprocessing as mp
        self.k = k
        n = max(1, min(n_workers, k))
        self.owned = [list(range(w, k, n)) for w in range(n)]
        ctx = mp.get_context("spawn")
        self.conns, self.procs = [], []
        for w in range(n):
            a, b = ctx.Pipe()
            p = ctx.Process(target=_worker, args=(b, task, k, self.owned[w]), daemon=True)
            p.start()
            b.close()
            self.conns.append(a)
            self.procs.append(p)

    def _receive(self, conn):
        msg = conn.recv()
        if msg[0] == "error":
            raise msg[1]
        return msg[1]

    def start(self) -> tuple:
        """The replicas' first states (records), by replica."""
        out = [None] * self.k
        for c in self.conns:
            for r, rec in self._receive(c).items():
                out[r] = rec
        return tuple(out)

    def step(self, rngs, replicas, heats, it):
        """The replica step (`rngs` are the workers' own, not used here)."""
        for w, c in enumerate(self.conns):
            c.send(("step", it, {r: heats[r] for r in self.owned[w]}))
        out, infos = list(replicas), [None] * self.k
        for c in self.conns:
            for r, (info, rec) in self._receive(c).items():
                infos[r] = info
                if rec is not None:
                    out[r] = rec
        return tuple(out), tuple(infos)

    def close(self) -> None:
        for c in self.conns:
            try:
                c.send(("stop",))
            except (BrokenPipeError, OSError):
                pass
        for p in self.procs:
            p.join(timeout=5)
            if p.is_alive():
                p.terminate()

    def __enter__(self):
        return self

    def __exit__(self, *exc):
        self.close()
