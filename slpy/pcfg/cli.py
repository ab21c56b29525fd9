"""`slpy exact`: the exact posterior of a tractable prior (the PCFG back end).

    slpy exact PRIOR.slp --data TRAIN.csv [--test TEST.csv] [--bucket K] [--top K]
               [--samples N] [--out DIR]

prints the MAP tree, the top trees with their exact posterior probabilities, the log
marginal likelihood of the data and the test accuracy, and writes the run directory
in the format of `slpy run` (slpy/runs.py): config.json, models.csv, summary.json,
summary.txt, predictions_exact.csv, trees/map.json (and samples_exact.csv).
Bad input is one line on stderr and a non-zero exit, never a traceback.
"""
from __future__ import annotations

import math
import time

import click

from .. import limits as _limits
from ..cliopts import (categorical_option, force_option, load_data, missing_option,
                       target_option)

__all__ = ["exact"]


def _set_params(program, specs):
    from ..lang.syntax_errors import SlpSyntaxError
    pairs = []
    for s in specs:
        name, eq, value = s.partition("=")
        if not eq or not name.strip() or not value.strip():
            raise click.BadParameter(f"{s!r}: expected name=value, e.g. log_phi=1",
                                     param_hint="'-p'")
        try:
            term, _ = program.parse_query(value)
        except SlpSyntaxError as e:
            raise click.BadParameter(f"{s}: {e}", param_hint="'-p'")
        pairs.append((name.strip(), term))
        program.set_param(name.strip(), term)
    return pairs


def _consult(program, prior):
    from ..logic.program import LoadErrors
    from ..terms.term import PrologError
    from ..logic.kinds import Halt
    try:
        program.consult(prior)
    except LoadErrors as e:
        raise click.ClickException(str(e.errors[0]))
    except PrologError as e:
        raise click.ClickException(f"{prior}: {e}")
    except Halt as h:
        raise click.ClickException(f"{getattr(h, 'where', None) or prior}: halt called "
                                   f"while loading")


def _fmt_p(p: float) -> str:
    return f"{p:.6f}" if p >= 1e-6 else f"{p:.3e}"


@click.command("exact")
@click.argument("prior", type=click.Path(exists=True, dir_okay=False))
@click.option("--data", type=click.Path(exists=True, dir_okay=False), default=None,
              metavar="CSV", help="Training data (CSV with a header row).")
@target_option
@missing_option
@categorical_option
@click.option("--test", "test_path", type=click.Path(exists=True, dir_okay=False),
              default=None, metavar="CSV", help="Test data for accuracy figures (columns "
                                                "matched to --data's by name).")
@click.option("--bucket", type=click.IntRange(min=2), default=None, metavar="K",
              help="Bucket features with more than K distinct values to K (paper 004: 10).")
@click.option("--bucket-method", type=click.Choice(["uniform", "quantile"]),
              default="uniform", show_default=True,
              help="Equal-width or equal-frequency buckets.")
@click.option("--max-depth", type=click.IntRange(min=0), default=None, metavar="D",
              help="Deepest node: sets the prior's max_depth parameter when it has one, "
                   "else truncates a GROWTREE grammar.")
@click.option("--top", type=click.IntRange(min=1), default=5, show_default=True,
              help="How many of the most probable trees to report.")
@click.option("--samples", type=click.IntRange(min=0), default=0, show_default=True,
              help="Exact posterior samples to draw (written to samples_exact.csv).")
@click.option("--paths", type=click.IntRange(min=0), default=0, show_default=True,
              help="Also estimate test predictions from N sampled paths a row "
                   "(paper 004, Algorithm 1).")
@click.option("--out", type=click.Path(file_okay=False), default=None, metavar="DIR",
              help="Write the run directory here.")
@force_option
@click.option("--query", default="cart(T)", show_default=True,
              help="The goal whose answer is the model.")
@click.option("-p", "--param", "params", multiple=True, metavar="NAME=VALUE",
              help="Set a prior parameter (param/2). Repeatable.")
@click.option("--dirichlet-alpha", type=click.FloatRange(min=0, min_open=True),
              default=1.0, show_default=True, help="Dirichlet prior of the leaves' classes.")
@click.option("--route", type=click.Choice(["auto", "tree", "tabled"]), default="auto",
              show_default=True, help="Tree grammar (numba), generic tabled compiler, "
                                      "or recognise automatically.")
@click.option("--max-variants", type=click.IntRange(min=1), default=20000, show_default=True,
              help="Most goal variants the generic tabled compiler may table.")
@click.option("--max-row-sets", type=click.IntRange(min=1), default=5_000_000,
              show_default=True, help="Most row sets a tree grammar may hold (about 1 GB "
                                      "of memory a million).")
@click.option("--seed", type=click.IntRange(min=0), default=0, show_default=True,
              help="Seed for samples, path sampling and the recognition check.")
@_limits.options(what="query of the prior")
@_limits.allow_load_option
@click.option("-q", "--quiet", is_flag=True, help="Print nothing but warnings and errors.")
def exact(**kw):
    """Exact posterior of a tractable prior: MAP tree, top trees, evidence."""
    from ..errors import WriteError
    try:
        return _exact(**kw)
    except (click.ClickException, click.exceptions.Exit, click.Abort, KeyboardInterrupt):
        raise
    except WriteError as e:     # a full disk: the run directory is written at the end
        when = "there is space" if e.no_space else "it can be written"
        raise click.ClickException(f"{e}; {kw['out']} is incomplete: run slpy exact "
                                   f"again with --force once {when}") from None
    except Exception as e:
        ctx = click.get_current_context(silent=True)
        if ctx is not None and ctx.find_root().params.get("debug"):
            raise
        raise click.ClickException(f"internal error: {type(e).__name__}: {e}")


def _tree_family_only(prior, limits) -> None:
    """The PCFG back end answers for trees: a prior of another family is a usage error
    (its load errors are reported where the prior is loaded below, but for a limit
    passed, which stops here)."""
    from ..family import declared_family
    from ..logic.program import LoadErrors
    try:
        family = declared_family(prior, limits) or "tree"
    except LoadErrors as e:
        raise click.ClickException(str(e.errors[0])) from None
    if family == "bn":
        raise click.UsageError(f"{prior}: a Bayesian-network prior: slpy exact is for trees; "
                               f"networks of up to 5 variables have exact answers in "
                               f"slpy.bn.exact (docs/bn.md)")
    if family != "tree":
        raise click.UsageError(f"{prior}: a prior of the model family {family}: "
                               f"slpy exact is for trees")


def _exact(prior, data, target, missing, categorical, test_path, bucket, bucket_method,
           max_depth, top,
           samples, paths, out, force, query, params, dirichlet_alpha, route, max_variants,
           max_row_sets, seed, timeout, max_steps, max_memory, allow_load, quiet):
    t_start = time.perf_counter()
    timings = {}
    import numpy as np
    import slpy.pcfg.builtins  # noqa: F401  (registers phi_stop_prob/4, phi_split/4)
    from ..logic.program import Program
    from ..terms.term import PrologError
    from ..logic.kinds import Halt
    from .compile import compile_exact, CompileError
    from .grammar import GrammarTooLarge
    from ..data.bucket import Bucketer
    from ..runs import RunDir, RunDirError
    if test_path is not None and data is None:
        raise click.UsageError("--test needs --data")
    limits = _limits.program_limits(timeout, max_steps, max_memory, allow_load)
    _tree_family_only(prior, limits)
    rd = None
    if out is not None:
        try:
            rd = RunDir(out, create=False)
            rd.check_new(force)    # before the work: refused, nothing is lost
        except RunDirError as e:
            raise click.UsageError(str(e)) from None
    train = test = bucketer = None
    if data is not None:
        train = load_data(data, target, missing, categorical=categorical)
        if train.task != "classification":
            raise click.UsageError("the exact back end scores classes (Dirichlet): the "
                                   "data must be a classification data set")
        if test_path is not None:
            test = load_data(test_path, target, missing, "--test", like=train)
        if bucket is not None:
            bucketer = Bucketer(bucket, bucket_method).fit(train.X, train.categorical)
            train = bucketer.transform_dataset(train)   # test rows route raw
    elif bucket is not None:
        raise click.UsageError("--bucket needs --data")
    program = Program(**limits)
    if train is not None:
        program.attach_data(train)
    pairs = _set_params(program, params)
    _consult(program, prior)
    for name, _ in pairs:
        if name not in program.params:
            raise click.BadParameter(f"{prior} declares no parameter {name}",
                                     param_hint="'-p'")
    from ..logic.params import ParamError
    try:
        program.check_params()
    except ParamError as e:
        raise click.BadParameter(str(e), param_hint="'-p'") from None
    truncate = None
    if max_depth is not None:
        if "max_depth" in program.params:
            program.set_param("max_depth", max_depth)
        else:
            truncate = max_depth
    likelihood = None
    if train is not None:
        from ..trees.likelihood import DirichletLikelihood
        likelihood = DirichletLikelihood.from_dataset(train, alpha=dirichlet_alpha)
    timings["load"] = time.perf_counter() - t_start
    t0 = time.perf_counter()
    try:
        model = compile_exact(program, query, likelihood,
                              family="tree" if route == "tree" else route,
                              max_depth=truncate, seed=seed, max_nonterminals=max_variants,
                              max_row_sets=max_row_sets)
    except (CompileError, GrammarTooLarge) as e:
        raise click.ClickException(str(e))
    except PrologError as e:
        raise click.ClickException(f"{prior}: {e}")
    except Halt:
        raise click.ClickException(f"{prior}: the prior called halt")
    except ValueError as e:
        raise click.ClickException(str(e))
    timings["compile"] = time.perf_counter() - t0
    report = _Report(model, program, train, test, prior, data)
    t0 = time.perf_counter()
    best = model.post.kbest(top)
    timings["top"] = time.perf_counter() - t0
    rng = np.random.default_rng(seed)
    drawn = []
    if samples:
        t0 = time.perf_counter()
        drawn = model.post.sample(rng, samples)
        timings["samples"] = time.perf_counter() - t0
    pred = report.predictions(rng, paths, timings)
    timings["total"] = time.perf_counter() - t_start
    text, summary, rows = report.render(best, drawn, pred)
    if not quiet:
        click.echo(text)
        click.echo("time: " + ", ".join(f"{k} {v:.2f} s" for k, v in timings.items()))
    if rd is not None:
        try:
            rd.start_new(force)
        except RunDirError as e:
            raise click.UsageError(str(e)) from None
        config = {"command": "exact", "prior": str(prior), "query": query,
                  "data": data, "test": test_path, "target": target, "missing": missing,
                  **({"categorical": categorical} if categorical else {}),
                  "bucket": bucket,
                  "bucket_method": bucket_method if bucket else None,
                  "bucket_representatives": bucketer.describe() if bucketer else None,
                  "max_depth": max_depth, "top": top, "samples": samples, "paths": paths,
                  "params": {n: str(v) for n, v in pairs}, "dirichlet_alpha": dirichlet_alpha,
                  "route": route, "max_variants": max_variants,
                  "max_row_sets": max_row_sets, "seed": seed}
        report.write(rd, config, summary, rows, best, drawn, pred)
        rd.write_timing({k: round(v, 4) for k, v in timings.items()})
    return 0


class _Report:
    def __init__(self, model, program, train, test, prior, data):
        self.m, self.p, self.train, self.test = model, program, train, test
        self.prior, self.data = prior, data

    def _text(self, term) -> str:
        """canonical() for model terms (with data), the term's text otherwise."""
        from ..trees.term import canonical
        from ..terms.writer import term_to_text
        return canonical(term) if self.train is not None else term_to_text(term, quoted=True)

    def tree(self, deriv):
        from ..trees.model import Tree
        term = self.m.term(deriv)
        alpha = self.m.post.likelihood.alpha if self.m.post.likelihood is not None else 1.0
        try:
            return Tree.from_term(term, self.p.rowsets, self.train, alpha)
        except Exception:
            raise click.ClickException(f"the answer {self._text(term)} is not a model term "
                                       f"node(F, V, L, R) / leaf(rows(Id))")

    def predictions(self, rng, paths, timings):
        if self.test is None:
            return None
        from ..runs import accuracy_figures
        out = {}
        m = self.m
        t0 = time.perf_counter()
        map_probs = self.tree(m.post.map()).predict_proba(self.test.X)
        out["map"] = accuracy_figures(map_probs, self.test.y)
        if m.route == "tree":
            probs = m.post.predict_proba(self.test.X)
        else:
            probs = self._tabled_predictive()
        timings["predict"] = time.perf_counter() - t0
        out["probs"] = probs
        out["ensemble"] = accuracy_figures(probs, self.test.y)
        if paths and m.route == "tree":
            t0 = time.perf_counter()
            pp = m.post.path_sample(self.test.X, paths, rng)
            timings["paths"] = time.perf_counter() - t0
            out["paths"] = accuracy_figures(pp, self.test.y)
        return out

    def _tabled_predictive(self):
        import numpy as np
        acc = np.zeros((self.test.n_rows, self.train.n_classes))
        for lp, d in self.m.post.enumerate():
            acc += math.exp(lp) * self.tree(d).predict_proba(self.test.X)
        return acc

    def render(self, best, drawn, pred):
        import numpy as np
        m = self.m
        post = m.post
        d = m.describe()
        lines = [f"slpy exact: {self.prior}" + (
            f" on {self.data} ({self.train.n_rows} rows, {self.train.n_features} features)"
            if self.train is not None else "")]
        fam = ", ".join(f"{k}={v}" for k, v in m.params.items())
        how = (f"tree grammar, checked against the program on {m.checked} trees"
               if m.route == "tree" and m.checked else
               "tree grammar" if m.route == "tree" else "generic tabled compiler")
        lines.append(f"prior: {m.family}" + (f" ({fam})" if fam else "") + f"; route: {how}")
        lines.append(f"nonterminals: {d['nonterminals']}, productions: {d['productions']}")
        if self.train is not None:
            lines.append(f"log marginal likelihood: {post.log_marginal_likelihood:.6f}")
        else:
            lines.append(f"log normalising constant of the weights: {post.log_z_prior:.6g}")
        rows = []
        for lp, deriv in best:
            term = m.term(deriv)
            leaves, depth = m.shape(deriv) if self.train is not None else ("", "")
            rows.append({"model": self._text(term), "count": "", "prob": math.exp(lp),
                         "log_lik": m.log_lik(deriv) if self.train is not None else "",
                         "leaves": leaves, "depth": depth})
        summary = {"route": m.route, "family": m.family, "params": m.params,
                   "grammar": d, "top": rows}
        if self.train is not None:
            mp = post.map()
            tree = self.tree(mp)
            summary.update(log_marginal_likelihood=post.log_marginal_likelihood,
                           map={"model": self._text(m.term(mp)), "prob": math.exp(post.log_prob(mp)),
                                "log_lik": m.log_lik(mp), "leaves": tree.n_leaves,
                                "nodes": tree.n_nodes, "depth": tree.depth})
            lines.append(f"MAP tree (posterior probability {_fmt_p(summary['map']['prob'])}, "
                         f"log-likelihood {summary['map']['log_lik']:.4f}, "
                         f"{tree.n_nodes} nodes, {tree.n_leaves} leaves):")
            lines.extend("  " + ln for ln in str(tree).splitlines())
        else:
            summary["log_z_prior"] = post.log_z_prior
        lines.append(f"top {len(rows)} {'trees' if self.train is not None else 'answers'}:")
        for i, r in enumerate(rows, 1):
            lines.append(f"  {i:>3}  {_fmt_p(r['prob']):>12}  {r['model']}")
        if drawn:
            if self.train is not None:
                sizes = [m.shape(dv)[0] for dv in drawn]
                summary["samples"] = {"n": len(drawn), "mean_leaves": float(np.mean(sizes))}
                lines.append(f"{len(drawn)} exact samples: mean {np.mean(sizes):.3f} leaves")
            else:
                summary["samples"] = {"n": len(drawn)}
        if pred is not None:
            for key, label in (("ensemble", "exact posterior predictive"),
                               ("map", "MAP tree"), ("paths", "path sampling")):
                if key in pred:
                    a = pred[key]
                    summary[f"test_{key}"] = a
                    lines.append(f"test accuracy, {label} ({self.test.n_rows} rows): "
                                 f"acc_max {a['acc_max']:.4f}, acc_prob {a['acc_prob']:.4f}")
            summary["acc_max"] = pred["ensemble"]["acc_max"]
            summary["acc_prob"] = pred["ensemble"]["acc_prob"]
        self.text = "\n".join(lines)
        return self.text, summary, rows

    def write(self, run, config, summary, rows, best, drawn, pred):
        from ..runs import FORMAT
        from ..data.dataset import dataset_hash
        from .._version import __version__
        config = dict(config, format=FORMAT, version=__version__,
                      data_hash=dataset_hash(self.train) if self.train is not None else None)
        run.write_manifest("exact", {"prior": config["prior"], "data": config["data"],
                                     "test": config["test"]})
        run.write_config(config)
        run.write_models(rows)
        run.write_summary(summary, self.text)
        if pred is not None:
            run.write_predictions(self.train.classes, pred["probs"], self.test.y,
                                  method="exact")
        if self.train is not None:
            run.write_tree("map", self.tree(self.m.post.map()))
        if drawn:
            run.write_samples_exact([(self._text(self.m.term(dv)), self.m.post.log_prob(dv))
                                     for dv in drawn])
