"""Compiled kernels shipped in the wheel (setup.py builds them, _numba_config unpacks).

numba keeps a function's compiled code in a folder named after the absolute directory
of its source file, so a cache made while building cannot be used where the package is
installed as it is. The wheel carries it as ``slpy/_kernel_cache/<kernels hash>/<dir>``,
``<dir>`` the source directory relative to the package, and the first process that
needs a kernel copies it into the user's cache under the installed directories' names.
numba still checks each entry (its source's hash, numba's version, the CPU): an entry
built elsewhere is ignored and the kernel compiled, as without this.

The build's side is slpy/_kernel_build.py.
"""
from __future__ import annotations

import os
import shutil

PACKAGE = os.path.dirname(os.path.abspath(__file__))
SHIPPED = os.path.join(PACKAGE, "_kernel_cache")


def _subpath(directory: str) -> str:
    from numba.core.caching import _CacheLocator
    return _CacheLocator.get_suitable_cache_subpath(os.path.join(directory, "x.py"))


def _package_dirs():
    for directory, dirs, _ in os.walk(PACKAGE):
        dirs[:] = [d for d in dirs if d not in ("_kernel_cache", "__pycache__")]
        yield directory, os.path.relpath(directory, PACKAGE)


def unpack(cache_path: str, tag: str) -> None:
    """Copy the shipped kernels of hash ``tag`` into ``cache_path`` (numba's CACHE_DIR)
    once, when there are any and that folder has not been filled yet."""
    shipped = os.path.join(SHIPPED, tag)
    marker = os.path.join(cache_path, ".unpacked")
    if not os.path.isdir(shipped) or os.path.exists(marker):
        return
    try:
        for directory, rel in _package_dirs():
            src = os.path.join(shipped, rel)
            dst = os.path.join(cache_path, _subpath(directory))
            if os.path.isdir(src) and not os.path.exists(dst):  # never over kernels
                part = f"{dst}.{os.getpid()}"                  # compiled here
                shutil.copytree(src, part)
                try:        # whole or not at all, for another process starting too
                    os.rename(part, dst)
                except OSError:
                    shutil.rmtree(part, ignore_errors=True)
        open(marker, "w").close()
    except (OSError, ImportError):
        pass            # the kernels then compile on first use


def pack(cache_path: str, tag: str) -> int:
    """Copy ``cache_path``'s kernels into SHIPPED/tag (and nothing older: a build
    folder is reused); returns how many files."""
    shutil.rmtree(SHIPPED, ignore_errors=True)
    n = 0
    for directory, rel in _package_dirs():
        src = os.path.join(cache_path, _subpath(directory))
        if os.path.isdir(src):
            shutil.copytree(src, os.path.join(SHIPPED, tag, rel), dirs_exist_ok=True)
            n += len(os.listdir(src))
    return n
