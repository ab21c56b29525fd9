"""`slpy learn`: estimate a program's labels from observed goals (docs/learn.md).

    slpy learn PROGRAM --data OBS [--predicates p/1,q/2] [--goal GOAL]
               [--algorithm auto|fam|io] [--prior dirichlet:ALPHA] [-o LEARNED.slp]

prints the log-likelihood at each iteration and the labels learned, and writes the
program with them. Bad input is one line on stderr and a non-zero exit.
"""
from __future__ import annotations

import click

from .. import limits as _limits

__all__ = ["learn_cmd"]


def _load(program, path) -> None:
    from ..lang.syntax_errors import format_error, format_load_error
    from ..logic.kinds import Halt
    from ..logic.program import LoadErrors
    from ..terms.term import PrologError
    try:
        program.consult(path)
    except LoadErrors as e:
        errs = sorted(e.errors, key=lambda x: getattr(x, "line", 0) or 0)
        raise click.ClickException(format_load_error(errs[0]))
    except PrologError as e:
        raise click.ClickException(f"{path}: {format_error(e)}")
    except Halt as h:
        raise click.ClickException(f"{getattr(h, 'where', None) or path}: halt called "
                                   f"while loading")


def _fmt(x: float) -> str:
    return f"{x:.6f}" if x >= 1e-6 or x == 0 else f"{x:.3e}"


@click.command("learn")
@click.argument("program", type=click.Path(exists=True, dir_okay=False))
@click.option("--data", "obs", required=True, type=click.Path(exists=True, dir_okay=False),
              metavar="OBS", help="Observations: one ground goal a line, optionally "
                                  "followed by a count (docs/learn.md).")
@click.option("--predicates", default=None, metavar="P/N,...",
              help="The predicates whose labels are learned (default: every labelled "
                   "predicate).")
@click.option("--goal", default=None, metavar="GOAL",
              help="The top goal the observations answer, for the failure term (default: "
                   "their predicate with fresh variables).")
@click.option("--algorithm", type=click.Choice(["auto", "fam", "io"]), default="auto",
              show_default=True,
              help="fam: failure-adjusted maximisation; io: inside-outside, assuming the "
                   "program never fails; auto: io for tabled programs, else fam.")
@click.option("--prior", default=None, metavar="dirichlet:ALPHA",
              help="A Dirichlet(ALPHA) prior on each predicate's labels: MAP estimates.")
@click.option("--estimate", type=click.Choice(["map", "mean"]), default="map",
              show_default=True,
              help="The labels written with -o: the MAP (or maximum likelihood) estimate, "
                   "or the approximate posterior mean (needs --prior).")
@click.option("--max-iter", type=click.IntRange(min=1), default=200, show_default=True,
              metavar="N", help="Most EM iterations.")
@click.option("--tol", type=click.FloatRange(min=0), default=1e-6, show_default=True,
              metavar="T", help="Stop when an iteration raises the objective by less.")
@click.option("--min-prob", type=click.FloatRange(min=0, max=1), default=1e-12,
              show_default=True, metavar="P",
              help="fam: derivations of the top goal less probable than P are left out of "
                   "the failure term.")
@click.option("-o", "--output", type=click.Path(dir_okay=False), default=None,
              metavar="FILE", help="Write PROGRAM with the learned labels to FILE.")
@click.option("-q", "--quiet", is_flag=True, help="No line per iteration.")
@_limits.options()
@_limits.allow_load_option
def learn_cmd(program, obs, predicates, goal, algorithm, prior, estimate, max_iter, tol,
              min_prob, output, quiet, timeout, max_steps, max_memory, allow_load):
    """Learn the labels of a program from observed goals (EM)."""
    import math

    from ..logic.program import Program
    from ..lang.syntax_errors import SlpSyntaxError, format_error
    from ..logic.kinds import Halt
    from ..terms.term import PrologError
    from .em import learn, parse_prior
    from .observations import load_observations
    from .params import LearnError
    from .write import write_labels
    try:
        alpha = parse_prior(prior)
    except LearnError as e:
        raise click.BadParameter(str(e), param_hint="'--prior'")
    if estimate == "mean" and alpha is None:
        raise click.BadParameter("the posterior mean needs --prior", param_hint="'--estimate'")
    p = Program(**_limits.program_limits(timeout, max_steps, max_memory, allow_load))
    _load(p, program)
    try:
        data = load_observations(p, obs)
        if not data:
            raise LearnError(f"{obs}: no observations")
    except LearnError as e:
        raise click.ClickException(str(e))

    def show(it, ll, lp):
        if not quiet:
            extra = f"  log posterior {lp:.6f}" if alpha is not None else ""
            click.echo(f"iteration {it:3d}  log-likelihood {ll:.6f}{extra}")
    try:
        r = learn(p, data, predicates=predicates, algorithm=algorithm, goal=goal,
                  prior=alpha, max_iter=max_iter, tol=tol, min_prob=min_prob, callback=show)
    except SlpSyntaxError as e:
        raise click.BadParameter(str(e), param_hint="'--goal'")
    except LearnError as e:
        click.echo(f"Error: {e}", err=True)
        return 1
    except PrologError as e:      # the program's own error, in a query learning made
        click.echo(f"Error: {program}: {format_error(e)}", err=True)
        return 1
    except Halt:
        click.echo(f"Error: {program}: halt called while learning", err=True)
        return 1
    for w in r.warnings:
        click.echo(f"warning: {w}", err=True)
    n = sum(o.count for o in data)
    state = "converged" if r.converged else "stopped"
    click.echo(f"{r.algorithm}: {state} after {r.iterations} iteration"
               f"{'s' if r.iterations != 1 else ''}, {n} observations, log-likelihood "
               f"{r.log_likelihood:.6f}")
    if r.algorithm == "fam":
        click.echo(f"probability that the top goal fails: {_fmt(r.failure_prob)}")
    pr = r.params
    for j, c in enumerate(pr.clauses):
        mean = f"  (posterior mean {_fmt(r.posterior_mean[j])})" \
            if r.posterior_mean is not None else ""
        click.echo(f"{pr.label_of(j)}: {_fmt(pr.theta0[j])} -> {_fmt(r.theta[j])}{mean}")
    if output is not None:
        try:
            text = write_labels(r, program, estimate)
            with open(output, "w", encoding="utf-8") as f:
                f.write(text)
        except (OSError, LearnError) as e:
            click.echo(f"Error: {output}: {e}", err=True)
            return 1
        click.echo(f"wrote {output}")
    return 0 if all(map(math.isfinite, r.theta)) else 1
