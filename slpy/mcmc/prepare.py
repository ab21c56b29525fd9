"""Before `slpy run` starts or resumes: the run directory, its inputs, the traces, the
initial tree. Each refusal is a one-line RunError; nothing is written before the checks
pass, so a refused run leaves the directory as it was."""
from __future__ import annotations

from pathlib import Path

from ..errors import RunError
from ..family import get as get_family
from ..runs import RunDir, RunDirError, TraceError, changed_inputs
from .config import RunConfig
from .model import initial_term

# settings a run's config.json must hold for `--resume`
REQUIRED = ("prior", "data", "query", "iterations", "burn_in", "thin", "proposal", "temper",
            "delta_t", "chains", "seed", "init", "top")
# what config.json records about the run besides its settings
BOOKKEEPING = ("slpy_version", "data_hash", "python", "command", "format")


def inputs(cfg: dict) -> dict:
    """The run's input files by role (the init file when --init names one)."""
    init = cfg.get("init") or "prior"
    return {"prior": cfg.get("prior"), "data": cfg.get("data"), "test": cfg.get("test"),
            "init": None if init in ("prior", "greedy") else init}


def start(rd: RunDir, cfg: dict, force: bool) -> None:
    """A new run into rd: refuse a directory that holds a run (unless force, which
    clears it) and write the manifest of the inputs."""
    rd.start_new(force)
    rd.write_manifest("run", inputs(cfg))


def resume_config(rd: RunDir, given: dict | None = None) -> RunConfig:
    """The settings of the run in rd, checked for --resume, with those `given` (only
    jobs may be): config.json must be a run's, and the inputs the manifest records
    must be there, unchanged."""
    where = f"{rd.path}: cannot resume"
    f = rd.file("config.json")
    if not f.is_file():
        raise RunError(f"{where}: no config.json (not a run directory of slpy run)")
    try:
        saved = rd.read_json("config.json")
    except (OSError, ValueError) as e:
        raise RunError(f"{where}: config.json does not read ({e})") from None
    if not isinstance(saved, dict) or saved.get("command", "run") != "run":
        raise RunError(f"{where}: config.json is not the settings of an slpy run")
    missing = [k for k in REQUIRED if k not in saved]
    if missing:
        raise RunError(f"{where}: config.json has no setting {missing[0]!r}")
    try:
        manifest = rd.read_manifest()
    except RunDirError as e:
        raise RunError(f"{where}: {e}") from None
    if int(saved["temper"]) > 1 and "swap" not in saved:
        raise RunError(f"{rd.path}: this tempered run was written by an slpy whose "
                       f"tempered chains shared one random generator; this version "
                       f"cannot resume it (start it again)")
    if manifest is not None:
        changed = changed_inputs(manifest)
        if changed:
            raise RunError(f"{where}: {changed[0]}")
    return RunConfig.from_saved({**{k: v for k, v in saved.items() if k not in BOOKKEEPING},
                                 **(given or {})})


def check_data_hash(rd: RunDir, data_hash: str) -> None:
    """For a run written before the manifest: its data must hash as they did."""
    saved = rd.read_json("config.json").get("data_hash")
    if saved and saved != data_hash:
        raise RunError(f"{rd.path}: cannot resume: the data changed since the run started "
                       f"(their hash differs from config.json's)")


def trace_rows(rd: RunDir, cfg) -> list[int]:
    """The complete rows of each chain's trace, checked (a corrupt trace: RunError)."""
    stats = get_family(cfg.get("family") or "tree").stats
    try:
        return [rd.check_trace(i, cfg, stats) for i in range(cfg["chains"])]
    except TraceError as e:
        raise RunError(f"cannot resume: {e}") from None


def init_text(cfg) -> str | None:
    """The text of the file --init names (None for prior or greedy): it travels to
    the chains' workers with the prior's."""
    init = cfg.get("init") or "prior"
    if init in ("prior", "greedy"):
        return None
    if not Path(init).is_file():
        raise RunError(f"--init {init}: no such file (give prior, greedy or a file "
                       f"holding a model term)")
    try:
        return Path(init).read_text()
    except (OSError, UnicodeDecodeError) as e:
        raise RunError(f"--init {init}: cannot read the file ({e})") from None


def init_term(cfg, model, train, text: str | None = None):
    """The model term --init names (None: start from the prior), checked: the prior
    must be able to produce it, else every chain would try to reach it for ever.
    `text`: the --init file's (init_text)."""
    init = cfg.get("init") or "prior"
    if init == "prior":
        return None
    from ..terms.term import PrologError
    try:
        term = initial_term(cfg, model, train, text)
    except PrologError as e:     # a syntax error
        raise RunError(f"--init {init}: not a term ({str(e).splitlines()[0]})") from None
    bad = model.scorer.check(term)
    if bad is not None:
        raise RunError(f"--init {init}: {bad}")
    _reachable(model, term, init)
    return term


def _reachable(model, term, init):
    """One run of the query with its answer bound to the tree (the chains' own start
    redoes it with their generators): backtrackable sampling explores every choice,
    so a failure means the prior gives the tree probability 0."""
    import numpy as np
    from ..terms.unify import unify, undo_to
    what = "slpy's greedy tree" if init == "greedy" else f"the model in {init}"
    goal, ans = model._fresh_goal()
    eng = model.engine
    mark = len(eng.trail)
    try:
        ok = unify(ans, model.scorer.pattern(term), eng.trail) and \
            eng.run_sampling(goal, np.random.default_rng(0))[0]
    finally:
        undo_to(eng.trail, mark)
    if not ok:
        raise RunError(f"--init {init}: the prior gives {what} probability 0 (it cannot "
                       f"produce it); start from the prior or another model")
