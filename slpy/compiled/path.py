"""The compiled path of ``slpy run`` (slpy.mcmc.paths): a GROWTREE prior's chain on
flat arrays (slpy.compiled.growtree), behind the same kernel interface as the engine's
moves, so tempering, the observers and the outputs are shared.

It applies when the prior is recognised as GROWTREE (as `slpy exact` and the exact
move recognise it) and the recognition holds: trees the program samples have the
same prior probability, proof size and key under the compiled prior, else the run
stays on the engine and says why. Data must be classification, numeric, without
missing values, scored by the Dirichlet likelihood.

A state owns its chain's arrays: stepping it moves them, so a state is stepped once
(the kernel returns the same object when a move is rejected, a new one holding the
new tree's key and summaries when accepted). States are never copied across
processes: tempered replicas of a compiled chain live in its process (they are cheap).
"""
from __future__ import annotations

import math

from ..mcmc.kernel import Info
from ..mcmc.moves import parse_mixture
from ..mcmc.paths import FastPath, register_path

__all__ = ["CompiledState", "COMPILED_MIXTURE"]

# --proposal default on this path (benchmarks/trust.py, docs/benchmarks.md); under box
# constraints the same without the exact move (whose dynamic program knows no boxes)
COMPILED_MIXTURE = "regrow:0.35,change:0.2,swap:0.15,perturb:0.2,exact:1:0.1"
BOX_MIXTURE = "regrow:0.35,change:0.2,swap:0.15,perturb:0.2"
MOVES = ("regrow", "change", "swap", "exact", "perturb")
CHECK_DRAWS = 8            # prior draws of the program compared with the compiled prior
CHECK_TOL = 1e-9
GROUP = 16                 # SMC's particles moved a numba call


class CompiledState:
    """A compiled chain's state after a step: the chain's arrays and what the
    observers read (``log_lik``, ``d``, ``stats``, ``key``: the key worked out when
    first read, from a copy of the tree's splits); no proof, no term. `after`: the
    state this one was reached from, whose key it shares when the tree is the same
    (a move accepted without a change, as regrowing a leaf as a leaf)."""
    __slots__ = ("chain", "log_lik", "stats", "d", "_feat", "_thr", "_key")
    term = None

    def __init__(self, chain, after=None):
        from ._kernels import _snapshot
        old = _NO_TREE if after is None else after
        self.chain = chain
        self.log_lik = chain.log_lik
        self._feat, self._thr, leaves, depth, same = _snapshot(chain.n, chain.I, chain.F,
                                                               old._feat, old._thr)
        self.stats = (leaves, depth)           # the tree family's traced integers
        # the choice points of the prior's proof: a leaf/split choice at every node
        # and a split draw at every split node
        self.d = 2 * chain.n - leaves
        self._key = old._key if same else None

    @property
    def key(self) -> str:
        if self._key is None:
            from .growtree import canonical_text
            self._key = canonical_text(self._feat.tolist(), self._thr.tolist(),
                                       self.chain.dataset.feature_names)
        return self._key

    @property
    def cold(self) -> "CompiledState":
        return self


class _NoTree:
    """What the first state is compared with: no tree."""
    _key = None

    def __init__(self):
        import numpy as np
        self._feat = np.zeros(0, dtype=np.int64)
        self._thr = np.zeros(0)


_NO_TREE = _NoTree()


def _settings(model):
    """(GROWTREE parameters, the Dirichlet's alpha) or a reason string. The parameters
    of a prior with box constraints carry its boxes (``boxes``)."""
    from ..pcfg.compile import detect_family
    from ..trees.family import TreeScorer
    from ..trees.likelihood import DirichletLikelihood
    sc = model.scorer
    if not isinstance(sc, TreeScorer) or sc.rowsets is None:
        return "the compiled path is for tree priors on data"
    fam = detect_family(model.program) or _depth_prior(model.program) or \
        _box_prior(model.program, sc.rowsets.dataset)
    if isinstance(fam, str):
        return fam
    if fam is None or fam[0] not in ("growtree", "depth", "boxes"):
        return "the prior is not GROWTREE (priors/growtree.slp: uniform_split/3 and " \
               "the parameters alpha, beta and min_leaf; or priors/depth.slp's " \
               "start_depth and min_leaf; or priors/boxes.slp)"
    if type(sc.likelihood) is not DirichletLikelihood:
        return "the compiled path scores with the Dirichlet likelihood only"
    ds = sc.rowsets.dataset
    if ds.task != "classification":
        return "the compiled path scores classification data only"
    if not ds.plain:
        return ("the compiled path needs numeric features without missing values (these "
                "data have categorical features or missing values)")
    return fam[1], sc.likelihood.alpha


def _depth_prior(program):
    """("depth", parameters) for a prior of priors/depth.slp's shape (GROWTREE's, a node
    at depth D splitting with probability 1/D from D = start_depth), else None: a
    guess, which the recognition checks."""
    from ..pcfg.compile import _calls, _param
    if not _calls(program, "uniform_split", 3) or "alpha" in program.params:
        return None
    sd, m = _param(program, "start_depth"), _param(program, "min_leaf")
    if type(sd) is not int or sd < 1 or type(m) is not int:
        return None
    return "depth", {"start_depth": sd, "min_leaf": m}


def _box_prior(program, dataset):
    """("boxes", parameters with the boxes) for a prior of priors/boxes.slp's shape
    (GROWTREE's parameters, splits by uniform_split_except/4, boxes as
    const_class_probs/4 facts), a reason string when its boxes cannot be read, else
    None: a guess, which the recognition checks."""
    import numpy as np
    from ..pcfg.compile import _calls, _param
    from ..terms.term import Atom, PrologError
    if not _calls(program, "uniform_split_except", 4):
        return None
    a, b, m = (_param(program, n) for n in ("alpha", "beta", "min_leaf"))
    if type(a) not in (int, float) or type(b) not in (int, float) or type(m) is not int:
        return None
    try:
        facts = list(program.query("catch(const_class_probs(B, F, L0, H0), "
                                   "error(existence_error(_, _), _), fail), "
                                   "L is L0, H is H0"))
    except PrologError as e:
        return f"the prior's boxes (const_class_probs/4) do not read as bounds ({e})"
    index = {name: i for i, name in enumerate(dataset.feature_names)}
    names, seen = {}, set()
    for fact in facts:
        box, f = fact["B"], fact["F"]
        if type(f) is not Atom or f.name not in index:
            return f"a box bounds {f}, which is not a feature of the data"
        if (str(box), f.name) in seen:
            return f"box {box} bounds {f.name} twice"
        seen.add((str(box), f.name))
        names.setdefault(str(box), []).append((index[f.name], float(fact["L"]),
                                              float(fact["H"])))
    boxes = np.empty((len(names), 2, len(index)))
    boxes[:, 0], boxes[:, 1] = -np.inf, np.inf
    for i, bounds in enumerate(names.values()):
        for f, lo, hi in bounds:
            boxes[i, :, f] = lo, hi
    return "boxes", {"alpha": float(a), "beta": float(b), "min_leaf": m, "boxes": boxes}


def _new_chain(model, params, dirichlet, exact_depth=2):
    from .growtree import GrowtreeChain, depth_split_probs
    ds = model.scorer.rowsets.dataset
    if "start_depth" in params:
        return GrowtreeChain(ds, 1.0, 0.0, params["min_leaf"], dirichlet,
                             rowsets=model.scorer.rowsets, exact_depth=exact_depth,
                             split_probs=depth_split_probs(params["start_depth"],
                                                           ds.n_rows))
    return GrowtreeChain(ds, params["alpha"], params["beta"], params["min_leaf"],
                         dirichlet, rowsets=model.scorer.rowsets, exact_depth=exact_depth,
                         boxes=params.get("boxes"))


def preorder_of(term, dataset) -> list:
    """A tree term's nodes in pre-order, as GrowtreeChain.set_tree takes them (read by
    slpy.trees.term.FlatTree; a ValueError for a term that is not a tree of `dataset`)."""
    from ..trees.term import FlatTree
    flat = FlatTree.from_term(term, dataset)
    return [None if f < 0 else (int(f), float(v))
            for f, v in zip(flat.feature.tolist(), flat.value.tolist())]


def _recognised(model, params, dirichlet) -> str | None:
    """None when trees the program samples have the compiled prior's probability,
    proof size and key; else why not. It runs the model's engine (the caller builds
    the chains' models afresh)."""
    import numpy as np
    from .growtree import CompiledPathError
    model.engine_ran = True
    rng = np.random.default_rng(0)
    chain = _new_chain(model, params, dirichlet)
    data = model.scorer.rowsets.dataset
    for _ in range(CHECK_DRAWS):
        s = model.sample_prior(rng)
        key = model.scorer.key(s.term)
        try:
            chain.set_tree(preorder_of(s.term, data))
        except (ValueError, CompiledPathError) as e:
            return f"the prior looks like GROWTREE but draws {key[:60]} ({e})"
        a, b = chain.log_prior(), s.tree.log_prob()
        if not (abs(a - b) <= CHECK_TOL * max(1.0, abs(b))) or chain.canonical() != key \
                or chain.shape()[2] != s.d or abs(chain.log_lik - s.log_lik) > 1e-6:
            return (f"the prior looks like GROWTREE but gives {key[:60]} log prior {b:.10g}"
                    f" (GROWTREE: {a:.10g})")
    return None


def _boxed(params) -> bool:
    return len(params.get("boxes", ())) > 0


def _default(model) -> str:
    """The path's mixture for --proposal default: without the exact move under boxes."""
    got = _settings(model)
    return BOX_MIXTURE if not isinstance(got, str) and _boxed(got[0]) else COMPILED_MIXTURE


def _why_not(model, cfg) -> str | None:
    got = _settings(model)
    if isinstance(got, str):
        return got
    spec = cfg.get("proposal") or "default"
    names = [n for n, _ in parse_mixture(_default(model) if spec == "default" else spec)]
    if _boxed(got[0]) and any(n.startswith("exact") for n in names):
        return "the compiled path makes no exact move under box constraints"
    for move in ("exact", "perturb"):
        if len({n for n in names if n.partition(":")[0] == move}) > 1:
            what = "depth" if move == "exact" else "width"
            return f"the compiled path runs the {move} move at one {what} a chain"
    why = _recognised(model, *got)
    if why is not None:
        # the exact move shares the recognition: it must not run on this prior either
        model.not_growtree = why
    if why is None and not any(n == "regrow" or n.startswith("exact") for n in names):
        # (the engine's change also grows and prunes: there the mixture can reach any tree)
        why = ("the compiled path's change, swap and perturb keep the tree's shape: its "
               "mixtures need regrow or exact")
    return why


def _mixture(spec: str) -> tuple:
    """(change, swap, exact and perturb probabilities, the exact move's name and depth,
    the perturb move's name and width)."""
    from ..mcmc.moves import perturb_width
    from ..pcfg.exact_move import DEFAULT_DEPTH, parse_depth
    w = dict.fromkeys(MOVES, 0.0)
    exact, depth = "exact", DEFAULT_DEPTH
    perturb, width = "perturb", 3
    for name, x in parse_mixture(spec):
        prefix = name.partition(":")[0]
        w[prefix] += x
        if prefix == "exact":
            exact, depth = name, parse_depth(name)
        elif prefix == "perturb":
            perturb, width = name, perturb_width(name)
    return ((w["change"], w["swap"], w["exact"], w["perturb"]), exact, depth, perturb,
            width)


def _kernel(model, cfg):
    probs, exact, _, perturb, width = _mixture(cfg["proposal"])
    names = MOVES[:3] + (exact, perturb)

    def kernel(rng, state, it, heat=1.0):
        chain = state.chain
        ok, move = chain.step(rng, heat, *probs, width)
        if ok:
            return CompiledState(chain, state), Info(True, True, names[move], math.nan)
        return state, Info(False, True, names[move], math.nan)
    return kernel


def _ladder(model, cfg, plain, scheme, adapt_until):
    """A tempered chain's sweeps in batches (slpy.compiled.ladder); the plain
    kernel's when an exact move of a depth limit above 1 (made from Python) may be
    drawn."""
    from .ladder import TreeSweeps, ladder_kernel
    probs, exact, depth, perturb, width = _mixture(cfg["proposal"])
    if depth != 1 and probs[2] > 0:
        return plain
    return ladder_kernel(TreeSweeps(probs, width, MOVES[:3] + (exact, perturb)), scheme,
                         adapt_until)


def _start(model, cfg, rng, init_term=None) -> CompiledState:
    got = _settings(model)
    if isinstance(got, str):
        from ..errors import RunError
        raise RunError(f"--path compiled: {got}")
    chain = _new_chain(model, *got, _mixture(cfg["proposal"])[2])
    if init_term is None:
        chain.sample_prior(rng)
    else:
        chain.set_tree(preorder_of(init_term, chain.dataset))
    return CompiledState(chain)


class _Particle(CompiledState):
    """An SMC particle: a state that owns copies of its tree's arrays (resampling
    copies particles, and each copy moves on its own)."""
    __slots__ = ("snap",)

    def __init__(self, chain, after=None):
        super().__init__(chain, after)
        self.snap = chain.snapshot()

    @classmethod
    def of(cls, after, n, perm, I, F, log_lik):
        """The particle of a tree given as a snapshot's arrays (moved from `after`)."""
        from ._kernels import _snapshot
        p = cls.__new__(cls)
        p.chain, p.log_lik, p.snap = after.chain, log_lik, (n, perm, I, F, log_lik)
        p._feat, p._thr, leaves, depth, same = _snapshot(n, I, F, after._feat, after._thr)
        p.stats, p.d = (leaves, depth), 2 * n - leaves
        p._key = after._key if same else None
        return p


class _Particles:
    """SMC's particles on this path (slpy.mcmc.smc.Particles): exact draws of the
    compiled prior, moved by the path's mixture on one chain's arrays, into which a
    particle is copied for its moves and out of which it is copied after."""

    def __init__(self, model, cfg):
        got = _settings(model)
        if isinstance(got, str):
            from ..errors import RunError
            raise RunError(f"--path compiled: {got}")
        self.probs, _, depth, _, self.width = _mixture(cfg["proposal"])
        self.chain = _new_chain(model, *got, depth)
        self._grouped = depth == 1 or self.probs[2] == 0     # no exact move from Python
        self._out = None

    def draw(self, rng):
        self.chain.sample_prior(rng)
        return _Particle(self.chain), 1, 0.0

    def from_term(self, term):
        """The particle of a tree term (the sampler check's exact starts)."""
        self.chain.set_tree(preorder_of(term, self.chain.dataset))
        return _Particle(self.chain)

    def move(self, rng, particle, heat, steps, it):
        self.chain.restore(particle.snap)
        acc = int(self.chain.run(steps, rng, heat, *self.probs, self.width)["accepted"]
                  .sum())
        return (_Particle(self.chain, particle) if acc else particle), acc

    def move_all(self, rng, particles, heat, steps, it):
        """:meth:`move` of each particle in turn (the same draws), GROUP of them a
        numba call: (the particles after, moves accepted)."""
        import numpy as np
        from ._ladder import _move_particles
        from .ladder import padded
        c = self.chain
        if not self._grouped:
            return None
        if self._out is None:
            N, cap = len(c.perm), len(c.I)
            self._out = (np.zeros(GROUP, np.int64), np.zeros(GROUP, np.int64),
                         np.zeros(GROUP), np.zeros((GROUP, N), np.int32),
                         np.zeros((GROUP, cap, 6), np.int64), np.zeros((GROUP, cap, 2)))
        o_acc, o_n, o_ll, o_perm, o_I, o_F = self._out
        out, accepted = list(particles), 0
        for g in range(0, len(out), GROUP):
            group = out[g:g + GROUP]
            snaps = [p.snap for p in group]
            perms, Is, Fs = padded([[s[1] for s in snaps], [s[2] for s in snaps],
                                    [s[3] for s in snaps]], GROUP)
            _move_particles(len(group), np.array([s[0] for s in snaps], np.int64),
                            np.array([s[4] for s in snaps]), perms, Is, Fs, steps, heat,
                            *self.probs, self.width, rng, c.perm, c.I, c.F, *c._data,
                            *c._scratch, c._regs, *c._exact_loop, o_acc, o_n, o_ll,
                            o_perm, o_I, o_F)
            for i, p in enumerate(group):
                if o_acc[i]:
                    n = int(o_n[i])
                    out[g + i] = _Particle.of(p, n, o_perm[i].copy(), o_I[i, :n].copy(),
                                              o_F[i, :n].copy(), float(o_ll[i]))
            accepted += int(o_acc[:len(group)].sum())
        return out, accepted


def _fits(model) -> bool:
    from ..trees.family import TreeScorer
    return isinstance(model.scorer, TreeScorer)


register_path(FastPath("compiled", MOVES, _default,
                       "GROWTREE's moves on flat arrays in numba",
                       _why_not, _kernel, _start, only=("regrow",), fits=_fits,
                       particles=_Particles, ladder=_ladder))
