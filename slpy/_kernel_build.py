"""The build's side of slpy._kernel_cache: run the README's first command against the
package being built, then pack the kernels it compiled into it (setup.py calls it).

    python -P -m slpy._kernel_build ROOT    # ROOT: the source tree (priors/, examples/)
"""
from __future__ import annotations

import os
import sys
import tempfile

from . import _numba_config as nc
from ._kernel_cache import PACKAGE, SHIPPED, pack

README_RUN = ["run", "priors/growtree.slp", "--data", "examples/data/bcw.csv", "-n", "40",
              "-q", "--jobs", "1"]        # paths in the source tree


def main(root: str) -> None:
    from .cli import main as cli
    if nc.CACHE_DIR is None:
        raise SystemExit("no writable numba cache directory")
    if os.path.dirname(PACKAGE) in (os.path.abspath(root), ""):
        raise SystemExit(f"imported the checkout's slpy ({PACKAGE}), not the build's")
    args = [os.path.join(root, a) if "/" in a else a for a in README_RUN]
    with tempfile.TemporaryDirectory() as out:
        try:
            cli([*args, "--out", os.path.join(out, "run")], standalone_mode=False)
        except SystemExit as e:
            if e.code:
                raise
    n = pack(nc.CACHE_DIR, os.path.basename(nc.CACHE_DIR))
    print(f"{n} compiled kernel files in {SHIPPED}")


if __name__ == "__main__":
    main(sys.argv[1])
