"""The `slpy` command line: repl, sample, check.

Every command exits non-zero with one line per problem on bad input (``Error: ...`` for
usage errors, ``file:line: ...`` for problems in a program) and never shows a Python
traceback unless ``slpy --debug`` is given. Exit statuses: 0 success, 1 an error in the
program or while running it, 2 a usage error, 130 interrupted.
"""
from __future__ import annotations

import functools
import json
import math
import re
import sys
import traceback

import click

from ._version import __version__
from . import limits as _limits
from .cliopts import categorical_option, load_data, missing_option, target_option
from .lang.syntax_errors import SlpSyntaxError, format_error, format_load_error
from .logic.kinds import Halt
from .logic.program import LoadErrors, Program
from .logic.proof import build_tree
from .logic.proof_text import proof_json
from .logic.samples import sample_once
from .terms.term import PrologError
from .terms.text import atom_text, letter_var_names, var_letter_name
from .terms.writer import term_to_text

# -- the group: one-line errors, --debug ---------------------------------------------------


# options whose name changed, so that each means one thing in every command
_RENAMED = {"-q": "-q is --quiet in every command; the goal to sample is --query GOAL"}


class _Group(click.Group):
    """click.Group whose errors are one line (``Error: ...``) and whose commands keep
    their order in --help."""

    def list_commands(self, ctx):
        return list(self.commands)

    def main(self, args=None, prog_name=None, complete_var=None, standalone_mode=True,
             **extra):
        try:
            rv = super().main(args=args, prog_name=prog_name or "slpy",
                              complete_var=complete_var, standalone_mode=False, **extra)
            code = rv if isinstance(rv, int) else 0
        except click.exceptions.NoArgsIsHelpError as e:
            click.echo(e.format_message())
            code = 0
        except click.ClickException as e:
            msg = " ".join(e.format_message().split())
            if isinstance(e, click.NoSuchOption) and e.option_name in _RENAMED:
                msg += f" ({_RENAMED[e.option_name]})"
            click.echo(f"Error: {msg}", err=True)
            code = e.exit_code
        except (click.Abort, KeyboardInterrupt):
            click.echo("Interrupted", err=True)
            code = 130
        if standalone_mode:
            sys.exit(code)
        return code


def _guarded(fn):
    """Run a command body; an unexpected exception is one line unless --debug."""
    @functools.wraps(fn)
    def wrapper(*args, **kwargs):
        ctx = click.get_current_context()
        debug = bool(ctx.find_root().params.get("debug"))
        try:
            return fn(*args, **kwargs)
        except (click.ClickException, click.exceptions.Exit, click.Abort):
            raise
        except KeyboardInterrupt:
            click.echo("Interrupted", err=True)
            return 130
        except Exception as e:
            if debug:
                traceback.print_exc()
            click.echo(f"Error: internal error: {type(e).__name__}: {e}", err=True)
            return 1
    return wrapper


@click.group(name="slpy", cls=_Group, context_settings={"help_option_names": ["-h", "--help"]})
@click.version_option(__version__, "--version", "-V", prog_name="slpy",
                      message="%(prog)s %(version)s")
@click.option("--debug", is_flag=True, help="Show Python tracebacks of internal errors.")
def main(debug):
    """slpy: stochastic logic programs as priors over models."""


# -- shared options ---------------------------------------------------------------------------

_PARAM_NAME = re.compile(r"^[a-z][A-Za-z0-9_]*$")


def _param_pairs(specs):
    """-p name=value strings -> (name, value text) pairs (usage error when malformed)."""
    out = []
    for s in specs:
        name, eq, value = s.partition("=")
        name = name.strip()
        if not eq or not _PARAM_NAME.match(name) or not value.strip():
            raise click.BadParameter(f"{s!r}: expected name=value, e.g. depth=3",
                                     param_hint="'-p'")
        out.append((name, value))
    return out


def _param_terms(program, pairs):
    """(name, value text) -> (name, value term), the value read as a Prolog term."""
    out = []
    for name, text in pairs:
        try:
            term, _ = program.parse_query(text)
        except SlpSyntaxError as e:
            raise click.BadParameter(f"{name}={text}: {e.message}", param_hint="'-p'")
        out.append((name, term))
    return out


def _check_params(program):
    """-p values outside the domains the prior declares: a usage error naming -p."""
    from .logic.params import ParamError
    try:
        program.check_params()
    except ParamError as e:
        raise click.BadParameter(str(e), param_hint="'-p'") from None


def _params_option(f):
    return click.option("-p", "--param", "params", multiple=True, metavar="NAME=VALUE",
                        help="Set a prior parameter (param/2); VALUE is a Prolog term. "
                             "Repeatable.")(f)


def _seed_option(f):
    return click.option("--seed", type=click.IntRange(min=0), default=None,
                        help="Seed of the random generator (default: fresh entropy).")(f)


def _data_options(f):
    f = categorical_option(f)
    f = missing_option(f)
    f = target_option(f)
    return click.option("--data", type=click.Path(exists=True, dir_okay=False),
                        default=None, metavar="CSV",
                        help="A data set (CSV with a header row) for the prior's data "
                             "builtins (data_rows/1, splits, ...).")(f)


def _attach_data(program, data, target, missing="drop", priors=(), categorical=None,
                 limits=None):
    """Load the CSV file and give it to the program (a usage error when it does not
    load; a warning that counts the rows left out for a missing value). A prior that
    declares `:- model_family(bn).` gets the data as network variables (`limits`: the
    Program() limits its family is read under)."""
    if data is None:
        if target is not None:
            raise click.UsageError("--target needs --data")
        return
    from .family import declared_family
    try:
        family = next((f for f in (declared_family(p, limits) for p in priors) if f), None)
    except LoadErrors as e:           # the prior did not load in its limits
        raise click.ClickException(format_load_error(e.errors[0])) from None
    if family == "bn":
        from .bn.data import load_discrete_csv
        from .data import DataError
        try:
            dd = load_discrete_csv(data)
        except DataError as e:
            raise click.BadParameter(str(e), param_hint="'--data'") from None
        for line in dd.column_warnings():
            click.echo(line, err=True)
        program.attach("bn", dd)
        return
    program.attach_data(load_data(data, target, missing, categorical=categorical))


def _pure_option(f):
    return click.option("--pure", is_flag=True,
                        help="Pure SLP sampling (a failing draw fails the sample) "
                             "instead of backtrackable sampling.")(f)


# -- repl -------------------------------------------------------------------------------------

@main.command()
@click.argument("files", nargs=-1, type=click.Path(dir_okay=False))
@_seed_option
@_pure_option
@_params_option
@click.option("--history", type=click.Path(dir_okay=False), default=None,
              help="History file (default: $SLPY_HISTORY or ~/.slpy_history).")
@_data_options
@_limits.options()
@_limits.allow_load_option
@click.option("-q", "--quiet", is_flag=True, help="No banner.")
@_guarded
def repl(files, seed, pure, params, history, data, target, missing, categorical, timeout,
         max_steps, max_memory, allow_load, quiet):
    """Interactive top level: load FILES, then answer queries."""
    from . import repl as repl_mod
    pairs = _param_pairs(params)
    ctx = click.get_current_context()
    limits = _limits.program_limits(timeout, max_steps, max_memory, allow_load)
    return repl_mod.run(files, seed=seed, pure=pure, params=pairs, history=history,
                        quiet=quiet, debug=bool(ctx.find_root().params.get("debug")),
                        setup=lambda program: _attach_data(program, data, target, missing,
                                                           files, categorical, limits),
                        limits=limits)


# -- sample -----------------------------------------------------------------------------------

def _load_or_report(program, path) -> bool:
    """Consult path; print its load errors one a line and return False if any."""
    try:
        program.consult(path)
    except LoadErrors as e:
        for err in sorted(e.errors, key=lambda x: getattr(x, "line", 0) or 0):
            click.echo(format_load_error(err), err=True)
        return False
    except PrologError as e:
        click.echo(f"Error: {path}: {format_error(e)}", err=True)
        return False
    except Halt as h:
        click.echo(f"Error: {getattr(h, 'where', None) or path}: halt called while "
                   f"loading", err=True)
        return False
    return True


def default_query(program, path) -> str | None:
    """The first predicate defined in the file, called with fresh variables
    (``cart(A)``); None when the file defines none."""
    first = None
    for pred in program.db.preds.values():
        if pred.builtin or pred.library:
            continue
        for c in pred.clauses:
            if c.file == str(path) and (first is None or c.line < first[0]):
                first = (c.line, pred)
    if first is None:
        return None
    pred = first[1]
    name = atom_text(pred.name, quoted=True)
    if pred.arity == 0:
        return name
    return f"{name}({', '.join(var_letter_name(i) for i in range(pred.arity))})"


@main.command()
@click.argument("prior", type=click.Path(exists=True, dir_okay=False))
@click.option("--query", default=None, metavar="GOAL",
              help="The goal to sample (default: the first predicate defined in PRIOR, "
                   "called with fresh variables).")
@click.option("-n", "--num", "num", type=click.IntRange(min=0), default=1, show_default=True,
              help="Number of samples.")
@_seed_option
@_params_option
@_pure_option
@click.option("--format", "fmt", type=click.Choice(["text", "json"]), default="text",
              show_default=True,
              help="text: one answer a line, in writeq form; json: one JSON object a "
                   "line with bindings, log probability and proof tree.")
@_limits.options(what="sample")
@_limits.allow_load_option
@_data_options
@_guarded
def sample(prior, query, num, seed, params, pure, fmt, timeout, max_steps, max_memory,
           allow_load, data, target, missing, categorical):
    """Draw samples from a prior and print them."""
    import numpy as np
    pairs = _param_pairs(params)
    limits = _limits.program_limits(timeout, max_steps, max_memory, allow_load)
    p = Program(**limits)
    _attach_data(p, data, target, missing, [prior], categorical, limits)
    terms = _param_terms(p, pairs)
    for name, value in terms:
        p.set_param(name, value)
    if not _load_or_report(p, prior):
        return 1
    for name, _ in terms:
        if name not in p.params:
            declared = ", ".join(sorted(p.params)) or "none"
            raise click.BadParameter(
                f"{name}: {prior} declares no parameter {name} (declared: {declared})",
                param_hint="'-p'")
    _check_params(p)
    if query is None:
        query = default_query(p, prior)
        if query is None:
            raise click.UsageError(f"{prior} defines no predicate: give --query")
    try:
        goal, varnames = p.parse_query(query)
    except SlpSyntaxError as e:
        raise click.BadParameter(f"{query}: {e.message} (column {e.col})",
                                 param_hint="'--query'")
    rng = np.random.default_rng(seed)
    eng = p.engine
    out = sys.stdout
    for _ in range(num):
        try:
            r = sample_once(eng, goal, rng, pure)
        except Halt as h:
            return h.code
        except PrologError as e:
            out.flush()
            click.echo(f"Error: {format_error(e)}", err=True)
            return 1
        if r is None:
            if fmt == "json":
                out.write(json.dumps({"ok": False}) + "\n")
            else:
                out.write("false\n")
            continue
        inst, logp, plog, values = r
        names = letter_var_names(inst)
        text = term_to_text(inst, quoted=True, ops=p.ops, var_names=names)
        if fmt == "text":
            trees = _model_trees(p, values, varnames) if data else []
            if trees:
                # with data, a model term is shown as the tree it stands for
                out.write(f"% sample {_ + 1}: log p = {logp:.4f}\n")
                for t in trees:
                    out.write(str(t) + "\n")
                out.write("\n")
            else:
                out.write(text + "\n")
            continue
        bindings = {n: term_to_text(values[v], quoted=True, ops=p.ops, var_names=names)
                    for n, v in varnames.items() if not n.startswith("_")}
        rec = {"ok": True, "answer": text, "bindings": bindings, "log_prob": logp,
               "prob": math.exp(logp), "proof": proof_json(build_tree(plog), p.ops)}
        out.write(json.dumps(rec) + "\n")
    out.flush()
    return 0


def _model_trees(program, values, varnames):
    """The answer variables bound to model terms, as Tree objects."""
    from .trees.model import Tree
    from .trees.term import leaf_row_ids, ModelTermError
    out = []
    for n, v in varnames.items():
        if n.startswith("_"):
            continue
        try:
            leaf_row_ids(values[v])
        except ModelTermError:
            continue
        out.append(Tree.from_term(values[v], program.rowsets, program.dataset))
    return out


# -- check ------------------------------------------------------------------------------------

@main.command()
@click.argument("files", nargs=-1, required=True,
                type=click.Path(exists=True, dir_okay=False))
@click.option("--strict", is_flag=True, help="Warnings count as errors for the exit status.")
@click.option("--sampler", is_flag=True,
              help="Check that the MCMC moves sample this prior exactly: enumerate its "
                   "proofs (on the first --rows of --data, if given), start many draws "
                   "from the exact distribution, move them, and compare (docs/mcmc.md).")
@click.option("--data", type=click.Path(exists=True, dir_okay=False),
              help="--sampler: data for the family's likelihood (checked at heat 0, the "
                   "prior alone, and heat 1).")
@click.option("--rows", type=click.IntRange(min=1), default=None,
              help="--sampler: use only the first ROWS rows of --data (a small instance).")
@click.option("--columns", default=None, metavar="COL,...",
              help="--sampler: use only these columns of --data (a network's variables, "
                   "say).")
@click.option("-p", "--param", "params", multiple=True, metavar="NAME=VALUE",
              help="--sampler: override a prior parameter (repeatable).")
@click.option("--query", default=None,
              help="--sampler: the query whose answers the prior samples [default: the "
                   "family's].")
@click.option("--family", default=None, metavar="NAME",
              help="--sampler: the model family [default: as the prior declares].")
@target_option
@click.option("--proposal", "proposals", multiple=True,
              help="--sampler: a move or mixture to check (repeatable) [default: uc, q0, "
                   "cycle:3, change, perturb, swap, default and the family's moves].")
@click.option("--draws", type=click.IntRange(min=100), default=4000, show_default=True,
              help="--sampler: exact draws moved per move and heat.")
@click.option("--steps", type=click.IntRange(min=1), default=2, show_default=True,
              help="--sampler: steps of the move each draw takes.")
@click.option("--seed", type=click.IntRange(min=0), default=0, show_default=True,
              help="--sampler: the seed of the draws and moves.")
@click.option("--max-proofs", type=click.IntRange(min=1), default=20000, show_default=True,
              help="--sampler: refuse instances with more proofs than this.")
@_limits.options(timeout=_limits.LOAD_TIMEOUT, what="directive run while loading")
@_limits.allow_load_option
@_guarded
def check(files, strict, sampler, data, rows, columns, params, query, family, target, proposals,
          draws, steps, seed, max_proofs, timeout, max_steps, max_memory, allow_load):
    """Load programs and report errors and warnings; with --sampler, check that the
    sampler's moves are exact on a prior."""
    if sampler:
        if len(files) != 1:
            raise click.UsageError("--sampler checks one prior: give one file")
        from .mcmc.check_cli import sampler_check_command
        from .mcmc.cli import _params
        cols = [c.strip() for c in columns.split(",") if c.strip()] if columns else None
        return sampler_check_command(files[0], data, rows, cols, _params(params), query,
                                     family, target, proposals, draws, steps, seed,
                                     max_proofs, click.echo,
                                     _limits.program_limits(timeout, max_steps, max_memory,
                                                            allow_load))
    if data or rows or columns or params or query or family or proposals:
        raise click.UsageError("--data, --rows, --columns, -p, --query, --family and "
                               "--proposal are options of --sampler")
    from .logic.check import check_program      # the reader (lark): not for --version
    probs = check_program(files, **_limits.program_limits(timeout, max_steps, max_memory,
                                                           allow_load))
    for line in probs.lines():
        click.echo(line)
    ne, nw = probs.count("error"), probs.count("warning")
    if ne or nw:
        click.echo(f"{ne} error{'s' if ne != 1 else ''}, "
                   f"{nw} warning{'s' if nw != 1 else ''}")
    else:
        click.echo("no problems found")
    return 1 if ne or (strict and nw) else 0


def _register_commands():
    # the MCMC and exact back ends define their own commands
    from .mcmc.cli import run_cmd
    main.add_command(run_cmd, "run")
    try:
        from .pcfg.cli import exact
    except ImportError:  # the exact back end is optional while it is being built
        pass
    else:
        main.add_command(exact, "exact")
    from .learning.cli import learn_cmd
    main.add_command(learn_cmd, "learn")
    from .mcmc.compare_cli import compare_cmd
    main.add_command(compare_cmd, "compare")
    from .report.cli import predict_cmd, report_cmd
    main.add_command(report_cmd, "report")
    main.add_command(predict_cmd, "predict")
    from .bn.cli import export_cmd, query_cmd
    main.add_command(query_cmd, "query")
    main.add_command(export_cmd, "export")
    main.add_command(help_cmd, "help")


@click.command("help")
@click.argument("command", required=False)
@_guarded
def help_cmd(command):
    """Show the help of slpy, or of COMMAND (as `slpy COMMAND --help`)."""
    root = click.get_current_context().find_root()
    if command is None:
        click.echo(root.get_help())
        return 0
    cmd = main.get_command(root, command)
    if cmd is None:
        raise click.BadParameter(f"no command {command!r} (the commands: "
                                 f"{', '.join(main.list_commands(root))})",
                                 param_hint="'COMMAND'")
    with click.Context(cmd, info_name=command, parent=root) as sub:
        click.echo(cmd.get_help(sub))
    return 0


_register_commands()

if __name__ == "__main__":
    main()
