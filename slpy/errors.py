"""Exceptions that reach the user intact from another process.

Chains run in joblib worker processes, whose exceptions come back pickled. Python
unpickles an exception by calling its class with ``args``, which fails (or garbles the
message) for any class whose ``__init__`` takes other arguments than the message.
:class:`PicklableError` restores ``args`` and the attributes as they were instead.
This module imports nothing, so every layer can use it.
"""
from __future__ import annotations

__all__ = ["PicklableError", "RunError", "RunDirError", "TraceError", "WorkerError",
           "WriteError", "portable"]


class PicklableError(Exception):
    """Base of slpy's exceptions: unpickles without replaying ``__init__``."""

    def __reduce__(self):
        return (_restore, (type(self), self.args, dict(self.__dict__)))


def _restore(cls, args, state):
    e = cls.__new__(cls)
    e.args = args
    e.__dict__.update(state)
    return e


class RunError(PicklableError):
    """A bad setting or input of a run (``slpy run``, the estimators, a model family
    reading a run's data): the message is one line for the user."""


class RunDirError(PicklableError):
    """A run directory that cannot be used as asked: one line for the user
    (slpy.runs)."""


class TraceError(RunDirError):
    """A trace that cannot be resumed from or read: one line for the user."""


class WriteError(PicklableError):
    """An output file that could not be written (a full disk, a file size limit, no
    permission): the message is one line naming the file; `errno` says why."""
    path = None
    errno = None

    @classmethod
    def of(cls, path, error: OSError) -> "WriteError":
        e = cls(f"cannot write {path}: {error.strerror or error}")
        e.path, e.errno = str(path), error.errno
        return e

    @property
    def no_space(self) -> bool:
        """The disk (or a quota, or a file size limit) is full: more space helps."""
        import errno
        return self.errno in (errno.ENOSPC, errno.EFBIG, errno.EDQUOT)


class WorkerError(PicklableError, RuntimeError):
    """An error in another process or machine that could not be sent back as it was
    (it does not pickle): the message is its type and first line."""


def portable(e: BaseException) -> BaseException:
    """`e` if it survives pickling and unpickling (the trip back from a worker), else
    a WorkerError with its message: a cluster client could otherwise wait for ever on
    an error it cannot unpickle."""
    import pickle
    try:
        pickle.loads(pickle.dumps(e))
        return e
    except Exception:       # noqa: BLE001 - whatever pickling raises
        return WorkerError(f"{type(e).__name__}: {e}".splitlines()[0])
