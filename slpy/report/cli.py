"""The `slpy report` and `slpy predict` commands (registered in slpy.cli).

Bad input is one line on stderr and a non-zero exit, never a traceback (unless
``slpy --debug``); heavy modules are imported inside the commands.
"""
from __future__ import annotations

import functools
from pathlib import Path

import click

from . import ReportError
from .. import limits as _limits
from ..cliopts import missing_option

__all__ = ["report_cmd", "predict_cmd"]


def _one_line_errors(fn):
    @functools.wraps(fn)
    def wrapper(*args, **kwargs):
        try:
            return fn(*args, **kwargs)
        except ReportError as e:
            raise click.ClickException(str(e))
        except OSError as e:    # a full disk while writing, a file gone while reading
            where = f"{e.filename}: " if e.filename else ""
            raise click.ClickException(f"{where}{e.strerror or e}") from None
        except (click.ClickException, click.exceptions.Exit, click.Abort, KeyboardInterrupt):
            raise
        except Exception as e:
            ctx = click.get_current_context(silent=True)
            if ctx is not None and ctx.find_root().params.get("debug"):
                raise
            raise click.ClickException(f"internal error: {type(e).__name__}: {e}")
    return wrapper


def _writable_dir(path) -> None:
    """A usage error naming --out now, before the work, unless files can be written
    in the directory `path` (made if it is not there, and removed again)."""
    import tempfile
    p = Path(path)
    made = [d for d in (p, *p.parents) if not d.exists()]
    try:
        p.mkdir(parents=True, exist_ok=True)
        tempfile.TemporaryFile(dir=p).close()
    except OSError as e:
        raise click.BadParameter(f"{path}: cannot write there ({e.strerror or e})",
                                 param_hint="'--out'") from None
    for d in made:            # deepest first: make_report makes what it needs
        d.rmdir()


def _writable_file(path) -> None:
    """A usage error naming --out now unless the file `path` can be written (opened
    for appending, which changes nothing; removed again if it was not there)."""
    p = Path(path)
    there = p.exists()
    try:
        open(p, "a").close()
    except OSError as e:
        raise click.BadParameter(f"{path}: cannot write the file ({e.strerror or e})",
                                 param_hint="'--out'") from None
    if not there:
        p.unlink()


@click.command("report")
@click.argument("run_dir", nargs=-1, required=True,
                type=click.Path(exists=True, file_okay=False))
@click.option("--out", type=click.Path(file_okay=False), default=None, metavar="DIR",
              help="Where to write the report (default: RUN_DIR/report of the first run).")
@click.option("--top", type=click.IntRange(min=1), default=5, show_default=True,
              help="How many of each run's most probable trees to compare.")
@click.option("--test", type=click.Path(exists=True, dir_okay=False), default=None,
              metavar="CSV", help="Compare the runs' class probabilities on these rows "
                                  "(default: the runs' own test rows).")
@click.option("--exact", is_flag=True,
              help="Also compare with the exact posterior (PCFG back end; tractable "
                   "priors only).")
@click.option("--query", "query", default=None, metavar="QUERY",
              help="Networks: add the table of a conditional probability, e.g. "
                   "\"P(lung | smoke=yes)\", averaged over the kept DAGs.")
@_limits.allow_load_option
@_one_line_errors
def report_cmd(run_dir, out, top, test, exact, allow_load, query):
    """Figures and a summary page (report.md, and report.html with everything inlined)
    of run directories."""
    try:
        import matplotlib  # noqa: F401
    except ImportError:
        raise click.ClickException("slpy report draws with matplotlib, which is not "
                                   "installed: pip install 'slpy[plots]'")
    from .page import make_report
    from .html import available, write_html
    _writable_dir(out if out is not None else Path(run_dir[0]) / "report")
    path, warnings = make_report(list(run_dir), out, top, test, exact, allow_load, query)
    html = write_html(path) if available() else None
    for w in warnings:
        click.echo(f"warning: {w}: the chains have not mixed")
    click.echo(f"report: {path / 'report.md'}")
    if html is not None:
        click.echo(f"report: {html}")
    else:
        click.echo("warning: report.html not written: it needs markdown-it-py "
                   "(pip install 'slpy[plots]')", err=True)


@click.command("predict")
@click.argument("run_dir", type=click.Path(exists=True, file_okay=False))
@click.option("--data", required=True, type=click.Path(exists=True, dir_okay=False),
              metavar="CSV", help="Rows to predict (CSV with a header naming the run's "
                                  "features; a class column is optional).")
@click.option("--out", type=click.Path(dir_okay=False), default=None, metavar="FILE",
              help="Write the CSV here (default: standard output).")
@click.option("--exact", is_flag=True,
              help="Add the exact posterior predictive of an MCMC run (PCFG back end; "
                   "tractable priors only).")
@missing_option
@_limits.allow_load_option
@_one_line_errors
def predict_cmd(run_dir, data, out, exact, missing, allow_load):
    """Per-row class probabilities (or means) of a run's posterior for new data."""
    from .predict import predict_run
    if out is not None:
        _writable_file(out)
    try:
        lines = predict_run(run_dir, data, out, exact, missing, allow_load)
    except BrokenPipeError:           # `slpy predict ... | head`: the reader has gone
        import os
        import sys
        os.dup2(os.open(os.devnull, os.O_WRONLY), sys.stdout.fileno())
        return 0
    for line in lines:
        click.echo(line, err=out is None)
