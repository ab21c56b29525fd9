"""A tempered compiled chain's sweeps in batches, one numba call a batch
(slpy.compiled._ladder): the kernel of slpy.mcmc.tempered.build_tempered_kernel around
slpy.compiled.path's kernel, the same chain byte for byte, without a Python call (and a
numba dispatch) for every move of every replica.

The first call of a batch makes its sweeps at once and each call hands out the next:
the replicas' arrays run up to a batch ahead of the sweep handed out, so a chain
stopped early (a budget, Ctrl-C) has drawn a little more than it reports, which no
output shows (a resumed run recomputes its chain from the start). While the ladder
re-spaces itself (burn-in) a batch ends where a round of its tuner does. An exact move
of a depth limit above 1 (made from Python) leaves the sweeps to the plain kernel.
"""
from __future__ import annotations

import math

import numpy as np

from ..mcmc.kernel import Info
from ..mcmc.tempered import TemperedInfo

__all__ = ["ladder_kernel", "BATCH"]

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


def ladder_kernel(plain, probs, width, names, depth, scheme, adapt_until, batch=BATCH):
    """The tempered kernel ``kernel(rngs, state, it)``, `plain`'s sweeps (the plain
    tempered kernel, whose ladder re-spaces itself before sweep `adapt_until`) made in
    batches of `batch` sweeps; `plain` itself when an exact move of a limit above 1
    may be drawn. `probs`: the change, swap, exact and perturb probabilities; `width`:
    the perturb move's; `names`: the moves' names by number; `scheme`: neighbours or
    random swaps."""
    if depth != 1 and probs[2] > 0:
        return plain
    return _Batches(probs, width, names, scheme == "random", adapt_until, batch).sweep


class _Batches:
    def __init__(self, probs, width, names, random_scheme, adapt_until, batch):
        self.probs, self.width, self.names = probs, width, names
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
        from ._ladder import _ladder
        if self.chains is None:
            if it != 0 and not hasattr(state, "replicas"):
                raise RuntimeError("a compiled ladder resumed at a sweep it did not make")
            self._begin(state, rngs)
        elif it != self.stop:
            raise RuntimeError(f"sweep {it} asked of a compiled ladder at {self.stop}")
        ch = self.chains
        c0 = ch[0]
        XT, rankT, uvals, uoff, z1, z2, y, alpha, m, ptab, bucket, boxes = c0._data
        perm2, I2, F2, tmp, counts, stack = c0._scratch
        ht, ht2, el, anc, orderT, mark, y64, asum, aconst, fs, vs, h_max, work = \
            c0._exact_loop
        R, cap = len(ch), len(c0.I)
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
                "n": np.zeros(B, np.int64), "leaves": np.zeros(B, np.int64),
                "depth": np.zeros(B, np.int64), "new": np.zeros(B, np.bool_),
                "off": np.zeros(B, np.int64)}
        # the buffers start with the state at heat 1 before the batch
        feat = np.empty((b + 1) * cap, dtype=np.int64)
        thr = np.empty((b + 1) * cap)
        last = len(self._last[0])
        feat[:last], thr[:last] = self._last
        perms, Is, Fs, gens = self._lists
        _ladder(it, b, self.ns, self.lls, perms, Is, Fs, XT, rankT, uvals, uoff, z1, z2, y, alpha, m, ptab,
                bucket, boxes, np.array(self.heats), self.at, self.random_scheme, *self.probs, self.width,
                gens, rngs.swaps, perm2, I2, F2, tmp, counts, stack,
                c0._regs, ht, ht2, el, anc, orderT, mark, y64, asum, aconst, fs, vs, h_max,
                work, o["acc"], o["move"], o["cold"], o["swap"], o["prob"], o["nswap"],
                o["at"], o["ll"], o["n"], o["leaves"], o["depth"], o["new"], o["off"],
                feat, thr, last)
        for r, c in enumerate(ch):
            c.n, c.log_lik = int(self.ns[r]), float(self.lls[r])
        names = c0.dataset.feature_names
        sweeps = []
        prev = self._prev
        heats = self.heats
        for s, (r, q, at) in enumerate(zip(o["cold"][:b].tolist(), o["nswap"][:b].tolist(),
                                           o["at"][:b].tolist())):
            if o["new"][s]:
                off, n = int(o["off"][s]), int(o["n"][s])
                prev = _Cold(float(o["ll"][s]), n, int(o["leaves"][s]),
                             int(o["depth"][s]), feat[off:off + n], thr[off:off + n],
                             names)
            swaps = tuple((i, j, bool(ok), p) for (i, j, ok), p in
                          zip(o["swap"][s, :q].tolist(), o["prob"][s, :q].tolist()))
            if self.tuner is not None and it + s < self.adapt_until:
                self.tuner, respaced = self.tuner.step(heats, swaps, it + s)
                if respaced is not None:
                    heats = tuple(respaced)
            info = Info(bool(o["acc"][s, r]), True, self.names[o["move"][s, r]], math.nan)
            sweeps.append((_Whole(tuple(at), heats, prev), TemperedInfo(info, (), swaps)))
        self.heats = heats
        self._sweeps, self._prev = sweeps, prev
        self._last = (prev._feat, prev._thr)
        self.start, self.stop = it, it + b

    def _begin(self, state, rngs):
        """Take over the replicas of a plain tempered state. Their arrays and
        generators go to the kernel in tuples padded to a multiple of PAD (a tuple's
        length is part of its type: the kernel is compiled once for up to PAD
        replicas, not once for each number of them)."""
        reps = state.replicas
        self.chains = ch = [s.chain for s in reps]
        pad = -len(ch) % PAD
        self._lists = tuple(tuple(x) + (x[0],) * pad for x in (
            [c.perm for c in ch], [c.I for c in ch], [c.F for c in ch], rngs.replicas))
        self.ns = np.array([c.n for c in self.chains], dtype=np.int64)
        self.lls = np.array([c.log_lik for c in self.chains])
        self.at = np.array(state.at, dtype=np.int64)
        self.heats = tuple(state.heats)
        self.tuner = state.tuner
        cold = state.cold
        self._prev = cold
        self._last = (cold._feat, cold._thr)
