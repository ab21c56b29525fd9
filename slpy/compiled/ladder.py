"""A tempered compiled chain's sweeps in batches, one numba call a batch: the kernel
of slpy.mcmc.tempered.build_tempered_kernel around a compiled path's kernel, the same
chain byte for byte, without a Python call (and a numba dispatch) for every move of
every replica. A *kind* makes the sweeps of its chains: :class:`TreeSweeps`
(slpy.compiled._ladder, GROWTREE's chains) and :class:`NetworkSweeps`
(slpy.compiled._network, networks).

The first call of a batch makes its sweeps at once and each call hands out the next:
the replicas' arrays run up to a batch ahead of the sweep handed out, so a chain
stopped early (a budget, Ctrl-C) has drawn a little more than it reports, which no
output shows (a resumed run recomputes its chain from the start). While the ladder
re-spaces itself (burn-in) a batch ends where a round of its tuner does.
"""
from __future__ import annotations

import math

import numpy as np

from ..mcmc.kernel import Info
from ..mcmc.tempered import TemperedInfo

__all__ = ["ladder_kernel", "TreeSweeps", "NetworkSweeps", "padded", "BATCH", "PAD"]

BATCH = 64               # sweeps a numba call: its cost is then a few per cent of theirs
PAD = 16                 # replicas' tuples are padded to a multiple of this


class _Cold:
    """The state at heat 1 after a sweep of a batch, as slpy.compiled.path's
    CompiledState offers it to the observers (``log_lik``, ``d``, ``stats``, ``key``)."""
    __slots__ = ("log_lik", "stats", "d", "_feat", "_thr", "_names", "_key")
    term = None

    def __init__(self, log_lik, n, leaves, depth, feat, thr, names):
        self.log_lik = log_lik
        self.stats = (leaves, depth)
        self.d = 2 * n - leaves
        self._feat, self._thr, self._names, self._key = feat, thr, names, None

    @property
    def key(self) -> str:
        if self._key is None:
            from .growtree import canonical_text
            self._key = canonical_text(self._feat.tolist(), self._thr.tolist(),
                                       self._names)
        return self._key

    @property
    def cold(self):
        return self


class _Whole:
    """The tempered state after a sweep of a batch: levels' replicas, heats and the
    state at heat 1 (the replicas' own states are the chains' arrays, a batch ahead)."""
    __slots__ = ("at", "heats", "cold")

    def __init__(self, at, heats, cold):
        self.at, self.heats, self.cold = at, heats, cold


def ladder_kernel(kind, scheme: str, adapt_until: int, batch: int = BATCH):
    """The tempered kernel ``kernel(rngs, state, it)`` of the plain tempered kernel
    (whose ladder re-spaces itself before sweep `adapt_until`), its sweeps made in
    batches of `batch` by `kind` (:class:`TreeSweeps`, :class:`NetworkSweeps`);
    `scheme`: neighbours or random swaps."""
    return _Batches(kind, scheme == "random", adapt_until, batch).sweep


class _Batches:
    def __init__(self, kind, random_scheme, adapt_until, batch):
        self.kind = kind
        self.random_scheme, self.adapt_until, self.batch = random_scheme, adapt_until, batch
        self.chains = None
        self.start = self.stop = 0
        self.out = None

    def sweep(self, rngs, state, it):
        if not self.start <= it < self.stop:
            self._fill(rngs, state, it)
        return self._sweeps[it - self.start]

    def _fill(self, rngs, state, it):
        """Make the batch of sweeps from `it`, from `state` (the sweep before's)."""
        if self.chains is None:
            if it != 0 and not hasattr(state, "replicas"):
                raise RuntimeError("a compiled ladder resumed at a sweep it did not make")
            self._begin(state, rngs)
        elif it != self.stop:
            raise RuntimeError(f"sweep {it} asked of a compiled ladder at {self.stop}")
        R = len(self.chains)
        b = self.batch
        if self.tuner is not None and it < self.adapt_until:
            b = max(1, min(b, self.tuner.round_end - it))     # re-spaced after a round
        o = self.out
        if o is None:
            B = self.batch
            o = self.out = {
                "acc": np.zeros((B, R), dtype=np.bool_), "move": np.zeros((B, R), np.int8),
                "cold": np.zeros(B, np.int64), "swap": np.zeros((B, R, 3), np.int64),
                "prob": np.zeros((B, R)), "nswap": np.zeros(B, np.int64),
                "at": np.zeros((B, R), np.int64), "ll": np.zeros(B),
                "new": np.zeros(B, np.bool_), **self.kind.outputs(B)}
        self.kind.run(it, b, self.lls, np.array(self.heats), self.at, self.random_scheme,
                      rngs.swaps, o)
        for r, c in enumerate(self.chains):
            c.log_lik = float(self.lls[r])
        names = self.kind.names
        sweeps = []
        prev = self._prev
        heats = self.heats
        for s, (r, q, at) in enumerate(zip(o["cold"][:b].tolist(), o["nswap"][:b].tolist(),
                                           o["at"][:b].tolist())):
            if o["new"][s]:
                prev = self.kind.cold(o, s)
            swaps = tuple((i, j, bool(ok), p) for (i, j, ok), p in
                          zip(o["swap"][s, :q].tolist(), o["prob"][s, :q].tolist()))
            if self.tuner is not None and it + s < self.adapt_until:
                self.tuner, respaced = self.tuner.step(heats, swaps, it + s)
                if respaced is not None:
                    heats = tuple(respaced)
            info = Info(bool(o["acc"][s, r]), True, names[o["move"][s, r]], math.nan)
            sweeps.append((_Whole(tuple(at), heats, prev), TemperedInfo(info, (), swaps)))
        self.heats = heats
        self._sweeps, self._prev = sweeps, prev
        self.kind.last(prev)
        self.start, self.stop = it, it + b

    def _begin(self, state, rngs):
        """Take over the replicas of a plain tempered state."""
        self.chains = [s.chain for s in state.replicas]
        self.lls = np.array([c.log_lik for c in self.chains])
        self.at = np.array(state.at, dtype=np.int64)
        self.heats = tuple(state.heats)
        self.tuner = state.tuner
        self._prev = state.cold
        self.kind.begin(self.chains, rngs)
        self.kind.last(state.cold)


def padded(rows, pad: int = PAD) -> tuple:
    """Each list of `rows` (one item a replica) as a tuple padded to a multiple of PAD
    with its first item: a tuple's length is part of its numba type, so a kernel is
    compiled once for up to PAD replicas, not once for each number of them."""
    k = -len(rows[0]) % pad
    return tuple(tuple(x) + (x[0],) * k for x in rows)


class TreeSweeps:
    """The batches of GROWTREE chains (slpy.compiled.growtree): the change, swap, exact
    and perturb probabilities `probs` (else regrow), the perturb move's `width`, the
    moves' names by number."""

    def __init__(self, probs, width, names):
        self.probs, self.width, self.names = probs, width, names

    def outputs(self, B: int) -> dict:
        return {"n": np.zeros(B, np.int64), "leaves": np.zeros(B, np.int64),
                "depth": np.zeros(B, np.int64), "off": np.zeros(B, np.int64)}

    def begin(self, chains, rngs) -> None:
        self.chains = chains
        self.lists = padded([[c.perm for c in chains], [c.I for c in chains],
                             [c.F for c in chains], list(rngs.replicas)])
        self.ns = np.array([c.n for c in chains], dtype=np.int64)
        self.names_of = chains[0].dataset.feature_names

    def last(self, cold) -> None:
        self._last = (cold._feat, cold._thr)

    def run(self, it, b, lls, heats, at, random_scheme, swap_rng, o) -> None:
        from ._ladder import _ladder
        c0 = self.chains[0]
        XT, rankT, uvals, uoff, z1, z2, y, alpha, m, ptab, bucket, boxes = c0._data
        perm2, I2, F2, tmp, counts, stack = c0._scratch
        ht, ht2, el, anc, orderT, mark, y64, asum, aconst, fs, vs, h_max, work = \
            c0._exact_loop
        cap = len(c0.I)
        # the buffers start with the state at heat 1 before the batch
        self.feat = np.empty((b + 1) * cap, dtype=np.int64)
        self.thr = np.empty((b + 1) * cap)
        last = len(self._last[0])
        self.feat[:last], self.thr[:last] = self._last
        perms, Is, Fs, gens = self.lists
        _ladder(it, b, self.ns, lls, perms, Is, Fs, XT, rankT, uvals, uoff, z1, z2, y,
                alpha, m, ptab, bucket, boxes, heats, at, random_scheme, *self.probs,
                self.width, gens, swap_rng, perm2, I2, F2, tmp, counts, stack, c0._regs,
                ht, ht2, el, anc, orderT, mark, y64, asum, aconst, fs, vs, h_max, work,
                o["acc"], o["move"], o["cold"], o["swap"], o["prob"], o["nswap"],
                o["at"], o["ll"], o["n"], o["leaves"], o["depth"], o["new"], o["off"],
                self.feat, self.thr, last)
        for r, c in enumerate(self.chains):
            c.n = int(self.ns[r])

    def cold(self, o, s) -> _Cold:
        off, n = int(o["off"][s]), int(o["n"][s])
        return _Cold(float(o["ll"][s]), n, int(o["leaves"][s]), int(o["depth"][s]),
                     self.feat[off:off + n], self.thr[off:off + n], self.names_of)


class NetworkSweeps:
    """The batches of network chains (slpy.compiled.network): each replica's iteration
    one change move with probability `p_change`, else a sweep of `pairs` of them, as
    the path's kernel makes it (slpy.compiled._network._ladder); `state_of(chain,
    log_lik, parent masks, edges)` makes the state at heat 1."""
    names = ("change", "sweep")

    def __init__(self, p_change: float, pairs: int, state_of):
        self.p_change, self.pairs, self.state_of = p_change, pairs, state_of

    def outputs(self, B: int) -> dict:
        return {"edges": np.zeros(B, np.int64)}

    def begin(self, chains, rngs) -> None:
        self.chains = chains
        self.lists = padded([[c.link for c in chains], [c.pa for c in chains],
                             [c.ch for c in chains], [c.fam for c in chains],
                             list(rngs.replicas)])

    def last(self, cold) -> None:
        self._last = cold._pa

    def run(self, it, b, lls, heats, at, random_scheme, swap_rng, o) -> None:
        from ._network import _ladder
        c0 = self.chains[0]
        # the state at heat 1 before the batch, then each sweep's
        self.pa = np.empty((b + 1, c0.n), dtype=np.int64)
        self.pa[b] = self._last
        links, pas, chs, fams, gens = self.lists
        _ladder(it, b, lls, links, pas, chs, fams, c0.pu, c0.pv, c0.prob, c0.log_rest,
                c0.max_parents, c0.n, *c0.scores.args, heats, at, random_scheme,
                self.p_change, self.pairs, gens, swap_rng, o["acc"], o["move"], o["cold"],
                o["swap"], o["prob"], o["nswap"], o["at"], o["ll"], o["new"], o["edges"],
                self.pa)

    def cold(self, o, s):
        return self.state_of(self.chains[0], float(o["ll"][s]), self.pa[s],
                             int(o["edges"][s]))
