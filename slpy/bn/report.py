"""`slpy report` sections for Bayesian-network runs: the edges' posterior marginals as
a matrix (a figure per run and a table), how far the runs' marginals are apart, the
links' marginals in either direction beside those of the equivalence classes' CPDAGs
(what Markov equivalence leaves of an arrow), the most probable DAGs drawn (nodes on a
circle, arrows parent -> child), and the posterior-averaged CPTs of the most probable
DAG or the table of a query (`slpy report --query`)."""
from __future__ import annotations

import math

import numpy as np

from ..report import md_code, md_table as _table, md_text
from ..report.figures import _figure, _save
from ..report.generic import top_models
from .dag import DAG, parse_key

__all__ = ["report_sections", "marginal_figure", "dag_figure", "link_rows"]

SHOWN_LINKS = 0.05     # links at least this probable in either direction are listed


def _matrix(run, names):
    m = np.zeros((len(names), len(names)))
    for e, p in (run.summary.get("edge_marginals") or {}).items():
        a, _, b = e.partition("->")
        m[names.index(a), names.index(b)] = p
    return m


def report_sections(runs, out, top: int, query=None) -> list:
    names = next((r.summary.get("variables") for r in runs if r.summary.get("variables")),
                 None)
    if names is None:
        return []
    params = _parameters_section(runs, query)     # first: a bad query draws no figure
    mats = [_matrix(r, names) for r in runs]
    lines = ["## Edge posterior marginals", "",
             "P(parent -> child) by row -> column: the fraction of kept iterations whose "
             "DAG has the edge.", ""]
    for k, (r, m) in enumerate(zip(runs, mats), 1):
        f = f"edge_marginals_{k}.png"
        marginal_figure(m, names, out / f, f"Edge posterior marginals, {r.label}")
        lines += [f"![edge marginals, {r.label}]({f})", ""]
    mean = np.mean(mats, axis=0)
    lines += _table(["parent \\ child"] + [md_text(n) for n in names],
                    [[md_text(a)] + ["." if i == j else f"{mean[i, j]:.3f}"
                            for j in range(len(names))] for i, a in enumerate(names)])
    lines.append("")
    if len(mats) > 1:
        diffs = [float(np.abs(a - b).max()) for k, a in enumerate(mats) for b in mats[k + 1:]]
        lines += [f"The table is the mean over the {len(runs)} runs; the largest difference "
                  f"between two runs' marginals of one edge is {max(diffs):.4f}.", ""]
    lines += _links_section(mean, _cpdag_mean(runs, names), names, len(runs),
                            _mcse_matrix(runs, names))
    lines += ["## Most probable DAGs", ""]
    for k, m in enumerate(top_models(runs, min(top, 3)), 1):
        dag = DAG(names, parse_key(m["model"], names))
        f = f"dag_{k}.png"
        dag_figure(dag, out / f, f"M{k}: posterior {', '.join(f'{p:.3f}' for p in m['probs'])}")
        (out / f"dag_{k}.dot").write_text(dag.to_dot())
        lines += [f"### M{k}", "", f"![DAG M{k}]({f})", "", f"[DOT](dag_{k}.dot)", "",
                  "```", str(dag), "```", ""]
    return lines + params


def link_rows(m, names, least: float = SHOWN_LINKS) -> list:
    """[(a, b, P(a and b linked either way), P(a -> b), P(b -> a))] for the pairs
    linked with probability at least `least`, most probable first. A DAG holds at most
    one of a -> b and b -> a, so the link's probability is their sum."""
    rows = [(names[i], names[j], m[i, j] + m[j, i], m[i, j], m[j, i])
            for i in range(len(names)) for j in range(i + 1, len(names))]
    return sorted((r for r in rows if r[2] >= least), key=lambda r: (-r[2], r[0], r[1]))


def _mcse_matrix(runs, names):
    """The MCSE of each edge's marginal in the table (the runs' mean: the root of the
    sum of their squares over the number of runs), from summary.json's
    ``edge_marginals_mcse``; None when a run has none (one chain)."""
    ses = [r.summary.get("edge_marginals_mcse") for r in runs]
    if not all(isinstance(se, dict) for se in ses):
        return None
    m = np.zeros((len(names), len(names)))
    for se in ses:
        for e, x in se.items():
            a, _, b = e.partition("->")
            if a in names and b in names and isinstance(x, (int, float)):
                m[names.index(a), names.index(b)] += float(x) ** 2
    return np.sqrt(m) / len(runs)


def _cpdag_mean(runs, names) -> dict:
    """The runs' mean of slpy.bn.cpdag's marginals over each run's DAGs (models.csv)."""
    from .cpdag import cpdag_marginals
    out = []
    for r in runs:
        probs = r.model_probs()
        keys = [k for k, p in probs.items() if p > 0]
        if keys:
            out.append(cpdag_marginals([parse_key(k, names) for k in keys],
                                       [probs[k] for k in keys], len(names)))
    if not out:
        return {}
    return {k: np.mean([o[k] for o in out], axis=0) for k in out[0]}


def _links_section(mean, classes, names, n_runs, mcse=None) -> list[str]:
    rows = link_rows(mean, names)
    lines = ["### Links in either direction", "",
             "Markov-equivalent DAGs (the same links and the same v-structures a -> c <- b "
             "with a and b not linked) say the same conditional independences, so the "
             "data cannot tell them apart: under BDeu, which is score equivalent, they "
             "have the same marginal likelihood (K2 is not score equivalent). An arrow "
             "outside every v-structure can then point either way, and its posterior mass "
             "splits between a -> b and b -> a as the prior and the chains' mixing have "
             "it: two middling arrows can be one sure link. Read a link's probability in "
             "either direction (the sum: a DAG has at most one of the two arrows) before "
             "the arrow's.", "",
             "The last three columns say the same of the equivalence classes: each DAG's "
             "class is its CPDAG (the arrows every DAG of the class shares are *compelled*, "
             "Chickering 1995; the others are undirected), and an arrow's probability of "
             "being compelled is what the data can say of its direction. Markov-equivalent "
             "DAGs split an edge's mass between its two directions; the CPDAG columns do "
             "not split it.", ""]
    if not rows:
        return lines + [f"No pair is linked with probability {SHOWN_LINKS} or more.", ""]
    ix = {n: i for i, n in enumerate(names)}

    def cls(key, a, b):
        return f"{classes[key][ix[a], ix[b]]:.3f}" if classes else "-"

    def arrow(p, a, b):
        return f"{p:.3f}" if mcse is None else f"{p:.3f} ({mcse[ix[a], ix[b]]:.3f})"
    lines += _table(["link a - b", "either direction", "a -> b", "b -> a",
                     "compelled a -> b", "compelled b -> a", "undirected"],
                    [[f"{md_text(a)} - {md_text(b)}", f"{p:.3f}", arrow(ab, a, b),
                      arrow(ba, b, a), cls("compelled", a, b), cls("compelled", b, a),
                      cls("reversible", a, b)]
                     for a, b, p, ab, ba in rows])
    return lines + ["", f"The pairs linked with probability {SHOWN_LINKS} or more"
                        + (f", mean over the {n_runs} runs" if n_runs > 1 else "")
                        + ("" if mcse is None else "; in brackets the Monte Carlo standard "
                           "error of an arrow's marginal") + ".", ""]


def _parameters_section(runs, query) -> list[str]:
    """The posterior-averaged CPTs of the most probable DAG, or the query's table."""
    from ..report import ReportError
    from .query import QueryError
    from .posterior import posterior_of_runs
    title = "## Query" if query is not None else "## Posterior-averaged CPTs"
    if not any(r.models for r in runs):
        return []                       # no DAG to ask
    try:
        post = posterior_of_runs([r.path for r in runs], runs)
        if query is not None:
            ans = post.query(query)
    except QueryError as e:
        raise ReportError(f"--query: {e}") from None
    except ReportError as e:
        return [title, "", f"Not computed: {md_text(e)}.", ""]
    pooled = f" (the {len(runs)} runs' chains pooled)" if len(runs) > 1 else ""
    if query is not None:
        lines = [title, "", f"{md_code(query)}, averaged over the DAGs the chains kept "
                 f"(each DAG's posterior mean CPTs){pooled}, with the Monte Carlo "
                 f"standard error of the chains' draws:", ""]
        head = [md_text(v) for v in ans.variables] + ["P", "MCSE"]
        return lines + _table(head, [[md_text(v) for v in vals] + [
            f"{p:.4f}", "-" if se is None else f"{se:.4f}"] for vals, p, se in ans.rows()]) \
            + [""]
    net, cpts = post.network(1), post.averaged_cpts(1)
    lines = [title, "",
             f"Each node's conditional probability table in M1, the most probable DAG, "
             f"averaged over the posterior{pooled}: the mean over the kept DAGs of what "
             f"each (with its posterior mean CPTs) says of the node given M1's parents of "
             f"it. `slpy query` asks any other question, `slpy export` writes a DAG with "
             f"its own CPTs.", ""]
    for i, (ps, cpt) in enumerate(zip(net.parents, cpts)):
        name, values = net.names[i], net.levels[i]
        head = [md_text(net.names[p]) for p in ps] + [f"P({md_text(name)}={md_text(v)})"
                                                      for v in values]
        rows = [[md_text(net.levels[p][k]) for p, k in zip(ps, idx)]
                + [f"{x:.4f}" for x in cpt[idx]] for idx in np.ndindex(*cpt.shape[:-1])]
        lines += [f"### {md_text(name)}" + (f" given {', '.join(md_text(net.names[p]) for p in ps)}"
                                             if ps else ""), ""] + _table(head, rows) + [""]
    return lines


def marginal_figure(m, names, path, title):
    n = len(names)
    fig = _figure(1.5 + 0.55 * n, 1.2 + 0.5 * n)
    ax = fig.subplots()
    im = ax.imshow(m, vmin=0, vmax=1, cmap="Blues")
    ax.set_xticks(range(n), names, rotation=45, ha="right")
    ax.set_yticks(range(n), names)
    ax.set_xlabel("child")
    ax.set_ylabel("parent")
    for i in range(n):
        for j in range(n):
            if i != j and m[i, j] >= 0.005:
                ax.text(j, i, f"{m[i, j]:.2f}", ha="center", va="center", fontsize=7,
                        color="white" if m[i, j] > 0.6 else "black")
    fig.colorbar(im, ax=ax, fraction=0.046)
    ax.set_title(title, fontsize=10)
    fig.tight_layout()
    return _save(fig, path)


def dag_figure(dag, path, title):
    """The DAG with its nodes on a circle (in the data's order) and arrows parent ->
    child."""
    n = len(dag.names)
    angles = [math.pi / 2 - 2 * math.pi * i / n for i in range(n)]
    pos = [(math.cos(a), math.sin(a)) for a in angles]
    fig = _figure(5, 5)
    ax = fig.subplots()
    for i, ps in enumerate(dag.parents):
        for j in ps:
            ax.annotate("", xy=pos[i], xytext=pos[j],
                        arrowprops=dict(arrowstyle="-|>", color="#444", lw=1.2,
                                        shrinkA=16, shrinkB=16, mutation_scale=14))
    for (x, y), name in zip(pos, dag.names):
        ax.text(x, y, name, ha="center", va="center", fontsize=9,
                bbox=dict(boxstyle="round,pad=0.35", fc="#dbe9f6", ec="#1f77b4"))
    ax.set_xlim(-1.35, 1.35)
    ax.set_ylim(-1.35, 1.35)
    ax.set_aspect("equal")
    ax.axis("off")
    ax.set_title(title, fontsize=10)
    return _save(fig, path)
