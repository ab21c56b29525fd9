"""Proof trees: one node per stochastic choice point of the final derivation (their text
and JSON are in proof_text.py).

During a derivation the engine keeps ``SNode`` records (mutable, shared with the choice
point that may redraw them); when a solution is reached they are frozen into
``ProofNode`` trees, which are immutable and may be shared between proofs (replay
grafts untouched subtrees of an earlier proof into a new one).
"""
from __future__ import annotations

import math

from .plugins import UniformChoice
from .proof_text import proof_lines


class SNode:
    """A stochastic choice point as it is being proved."""
    __slots__ = ("pred", "args", "guard", "parent", "call", "cands", "chosen", "key",
                 "prob", "answer", "ground", "height", "path", "nch", "fresh", "clause",
                 "value", "total", "gcall", "old", "lam")

    def __init__(self, pred, args, guard, parent):
        self.pred = pred
        self.args = args
        self.guard = guard
        self.parent = parent
        self.call = None
        self.gcall = None    # the guard as passed, when the call passed one
        self.cands = ()      # raw candidates (see ProofNode.candidates)
        self.total = 1.0
        self.chosen = None   # clause number, or index of the builtin candidate
        self.key = None      # what replay forces: the Clause, or the candidate's key
        self.prob = 1.0
        self.answer = None
        self.ground = False
        self.height = 0
        self.path = ()
        self.nch = 0
        self.fresh = True
        self.clause = None
        self.value = None
        self.old = None      # replay: the recorded ProofNode at the same place
        self.lam = 0.0       # replay: log W_cand - log W_all (slpy.logic.replay)


class ProofNode:
    """A frozen choice point: the call, the candidates with their probabilities, the
    chosen one and its probability, and the choice points below it."""
    __slots__ = ("pred", "call", "guard", "_cands", "_total", "chosen", "key", "prob",
                 "children", "path", "answer", "ground", "value", "_by_path", "_size",
                 "lam", "_lsum")

    def __init__(self, s: SNode | None, path: tuple):
        self.children: list[ProofNode] = []
        self.path = path
        self._by_path = None
        self._size = None
        self._lsum = 0.0
        if s is None:  # the root: the query itself
            self.lam = 0.0
            self.pred = None
            self.call = None
            self.guard = None
            self._cands = ()
            self._total = 1.0
            self.chosen = None
            self.key = None
            self.prob = 1.0
            self.answer = None
            self.ground = False
            self.value = None
            return
        self.pred = s.pred
        self.call = s.call
        self.guard = s.gcall
        self._cands = s.cands
        self._total = s.total
        self.chosen = s.chosen
        self.key = s.key
        self.prob = s.prob
        self.answer = s.answer
        self.ground = s.ground
        self.value = s.value
        self.lam = s.lam

    @property
    def cands(self):
        """The candidates as (clause number or builtin key, probability) pairs.

        Built on demand: a choice among thousands of splits keeps only a reference."""
        c = self._cands
        if type(c) is UniformChoice:
            p = 1.0 / c.n
            return tuple((c.key(i), p) for i in range(c.n))
        t = self._total
        return tuple(((x[1].number if hasattr(x[1], "number") else x[2]), x[0] / t)
                     for x in c)

    def __iter__(self):
        """Pre-order walk over the nodes below (not including) this one."""
        stack = list(reversed(self.children))
        while stack:
            n = stack.pop()
            yield n
            stack.extend(reversed(n.children))

    def size(self) -> int:
        """The number of choice points below this node (set when the tree is built)."""
        return self._size

    def nth(self, k: int) -> "ProofNode":
        """The k-th node (0-based) of the pre-order walk below this node, found through
        the subtree sizes rather than by walking."""
        node = self
        while True:
            for c in node.children:
                if k == 0:
                    return c
                k -= 1
                if k < c._size:
                    node = c
                    break
                k -= c._size
            else:
                raise IndexError("pre-order index out of range")

    def log_prob(self) -> float:
        """The log probability the proof was drawn with (sampling's own)."""
        return sum(math.log(n.prob) for n in self)

    def log_target(self) -> float:
        """The log of the proof's unnormalised prior as the sampler targets it (each
        choice over all its predicate's clauses: slpy.logic.replay)."""
        return sum(math.log(n.prob) + n.lam for n in self)

    def nodes_by_path(self) -> dict:
        if self._by_path is None:
            self._by_path = {n.path: n for n in self}
        return self._by_path

    def format(self, indent: str = "  ", ops=None) -> str:
        """An indented, readable rendering: one line per choice point (proof_lines)."""
        return "\n".join(proof_lines(self, ops, indent))

    def __str__(self):
        return self.format()

    def _repr_html_(self) -> str:
        """What a notebook shows (slpy.logic.display)."""
        from .display import proof_html
        return proof_html(self)


def build_tree(plog) -> ProofNode:
    """Freeze the derivation's log of choice points (a linked list, newest first).

    Entries are SNodes, or ``(ProofNode, parent SNode)`` pairs for subtrees that replay
    grafted unchanged from an earlier proof.
    """
    entries = []
    while plog is not None:
        entries.append(plog[0])
        plog = plog[1]
    root = ProofNode(None, ())
    frozen = {}
    made = [root]
    for e in reversed(entries):
        if type(e) is tuple:
            node, sparent = e
            parent = frozen.get(id(sparent), root)
            parent.children.append(node)
            continue
        parent = frozen.get(id(e.parent), root)
        p = ProofNode(e, parent.path + (len(parent.children),))
        parent.children.append(p)
        frozen[id(e)] = p
        made.append(p)
    # subtree sizes and sums of lam, children first (grafted subtrees carry theirs)
    for p in reversed(made):
        n = 0
        lam = 0.0
        for c in p.children:
            n += c._size + 1
            lam += c._lsum + c.lam
        p._size = n
        p._lsum = lam
    return root
