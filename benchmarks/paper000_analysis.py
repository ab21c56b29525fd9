"""Paper 000's analyses: what the report and the figures show, from the finished runs
(written to results.json)."""
from __future__ import annotations

from pathlib import Path

import numpy as np

from benchmarks.lib.runs import read_models, read_predictions, read_summary, read_trace
from benchmarks.paper000_data import (RPART_KYPHOSIS, contains, n_leaves, tree_loglik,
                                      true_tree_prob, vote_class0)


def trace(rd: Path) -> tuple[np.ndarray, np.ndarray, np.ndarray]:
    """A run's iterations, log-likelihoods and leaves (chain 0)."""
    return read_trace(rd, "iter", "log_lik", "leaves")


def analyse(out: Path, paths: dict, runs: dict, done: set) -> dict:
    from slpy.data import load_csv
    res = {}
    R = out / "runs"
    # greedy trees (always: cheap)
    g = {}
    for key in ("bcw", "kyph", "pima"):
        ds = load_csv(paths[key])
        for ml in (5, 7):
            t = paths["greedy"][f"{key}_ml{ml}"]
            g[f"{key}_ml{ml}"] = dict(log_lik=tree_loglik(t, ds), leaves=n_leaves(t, ds),
                                      model=paths["greedy"][f"{key}_ml{ml}"])
    ky = load_csv(paths["kyph"])
    t = RPART_KYPHOSIS
    g["kyph_rpart_doc"] = dict(log_lik=tree_loglik(t, ky), leaves=n_leaves(t, ky),
                               model=RPART_KYPHOSIS)
    res["greedy"] = g
    if "best" in done:
        best = {}
        for name, _ in runs["best"]:
            models = read_models(R / name)
            top = max(models, key=lambda m: m["log_lik"])
            small = {}
            for k in (2, 3, 5):
                c = [m for m in models if m["leaves"] <= k]
                if c:
                    b = max(c, key=lambda m: m["log_lik"])
                    small[k] = dict(log_lik=b["log_lik"], leaves=b["leaves"],
                                    model=b["model"])
            s = read_summary(R / name)
            it, ll, lv = trace(R / name)
            mp = models[0]
            best[name] = dict(log_lik=top["log_lik"], leaves=top["leaves"],
                              model=top["model"], small=small,
                              map_model=mp["model"], map_prob=mp["count"] / sum(
                                  m["count"] for m in models),
                              map_log_lik=mp["log_lik"], map_leaves=mp["leaves"],
                              acceptance=s["acceptance_rate"],
                              unique=s["unique_models"],
                              leaves_last_half=float(lv[len(lv) // 2:].mean()),
                              min_leaves_after_1k=int(lv[1000:].min()) if len(lv) > 1000
                              else int(lv.min()),
                              ll_last_half=float(ll[len(ll) // 2:].mean()))
        res["best"] = best
    if "fig5" in done:
        a, b = (R / n for n, _ in runs["fig5"])
        train, test = load_csv(paths["pima23_train"]), load_csv(paths["pima23_test"])
        p = []
        for rd in (a, b):
            models = [(m["model"], m["count"]) for m in read_models(rd)]
            p.append(vote_class0(models, train, test))
        diff = p[0] - p[1]
        pa, pb = read_predictions(a)[:, 0], read_predictions(b)[:, 0]
        dpp = pa - pb
        res["fig5"] = dict(
            n_test=int(test.n_rows), n_train=int(train.n_rows), class0=test.classes[0],
            p_a=p[0].tolist(), p_b=p[1].tolist(), diff=diff.tolist(),
            stats=_diff_stats(diff), stats_pp=_diff_stats(dpp),
            bandwidth=nrd0(diff),
            acc=[float(np.mean((pp < 0.5) == (test.y != 0))) for pp in p],
            acc_pp=[read_summary(rd)["acc_max"] for rd in (a, b)])
    if "fig8" in done:
        pima = load_csv(paths["pima"])
        init_ll = tree_loglik(paths["greedy"]["pima_ml5"], pima)
        f8 = {"init_log_lik": init_ll,
              "init_leaves": n_leaves(paths["greedy"]["pima_ml5"], pima)}
        for name, _ in runs["fig8"]:
            it, ll, lv = trace(R / name)
            n = len(ll)
            f8[name] = dict(final=float(ll[-1]), mean_last_half=float(ll[n // 2:].mean()),
                            min=float(ll.min()), max=float(ll.max()),
                            leaves_last_half=float(lv[n // 2:].mean()),
                            first_below_350=_first(it, ll < -350),
                            frac_above_345=float((ll > -345).mean()))
        res["fig8"] = f8
    if "fig7" in done:
        bcw = load_csv(paths["bcw"])
        from slpy.trees.term import parse
        f7 = {"init_log_lik": tree_loglik(paths["greedy"]["bcw_ml7"], bcw),
              "init_model": paths["greedy"]["bcw_ml7"]}
        for name, _ in runs["fig7"]:
            it, ll, lv = trace(R / name)
            models = read_models(R / name)
            share = sum(m["count"] for m in models if m["model"] == f7["init_model"])
            init = parse(f7["init_model"], bcw.feature_names)
            total = sum(m["count"] for m in models)
            grown = sum(m["count"] for m in models
                        if contains(parse(m["model"], bcw.feature_names), init)) / total
            root = sum(m["count"] for m in models
                       if parse(m["model"], bcw.feature_names).nodes()[0] == init.nodes()[0]
                       ) / total
            n = len(ll)
            f7[name] = dict(mean_last_half=float(ll[n // 2:].mean()), max=float(ll.max()),
                            sd_last_half=float(ll[n // 2:].std()),
                            leaves_last_half=float(lv[n // 2:].mean()),
                            init_share=share / total, grown_share=grown,
                            root_share=root, top_log_lik=models[0]["log_lik"],
                            top_leaves=models[0]["leaves"],
                            top_model=models[0]["model"],
                            top_share=models[0]["count"] / sum(m["count"] for m in models),
                            acceptance=read_summary(R / name)["acceptance_rate"])
        res["fig7"] = f7
    if "fig6" in done:
        f6 = {}
        for name, _ in runs["fig6"]:
            it, ll, _ = trace(R / name)
            s = read_summary(R / name)
            changes = int((np.diff(ll) != 0).sum())
            f6[name] = dict(acceptance=s["acceptance_rate"], max=float(ll.max()),
                            changes=changes, unique=s["unique_models"],
                            longest_stay=_longest_run(ll))
        res["fig6"] = f6
    if "boxes" in done:
        test = load_csv(paths["synth_test"])
        ptrue = true_tree_prob(test.X, test.feature_names)
        pos = test.classes.index("pos")
        ytrue = test.y == pos
        bayes = ptrue > 0.5
        bx = {"true_tree_acc": float(np.mean(bayes == ytrue)),
              "true_tree_expected_acc": float(np.mean(np.maximum(ptrue, 1 - ptrue))),
              "test_pos_rate": float(ytrue.mean()), "runs": {}}
        for name, cfg in runs["boxes"]:
            train = load_csv(cfg["data"])
            pp = read_predictions(R / name)[:, pos]
            pred = pp > 0.5
            models = [(m["model"], m["count"]) for m in read_models(R / name)]
            pv = 1 - vote_class0(models, train, test)      # class 0 is "neg"
            predv = pv > 0.5
            s = read_summary(R / name)
            top = read_models(R / name)[0]
            bx["runs"][name] = dict(
                acc=float(np.mean(pred == ytrue)), acc_vote=float(np.mean(predv == ytrue)),
                expected_acc=float(np.mean(np.where(pred, ptrue, 1 - ptrue))),
                agree_bayes=float(np.mean(pred == bayes)), acc_prob=s["acc_prob"],
                n_train=int(train.n_rows), best_log_lik=s["best_log_lik"],
                top_model=top["model"], top_prob=top["count"] / max(1, sum(
                    m["count"] for m in read_models(R / name))))
        res["boxes"] = bx
    return res


def _diff_stats(d) -> dict:
    d = np.asarray(d)
    a = np.abs(d)
    return dict(mean=float(d.mean()), sd=float(d.std(ddof=1)), mean_abs=float(a.mean()),
                median_abs=float(np.median(a)), q95_abs=float(np.quantile(a, 0.95)),
                max_abs=float(a.max()), within_005=float((a <= 0.05).mean()),
                within_01=float((a <= 0.1).mean()), zero=float((a == 0).mean()))


def _first(it, mask):
    i = np.flatnonzero(mask)
    return int(it[i[0]]) if len(i) else None


def _longest_run(ll) -> int:
    change = np.flatnonzero(np.diff(ll) != 0)
    bounds = np.concatenate([[-1], change, [len(ll) - 1]])
    return int(np.diff(bounds).max())



def nrd0(x) -> float:
    """R's default kernel-density bandwidth (bw.nrd0), as in the paper's Fig 5."""
    x = np.asarray(x, dtype=float)
    sd = x.std(ddof=1)
    iqr = np.subtract(*np.percentile(x, [75, 25]))
    lo = min(sd, iqr / 1.34) if iqr > 0 else sd
    if lo <= 0:
        lo = abs(x[0]) if x[0] != 0 else 1.0
    return 0.9 * lo * len(x) ** -0.2



def kde_peak(f) -> float:
    d = np.asarray(f["diff"])
    bw = f["bandwidth"]
    xs = np.linspace(-0.1, 0.1, 401)
    dens = np.exp(-0.5 * ((xs[:, None] - d[None, :]) / bw) ** 2).sum(1) / (
        len(d) * bw * np.sqrt(2 * np.pi))
    return float(dens.max())

