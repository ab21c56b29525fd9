"""Whether a run's chains have converged: the verdict line of every summary, and the
rule --until-converged and --require-converged apply.

A run has converged when, for every traced quantity (the log-likelihood and the
family's integers: leaves and depth for trees, edges for networks, clusters for
partitions), the rank-normalised split R-hat is at most `rhat` and the bulk and the
tail ESS are at least `ess` (Vehtari et al. 2021's advice: R-hat <= 1.01, ESS >= 400
over at least 4 chains). One chain cannot be checked.
"""
from __future__ import annotations

from dataclasses import dataclass

__all__ = ["Criterion", "DEFAULT", "verdict", "criterion_of"]


@dataclass(frozen=True)
class Criterion:
    rhat: float = 1.01
    ess: float = 400.0

    def describe(self) -> str:
        return f"R-hat <= {self.rhat:g}, bulk and tail ESS >= {self.ess:g}"


DEFAULT = Criterion()


def criterion_of(cfg) -> Criterion:
    """The criterion a run's settings ask for (--target-rhat, --target-ess)."""
    return Criterion(float(cfg.get("target_rhat") or DEFAULT.rhat),
                     float(cfg.get("target_ess") or DEFAULT.ess))


def verdict(conv: dict | None, labels, criterion: Criterion = DEFAULT,
            chains: int = 1) -> tuple[bool, str]:
    """(converged, the verdict line) of a summary's "convergence" entry (None: fewer
    than two chains or four draws). `labels`: (key, label) of the traced quantities."""
    if conv is None:
        why = ("one chain cannot be checked (run --chains 4)" if chains < 2
               else "too few draws to check")
        return False, f"convergence: not checked: {why}"
    bad = []
    for key, label in labels:
        d = conv[key]
        r = d["rhat"]
        # None: nan (nothing to compare) or, when warned of, inf
        if (r is None and key in conv["rhat_warning"]) or (r is not None
                                                           and r > criterion.rhat):
            bad.append(f"R-hat of {label} {'inf' if r is None else format(r, '.3f')}")
        for kind in ("ess_bulk", "ess_tail"):
            e = d.get(kind)
            if e is not None and e < criterion.ess:
                bad.append(f"{kind.split('_')[1]} ESS of {label} {e:.0f}")
    if not bad:
        return True, f"convergence: converged ({criterion.describe()})"
    shown = ", ".join(bad[:4]) + (f" and {len(bad) - 4} more" if len(bad) > 4 else "")
    return False, (f"convergence: NOT converged ({shown}; want {criterion.describe()}): "
                   f"run longer or with --until-converged")
