"""A network (slpy.bn.network.Network) to and from BIF, the Bayesian Interchange Format
of Cozman's JavaBayes and the bnlearn repository, and to a pgmpy model.

What is written::

    network asia {
    }
    variable lung {
      type discrete [ 2 ] { no, yes };
    }
    probability ( lung | smoke ) {
      (no) 0.99, 0.01;
      (yes) 0.9, 0.1;
    }

one ``variable`` block per node in the data's order, then one ``probability`` block
each: ``table`` for a node without parents, else a row per parent configuration (the
first parent most significant, as the CPTs' C order). Probabilities are written with
repr, so they read back exactly. Names and values must be BIF words (letters, digits,
``_ - . +``): anything else is refused rather than changed.
"""
from __future__ import annotations

import itertools
import re

import numpy as np

from .network import Network

__all__ = ["to_bif", "read_bif", "to_pgmpy", "BIFError"]

_WORD = re.compile(r"^[A-Za-z0-9_.+-]+$")


class BIFError(ValueError):
    """A network that BIF cannot hold, or text that is not BIF as read here."""


def _word(text: str, what: str) -> str:
    if not _WORD.match(text):
        raise BIFError(f"{what} {text!r} is not a BIF word (letters, digits, _ - . +): "
                       f"rename it in the data")
    return text


def to_bif(net: Network, name: str = "slpy") -> str:
    """The BIF text of `net`."""
    lines = [f"network {_word(name, 'the network name')} {{", "}"]
    for var, lv in zip(net.names, net.levels):
        vals = ", ".join(_word(v, f"the value of {var!r}") for v in lv)
        lines += [f"variable {_word(var, 'the variable')} {{",
                  f"  type discrete [ {len(lv)} ] {{ {vals} }};", "}"]
    for i, (ps, cpt) in enumerate(zip(net.parents, net.cpts)):
        cpt = np.asarray(cpt, dtype=float)
        head = net.names[i] + (" | " + ", ".join(net.names[p] for p in ps) if ps else "")
        lines.append(f"probability ( {head} ) {{")
        if not ps:
            lines.append("  table " + ", ".join(repr(float(x)) for x in cpt) + ";")
        for config in itertools.product(*(range(len(net.levels[p])) for p in ps)) \
                if ps else ():
            vals = ", ".join(net.levels[p][k] for p, k in zip(ps, config))
            lines.append(f"  ({vals}) " + ", ".join(repr(float(x)) for x in cpt[config])
                         + ";")
        lines.append("}")
    return "\n".join(lines) + "\n"


_BLOCK = re.compile(r"(network|variable|probability)\s*(\([^)]*\)|[^\s{]+)?\s*\{(.*?)\}\s*"
                    r"(?=network|variable|probability|$)", re.S)


def read_bif(text: str) -> Network:
    """A network from BIF text with discrete variables and ``table`` or per-
    configuration probability rows (no ``default`` rows, no properties used)."""
    text = re.sub(r"//[^\n]*|/\*.*?\*/", "", text, flags=re.S).strip()
    names, levels, probs = [], [], {}
    pos = 0
    for m in _BLOCK.finditer(text):
        if text[pos:m.start()].strip():
            raise BIFError(f"cannot read {text[pos:m.start()].strip()[:40]!r}")
        pos = m.end()
        kind, head, body = m.group(1), (m.group(2) or "").strip(), m.group(3)
        if kind == "variable":
            t = re.search(r"type\s+discrete\s*\[\s*(\d+)\s*\]\s*\{([^}]*)\}", body)
            if t is None:
                raise BIFError(f"variable {head}: not 'type discrete [ r ] {{ values }}'")
            vals = [v.strip() for v in t.group(2).split(",")]
            if len(vals) != int(t.group(1)):
                raise BIFError(f"variable {head}: {t.group(1)} values declared, "
                               f"{len(vals)} listed")
            names.append(head)
            levels.append(vals)
        elif kind == "probability":
            child, _, pa = head.strip("() ").partition("|")
            probs[child.strip()] = ([p.strip() for p in pa.split(",") if p.strip()], body)
    if text[pos:].strip():
        raise BIFError(f"cannot read {text[pos:].strip()[:40]!r}")
    index = {n: i for i, n in enumerate(names)}
    parents, cpts = [None] * len(names), [None] * len(names)
    for child, (pa, body) in probs.items():
        if child not in index or any(p not in index for p in pa):
            raise BIFError(f"probability ( {child} | ...) names an undeclared variable")
        i = index[child]
        order = sorted(range(len(pa)), key=lambda k: index[pa[k]])
        shape = tuple(len(levels[index[p]]) for p in pa) + (len(levels[i]),)
        cpt = np.full(shape, np.nan)
        for row in filter(None, (r.strip() for r in body.split(";"))):
            if row.startswith("table"):
                # the child's values slowest, then the parents' in order
                flat = np.array(_numbers(row[5:]), dtype=float)
                if flat.size != np.prod(shape):
                    raise BIFError(f"probability ( {child} | ...): {flat.size} numbers "
                                   f"for {int(np.prod(shape))} cells")
                cpt = np.moveaxis(flat.reshape(shape[-1:] + shape[:-1]), 0, -1)
                continue
            vals, _, nums = row.partition(")")
            config = tuple(levels[index[p]].index(v.strip())
                           for p, v in zip(pa, vals.strip("( ").split(",")))
            cpt[config] = _numbers(nums)
        if np.isnan(cpt).any():
            raise BIFError(f"probability ( {child} | ...): rows are missing")
        # slpy keeps parents sorted by index, the CPT's axes with them
        cpts[i] = np.transpose(cpt, order + [len(pa)])
        parents[i] = tuple(index[pa[k]] for k in order)
    if any(p is None for p in parents):
        raise BIFError(f"no probability block for {names[parents.index(None)]}")
    return Network(names, levels, tuple(parents), cpts)


def _numbers(text: str) -> list:
    try:
        return [float(x) for x in text.replace(",", " ").split()]
    except ValueError:
        raise BIFError(f"not numbers: {text.strip()[:40]!r}") from None


def to_pgmpy(net: Network):
    """The network as a pgmpy DiscreteBayesianNetwork with TabularCPDs (pgmpy is
    imported here: it is not a dependency of slpy)."""
    try:
        from pgmpy.factors.discrete import TabularCPD
        try:
            from pgmpy.models import DiscreteBayesianNetwork as Model
        except ImportError:            # pgmpy before 1.0
            from pgmpy.models import BayesianNetwork as Model
    except ImportError:
        raise ImportError("to_pgmpy needs pgmpy, which is not installed "
                          "(pip install pgmpy)") from None
    model = Model()
    model.add_nodes_from(net.names)
    model.add_edges_from((net.names[p], net.names[i]) for i, ps in enumerate(net.parents)
                         for p in ps)
    ar = net.arities
    for i, (ps, cpt) in enumerate(zip(net.parents, net.cpts)):
        q = int(np.prod([ar[p] for p in ps])) if ps else 1
        # pgmpy: values[k, j] = P(child = k | configuration j), the first evidence
        # variable most significant, as our rows
        values = np.asarray(cpt, dtype=float).reshape(q, ar[i]).T
        model.add_cpds(TabularCPD(
            net.names[i], ar[i], values, evidence=[net.names[p] for p in ps] or None,
            evidence_card=[ar[p] for p in ps] or None,
            state_names={net.names[v]: list(net.levels[v]) for v in ps + (i,)}))
    model.check_model()
    return model
