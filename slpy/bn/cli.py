"""`slpy query` and `slpy export`: questions to, and files of, the networks a run
learnt (registered in slpy.cli). Bad input is one line and a non-zero exit: 2 for a
query that does not read or names what the data lack, 1 for a run directory that
cannot be used."""
from __future__ import annotations

import json

import click

from ..report.cli import _one_line_errors

__all__ = ["query_cmd", "export_cmd"]


def _rank_option(f):
    return click.option("--rank", type=click.IntRange(min=1), default=None, metavar="K",
                        help="Ask the K-th most visited DAG alone (1: the MAP estimate) "
                             "instead of averaging over the posterior.")(f)


@click.command("query")
@click.argument("run_dir", type=click.Path(exists=True, file_okay=False))
@click.argument("query")
@_rank_option
@click.option("--json", "as_json", is_flag=True,
              help="Print the answer as one JSON object (table, mcse, draws).")
@_one_line_errors
def query_cmd(run_dir, query, rank, as_json):
    """A conditional probability of a network run, e.g. "P(lung | smoke=yes)", averaged
    over the DAGs the run kept, with its Monte Carlo standard error."""
    from .query import QueryError
    from .posterior import load_posterior
    post = load_posterior(run_dir)
    try:
        q = post.parse(query)
        if rank is not None and rank > len(post.dags):
            raise click.BadParameter(f"{rank}: the run kept {len(post.dags)} DAGs",
                                     param_hint="'--rank'")
        answer = post.query(q, rank=rank)
    except QueryError as e:
        raise click.BadParameter(str(e), param_hint="'QUERY'") from None
    if as_json:
        click.echo(json.dumps(answer.to_dict()))
    else:
        click.echo(str(answer))


def _writable(path) -> None:
    """A usage error naming --bif now, before the work, unless `path` can be written
    (opened for appending, which changes nothing; removed again if it was new)."""
    from pathlib import Path
    p = Path(path)
    there = p.exists()
    try:
        open(p, "a").close()
    except OSError as e:
        raise click.BadParameter(f"{path}: cannot write the file ({e.strerror or e})",
                                 param_hint="'--bif'") from None
    if not there:
        p.unlink()


@click.command("export")
@click.argument("run_dir", type=click.Path(exists=True, file_okay=False))
@click.option("--bif", "bif", required=True, type=click.Path(dir_okay=False),
              metavar="FILE", help="Write the DAG with its posterior mean CPTs to FILE in "
                                   "BIF (readable by pgmpy, bnlearn, GeNIe).")
@_rank_option
@_one_line_errors
def export_cmd(run_dir, bif, rank):
    """Write a network run's most visited DAG (or the one of --rank K) with its
    posterior mean CPTs given the data."""
    from .bif import BIFError
    from .posterior import load_posterior
    _writable(bif)
    post = load_posterior(run_dir)
    rank = rank or 1
    if rank > len(post.dags):
        raise click.BadParameter(f"{rank}: the run kept {len(post.dags)} DAGs",
                                 param_hint="'--rank'")
    try:
        text = post.to_bif(None, rank)
    except BIFError as e:
        raise click.ClickException(str(e)) from None
    try:
        with open(bif, "w") as f:
            f.write(text)
    except OSError as e:
        raise click.ClickException(f"{bif}: {e.strerror or e}") from None
    net = post.network(rank)
    edges = sum(len(p) for p in net.parents)
    click.echo(f"{bif}: the DAG of rank {rank} (posterior {post.weights[rank - 1]:.4f}), "
               f"{net.n_vars} variables, {edges} edges")
