"""slpy's MCMC (`slpy run`) against the exact posterior (`slpy exact`'s back end) where
exact answers exist: GROWTREE on kyphosis and the phi^-b prior of paper 004 on a small
bucketed data set. Same data, same prior, same Dirichlet(1) leaves.

    python benchmarks/exact_vs_mcmc.py           # full run (about 8 min of one core)
    python benchmarks/exact_vs_mcmc.py --quick   # seconds; bundled data only

For every checkpoint n (iterations from the start of the chain, no burn-in) it
compares the chain's estimates after n iterations with the exact values:

- ``tv_trees``: total variation between the visit frequencies of trees and their exact
  posterior probabilities, over *all* trees: 0.5 (sum over visited trees of
  |p_hat - p| + the exact mass of the trees not visited). It is exact, not a bound.
- ``err_top``: the largest |p_hat - p| over the K most probable trees (exact k-best).
- ``pred_max``: the largest |p_hat(y | x) - p(y | x)| over the query rows (the
  training rows) and classes, p(y | x) the exact posterior predictive; ``pred_mean``
  the mean absolute difference.
- ``tv_leaves``: total variation between the distributions of the number of leaves
  (reference: a long run of the exact sampler, n_ref samples; its own noise is shown
  by the iid curve).

The same figures for n *independent exact posterior samples* (the exact sampler;
predictive by the paper's path sampling, which is an iid ensemble for each row) show
what Monte Carlo error alone costs: the gap between the MCMC curve and the iid curve
is the price of autocorrelation. The MCMC's own end-of-run predictions
(`predictions.csv`, `slpy run --test`) are checked against the reconstruction here.

Writes benchmarks/out/exact_vs_mcmc[-quick]/ (run directories, curves.csv,
summary.json) and, for a full run, docs/results/exact_vs_mcmc.md and
docs/results/figures/exact_*.png.
"""
from __future__ import annotations

import argparse
import csv
import json
import math
import sys
import time
from pathlib import Path

import numpy as np

if __name__ == "__main__" and not __package__:  # python benchmarks/exact_vs_mcmc.py
    sys.path.insert(0, str(Path(__file__).resolve().parents[1]))

from benchmarks.exact_vs_mcmc_report import report  # noqa: E402
from benchmarks.lib.cli import add_outputs, add_quick, out_dir, parser  # noqa: E402
from benchmarks.lib.data import write_dataset  # noqa: E402
from benchmarks.lib.env import (BUNDLED, FIGURES, PRIORS, RESULTS,  # noqa: E402
                                SHARED_DATA, rel)
from benchmarks.lib.runs import chain_models, read_predictions, read_trace, slpy  # noqa: E402


# ---- the cases ------------------------------------------------------------------------------

def cases(cfg, out: Path):
    """[(name, label, prior, params, csv path, iterations, seeds)]."""
    from slpy.data.dataset import load_csv
    from slpy.data.bucket import bucket_dataset
    res = []
    if cfg.quick:
        res.append(("kyphosis_growtree10", "kyphosis, GROWTREE (alpha 0.95, beta 1, "
                    "min_leaf 10)", "growtree.slp", {"min_leaf": 10},
                    BUNDLED / "kyphosis.csv", cfg.iterations or 20_000, [1]))
        return res
    res.append(("kyphosis_growtree", "kyphosis, GROWTREE (alpha 0.95, beta 1, min_leaf 5)",
                "growtree.slp", {"min_leaf": 5}, BUNDLED / "kyphosis.csv",
                cfg.iterations or 200_000, [1, 2]))
    src = SHARED_DATA / "caesarian.csv"
    if src.exists():
        ds, _ = bucket_dataset(load_csv(src), 10)
        path = out / "caesarian_bucket10.csv"
        write_dataset(ds, path)
        res.append(("caesarian_phi", "Caesarian (10 buckets), phi prior (ln phi = 2)",
                    "phi.slp", {}, path, cfg.phi_iterations or 100_000, [1]))
    else:
        print(f"skipping caesarian: {src} not found", file=sys.stderr)
    return res


def checkpoints(n: int) -> list[int]:
    """500, 1,000, 2,000, 5,000, 10,000, ... up to n, and n."""
    pts = {m * 10 ** e for e in range(2, 9) for m in (1, 2, 5)}
    return sorted(p for p in pts | {n} if 500 <= p <= n)


# ---- one case -------------------------------------------------------------------------------

def exact_side(prior, params, data_path, cfg, n_iid, log):
    """The exact posterior, its top trees, predictive, and an iid reference."""
    from slpy.data.dataset import load_csv
    from slpy.data.rowsets import RowSets
    from slpy.pcfg.grammar import growtree_grammar, phi_grammar
    from slpy.pcfg.inside import TreePosterior
    from slpy.trees.likelihood import DirichletLikelihood
    from slpy.trees.term import canonical
    train = load_csv(data_path)
    t0 = time.perf_counter()
    rs = RowSets(train)
    if prior == "growtree.slp":
        g = growtree_grammar(rs, params.get("alpha", 0.95), params.get("beta", 1.0),
                             params.get("min_leaf", 5))
    else:
        g = phi_grammar(rs, params.get("log_phi", 2.0))
    post = TreePosterior(g, DirichletLikelihood.from_dataset(train))
    t_build = time.perf_counter() - t0
    top = [(math.exp(lp), canonical(post.term(d))) for lp, d in post.kbest(cfg.top)]
    t = time.perf_counter()
    pred = post.predict_proba(train.X)
    t_pred = time.perf_counter() - t
    log(f"  exact: {g.n_rowsets:,} row sets, {g.n_nonterminals:,} nonterminals, "
        f"built in {t_build:.1f} s, predictive of {train.n_rows} rows {t_pred:.1f} s, "
        f"top tree {top[0][0]:.4f}")
    rng = np.random.default_rng(cfg.seed)
    t = time.perf_counter()
    n_ref = cfg.ref_factor * n_iid
    drawn = post.sample(rng, n_ref)
    leaves_ref = np.array([post.shape(d)[0] for d in drawn])
    iid = drawn[:n_iid]
    iid_logp = {d: post.log_prob(d) for d in set(iid)}
    paths = post.path_leaves(train.X, n_iid, rng)            # [rows, n_iid]
    leafpred = post.leaf_predictions()                        # [n_rowsets, C]
    t_iid = time.perf_counter() - t
    log(f"  exact sampler: {n_ref:,} samples and {n_iid:,} paths a row in {t_iid:.1f} s")
    return {"train": train, "post": post, "top": top, "pred": pred,
            "leaves_ref": leaves_ref, "iid": iid, "iid_logp": iid_logp, "paths": paths,
            "leafpred": leafpred, "seconds": {"build": t_build, "predict": t_pred,
                                              "iid": t_iid},
            "grammar": g.describe(), "log_ml": post.log_marginal_likelihood}


def leaves_tv(sample_leaves, ref_leaves) -> float:
    m = max(sample_leaves.max(), ref_leaves.max()) + 1
    a = np.bincount(sample_leaves, minlength=m) / len(sample_leaves)
    b = np.bincount(ref_leaves, minlength=m) / len(ref_leaves)
    return 0.5 * float(np.abs(a - b).sum())


def tv_counts(counts: dict, n: int, logp: dict) -> float:
    """Total variation over all trees between counts/n and exp(logp)."""
    s = 0.0
    mass = 0.0
    for k, c in counts.items():
        p = math.exp(logp[k])
        s += abs(c / n - p)
        mass += p
    return 0.5 * (s + max(0.0, 1.0 - mass))


def curves_iid(ex, pts, top):
    post = ex["post"]
    rows = []
    counts = {}
    canon_cache = {}
    from slpy.trees.term import canonical
    iid = ex["iid"]
    leaves = np.array([post.shape(d)[0] for d in iid])
    cum = np.cumsum(ex["leafpred"][ex["paths"]], axis=1)       # [rows, n, C]
    top_p = {k: p for p, k in top}
    j = 0
    for n in pts:
        if n > len(iid):
            break
        while j < n:
            d = iid[j]
            counts[d] = counts.get(d, 0) + 1
            j += 1
        tv = tv_counts(counts, n, ex["iid_logp"])
        # top-K error: map derivations to canonical strings only for the top trees
        est = {}
        for d, c in counts.items():
            k = canon_cache.get(d)
            if k is None:
                k = canon_cache[d] = canonical(post.term(d))
            if k in top_p:
                est[k] = c / n
        err_top = max(abs(est.get(k, 0.0) - p) for k, p in top_p.items())
        diff = np.abs(cum[:, n - 1, :] / n - ex["pred"])
        rows.append({"n": n, "tv_trees": tv, "err_top": err_top,
                     "pred_max": float(diff.max()), "pred_mean": float(diff.mean()),
                     "tv_leaves": leaves_tv(leaves[:n], ex["leaves_ref"])})
    return rows


# the sampler the page measured: one chain of prune-and-regrow, no burn-in
PAPER_SAMPLER = ["--proposal", "uc", "--temper", "1", "--chains", "1", "--burn-in", "0"]


def run_mcmc(prior, params, data_path, n, seed, rundir, log):
    args = ["run", PRIORS / prior, "--data", data_path, "--test", data_path, "-n", n,
            "--seed", seed, *PAPER_SAMPLER, "--out", rundir, "-q", "--force"]
    for k, v in params.items():
        args += ["-p", f"{k}={v}"]
    t = time.perf_counter()
    slpy(*args, check=True)
    wall = time.perf_counter() - t
    log(f"  slpy run -n {n} --seed {seed}: {wall:.1f} s")
    shown = ["slpy", "run", f"priors/{prior}", "--data", rel(data_path), "--test",
             rel(data_path), "-n", str(n), "--seed", str(seed), *PAPER_SAMPLER] + \
        [x for k, v in params.items() for x in ("-p", f"{k}={v}")]
    return wall, " ".join(shown)


def curves_mcmc(ex, rundir: Path, pts, top):
    """Per checkpoint, the chain's estimates against the exact values."""
    post, train = ex["post"], ex["train"]
    from slpy.trees.model import Tree
    from slpy.trees.term import parse
    models = chain_models(rundir)
    trace = read_trace(rundir, "model")[0].astype(np.int64)
    t = time.perf_counter()
    logp, pred, leaves = {}, {}, {}
    zero = 0
    for i, s in models.items():
        lp = post.log_prob_term(parse(s, train.feature_names).term())
        if lp == -math.inf:
            zero += 1
        logp[i] = lp
        tree = Tree.from_canonical(s, post.rowsets, train)
        pred[i] = tree.predict_proba(train.X)
        leaves[i] = tree.n_leaves
    t_eval = time.perf_counter() - t
    top_p = {k: p for p, k in top}
    key_of = {i: models[i] for i in models}
    rows = []
    counts = {}
    acc = np.zeros_like(ex["pred"])
    j = 0
    for n in pts:
        if n > len(trace):
            break
        while j < n:
            m = int(trace[j])
            counts[m] = counts.get(m, 0) + 1
            acc += pred[m]
            j += 1
        tv = tv_counts(counts, n, logp)
        est = {key_of[m]: c / n for m, c in counts.items() if key_of[m] in top_p}
        err_top = max(abs(est.get(k, 0.0) - p) for k, p in top_p.items())
        diff = np.abs(acc / n - ex["pred"])
        lv = np.array([leaves[int(m)] for m in trace[:n]])
        rows.append({"n": n, "tv_trees": tv, "err_top": err_top,
                     "pred_max": float(diff.max()), "pred_mean": float(diff.mean()),
                     "tv_leaves": leaves_tv(lv, ex["leaves_ref"])})
    # the run's own predictions (slpy run --test) against the reconstruction
    own = read_predictions(rundir)
    final = sum(pred[int(m)] for m in trace) / len(trace)
    est_top = {}
    n = len(trace)
    for m, c in counts.items():
        if key_of[m] in top_p:
            est_top[key_of[m]] = c / n
    return rows, {"distinct_models": len(models), "zero_prob_models": zero,
                  "eval_seconds": t_eval,
                  "own_pred_vs_reconstruction": float(np.abs(own - final).max()),
                  "own_pred_vs_exact_max": float(np.abs(own - ex["pred"]).max()),
                  "top_estimates": est_top}


def run_case(case, cfg, out, log):
    name, label, prior, params, data_path, n_iter, seeds = case
    log(f"{name}: {label}")
    pts = checkpoints(n_iter)
    n_iid = min(n_iter, cfg.iid_max)
    ex = exact_side(prior, params, data_path, cfg, n_iid, log)
    result = {"name": name, "label": label, "prior": prior, "params": params,
              "data": rel(data_path), "iterations": n_iter, "seeds": seeds,
              "rows": ex["train"].n_rows, "exact_seconds": ex["seconds"],
              "grammar": ex["grammar"], "log_ml": ex["log_ml"],
              "top": ex["top"], "mean_leaves_exact": float(ex["leaves_ref"].mean()),
              "n_ref": len(ex["leaves_ref"]), "n_iid": n_iid, "curves": {}, "mcmc": {}}
    t = time.perf_counter()
    result["curves"]["iid"] = curves_iid(ex, pts, ex["top"])
    result["iid_seconds"] = time.perf_counter() - t
    for seed in seeds:
        rundir = out / f"{name}-seed{seed}"
        wall, shown = run_mcmc(prior, params, data_path, n_iter, seed, rundir, log)
        rows, info = curves_mcmc(ex, rundir, pts, ex["top"])
        info.update(wall_seconds=wall, command=shown)
        result["curves"][f"mcmc{seed}"] = rows
        result["mcmc"][str(seed)] = info
        last = rows[-1]
        log(f"  seed {seed}: n={last['n']}: TV(trees) {last['tv_trees']:.3f}, top-"
            f"{cfg.top} max error {last['err_top']:.4f}, predictive max |diff| "
            f"{last['pred_max']:.4f}, TV(leaves) {last['tv_leaves']:.3f}; "
            f"{info['distinct_models']} distinct trees, run's own predictions vs "
            f"reconstruction {info['own_pred_vs_reconstruction']:.1e}")
    del ex
    return result


def main(argv=None):
    ap = parser(__doc__)
    add_quick(ap, "seconds: kyphosis, GROWTREE with min_leaf 10, 20,000 iterations")
    ap.add_argument("--iterations", type=int, default=None,
                    help="GROWTREE iterations (default 200,000; quick 20,000)")
    ap.add_argument("--phi-iterations", type=int, default=None,
                    help="phi-prior iterations (default 100,000)")
    ap.add_argument("--iid-max", type=int, default=50_000,
                    help="most iid exact samples / paths a row for the iid curve")
    ap.add_argument("--ref-factor", type=int, default=4,
                    help="exact samples for the leaves reference: this times the iid ones")
    ap.add_argument("--top", type=int, default=20)
    ap.add_argument("--seed", type=int, default=0, help="seed of the exact sampler")
    add_outputs(ap, out="output directory (default benchmarks/out/exact_vs_mcmc, or "
                "exact_vs_mcmc-quick)", md="the Markdown report (default "
                "docs/results/exact_vs_mcmc.md for a full run, OUT/exact_vs_mcmc.md for "
                "--quick)")
    cfg = ap.parse_args(argv)
    if cfg.quick:
        cfg.iid_max = min(cfg.iid_max, 5000)
    out = out_dir(cfg.out, "exact_vs_mcmc-quick" if cfg.quick else "exact_vs_mcmc")
    out.mkdir(parents=True, exist_ok=True)
    figdir = out if cfg.quick else FIGURES
    md = Path(cfg.md) if cfg.md else (out / "exact_vs_mcmc.md" if cfg.quick
                                      else RESULTS / "exact_vs_mcmc.md")
    if cfg.report_only:
        saved = json.loads((out / "summary.json").read_text())
        return report(saved["results"], argparse.Namespace(**saved["config"]),
                      saved["wall_seconds"], out, md, figdir)

    def log(msg):
        print(msg, flush=True)

    t0 = time.perf_counter()
    results = [run_case(c, cfg, out, log) for c in cases(cfg, out)]
    wall = time.perf_counter() - t0
    with open(out / "curves.csv", "w", newline="") as f:
        w = csv.writer(f, lineterminator="\n")
        w.writerow(["case", "source", "n", "tv_trees", "err_top", "pred_max", "pred_mean",
                    "tv_leaves"])
        for res in results:
            for cname, rows in res["curves"].items():
                for r in rows:
                    w.writerow([res["name"], cname, r["n"]] + [
                        repr(round(r[k], 8)) for k in ("tv_trees", "err_top", "pred_max",
                                                       "pred_mean", "tv_leaves")])
    (out / "summary.json").write_text(json.dumps(
        {"config": vars(cfg), "wall_seconds": wall, "results": results}, indent=1,
        default=str) + "\n")
    return report(results, cfg, wall, out, md, figdir)


if __name__ == "__main__":
    main()
