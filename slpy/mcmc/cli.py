"""The `slpy run` command (registered in slpy.cli)."""
from __future__ import annotations

import sys
from pathlib import Path

import click

from .moves import DEFAULT_PROPOSAL


def _params(values):
    out = {}
    for v in values:
        if "=" not in v:
            raise click.BadParameter(f"{v!r}: use name=value", param_hint="-p")
        k, val = v.split("=", 1)
        out[k.strip()] = val.strip()
    return out


@click.command("run")
@click.argument("prior", type=click.Path(dir_okay=False), required=False)
@click.option("--data", type=click.Path(exists=True, dir_okay=False),
              help="Training data (CSV with a header).")
@click.option("--test", type=click.Path(exists=True, dir_okay=False),
              help="Test data: per-row posterior class probabilities, acc_max, acc_prob.")
@click.option("--holdout", type=float, help="Hold out this fraction of --data as test data.")
@click.option("--split-seed", type=int, default=0, show_default=True,
              help="Seed of the --holdout split (apart from --seed, so runs with "
                   "different seeds hold out the same rows).")
@click.option("--class-col", help="The response column (default: `class`, else the last).")
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
@click.option("--query", default="cart(T)", show_default=True,
              help="The prior's query; its one variable is the model.")
@click.option("--iterations", "-n", type=int, default=10000, show_default=True)
@click.option("--burn-in", type=int, default=0, show_default=True)
@click.option("--thin", type=int, default=1, show_default=True)
@click.option("--proposal", default=DEFAULT_PROPOSAL, show_default=True,
              help="The move: uc, q0, cycle:N, change, swap, exact[:H], or a weighted "
                   "mixture such as uc:0.4,change:0.4,swap:0.2 (docs/cli.md).")
@click.option("--temper", type=int, default=1, show_default=True,
              help="Number of tempered chains (1: no tempering).")
@click.option("--delta-t", type=float, default=0.2, show_default=True,
              help="Heats 1/(1 + dT (i-1)) (the paper's ladder).")
@click.option("--min-heat", type=float, default=None,
              help="The hottest chain's heat, in (0, 1): the ladder is then geometric "
                   "from 1 down to it.")
@click.option("--ladder", type=click.Choice(["paper", "geometric"]), default=None,
              help="The initial heats [default: geometric with --min-heat, else paper].")
@click.option("--adapt-ladder/--fixed-ladder", default=None,
              help="Re-space the heats during burn-in toward even swap rates, then freeze "
                   "them [default: adapt when --burn-in > 0 and --temper > 2].")
@click.option("--swap", type=click.Choice(["neighbours", "random"]), default="neighbours",
              show_default=True,
              help="Swaps between neighbouring heats, even and odd pairs in turn "
                   "(non-reversible), or between a random pair (the paper's).")
@click.option("--chains", type=int, default=1, show_default=True,
              help="Independent chains (each with its own tempered companions).")
@click.option("--jobs", type=int, default=1, show_default=True,
              help="Processes running the chains, and then the tempered chains of each "
                   "(results do not depend on it).")
@click.option("--seed", type=int, default=0, show_default=True)
@click.option("--init", default="prior", show_default=True,
              help="Start from a prior sample, `greedy` (slpy's CART tree) or a file "
                   "holding a model term.")
@click.option("--top", type=int, default=5, show_default=True,
              help="How many of the most visited trees to show.")
@click.option("--out", type=click.Path(file_okay=False),
              help="Run directory (default: runs/<prior>-<data>-seed<S>).")
@click.option("--resume", type=click.Path(exists=True, file_okay=False),
              help="Continue the interrupted run in this directory.")
@click.option("--quiet", "-q", is_flag=True, help="Print nothing but errors.")
def run_cmd(prior, data, test, holdout, split_seed, class_col, bucket, bucket_method, likelihood,
            params, query, iterations, burn_in, thin, proposal, temper, delta_t, min_heat,
            ladder, adapt_ladder, swap, chains, jobs, seed, init, top, out, resume, quiet):
    """Sample the posterior over trees (proof-tree MCMC).

    Metropolis-Hastings that prunes the proof tree of the current model at a choice
    point and regrows it from the prior, optionally with tempering."""
    from .run import run, RunError
    from ..data import DataError
    from ..logic.terms import PrologError
    from ..logic.program import LoadErrors
    if resume:
        cfg, out = {}, resume
    else:
        if prior is None or data is None:
            raise click.UsageError("give a PRIOR file and --data (or --resume DIR)")
        if not Path(prior).is_file():
            raise click.UsageError(f"{prior}: no such prior file")
        out = out or str(Path("runs") / f"{Path(prior).stem}-{Path(data).stem}-seed{seed}")
        cfg = dict(prior=str(prior), data=str(data), test=test, holdout=holdout,
                   split_seed=split_seed, bucket=bucket, bucket_method=bucket_method,
                   class_col=class_col, likelihood=likelihood, params=_params(params),
                   query=query, iterations=iterations, burn_in=burn_in, thin=thin,
                   proposal=proposal, temper=temper, delta_t=delta_t, min_heat=min_heat,
                   ladder=ladder, adapt_ladder=adapt_ladder, swap=swap, chains=chains,
                   jobs=jobs, seed=seed, init=init, top=top)
    try:
        summary = run(cfg, out, resume=bool(resume), quiet=quiet)
    except (RunError, DataError, ValueError) as e:
        raise click.ClickException(str(e).splitlines()[0])
    except LoadErrors as e:
        raise click.ClickException(str(e))
    except PrologError as e:
        raise click.ClickException(f"the prior raised an error: {e}")
    if not quiet:
        click.echo(Path(out, "summary.txt").read_text().rstrip())
        click.echo(f"\nrun directory: {out}")
        if summary.get("interrupted"):
            click.echo(f"interrupted: continue with  slpy run --resume {out}")
    if summary.get("interrupted"):
        sys.exit(130)
