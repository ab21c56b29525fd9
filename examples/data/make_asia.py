"""Write asia.csv: 5,000 cases forward-sampled from the Asia ("chest clinic") network.

The network and its conditional probabilities are those of Lauritzen & Spiegelhalter
(1988), "Local computations with probabilities on graphical structures and their
application to expert systems", JRSS B 50:157-224. The cases are aggregated: one row
per distinct case, sorted, with its number of occurrences in a final ``count``
column. The output is a pure function of SEED, so running the script again gives
the same bytes (see examples/data/README.md for the md5).

    python examples/data/make_asia.py [OUT.csv]
"""
from __future__ import annotations

import sys
from pathlib import Path

import numpy as np

from slpy.bn.data import discrete_from_arrays
from slpy.bn.sample import forward_sample

SEED = 1988
N = 5000
NAMES = ["asia", "tub", "smoke", "lung", "bronc", "either", "xray", "dysp"]
LEVELS = ["no", "yes"]   # code 0 = no, 1 = yes: the sorted order, as load_discrete_csv reads it
ASIA, TUB, SMOKE, LUNG, BRONC, EITHER, XRAY, DYSP = range(8)


def yes(*p_yes):
    """A CPT [q, 2] from P(yes) per parent configuration (no = 0 first, mixed radix)."""
    return np.array([[1.0 - p, p] for p in p_yes])


PARENTS = [(), (ASIA,), (), (SMOKE,), (SMOKE,), (TUB, LUNG), (EITHER,), (BRONC, EITHER)]
CPTS = [
    yes(0.01),                       # asia: visit to Asia
    yes(0.01, 0.05),                 # tub | asia = no, yes
    yes(0.5),                        # smoke
    yes(0.01, 0.1),                  # lung | smoke = no, yes
    yes(0.3, 0.6),                   # bronc | smoke = no, yes
    yes(0.0, 1.0, 1.0, 1.0),         # either | (tub, lung) = nn, ny, yn, yy: tub OR lung
    yes(0.05, 0.98),                 # xray | either = no, yes
    yes(0.1, 0.7, 0.8, 0.9),         # dysp | (bronc, either) = nn, ny, yn, yy
]


def asia_csv_text(seed: int = SEED, n: int = N) -> str:
    """The CSV text: header, then one sorted row per distinct case with its count."""
    x = forward_sample(np.random.default_rng(seed), PARENTS, CPTS, [2] * 8, n)
    data = discrete_from_arrays(x, NAMES, levels=[LEVELS] * 8, source="asia")
    lines = [",".join(NAMES + ["count"])]
    for row, c in zip(data.codes.tolist(), data.counts.tolist()):
        lines.append(",".join([LEVELS[v] for v in row] + [str(c)]))
    return "\n".join(lines) + "\n"


def main(argv: list[str]) -> None:
    out = Path(argv[0]) if argv else Path(__file__).with_name("asia.csv")
    out.write_bytes(asia_csv_text().encode("ascii"))   # bytes: no platform newlines
    print(f"wrote {out}")


if __name__ == "__main__":
    main(sys.argv[1:])
