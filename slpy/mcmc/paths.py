"""Which path a chain takes: the engine (proof trees of any SLP) or a plugin's compiled
path for the priors it recognises (slpy.compiled: GROWTREE's trees and the network
priors' links on flat arrays; both are named "compiled", each for its kind of model).

A :class:`FastPath` is registered by its plugin, as family moves are
(slpy.mcmc.moves.register_move): this package never imports it. ``--path auto`` (the
default) takes a compiled path when one applies to the model and the settings, else
the engine; ``--path compiled`` insists (an error saying why not); ``--path engine``
never takes one. Under ``--method smc`` a path that has ``particles`` draws and moves
SMC's particles. Either way the chain is a kernel ``kernel(rng, state, it, heat) ->
(state, Info)`` with states that carry ``log_lik``, ``d``, ``stats`` and ``key``, so
tempering, the observers and the outputs are the same code on both paths.
"""
from __future__ import annotations

from dataclasses import dataclass
from typing import Callable

from ..errors import RunError
from .moves import DEFAULT_PROPOSAL, parse_mixture

__all__ = ["FastPath", "register_path", "PATHS", "resolve_path", "fast_path"]

PATHS = ("auto", "compiled", "engine")


@dataclass(frozen=True)
class FastPath:
    """A compiled path: its moves' names, its default mixture, whether it applies and
    how it builds a chain's kernel and first state."""
    name: str
    moves: tuple          # the move names it runs (a proposal of others is the engine's)
    default: str | Callable   # its mixture for --proposal default (or model -> it)
    what: str             # what runs, for the run's summary
    why_not: Callable     # (model, cfg) -> None, or a one-line reason it does not apply
    kernel: Callable      # (model, cfg) -> kernel(rng, state, it, heat)
    start: Callable       # (model, cfg, rng, init term or None) -> first state
    only: tuple = ()      # its moves the engine does not have
    fits: Callable = lambda model: True   # is the model of its kind (cheap, no check)?
    particles: Callable | None = None     # (model, cfg) -> slpy.mcmc.smc.Particles
    # (model, cfg, the tempered kernel, swap scheme, adapt_until) -> a kernel making
    # the same sweeps its own way (slpy.compiled.ladder), or the tempered kernel given
    ladder: Callable | None = None


_PATHS: list = []


def register_path(path: FastPath) -> None:
    """Add a compiled path (several may share a name, each for its own kind of model:
    `fits`)."""
    _PATHS[:] = [p for p in _PATHS if (p.name, p.what) != (path.name, path.what)]
    _PATHS.append(path)


def _registered(model=None) -> list:
    if not _PATHS:
        from ..family import load_builtins
        load_builtins()
    return [p for p in _PATHS if model is None or p.fits(model)]


def _compiled_only() -> set:
    return {m for p in _registered() for m in p.only}


def _why_not(path: FastPath, model, cfg) -> str | None:
    if cfg.get("method", "mcmc") != "mcmc" and path.particles is None:
        return "SMC runs on the engine for this kind of model"
    spec = cfg.get("proposal") or DEFAULT_PROPOSAL
    if spec != DEFAULT_PROPOSAL:
        other = [n for n, _ in parse_mixture(spec) if n.partition(":")[0] not in path.moves]
        if other and other[0] in _compiled_only():
            return f"this model's compiled path runs {', '.join(path.moves)}"
        if other:
            return (f"--proposal {other[0]} is a move of the engine (the compiled path's "
                    f"are {', '.join(path.moves)})")
    return path.why_not(model, cfg)


def resolve_path(model, cfg):
    """(settings with ``path`` "compiled" or "engine" and, on a compiled path, its
    default mixture in place of ``default``, the reason in a line). A RunError when
    --path compiled cannot be taken, or a move only the compiled path has is asked of
    the engine."""
    want = cfg.get("path") or "auto"
    if want not in PATHS:
        raise RunError(f"--path must be one of {', '.join(PATHS)}, not {want!r}")
    reasons = []
    if want != "engine":
        for p in _registered(model):
            why = _why_not(p, model, cfg)
            if why is None:
                spec = cfg.proposal if cfg.proposal != DEFAULT_PROPOSAL else \
                    p.default(model) if callable(p.default) else p.default
                return cfg.replace(path=p.name, proposal=spec), f"{p.name} ({p.what})"
            reasons.append(why)
        if want == "compiled":
            raise RunError("--path compiled: " + (reasons[0] if reasons else
                                                  "no compiled path for this kind of model"))
    spec = cfg.get("proposal") or DEFAULT_PROPOSAL
    if spec != DEFAULT_PROPOSAL:
        only = [n for n, _ in parse_mixture(spec) if n in _compiled_only()]
        if only:
            raise RunError(f"--proposal {only[0]} is a move of a compiled path that "
                           f"does not apply here ({reasons[0] if reasons else '--path engine'})"
                           f"; the engine's moves are uc, q0, cycle:N, change, swap, "
                           f"perturb[:K], exact[:H] and its families' (docs/mcmc.md)")
    why = "--path engine" if want == "engine" else reasons[0] if reasons else \
        "no compiled path for this kind of model"
    return cfg.replace(path="engine"), f"engine ({why})"


def fast_path(cfg, model) -> FastPath | None:
    """The compiled path a resolved cfg names for `model`, or None for the engine."""
    name = cfg.get("path") or "engine"
    if name == "engine":
        return None
    for p in _registered(model):
        if p.name == name:
            return p
    raise RunError(f"--path {name}: no such compiled path is installed")
