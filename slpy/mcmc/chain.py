"""One MCMC chain with its tempered companions: a pure sampling loop, and the
observers that count visits and write the trace.

:func:`sample_chain` only computes: after every sweep it hands a :class:`Sweep` to its
observers (:class:`VisitCounter`, :class:`TraceWriter`, a progress bar, or the
estimators' own), so the command line, the estimators and worker processes share it,
and files are written at the edge.

Randomness: each replica (tempered companion) has its own numpy Generator, and the
swaps one more, all derived from the run's seed and the chain's index. Replica 0 uses
the chain's generator itself, so an untempered chain is what it always was. A run is
therefore reproducible whatever the number of processes. Interrupting (Ctrl-C) keeps
what was written; `resume` recomputes the chain up to the last written iteration with
the same seed (no rows are written again) and continues, so a resumed run equals an
uninterrupted one byte for byte.
"""
from __future__ import annotations

import csv
import math
import time
from dataclasses import dataclass, field

import numpy as np

from .kernel import build_kernel
from .tempering import LadderTuner, SwapStats, ladder, propose_swaps

def trace_columns(stats=("leaves", "depth")) -> list:
    """trace.csv's columns: the family's traced integers (Scorer.stats) after log_lik."""
    return ["iter", "model", "log_lik", *stats, "d", "accepted"]


@dataclass
class Visit:
    id: int
    count: int
    log_lik: float
    stats: tuple               # the family's traced integers
    term: object


@dataclass
class ChainResult:
    index: int
    iterations: int            # iterations completed
    kept: int
    accepted: int
    replay_failures: int
    swaps: dict                # "i-j" -> [proposed, accepted]
    visits: dict               # canonical model -> Visit
    best: tuple                # (log_lik, canonical, term)
    seconds: float
    interrupted: bool = False
    order: list = field(default_factory=list)   # canonical models by first visit
    heats: list = field(default_factory=lambda: [1.0])   # the ladder after burn-in
    moves: dict = field(default_factory=dict)   # move -> [proposed, accepted] (cold)
    round_trips: int = 0       # replicas that went from the hottest level to the cold one


@dataclass
class Sweep:
    """What observers see after each sweep."""
    it: int
    state: object              # the cold state (heat 1), after the swaps
    info: object               # the cold level's step (kernel Info)
    swaps: list                # [(i, j, accepted, probability)]
    kept: bool                 # past burn-in and on the thinning grid


def chain_rng(seed: int, index: int) -> np.random.Generator:
    return np.random.default_rng(_chain_seed(seed, index))


def _chain_seed(seed: int, index: int) -> np.random.SeedSequence:
    return np.random.SeedSequence(seed).spawn(index + 1)[index]


def replica_rngs(seed: int, index: int, k: int):
    """(generators of the k replicas, generator of the swaps)."""
    ss = _chain_seed(seed, index)
    kids = ss.spawn(k)
    return [np.random.default_rng(ss)] + [np.random.default_rng(c) for c in kids[1:]], \
        np.random.default_rng(kids[0])


def tempering_settings(cfg: dict) -> dict:
    """The tempering part of a run configuration, with its defaults: the paper's
    ladder unless a hottest heat is given (then geometric), neighbour swaps, and an
    adapted ladder when there is a burn-in and more than two chains."""
    k = int(cfg.get("temper", 1))
    min_heat = cfg.get("min_heat")
    adapt = cfg.get("adapt_ladder")
    if adapt is None:
        adapt = int(cfg.get("burn_in", 0)) > 0 and k > 2
    return dict(k=k, scheme=cfg.get("swap") or "neighbours",
                ladder=cfg.get("ladder") or ("paper" if min_heat is None else "geometric"),
                delta_t=float(cfg.get("delta_t", 0.2)),
                min_heat=None if min_heat is None else float(min_heat), adapt=bool(adapt))


def sample_chain(model, cfg: dict, index: int, observers=(), start_states=None) -> ChainResult:
    """Run chain `index` of cfg for cfg["iterations"] sweeps (or until an observer
    returns True: a budget), calling each observer with a :class:`Sweep`."""
    t = tempering_settings(cfg)
    k = t["k"]
    heats = ladder(k, t["ladder"], t["delta_t"], t["min_heat"])
    rngs, swap_rng = replica_rngs(cfg["seed"], index, k)
    kernel = build_kernel(model, cfg["proposal"])
    states = list(start_states) if start_states is not None else \
        [_initial_state(model, cfg, rngs[r]) for r in range(k)]
    at = list(range(k))                 # at[level] = replica
    level = list(range(k))              # level[replica]
    n_iter, burn, thin = cfg["iterations"], cfg["burn_in"], cfg["thin"]
    tuner = LadderTuner(heats) if t["adapt"] and k > 2 and burn > 0 else None
    res = ChainResult(index, 0, 0, 0, 0, {}, {}, (-math.inf, None, None), 0.0)
    stats = SwapStats(k)
    t0 = time.perf_counter()
    try:
        for it in range(n_iter):
            info0 = None
            for r in range(k):
                states[r], info = kernel(rngs[r], states[r], it, heats[level[r]])
                if level[r] == 0:
                    info0 = info
            swaps, heats = exchange(swap_rng, it, [states[at[i]].log_lik for i in range(k)],
                                    heats, t["scheme"], at, level, stats,
                                    tuner if it < burn else None)
            tally(res, it, info0)
            sw = Sweep(it, states[at[0]], info0, swaps,
                       it >= burn and (it - burn) % thin == 0)
            stop = False
            for obs in observers:
                stop = obs(sw) or stop
            if stop:
                break
    except KeyboardInterrupt:
        res.interrupted = True
    res.seconds = time.perf_counter() - t0
    res.swaps = {key: [n, stats.accepted[key]] for key, n in sorted(stats.proposed.items())}
    res.heats = heats
    res.round_trips = stats.round_trips
    return res


def exchange(swap_rng, it, log_liks, heats, scheme, at, level, stats, tuner):
    """One round of swaps between levels: propose them (log_liks by level), move the
    replicas in `at` (replica at each level) and `level` (level of each replica), count
    them in `stats`, and let `tuner` (during burn-in; else None) re-space the heats.
    Returns (swaps, heats)."""
    swaps = propose_swaps(swap_rng, it, log_liks, heats, scheme)
    for i, j, ok, _ in swaps:
        stats.add(i, j, ok)
        if ok:
            at[i], at[j] = at[j], at[i]
            level[at[i]], level[at[j]] = i, j
    stats.travel(at)
    if tuner is not None:
        tuner.observe(swaps)
        new = tuner.update(it)
        if new is not None:
            heats = new
    return swaps, heats


def tally(res: ChainResult, it: int, info0) -> None:
    """Count iteration `it` of the cold chain (its move's Info) in `res`."""
    res.iterations = it + 1
    res.accepted += info0.accepted
    res.replay_failures += not info0.replayed
    m = res.moves.setdefault(info0.move, [0, 0])
    m[0] += 1
    m[1] += info0.accepted


class VisitCounter:
    """Counts the kept models (canonical form -> Visit, in order of first visit) and
    remembers the best log-likelihood of the cold chain. `key`: the family's canonical
    form of a term (a record from a worker carries its own)."""

    def __init__(self, key):
        self.key = key
        self.visits: dict = {}
        self.order: list = []
        self.kept = 0
        self.best = (-math.inf, None)

    def __call__(self, sw: Sweep):
        s = sw.state
        if s.log_lik > self.best[0]:
            self.best = (s.log_lik, s)
        if not sw.kept:
            return False
        self.kept += 1
        key = self._key(s)
        v = self.visits.get(key)
        if v is None:
            v = self.visits[key] = Visit(len(self.visits), 0, s.log_lik, s.stats, s.term)
            self.order.append(key)
        v.count += 1
        sw.visit = v
        return False

    def fill(self, res: ChainResult) -> ChainResult:
        res.visits, res.order, res.kept = self.visits, self.order, self.kept
        b = self.best[1]
        res.best = (self.best[0], None, None) if b is None else (self.best[0], self._key(b),
                                                                   b.term)
        return res

    def _key(self, state) -> str:
        key = getattr(state, "key", None)
        return self.key(state.term) if key is None else key


class TraceWriter:
    """Writes kept sweeps to trace.csv (after the first `skip` rows, on resume). Needs
    a VisitCounter before it in the observers (it names models by their visit id)."""

    def __init__(self, f, tempered: bool, skip: int = 0, stats=("leaves", "depth")):
        self.w = csv.writer(f, lineterminator="\n")
        self.tempered = tempered
        self.skip = skip
        self.rows = 0
        if not skip:
            self.w.writerow(trace_columns(stats) + (["swap"] if tempered else []))

    def __call__(self, sw: Sweep):
        if not sw.kept:
            return False
        self.rows += 1
        if self.rows > self.skip:
            s = sw.state
            row = [sw.it, sw.visit.id, repr(round(s.log_lik, 10)), *s.stats, s.d,
                   int(sw.info.accepted)]
            if self.tempered:
                row.append(";".join(f"{i}-{j}:{int(ok)}" for i, j, ok, _ in sw.swaps))
            self.w.writerow(row)
        return False


def run_chain(model, cfg: dict, index: int, out_dir, resume_rows: int = 0,
              progress=None, workers: int = 1, train=None) -> ChainResult:
    """Run chain `index` for cfg["iterations"] iterations; trace rows go to
    out_dir/trace.csv (appending after `resume_rows` existing rows). With `workers`
    > 1 (and tempering) the replicas run in that many processes, which build their
    own model from cfg and the training data `train`; the visits then hold no terms."""
    from pathlib import Path
    out_dir = Path(out_dir)
    out_dir.mkdir(parents=True, exist_ok=True)
    trace_path = out_dir / "trace.csv"
    if resume_rows:
        _truncate_rows(trace_path, resume_rows)
    visits = VisitCounter(model.scorer.key)
    with open(trace_path, "a" if resume_rows else "w", newline="") as f:
        observers = [visits, TraceWriter(f, int(cfg.get("temper", 1)) > 1, resume_rows,
                                         model.scorer.stats)]
        if progress is not None:
            observers.append(progress)
        if workers > 1 and int(cfg.get("temper", 1)) > 1:
            from .parallel import sample_chain_parallel
            res = sample_chain_parallel(cfg, train, index, workers, observers)
        else:
            res = sample_chain(model, cfg, index, observers)
    return visits.fill(res)


def _initial_state(model, cfg, rng):
    init = cfg.get("init") or "prior"
    if init == "prior":
        return model.sample_prior(rng)
    return model.state_from_term(cfg["init_term"], rng)


def _truncate_rows(path, rows: int) -> None:
    """Keep the header and the first `rows` data rows (a crash may have cut a row)."""
    lines = path.read_text().splitlines(keepends=True)
    keep = lines[:rows + 1]
    if keep and not keep[-1].endswith("\n"):
        keep = keep[:-1]
    path.write_text("".join(keep))


class TraceError(ValueError):
    """A trace that cannot be resumed from: the message is one line for the user."""


def check_trace(path, cfg: dict, stats=("leaves", "depth")) -> int:
    """The complete data rows of a chain's trace, each checked against the run's
    settings (columns, the kept iterations' numbers, model ids in order of first visit,
    numbers where numbers belong); a row that is not one is a TraceError. A cut last
    row (no newline: the run was killed while writing it) is not counted."""
    try:
        text = path.read_text()
    except FileNotFoundError:
        return 0
    except (OSError, UnicodeDecodeError) as e:
        raise TraceError(f"{path}: cannot read the trace ({e})") from None
    lines = text.split("\n")[:-1]          # the last piece is empty or a cut row
    if not lines:
        return 0
    header = trace_columns(stats) + (["swap"] if cfg["temper"] > 1 else [])
    if lines[0].split(",") != header:
        raise TraceError(f"{path}, line 1: not the header of this run's trace")
    burn, thin, n_iter = cfg["burn_in"], cfg["thin"], cfg["iterations"]
    models = 0
    for k, line in enumerate(lines[1:]):
        row = line.split(",")
        why = _bad_row(row, header, burn + k * thin, models, len(stats))
        if why is None and burn + k * thin >= n_iter:
            why = f"more rows than the run's {n_iter} iterations keep"
        if why is not None:
            raise TraceError(f"{path}, line {k + 2}: {why}: {line[:40]!r}")
        models = max(models, int(row[1]) + 1)
    return len(lines) - 1


def _bad_row(row, header, it, models, n_stats):
    """Why a trace row is not the row of iteration `it`, or None (`n_stats` traced
    integers between log_lik and d)."""
    if len(row) != len(header):
        return f"{len(row)} fields, not {len(header)}"
    end = 5 + n_stats                    # iter, model, log_lik, stats..., d, accepted
    try:
        ints = [int(row[i]) for i in (0, 1, *range(3, end))]
        float(row[2])
    except ValueError:
        return "not a trace row"
    if ints[0] != it:
        return f"iteration {ints[0]} where {it} was due"
    if not 0 <= ints[1] <= models:
        return f"model id {ints[1]} out of order"
    if min(ints[2:-1], default=0) < 0 or ints[-1] not in (0, 1):
        return "not a trace row"
    for swap in (row[end].split(";") if len(row) > end and row[end] else ()):
        pair, _, acc = swap.partition(":")
        i, _, j = pair.partition("-")
        if not (i.isdigit() and j.isdigit() and acc in ("0", "1")):
            return "not a swap"
    return None
