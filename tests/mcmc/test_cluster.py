"""Chains on clusters: a real dask.distributed LocalCluster whose worker processes work
in folders of their own (not the client's), and Ray. Chains take the prior's text and
the data with them and bring their traces back, so the runs are those of --jobs 1,
byte for byte; a chain's error reaches the client as itself, without hanging."""
import concurrent.futures
import os
import shutil
import subprocess
import sys
import tempfile
from pathlib import Path

import numpy as np
import pytest
from click.testing import CliRunner

from slpy.cli import main

from .test_run import run_dir_bytes

ROOT = Path(__file__).resolve().parents[2]
# a prior that loads (the client checks it) but raises when a chain runs it
RAISES = "cart(T) :- X is foo + 1, T = leaf(X).\n"
ARGS = ["prior.slp", "--data", "data.csv", "-n", "150", "--chains", "2", "--temper", "2",
        "--seed", "3", "--holdout", "0.2", "--init", "start.pl", "-q"]


def _own_folder(base):
    """Run on each worker: work in a new folder of its own."""
    os.chdir(tempfile.mkdtemp(dir=base))
    return os.getcwd()


@pytest.fixture(scope="module")
def scheduler(tmp_path_factory):
    """The address of a LocalCluster of two worker processes, each in its own folder."""
    distributed = pytest.importorskip(
        "distributed", reason="dask.distributed is not installed (pip install 'slpy[dask]')")
    base = tmp_path_factory.mktemp("workers")
    cluster = distributed.LocalCluster(n_workers=2, threads_per_worker=1, processes=True,
                                       dashboard_address=None,
                                       local_directory=str(base / "scratch"))
    with distributed.Client(cluster) as client:
        folders = client.run(_own_folder, str(base))
    assert len(set(folders.values())) == 2 and os.getcwd() not in folders.values()
    yield cluster.scheduler_address
    cluster.close()


@pytest.fixture
def inputs(tmp_path, monkeypatch):
    """The client's folder, holding the inputs under relative names no worker sees."""
    shutil.copy(ROOT / "priors" / "growtree.slp", tmp_path / "prior.slp")
    shutil.copy(ROOT / "examples" / "data" / "kyphosis.csv", tmp_path / "data.csv")
    (tmp_path / "start.pl").write_text("node('Start', 8, leaf, leaf).\n")
    (tmp_path / "raises.slp").write_text(RAISES)
    monkeypatch.chdir(tmp_path)
    return tmp_path


def slpy_run(*args):
    r = CliRunner().invoke(main, ["run", *map(str, args)])
    assert r.exit_code == 0, r.output
    return r.output


def within(seconds, fn, *args, **kw):
    """fn(*args, **kw), failing the test if it has not returned after `seconds`."""
    pool = concurrent.futures.ThreadPoolExecutor(1)
    try:
        return pool.submit(fn, *args, **kw).result(timeout=seconds)
    finally:
        pool.shutdown(wait=False)


def test_dask_chains_are_the_chains_of_one_process(inputs, scheduler):
    slpy_run(*ARGS, "--out", "one")
    within(300, slpy_run, *ARGS, "--backend", "dask", "--scheduler", scheduler,
           "--out", "dask")
    one, dask = run_dir_bytes(inputs / "one"), run_dir_bytes(inputs / "dask")
    assert one == dask       # config.json too: the backend is not a setting
    assert {"chain_0/trace.csv", "chain_1/trace.csv", "predictions.csv"} <= set(one)


def test_a_chain_s_error_on_a_dask_worker_reaches_the_client(inputs, scheduler):
    # the command line: one line, exit 1, no hang
    r = subprocess.run([sys.executable, "-m", "slpy.cli", "run", "raises.slp", "--data",
                        "data.csv", "-n", "20", "--chains", "2", "--temper", "1",
                        "--proposal", "uc", "--backend", "dask", "--scheduler", scheduler,
                        "--out", "bad", "-q"], capture_output=True, text=True, timeout=300)
    assert r.returncode == 1, r.stderr
    assert r.stderr.strip().splitlines() == [
        "Error: the prior raised an error: Arithmetic: evaluable `foo/0' does not exist"]
    # the Python API: the error itself, with its type and message
    from slpy.terms.term import PrologError
    from slpy.mcmc.run import run
    cfg = dict(prior="raises.slp", data="data.csv", iterations=20, chains=2, temper=1,
               proposal="uc")
    with pytest.raises(PrologError, match="evaluable"):
        within(300, run, cfg, "bad2", quiet=True, backend="dask", scheduler=scheduler)


def test_estimators_run_their_chains_on_the_parallel_config_backend(inputs, scheduler):
    from distributed import Client
    from joblib import parallel_config
    from slpy.data import load_csv
    from slpy import BayesianTreeClassifier
    ds = load_csv("data.csv")
    X, y = ds.X, np.asarray(ds.classes)[ds.y]

    def fit():
        return BayesianTreeClassifier(n_iter=120, n_chains=2, tempering=2,
                                      random_state=1).fit(X, y)
    here = fit()
    with Client(scheduler), parallel_config(backend="dask"):
        there = within(300, fit)
    assert [(t.to_json(), w) for t, w in here.trees_] == \
        [(t.to_json(), w) for t, w in there.trees_]
    for k in here.trace_:
        assert np.array_equal(here.trace_[k], there.trace_[k]), k
    assert [c.index for c in there.chains_] == [0, 1]
    assert np.array_equal(here.predict_proba(X), there.predict_proba(X))


def test_ray_chains_are_the_chains_of_one_process(inputs):
    ray = pytest.importorskip(
        "ray", reason="Ray is not installed (pip install 'slpy[ray]'; a large install "
                      "kept out of the test extra)")
    # a local Ray instance with two worker processes (Ray 2.x has no local mode)
    try:
        ray.init(num_cpus=2, include_dashboard=False, log_to_driver=False)
    except Exception as e:     # noqa: BLE001 - whatever stops Ray starting here
        pytest.skip(f"Ray does not start on this machine: {e}")
    try:
        slpy_run(*ARGS, "--out", "one")
        within(300, slpy_run, *ARGS, "--backend", "ray", "--out", "ray")
    finally:
        ray.shutdown()
    assert run_dir_bytes(inputs / "one") == run_dir_bytes(inputs / "ray")


def test_a_backend_that_is_not_installed_or_a_scheduler_that_does_not_answer(inputs,
                                                                              monkeypatch):
    args = ["run", "prior.slp", "--data", "data.csv", "-n", "20", "-q"]
    monkeypatch.setitem(sys.modules, "ray", None)          # as if not installed
    r = CliRunner().invoke(main, [*args, "--backend", "ray", "--out", "r"])
    assert r.exit_code == 2 and "pip install 'slpy[ray]'" in r.output
    assert len(r.output.strip().splitlines()) == 1
    r = CliRunner().invoke(main, [*args, "--scheduler", "tcp://127.0.0.1:1", "--out", "s"])
    assert r.exit_code == 2 and "give --backend dask or ray" in r.output
    pytest.importorskip("distributed", reason="dask.distributed is not installed")
    r = CliRunner().invoke(main, [*args, "--backend", "dask", "--scheduler",
                                  "tcp://127.0.0.1:1", "--out", "d"])
    assert r.exit_code == 2 and "cannot reach the dask scheduler" in r.output, r.output
    assert not (inputs / "d").exists()     # refused before anything was written
