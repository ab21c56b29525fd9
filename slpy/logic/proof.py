"""Proof trees: one node per stochastic choice point of the final derivation, and their
text (the top level's ``t``, ``str(tree)``) and JSON (``slpy sample --format json``).

During a derivation the engine keeps ``SNode`` records (mutable, shared with the choice
point that may redraw them); when a solution is reached they are frozen into
``ProofNode`` trees, which are immutable and may be shared between proofs (replay
grafts untouched subtrees of an earlier proof into a new one).
"""
from __future__ import annotations

import math
import os

from ..terms.term import Struct
from ..terms.text import letter_var_names
from ..terms.writer import term_to_text
from .plugins import UniformChoice


class SNode:
    """A stochastic choice point as it is being proved."""
    __slots__ = ("pred", "args", "guard", "parent", "call", "cands", "chosen", "key",
                 "prob", "answer", "ground", "height", "path", "nch", "fresh", "clause",
                 "value", "total", "gcall", "old")

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


class ProofNode:
    """A frozen choice point: the call, the candidates with their probabilities, the
    chosen one and its probability, and the choice points below it."""
    __slots__ = ("pred", "call", "guard", "_cands", "_total", "chosen", "key", "prob",
                 "children", "path", "answer", "ground", "value", "_by_path", "_size")

    def __init__(self, s: SNode | None, path: tuple):
        self.children: list[ProofNode] = []
        self.path = path
        self._by_path = None
        self._size = None
        if s is None:  # the root: the query itself
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
        return sum(math.log(n.prob) for n in self)

    def nodes_by_path(self) -> dict:
        if self._by_path is None:
            self._by_path = {n.path: n for n in self}
        return self._by_path

    def format(self, indent: str = "  ", ops=None) -> str:
        """An indented, readable rendering: one line per choice point (proof_lines)."""
        return "\n".join(proof_lines(self, ops, indent))

    def __str__(self):
        return self.format()


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
    # subtree sizes, children first (grafted subtrees carry theirs)
    for p in reversed(made):
        n = 0
        for c in p.children:
            n += c._size + 1
        p._size = n
    return root


# -- rendering -------------------------------------------------------------------------

def _text(t, ops=None, spacing=True, priority=999) -> str:
    """writeq text with the variables named _A, _B, ... in order of appearance."""
    return term_to_text(t, quoted=True, spacing=spacing, ops=ops, priority=priority,
                        var_names=letter_var_names(t))


def _call_text(n, ops=None, spacing=True) -> str:
    """The call of a choice point, with its guard when the node keeps one
    (``[3]::cart(_A)``)."""
    if n.call is None:
        return "?"
    if n.guard is not None:
        return _text(Struct("::", (n.guard, n.call)), ops, spacing, priority=1200)
    return _text(n.call, ops, spacing)


def _choice_text(n, ops=None) -> str:
    """What a choice point chose: ``clause K (file:line)`` or ``-> Value``."""
    if n.value is not None:
        return "-> " + _text(n.value, ops)
    c = n.key
    where = ""
    if getattr(c, "file", None):
        where = f" ({os.path.basename(c.file)}:{c.line})"
    return f"clause {n.chosen}{where}"


def proof_lines(tree: ProofNode, ops=None, indent: str = "  "):
    """One line per choice point below tree, indented by depth: the call, the choice,
    its probability."""
    stack = [(c, 0) for c in reversed(tree.children)]
    while stack:
        n, depth = stack.pop()
        yield f"{indent * depth}{_call_text(n, ops)}  {_choice_text(n, ops)}  p = {n.prob:.4g}"
        stack.extend((c, depth + 1) for c in reversed(n.children))


def format_proof(tree: ProofNode, logp: float | None = None, ops=None) -> str:
    """The proof tree as comment lines, as the top level shows it."""
    k = tree.size()
    if logp is None:
        logp = tree.log_prob()
    head = (f"% proof tree: {k} choice point{'s' if k != 1 else ''}, "
            f"p = {math.exp(logp):.4g} (log p = {logp:.4g})")
    return "\n".join([head] + ["%   " + line for line in proof_lines(tree, ops)])


def proof_json(tree: ProofNode, ops=None) -> list:
    """The choice points below tree as JSON-ready dicts (children nested)."""
    def node(n):
        d = {"call": _call_text(n, ops, spacing=False) if n.call is not None else None,
             "prob": n.prob}
        if n.value is not None:
            d["value"] = _text(n.value, ops, spacing=False)
            ch = n.chosen
            d["choice"] = ch if isinstance(ch, (int, str)) else str(ch)
        else:
            d["clause"] = n.chosen
            c = n.key
            if getattr(c, "file", None):
                d["file"] = c.file
                d["line"] = c.line
        d["children"] = [node(c) for c in n.children]
        return d
    # recursion depth is the proof's depth; priors deep enough to matter print as lines
    return [node(c) for c in tree.children]
