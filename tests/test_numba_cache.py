"""The numba cache is keyed by the text of every kernel module: numba checks only the
file of the function it loads, so a kernel whose callee in another file changed would
otherwise load stale compiled code."""
import os
import shutil
import subprocess
import sys
from pathlib import Path

import slpy
from slpy import _numba_config


def _cache_dir(pkg_parent: Path, env_dir: Path) -> str:
    code = "from slpy._numba_config import CACHE_DIR; print(CACHE_DIR)"
    env = dict(os.environ, PYTHONPATH=str(pkg_parent), NUMBA_CACHE_DIR=str(env_dir))
    return subprocess.run([sys.executable, "-c", code], env=env, capture_output=True,
                          text=True, check=True, cwd=pkg_parent).stdout.strip()


def test_a_changed_callee_moves_the_cache(tmp_path):
    src = Path(slpy.__file__).resolve().parent
    shutil.copytree(src, tmp_path / "pkg" / "slpy",
                    ignore=shutil.ignore_patterns("__pycache__"))
    before = _cache_dir(tmp_path / "pkg", tmp_path / "cache")
    kernels = tmp_path / "pkg" / "slpy" / "compiled" / "_kernels.py"
    kernels.write_text(kernels.read_text() + "\n# a change\n")
    after = _cache_dir(tmp_path / "pkg", tmp_path / "cache")
    assert Path(before).parent == Path(after).parent == tmp_path / "cache"
    assert before != after
    # a module without kernels is not part of the key
    other = tmp_path / "pkg" / "slpy" / "mcmc" / "chain.py"
    other.write_text(other.read_text() + "\n# a change\n")
    assert _cache_dir(tmp_path / "pkg", tmp_path / "cache") == after


def test_naming_the_folder_itself_does_not_nest_it(tmp_path):
    if _numba_config.CACHE_DIR is None:
        return
    here = Path(_numba_config.CACHE_DIR)
    assert here.name == _numba_config.kernels_hash()
    parent = Path(slpy.__file__).resolve().parent.parent
    assert _cache_dir(parent, here) == str(here)


_COMPILE = """
import os, sys
import numpy as np
from slpy import _kernel_cache, _numba_config
from slpy.trees._lik_kernels import _dirichlet_leaf as f
f(np.array([3.0, 1.0]), np.array([1.0, 1.0]))
print(sum(f.stats.cache_hits.values()), sum(f.stats.cache_misses.values()))
if sys.argv[1] == "pack":
    _kernel_cache.pack(_numba_config.CACHE_DIR, os.path.basename(_numba_config.CACHE_DIR))
"""


def _compile(pkg_parent: Path, cache: Path, what: str) -> tuple[int, int]:
    env = dict(os.environ, PYTHONPATH=str(pkg_parent), NUMBA_CACHE_DIR=str(cache),
               PYTHONDONTWRITEBYTECODE="1")
    out = subprocess.run([sys.executable, "-P", "-c", _COMPILE, what], env=env,
                         capture_output=True, text=True, check=True, cwd=pkg_parent)
    hits, misses = out.stdout.split()
    return int(hits), int(misses)


def test_kernels_packed_in_one_place_load_where_the_package_is_installed(tmp_path):
    # as setup.py packs them in build/lib and a wheel installs them elsewhere
    src = Path(slpy.__file__).resolve().parent
    built, installed = tmp_path / "build" / "lib", tmp_path / "site-packages"
    shutil.copytree(src, built / "slpy", ignore=shutil.ignore_patterns(
        "__pycache__", "_kernel_cache"))
    assert _compile(built, tmp_path / "build-cache", "pack") == (0, 1)
    shipped = built / "slpy" / "_kernel_cache"
    assert [p.name for p in shipped.iterdir()] == [_numba_config.kernels_hash()]
    shutil.copytree(built / "slpy", installed / "slpy")
    # a new user's empty cache: loaded from what the package ships, not compiled
    assert _compile(installed, tmp_path / "user-cache", "") == (1, 0)
    # without it, the same checkout compiles (the test can fail)
    shutil.rmtree(installed / "slpy" / "_kernel_cache")
    assert _compile(installed, tmp_path / "user-cache-2", "") == (0, 1)
