"""Paper 000's runs: the settings, which `slpy run` each experiment needs, running them
(resumable: a finished run with the same settings is skipped), and the `slpy run`
command line each one is equivalent to."""
from __future__ import annotations

import json
import shutil
import time
from pathlib import Path

from benchmarks.lib.env import PRIORS, rel
from benchmarks.lib.runs import read_json, read_summary, run_chain

EXPERIMENTS = ("best", "fig6", "fig7", "fig5", "fig8", "boxes")
GROW = {"alpha": 0.95, "beta": 1, "min_leaf": 5}

# iteration counts: the paper's where it states them (Figs 5-8: 50k / 60k)
FULL = dict(bcw=60_000, kyph=60_000, pima=50_000, fig5=50_000, fig8=50_000,
            box=20_000, box_burn=2_000, box_small=10_000, box_small_burn=1_000,
            best_seeds=(1, 2), box_seeds=(1, 2, 3), small_variant=True)
QUICK = dict(bcw=200, kyph=200, pima=200, fig5=200, fig8=200,
             box=80, box_burn=20, box_small=0, box_small_burn=0,
             best_seeds=(1,), box_seeds=(1, 2, 3), small_variant=False)

# the paper's sampler: one chain, no burn-in (unless an experiment sets one), whatever
# slpy run's defaults are
PAPER = dict(temper=1, burn_in=0, chains=1)   # the papers' one chain a seed


def plan(paths: dict, s: dict) -> dict:
    """experiment -> [(run name, cfg)]; a run may serve several experiments."""
    def grow(data, n, seed, beta=1, **kw):
        return dict(PAPER, prior=str(PRIORS / "growtree.slp"), data=str(data), iterations=n,
                    seed=seed, proposal="uc", params=dict(GROW, beta=beta), **kw)
    p = {e: [] for e in EXPERIMENTS}
    for seed in s["best_seeds"]:
        p["best"] += [(f"bcw_grow_s{seed}", grow(paths["bcw"], s["bcw"], seed)),
                      (f"kyph_grow_s{seed}", grow(paths["kyph"], s["kyph"], seed)),
                      (f"pima_grow_s{seed}", grow(paths["pima"], s["pima"], seed))]
    p["fig6"] = [("bcw_grow_q07_s1", dict(grow(paths["bcw"], s["bcw"], 1),
                                          proposal="cycle:7")),
                 ("bcw_grow_s1", grow(paths["bcw"], s["bcw"], 1))]
    p["fig7"] = [("bcw_edit_s1", dict(PAPER, prior=str(PRIORS / "edittree.slp"),
                                      data=str(paths["bcw"]), iterations=s["bcw"], seed=1,
                                      proposal="uc",
                                      params={"initial_tree": paths["greedy"]["bcw_ml7"],
                                              "continue": 0.8, "min_leaf": 5})),
                 ("bcw_grow_s1", grow(paths["bcw"], s["bcw"], 1))]
    p["fig5"] = [(f"pima23_b08_s{seed}",
                  grow(paths["pima23_train"], s["fig5"], seed, beta=0.8,
                       test=str(paths["pima23_test"])))
                 for seed in (1, 2)]
    p["fig8"] = [(f"pima_init_b{tag}_s1",
                  dict(grow(paths["pima"], s["fig8"], 1, beta=beta),
                       init=str(paths["pima_init"])))
                 for tag, beta in (("08", 0.8), ("1", 1))]
    variants = [("synth", "synth_train", s["box"], s["box_burn"])]
    if s["small_variant"]:
        variants.append(("synth150", "synth_train_small", s["box_small"],
                         s["box_small_burn"]))
    for tag, train, n, burn in variants:
        for seed in s["box_seeds"]:
            for arm, prior in (("nobox", PRIORS / "growtree.slp"),
                               ("box", paths["boxes_prior"])):
                p["boxes"].append((f"{tag}_{arm}_s{seed}",
                                   dict(PAPER, prior=str(prior), data=str(paths[train]),
                                        test=str(paths["synth_test"]), iterations=n,
                                        burn_in=burn, seed=seed, proposal="uc",
                                        params=dict(GROW))))
    # extra runs (a second seed of section 5.1, the small-training box variant) run
    # after every experiment's main runs; a report is written without them
    p["extra"] = {n for n, _ in p["best"] if not n.endswith("_s1")} | {
        n for n, _ in p["boxes"] if n.startswith("synth150_")}
    return p



def ensure_run(out: Path, name: str, cfg: dict, log, in_process: bool = False) -> dict:
    """Run (or resume, or skip) one run, in a child process unless `in_process`;
    returns its spec with timings."""
    rd = out / "runs" / name
    spec_path = out / "runs" / f"{name}.spec.json"
    spec = {"cfg": cfg}
    if spec_path.exists():
        old = read_json(spec_path)
        if old.get("cfg") == cfg and (rd / "summary.json").exists() and "wall" in old:
            log(f"  {name}: done (skipped)")
            return old
        if old.get("cfg") != cfg and rd.exists():
            shutil.rmtree(rd)
    rd.parent.mkdir(parents=True, exist_ok=True)
    spec_path.write_text(json.dumps(spec, indent=1) + "\n")
    resume = (rd / "config.json").exists() and not (rd / "summary.json").exists()
    log(f"  {name}: {'resuming' if resume else 'running'} {cmdline(cfg)}")
    # (--quick runs stay in this process: starting a process costs more than a run)
    t0 = time.perf_counter()
    cpu = run_chain(cfg, rd, resume=resume, child=not in_process)
    summary = read_summary(rd)
    timing = read_json(rd / "timing.json")
    spec.update(wall=round(time.perf_counter() - t0, 2), cpu=round(cpu, 2), resumed=resume,
                it_per_s=timing["iterations_per_second"])
    spec_path.write_text(json.dumps(spec, indent=1) + "\n")
    log(f"  {name}: {spec['wall']:.1f} s, {spec['it_per_s']:.0f} it/s, best log-lik "
        f"{summary['best_log_lik']:.2f}")
    return spec


def cmdline(cfg: dict) -> str:
    """The `slpy run` command line equivalent to a cfg (paths relative to the repo)."""
    parts = ["slpy run", rel(cfg["prior"]), "--data", rel(cfg["data"])]
    if cfg.get("test"):
        parts += ["--test", rel(cfg["test"])]
    parts += ["-n", str(cfg["iterations"])]
    if cfg.get("burn_in"):
        parts += ["--burn-in", str(cfg["burn_in"])]
    parts += ["--proposal", cfg["proposal"], "--temper", str(cfg.get("temper", 1)),
              "--chains", str(cfg.get("chains", 1))]
    if not cfg.get("burn_in"):
        parts += ["--burn-in", "0"]
    for k, v in cfg.get("params", {}).items():
        if k == "initial_tree":
            parts += ["-p", f"'initial_tree={v}'"]
        elif k in GROW and GROW[k] == v and k != "beta":
            continue
        elif k == "continue" and v == 0.8:
            continue
        else:
            parts += ["-p", f"{k}={v}"]
    if cfg.get("init"):
        parts += ["--init", rel(cfg["init"])]
    parts += ["--seed", str(cfg["seed"])]
    return " ".join(parts)


def finished(out: Path, runs: dict) -> tuple[set, dict, dict]:
    """The experiments whose main runs have all finished (with the settings of `runs`),
    each experiment's finished runs (extra runs included), and their specs."""
    done, specs = set(), {}
    fin: dict = {e: [] for e in EXPERIMENTS}
    for exp in EXPERIMENTS:
        ok = True
        for name, cfg in runs[exp]:
            sp = out / "runs" / f"{name}.spec.json"
            ready = (out / "runs" / name / "summary.json").exists() and sp.exists()
            if ready:
                s = read_json(sp)
                ready = s.get("cfg") == cfg and "wall" in s
            if ready:
                specs[name] = s
                fin[exp].append((name, cfg))
            elif name not in runs["extra"]:
                ok = False
        if ok:
            done.add(exp)
    return done, fin, specs
