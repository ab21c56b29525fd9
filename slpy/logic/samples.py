"""Independent samples of a goal on a program's engine, at the top level or nested in a
running query: `slpy sample` draws them one by one, the top level's sample/3 counts
them. Each sample runs on a copy of the goal and restores the engine's sampling state
and bindings when it is done.
"""
from __future__ import annotations

import functools

from ..terms.term import compare
from ..terms.text import letter_var_names
from ..terms.unify import undo_to
from ..terms.walk import copy_term, resolve
from ..terms.writer import term_to_text
from .kinds import PURE, SAMPLE, SampleFailed

__all__ = ["sample_once", "sample_counts"]


def sample_once(eng, goal, rng, pure):
    """One sample of a copy of goal: (instance, log prob, proof log, values) or None
    when the sample fails; values maps each variable of goal to its value in the
    sample. goal itself is left unbound."""
    mark = len(eng.trail)
    mapping: dict = {}
    copy = copy_term(goal, mapping)
    gen = eng.solutions(copy, PURE if pure else SAMPLE, rng)
    try:
        for s in gen:
            values = {v: resolve(nv) for v, nv in mapping.items()}
            return resolve(copy), s.log_prob, s.plog, values
        return None
    except SampleFailed:
        return None
    finally:
        gen.close()
        del gen
        if len(eng.trail) > mark:
            undo_to(eng.trail, mark)


def sample_counts(eng, goal, n: int, rng, pure) -> list:
    """n independent samples of goal as [instance, count] pairs, one per variant of
    the instances, most frequent first (ties in standard order); failed samples are
    not counted."""
    counts: dict[str, list] = {}
    for _ in range(n):
        r = sample_once(eng, goal, rng, pure)
        if r is None:
            continue
        inst = r[0]
        key = term_to_text(inst, quoted=True, ignore_ops=True, numbervars=False,
                           var_names=letter_var_names(inst))
        c = counts.get(key)
        if c is None:
            counts[key] = [inst, 1]
        else:
            c[1] += 1
    return sorted(counts.values(), key=functools.cmp_to_key(
        lambda a, b: (b[1] - a[1]) or compare(a[0], b[0])))
