"""The progress of chains: a chain's own bar or lines (an observer of
slpy.mcmc.chain.sample_chain), the :class:`Board` on which chains running in other
processes of this machine post their progress for one bar in the parent, and where a
deferred Ctrl-C stops a chain."""
from __future__ import annotations

import contextlib
import os
import struct
import sys
import tempfile
import threading
import time

__all__ = ["Progress", "Board", "progress_bar"]

SLOT = struct.Struct("<q")       # a chain's iterations done, in its slot of the board


class Progress:
    """Called after each iteration: a tqdm bar on a terminal, plain periodic lines
    otherwise, nothing when not shown; the chain's iterations posted to a Board
    (`board`: its file) twice a second; and the point where a deferred Ctrl-C stops
    the chain (see deferred_interrupt).

    The clock starts at the first iteration, so the time to compile the kernels and
    draw the start does not make the first estimate absurd (it once read 43 hours).
    """

    def __init__(self, total, label, show=True, board: str | None = None, index: int = 0):
        self.total = total
        self.label = label
        self.show = show
        self.accepted = 0
        self.bar = None
        self.t0 = None
        self.last = None
        self.interrupted = False
        self.slot = _Slot(board, index) if board else None

    def __call__(self, sw):
        """An observer of slpy.mcmc.chain.sample_chain: sw is the iteration's Sweep."""
        if self.interrupted:
            raise KeyboardInterrupt   # the chain loop keeps what it has
        self.accepted += sw.info.accepted
        if self.slot is not None:
            self.slot.post(sw.it + 1, sw.it + 1 == self.total)
        if not self.show:
            return
        done, state = sw.it + 1, sw.state
        now = time.perf_counter()
        if self.t0 is None:
            self.t0, self.last, self.first = now, now, done
            if sys.stderr.isatty() or _in_notebook():
                self.bar = progress_bar(self.total, self.label, done)
            return
        if self.bar is not None:
            if now - self.last > 0.5 or done == self.total:
                self.bar.update(done - self.bar.n)
                self.bar.set_postfix(loglik=f"{state.log_lik:.2f}",
                                     acc=f"{self.accepted / done:.2f}", refresh=False)
                self.last = now
        elif now - self.last > 10 or done == self.total:
            rate = (done - self.first) / max(now - self.t0, 1e-9)
            sys.stderr.write(f"{self.label}: {done}/{self.total} it, {rate:.0f} it/s, "
                             f"log-lik {state.log_lik:.2f}, acceptance "
                             f"{self.accepted / done:.3f}\n")
            self.last = now

    @contextlib.contextmanager
    def deferred_interrupt(self):
        """Ctrl-C stops the chain after the iteration under way, not inside it: a
        KeyboardInterrupt raised inside a compiled kernel comes out as a SystemError
        and would lose the run. A second Ctrl-C interrupts at once."""
        import signal
        if threading.current_thread() is not threading.main_thread():
            yield
            return

        def handler(signum, frame):
            if self.interrupted:
                raise KeyboardInterrupt
            self.interrupted = True
        if signal.getsignal(signal.SIGINT) is signal.SIG_IGN:   # a background job
            yield
            return
        old = signal.signal(signal.SIGINT, handler)
        try:
            yield
        finally:
            signal.signal(signal.SIGINT, old)

    def close(self):
        if self.bar is not None:
            self.bar.close()
        if self.slot is not None:
            self.slot.close()


class _Slot:
    """A chain's slot on a Board's file."""

    def __init__(self, path: str, index: int):
        self.fd = os.open(path, os.O_WRONLY)
        self.offset = SLOT.size * index
        self.last = 0.0

    def post(self, done: int, force: bool = False) -> None:
        now = time.monotonic()
        if force or now - self.last > 0.5:
            os.pwrite(self.fd, SLOT.pack(done), self.offset)
            self.last = now

    def close(self) -> None:
        os.close(self.fd)


class Board:
    """One display of the progress of `chains` chains of `total` iterations each that
    run in other processes of this machine (or one after another here): each posts
    its iterations done to its slot of a small file (Progress's `board`), and a
    thread of this process draws them as one bar on a terminal (or in a notebook),
    or as a line every `every` seconds elsewhere. A context manager."""

    def __init__(self, chains: int, total: int, label: str = "", every: float = 10.0):
        self.chains, self.total, self.every = chains, total, every
        self.label = label or f"{chains} chains"
        fd, self.path = tempfile.mkstemp(prefix="slpy-progress-")
        try:
            os.write(fd, bytes(SLOT.size * chains))
        except OSError:
            os.unlink(self.path)
            raise
        finally:
            os.close(fd)
        self._stop = threading.Event()
        self._thread = threading.Thread(target=self._draw, daemon=True)
        self.bar = None

    def done(self) -> int:
        """The chains' iterations done, summed."""
        with open(self.path, "rb") as f:
            data = f.read(SLOT.size * self.chains)
        return sum(SLOT.unpack_from(data, k * SLOT.size)[0]
                   for k in range(len(data) // SLOT.size))

    def _draw(self) -> None:
        if sys.stderr.isatty() or _in_notebook():
            self.bar = progress_bar(self.chains * self.total, self.label)
        t0 = last = time.monotonic()
        while not self._stop.wait(0.5):
            done = self.done()
            if self.bar is not None:
                self.bar.update(done - self.bar.n)
            elif time.monotonic() - last >= self.every:
                last = time.monotonic()
                sys.stderr.write(f"{self.label}: {done}/{self.chains * self.total} it, "
                                 f"{done / max(last - t0, 1e-9):.0f} it/s\n")

    def __enter__(self):
        self._thread.start()
        return self

    def __exit__(self, *exc):
        self._stop.set()
        self._thread.join()
        if self.bar is not None:
            if exc[0] is None:
                self.bar.update(self.done() - self.bar.n)
            self.bar.close()
        with contextlib.suppress(OSError):
            os.unlink(self.path)


def progress_bar(total: int, label: str, initial: int = 0):
    """A tqdm bar: a widget in Jupyter with ipywidgets; without it, text on standard
    output (a notebook shows standard error in red); text on standard error in a
    terminal."""
    from tqdm import tqdm
    kw = dict(total=total, initial=initial, desc=label, unit="it", mininterval=0.5)
    if not _in_notebook():
        return tqdm(file=sys.stderr, **kw)
    try:
        import ipywidgets  # noqa: F401  (tqdm.notebook needs it)
        from tqdm.notebook import tqdm as widget
    except ImportError:
        return tqdm(file=sys.stdout, ncols=100, **kw)
    return widget(**kw)


def _in_notebook() -> bool:
    """Running in a Jupyter kernel (whose standard error is not a terminal)."""
    shell = sys.modules.get("IPython")
    ip = shell.get_ipython() if shell is not None else None
    return ip is not None and type(ip).__name__ == "ZMQInteractiveShell"
