"""pgmpy's hill climbing with BDeu, as a reference for slpy's Bayesian-network runs.

Not a dependency of slpy: the benchmarks that use it skip without it. Installed with

    pip install --no-deps pgmpy networkx opt_einsum scikit-base statsmodels patsy

(--no-deps because pgmpy 1.1 requires huggingface_hub, statsmodels' formulaic and
their network stack for its model hub and formula API, which structure learning never
imports; PyTorch is only in its `torch` extra.) Written against pgmpy 1.1.2, whose
non-deprecated names are ``pgmpy.causal_discovery.HillClimbSearch`` (an estimator:
``fit(df)`` -> ``causal_graph_``) and ``pgmpy.structure_score.BDeu``.

BDeu with equivalent sample size a, for node i with r_i states and q_i parent
configurations, counts N_ijk (N_ij = sum_k N_ijk)::

    log p(D_i | pa_i) = sum_j [lgamma(a/q_i) - lgamma(N_ij + a/q_i)
                               + sum_k (lgamma(N_ijk + a/(r_i q_i)) - lgamma(a/(r_i q_i)))]

and the score of a DAG is the sum over its nodes (pgmpy adds a structure prior of 0).

    python benchmarks/_pgmpy_ref.py DATA.csv [ESS [MAX_INDEGREE]]
"""
from __future__ import annotations

import sys
import warnings

import pandas as pd


def load_counts(csv_path, count_col: str = "count"):
    """The aggregated CSV as one row per sample (a row stands for `count_col` samples;
    a CSV without that column is one sample a row), every column categorical, and the
    states of each column: every value in the file, so a state whose rows all have
    count 0 still counts in r_i and q_i (as it does in slpy's score)."""
    raw = pd.read_csv(csv_path, dtype=str, keep_default_na=False)
    if count_col in raw.columns:
        counts = pd.to_numeric(raw.pop(count_col)).astype(int)
        data = raw.loc[raw.index.repeat(counts)].reset_index(drop=True)
    else:
        data = raw
    states = {c: sorted(raw[c].unique()) for c in raw.columns}
    for c in data.columns:
        # categorical, not numbers: pgmpy reads integer columns as continuous
        data[c] = pd.Categorical(data[c], categories=states[c])
    return data, states


def _bdeu(data, states, ess):
    from pgmpy.structure_score import BDeu
    return BDeu(data, equivalent_sample_size=ess, state_names=states)


def hill_climb(csv_path, count_col: str = "count", ess: float = 1.0,
               max_indegree=None):
    """pgmpy's hill climbing (add, delete, reverse an edge; tabu list of 100; from the
    empty graph) on BDeu(ess): (learnt edges as sorted (parent, child) name pairs,
    pgmpy's BDeu score of that DAG)."""
    with warnings.catch_warnings():
        warnings.simplefilter("ignore", FutureWarning)  # pgmpy's deprecation notes
        from pgmpy.causal_discovery import HillClimbSearch
    data, states = load_counts(csv_path, count_col)
    # pgmpy scans the candidate edges of a set of name pairs and keeps the first best;
    # BDeu ties (X -> Y scores as Y -> X), so with string names the learnt DAG varies
    # with PYTHONHASHSEED. Integers hash to themselves: columns become 0..n-1 for the
    # search, which makes the answer a function of the data and its column order.
    names = list(data.columns)
    data.columns = range(len(names))
    states = {i: states[c] for i, c in enumerate(names)}
    score = _bdeu(data, states, ess)
    search = HillClimbSearch(scoring_method=score, max_indegree=max_indegree,
                             return_type="dag", show_progress=False)
    dag = search.fit(data).causal_graph_
    edges = sorted((names[u], names[v]) for u, v in dag.edges())
    return edges, float(score.score(dag))


def bdeu_score(csv_path, edges, count_col: str = "count", ess: float = 1.0) -> float:
    """pgmpy's BDeu(ess) score of the DAG with these (parent, child) edges: a check on
    slpy's own scorer."""
    from pgmpy.base import DAG
    data, states = load_counts(csv_path, count_col)
    dag = DAG()
    dag.add_nodes_from(data.columns)
    dag.add_edges_from(edges)
    return float(_bdeu(data, states, ess).score(dag))


if __name__ == "__main__":
    path = sys.argv[1]
    ess = float(sys.argv[2]) if len(sys.argv) > 2 else 1.0
    indeg = int(sys.argv[3]) if len(sys.argv) > 3 else None
    edges, total = hill_climb(path, ess=ess, max_indegree=indeg)
    for parent, child in edges:
        print(f"{parent} -> {child}")
    print(f"BDeu({ess:g}) = {total:.6f}")
