"""`slpy run`: reproducible run directories, parallel chains, Ctrl-C and --resume."""
import json
import os
import signal
import subprocess
import sys
import time
from pathlib import Path

from click.testing import CliRunner

from slpy.cli import main

ROOT = Path(__file__).resolve().parents[2]
PRIOR = str(ROOT / "priors" / "growtree.slp")
DATA = str(ROOT / "examples" / "data" / "kyphosis.csv")


def run_dir_bytes(d: Path) -> dict:
    """Every file of a run directory but timing.json, the one that holds timings."""
    assert (d / "timing.json").is_file()
    return {str(f.relative_to(d)): f.read_bytes() for f in sorted(d.rglob("*"))
            if f.is_file() and f.name != "timing.json"}


def slpy(*args):
    r = CliRunner().invoke(main, list(args))
    assert r.exit_code == 0, r.output
    return r.output


def test_same_seed_same_bytes(tmp_path):
    common = [PRIOR, "--data", DATA, "-n", "600", "--seed", "7", "--holdout", "0.2", "-q"]
    slpy("run", *common, "--out", str(tmp_path / "a"))
    slpy("run", *common, "--out", str(tmp_path / "b"))
    a, b = run_dir_bytes(tmp_path / "a"), run_dir_bytes(tmp_path / "b")
    assert a == b
    assert {"config.json", "manifest.json", "models.csv", "summary.json", "summary.txt",
            "predictions.csv", "chain_0/trace.csv", "chain_0/models.csv"} <= set(a)
    assert "seconds" not in a["summary.json"].decode() + a["summary.txt"].decode()


def test_jobs_do_not_change_the_chains(tmp_path):
    common = [PRIOR, "--data", DATA, "-n", "400", "--seed", "3", "--chains", "2", "-q",
              "--temper", "2"]
    slpy("run", *common, "--jobs", "1", "--out", str(tmp_path / "j1"))
    slpy("run", *common, "--jobs", "2", "--out", str(tmp_path / "j2"))
    a, b = run_dir_bytes(tmp_path / "j1"), run_dir_bytes(tmp_path / "j2")
    a.pop("config.json"), b.pop("config.json")  # records --jobs itself
    assert a == b


def test_summary_and_defaults(tmp_path):
    out = slpy("run", PRIOR, "--data", DATA, "-n", "500", "--out", str(tmp_path / "s"))
    assert "acceptance rate" in out and "best log-likelihood" in out and "#1:" in out


def test_bad_input_is_one_line(tmp_path):
    r = CliRunner().invoke(main, ["run", PRIOR, "--data", DATA, "--proposal", "zz",
                                  "--out", str(tmp_path / "x")])
    assert r.exit_code != 0
    assert "unknown proposal" in r.output and "Traceback" not in r.output
    bad = tmp_path / "bad.csv"
    bad.write_text("a,b,class\n1,x,yes\n2,3,no\n")
    r = CliRunner().invoke(main, ["run", PRIOR, "--data", str(bad), "--out",
                                  str(tmp_path / "y")])
    assert r.exit_code != 0 and "Traceback" not in r.output
    assert len(r.output.strip().splitlines()) == 1


def test_interrupt_and_resume_equals_uninterrupted(tmp_path):
    # long enough that the interrupt lands part way on a fast machine too
    args = [PRIOR, "--data", DATA, "-n", "12000", "--seed", "5", "-q"]
    full = tmp_path / "full"
    slpy("run", *args, "--out", str(full))
    part = tmp_path / "part"
    env = dict(os.environ, PYTHONUNBUFFERED="1")
    # a shell running jobs in the background starts them with SIGINT ignored, and
    # Python then keeps it ignored: give the run the terminal's default back
    proc = subprocess.Popen([sys.executable, "-m", "slpy.cli", "run", *args, "--out",
                             str(part)], env=env, stdout=subprocess.PIPE,
                            stderr=subprocess.PIPE,
                            preexec_fn=lambda: signal.signal(signal.SIGINT, signal.SIG_DFL))
    trace = part / "chain_0" / "trace.csv"
    deadline = time.time() + 180  # a first run may compile the numba kernels
    while time.time() < deadline and (not trace.exists() or trace.stat().st_size < 2000):
        time.sleep(0.05)
    assert proc.poll() is None, "the run ended before it could be interrupted"
    proc.send_signal(signal.SIGINT)
    proc.wait(timeout=60)
    assert proc.returncode == 130, proc.stderr.read().decode()[-500:]
    rows = len(trace.read_text().splitlines()) - 1
    assert 0 < rows < 12000, "the run was interrupted part way"
    slpy("run", "--resume", str(part), "-q")
    assert run_dir_bytes(full) == run_dir_bytes(part)


def test_init_greedy_and_from_file(tmp_path):
    import numpy as np
    from slpy.mcmc.config import RunConfig
    from slpy.mcmc.model import build_model, initial_state, initial_term
    from slpy.data import load_csv
    from slpy.trees.greedy import greedy_tree
    from slpy.trees.term import canonical
    ds = load_csv(DATA)
    cfg = RunConfig(prior=PRIOR, data=DATA, init="greedy")
    model = build_model(cfg, ds)
    greedy = greedy_tree(model.scorer.rowsets, ds, min_leaf=5)
    assert canonical(greedy).startswith("node(")
    start = initial_state(model, initial_term(cfg, model, ds), np.random.default_rng(0))
    assert canonical(start.term) == canonical(greedy)
    init = tmp_path / "init.pl"
    init.write_text("node('Start', 8, leaf, leaf).\n")
    cfg = cfg.replace(init=str(init))
    start = initial_state(model, initial_term(cfg, model, ds), np.random.default_rng(0))
    assert canonical(start.term) == "node(Start,8,leaf,leaf)"
    # and through the command line
    slpy("run", PRIOR, "--data", DATA, "-n", "20", "--init", "greedy", "-q",
         "--out", str(tmp_path / "g"))
    assert (tmp_path / "g" / "summary.json").exists()


def test_holdout_rows_do_not_depend_on_the_chain_seed():
    import numpy as np
    from slpy.trees.family import load_data
    def held_out(seed, split_seed):
        cfg = dict(data=DATA, holdout=0.25, seed=seed, split_seed=split_seed)
        return load_data(cfg)[1].X
    assert np.array_equal(held_out(1, 0), held_out(2, 0))   # same split seed, same rows
    assert not np.array_equal(held_out(1, 0), held_out(1, 3))


def test_undeclared_parameter_is_an_error():
    r = CliRunner().invoke(main, ["run", PRIOR, "--data", DATA, "-n", "10", "-p", "alpah=0.5",
                                  "-q"])
    assert r.exit_code != 0
    assert "declares no parameter alpah" in r.output and "Traceback" not in r.output


def test_progress_clock_starts_at_the_first_iteration(capsys):
    # compiling the kernels and drawing the start once made the first estimate read
    # 43 hours: the time before the first iteration does not count
    from types import SimpleNamespace
    from slpy.mcmc.progress import Progress
    p = Progress(1000, "chain 0")
    time.sleep(0.5)                      # the start: kernels compiling
    state, info = SimpleNamespace(log_lik=-1.0), SimpleNamespace(accepted=True)
    p(SimpleNamespace(it=0, state=state, info=info))
    p(SimpleNamespace(it=999, state=state, info=info))
    line = capsys.readouterr().err.strip()
    assert line.startswith("chain 0: 1000/1000 it,")
    assert int(line.split(",")[1].split()[0]) > 10_000, line   # not 999 / 0.5 s


def test_ctrl_c_is_deferred_to_the_end_of_an_iteration():
    import signal
    from types import SimpleNamespace
    from slpy.mcmc.progress import Progress
    p = Progress(10, "chain 0", show=False)
    sweep = SimpleNamespace(it=2, state=SimpleNamespace(log_lik=0.0),
                            info=SimpleNamespace(accepted=False))
    with p.deferred_interrupt():
        os.kill(os.getpid(), signal.SIGINT)   # lands inside an iteration: noted only
        time.sleep(0.05)
        try:
            p(sweep)                          # the iteration's end: the chain stops here
        except KeyboardInterrupt:
            stopped = True
        else:
            stopped = False
    assert stopped and signal.getsignal(signal.SIGINT) is signal.default_int_handler
