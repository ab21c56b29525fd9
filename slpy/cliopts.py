"""Options several commands share, so each means the same everywhere: the response
column (--target), missing values (--missing), finite numbers, run directories."""
from __future__ import annotations

import contextlib
import math
import re

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
    return click.option("--missing", type=click.Choice(["drop", "error", "split"]),
                        default="drop", show_default=True,
                        help="Rows with a missing value (empty, NA, N/A, NaN or ?): left "
                             "out, with a warning that counts them, an error, or (split) "
                             "kept, each split of the trees sending missing values to a "
                             "side drawn with it (docs/priors.md).")(f)


def categorical_option(f):
    return click.option("--categorical", "categorical", metavar="COLUMNS",
                        callback=_categorical, default=None,
                        help="Predictor columns whose values are categories (names, "
                             "comma-separated), or `auto`: every column holding a value "
                             "that is not a number. A split lists the levels that go "
                             "left (docs/priors.md).")(f)


def _categorical(ctx, param, value):
    if value is None:
        return None
    if value.strip() == "auto":
        return "auto"
    names = [c.strip() for c in value.split(",") if c.strip()]
    if not names:
        raise click.BadParameter("name at least one column, or auto", ctx, param)
    return names


def force_option(f):
    return click.option("--force", is_flag=True,
                        help="Replace the run in --out (by default a directory that holds "
                             "a run is refused).")(f)


def dropped_warning(path, dropped: int, total: int) -> str:
    return (f"warning: {path}: {dropped} of {total} rows have a missing value and are "
            f"left out (--missing error refuses them)")


def load_data(path, target, missing, what="--data", like=None, categorical=None):
    """A command's data file as a Dataset (test data: `like` the training data): a
    usage error when it does not load, a warning line counting the rows left out, and
    one naming levels the training data lack."""
    from .data.dataset import load_csv, DataError
    try:
        ds = load_csv(path, class_col=target, on_missing=missing, like=like,
                      categorical=categorical or ())
    except (DataError, ValueError, OSError) as e:
        raise click.BadParameter(str(e), param_hint=f"'{what}'") from None
    if ds.n_dropped:
        click.echo(dropped_warning(path, ds.n_dropped, ds.n_rows + ds.n_dropped), err=True)
    if ds.unseen:
        click.echo(unseen_note(path, ds.unseen), err=True)
    if like is None:
        for line in ds.column_warnings():
            click.echo(line, err=True)
    return ds


def data_notes(cfg, train, test) -> list:
    """`slpy run`'s lines about its data: columns of the training data no model can
    learn from (an identifier, a constant), and levels of --test rows the training
    data lack."""
    out = list(train.column_warnings()) if hasattr(train, "column_warnings") else []
    unseen = getattr(test, "unseen", None)
    if unseen and cfg.get("test"):
        out.append(unseen_note(cfg["test"], unseen))
    return out


def unseen_note(path, unseen: dict) -> str:
    """One line about the levels of new rows that the training data lack."""
    parts = [f"{name} " + ", ".join(f"{lv!r} ({n})" for lv, n in sorted(new.items()))
             for name, new in unseen.items()]
    rows = sum(sum(new.values()) for new in unseen.values())
    return (f"note: {path}: {rows} value{'s' if rows != 1 else ''} of a level the "
            f"training data lack ({'; '.join(parts)}): each goes to the side of each "
            f"split with more training rows")


# HOST:PORT or SCHEME://HOST:PORT (dask's tcp://, tls://, Ray's ray://), or Ray's `auto`
_ADDRESS = re.compile(r"^(?:[a-z][a-z0-9+.-]*://)?(?:\[[0-9a-fA-F:.]+\]|[^\s:/\[\]]+)"
                      r":\d{1,5}/?$")


def scheduler_address(ctx, param, value):
    """--scheduler's callback: an address a cluster can have, else a usage error
    naming the option (before anything starts)."""
    if value is None or value == "auto" or _ADDRESS.match(value.strip()):
        return None if value is None else value.strip()
    raise click.BadParameter(f"{value!r} is not a cluster address: give HOST:PORT or "
                             f"SCHEME://HOST:PORT, e.g. tcp://10.0.0.5:8786", ctx, param)


COMPILING = "compiling the kernels (first run only)"


@contextlib.contextmanager
def compile_notice(quiet: bool = False):
    """While a command runs: one line on standard error when numba compiles a kernel
    rather than loading it from its cache (a cold cache: the first run after an install
    or an upgrade, which takes a minute or two before any progress shows)."""
    if quiet:
        yield
        return
    from numba.core import event
    from ._numba_config import CACHE_DIR

    class Notice(event.Listener):
        said = False

        def on_start(self, ev):
            if not self.said:
                self.said = True
                click.echo(COMPILING if CACHE_DIR else
                           "compiling the kernels (no writable cache directory: every "
                           "run)", err=True)

        def on_end(self, ev):
            pass

    notice = Notice()
    event.register("numba:compile", notice)
    try:
        yield
    finally:
        event.unregister("numba:compile", notice)
