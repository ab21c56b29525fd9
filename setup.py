"""Build hook: the wheel carries the numba kernels of the README's first command.

Everything else is in pyproject.toml. After build_py has copied the package, that
command runs once against the copy, cut to a few iterations (slpy/_kernel_build.py),
and the kernels it compiled go into the wheel; a first run on this machine then loads
them instead of compiling for half a minute. Nothing here fails a build: if the run
cannot be made, the wheel has no kernels and they compile on first use, as before.
Editable installs skip it (a checkout compiles into the user's cache).
"""
from __future__ import annotations

import os
import shutil
import subprocess
import sys
import tempfile

from setuptools import setup
from setuptools.command.build_py import build_py

ROOT = os.path.dirname(os.path.abspath(__file__))


def _ship_kernels(build_lib: str) -> str:
    """Why no kernels were shipped ("" when they were)."""
    if not os.path.exists(os.path.join(ROOT, "examples", "data", "bcw.csv")):
        return "no examples/data/bcw.csv"
    path = [os.path.abspath(build_lib), *filter(None, os.environ.get("PYTHONPATH", "")
                                                  .split(os.pathsep))]
    with tempfile.TemporaryDirectory() as tmp:
        env = dict(os.environ, NUMBA_CACHE_DIR=os.path.join(tmp, "numba"),
                   PYTHONDONTWRITEBYTECODE="1",
                   PYTHONPATH=os.pathsep.join(path))
        try:
            # -P and cwd: the copy in build_lib, not the checkout, is imported
            done = subprocess.run([sys.executable, "-P", "-m", "slpy._kernel_build", ROOT],
                                  cwd=tmp, env=env, timeout=1800, capture_output=True,
                                  text=True)
        except (OSError, subprocess.TimeoutExpired) as e:
            return str(e)
    if done.returncode:
        return (done.stderr.strip().splitlines() or [f"exit {done.returncode}"])[-1]
    print(done.stdout.strip())
    return ""


class BuildPy(build_py):
    def run(self):
        super().run()
        # none left from an earlier build in the same build folder
        shutil.rmtree(os.path.join(self.build_lib, "slpy", "_kernel_cache"),
                      ignore_errors=True)
        if getattr(self, "editable_mode", False) or os.environ.get("SLPY_NO_KERNEL_CACHE"):
            return
        print("slpy: compiling the kernels of the README's first run into the wheel")
        why = _ship_kernels(self.build_lib)
        if why:
            print(f"slpy: the wheel ships no compiled kernels ({why}); they compile on "
                  f"first use", file=sys.stderr)


setup(cmdclass={"build_py": BuildPy})
