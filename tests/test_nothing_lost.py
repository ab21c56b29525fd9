"""Nothing lost, nothing silent (issue 26, items 3 to 6): a disk that fills while a run
writes (ENOSPC, or a file size limit's EFBIG), an --out that cannot be written, a
corrupt run directory, a Ray cluster that does not answer or does not start, and a
SIGINT sent to the parent process alone while worker processes sample. Each is one
line on standard error and a non-zero exit, never a traceback, and a run stopped part
way leaves a run directory that `slpy run --resume` finishes to the result of an
uninterrupted run."""
import errno
import fcntl
import json
import os
import pty
import re
import select
import shutil
import signal
import socket
import struct
import subprocess
import sys
import termios
import textwrap
import time
from pathlib import Path

import pytest
from click.testing import CliRunner

from slpy.cli import main

ROOT = Path(__file__).resolve().parents[1]
PRIOR = str(ROOT / "priors" / "growtree.slp")
DATA = str(ROOT / "examples" / "data" / "kyphosis.csv")
# a short run: 540 kept draws of one chain
ARGS = [PRIOR, "--data", DATA, "-n", "600", "--seed", "3", "--temper", "2", "--chains", "1",
        "-q"]


def run_dir_bytes(d: Path) -> dict:
    """Every file of a run directory but timing.json (the one with timings)."""
    return {str(f.relative_to(d)): f.read_bytes() for f in sorted(d.rglob("*"))
            if f.is_file() and f.name != "timing.json"}


def invoke(*args):
    return CliRunner().invoke(main, [str(a) for a in args])


def one_line_error(r, code):
    """The result's output is one `Error: ...` line and its exit status `code`."""
    assert r.exit_code == code, r.output
    lines = r.output.strip().splitlines()
    assert len(lines) == 1 and lines[0].startswith("Error: "), r.output
    assert "Traceback" not in r.output
    return lines[0]


@pytest.fixture(scope="module")
def full(tmp_path_factory):
    """The uninterrupted run of ARGS."""
    out = tmp_path_factory.mktemp("full") / "run"
    r = invoke("run", *ARGS, "--out", out)
    assert r.exit_code == 0, r.output
    return out


class FullDisk:
    """A text file that takes `room` more characters, then fails as a full disk does:
    it writes what fits and raises ENOSPC."""

    def __init__(self, f, room):
        self.f, self.room = f, room

    def write(self, s):
        if len(s) > self.room:
            self.f.write(s[:self.room])
            self.room = 0
            raise OSError(errno.ENOSPC, os.strerror(errno.ENOSPC))
        self.room -= len(s)
        return self.f.write(s)

    def __getattr__(self, name):
        return getattr(self.f, name)

    def __enter__(self):
        return self

    def __exit__(self, *exc):
        self.f.close()


def fill_disk_after(monkeypatch, module, name, room):
    """`open` in `module` gives files named `name` `room` characters of space."""
    def fake_open(path, mode="r", *a, **kw):
        f = open(path, mode, *a, **kw)
        return FullDisk(f, room) if Path(path).name == name and "r" not in mode else f
    monkeypatch.setattr(module, "open", fake_open, raising=False)


# -- item 3: a full disk -------------------------------------------------------------------

def test_a_disk_that_fills_mid_run_is_one_line_and_resume_finishes_the_run(
        tmp_path, monkeypatch, full):
    import slpy.traces
    out = tmp_path / "part"
    fill_disk_after(monkeypatch, slpy.traces, "trace.csv", 9000)
    line = one_line_error(invoke("run", *ARGS, "--out", out), 1)
    assert line.startswith(f"Error: cannot write {out / 'chain_0' / 'trace.csv'}: "
                           f"No space left on device;")
    kept = int(re.search(r"keeps (\d+) of 540 kept draws", line).group(1))
    assert 0 < kept < 540
    assert f"slpy run --resume {out} continues" in line
    assert not (out / "models.csv").exists()
    monkeypatch.undo()                                   # space again
    r = invoke("run", "--resume", out, "-q")
    assert r.exit_code == 0, r.output
    assert run_dir_bytes(out) == run_dir_bytes(full)


def test_a_file_size_limit_in_a_subprocess_is_one_line_and_resumable(tmp_path, full):
    # the case the issue saw: OSError [Errno 27] File too large from the trace writer
    out = tmp_path / "part"
    limit = (full / "chain_0" / "trace.csv").stat().st_size // 2
    code = (f"import resource, sys; resource.setrlimit(resource.RLIMIT_FSIZE, ({limit}, "
            f"{limit})); from slpy.cli import main; sys.argv[0] = 'slpy'; main()")
    r = subprocess.run([sys.executable, "-c", code, "run", *ARGS, "--out", str(out)],
                       capture_output=True, text=True, timeout=300)
    assert r.returncode == 1, r.stderr
    assert r.stdout == "" and "Traceback" not in r.stderr
    lines = r.stderr.strip().splitlines()
    assert len(lines) == 1, r.stderr
    assert re.fullmatch(rf"Error: cannot write {re.escape(str(out))}/chain_0/trace.csv: "
                        rf"File too large; {re.escape(str(out))} keeps \d+ of 540 kept "
                        rf"draws: once there is space, slpy run --resume "
                        rf"{re.escape(str(out))} continues", lines[0]), lines[0]
    r = invoke("run", "--resume", out, "-q")
    assert r.exit_code == 0, r.output
    assert run_dir_bytes(out) == run_dir_bytes(full)


def test_a_disk_full_before_the_run_started_or_after_the_chains(tmp_path, monkeypatch,
                                                                full):
    import slpy.runs
    # before: config.json is not written, so there is nothing to resume
    real = slpy.runs.RunDir.write_json

    def no_space(self, name, data):
        if name == "config.json":
            raise slpy.runs.WriteError.of(self.file(name),
                                          OSError(errno.ENOSPC, "No space left on device"))
        return real(self, name, data)
    monkeypatch.setattr(slpy.runs.RunDir, "write_json", no_space)
    line = one_line_error(invoke("run", *ARGS, "--out", tmp_path / "a"), 1)
    assert "config.json: No space left on device; nothing was sampled yet" in line
    assert "--resume" not in line
    monkeypatch.undo()
    # after: the traces are whole, models.csv is not (and no half file is left)
    out = tmp_path / "b"
    fill_disk_after(monkeypatch, slpy.runs, "models.csv.tmp", 100)
    line = one_line_error(invoke("run", *ARGS, "--out", out), 1)
    assert f"keeps 540 of 540 kept draws: once there is space, slpy run --resume {out}" \
        in line
    assert not (out / "models.csv").exists() and not (out / "models.csv.tmp").exists()
    monkeypatch.undo()
    assert invoke("run", "--resume", out, "-q").exit_code == 0
    assert run_dir_bytes(out) == run_dir_bytes(full)


def test_predict_and_report_out_that_cannot_be_written(tmp_path, monkeypatch, full):
    import slpy.report.predict
    bad = tmp_path / "no" / "such" / "folder"
    line = one_line_error(invoke("predict", full, "--data", DATA, "--out",
                                 bad / "p.csv"), 2)
    assert f"'--out': {bad / 'p.csv'}: cannot write the file (No such file or directory)" \
        in line
    blocker = tmp_path / "a-file"
    blocker.write_text("")
    line = one_line_error(invoke("report", full, "--out", blocker / "rep"), 2)
    assert f"'--out': {blocker / 'rep'}: cannot write there (Not a directory)" in line
    # a disk that fills while the CSV is written: one line, and the older file kept
    old = tmp_path / "p.csv"
    old.write_text("the predictions of yesterday\n")
    fill_disk_after(monkeypatch, slpy.report.predict, "p.csv.tmp", 500)
    line = one_line_error(invoke("predict", full, "--data", DATA, "--out", old), 1)
    assert line == f"Error: cannot write {old}: No space left on device"
    assert old.read_text() == "the predictions of yesterday\n"
    assert sorted(p.name for p in tmp_path.iterdir()) == ["a-file", "p.csv"]


def test_slpy_exact_on_a_full_disk(tmp_path, monkeypatch):
    import slpy.runs
    fill_disk_after(monkeypatch, slpy.runs, "models.csv.tmp", 50)
    out = tmp_path / "ex"
    line = one_line_error(invoke("exact", PRIOR, "--data", DATA, "--max-depth", "2",
                                 "--out", out, "-q"), 1)
    assert line == (f"Error: cannot write {out / 'models.csv'}: No space left on device; "
                    f"{out} is incomplete: run slpy exact again with --force once there "
                    f"is space")


# -- item 4: a corrupt run directory -----------------------------------------------------

def _replace_line(path: Path, k: int, new) -> None:
    lines = path.read_text().split("\n")
    lines[k - 1] = new(lines[k - 1])
    path.write_text("\n".join(lines))


CORRUPT = [       # file, line, the change, what the error says after file:line
    ("models.csv", 3, lambda s: '3,"node(Start,14,leaf",23,0.01,-38.09,2,1',
     r"an unterminated term \(1 bracket\(s\) left open\): 'node\(Start,14,leaf'"),
    ("models.csv", 2, lambda s: s + ",7", r"8 fields where the header has 7"),
    ("models.csv", 4, lambda s: s.rsplit(",", 1)[0], r"6 fields where the header has 7"),
    ("models.csv", 5, lambda s: s.replace('",', ",", 1), r"an unterminated or stray quote"),
    ("models.csv", 3, lambda s: s.replace(",-", ",x-", 1),
     r"'x-[\d.]+' in column 'log_lik' is not a number"),
    ("chain_0/models.csv", 3, lambda s: s.replace(",leaf)", ",leaf", 1),
     r"an unterminated term"),
    ("chain_0/trace.csv", 6, lambda s: s[:9], r"\d fields where the header has 8"),
    ("config.json", 3, lambda s: s + " oops", r"json:3:\d+: not JSON"),
]


@pytest.mark.parametrize("name,line,change,message", CORRUPT,
                         ids=[f"{c[0]}:{c[1]}-{i}" for i, c in enumerate(CORRUPT)])
def test_a_corrupt_run_directory_file_is_refused_with_its_file_and_line(
        tmp_path, full, name, line, change, message):
    run = tmp_path / "run"
    shutil.copytree(full, run)
    before = (run / name).read_text()
    _replace_line(run / name, line, change)
    assert (run / name).read_text() != before
    for args in (["report", run, "--out", tmp_path / "rep"],
                 ["predict", run, "--data", DATA]):
        got = one_line_error(invoke(*args), 1)
        assert got.startswith(f"Error: {run / name}:{line}:"), got
        assert re.search(message, got), got
    assert not (tmp_path / "rep").exists()


# -- item 5: Ray ------------------------------------------------------------------------

FAKE_RAY = {
    "ray/__init__.py": '''
        """A stand-in for Ray 2.5x in slpy's tests: ray.init logs on the "ray" logger
        (its own handler, on standard error), writes ~/.ray/auth_token when it starts a
        local instance and finds no token, waits for ever on an address where no
        cluster answers (FAKE_RAY=hang) and raises a long error (FAKE_RAY=fail)."""
        import logging, os, sys, time
        from pathlib import Path
        log = logging.getLogger("ray")
        log.addHandler(logging.StreamHandler(sys.stderr))
        log.setLevel(logging.INFO)
        log.propagate = False
        up = False
        calls = []

        def is_initialized():
            return up

        def init(address=None, logging_level=logging.INFO, **kw):
            global up
            calls.append(dict(kw, address=address))
            log.warning("Token authentication is enabled for this Ray cluster.")
            tokens = {"RAY_AUTH_TOKEN", "RAY_AUTH_TOKEN_PATH"}
            if address is None and not tokens & set(os.environ):
                token = Path.home() / ".ray" / "auth_token"
                token.parent.mkdir(parents=True, exist_ok=True)
                token.write_text("a token")
            mode = os.environ.get("FAKE_RAY", "ok")
            if mode == "hang" and address is not None:
                while True:
                    time.sleep(1)
            if mode == "fail":
                log.error("the raylet died")
                raise RuntimeError("Failed to start the raylet.\\nTraceback (most recent "
                                   "call last):\\n  File ...")
            log.info("Started a local Ray instance.")
            up = True

        def shutdown():
            global up
            up = False
    ''',
    "ray/util/__init__.py": "",
    "ray/util/joblib.py": '''
        def register_ray():
            """joblib's "ray" backend: here, loky's processes."""
            from joblib import register_parallel_backend
            from joblib._parallel_backends import LokyBackend
            register_parallel_backend("ray", LokyBackend)
    ''',
}


@pytest.fixture
def fake_ray(tmp_path, monkeypatch):
    """A fake Ray importable here and in subprocesses; HOME a folder of the test's."""
    where = tmp_path / "fake_ray"
    for name, text in FAKE_RAY.items():
        (where / name).parent.mkdir(parents=True, exist_ok=True)
        (where / name).write_text(textwrap.dedent(text))
    monkeypatch.syspath_prepend(str(where))
    monkeypatch.setenv("PYTHONPATH", os.pathsep.join(
        [str(where), str(ROOT)] + [p for p in [os.environ.get("PYTHONPATH")] if p]))
    monkeypatch.setenv("HOME", str(tmp_path / "home"))
    from slpy._numba_config import CACHE_DIR
    if CACHE_DIR:      # the kernels compiled already, not again in a new HOME's cache
        monkeypatch.setenv("NUMBA_CACHE_DIR", CACHE_DIR)
    for k in ("RAY_AUTH_TOKEN", "RAY_AUTH_TOKEN_PATH", "RAY_ADDRESS"):
        monkeypatch.delenv(k, raising=False)
    (tmp_path / "home").mkdir()
    yield __import__("ray")
    for name in [m for m in sys.modules if m == "ray" or m.startswith("ray.")]:
        del sys.modules[name]


RAY_ARGS = ["run", PRIOR, "--data", DATA, "-n", "150", "--chains", "2", "--temper", "2",
            "--seed", "3", "-q", "--backend", "ray"]


def test_ray_starts_a_local_instance_quietly_without_a_token_file(tmp_path, fake_ray):
    r = invoke(*RAY_ARGS, "--jobs", "2", "--out", tmp_path / "ray")
    assert r.exit_code == 0 and r.output == "", r.output
    assert fake_ray.calls[-1]["num_cpus"] == 2 and not fake_ray.is_initialized()
    assert not (tmp_path / "home" / ".ray").exists()
    assert "RAY_AUTH_TOKEN" not in os.environ
    r = invoke(*RAY_ARGS[:-2], "--out", tmp_path / "here")
    assert r.exit_code == 0, r.output
    there, here = run_dir_bytes(tmp_path / "ray"), run_dir_bytes(tmp_path / "here")
    assert there.pop("config.json") != here.pop("config.json")   # --jobs only
    assert there == here


def test_a_local_ray_that_does_not_start_is_one_line(tmp_path, fake_ray, monkeypatch):
    monkeypatch.setenv("FAKE_RAY", "fail")
    line = one_line_error(invoke(*RAY_ARGS, "--out", tmp_path / "r"), 2)
    assert line == ("Error: --backend ray: a local Ray instance did not start (Failed to "
                    "start the raylet.)")
    assert not (tmp_path / "r").exists()


def test_a_ray_scheduler_that_does_not_answer_fails_within_the_timeout(
        tmp_path, fake_ray, monkeypatch):
    from slpy.mcmc import dispatch
    assert dispatch.RAY_TIMEOUT <= 10
    t0 = time.monotonic()
    line = one_line_error(invoke(*RAY_ARGS, "--scheduler", "127.0.0.1:1",
                                 "--out", tmp_path / "r"), 2)
    assert line == ("Error: --scheduler 127.0.0.1:1: cannot reach the Ray cluster "
                    "(Connection refused)")
    assert time.monotonic() - t0 < 10
    # a port that answers, but no Ray cluster behind it: Ray would wait for minutes
    monkeypatch.setenv("FAKE_RAY", "hang")
    monkeypatch.setattr(dispatch, "RAY_TIMEOUT", 3.0)
    with socket.socket() as listener:
        listener.bind(("127.0.0.1", 0))
        listener.listen()
        address = "127.0.0.1:%d" % listener.getsockname()[1]
        t0 = time.monotonic()
        line = one_line_error(invoke(*RAY_ARGS, "--scheduler", address,
                                     "--out", tmp_path / "r"), 2)
    assert line == f"Error: --scheduler {address}: no Ray cluster answered within 3 s"
    assert time.monotonic() - t0 < 10
    line = one_line_error(invoke(*RAY_ARGS, "--scheduler", "tcp://127.0.0.1:1",
                                 "--out", tmp_path / "r"), 2)
    assert "--scheduler tcp://127.0.0.1:1: not a Ray address" in line
    assert not (tmp_path / "r").exists() and not (tmp_path / "home" / ".ray").exists()


# -- item 6: interrupts and progress -----------------------------------------------------

# on the engine: the compiled path would end it before a signal could reach it
LONG = [PRIOR, "--data", DATA, "-n", "6000", "--seed", "5", "--temper", "2", "--path",
        "engine"]


def _read(fd, timeout) -> str:
    """What the terminal shows within `timeout` seconds ("" at its end)."""
    ready, _, _ = select.select([fd], [], [], timeout)
    if not ready:
        return ""
    try:
        return os.read(fd, 65536).decode(errors="replace")
    except OSError:            # EIO: the other side closed
        return ""


def _run_in_a_terminal(args, until, timeout=180):
    """Start `slpy args` on a terminal of 100 columns with SIGINT ignored (as a shell
    starts `slpy run ... &`), and read its screen until until(screen) is true."""
    master, slave = pty.openpty()
    fcntl.ioctl(slave, termios.TIOCSWINSZ, struct.pack("HHHH", 30, 100, 0, 0))
    proc = subprocess.Popen([sys.executable, "-m", "slpy.cli", *map(str, args)],
                            stdin=slave, stdout=slave, stderr=slave,
                            preexec_fn=lambda: signal.signal(signal.SIGINT, signal.SIG_IGN))
    os.close(slave)
    screen, deadline = "", time.monotonic() + timeout
    while not until(screen) and proc.poll() is None and time.monotonic() < deadline:
        screen += _read(master, 0.2)
    return proc, master, screen


def _finish(proc, master, screen) -> str:
    deadline = time.monotonic() + 120
    while proc.poll() is None and time.monotonic() < deadline:
        screen += _read(master, 0.2)
    screen += _read(master, 0.5)
    os.close(master)
    proc.wait(timeout=10)
    return screen


def _rows(out: Path, chains: int) -> list:
    return [max(len((out / f"chain_{i}" / "trace.csv").read_text().split("\n")) - 2, 0)
            if (out / f"chain_{i}" / "trace.csv").is_file() else 0 for i in range(chains)]


def test_sigint_to_the_parent_alone_stops_a_jobs_2_run_that_shows_its_progress(tmp_path):
    out = tmp_path / "part"
    bar = re.compile(r"2 chains:\s+\d+%\|[^|]*\| (\d+)/12000")

    def sampling(screen):      # the bar has moved, and both traces have rows
        done = [int(m) for m in bar.findall(screen)]
        return done and done[-1] > 0 and min(_rows(out, 2)) > 0
    proc, master, screen = _run_in_a_terminal(["run", *LONG, "--jobs", "2", "--chains",
                                               "2", "--out", out], sampling)
    assert proc.poll() is None, "the run ended before it was interrupted:\n" + screen
    assert sampling(screen), screen
    os.kill(proc.pid, signal.SIGINT)             # the parent alone, not its workers
    screen = _finish(proc, master, screen)
    assert proc.returncode == 130, screen
    last = [x.strip() for x in screen.splitlines() if x.strip()
            and not x.startswith("\x1b")][-1]          # the last line, colour resets aside
    assert re.fullmatch(rf"interrupted: {re.escape(str(out))} keeps \d+ of 10800 kept "
                        rf"draws; continue with  slpy run --resume {re.escape(str(out))}",
                        last), screen[-2000:]
    assert "Traceback" not in screen
    assert sum(_rows(out, 2)) < 10800, "the run was interrupted part way"
    r = invoke("run", "--resume", out, "-q")
    assert r.exit_code == 0, r.output
    assert json.loads((out / "summary.json").read_text())["kept"] == 10800


def test_an_interrupt_during_start_up_does_not_offer_a_resume(tmp_path, monkeypatch):
    import slpy.mcmc.run

    def interrupted(*a, **kw):
        raise KeyboardInterrupt
    monkeypatch.setattr(slpy.mcmc.run, "build_model", interrupted)
    r = invoke("run", *ARGS, "--out", tmp_path / "new")
    assert r.exit_code == 130
    assert r.output.strip() == "interrupted before the run started: nothing to resume"
    assert not (tmp_path / "new").exists()


def test_the_board_shows_chains_in_other_processes_in_one_line(capsys):
    from slpy.mcmc.progress import Board, Progress

    class Sweep:
        def __init__(self, it):
            self.it, self.info, self.state = it, type("I", (), {"accepted": 1}), None
    with Board(2, 50, every=0.0) as board:
        chains = [Progress(50, f"chain {i}", show=False, board=board.path, index=i)
                  for i in range(2)]
        for it in range(29):
            for c in chains:
                c(Sweep(it))          # posted twice a second at most
        time.sleep(0.6)
        chains[0](Sweep(29))
        chains[1](Sweep(49))          # the last iteration is always posted
        time.sleep(1.2)
        assert board.done() == 30 + 50
        for c in chains:
            c.close()
    err = capsys.readouterr().err
    assert "2 chains: 80/100 it" in err
    assert not Path(board.path).exists()


def test_in_a_notebook_without_ipywidgets_the_bar_goes_to_standard_output(
        capsys, monkeypatch):
    from slpy.mcmc import progress
    monkeypatch.setattr(progress, "_in_notebook", lambda: True)
    monkeypatch.setitem(sys.modules, "ipywidgets", None)          # not installed
    bar = progress.progress_bar(10, "chain 0")
    bar.update(10)
    bar.close()
    out, err = capsys.readouterr()
    assert "chain 0: 100%" in out and "10/10" in out
    assert err == ""


@pytest.mark.slow
def test_sigint_to_the_parent_of_tempered_replicas_in_processes(tmp_path):
    # one chain, its 4 tempered replicas in 2 processes: the chain runs in the parent
    # (on the engine: the compiled path can finish before the signal arrives)
    out = tmp_path / "part"
    args = [PRIOR, "--data", DATA, "-n", "3000", "--seed", "5", "--temper", "4",
            "--chains", "1", "--path", "engine"]
    proc, master, screen = _run_in_a_terminal(
        ["run", *args, "--jobs", "2", "--out", out], lambda s: _rows(out, 1)[0] > 0)
    assert proc.poll() is None, screen
    os.kill(proc.pid, signal.SIGINT)
    screen = _finish(proc, master, screen)
    assert proc.returncode == 130, screen
    assert f"continue with  slpy run --resume {out}" in screen
    assert 0 < _rows(out, 1)[0] < 2700
    assert invoke("run", "--resume", out, "-q").exit_code == 0
    whole = tmp_path / "whole"
    assert invoke("run", *args, "--jobs", "2", "--out", whole, "-q").exit_code == 0
    assert run_dir_bytes(out) == run_dir_bytes(whole)


@pytest.mark.slow
def test_a_jobs_2_run_interrupted_in_the_parent_resumes_to_the_uninterrupted_run(tmp_path):
    out = tmp_path / "part"
    proc, master, screen = _run_in_a_terminal(
        ["run", *LONG, "--jobs", "2", "--chains", "2", "--out", out, "-q"],
        lambda s: min(_rows(out, 2)) > 0)
    assert proc.poll() is None, screen
    os.kill(proc.pid, signal.SIGINT)
    assert _finish(proc, master, screen) and proc.returncode == 130
    assert invoke("run", "--resume", out, "-q").exit_code == 0
    whole = tmp_path / "whole"
    assert invoke("run", *LONG, "--jobs", "2", "--chains", "2", "--out", whole,
                  "-q").exit_code == 0
    assert run_dir_bytes(out) == run_dir_bytes(whole)
