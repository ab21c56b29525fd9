"""How `slpy run` stops before its end, and what it tells the user.

Two things stop a run early: an interrupt (Ctrl-C, or a SIGINT that a batch system or
a supervisor sends to this process alone, while the chains run here or in worker
processes) and a file that cannot be written (a full disk, a file size limit). The
chains' traces are written as they go, so the run directory keeps what was done and
``slpy run --resume DIR`` continues it, to the result an uninterrupted run gives.
What is said depends on whether the run had started: before its config.json is
written there is nothing to resume, and the user is not told to.
"""
from __future__ import annotations

import contextlib
import json
import signal
import threading
from pathlib import Path

__all__ = ["honour_sigint", "RunStop"]


@contextlib.contextmanager
def honour_sigint():
    """SIGINT interrupts (KeyboardInterrupt) for the time of the block, also when this
    process was started with it ignored, as a shell starts `slpy run ... &`: a
    supervisor's `kill -INT` must stop the run. Worker processes started meanwhile
    get the default action too."""
    if threading.current_thread() is not threading.main_thread() or \
            signal.getsignal(signal.SIGINT) is not signal.SIG_IGN:
        yield
        return
    signal.signal(signal.SIGINT, signal.default_int_handler)
    try:
        yield
    finally:
        signal.signal(signal.SIGINT, signal.SIG_IGN)


def _stamp(path: Path):
    try:
        st = path.stat()
    except OSError:
        return None
    return st.st_ino, st.st_mtime_ns, st.st_size


def _rows(trace: Path) -> int:
    """The complete data rows of a trace file (a cut last row is not one)."""
    try:
        with open(trace, "rb") as f:
            lines = sum(block.count(b"\n") for block in iter(lambda: f.read(1 << 20), b""))
    except OSError:
        return 0
    return max(lines - 1, 0)


class RunStop:
    """The lines that tell the user how run directory `out` was left when the run
    stops early. Made before the run starts (`resume`: it continues a run there)."""

    def __init__(self, out, resume: bool = False):
        self.out = Path(out)
        self.resume = resume
        self.before = _stamp(self.out / "config.json")

    def resumable(self) -> bool:
        """The run had started: its config.json is there, written by this run (or
        the run it resumes)."""
        now = _stamp(self.out / "config.json")
        return now is not None and (self.resume or now != self.before)

    def kept(self) -> str:
        """How much the traces hold: "1200 of 3600 kept draws" ("" when unknown)."""
        try:
            cfg = json.loads((self.out / "config.json").read_text())
            chains, n = int(cfg["chains"]), int(cfg["iterations"])
            kept = range(int(cfg.get("burn_in") or 0), n, int(cfg.get("thin") or 1))
            due = chains * len(kept)
        except (OSError, ValueError, KeyError, TypeError):
            return ""
        rows = sum(_rows(self.out / f"chain_{i}" / "trace.csv") for i in range(chains))
        return f"{min(rows, due)} of {due} kept draws"

    def _keeps(self) -> str:
        kept = self.kept()
        return f"{self.out} keeps {kept}" if kept else f"{self.out} keeps what was written"

    def interrupted(self) -> str:
        if not self.resumable():
            return "interrupted before the run started: nothing to resume"
        return f"interrupted: {self._keeps()}; continue with  slpy run --resume {self.out}"

    def write_failed(self, e) -> str:
        """The one line for a slpy.errors.WriteError."""
        when = "there is space" if e.no_space else "it can be written"
        if not self.resumable():
            return f"{e}; nothing was sampled yet: run again once {when}"
        return (f"{e}; {self._keeps()}: once {when},  slpy run --resume {self.out}  "
                f"continues")
