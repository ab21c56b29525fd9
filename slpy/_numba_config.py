"""The one place where numba compiler flags are chosen.

Every kernel in slpy is compiled with :func:`kernel` so that the flags agree
everywhere and can be changed in one line:

- ``cache=True``: compiled code is kept in the user's cache directory
  (``~/.cache/slpy/numba/<hash of the kernels' sources>`` on Linux;
  ``$NUMBA_CACHE_DIR/<hash>`` when set), so a second process starts scoring trees
  without paying for compilation again. Never next to
  the source: in an installed package that is site-packages, where the cache files
  would outlive an uninstall and shadow a later editable install. When no cache
  directory is writable, kernels are compiled in each process instead.
- ``fastmath=False``: the likelihood kernels sum many ``lgamma`` terms whose order
  must not be reassociated if results are to match the NumPy/SciPy references to
  1e-9 and be reproducible across runs.
- ``nogil=True``: kernels never touch Python objects, so chains run in threads can
  overlap.
- ``boundscheck=False``: the public Python wrappers validate indices before calling.
- ``error_model="numpy"``: division by zero gives inf/nan instead of raising, which
  lets numba drop the zero checks from inner loops. Kernels guard their divisions.

``NUMBA_DISABLE_JIT=1`` still works (for a coverage run): ``numba.njit`` then
returns the Python function unchanged.
"""
from __future__ import annotations

import hashlib
import os
import tempfile

import numba
import platformdirs


def kernels_hash() -> str:
    """A hash of the text of every slpy module that compiles kernels. numba's cache
    checks the file of the function it loads and no other: a kernel whose callee in
    another file changed would load stale code (a `git pull` in an editable install).
    Caching under this hash recompiles them all instead."""
    root = os.path.dirname(os.path.abspath(__file__))
    files = sorted(os.path.join(d, f) for d, _, names in os.walk(root) for f in names
                   if f.endswith(".py"))
    h = hashlib.blake2b(digest_size=8)
    for path in files:
        with open(path, "rb") as fh:
            text = fh.read()
        if b"_numba_config import" in text:
            h.update(os.path.relpath(path, root).encode() + b"\0" + text)
    return h.hexdigest()


def cache_dir() -> str | None:
    """Where compiled kernels are cached (set as numba's CACHE_DIR): a folder named
    by :func:`kernels_hash` in $NUMBA_CACHE_DIR or the user's cache directory (or
    that folder itself, when $NUMBA_CACHE_DIR names it); None when no directory is
    writable."""
    base = numba.config.CACHE_DIR or os.path.join(
        platformdirs.user_cache_dir("slpy", appauthor=False), "numba")
    tag = kernels_hash()
    path = base if os.path.basename(os.path.normpath(base)) == tag else \
        os.path.join(base, tag)
    try:
        os.makedirs(path, exist_ok=True)
        tempfile.TemporaryFile(dir=path).close()
    except OSError:
        return None
    return path


# Before any kernel is decorated: numba picks a function's cache locator then.
CACHE_DIR = cache_dir()
if CACHE_DIR is not None:
    numba.config.CACHE_DIR = CACHE_DIR
    from ._kernel_cache import unpack     # the kernels a wheel ships, if it does
    unpack(CACHE_DIR, os.path.basename(CACHE_DIR))

FLAGS: dict = {
    "cache": CACHE_DIR is not None,
    "fastmath": False,
    "nogil": True,
    "boundscheck": False,
    "error_model": "numpy",
}


def kernel(fn=None, **overrides):
    """Compile ``fn`` with the project flags (``overrides`` only for a local reason).

    Usable bare (``@kernel``) or with arguments (``@kernel(inline="always")``).
    """
    flags = {**FLAGS, **overrides}
    if fn is None:
        return lambda f: numba.njit(**flags)(f)
    return numba.njit(**flags)(fn)


def is_compiled(fn) -> bool:
    """True when ``fn`` is a numba dispatcher (False under NUMBA_DISABLE_JIT)."""
    return isinstance(fn, numba.core.dispatcher.Dispatcher)
