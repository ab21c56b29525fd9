"""README.md opens with the two commands, and .ci/run runs both, in order."""
from pathlib import Path

ROOT = Path(__file__).resolve().parents[1]


def commands():
    return [ln.strip() for ln in (ROOT / "README.md").read_text().splitlines()
            if ln.startswith("    pip install")]


def test_two_commands_first():
    install_run, install_test = commands()[:2]
    assert "slpy run priors/growtree.slp --data examples/data/bcw.csv" in install_run
    assert install_test.endswith("python -m pytest -q -n auto --dist loadfile --durations=20")


def test_ci_runs_the_readme_commands_in_order():
    ci = [ln.strip() for ln in (ROOT / ".ci" / "run").read_text().splitlines()]
    first, second = commands()[:2]
    assert first in ci and second in ci
    assert ci.index(first) < ci.index(second)


def test_numba_cache_is_not_in_the_package():
    # an installed package's folder is site-packages: cache files left there outlive
    # `pip uninstall` and shadow a later editable install
    import numba
    import slpy
    from slpy import _numba_config
    from slpy.data import _kernels as data_k
    from slpy.pcfg import _kernels as pcfg_k
    from slpy.trees import _lik_kernels as lik_k
    pkg = Path(slpy.__file__).resolve().parent
    paths = [f._cache._cache_path for m in (data_k, pcfg_k, lik_k)
             for f in vars(m).values()
             if isinstance(f, numba.core.dispatcher.Dispatcher) and f._cache is not None
             and hasattr(f._cache, "_cache_path")]
    if _numba_config.CACHE_DIR is None:
        assert not paths
        return
    assert paths
    for p in paths:
        assert pkg not in Path(p).resolve().parents, p
