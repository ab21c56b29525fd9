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
