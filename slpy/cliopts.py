"""Options several commands share, so each means the same everywhere: the response
column (--target), missing values (--missing), finite numbers, run directories."""
from __future__ import annotations

import math

import click


class FiniteFloat(click.FloatRange):
    """A float in a range that is also finite (click's FloatRange lets nan and inf
    through: nan compares false with every bound)."""

    name = "finite float"

    def convert(self, value, param, ctx):
        rv = super().convert(value, param, ctx)
        if not math.isfinite(rv):
            self.fail(f"{value!r} is not a finite number", param, ctx)
        return rv


def target_option(f):
    # --class-col: the name `slpy run` had before; one option, one meaning
    return click.option("--target", "--class-col", "target", metavar="COLUMN", default=None,
                        help="The response column (default: the column named class; a "
                             "file without one needs --target).")(f)


def missing_option(f):
    return click.option("--missing", type=click.Choice(["drop", "error"]), default="drop",
                        show_default=True,
                        help="Rows with a missing value (empty, NA, N/A, NaN or ?): left "
                             "out, with a warning that counts them, or an error.")(f)


def force_option(f):
    return click.option("--force", is_flag=True,
                        help="Replace the run in --out (by default a directory that holds "
                             "a run is refused).")(f)


def dropped_warning(path, dropped: int, total: int) -> str:
    return (f"warning: {path}: {dropped} of {total} rows have a missing value and are "
            f"left out (--missing error refuses them)")


def load_data(path, target, missing, what="--data", like=None):
    """A command's data file as a Dataset (test data: `like` the training data): a
    usage error when it does not load, a warning line counting the rows left out."""
    from .data.dataset import load_csv, DataError
    try:
        ds = load_csv(path, class_col=target, on_missing=missing, like=like)
    except (DataError, ValueError, OSError) as e:
        raise click.BadParameter(str(e), param_hint=f"'{what}'") from None
    if ds.n_dropped:
        click.echo(dropped_warning(path, ds.n_dropped, ds.n_rows + ds.n_dropped), err=True)
    return ds
