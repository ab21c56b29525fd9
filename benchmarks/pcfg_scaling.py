"""How the exact (PCFG) back end's cost grows with the number of nonterminals.

    python benchmarks/pcfg_scaling.py            # every case
    python benchmarks/pcfg_scaling.py xor1000    # one case

A script, not a test: prints a Markdown table. Each case runs in a fresh process so
that its peak memory (ru_maxrss) is its own; the numba kernels load from the cache
(one warm-up process compiles them first). Columns: row sets, nonterminals
(row set, depth) that occur in a derivation, productions, seconds to build the table
(the walk over row sets), to run the inside pass (incl. leaf scores), the MAP tree,
the top 5 trees and the exact predictive of 100 test rows; the table's arrays and the
process's peak resident memory.

Cases (all with the phi prior of paper 004, ln phi = 2, except kyphosis):
  iris        150 rows, 4 features bucketed to 10 values
  caesarian   80 rows, 5 features (../shared/data/caesarian.csv), bucketed to 10
  xor200/1000/5000   hidden XOR, 20 binary features, max depth 5
  kyphosis    GROWTREE alpha 0.95, beta 1, min_leaf 5 (81 rows, 3 features)
"""
from __future__ import annotations

import json
import resource
import subprocess
import sys
import time
from pathlib import Path

import numpy as np

if __name__ == "__main__" and not __package__:  # python benchmarks/pcfg_scaling.py
    sys.path.insert(0, str(Path(__file__).resolve().parents[1]))

from benchmarks.lib.data import hidden_xor  # noqa: E402
from benchmarks.lib.env import SHARED_DATA as DATA  # noqa: E402

CASES = ["iris", "caesarian", "xor200", "xor1000", "xor5000", "kyphosis"]


def make(case):
    """(train, test rows, grammar factory) of a case."""
    from slpy.data.dataset import load_csv
    from slpy.data.bucket import bucket_dataset
    from slpy.pcfg.grammar import phi_grammar, growtree_grammar
    if case.startswith("xor"):
        n = int(case[3:])
        return hidden_xor(n, 1), hidden_xor(100, 2).X, \
            lambda rs: phi_grammar(rs, 2.0, max_depth=5)
    if case == "kyphosis":
        ds = load_csv(DATA / "kyphosis.csv")
        return ds, ds.X, lambda rs: growtree_grammar(rs, 0.95, 1.0, 5)
    ds, _ = bucket_dataset(load_csv(DATA / f"{case}.csv"), 10)
    return ds, ds.X[:100], lambda rs: phi_grammar(rs, 2.0)


def run_case(case) -> dict:
    from slpy.data.rowsets import RowSets
    from slpy.pcfg.inside import TreePosterior
    from slpy.trees.likelihood import DirichletLikelihood
    train, Xtest, factory = make(case)
    out = {"case": case, "rows": train.n_rows}
    t = time.perf_counter()
    g = factory(RowSets(train))
    out["build"] = time.perf_counter() - t
    t = time.perf_counter()
    post = TreePosterior(g, DirichletLikelihood.from_dataset(train))
    out["inside"] = time.perf_counter() - t
    t = time.perf_counter()
    tree = post.tree(post.map())
    out["map"] = time.perf_counter() - t
    t = time.perf_counter()
    top = post.kbest(5)
    out["top5"] = time.perf_counter() - t
    t = time.perf_counter()
    post.predict_proba(Xtest)
    out["predict100"] = (time.perf_counter() - t) * 100 / len(Xtest)
    out.update(row_sets=g.n_rowsets, nonterminals=g.n_nonterminals,
               productions=g.n_productions, table_mb=g.memory_bytes() / 2**20,
               peak_mb=resource.getrusage(resource.RUSAGE_SELF).ru_maxrss / 1024,
               map_nodes=tree.n_nodes, map_prob=float(np.exp(top[0][0])),
               log_ml=post.log_marginal_likelihood)
    return out


def main(cases):
    if len(cases) == 1 and cases[0].startswith("--child="):
        print(json.dumps(run_case(cases[0][len("--child="):])))
        return
    cases = cases or CASES
    subprocess.run([sys.executable, __file__, "--child=caesarian"], check=True,
                   capture_output=True)        # compile / load the kernels once
    rows = []
    for case in cases:
        r = subprocess.run([sys.executable, __file__, f"--child={case}"], check=True,
                           capture_output=True, text=True)
        rows.append(json.loads(r.stdout.strip().splitlines()[-1]))
    print("| case | rows | row sets | nonterminals | productions | build s | inside s "
          "| MAP s | top-5 s | predict 100 rows s | table MB | peak MB | MAP nodes |")
    print("|---|---|---|---|---|---|---|---|---|---|---|---|---|")
    for r in rows:
        print(f"| {r['case']} | {r['rows']} | {r['row_sets']:,} | {r['nonterminals']:,} "
              f"| {r['productions']:,} | {r['build']:.2f} | {r['inside']:.2f} "
              f"| {r['map']:.2f} | {r['top5']:.2f} | {r['predict100']:.2f} "
              f"| {r['table_mb']:.0f} | {r['peak_mb']:.0f} | {r['map_nodes']} |")


if __name__ == "__main__":
    main(sys.argv[1:])
