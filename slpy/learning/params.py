"""Which labels are learned: the clauses of the chosen predicates, one parameter each.

Under pure SLP semantics a clause of p/n is chosen with probability theta_c = l_c /
sum of the labels of p/n's clauses, so the parameters of a predicate are a point of
the simplex and a derivation's probability is a product of them. Only constant labels
can be learned: a computed label (an expression of the call's variables) or a guard
makes the normaliser depend on the call, and EM then has no closed-form M-step.
"""
from __future__ import annotations

import numpy as np

from ..logic.db import STOCH
from ..terms.text import letter_var_names
from ..terms.writer import term_to_text

__all__ = ["LearnError", "Params", "pred_text"]


class LearnError(ValueError):
    """Learning or MPE cannot go on; ``str()`` is one line (with file:line when the
    problem is in a file)."""


def pred_text(program, pred) -> str:
    """p/1 for a predicate, also for the hidden predicate holding a tabled one's
    clauses."""
    for (name, arity), impl in program.tabled.items():
        if impl == pred.name and arity == pred.arity:
            return f"{name}/{arity}"
    return pred.indicator_text


def _lookup(program, spec: str):
    name, slash, arity = spec.strip().rpartition("/")
    if not slash or not name or not arity.isdigit():
        raise LearnError(f"{spec!r}: a predicate is name/arity, e.g. p/1")
    key = (name, int(arity))
    if key in program.tabled:
        key = (program.tabled[key], key[1])
    pred = program.db.lookup(*key)
    if pred is None or not pred.clauses:
        raise LearnError(f"{spec.strip()}: no such predicate in the program")
    if pred.kind != STOCH:
        raise LearnError(f"{spec.strip()}: its clauses have no labels: nothing to learn")
    return pred


class Params:
    """The learned clauses: ``clauses[j]`` and ``group[j]`` (its predicate's index in
    ``preds``), and ``theta0``, the program's labels normalised per predicate."""

    def __init__(self, program, predicates=None):
        self.program = program
        if predicates is None:
            preds = [p for p in program.db.preds.values()
                     if p.kind == STOCH and p.clauses and not p.library and not p.builtin]
            if not preds:
                raise LearnError("the program has no labelled predicates: nothing to learn")
        else:
            if isinstance(predicates, str):
                predicates = [s for s in predicates.split(",") if s.strip()]
            preds = list(dict.fromkeys(_lookup(program, s) for s in predicates))
            if not preds:
                raise LearnError("no predicate chosen")
        self.preds = preds
        self.names = [pred_text(program, p) for p in preds]
        self.clauses = []
        group = []
        for g, p in enumerate(preds):
            for c in p.clauses:
                _check_learnable(c, self.names[g])
                self.clauses.append(c)
                group.append(g)
        self.group = np.array(group, dtype=np.int64)
        self.index = {c: j for j, c in enumerate(self.clauses)}
        labels = np.array([float(c.ground_label) for c in self.clauses])
        tot = np.bincount(self.group, weights=labels, minlength=len(preds))
        for g, t in enumerate(tot):
            if t <= 0:
                raise LearnError(f"{self.names[g]}: every label is 0: its clauses are never "
                                 f"chosen")
        self.theta0 = labels / tot[self.group]

    def __len__(self) -> int:
        return len(self.clauses)

    def normalise(self, counts) -> np.ndarray:
        """Counts (>= 0) made into per-predicate probabilities (a predicate whose counts
        are all 0 gets NaN: the caller keeps its old values)."""
        tot = np.bincount(self.group, weights=counts, minlength=len(self.preds))
        with np.errstate(invalid="ignore", divide="ignore"):
            return counts / tot[self.group]

    def label_of(self, j) -> str:
        c = self.clauses[j]
        where = f" ({c.file}:{c.line})" if c.file else ""
        return f"{self.names[self.group[j]]} clause {c.number}{where}"


def _check_learnable(c, name):
    where = f"{c.file}:{c.line}: " if c.file else ""
    if c.ground_label is None:
        text = term_to_text(c.label, quoted=True, spacing=True,
                            var_names=letter_var_names(c.label))
        raise LearnError(f"{where}{name} clause {c.number} has the computed label {text}: "
                         f"only constant labels can be learned (leave {name} out with "
                         f"--predicates)")
    if c.guard is not None:
        raise LearnError(f"{where}{name} clause {c.number} has a guard: the labels of a "
                         f"guarded predicate cannot be learned (leave {name} out with "
                         f"--predicates)")
