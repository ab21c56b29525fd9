"""A program's source files: which file a name loads, its text, and the errors of
loading (one per problem, each ``file:line: message``)."""
from __future__ import annotations

from pathlib import Path

from ..errors import PicklableError
from ..terms.errors import _err, permission_error
from ..terms.term import Struct, atom, PrologError

CONSULT_EXTS = (".slp", ".pl")


class LoadError(PrologError):
    """One problem found while loading a file (file:line: message)."""

    def __init__(self, message, term=None):
        super().__init__(term if term is not None else _err(atom("load_error")), message)
        self.message = message


class LoadErrors(PicklableError):
    """All the problems found while loading; str() lists one per line."""

    def __init__(self, errors):
        self.errors = errors
        super().__init__("\n".join(str(e) for e in errors))


def _source_path(path: Path) -> Path:
    """The file consult loads for `path`: itself when it ends in .slp or .pl, else with
    the first of those that exists."""
    if not path.name:
        raise PrologError(_existence_file(path), f"{path}: not a file")
    if path.suffix not in CONSULT_EXTS:
        for ext in CONSULT_EXTS:
            if path.with_suffix(ext).exists():
                return path.with_suffix(ext)
        if path.exists():
            raise PrologError(permission_error(
                "consult", "source_sink", atom(str(path))).term,
                f"{path}: not a program file (a program's files end in .slp or .pl)")
    if not path.exists():
        raise PrologError(_existence_file(path), f"{path}: no such file")
    return path


def _source_text(path: Path) -> str:
    """A source file's text (UTF-8); one that does not read is a LoadErrors naming the
    file, and the line and column of the first byte that is not UTF-8."""
    try:
        raw = path.read_bytes()
    except OSError as e:
        raise LoadErrors([LoadError(f"{path}: cannot read ({e.strerror or e})")]) from None
    try:
        return raw.decode("utf-8-sig")
    except UnicodeDecodeError as e:
        line = raw.count(b"\n", 0, e.start) + 1
        col = e.start - raw.rfind(b"\n", 0, e.start)
        raise LoadErrors([LoadError(f"{path}:{line}:{col}: not UTF-8 text (byte "
                                    f"0x{raw[e.start]:02x}): save the file as UTF-8")]) from None


def _existence_file(path):
    return _err(Struct("existence_error", (atom("source_sink"), atom(str(path)))))
