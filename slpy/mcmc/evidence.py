"""SMC islands as the chains of a run, and priors compared by their evidence.

:func:`run_island` is what a chain task runs under ``--method smc``
(slpy.mcmc.worker): one annealed SMC sampler (slpy.mcmc.smc) whose final particles,
resampled to equal weights, become a :class:`ChainOutput` like a chain's kept draws
(its trace lists the particles, not iterations), with the island's log evidence.
:func:`evidence_summary` pools the islands (the mean of their Z, its standard error
from their spread); :func:`compare_priors` runs islands of several priors on the same
data and ranks them by their evidence: Bayes factors with standard errors
(``slpy compare``).
"""
from __future__ import annotations

import math
from collections import Counter

import numpy as np

from .config import SMC_DEFAULTS  # noqa: F401  (in __all__)
from .output import ChainOutput, Trace, Visit
from .seeds import chain_rng
from .smc import pool_evidence, smc

__all__ = ["run_island", "evidence_summary", "compare_priors", "SMC_DEFAULTS"]



def run_island(task, model, progress=None) -> ChainOutput:
    """The SMC island `task.index` of the task's run on `model` (built from it)."""
    from .paths import fast_path
    cfg = task.config
    rng = chain_rng(cfg.seed, task.index)
    n = int(cfg.get("particles") or SMC_DEFAULTS["particles"])
    path = fast_path(cfg, model)
    r = smc(model, rng, n=n, proposal=cfg.proposal,
            steps=int(cfg.get("smc_steps") or SMC_DEFAULTS["smc_steps"]), progress=progress,
            particles=None if path is None else path.particles(model, cfg))
    states = r.resample_to(rng, n)
    stats = model.scorer.stats

    def key(s):                    # a compiled path's particle carries its key
        k = getattr(s, "key", None)
        return model.scorer.key(s.term) if k is None else k
    visits: dict = {}
    ids, liks, ds, st = [], [], [], {s: [] for s in stats}
    for s in states:
        k = key(s)
        v = visits.get(k)
        if v is None:
            v = visits[k] = Visit(len(visits), 0, s.log_lik, s.stats, s.term)
        v.count += 1
        ids.append(v.id)
        liks.append(s.log_lik)
        ds.append(s.d)
        for name, x in zip(stats, s.stats):
            st[name].append(x)
    i64 = np.int64
    trace = Trace(np.arange(n, dtype=i64), np.array(ids, dtype=i64), np.array(liks),
                  {s: np.array(v, dtype=i64) for s, v in st.items()},
                  np.array(ds, dtype=i64), np.zeros(n, dtype=bool),
                  np.zeros((0, 4), dtype=i64))
    best = max(states, key=lambda s: s.log_lik)
    out = ChainOutput(task.index, r.proposed, trace, visits, r.accepted, 0,
                      {"smc": [r.proposed, r.accepted]}, best_log_lik=best.log_lik,
                      best_model=key(best), best_term=best.term, seconds=r.seconds)
    out.evidence = {"log_evidence": r.log_evidence, "heats": len(r.heats) - 1,
                    "resampled": r.resampled, "particles": n,
                    "prior_draws": r.prior_draws,
                    "min_ess": float(min(r.ess)) if r.ess else float(n),
                    "final_ess": 1.0 / float(np.dot(r.weights, r.weights))}
    if r.start_ess is not None:
        out.evidence["start_ess"] = r.start_ess
    return out


ISLAND_KEYS = ("log_evidence", "heats", "resampled", "prior_draws", "final_ess",
               "start_ess")


def evidence_summary(outs) -> tuple:
    """(summary entries, summary lines) of the islands' evidence."""
    ev = [o.evidence for o in outs]
    lz, se = pool_evidence([e["log_evidence"] for e in ev])
    entry = {"log_evidence": lz, "log_evidence_se": se,
             "islands": [{k: e[k] for k in ISLAND_KEYS if k in e} for e in ev]}
    se_text = f" (standard error {se:.3f})" if math.isfinite(se) else \
        " (one island: no standard error; --chains 4 gives one)"
    lines = [f"log evidence (log marginal likelihood of the data under the prior): "
             f"{lz:.4f}{se_text}",
             "  islands: " + ", ".join(f"{e['log_evidence']:.4f}" for e in ev)
             + f"; heats {', '.join(str(e['heats']) for e in ev)}; "
             f"{ev[0]['particles']:,} particles each"]
    tries = sum(e["prior_draws"] for e in ev)
    wanted = sum(e["particles"] for e in ev)
    weighted = [e["start_ess"] for e in ev if "start_ess" in e]
    if weighted:
        lines.append(f"  the prior's draws failed too often for exact draws: particles "
                     f"started from sequential draws with importance weights (ESS "
                     f"{', '.join(f'{x:,.1f}' for x in weighted)} of "
                     f"{ev[0]['particles']:,}), resampled and moved at heat 0")
    elif tries > wanted:
        lines.append(f"  {tries - wanted:,} of {tries:,} prior draws failed and were "
                     f"drawn again (the prior conditions on its constraints)")
    return entry, lines


def compare_priors(results: dict) -> list:
    """Rows ranking priors by evidence: `results` maps a prior's name to its
    (log evidence, standard error); each row has the log Bayes factor against the
    best prior with its standard error, and the posterior probability of each prior
    under equal prior odds."""
    names = sorted(results, key=lambda k: -results[k][0])
    best = results[names[0]]
    lz = np.array([results[k][0] for k in names])
    post = np.exp(lz - lz.max())
    post /= post.sum()
    rows = []
    for k, p in zip(names, post):
        z, se = results[k]
        bf = z - best[0]
        bf_se = math.sqrt(se ** 2 + best[1] ** 2) if k != names[0] else 0.0
        rows.append({"prior": k, "log_evidence": z, "se": se, "log_bf": bf,
                     "log_bf_se": bf_se, "posterior": float(p)})
    return rows


def models_of(outs) -> Counter:
    """Pooled particle counts by model key."""
    c: Counter = Counter()
    for o in outs:
        for k, v in o.visits.items():
            c[k] += v.count
    return c
