"""The options the benchmark scripts share."""
from __future__ import annotations

import argparse
from pathlib import Path

from .env import OUT


def parser(doc: str) -> argparse.ArgumentParser:
    """A parser described by the first paragraph of the script's docstring."""
    return argparse.ArgumentParser(description=doc.split("\n\n")[0])


def add_quick(ap, help: str) -> None:
    ap.add_argument("--quick", action="store_true", help=help)


def add_repeat(ap, default: int = 3) -> None:
    ap.add_argument("--repeat", type=int, default=default,
                    help=f"repeats; the median is printed (default {default})")


def add_outputs(ap, out: str, md: str) -> None:
    """--out, --md and --report-only of a script whose summary.json can be reported
    again without running."""
    ap.add_argument("--out", default=None, help=out)
    ap.add_argument("--md", default=None, help=md)
    ap.add_argument("--report-only", action="store_true",
                    help="rewrite the report and figures from OUT/summary.json, no runs")


def out_dir(given, name: str) -> Path:
    """The output directory: the one given, or benchmarks/out/NAME."""
    return Path(given) if given else OUT / name
