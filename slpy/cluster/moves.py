"""The clustering family's moves, for the priors whose choices are `seat/4` (a new
cluster or an existing one) and `pick/6` (which one) (priors/crp.slp,
priors/crp_bounded.slp). Each partition has exactly one proof in these priors (a
restricted growth string of seat and pick choices), so a move that proposes a partition
forces the choices of every item whose seating changes and replays the rest
(slpy.logic.replay, Engine.replay); p0(T) below is a proof's own prior probability.

`reassign`: a Gibbs move on one item's cluster.

Pick an item i uniformly. With the other items' clusters fixed (the partition P_-i),
the candidates are: i joins one of P_-i's clusters, or i alone. Draw one from

    pi(c) ∝ q0(c) * exp(heat * log L(c)),

q0 the Chinese restaurant process's prior (slpy.cluster.exact.crp_log_prior: relative
to P_-i, a factor |b| for joining cluster b and alpha for a cluster of its own, 0 where
max_clusters, must_link or cannot_link forbid it; the parameters are read from the
program), L the marginal likelihood (only the two clusters that change differ). From
the new partition, picking the same i gives the same P_-i and candidates, so the
reverse move draws from the same pi; the ratio returned,

    log p0(T') - log p0(T) + log pi(c) - log pi(c'),

p0 the proof's own prior probability, leaves in the acceptance (the kernel adds
heat * (log L(c') - log L(c))) log p0(T') - log p0(T) + log q0(c) - log q0(c'):
0 (always accepted: a Gibbs move) when q0 is the prior the program defines, the MH
correction when it is not.

`splitmerge`: the sequentially allocated merge-split move (Dahl 2003, "An improved
merge-split sampler for conjugate Dirichlet process mixture models"). Pick an ordered
pair of items i != j uniformly and a uniform order of the other items of their
clusters. If i and j are in one cluster S, propose to split it: start {i} and {j} and
allocate the others of S in that order, each to A in {S_i, S_j} with probability
proportional to |A| exp(heat * (log L(A + k) - log L(A))); q_split is the product of
the probabilities of the allocations made. If they are in two clusters, propose their
merge, whose reverse split (the same pair and order) would make the current two
clusters with probability q_split, computed by allocating as above but forcing each
item where it is. A merge is deterministic given the pair, the pair and the order are
drawn alike both ways, so the ratios returned are

    split: log p0(T') - log p0(T) - log q_split,
    merge: log p0(T') - log p0(T) + log q_split,

and the kernel multiplies in the likelihood ratio. It moves many items at once, where
reassign must pass through a cluster of one to open a cluster or close one.

Most split-merge proposals are rejected, and a replay costs milliseconds, so the move
accepts in two stages (delayed acceptance; Christen & Fox 2005): first with the ratio
r_a that the CRP formula and the cached cluster scores give, without a replay; a
proposal that passes is replayed and returned with the ratio above divided by r_a,
which the kernel's acceptance then corrects (1 when the formula is the program's
prior). A proposal the first stage rejects counts as one that could not be made.
"""
from __future__ import annotations

import math

import numpy as np

from ..mcmc.moves import Move
from ..terms.term import Struct, deref, list_items
from .partition import ClusterScorer, canonical_labels, labels_of

__all__ = ["reassign_move", "splitmerge_move", "reassign_applies", "check_name",
           "prior_settings", "build"]


def check_name(name: str) -> None:
    if name not in ("reassign", "splitmerge"):
        raise ValueError(f"unknown proposal {name!r} (the clustering moves are "
                         f"`reassign` and `splitmerge`)")


def _preds(model):
    preds = model.program.db.preds
    return preds.get(("seat", 4)), preds.get(("pick", 6))


def reassign_applies(model) -> bool:
    seat, pick = _preds(model)
    return (isinstance(model.scorer, ClusterScorer) and seat is not None
            and pick is not None and len(seat.clauses) == 2 and len(pick.clauses) == 2)


def prior_settings(program) -> dict:
    """alpha, max_clusters, must and cannot (pairs of 1-based items) as the program's
    parameters set them (those it does not declare: the plain CRP's)."""
    def value(name, default):
        if name not in program.params:
            return default
        b = program.once(f"param({name}, V)")
        return default if b is None else b["V"]

    def pairs(t):
        out = []
        for p in list_items(t)[0] if t is not None else ():
            p = deref(p)
            if type(p) is Struct and p.name == "-" and len(p.args) == 2:
                a, b = deref(p.args[0]), deref(p.args[1])
                if type(a) is int and type(b) is int:    # else the prior raises
                    out.append((a, b))
        return tuple(out)
    alpha = 1.0
    if "alpha" in program.params:
        b = program.once("param(alpha, A0), A is A0")
        alpha = float(b["A"]) if b else 1.0
    m = value("max_clusters", None)
    return dict(alpha=alpha, max_clusters=m if isinstance(m, int) else None,
                must=pairs(value("must_link", None)),
                cannot=pairs(value("cannot_link", None)))


def _choices(z) -> list:
    """Each item's choices in a restricted growth string z (0-based labels):
    ("new",) or ("join", k) for the k-th open cluster."""
    out, top = [], -1
    for k in z:
        if k > top:
            out.append(("new",))
            top = k
        else:
            out.append(("join", k))
    return out


class _Setting:
    """What both moves need of a model: its scorer, the prior's clauses and
    parameters."""

    def __init__(self, model, name):
        if not reassign_applies(model):
            raise ValueError(f"the {name} move needs a clustering prior whose choices are "
                             f"seat/4 and pick/6 (priors/crp.slp)")
        self.model = model
        self.n = model.scorer.n
        self.blocks = model.scorer.blocks
        seat, pick = _preds(model)
        self.s_new, self.s_join = seat.clauses
        self.p_here, self.p_later = pick.clauses
        cfg = prior_settings(model.program)
        if not cfg["alpha"] > 0:
            raise ValueError(f"alpha must be > 0, not {cfg['alpha']}")
        self.log_alpha = math.log(cfg["alpha"])
        self.max_k = cfg["max_clusters"]
        self.must, self.cannot = {}, {}
        for table, ps in ((self.must, cfg["must"]), (self.cannot, cfg["cannot"])):
            for a, b in ps:
                table.setdefault(a - 1, []).append(b - 1)
                table.setdefault(b - 1, []).append(a - 1)

    def gain(self, mask, i) -> float:
        """log L(b + i) - log L(b), b the items of mask (0: none)."""
        return 0.0 if self.blocks is None else self.blocks.gain(mask, i)

    def by_mask(self, mask) -> float:
        return 0.0 if self.blocks is None else self.blocks.by_mask(mask)

    def replay(self, state, z0, z2, rng):
        """The state of the partition z2 (0-based restricted growth string), from the
        state of z0: (new state, log p0(T') - log p0(T)) or None."""
        forced = {}
        for j, (a, b) in enumerate(zip(_choices(z0), _choices(z2))):
            if a == b:
                continue
            if b[0] == "new":
                forced[(j,)] = self.s_new
                continue
            forced[(j,)] = self.s_join
            for p in range(b[1] + 1):
                forced[(j,) + (0,) * (p + 1)] = self.p_here if p == b[1] else self.p_later
        new, r = self.model.local(state, forced, rng)
        if new is None or r.n_fresh:
            return None      # (a fresh draw would need its own proposal term)
        if canonical_labels(labels_of(new.term)) != [k + 1 for k in z2]:
            return None      # not shaped as these moves assume
        return new, new.tree.log_target() - state.tree.log_target()


def _draw(rng, lw) -> int:
    w = np.exp(np.array(lw) - max(lw))
    return int(min(np.searchsorted(np.cumsum(w), rng.random() * w.sum(), side="right"),
                   len(w) - 1))


def reassign_move(model, name: str = "reassign"):
    st = _Setting(model, name)
    n, must, cannot = st.n, st.must, st.cannot

    def conditional(z, i, heat):
        """(candidate label of i for each option, log q0, log weights); the last option
        is a cluster of i's own, labelled by a fresh number."""
        size: dict = {}
        mask: dict = {}
        for j, k in enumerate(z):
            if j != i:
                size[k] = size.get(k, 0) + 1
                mask[k] = mask.get(k, 0) | 1 << j
        opts = list(size) + [max(z) + 1]
        lq = []
        for k in opts[:-1]:
            ok = all(z[j] == k for j in must.get(i, ())) and \
                not any(z[j] == k for j in cannot.get(i, ()))
            lq.append(math.log(size[k]) if ok else -math.inf)
        ok = not must.get(i) and (st.max_k is None or len(size) + 1 <= st.max_k)
        lq.append(st.log_alpha if ok else -math.inf)
        lw = list(lq)
        if heat != 0:
            for c, k in enumerate(opts):
                if lq[c] > -math.inf:
                    lw[c] += heat * st.gain(mask.get(k, 0), i)
        return opts, lq, lw

    def propose(rng, state, it, heat):
        z = canonical_labels(labels_of(state.term))
        i = min(int(rng.random() * n), n - 1)
        opts, lq, lw = conditional(z, i, heat)
        c = _draw(rng, lw)
        old = opts.index(z[i]) if z[i] in opts[:-1] else len(opts) - 1
        if c == old:
            return state, 0.0
        z2 = list(z)
        z2[i] = opts[c]
        out = st.replay(state, [k - 1 for k in z], [k - 1 for k in canonical_labels(z2)],
                        rng)
        if out is None:
            return None, -math.inf
        return out[0], out[1] + lw[old] - lw[c]

    return Move("reassign", propose)


def splitmerge_move(model, name: str = "splitmerge"):
    st = _Setting(model, name)
    n = st.n

    def allocate(i, j, others, heat, rng, where=None):
        """(items with i, items with j, log q_split): the others allocated in order,
        drawn (where None) or forced where z puts them (where: item -> True for i's)."""
        a, b, log_q = [i], [j], 0.0
        ma, mb = 1 << i, 1 << j
        for k in others:
            la = math.log(len(a)) + heat * st.gain(ma, k)
            lb = math.log(len(b)) + heat * st.gain(mb, k)
            top = max(la, lb)
            log_z = top + math.log(math.exp(la - top) + math.exp(lb - top))
            to_a = rng.random() < math.exp(la - log_z) if where is None else where[k]
            if to_a:
                a.append(k)
                ma |= 1 << k
            else:
                b.append(k)
                mb |= 1 << k
            log_q += (la if to_a else lb) - log_z
        return a, b, log_q, ma, mb

    def log_prior_ratio(a, b) -> float:
        """log q0(the clusters a and b apart) - log q0(them merged), by the CRP formula
        (-inf where a constraint forbids the split)."""
        in_a = set(a)
        for x, ys in st.must.items():
            if x in in_a and any(y in b for y in ys):
                return -math.inf
        return st.log_alpha + math.lgamma(len(a)) + math.lgamma(len(b)) \
            - math.lgamma(len(a) + len(b))

    def propose(rng, state, it, heat):
        if n < 2:
            return None, -math.inf
        z = canonical_labels(labels_of(state.term))
        i = min(int(rng.random() * n), n - 1)
        j = min(int(rng.random() * (n - 1)), n - 2)
        j += j >= i
        same = z[i] == z[j]
        others = [k for k in range(n) if k not in (i, j) and z[k] in (z[i], z[j])]
        others = [others[t] for t in rng.permutation(len(others))]
        z2 = list(z)
        if same:
            a, b, log_q, ma, mb = allocate(i, j, others, heat, rng)
            for k in b:
                z2[k] = max(z) + 1
            sign = -1.0
            ok = st.max_k is None or max(z) + 1 <= st.max_k
        else:
            a, b, log_q, ma, mb = allocate(i, j, others, heat, rng,
                                           {k: z[k] == z[i] for k in others})
            for k in range(n):
                if z2[k] == z[j]:
                    z2[k] = z[i]
            sign = 1.0
            ok = not any(y in b for x in a for y in st.cannot.get(x, ()))
        lp = log_prior_ratio(a, b)
        if not ok or lp == -math.inf:
            return None, -math.inf
        split = st.by_mask(ma) + st.by_mask(mb)
        merged = st.by_mask(ma | mb)
        # stage one of delayed acceptance, on the CRP formula: no replay for the many
        # proposals it rejects
        log_ra = -sign * (lp + heat * (split - merged)) + sign * log_q
        if math.log(max(rng.random(), 1e-300)) >= min(0.0, log_ra):
            return None, -math.inf
        out = st.replay(state, [k - 1 for k in z], [k - 1 for k in canonical_labels(z2)],
                        rng)
        if out is None:
            return None, -math.inf
        return out[0], out[1] + sign * log_q - log_ra

    return Move("splitmerge", propose)


def build(model, name: str):
    return reassign_move(model) if name == "reassign" else splitmerge_move(model)
