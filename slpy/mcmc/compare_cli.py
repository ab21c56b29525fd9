"""`slpy compare PRIOR... --data D`: priors ranked by their evidence.

Each prior's log marginal likelihood of the data is estimated by SMC islands
(slpy.mcmc.evidence); the table gives it with its standard error, the log Bayes
factor against the best prior with its standard error, and each prior's posterior
probability when the priors are equally likely beforehand.
"""
from __future__ import annotations

import math
from pathlib import Path

import click

from .. import limits as _limits
from ..cliopts import target_option
from .config import SMC_DEFAULTS

__all__ = ["compare_cmd"]


def _evidence(prior, data, target, params, family, islands, jobs, particles, steps, seed,
              limits):
    """(log evidence, standard error, seconds) of one prior on the data."""
    from ..family import declared_family
    from . import dispatch
    from .config import RunConfig, family_of
    from .evidence import evidence_summary
    from .model import build_model, read_prior
    from .paths import resolve_path
    from .worker import ChainTask
    cfg = RunConfig(prior=str(prior), data=str(data), target=target, params=params,
                    family=family or declared_family(prior, limits) or "tree", method="smc",
                    particles=particles, smc_steps=steps, chains=islands, jobs=jobs,
                    seed=seed, temper=1).resolved()
    cfg.check()
    fam = family_of(cfg)
    cfg = cfg.replace(query=cfg.query or fam.query)
    train, _ = fam.load_data(cfg)
    text = read_prior(cfg.prior)
    model = build_model(cfg, train, limits, text)
    cfg, _ = resolve_path(model, cfg)         # a compiled path's particles where one applies
    if cfg.path == "engine" and getattr(model, "engine_ran", False):
        model = None                          # its check ran it: the islands build their own
    tasks = [ChainTask(cfg, i, text, train, limits=limits) for i in range(islands)]
    outs = dispatch.run_tasks(tasks, jobs, True, model)
    entry, _ = evidence_summary(outs)
    return entry["log_evidence"], entry["log_evidence_se"], sum(o.seconds for o in outs)


@click.command("compare")
@click.argument("priors", nargs=-1, required=True, type=click.Path(dir_okay=False))
@click.option("--data", required=True, type=click.Path(exists=True, dir_okay=False),
              help="The data every prior is scored on (CSV with a header).")
@target_option
@click.option("-p", "--param", "params", multiple=True, metavar="NAME=VALUE",
              help="Override a parameter of every prior that declares it (repeatable).")
@click.option("--family", default=None, metavar="NAME",
              help="The model family [default: as each prior declares, else tree].")
@click.option("--islands", type=click.IntRange(min=2), default=4, show_default=True,
              help="Independent SMC samplers a prior (their spread gives the standard "
                   "errors).")
@click.option("--particles", type=click.IntRange(min=10),
              default=SMC_DEFAULTS["particles"], show_default=True,
              help="Particles an island.")
@click.option("--smc-steps", type=click.IntRange(min=1), default=SMC_DEFAULTS["smc_steps"],
              show_default=True, help="Moves of each particle at each heat.")
@click.option("--jobs", type=click.IntRange(min=1), default=1, show_default=True,
              help="Processes running the islands (results do not depend on it).")
@click.option("--seed", type=click.IntRange(min=0), default=0, show_default=True,
              help="The seed of every prior's islands.")
@_limits.options(what="query of a prior")
@_limits.allow_load_option
def compare_cmd(priors, data, target, params, family, islands, particles, smc_steps, jobs,
                seed, timeout, max_steps, max_memory, allow_load):
    """Rank priors by the evidence of the data under each (SMC): log marginal
    likelihoods, Bayes factors with standard errors, posterior probabilities."""
    from .cli import _params, one_line_errors
    if len(set(priors)) != len(priors):
        raise click.UsageError("a prior is named twice")
    for p in priors:
        if not Path(p).is_file():
            raise click.BadParameter(f"{p}: no such prior file", param_hint="'PRIORS'")
    given = _params(params)
    limits = _limits.program_limits(timeout, max_steps, max_memory, allow_load)
    results, seconds = {}, 0.0
    with one_line_errors("compared"):
        declared = {p: _declared(p, limits) for p in priors}
        unused = set(given) - set().union(*declared.values())
        if unused:
            raise click.UsageError(f"-p {sorted(unused)[0]}: no prior declares it")
        for p in priors:
            mine = {k: v for k, v in given.items() if k in declared[p]}
            z, se, sec = _evidence(p, data, target, mine, family, islands, jobs, particles,
                                   smc_steps, seed, limits)
            results[p] = (z, se)
            seconds += sec
            click.echo(f"{p}: log evidence {z:.4f} (standard error {se:.4f})", err=True)
    from .evidence import compare_priors
    rows = compare_priors(results)
    w = max(len(r["prior"]) for r in rows)
    click.echo(f"evidence of {data} under {len(rows)} priors ({islands} SMC islands of "
               f"{particles:,} particles each):")
    click.echo(f"{'prior':<{w}}  {'log evidence':>14}  {'log BF vs best':>16}  "
               f"{'P(prior | data)':>15}")
    for r in rows:
        bf = "best" if r["log_bf"] == 0 and r["log_bf_se"] == 0 else \
            f"{r['log_bf']:.3f} ± {r['log_bf_se']:.3f}"
        click.echo(f"{r['prior']:<{w}}  {r['log_evidence']:>7.3f} ± {r['se']:.3f}  "
                   f"{bf:>16}  {r['posterior']:>15.4f}")
    close = [r for r in rows[1:] if abs(r["log_bf"]) < 2 * r["log_bf_se"]]
    if close:
        click.echo("within two standard errors of the best (not told apart: more "
                   "--particles or --islands): " + ", ".join(r["prior"] for r in close))
    click.echo(f"(equal prior odds; {seconds:.1f} CPU-s of SMC; a log Bayes factor of "
               f"{math.log(10):.2f} is a factor of 10)")


def _declared(prior, limits) -> set:
    from ..logic.program import Program
    p = Program(**limits)
    p.consult(prior)
    return set(p.params)
