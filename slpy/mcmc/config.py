"""The settings of a run: :class:`RunConfig`, with its defaults and checks.

``slpy run``'s options, the estimators' parameters and a run directory's config.json
all become a RunConfig. It reads like the dict it replaces (``cfg["data"]``,
``cfg.get("count")``), which is how model families (slpy.family) see it; a family's
own settings (a network's ``count``, ``score``, ``ess``) are in ``extra``.
:meth:`RunConfig.to_dict` is what config.json records.
"""
from __future__ import annotations

import dataclasses
import math
import numbers
from collections.abc import Mapping
from dataclasses import dataclass, field

from ..errors import RunError
from ..family import FamilyError, get as get_family
from .moves import DEFAULT_PROPOSAL, check_proposal

__all__ = ["RunConfig", "Tempering", "RECOMMENDED_TEMPERING", "DEFAULT_CHAINS",
           "DEFAULT_ITERATIONS", "SMC_DEFAULTS", "cores", "family_of", "RunError"]

# tempering as the mixing benchmark (benchmarks/mixing.py) found best at equal CPU time
RECOMMENDED_TEMPERING = dict(temper=8, min_heat=0.05, swap="neighbours")
# independent chains (R-hat and ESS need several) of 8 tempered replicas, 2,500
# iterations each: benchmarks/trust.py found 4 chains of 8 agree best between seeds at
# the CPU of one chain of 8 for 10,000 (docs/benchmarks.md)
DEFAULT_CHAINS = 4
DEFAULT_ITERATIONS = 2500
# particles and MCMC steps a heat: what benchmarks/trust.py found enough for GROWTREE
# on Kyphosis to match the exact log evidence to about 0.02 nats an island
SMC_DEFAULTS = dict(particles=1000, smc_steps=5)
# below this many replica-iterations (chains x replicas x iterations) a run stays in one
# process by default: starting a worker costs seconds of imports
PARALLEL_MIN_WORK = 50_000


def cores() -> int:
    """The cores this process may use (the default --jobs)."""
    import os
    try:
        return max(1, len(os.sched_getaffinity(0)))
    except AttributeError:          # not on Linux
        return max(1, os.cpu_count() or 1)


@dataclass(frozen=True)
class Tempering:
    """The tempering part of a run's settings, defaults resolved: the paper's ladder
    unless a hottest heat is given (then geometric), and an adapted ladder when there
    is a burn-in and more than two replicas."""
    k: int                     # replicas (1: no tempering)
    scheme: str                # neighbours or random swaps
    ladder: str                # paper or geometric
    delta_t: float
    min_heat: float | None
    adapt: bool

    def heats(self) -> list[float]:
        from .tempering import ladder      # numpy: not for `slpy --version`
        return ladder(self.k, self.ladder, self.delta_t, self.min_heat)


@dataclass(frozen=True)
class RunConfig(Mapping):
    """Every setting of a run (`slpy run --help` says what each means). burn_in None:
    a tenth of the iterations; query None: the family's; family None: as the prior
    declares."""
    prior: str | None = None
    data: str | None = None
    family: str | None = None
    query: str | None = None
    likelihood: str | None = None
    params: dict = field(default_factory=dict)
    iterations: int = DEFAULT_ITERATIONS
    burn_in: int | None = None
    thin: int = 1
    proposal: str = DEFAULT_PROPOSAL
    delta_t: float = 0.2
    ladder: str | None = None
    adapt_ladder: bool | None = None
    temper: int = RECOMMENDED_TEMPERING["temper"]
    min_heat: float | None = RECOMMENDED_TEMPERING["min_heat"]
    swap: str | None = RECOMMENDED_TEMPERING["swap"]
    chains: int = DEFAULT_CHAINS
    jobs: int | None = None    # None: every core for a long run (results do not depend on it)
    seed: int = 0
    init: str = "prior"
    test: str | None = None
    holdout: float | None = None
    split_seed: int = 0
    target: str | None = None
    missing: str = "drop"
    bucket: int | None = None
    bucket_method: str = "uniform"
    alpha: float = 1.0
    top: int = 5
    path: str = "auto"         # auto, compiled or engine (slpy.mcmc.paths)
    method: str = "mcmc"       # or "smc": each chain an SMC island (slpy.mcmc.evidence)
    particles: int = 1000      # smc: particles an island
    smc_steps: int = 5         # smc: MCMC steps of each particle at each heat
    target_rhat: float = 1.01  # the convergence verdict's criterion (slpy.mcmc.convergence)
    target_ess: float = 400.0
    until_converged: bool = False  # run again with twice the iterations until converged,
    max_iterations: int | None = None  # within these iterations a chain
    max_seconds: float | None = None   # and this wall time
    extra: dict = field(default_factory=dict)    # a family's own settings

    # -- built from and written as a dict -------------------------------------------------
    @classmethod
    def from_dict(cls, d: Mapping) -> "RunConfig":
        """Settings by name; a name that is not a field goes to `extra`."""
        names = _FIELDS
        known = {k: v for k, v in d.items() if k in names and k != "extra"}
        extra = {**dict(d.get("extra") or {}),
                 **{k: v for k, v in d.items() if k not in names}}
        return cls(**known, extra=extra)

    @classmethod
    def from_saved(cls, d: Mapping) -> "RunConfig":
        """The settings of a run directory's config.json. Runs written before a
        setting existed did without it: no --min-heat was the paper's ladder, no
        --split-seed split with the chain seed, and --target was class_col."""
        d = {("target" if k == "class_col" else k): v for k, v in d.items()}
        d.setdefault("min_heat", None)
        d.setdefault("path", "engine")       # before the compiled path
        if "seed" in d:
            d.setdefault("split_seed", d["seed"])
        return cls.from_dict(d)

    def to_dict(self) -> dict:
        out = {f: getattr(self, f) for f in _FIELDS if f != "extra"}
        if self.method == "mcmc":       # the SMC settings only where they apply
            for k in _SMC_FIELDS:
                del out[k]
        if not self.until_converged:
            for k in _UNTIL_FIELDS:
                del out[k]
        out.update(self.extra)
        return out

    def replace(self, **changes) -> "RunConfig":
        extra = {k: changes.pop(k) for k in list(changes) if k not in _FIELDS}
        return dataclasses.replace(self, **changes,
                                   extra={**self.extra, **extra} if extra else self.extra)

    # -- read like a dict ---------------------------------------------------------------
    def __getitem__(self, key):
        if key in _FIELDS and key != "extra":
            return getattr(self, key)
        return self.extra[key]

    def __iter__(self):
        yield from (f for f in _FIELDS if f != "extra")
        yield from self.extra

    def __len__(self) -> int:
        return len(_FIELDS) - 1 + len(self.extra)

    # -- derived ------------------------------------------------------------------------
    def resolved(self) -> "RunConfig":
        """With the burn-in a tenth of the iterations when not given, and --jobs, when not
        given, every core for a run of PARALLEL_MIN_WORK replica-iterations or more."""
        out = self
        if out.jobs is None:
            try:
                work = int(out.chains) * int(out.temper) * int(out.iterations)
            except (TypeError, ValueError):
                work = 0                   # check() says what is wrong
            import multiprocessing
            # inside a worker process (the user's own pool): no pool of ours in it,
            # which would oversubscribe the cores and can deadlock after a fork
            nested = multiprocessing.parent_process() is not None
            out = out.replace(jobs=cores() if work >= PARALLEL_MIN_WORK and not nested
                              else 1)
        if out.burn_in is None:
            out = out.replace(burn_in=int(out.iterations) // 10)
        return out

    def tempering(self) -> Tempering:
        k = int(self.temper)
        adapt = self.adapt_ladder
        if adapt is None:
            adapt = int(self.burn_in or 0) > 0 and k > 2
        return Tempering(k, self.swap or "neighbours",
                         self.ladder or ("paper" if self.min_heat is None else "geometric"),
                         float(self.delta_t),
                         None if self.min_heat is None else float(self.min_heat), bool(adapt))

    def check(self) -> None:
        """The settings' values, each wrong one a RunError (the command line checks
        them first; this is for the Python API and for a config.json read back)."""
        for k, low in (("iterations", 1), ("chains", 1), ("jobs", 1), ("thin", 1),
                       ("temper", 1), ("burn_in", 0), ("seed", 0), ("split_seed", 0),
                       ("top", 0)):
            v = getattr(self, k)
            if not isinstance(v, numbers.Integral) or isinstance(v, bool) or v < low:
                raise RunError(f"--{k.replace('_', '-')} must be an integer of at least "
                               f"{low}, not {v!r}")
        if self.burn_in >= self.iterations:
            raise RunError("--burn-in must be below --iterations")
        d = self.delta_t
        if not isinstance(d, numbers.Real) or not math.isfinite(d) or d <= 0:
            raise RunError(f"--delta-t must be a finite number above 0, not {d!r}")
        h = self.holdout
        if h is not None and (not isinstance(h, numbers.Real) or not 0 < h < 1):
            raise RunError(f"--holdout must be a fraction between 0 and 1, not {h!r}")
        try:
            check_proposal(self.proposal)
            self.tempering().heats()
        except ValueError as e:
            raise RunError(str(e)) from None
        from .paths import PATHS
        if self.path not in PATHS:
            raise RunError(f"--path must be one of {', '.join(PATHS)}, not {self.path!r}")
        if self.method not in ("mcmc", "smc"):
            raise RunError(f"--method must be mcmc or smc, not {self.method!r}")
        for k in ("particles", "smc_steps"):
            v = getattr(self, k)
            if not isinstance(v, numbers.Integral) or isinstance(v, bool) or v < 1:
                raise RunError(f"--{k.replace('_', '-')} must be an integer of at least "
                               f"1, not {v!r}")
        r, e = self.target_rhat, self.target_ess
        if not isinstance(r, numbers.Real) or not math.isfinite(r) or r <= 1:
            raise RunError(f"--target-rhat must be a number above 1, not {r!r}")
        if not isinstance(e, numbers.Real) or not math.isfinite(e) or e <= 0:
            raise RunError(f"--target-ess must be a number above 0, not {e!r}")
        m = self.max_iterations
        if m is not None and (not isinstance(m, numbers.Integral) or m < self.iterations):
            raise RunError(f"--max-iterations must be an integer of at least --iterations "
                           f"({self.iterations}), not {m!r}")
        t = self.max_seconds
        if t is not None and (not isinstance(t, numbers.Real) or not t > 0):
            raise RunError(f"--max-time must be a number of seconds above 0, not {t!r}")
        if self.swap not in (None, "neighbours", "random"):
            raise RunError(f"--swap must be neighbours or random, not {self.swap!r}")


_FIELDS = tuple(f.name for f in dataclasses.fields(RunConfig))
_SMC_FIELDS = ("method", "particles", "smc_steps")
_UNTIL_FIELDS = ("until_converged", "max_iterations", "max_seconds")


def family_of(cfg):
    """The model family of a run's settings (slpy.family)."""
    try:
        return get_family(cfg.get("family") or "tree")
    except FamilyError as e:
        raise RunError(f"--family: {e}") from None
