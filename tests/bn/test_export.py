"""BIF (slpy.bn.bif) written and read back exactly, read by pgmpy when it is there, and
`slpy query` / `slpy export` on a short run: answers, files, one-line errors."""
import json
import warnings
from pathlib import Path

import numpy as np
import pytest
from click.testing import CliRunner

from slpy.bn.bif import BIFError, read_bif, to_bif
from slpy.bn.data import discrete_from_arrays, load_discrete_csv
from slpy.bn.network import Network
from slpy.cli import main

ROOT = Path(__file__).resolve().parents[2]
DATA = ROOT / "examples" / "data" / "asia.csv"
ASIA = [(), (0,), (), (2,), (2,), (1, 3), (5,), (4, 5)]


@pytest.fixture(scope="module")
def asia():
    return Network.from_data(load_discrete_csv(DATA), ASIA)


def test_bif_round_trip_is_exact(asia):
    text = to_bif(asia, "asia")
    assert text.startswith("network asia {") and "probability ( either | tub, lung ) {" \
        in text and "  (no, yes) " in text
    back = read_bif(text)
    assert back.names == asia.names and back.levels == asia.levels
    assert back.parents == asia.parents
    assert all(np.array_equal(a, b) for a, b in zip(back.cpts, asia.cpts))


def test_bif_with_other_parent_orders_tables_and_comments_reads():
    rng = np.random.default_rng(0)
    data = discrete_from_arrays(np.column_stack([rng.integers(0, 3, 50),
                                                 rng.integers(0, 2, 50),
                                                 rng.integers(0, 2, 50)]),
                                names=["a", "b", "c"], levels=[3, 2, 2])
    net = Network.from_data(data, [(), (0, 2), ()])
    cpt = net.cpts[1]                       # [a, c, b]
    # parents listed as (c, a), a 'table' row (child slowest), comments
    flat = np.moveaxis(np.transpose(cpt, (1, 0, 2)), -1, 0).reshape(-1)
    text = to_bif(net).split("probability ( b | a, c )")[0] + \
        "// b given c and a\nprobability ( b | c, a ) {\n  table " + \
        ", ".join(map(repr, flat.tolist())) + ";\n}\n" + \
        "probability ( c ) {\n  table " + ", ".join(map(repr, net.cpts[2].tolist())) + \
        ";\n}\n"
    back = read_bif(text)
    assert back.parents == net.parents
    assert np.allclose(back.cpts[1], cpt)


def test_names_bif_cannot_hold_are_refused(asia):
    odd = Network(["my var", "b"], [["x", "y"], ["0", "1"]], [(), (0,)],
                  [np.array([0.5, 0.5]), np.full((2, 2), 0.5)])
    with pytest.raises(BIFError, match="'my var' is not a BIF word"):
        to_bif(odd)
    with pytest.raises(BIFError):
        read_bif("network x {\n}\nvariable a {\n  type discrete [ 2 ] { p, q };\n}\n")


@pytest.mark.slow            # pgmpy's BIF reader takes seconds to load and parse
def test_pgmpy_reads_our_bif(asia):
    pytest.importorskip("pgmpy")
    with warnings.catch_warnings():
        warnings.simplefilter("ignore")
        from pgmpy.inference import VariableElimination
        from pgmpy.readwrite import BIFReader
        model = BIFReader(string=to_bif(asia)).get_model()
        f = VariableElimination(model).query(["lung", "bronc"], show_progress=False,
                                             evidence={"smoke": "yes", "xray": "no"})
    theirs = np.transpose(f.values, [f.variables.index(v) for v in ("lung", "bronc")])
    assert np.allclose(theirs, asia.query([3, 4], {2: 1, 6: 0}), atol=1e-12)


def test_to_pgmpy_without_pgmpy_says_so(asia, monkeypatch):
    import sys
    from slpy.bn.bif import to_pgmpy
    monkeypatch.setitem(sys.modules, "pgmpy", None)
    monkeypatch.setitem(sys.modules, "pgmpy.factors.discrete", None)
    with pytest.raises(ImportError, match="to_pgmpy needs pgmpy.*pip install pgmpy"):
        to_pgmpy(asia)


# -- the commands ------------------------------------------------------------------------------

def cli(*args):
    return CliRunner().invoke(main, [str(a) for a in args])


@pytest.fixture(scope="module")
def run_dir(tmp_path_factory):
    out = tmp_path_factory.mktemp("bnq") / "run"
    r = cli("run", ROOT / "priors" / "bn.slp", "--data", DATA, "-n", "120", "--chains",
            "2", "--temper", "1", "--seed", "3", "-q", "--out", out)
    assert r.exit_code == 0, r.output
    return out


def test_query_prints_the_table_with_its_mcse(run_dir):
    from slpy.bn.posterior import load_posterior
    r = cli("query", run_dir, "P(lung | smoke=yes)")
    assert r.exit_code == 0, r.output
    lines = r.stdout.splitlines()
    assert lines[0].startswith("P(lung | smoke=yes), averaged over 216 kept draws of 2 "
                               "chains (")
    assert lines[1].split() == ["lung", "P", "MCSE"]
    ans = load_posterior(run_dir).query("P(lung | smoke=yes)")
    assert lines[2].split() == ["no", f"{ans.table[0]:.4f}", f"{ans.mcse[0]:.6f}"]
    r = cli("query", run_dir, "P(lung=yes, bronc=no | smoke=yes, xray=no)", "--json")
    got = json.loads(r.stdout)
    assert got["variables"] == [] and 0 < got["table"] < 1 and got["draws"] == 216
    r = cli("query", run_dir, "P(lung=yes | smoke=yes)", "--rank", 1)
    assert r.stdout.splitlines()[1] == "the DAG of rank 1 alone"


@pytest.mark.parametrize("args, code, says", [
    (["P(lung | smok=yes)"], 2, "Invalid value for 'QUERY': query 'P(lung | smok=yes)', "
                                "column 10: no variable 'smok'"),
    (["P(lung | smoke=maybe)"], 2, "'smoke' has no value 'maybe'"),
    (["P(lung | smoke"], 2, "column 15: expected ')'"),
    (["P(lung)", "--rank", "100000"], 2, "the run kept"),
])
def test_bad_queries_are_one_line(run_dir, args, code, says):
    r = cli("query", run_dir, *args)
    assert r.exit_code == code and "Traceback" not in r.output
    lines = r.stderr.strip().splitlines()
    assert len(lines) == 1 and says in lines[0], r.stderr


def test_query_and_export_refuse_what_is_not_a_network_run(tmp_path):
    for args in (["query", tmp_path, "P(a)"], ["export", tmp_path, "--bif", tmp_path / "x"]):
        r = cli(*args)
        assert r.exit_code == 1 and r.stderr.strip().splitlines() == [
            f"Error: {tmp_path}: not a run directory (no config.json)"]


def test_a_tree_run_is_refused_in_one_line(tmp_path):
    r = cli("run", ROOT / "priors" / "growtree.slp", "--data",
            ROOT / "examples" / "data" / "kyphosis.csv", "-n", 20, "--temper", 1, "-q",
            "--out", tmp_path / "t")
    assert r.exit_code == 0, r.output
    for args in (["query", tmp_path / "t", "P(a)"],
                 ["export", tmp_path / "t", "--bif", tmp_path / "x.bif"]):
        r = cli(*args)
        assert r.exit_code == 1 and r.stderr.strip().splitlines() == [
            f"Error: {tmp_path / 't'}: not a Bayesian-network run (its family is tree)"]


def test_export_writes_the_map_dag(run_dir, tmp_path):
    from slpy.bn.posterior import load_posterior
    post = load_posterior(run_dir)
    r = cli("export", run_dir, "--bif", tmp_path / "map.bif")
    assert r.exit_code == 0, r.output
    assert r.stdout.startswith(f"{tmp_path / 'map.bif'}: the DAG of rank 1 (posterior ")
    back = read_bif((tmp_path / "map.bif").read_text())
    assert back.parents == post.network(1).parents
    assert cli("export", run_dir, "--bif", tmp_path / "two.bif", "--rank", 2).exit_code == 0
    assert read_bif((tmp_path / "two.bif").read_text()).parents == post.network(2).parents
    r = cli("export", run_dir, "--bif", tmp_path / "no" / "x.bif")
    assert r.exit_code == 2 and "Invalid value for '--bif'" in r.stderr


@pytest.mark.slow            # slpy report draws with matplotlib: seconds
def test_the_report_has_the_classes_the_cpts_and_the_query(run_dir, tmp_path):
    pytest.importorskip("matplotlib")
    from slpy.bn.posterior import load_posterior
    post = load_posterior(run_dir)
    r = cli("report", run_dir, "--out", tmp_path / "a")
    assert r.exit_code == 0, r.output
    md = (tmp_path / "a" / "report.md").read_text()
    assert "| compelled a -> b | compelled b -> a | undirected |" in md
    assert "split an edge's mass between its two directions" in md
    cpts = md.split("## Posterior-averaged CPTs")[1]
    first = post.network(1).names[0]
    p = post.averaged_cpts(1)[0]
    assert f"### {first}" in cpts and f"{p.reshape(-1, p.shape[-1])[0, 0]:.4f}" in cpts
    r = cli("report", run_dir, "--out", tmp_path / "b", "--query", "P(lung | smoke=yes)")
    assert r.exit_code == 0, r.output
    query = (tmp_path / "b" / "report.md").read_text().split("## Query")[1]
    ans = post.query("P(lung | smoke=yes)")
    assert f"| yes | {ans.table[1]:.4f} | {ans.mcse[1]:.4f} |" in query
    r = cli("report", run_dir, "--out", tmp_path / "c", "--query", "P(lung | smok=yes)")
    assert r.exit_code == 1 and "no variable 'smok'" in r.stderr
    assert not list((tmp_path / "c").glob("*.png"))     # said before drawing anything
