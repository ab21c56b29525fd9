"""Issue 26, items 2, 9 and 10: nothing silent on nonsense input.

- a prior declares its parameters' domains (`:- param(Name, Default, Domain).`) and a
  value outside one is a one-line usage error naming -p, the parameter, the value and
  the domain (slpy.logic.params), in every command, Program.set_param and the
  estimators;
- a column no model can learn from (an identifier, a constant) gets a warning, for
  trees, networks and clusterings (slpy.data.checks);
- the smaller ones: no --missing hint for networks, --scheduler named, a -p value that
  does not read blamed on -p, run --test's note on unseen levels, report.md without
  raw HTML from column names, docs/pcfg.md's paths, `slpy help`, help on every option;
- first contact: the compile notice, the held-out hint, Monte Carlo standard errors of
  the top models and the neighbours they cannot tell apart.
"""
from __future__ import annotations

import json
import re
from pathlib import Path

import numpy as np
import pytest
import click
from click.testing import CliRunner

from slpy import Program
from slpy.cli import main
from slpy.logic.params import ParamError, admits, describe, parse_domain
from slpy.logic.program import LoadErrors
from slpy.terms.term import PrologError

ROOT = Path(__file__).resolve().parents[1]
DATA = ROOT / "examples" / "data"
PRIORS = sorted((ROOT / "priors").glob("*.slp"))


def cli(*args):
    return CliRunner().invoke(main, [str(a) for a in args])


def one_line_error(r, code=2) -> str:
    assert r.exit_code == code, (r.exit_code, r.stdout, r.stderr)
    assert "Traceback" not in r.stdout + r.stderr
    lines = r.stderr.strip().splitlines()
    assert len(lines) == 1, r.stderr
    return lines[0]


def term(text):
    return Program().parse_query(text)[0]


# -- item 2: parameter domains ---------------------------------------------------------------

@pytest.mark.parametrize("domain, yes, no", [
    ("integer(0, inf)", ["0", "3", "100000000000000000000"], ["-1", "2.0", "a", "X"]),
    ("integer(1, 10)", ["1", "10"], ["0", "11"]),
    ("number(open(0), 1)", ["1", "0.5", "1/3"], ["0", "1.5", "nan", "inf", "a", "f(1)"]),
    ("number(0, open(1))", ["0", "0.999"], ["1", "-0.0001"]),
    ("number(0, inf)", ["0", "1.0e300", "2/3"], ["-1", "inf"]),
    ("number", ["-7", "2**0.5"], ["foo", "[]"]),
    ("positive_integer", ["1"], ["0"]),
    ("nonneg", ["0"], ["-1", "0.0"]),
    ("oneof([none, all])", ["none", "all"], ["some", "1"]),
    ("list(atom-atom)", ["[]", "[a-b, c-d]"], ["[a-b, c]", "a-b", "[a-1]"]),
    ("(oneof([none]) ; integer(0, inf))", ["none", "3"], ["-1", "nope"]),
    ("callable", ["leaf", "node(x, 1, leaf, leaf)"], ["1", "\"s\""]),
    ("boolean", ["true", "false"], ["yes"]),
    ("any", ["X", "f(_)"], []),
])
def test_domains_admit_their_values_and_no_others(domain, yes, no):
    d = parse_domain(term(domain))
    for v in yes:
        assert admits(d, term(v)), (domain, v)
    for v in no:
        assert not admits(d, term(v)), (domain, v)


def test_domains_read_as_words():
    assert describe(term("integer(0, inf)")) == "an integer >= 0"
    assert describe(term("number(open(0), 1)")) == "a number in (0, 1]"
    assert describe(term("number(open(0), inf)")) == "a number > 0"
    assert describe(term("integer(1, 9)")) == "an integer from 1 to 9"
    assert describe(term("list(atom-atom)")) == \
        "a list, each element a pair A-B with A an atom and B an atom"


@pytest.mark.parametrize("bad", ["foo", "integer(5, 1)", "number(a, 1)", "list(bar)",
                                 "integer(open(0), 3)", "oneof(x)", "1"])
def test_a_malformed_domain_is_a_load_error_with_its_line(bad):
    p = Program()
    with pytest.raises(LoadErrors) as e:
        p.consult_text(f"a.\n:- param(k, 1, {bad}).\n", "d.slp")
    assert str(e.value.errors[0]).startswith("d.slp:2: ")
    assert "param_domain" in str(e.value.errors[0])


def test_a_default_outside_its_domain_is_a_load_error():
    with pytest.raises(LoadErrors) as e:
        Program().consult_text(":- param(alpha, 2, number(open(0), 1)).\n", "d.slp")
    msg = str(e.value.errors[0])
    assert msg.startswith("d.slp:1: ") and "alpha=2" in msg and "(0, 1]" in msg


def test_set_param_checks_the_domain_before_and_after_loading():
    src = ":- param(k, 3, integer(0, inf)).\nt(K) :- param(k, K).\n"
    p = Program()
    p.consult_text(src, "k.slp")
    with pytest.raises(ParamError, match=r"^k=-1: expected an integer >= 0 \(domain "
                                         r"integer\(0, inf\), k.slp\)$"):
        p.set_param("k", -1)
    p.set_param("k", 5)
    assert p.once("t(K)")["K"] == 5
    q = Program()
    q.set_param("k", -1)              # before loading: the domain is not known yet
    q.consult_text(src, "k.slp")
    with pytest.raises(ParamError):
        q.check_params()
    with pytest.raises(PrologError, match="k=-1"):   # nor read unchecked
        q.once("t(K)")
    assert p.once("param(k, V, D)")["D"] == term("integer(0, inf)")


def test_every_bundled_prior_declares_the_domain_of_every_parameter():
    for path in PRIORS:
        p = Program()
        p.consult(path)
        assert p.params, path
        assert set(p.param_domains) == set(p.params), path
        p.check_params()


@pytest.mark.parametrize("prior, bad", [
    ("bn.slp", "max_parents=-1"), ("bn.slp", "link=1.5"),
    ("growtree.slp", "alpha=1.01"), ("growtree.slp", "beta=-1"),
    ("growtree.slp", "min_leaf=0"), ("depth.slp", "start_depth=0"),
    ("edittree.slp", "continue=1"), ("edittree.slp", "initial_tree=3"),
    ("phi.slp", "max_depth=-2"), ("crp.slp", "alpha=0"),
    ("crp_bounded.slp", "max_clusters=0"), ("bn_expert.slp", "required=[a-b,c]"),
])
def test_each_prior_refuses_nonsense_parameters(prior, bad):
    p = Program()
    p.consult(ROOT / "priors" / prior)
    name, _, value = bad.partition("=")
    with pytest.raises(ParamError, match=f"^{re.escape(bad.replace(',', ', '))}: "
                                         f"expected .*domain"):
        p.set_param(name, p.parse_query(value)[0])


def test_run_refuses_a_parameter_outside_its_domain(tmp_path):
    out = tmp_path / "run"
    r = cli("run", ROOT / "priors" / "bn.slp", "--data", DATA / "asia.csv",
            "-p", "max_parents=-1", "-n", 10, "--out", out)
    line = one_line_error(r)
    assert line == (f"Error: -p max_parents=-1: expected an integer >= 0 (domain "
                    f"integer(0, inf), {ROOT / 'priors' / 'bn.slp'})")
    assert not out.exists()            # refused before anything was written


def test_sample_exact_repl_and_check_refuse_it_too(tmp_path):
    g, phi = ROOT / "priors" / "growtree.slp", ROOT / "priors" / "phi.slp"
    kyph = DATA / "kyphosis.csv"
    line = one_line_error(cli("sample", g, "--data", kyph, "-p", "alpha=1.5"))
    assert "'-p'" in line and "alpha=1.5" in line and "number(0, 1)" in line
    line = one_line_error(cli("exact", phi, "--data", kyph, "-p", "min_leaf=0"))
    assert "'-p'" in line and "min_leaf=0" in line and "integer(1, inf)" in line
    r = CliRunner().invoke(main, ["repl", str(g), "-p", "beta=-1"], input="")
    assert one_line_error(r).startswith("Error: -p beta=-1: expected a number >= 0")
    line = one_line_error(cli("check", "--sampler", g, "-p", "alpha=7"))
    assert line.startswith("Error: -p alpha=7: expected a number in [0, 1]")


def test_the_estimators_refuse_it():
    pytest.importorskip("sklearn")
    from slpy import BayesianTreeClassifier
    X = np.arange(40, dtype=float).reshape(20, 2) % 7
    y = np.array(["a", "b"] * 10)
    with pytest.raises(ValueError, match=r"alpha=1\.5: expected a number in \[0, 1\]"):
        BayesianTreeClassifier(prior_params={"alpha": 1.5}, n_iter=20).fit(X, y)
    with pytest.raises(ValueError, match=r"beta=-1: expected a number >= 0"):
        BayesianTreeClassifier(prior_params={"beta": -1}, n_iter=20).fit(X, y)


# -- item 2: data that cannot support a model ------------------------------------------------

def _csv(path, header, rows):
    path.write_text(",".join(header) + "\n" + "".join(",".join(map(str, r)) + "\n"
                                                      for r in rows))
    return path


def test_a_network_warns_of_an_identifier_and_a_constant_column(tmp_path):
    rng = np.random.default_rng(0)
    a = rng.integers(0, 2, 40)
    data = _csv(tmp_path / "net.csv", ["a", "b", "id", "k"],
                [(x, x ^ (i % 7 == 0), f"r{i}", "same") for i, x in enumerate(a)])
    r = cli("run", ROOT / "priors" / "bn.slp", "--data", data, "-n", 20, "--temper", 1,
            "-q", "--out", tmp_path / "out")
    assert r.exit_code == 0, r.stderr
    warnings = r.stderr.strip().splitlines()
    assert warnings == [
        f"warning: {data}: column 'id' has a different value in each of its 40 rows (an "
        f"identifier?): no model can learn from it; leave it out of the data",
        f"warning: {data}: column 'k' has the same value in every row: it tells no rows "
        f"apart"]


def test_trees_warn_of_a_row_number_a_name_and_a_constant(tmp_path):
    data = _csv(tmp_path / "t.csv", ["id", "x", "name", "k", "class"],
                [(i + 1, i % 4, f"n{i}", 2.5, "yn"[i % 2]) for i in range(12)])
    r = cli("sample", ROOT / "priors" / "growtree.slp", "--data", data,
            "--categorical", "name", "-n", 1, "--seed", 1)
    assert r.exit_code == 0, r.stderr
    assert r.stderr.splitlines() == [
        f"warning: {data}: column 'id' has the whole numbers 1 to 12, one in each row (an "
        f"identifier?): no model can learn from it; leave it out of the data",
        f"warning: {data}: column 'name' has a different value in each of its 12 rows "
        f"(an identifier?): no model can learn from it; leave it out of the data",
        f"warning: {data}: column 'k' has the same value in every row: it tells no rows "
        f"apart"]


def test_a_constant_response_has_nothing_to_predict(tmp_path):
    from slpy.data.dataset import load_csv
    data = _csv(tmp_path / "r.csv", ["x", "y"], [(i % 3, 4.0) for i in range(8)])
    assert load_csv(data, class_col="y", regression=True).column_warnings() == [
        f"warning: {data}: the response has the same value in every row: there is "
        f"nothing to predict"]


def test_ordinary_columns_and_small_tables_are_not_flagged(tmp_path):
    from slpy.cluster.data import load_cluster_csv
    from slpy.data.dataset import load_csv
    # measurements that all differ, and a numbering of fewer than 10 rows
    data = _csv(tmp_path / "m.csv", ["w", "n", "class"],
                [(1.5 + i * 0.37, i, "ab"[i % 2]) for i in range(9)])
    assert load_csv(data).column_warnings() == []
    assert load_cluster_csv(data).column_warnings() == []
    assert load_csv(DATA / "bcw.csv").column_warnings() == []


def test_clusterings_warn_too(tmp_path):
    from slpy.cluster.data import load_cluster_csv
    data = _csv(tmp_path / "c.csv", ["x", "k", "label"],
                [(i * 0.5 % 3, 4, f"L{i}") for i in range(15)])
    assert [w.split(": ", 2)[2] for w in load_cluster_csv(data).column_warnings()] == [
        "column 'k' has the same value in every row: it tells no rows apart",
        "column 'label' has a different value in each of its 15 rows (an identifier?): "
        "no model can learn from it; leave it out of the data"]


# -- item 9: the smaller ones -----------------------------------------------------------------

def test_network_data_with_a_missing_value_does_not_suggest_missing_split(tmp_path):
    text = (DATA / "asia.csv").read_text().splitlines()
    text[2] = "no,," + text[2].split(",", 2)[2]
    data = tmp_path / "asia.csv"
    data.write_text("\n".join(text) + "\n")
    line = one_line_error(cli("run", ROOT / "priors" / "bn.slp", "--data", data, "-n", 5,
                              "--out", tmp_path / "o"))
    assert "missing value" in line and "--missing" not in line


def test_a_scheduler_that_is_not_an_address_names_the_option(tmp_path):
    line = one_line_error(cli("run", ROOT / "priors" / "growtree.slp", "--data",
                              DATA / "kyphosis.csv", "--backend", "dask", "--scheduler",
                              "not a url", "--out", tmp_path / "o"))
    assert line.startswith("Error: Invalid value for '--scheduler': 'not a url' is not a "
                           "cluster address")
    assert not (tmp_path / "o").exists()


def test_a_parameter_value_that_does_not_read_is_blamed_on_p(tmp_path):
    line = one_line_error(cli("run", ROOT / "priors" / "growtree.slp", "--data",
                              DATA / "kyphosis.csv", "-p", "alpha=f(", "-n", 5,
                              "--out", tmp_path / "o"))
    assert line.startswith("Error: -p alpha=f(: not a term (") and "prior" not in line


def test_run_test_notes_levels_the_training_data_lack(tmp_path):
    rows = [(i % 5, "abc"[i % 3], "yn"[i % 2]) for i in range(30)]
    train = _csv(tmp_path / "train.csv", ["x", "c", "class"], rows)
    test = _csv(tmp_path / "test.csv", ["x", "c", "class"], [(1, "z", "y"), (2, "a", "n")])
    r = cli("run", ROOT / "priors" / "growtree.slp", "--data", train, "--test", test,
            "--categorical", "c", "-n", 20, "--temper", 1, "-q", "--out", tmp_path / "o")
    assert r.exit_code == 0, r.stderr
    assert r.stderr.splitlines() == [
        f"note: {test}: 1 value of a level the training data lack (c 'z' (1)): each goes "
        f"to the side of each split with more training rows"]


def test_md_text_and_code_keep_column_names_literal():
    from slpy.report import md_code, md_text
    assert md_text("<b>x</b> & a|b") == "\\<b\\>x\\</b\\> \\& a\\|b"
    assert md_text("cell_size_uniformity") == "cell_size_uniformity"
    assert md_code("a|b", table=True) == "`a\\|b`" and md_code("x`y") == "`` x`y ``"


def _raw_html(markdown: str) -> list:
    """Tags report.md would pass to HTML: outside code blocks and spans, unescaped."""
    text = re.sub(r"^```.*?^```", "", markdown, flags=re.S | re.M)
    text = re.sub(r"(`+).*?\1", "", text)
    return re.findall(r"(?<!\\)<[A-Za-z/][^>]*>", text)


def test_report_md_carries_no_raw_html_from_column_names(tmp_path):
    pytest.importorskip("matplotlib")
    lines = (DATA / "kyphosis.csv").read_text().splitlines()
    assert lines[0] == "Age,Number,Start,class"
    evil = tmp_path / "evil.csv"
    evil.write_text("<b>Age</b>,y<script>z</script>,a|b&c,class\n"
                    + "\n".join(lines[1:]).replace("present", "<i>present</i>") + "\n")
    out = tmp_path / "run"
    r = cli("run", ROOT / "priors" / "growtree.slp", "--data", evil, "-n", 200,
            "--temper", 1, "-q", "--out", out)
    assert r.exit_code == 0, r.stderr
    r = cli("report", out)
    assert r.exit_code == 0, r.stderr
    md = (out / "report" / "report.md").read_text()
    assert "script" in md and _raw_html(md) == []


def test_docs_pcfg_data_paths_exist():
    doc = (ROOT / "docs" / "pcfg.md").read_text()
    paths = re.findall(r"--(?:data|test) ([\w./-]+)", doc) + re.findall(r'load_csv\("([^"]+)"\)',
                                                                    doc)
    paths = [p for p in paths if not re.fullmatch(r"[A-Z_]+\.csv", p)]   # placeholders
    assert paths
    for p in paths:
        assert (ROOT / p).is_file(), p


def test_slpy_help_is_a_command():
    r = cli("help")
    assert r.exit_code == 0 and r.stdout == cli("--help").stdout
    for name in main.commands:
        r = cli("help", name)
        assert r.exit_code == 0 and r.stdout == cli(name, "--help").stdout, name
    line = one_line_error(cli("help", "nope"))
    assert "no command 'nope'" in line and "run" in line


def test_every_option_of_every_command_has_help():
    ctx = click.Context(main)
    missing = [f"{name} {'/'.join(p.opts)}"
               for name in main.list_commands(ctx)
               for p in main.get_command(ctx, name).params
               if isinstance(p, click.Option) and not p.hidden and not (p.help or "").strip()]
    missing += ["/".join(p.opts) for p in main.params
                if isinstance(p, click.Option) and not (p.help or "").strip()]
    assert missing == []


# -- item 10: first contact --------------------------------------------------------------------

def test_a_cold_kernel_cache_is_said_once(monkeypatch, tmp_path):
    import numba
    import slpy.mcmc.run as run_mod
    from slpy.cliopts import COMPILING
    warm_up = run_mod.warm_up

    def compiling(proposal):        # as the first run compiles the kernels, uncached
        numba.njit(lambda x: x + 1)(1)
        numba.njit(lambda x: x * 2)(1)
        warm_up(proposal)
    monkeypatch.setattr(run_mod, "warm_up", compiling)
    args = ["run", ROOT / "priors" / "growtree.slp", "--data", DATA / "kyphosis.csv",
            "-n", 5, "--temper", 1, "--chains", 1, "--top", 0, "--force", "--out", tmp_path / "o"]
    r = cli(*args)
    assert r.exit_code == 0, r.stderr
    assert r.stderr.splitlines().count(COMPILING) == 1
    assert r.stderr.index(COMPILING) < r.stderr.index("chain 0")
    r = cli(*args, "-q")
    assert r.exit_code == 0 and COMPILING not in r.stderr
    monkeypatch.setattr(run_mod, "warm_up", warm_up)
    r = cli(*args)                  # nothing compiled: nothing said
    assert r.exit_code == 0 and COMPILING not in r.stderr


def test_batch_means_error_of_independent_draws():
    from slpy.mcmc.summary import pooled_mcse as _mcse
    rng = np.random.default_rng(1)
    x = (rng.random(40000) < 0.1).astype(float)
    assert _mcse([x]) == pytest.approx(np.sqrt(0.1 * 0.9 / 40000), rel=0.15)
    # two chains pool as their counts do: twice the draws, 1/sqrt(2) the error
    y = (rng.random(40000) < 0.1).astype(float)
    assert _mcse([x, y]) == pytest.approx(_mcse([x]) / np.sqrt(2), rel=0.15)
    assert _mcse([x[:3]]) is None


def test_batch_means_error_of_a_sticky_chain_agrees_with_arviz():
    az = pytest.importorskip("arviz")
    from slpy.mcmc.summary import pooled_mcse as _mcse
    rng = np.random.default_rng(2)
    x = np.zeros(20000)
    for i in range(1, x.size):     # a chain that stays at a model for ~20 draws
        x[i] = x[i - 1] if rng.random() < 0.95 else float(rng.random() < 0.3)
    ours = _mcse([x])
    theirs = np.asarray(az.mcse(x[None, :], method="mean")).item()
    assert ours == pytest.approx(theirs, rel=0.25)
    assert ours > 3 * np.sqrt(x.var() / x.size)      # far above the iid error


def test_the_summary_gives_mcse_ties_and_the_holdout_hint(tmp_path):
    out = tmp_path / "o"
    r = cli("run", ROOT / "priors" / "growtree.slp", "--data", DATA / "kyphosis.csv",
            "-n", 600, "--chains", 2, "--temper", 2, "--top", 3, "--seed", 3, "--out", out)
    assert r.exit_code == 0, r.stderr
    lines = r.stdout.splitlines()
    assert "for held-out accuracy: --holdout 0.2 (or --test CSV)" in lines
    tops = [ln for ln in lines if ln.startswith("#")]
    assert len(tops) == 3
    assert all(re.match(r"#\d: posterior 0\.\d{4} \(MCSE 0\.\d{4}\), log-likelihood", ln)
               for ln in tops), tops
    summary = json.loads((out / "summary.json").read_text())
    ses = [m["mcse"] for m in summary["top_models"]]
    assert all(0 < s < 0.2 for s in ses)
    assert (out / "summary.txt").read_text().count("(MCSE ") == 3
    r = cli("run", ROOT / "priors" / "growtree.slp", "--data", DATA / "kyphosis.csv",
            "-n", 100, "--temper", 1, "--holdout", 0.2, "--out", tmp_path / "h")
    assert "test accuracy: acc_max" in r.stdout and "for held-out" not in r.stdout


def test_neighbours_within_monte_carlo_error_are_said_to_be_tied():
    from slpy.mcmc.output import Trace, Visit
    from slpy.mcmc.summary import _tied_lines

    class Out:
        def __init__(self, models):
            self.trace = Trace.empty()
            self.trace.model = np.asarray(models)
            self.visits = {k: Visit(k, 0, 0.0, ()) for k in range(4)}
    # models 0 and 1 as frequent, 2 and 3 far apart
    m = np.random.default_rng(3).permutation(np.repeat([0, 1, 2, 3], [1200, 1200, 1400, 200]))
    outs = [Out(m)]
    assert _tied_lines(outs, [0, 1]) == [
        "not told apart (within 2 Monte Carlo standard errors of each other): #1 and #2; "
        "their order is chance (run longer, or more chains)"]
    assert _tied_lines(outs, [2, 3]) == []
    assert _tied_lines(outs, [2, 0, 1, 3])[0].startswith(
        "not told apart (within 2 Monte Carlo standard errors of each other): #2 and #3;")
    even = [Out(np.random.default_rng(4).permutation(np.repeat([0, 1, 2, 3], 1000)))]
    assert _tied_lines(even, [0, 1, 2])[0].split(": ")[1] == \
        "#1 to #3; their order is chance (run longer, or more chains)"


def test_smc_particles_get_no_batch_means_error():
    from types import SimpleNamespace
    from slpy.mcmc.output import Trace, Visit
    from slpy.mcmc.summary import _model_mcse, _tied_lines
    trace = Trace.empty()
    trace.model = np.repeat([0, 1], 50)
    out = SimpleNamespace(trace=trace, visits={k: Visit(k, 50, 0.0, ()) for k in (0, 1)},
                          evidence=None)
    assert all(se is not None for se in _model_mcse([out], [0, 1]))
    out.evidence = {"log_evidence": -3.0}     # an island of particles, not a chain
    assert _model_mcse([out], [0, 1]) == [None, None] and _tied_lines([out], [0, 1]) == []
