"""One MCMC chain (with its tempered companions), written to a run directory as it goes.

The chain's randomness comes from one numpy Generator seeded from the run's seed and
the chain's index, so a run is reproducible whatever the number of parallel jobs.
Interrupting (Ctrl-C) keeps what was written; `resume` recomputes the chain up to the
last written iteration with the same seed (no rows are written again) and continues,
so a resumed run equals an uninterrupted one byte for byte.
"""
from __future__ import annotations

import csv
import math
import time
from dataclasses import dataclass, field

import numpy as np

from ..trees.model import canonical
from .kernel import build_kernel, make_proposal, heats, swap_step

TRACE_COLUMNS = ["iter", "model", "log_lik", "leaves", "depth", "d", "accepted"]


@dataclass
class Visit:
    id: int
    count: int
    log_lik: float
    leaves: int
    depth: int
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


def chain_rng(seed: int, index: int) -> np.random.Generator:
    return np.random.default_rng(np.random.SeedSequence(seed).spawn(index + 1)[index])


def run_chain(model, cfg: dict, index: int, out_dir, resume_rows: int = 0,
              progress=None) -> ChainResult:
    """Run chain `index` for cfg["iterations"] iterations; trace rows go to
    out_dir/trace.csv (appending after `resume_rows` existing rows)."""
    from pathlib import Path
    out_dir = Path(out_dir)
    out_dir.mkdir(parents=True, exist_ok=True)
    rng = chain_rng(cfg["seed"], index)
    proposal = make_proposal(cfg["proposal"])
    hs = heats(cfg["temper"], cfg["delta_t"]) if cfg["temper"] > 1 else [1.0]
    kernels = [build_kernel(model, proposal, h) for h in hs]
    states = [_initial_state(model, cfg, rng) for _ in hs]
    n_iter, burn, thin = cfg["iterations"], cfg["burn_in"], cfg["thin"]
    trace_path = out_dir / "trace.csv"
    if resume_rows:
        _truncate_rows(trace_path, resume_rows)
        f = open(trace_path, "a", newline="")
    else:
        f = open(trace_path, "w", newline="")
    w = csv.writer(f, lineterminator="\n")
    swap_cols = [f"{i}-{j}" for i in range(len(hs)) for j in range(i + 1, len(hs))]
    if not resume_rows:
        w.writerow(TRACE_COLUMNS + (["swap"] if len(hs) > 1 else []))
    res = ChainResult(index, 0, 0, 0, 0, {c: [0, 0] for c in swap_cols}, {},
                      (-math.inf, None, None), 0.0)
    rows = 0
    t0 = time.perf_counter()
    try:
        for it in range(n_iter):
            accepted = False
            for j, kern in enumerate(kernels):
                states[j], info = kern(rng, states[j], it)
                if j == 0:
                    accepted = info.accepted
                    res.replay_failures += not info.replayed
            states, sw = swap_step(rng, states, hs)
            if sw is not None:
                key = f"{sw[0]}-{sw[1]}"
                res.swaps[key][0] += 1
                res.swaps[key][1] += sw[2]
            res.accepted += accepted
            res.iterations = it + 1
            s = states[0]
            if s.log_lik > res.best[0]:
                res.best = (s.log_lik, None, s.term)
            if it >= burn and (it - burn) % thin == 0:
                res.kept += 1
                key = canonical(s.term)
                v = res.visits.get(key)
                if v is None:
                    v = res.visits[key] = Visit(len(res.visits), 0, s.log_lik, s.leaves,
                                                s.depth, s.term)
                    res.order.append(key)
                v.count += 1
                rows += 1
                if rows > resume_rows:
                    row = [it, v.id, repr(round(s.log_lik, 10)), s.leaves, s.depth, s.d,
                           int(accepted)]
                    if len(hs) > 1:
                        row.append(f"{sw[0]}-{sw[1]}:{int(sw[2])}" if sw else "")
                    w.writerow(row)
            if progress is not None:
                progress(it + 1, states[0], res)
    except KeyboardInterrupt:
        res.interrupted = True
    finally:
        f.close()
        res.seconds = time.perf_counter() - t0
    res.best = (res.best[0], canonical(res.best[2]) if res.best[2] is not None else None,
                res.best[2])
    return res


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


def check_trace(path, cfg: dict) -> int:
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
    header = TRACE_COLUMNS + (["swap"] if cfg["temper"] > 1 else [])
    if lines[0].split(",") != header:
        raise TraceError(f"{path}, line 1: not the header of this run's trace")
    burn, thin, n_iter = cfg["burn_in"], cfg["thin"], cfg["iterations"]
    models = 0
    for k, line in enumerate(lines[1:]):
        row = line.split(",")
        why = _bad_row(row, header, burn + k * thin, models)
        if why is None and burn + k * thin >= n_iter:
            why = f"more rows than the run's {n_iter} iterations keep"
        if why is not None:
            raise TraceError(f"{path}, line {k + 2}: {why}: {line[:40]!r}")
        models = max(models, int(row[1]) + 1)
    return len(lines) - 1


def _bad_row(row, header, it, models):
    """Why a trace row is not the row of iteration `it`, or None."""
    if len(row) != len(header):
        return f"{len(row)} fields, not {len(header)}"
    try:
        ints = [int(row[i]) for i in (0, 1, 3, 4, 5, 6)]
        float(row[2])
    except ValueError:
        return "not a trace row"
    if ints[0] != it:
        return f"iteration {ints[0]} where {it} was due"
    if not 0 <= ints[1] <= models:
        return f"model id {ints[1]} out of order"
    if min(ints[2:5]) < 0 or ints[5] not in (0, 1):
        return "not a trace row"
    if len(row) > 7 and row[7]:
        pair, _, acc = row[7].partition(":")
        i, _, j = pair.partition("-")
        if not (i.isdigit() and j.isdigit() and acc in ("0", "1")):
            return "not a swap"
    return None
