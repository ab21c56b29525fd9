"""The progress of a chain in this process: a bar, or lines, and where a deferred
Ctrl-C stops it (an observer of slpy.mcmc.chain.sample_chain)."""
from __future__ import annotations

import contextlib
import sys
import time

__all__ = ["Progress"]


class Progress:
    """Called after each iteration: a tqdm bar on a terminal, plain periodic lines
    otherwise, nothing when not shown; and the point where a deferred Ctrl-C stops the
    chain (see deferred_interrupt).

    The clock starts at the first iteration, so the time to compile the kernels and
    draw the start does not make the first estimate absurd (it once read 43 hours).
    """

    def __init__(self, total, label, show=True):
        self.total = total
        self.label = label
        self.show = show
        self.accepted = 0
        self.bar = None
        self.t0 = None
        self.last = None
        self.interrupted = False

    def __call__(self, sw):
        """An observer of slpy.mcmc.chain.sample_chain: sw is the iteration's Sweep."""
        if self.interrupted:
            raise KeyboardInterrupt   # the chain loop keeps what it has
        self.accepted += sw.info.accepted
        if not self.show:
            return
        done, state = sw.it + 1, sw.state
        now = time.perf_counter()
        if self.t0 is None:
            self.t0, self.last, self.first = now, now, done
            if sys.stderr.isatty() or _in_notebook():
                import warnings
                with warnings.catch_warnings():   # without ipywidgets: text, and a warning
                    warnings.simplefilter("ignore")
                    from tqdm.auto import tqdm    # a widget in Jupyter, text elsewhere
                self.bar = tqdm(total=self.total, initial=done, desc=self.label, unit="it",
                                mininterval=0.5, file=sys.stderr)
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
        import threading
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


def _in_notebook() -> bool:
    """Running in a Jupyter kernel (whose standard error is not a terminal)."""
    shell = sys.modules.get("IPython")
    ip = shell.get_ipython() if shell is not None else None
    return ip is not None and type(ip).__name__ == "ZMQInteractiveShell"
