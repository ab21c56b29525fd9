"""`slpy check --sampler PRIOR`: the sampler check (slpy.mcmc.check) from the command
line, on the prior alone or on the first rows of a data set."""
from __future__ import annotations

import csv
import io
import tempfile
from pathlib import Path

from ..errors import RunError

__all__ = ["sampler_check", "sampler_check_command"]


def _small_csv(path: str, rows: int | None, columns: list | None) -> str:
    """A temporary CSV of the first `rows` rows of `path` and only `columns` (with the
    header)."""
    text = Path(path).read_text(encoding="utf-8-sig")
    reader = csv.reader(io.StringIO(text))
    out = io.StringIO()
    w = csv.writer(out, lineterminator="\n")
    keep = None
    for i, row in enumerate(reader):
        if rows is not None and i > rows:
            break
        if i == 0 and columns:
            missing = [c for c in columns if c not in row]
            if missing:
                raise RunError(f"--columns: {path} has no column {missing[0]!r} "
                               f"(it has {', '.join(row)})")
            keep = [row.index(c) for c in columns]
        w.writerow(row if keep is None else [row[j] for j in keep])
    f = tempfile.NamedTemporaryFile("w", suffix=".csv", delete=False, encoding="utf-8")
    f.write(out.getvalue())
    f.close()
    return f.name


def build_check_model(prior: str, data: str | None, rows: int | None, params: dict,
                      query: str | None, family: str | None, target: str | None = None,
                      columns: list | None = None, limits: dict | None = None):
    """The PosteriorModel the check runs on: the prior's family's on the data's first
    `rows` rows and its `columns`, or the prior alone (no data: every answer scores
    0). `limits`: Program()'s limits (the command's --timeout, --allow-load, ...)."""
    from ..family import declared_family
    from ..logic.program import Program
    from .config import RunConfig, family_of
    from .model import PosteriorModel, build_model, set_params
    if data is None:
        p = Program(**(limits or {}))
        p.consult(prior)
        set_params(p, params, prior)
        fam = family or getattr(p, "model_family", None)
        q = query or (family_of({"family": fam}).query if fam else None)
        if not q:
            raise RunError("give the query whose answers the prior samples (--query), "
                           "e.g. --query 'top(T)'")
        return PosteriorModel(p, q)
    tmp = _small_csv(data, rows, columns) if rows or columns else data
    try:
        cfg = RunConfig(prior=prior, data=tmp, params=params, query=query,
                        family=family or declared_family(prior, limits) or "tree",
                        target=target).resolved()
        fam = family_of(cfg)
        cfg = cfg.replace(query=cfg.query or fam.query)
        train, _ = fam.load_data(cfg)
        return build_model(cfg, train, limits)
    finally:
        if tmp != data:
            Path(tmp).unlink(missing_ok=True)


def sampler_check(prior, data, rows, columns, params, query, family, target, proposals,
                  draws, steps, seed, max_proofs, echo, limits=None) -> int:
    """Run the check and print it; the exit status (1 when a move fails)."""
    from .check import TooLarge, check_sampler, enumerate_target
    from .moves import check_proposal
    model = build_check_model(prior, data, rows, params, query, family, target, columns,
                              limits)
    moves = None
    if proposals:
        moves = []
        for spec in proposals:
            check_proposal(spec)
            moves.append(spec)
    heats = (0.0, 1.0) if data is not None else (0.0,)
    try:
        t = enumerate_target(model, max_proofs)
    except TooLarge as e:
        raise RunError(str(e) + (" (--rows, --columns)" if data else "")) from None
    r = check_sampler(model, moves, heats=heats, n=draws, steps=steps, seed=seed,
                      target=t, progress=echo)
    echo(r.verdict())
    return 0 if r.passed else 1


def sampler_check_command(*args):
    """sampler_check() with its errors as one line each, as `slpy run` words them: 2
    for bad input, 1 for the prior's."""
    from .cli import one_line_errors
    with one_line_errors("checked"):
        return sampler_check(*args)
