"""`slpy run`: prepare data and prior, run the chains, write the run directory."""
from __future__ import annotations

import contextlib
import platform
import sys
import time
from pathlib import Path

import numpy as np

from ..errors import PicklableError
from ..family import FamilyError, declared_family, get as get_family
from ..runs import FORMAT, RunDir, accuracy_figures
from .chain import run_chain
from .moves import DEFAULT_PROPOSAL, warm_up

# tempering as the mixing benchmark (benchmarks/mixing.py) found best at equal CPU time
RECOMMENDED_TEMPERING = dict(temper=8, min_heat=0.05, swap="neighbours")
# burn_in None: a tenth of the iterations (where a tempering ladder adapts)
# query None: the family's (cart(T) for trees); family None: as the prior declares
DEFAULTS = dict(family=None, query=None, likelihood=None, params={}, iterations=10000,
                burn_in=None, thin=1, proposal=DEFAULT_PROPOSAL, delta_t=0.2, ladder=None,
                adapt_ladder=None, **RECOMMENDED_TEMPERING, chains=1, jobs=1, seed=0,
                init="prior", test=None, holdout=None, split_seed=0, target=None,
                missing="drop", bucket=None, bucket_method="uniform", alpha=1.0, top=5)


def default_burn_in(iterations: int) -> int:
    return int(iterations) // 10


class RunError(PicklableError):
    """A bad setting or input: the message is one line for the user."""


def family_of(cfg):
    """The model family of a run's settings (slpy.family)."""
    try:
        return get_family(cfg.get("family") or "tree")
    except FamilyError as e:
        raise RunError(f"--family: {e}") from None


def load_data(cfg):
    """(train, test) as the run sees them (its family reads them)."""
    return family_of(cfg).load_data(cfg)


def build_model(cfg, train, limits=None):
    """The posterior of cfg's prior on train; `limits`: Program() keyword arguments
    (slpy.limits.program_limits) for each query of the prior."""
    from ..logic.program import Program
    from .model import PosteriorModel
    family = family_of(cfg)
    p = Program(**(limits or {}))
    p.consult(cfg["prior"])
    for k, v in cfg.get("params", {}).items():
        if k not in p.params:
            declared = ", ".join(sorted(p.params)) or "none"
            raise RunError(f"-p {k}: {cfg['prior']} declares no parameter {k} "
                           f"(declared: {declared})")
        p.set_param(k, _param_term(p, v))
    scorer = family.bind(p, train, cfg)
    return PosteriorModel(p, cfg.get("query") or family.query, scorer)


def _param_term(p, v):
    if not isinstance(v, str):
        return v
    term, _ = p.parse_query(v)
    return term


def _init_term(cfg, model, train):
    init = cfg.get("init") or "prior"
    if init == "prior":
        return None
    named = family_of(cfg).initial_term(cfg, model.scorer, train)
    if named is not None:
        return named
    text = Path(init).read_text()
    term, _ = model.program.parse_query(text.strip().rstrip("."))
    return term


def chain_job(cfg: dict, index: int, out: str, resume_rows: int = 0, quiet: bool = True,
              limits: dict | None = None, workers: int = 1):
    """Run one chain in this process (its tempered replicas in `workers` processes) and
    summarise it (what crosses processes must not hold Prolog terms, whose row-set ids
    are this process's own)."""
    train, test = load_data(cfg)
    return chain_on_data(cfg, train, test, index, out, resume_rows, quiet,
                         model=build_model(cfg, train, limits), workers=workers)


def chain_on_data(cfg: dict, train, test, index: int, out: str, resume_rows: int = 0,
                  quiet: bool = True, all_models: bool = False, model=None, workers: int = 1):
    """chain_job on in-memory data (`test` may be None). The result holds the family's
    drawings (ModelFamily.describe) of the chain's top models ("models") and of its
    best ("best_model"); with `all_models`, of every visited model ("all_models"), as
    the scikit-learn estimators need for the posterior predictive. `model`: a fresh
    build_model(cfg, train) to use instead of building one (it must not have run).
    `workers` > 1: the tempered replicas run in that many processes."""
    if model is None:
        model = build_model(cfg, train)
    family = family_of(cfg)
    cfg = dict(cfg)
    cfg["init_term"] = _init_term(cfg, model, train)
    progress = Progress(cfg["iterations"], f"chain {index}", show=not quiet)
    with progress.deferred_interrupt():
        res = run_chain(model, cfg, index, Path(out) / f"chain_{index}", resume_rows,
                        progress, workers=workers, train=train)
    progress.close()

    def draw(key, term):
        return family.describe(model.scorer, train, key, term)

    top = sorted(res.visits.items(), key=lambda kv: (-kv[1].count, kv[1].id))[:cfg["top"]]
    models = {key: draw(key, v.term) for key, v in top}
    best = draw(res.best[1], res.best[2]) if res.best[1] is not None else None
    every = None
    if all_models:
        every = {key: models.get(key) or draw(key, v.term) for key, v in res.visits.items()}
    pred = family.predict(model.scorer, train, test, res.visits, res.kept, every or models)
    for v in res.visits.values():
        v.term = None
    res.best = (res.best[0], res.best[1], None)
    job = {"result": res, "models": models, "best_model": best, "pred": pred,
           "y_test": getattr(test, "y", None),
           "classes": getattr(test if test is not None else train, "classes", None)}
    if every is not None:
        job["all_models"] = every
    return job


class Progress:
    """Called after each iteration: a tqdm bar on a terminal, plain periodic lines
    otherwise, nothing when not shown; and the point where a deferred Ctrl-C stops the
    chain (see deferred_interrupt).

    The clock starts at the first iteration, so the time to compile the kernels and
    draw the start does not make the first estimate absurd (it once read 43 hours).
    """

    def __init__(self, total, label, show=True):
        self.total = total
        self.label = label
        self.show = show
        self.accepted = 0
        self.bar = None
        self.t0 = None
        self.last = None
        self.interrupted = False

    def __call__(self, sw):
        """An observer of slpy.mcmc.chain.sample_chain: sw is the iteration's Sweep."""
        if self.interrupted:
            raise KeyboardInterrupt   # the chain loop keeps what it has
        self.accepted += sw.info.accepted
        if not self.show:
            return
        done, state = sw.it + 1, sw.state
        now = time.perf_counter()
        if self.t0 is None:
            self.t0, self.last, self.first = now, now, done
            if sys.stderr.isatty() or _in_notebook():
                import warnings
                with warnings.catch_warnings():   # without ipywidgets: text, and a warning
                    warnings.simplefilter("ignore")
                    from tqdm.auto import tqdm    # a widget in Jupyter, text elsewhere
                self.bar = tqdm(total=self.total, initial=done, desc=self.label, unit="it",
                                mininterval=0.5, file=sys.stderr)
            return
        if self.bar is not None:
            if now - self.last > 0.5 or done == self.total:
                self.bar.update(done - self.bar.n)
                self.bar.set_postfix(loglik=f"{state.log_lik:.2f}",
                                     acc=f"{self.accepted / done:.2f}", refresh=False)
                self.last = now
        elif now - self.last > 10 or done == self.total:
            rate = (done - self.first) / max(now - self.t0, 1e-9)
            sys.stderr.write(f"{self.label}: {done}/{self.total} it, {rate:.0f} it/s, "
                             f"log-lik {state.log_lik:.2f}, acceptance "
                             f"{self.accepted / done:.3f}\n")
            self.last = now

    @contextlib.contextmanager
    def deferred_interrupt(self):
        """Ctrl-C stops the chain after the iteration under way, not inside it: a
        KeyboardInterrupt raised inside a compiled kernel comes out as a SystemError
        and would lose the run. A second Ctrl-C interrupts at once."""
        import signal
        import threading
        if threading.current_thread() is not threading.main_thread():
            yield
            return

        def handler(signum, frame):
            if self.interrupted:
                raise KeyboardInterrupt
            self.interrupted = True
        if signal.getsignal(signal.SIGINT) is signal.SIG_IGN:   # a background job
            yield
            return
        old = signal.signal(signal.SIGINT, handler)
        try:
            yield
        finally:
            signal.signal(signal.SIGINT, old)

    def close(self):
        if self.bar is not None:
            self.bar.close()


def _in_notebook() -> bool:
    """Running in a Jupyter kernel (whose standard error is not a terminal)."""
    shell = sys.modules.get("IPython")
    ip = shell.get_ipython() if shell is not None else None
    return ip is not None and type(ip).__name__ == "ZMQInteractiveShell"


def run(cfg: dict, out, resume: bool = False, quiet: bool = False, force: bool = False,
        limits: dict | None = None, warn=None) -> dict:
    """Run (or resume) the chains of cfg into the run directory `out`. A directory
    that holds a run is refused unless `force`; `--resume` refuses changed inputs and
    corrupt traces (slpy.mcmc.prepare). `limits`: Program() limits of the prior's
    queries (not settings: they change nothing unless reached). `warn(line)` gets the
    warnings (default: standard error)."""
    from .. import __version__
    from . import prepare
    warn = warn or (lambda line: print(line, file=sys.stderr))
    rd = RunDir(out, create=False)    # created once the checks below have passed
    if resume:
        cfg = {**prepare.resume_config(rd), **{k: v for k, v in cfg.items() if k == "jobs"}}
        if int(cfg.get("temper", 1)) > 1 and "swap" not in cfg:
            raise RunError(f"{out}: this tempered run was written by an slpy whose tempered "
                           f"chains shared one random generator; this version cannot "
                           f"resume it (start it again)")
    else:
        cfg = {**DEFAULTS, **cfg}
        if cfg["burn_in"] is None:
            cfg["burn_in"] = default_burn_in(cfg["iterations"])
        rd.check_new(force)
    _check(cfg)
    if not cfg.get("family"):
        cfg["family"] = declared_family(cfg["prior"]) or "tree"
    family = family_of(cfg)
    cfg["query"] = cfg.get("query") or family.query
    warm_up(cfg["proposal"])          # while the data and the program load
    train, test = load_data(cfg)
    dropped = _dropped_rows(cfg, family.dropped_rows(cfg, train, test), warn)
    if resume:
        prepare.check_data_hash(rd, family.data_hash(train))
        resume_rows = prepare.trace_rows(rd, cfg)
    model = build_model(cfg, train, limits)   # the prior's load errors, before any chain
    from .moves import resolve_proposal
    cfg["proposal"] = resolve_proposal(model, cfg["proposal"])   # what ran, in config.json
    if prepare.init_term(cfg, model, train) is not None:
        model = None                          # it has run: the chains build their own
    if not resume:
        prepare.start(rd, cfg, force)
        resume_rows = [0] * cfg["chains"]
    elif rd.read_manifest() is None:          # a run from before the manifest has one now
        rd.write_manifest("run", prepare.inputs(cfg))
    cfg_out = dict(cfg, format=FORMAT, slpy_version=__version__,
                   data_hash=family.data_hash(train), python=platform.python_version())
    rd.write_config(cfg_out)
    t0 = time.perf_counter()
    jobs, chains = cfg["jobs"], cfg["chains"]
    # processes beyond one a chain go to the tempered replicas of each chain
    workers = max(1, jobs // chains) if int(cfg["temper"]) > 1 else 1
    if jobs == 1 or chains == 1:
        outs = [chain_on_data(cfg, train, test, i, str(out), resume_rows[i],
                              quiet or chains > 1,
                              model=model if i == 0 and model is not None
                              else build_model(cfg, train, limits), workers=workers)
                for i in range(chains)]
    else:
        from joblib import Parallel, delayed
        outs = Parallel(n_jobs=min(jobs, chains))(
            delayed(chain_job)(cfg, i, str(out), resume_rows[i], limits=limits,
                               workers=workers)
            for i in range(chains))
    seconds = time.perf_counter() - t0
    summary, text = summarise(cfg, outs, seconds, rd.path, dropped)
    _write_outputs(rd, cfg, outs, summary, text)
    return summary


def _dropped_rows(cfg, counts, warn) -> dict:
    """Rows left out for a missing value, by input (`counts`: role -> (dropped, kept);
    a warning line for each)."""
    from ..cliopts import dropped_warning
    for role, (n, rows) in counts.items():
        if n:
            warn(dropped_warning(cfg[role], n, rows + n))
    return {role: n for role, (n, _) in counts.items()}


def _check(cfg):
    """The settings' values (the command line checks them first; this is for the
    Python API and for a config.json read back by --resume)."""
    import math
    import numbers
    for k, low in (("iterations", 1), ("chains", 1), ("jobs", 1), ("thin", 1), ("temper", 1),
                   ("burn_in", 0), ("seed", 0), ("split_seed", 0), ("top", 0)):
        v = cfg.get(k, low)
        if not isinstance(v, numbers.Integral) or isinstance(v, bool) or v < low:
            raise RunError(f"--{k.replace('_', '-')} must be an integer of at least {low}, "
                           f"not {v!r}")
    if cfg["burn_in"] >= cfg["iterations"]:
        raise RunError("--burn-in must be below --iterations")
    d = cfg["delta_t"]
    if not isinstance(d, numbers.Real) or not math.isfinite(d) or d <= 0:
        raise RunError(f"--delta-t must be a finite number above 0, not {d!r}")
    h = cfg.get("holdout")
    if h is not None and (not isinstance(h, numbers.Real) or not 0 < h < 1):
        raise RunError(f"--holdout must be a fraction between 0 and 1, not {h!r}")
    from .chain import tempering_settings
    from .moves import check_proposal
    from .tempering import ladder
    try:
        check_proposal(cfg["proposal"])
        t = tempering_settings(cfg)
        ladder(t["k"], t["ladder"], t["delta_t"], t["min_heat"])
    except ValueError as e:
        raise RunError(str(e)) from None
    if cfg.get("swap") not in (None, "neighbours", "random"):
        raise RunError(f"--swap must be neighbours or random, not {cfg['swap']!r}")


TIMING = ("seconds", "iterations_per_second")   # in timing.json, not summary.json


def summarise(cfg, outs, seconds, run_dir=None, dropped=None):
    """The summary dict and text of the chains' results (the text without timings:
    same seed, same bytes; timing_line() has them). With several chains and the run
    directory, R-hat and bulk ESS of the log-likelihood and the family's traced
    integers (leaves and depth for trees; slpy.diagnostics), and a warning line when an R-hat is above 1.01. `dropped`:
    rows left out for a missing value, by input."""
    family = family_of(cfg)
    merged = merge_visits(outs, family.stats)
    kept = sum(o["result"].kept for o in outs)
    iters = sum(o["result"].iterations for o in outs)
    accepted = sum(o["result"].accepted for o in outs)
    ranked = sorted(merged.items(), key=lambda kv: (-kv[1]["count"], kv[0]))
    best = max(outs, key=lambda o: o["result"].best[0])
    swaps = {}
    for o in outs:
        for k, (n, a) in o["result"].swaps.items():
            s = swaps.setdefault(k, [0, 0])
            s[0] += n
            s[1] += a
    summary = {
        "iterations": iters, "kept": kept, "chains": len(outs),
        "acceptance_rate": accepted / iters if iters else 0.0,
        "replay_failures": sum(o["result"].replay_failures for o in outs),
        "swap_rates": {k: (a / n if n else None) for k, (n, a) in sorted(swaps.items())},
        "heats": [o["result"].heats for o in outs],
        "round_trips": [o["result"].round_trips for o in outs],
        "moves": _move_rates(outs),
        "best_log_lik": best["result"].best[0], "best_model": best["result"].best[1],
        "unique_models": len(merged),
        "top_models": [{"model": k, "prob": m["count"] / kept, "log_lik": m["log_lik"],
                        **{n: m[n] for n in family.stats}}
                       for k, m in ranked[:cfg["top"]]] if kept else [],
        "seconds": round(seconds, 3),
        # sampling speed: iterations over the chains' own time (loading excluded)
        "iterations_per_second": round(iters / max(sum(o["result"].seconds for o in outs),
                                                   1e-9), 1),
        "interrupted": any(o["result"].interrupted for o in outs),
        "rows_with_missing_values": dropped or {},
    }
    extra, extra_lines = family.summary(merged, kept) if kept else ({}, [])
    summary.update(extra)
    traces = (("log_lik", "log-lik"),) + tuple((n, n) for n in family.stats)
    conv = _convergence(run_dir, outs, traces) if run_dir is not None and len(outs) > 1 \
        else None
    if conv is not None:
        summary["chain_acceptance_rates"] = [
            o["result"].accepted / o["result"].iterations if o["result"].iterations
            else None for o in outs]
        summary["convergence"] = conv
    preds = [o["pred"] for o in outs if o["pred"] is not None]
    if preds and outs[0]["y_test"] is not None:
        p = np.mean(preds, axis=0)
        summary.update(accuracy_figures(p, outs[0]["y_test"]))
    lines = [f"slpy run: {cfg['prior']} on {cfg['data']}",
             f"{iters} iterations, {len(outs)} chain(s)"
             + (" [interrupted]" if summary["interrupted"] else "")]
    lines += [f"{n} rows of {cfg[role]} left out for a missing value"
              for role, n in (dropped or {}).items() if n]
    lines.append(f"acceptance rate {summary['acceptance_rate']:.3f}")
    if conv is not None:
        lines.extend(_convergence_lines(conv, traces))
    if len(summary["moves"]) > 1:
        lines.append("acceptance by move " + ", ".join(
            f"{k}: {v:.3f}" for k, v in summary["moves"].items()))
    if summary["swap_rates"]:
        lines.append("heats " + "; ".join(", ".join(f"{h:.3g}" for h in hs)
                                         for hs in summary["heats"])
                     + f" (round trips hottest -> cold: "
                       f"{', '.join(str(n) for n in summary['round_trips'])})")
        lines.append("swap rates " + ", ".join(
            f"{k}: {v:.3f}" for k, v in summary["swap_rates"].items() if v is not None))
    lines.append(f"best log-likelihood {summary['best_log_lik']:.3f} "
                 f"({summary['unique_models']} distinct models visited)")
    if "acc_max" in summary:
        lines.append(f"test accuracy: acc_max {summary['acc_max']:.4f}, "
                     f"acc_prob {summary['acc_prob']:.4f}")
    lines.extend(extra_lines)
    drawn = {}
    for o in outs:
        drawn.update(o["models"])
    for i, m in enumerate(summary["top_models"], 1):
        lines.append("")
        label = family.label({n: m[n] for n in family.stats})
        lines.append(f"#{i}: posterior {m['prob']:.4f}, log-likelihood {m['log_lik']:.3f}"
                     + (f", {label}" if label else ""))
        t = drawn.get(m["model"])
        if t is not None:
            lines.append(str(t))
    bt = best["best_model"]
    if bt is not None:
        lines.append("")
        lines.append(f"highest likelihood (MAP under a uniform prior): "
                     f"{summary['best_log_lik']:.3f}")
        lines.append(str(bt))
    return summary, "\n".join(lines)


def timing_line(summary) -> str:
    return (f"time: {summary['seconds']:.1f} s, {summary['iterations_per_second']} it/s "
            f"(timing.json)")


def merge_visits(outs, stats) -> dict:
    """key -> {"count", "log_lik", and the traced integers} over the chains, in order
    of first visit (chain by chain)."""
    merged: dict = {}
    for o in outs:
        r = o["result"]
        for key in r.order:
            v = r.visits[key]
            m = merged.get(key)
            if m is None:
                m = merged[key] = {"count": 0, "log_lik": v.log_lik,
                                   **dict(zip(stats, v.stats))}
            m["count"] += v.count
    return merged


def _move_rates(outs) -> dict:
    """Acceptance rate of each move of the proposal, over the chains (cold level)."""
    tot: dict = {}
    for o in outs:
        for k, (n, a) in o["result"].moves.items():
            t = tot.setdefault(k, [0, 0])
            t[0] += n
            t[1] += a
    return {k: (a / n if n else 0.0) for k, (n, a) in sorted(tot.items())}


def _convergence(run_dir, outs, traces):
    """R-hat and bulk ESS of the chains' traces as written (chains cut to the shortest)."""
    from ..diagnostics import trace_diagnostics, equal_length
    from ..report.rundir import read_trace
    chains = [read_trace(Path(run_dir) / f"chain_{o['result'].index}" / "trace.csv")
              for o in outs]
    n = min(len(t["log_lik"]) for t in chains)
    if n < 4:
        return None
    diag = trace_diagnostics({k: equal_length([t[k] for t in chains]) for k, _ in traces})
    return {"chains": len(chains), "draws": n, **diag}


def _convergence_lines(conv, traces):
    def fmt(x, spec, inf=False):   # None: nan, or inf when the name is in the warning
        return ("inf" if inf else "n/a") if x is None else format(x, spec)
    lines = [f"R-hat (bulk ESS) over {conv['chains']} chains of {conv['draws']} draws: "
             + ", ".join(f"{label} {fmt(conv[k]['rhat'], '.3f', k in conv['rhat_warning'])} "
                         f"({fmt(conv[k]['ess_bulk'], '.0f')})" for k, label in traces)]
    if conv["rhat_warning"]:
        names = ", ".join(label for k, label in traces if k in conv["rhat_warning"])
        lines.append(f"warning: R-hat above 1.01 for {names}: the chains disagree (run "
                     f"longer, temper, or start from elsewhere)")
    return lines


def _write_outputs(rd, cfg, outs, summary, text):
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
                     "chain_seconds": [round(o["result"].seconds, 3) for o in outs]})
    preds = [o["pred"] for o in outs if o["pred"] is not None]
    if preds:
        rd.write_predictions(outs[0]["classes"], np.mean(preds, axis=0), outs[0]["y_test"])
    for o in outs:
        # the chain's model ids, so its trace (which names models by id) can be read back
        r = o["result"]
        cd = RunDir(rd.path / f"chain_{r.index}")
        with open(cd.file("models.csv"), "w", newline="") as f:
            import csv
            w = csv.writer(f, lineterminator="\n")
            w.writerow(["id", "model", "count", "log_lik"])
            for key in r.order:
                v = r.visits[key]
                w.writerow([v.id, key, v.count, repr(round(v.log_lik, 10))])
        for i, (key, t) in enumerate(sorted(o["models"].items(),
                                            key=lambda kv: -merged[kv[0]]["count"])):
            if i == 0 and o["result"].index == 0:
                rd.write_model(family.folder, "top", t)
        if o["best_model"] is not None and o is max(outs, key=lambda x: x["result"].best[0]):
            rd.write_model(family.folder, "best", o["best_model"])
