"""The `slpy run` command (registered in slpy.cli).

Exit statuses as for every command: 2 a bad option, input file or run directory; 1 an
error in the prior or while running it; 130 interrupted (the run directory keeps what
was done: `slpy run --resume DIR` continues).
"""
from __future__ import annotations

import contextlib
import sys
from pathlib import Path

import click

from .. import limits as _limits
from ..cliopts import (FiniteFloat, categorical_option, compile_notice, force_option,
                       missing_option, scheduler_address, target_option)
from .moves import DEFAULT_PROPOSAL
from .config import (DEFAULT_CHAINS, DEFAULT_ITERATIONS, RECOMMENDED_TEMPERING,
                     SMC_DEFAULTS)

# what --resume may change: nothing the chains depend on
RESUME_OPTIONS = {"resume", "quiet", "jobs", "backend", "scheduler", "timeout", "max_steps",
                  "max_memory", "allow_load", "require_converged"}
# the exit status of --require-converged when the run has not converged
NOT_CONVERGED = 3


def _params(values):
    out = {}
    for v in values:
        name, eq, value = v.partition("=")
        if not eq or not name.strip() or not value.strip():
            raise click.BadParameter(f"{v!r}: expected name=value, e.g. depth=3",
                                     param_hint="'-p'")
        out[name.strip()] = value.strip()
    return out


def _proposal(ctx, param, value):
    from .moves import check_proposal
    try:
        check_proposal(value)
    except ValueError as e:
        raise click.BadParameter(str(e)) from None
    return value


@click.command("run")
@click.argument("prior", type=click.Path(dir_okay=False), required=False)
@click.option("--data", type=click.Path(exists=True, dir_okay=False),
              help="Training data (CSV with a header).")
@click.option("--test", type=click.Path(exists=True, dir_okay=False),
              help="Test data (columns matched to --data's by name): per-row posterior "
                   "class probabilities, acc_max, acc_prob.")
@click.option("--holdout", type=FiniteFloat(0, 1, min_open=True, max_open=True),
              help="Hold out this fraction of --data as test data.")
@click.option("--split-seed", type=click.IntRange(min=0), default=0, show_default=True,
              help="Seed of the --holdout split (apart from --seed, so runs with "
                   "different seeds hold out the same rows).")
@target_option
@missing_option
@categorical_option
@click.option("--bucket", type=click.IntRange(min=2), default=None, metavar="K",
              help="Replace each feature by K buckets fitted on the training rows (the "
                   "paper-004 preprocessing; fewer row sets).")
@click.option("--bucket-method", type=click.Choice(["uniform", "quantile"]),
              default="uniform", show_default=True,
              help="Equal-width or equal-frequency buckets.")
@click.option("--likelihood", type=click.Choice(["dirichlet", "normal"]),
              help="Leaf likelihood (default: dirichlet for classes, normal for numbers).")
@click.option("-p", "--param", "params", multiple=True, metavar="NAME=VALUE",
              help="Override a prior parameter (repeatable).")
@click.option("--query", default=None,
              help="The prior's query; its one variable is the model [default: the "
                   "family's: cart(T) for trees, bn(G) for networks].")
@click.option("--family", default=None, metavar="NAME",
              help="The kind of model the prior's answers are: tree, bn, or one "
                   "registered from Python [default: as the prior declares with "
                   ":- model_family(Name), else tree].")
@click.option("--count", "count_col", default=None, metavar="COLUMN",
              help="bn: the column saying how many samples each row stands for "
                   "[default: a column named count, if there is one].")
@click.option("--score", type=click.Choice(["bdeu", "k2"]), default=None,
              help="bn: the family score [default: bdeu].")
@click.option("--ess", type=FiniteFloat(0, min_open=True), default=None,
              help="bn: BDeu's equivalent sample size [default: 1].")
@click.option("--iterations", "-n", type=click.IntRange(min=1), default=DEFAULT_ITERATIONS,
              show_default=True, help="Iterations of each chain, burn-in included.")
@click.option("--burn-in", type=click.IntRange(min=0), default=None,
              help="Iterations not kept at the start, where a tempering ladder adapts "
                   "[default: a tenth of --iterations].")
@click.option("--thin", type=click.IntRange(min=1), default=1, show_default=True,
              help="Keep every K-th iteration after burn-in.")
@click.option("--proposal", default=DEFAULT_PROPOSAL, show_default=True,
              callback=_proposal,
              help="The move: uc, q0, cycle:N, change, swap, perturb[:K], exact[:H], or "
                   "a weighted mixture such as uc:0.4,change:0.4,swap:0.2; on the compiled "
                   "path regrow, change, swap, perturb[:K] and exact[:H] for trees, "
                   "change and sweep for networks (docs/mcmc.md).")
@click.option("--path", "path", type=click.Choice(["auto", "compiled", "engine"]),
              default="auto", show_default=True,
              help="compiled: a GROWTREE, depth or network prior's moves on flat "
                   "arrays, many times faster per iteration; engine: proof-tree moves for "
                   "any prior; auto: compiled where it applies (the run says which and why).")
@click.option("--method", type=click.Choice(["mcmc", "smc"]), default="mcmc",
              show_default=True,
              help="mcmc: chains of Metropolis-Hastings; smc: each chain an island of "
                   "annealed sequential Monte Carlo from the prior to the posterior, which "
                   "also estimates the log evidence (docs/mcmc.md).")
@click.option("--particles", type=click.IntRange(min=10),
              default=SMC_DEFAULTS["particles"], show_default=True,
              help="--method smc: particles an island.")
@click.option("--smc-steps", type=click.IntRange(min=1),
              default=SMC_DEFAULTS["smc_steps"], show_default=True,
              help="--method smc: moves of each particle at each heat.")
@click.option("--temper", type=click.IntRange(min=1),
              default=RECOMMENDED_TEMPERING["temper"], show_default=True,
              help="Number of tempered chains (1: no tempering).")
@click.option("--delta-t", type=FiniteFloat(0, min_open=True), default=0.2,
              show_default=True, help="Heats 1/(1 + dT (i-1)) (the paper's ladder).")
@click.option("--min-heat", type=FiniteFloat(0, 1, min_open=True, max_open=True),
              default=RECOMMENDED_TEMPERING["min_heat"], show_default=True,
              help="The hottest chain's heat, in (0, 1), for the geometric ladder.")
@click.option("--ladder", type=click.Choice(["paper", "geometric"]), default=None,
              help="The initial heats: geometric from 1 down to --min-heat, or the "
                   "paper's 1/(1 + dT (i-1)) [default: geometric].")
@click.option("--adapt-ladder/--fixed-ladder", default=None,
              help="Re-space the heats during burn-in toward even swap rates, then freeze "
                   "them [default: adapt when --burn-in > 0 and --temper > 2].")
@click.option("--swap", type=click.Choice(["neighbours", "random"]), default="neighbours",
              show_default=True,
              help="Swaps between neighbouring heats, even and odd pairs in turn "
                   "(non-reversible), or between a random pair (the paper's).")
@click.option("--chains", type=click.IntRange(min=1), default=DEFAULT_CHAINS,
              show_default=True,
              help="Independent chains (each with its own tempered companions); R-hat "
                   "and ESS compare them.")
@click.option("--jobs", type=click.IntRange(min=1), default=None,
              help="Processes running the chains, and then the tempered chains of each "
                   "(results do not depend on it) [default: every core, for a run of "
                   "50,000 iterations of chains x tempered chains or more; one process "
                   "below, where starting workers would cost more than it saves].")
@click.option("--until-converged", is_flag=True,
              help="Run again with twice the iterations until the chains have converged "
                   "(--target-rhat, --target-ess), within --max-iterations and --max-time.")
@click.option("--max-iterations", type=click.IntRange(min=1), default=None,
              help="--until-converged: at most this many iterations a chain.")
@click.option("--max-time", "max_seconds", type=FiniteFloat(0, min_open=True), default=None,
              metavar="SECONDS",
              help="--until-converged: start no round that would end after this many "
                   "seconds (wall time) from the start.")
@click.option("--target-rhat", type=FiniteFloat(1, min_open=True), default=1.01,
              show_default=True,
              help="Converged: R-hat of every traced quantity at most this...")
@click.option("--target-ess", type=FiniteFloat(0, min_open=True), default=400,
              show_default=True, help="...and its bulk and tail ESS at least this.")
@click.option("--require-converged", is_flag=True,
              help=f"Exit with status {NOT_CONVERGED} when the run has not converged "
                   f"(its results are written all the same).")
@click.option("--backend", type=click.Choice(["loky", "dask", "ray"]), default="loky",
              show_default=True,
              help="Where the chains run: processes on this machine (loky), a "
                   "dask.distributed cluster or a Ray cluster (pip install 'slpy[dask]' "
                   "or 'slpy[ray]'); the results do not depend on it.")
@click.option("--scheduler", metavar="ADDRESS", default=None, callback=scheduler_address,
              help="The cluster of --backend dask (tcp://HOST:8786) or ray (HOST:6379) "
                   "[default: start one on this machine with --jobs workers].")
@click.option("--seed", type=click.IntRange(min=0), default=0, show_default=True,
              help="The run's seed: the same seed gives the same run directory.")
@click.option("--init", default="prior", show_default=True,
              help="Start from a prior sample, `greedy` (slpy's CART tree; for a network, "
                   "a hill-climbed DAG) or a file holding a model term.")
@click.option("--top", type=click.IntRange(min=0), default=5, show_default=True,
              help="How many of the most visited models to show.")
@click.option("--out", type=click.Path(file_okay=False),
              help="Run directory (default: runs/<prior>-<data>-seed<S>).")
@force_option
@click.option("--resume", type=click.Path(file_okay=False),
              help="Continue the interrupted run in this directory.")
@_limits.options(what="query of the prior (a sample or a proposal)")
@_limits.allow_load_option
@click.option("--quiet", "-q", is_flag=True, help="Print nothing but warnings and errors.")
def run_cmd(prior, data, test, holdout, split_seed, target, missing, categorical, bucket,
            bucket_method,
            likelihood, params, query, family, count_col, score, ess, iterations, burn_in, thin, proposal, path, method, particles, smc_steps, temper, delta_t,
            min_heat, ladder, adapt_ladder, swap, chains, jobs, until_converged,
            max_iterations, max_seconds, target_rhat, target_ess, require_converged,
            backend, scheduler, seed, init,
            top, out, force, resume, timeout, max_steps, max_memory, allow_load, quiet):
    """Sample the posterior over models: trees, Bayesian networks (proof-tree MCMC).

    Metropolis-Hastings on the proof tree of the current model: prune and regrow,
    redraw or swap choice points, or redraw a subtree exactly; optionally with
    tempered chains (docs/mcmc.md)."""
    ctx = click.get_current_context()
    if scheduler is not None and backend == "loky":
        raise click.UsageError("--scheduler names a cluster: give --backend dask or ray")
    if resume:
        given = [p.opts[-1] for p in ctx.command.params
                 if p.name not in RESUME_OPTIONS and ctx.get_parameter_source(p.name)
                 is click.core.ParameterSource.COMMANDLINE]
        if given:
            raise click.UsageError(f"--resume continues the run as it was set up: "
                                   f"drop {given[0]}")
        if not Path(resume).is_dir():
            raise click.BadParameter(f"{resume}: no such run directory",
                                     param_hint="'--resume'")
        cfg, out = {"jobs": jobs} if ctx.get_parameter_source("jobs") is \
            click.core.ParameterSource.COMMANDLINE else {}, resume
    else:
        if prior is None or data is None:
            raise click.UsageError("give a PRIOR file and --data (or --resume DIR)")
        if not Path(prior).is_file():
            raise click.BadParameter(f"{prior}: no such prior file", param_hint="'PRIOR'")
        if test and holdout is not None:
            raise click.UsageError("give --test or --holdout, not both")
        if burn_in is not None and burn_in >= iterations:
            raise click.BadParameter(f"{burn_in} is not below --iterations ({iterations})",
                                     param_hint="'--burn-in'")
        out = out or str(Path("runs") / f"{Path(prior).stem}-{Path(data).stem}-seed{seed}")
        cfg = dict(prior=str(prior), data=str(data), test=test, holdout=holdout,
                   split_seed=split_seed, bucket=bucket, bucket_method=bucket_method,
                   target=target, missing=missing, likelihood=likelihood,
                   params=_params(params), query=query, iterations=iterations,
                   burn_in=burn_in, thin=thin, proposal=proposal, path=path,
                   temper=temper,
                   delta_t=delta_t, min_heat=min_heat, ladder=ladder,
                   adapt_ladder=adapt_ladder, swap=swap, chains=chains, jobs=jobs, seed=seed,
                   init=init, top=top, target_rhat=target_rhat, target_ess=target_ess)
        if until_converged:
            cfg.update(until_converged=True, max_iterations=max_iterations,
                       max_seconds=max_seconds)
        elif max_iterations is not None or max_seconds is not None:
            raise click.UsageError("--max-iterations and --max-time are budgets of "
                                   "--until-converged: give it too")
        if method == "smc":
            if require_converged:     # no chains to compare: the verdict is MCMC's
                raise click.UsageError("--require-converged is for --method mcmc (SMC "
                                       "islands have no convergence verdict)")
            cfg.update(method=method, particles=particles, smc_steps=smc_steps)
        # the network settings only where given, so a tree run's config.json is as it was
        cfg.update({k: v for k, v in (("family", family), ("count", count_col),
                                      ("score", score), ("ess", ess),
                                      ("categorical", categorical)) if v is not None})
    with compile_notice(quiet):     # a cold numba cache: a minute before the bar
        summary = _run(cfg, out, resume, quiet, force,
                       _limits.program_limits(timeout, max_steps, max_memory, allow_load),
                       backend, scheduler)
    if not quiet:
        from .summary import timing_line
        from ..runs import RunDir
        click.echo(RunDir(out, create=False).read_summary_text().rstrip())
        click.echo(timing_line(summary))
        click.echo(f"\nrun directory: {out}")
    if summary.get("interrupted"):
        from .stops import RunStop
        click.echo(RunStop(out, True).interrupted(), err=True)
        sys.exit(130)
    if require_converged and not summary.get("converged"):
        click.echo(f"slpy run: --require-converged: the run in {out} has not converged "
                   f"(see its convergence line)", err=True)
        sys.exit(NOT_CONVERGED)


@contextlib.contextmanager
def one_line_errors(doing: str = "sampled", kept: str = ""):
    """A command body's errors as one line each: a usage error (exit 2) for bad input,
    1 for the prior's; `doing`: what was done with the prior, `kept`: what of the
    work is kept (said after the prior's errors)."""
    from .run import RunError
    from ..errors import WorkerError
    from ..data import DataError, MissingValueError
    from ..terms.term import PrologError
    from ..logic.program import LoadErrors
    from ..logic.kinds import Halt
    from ..runs import RunDirError
    from ..lang.syntax_errors import format_load_error
    try:
        yield
    except MissingValueError as e:
        raise click.UsageError(f"{e} ({e.hint})" if e.hint else str(e)) from None
    except (RunError, RunDirError, DataError) as e:
        raise click.UsageError(str(e).splitlines()[0]) from None
    except LoadErrors as e:
        for err in sorted(e.errors, key=lambda x: getattr(x, "line", 0) or 0):
            click.echo(format_load_error(err), err=True)
        sys.exit(1)
    except Halt as h:
        where = getattr(h, "where", None)     # a directive's file:line
        raise click.ClickException(f"{where}: the prior called halt while it was loaded"
                                   if where else f"the prior called halt while it was "
                                                 f"{doing}") from None
    except WorkerError as e:
        raise click.ClickException(f"a chain failed on a worker: {e}") from None
    except PrologError as e:
        raise click.ClickException(
            f"the prior raised an error: {str(e).splitlines()[0]}{kept}") from None
    except ValueError as e:   # the query does not name one model variable, ...
        raise click.UsageError(str(e).splitlines()[0]) from None


def _run(cfg, out, resume, quiet, force, limits, backend, scheduler):
    """run() with its errors as one line each: 2 for bad input, 1 for the prior's."""
    from .run import run
    from .stops import RunStop, honour_sigint
    from ..errors import WriteError
    kept = f" (the chains' traces so far are in {out})" if backend == "loky" else ""
    stop = RunStop(out, bool(resume))
    try:
        with honour_sigint(), one_line_errors("sampled", kept):
            return run(cfg, out, resume=resume, quiet=quiet, force=force, limits=limits,
                       warn=lambda line: click.echo(line, err=True), backend=backend,
                       scheduler=scheduler)
    except KeyboardInterrupt:  # with --jobs: the workers' traces are written as they go
        click.echo(stop.interrupted(), err=True)
        sys.exit(130)
    except WriteError as e:    # a full disk: the traces so far stay, --resume goes on
        raise click.ClickException(stop.write_failed(e)) from None
