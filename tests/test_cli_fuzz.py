"""The command line under random option values and random CSV files (ragged, empty,
unicode, huge numbers, NaN, text columns): every outcome is success or one line
`Error: ...` with a documented exit status, never a traceback or an internal error.

The same examples every run (derandomized); SLPY_FUZZ_EXAMPLES=500 explores 500 fresh
ones instead (minutes)."""
import os
import string
import tempfile
from pathlib import Path

from click.testing import CliRunner
from hypothesis import HealthCheck, given, settings, strategies as st

from slpy.cli import main

ROOT = Path(__file__).resolve().parents[1]
PRIOR = str(ROOT / "priors" / "growtree.slp")
_DEEP = int(os.environ.get("SLPY_FUZZ_EXAMPLES", "0"))
SETTINGS = settings(max_examples=_DEEP or 50, deadline=None, derandomize=not _DEEP,
                    database=None,
                    suppress_health_check=[HealthCheck.too_slow,
                                           HealthCheck.function_scoped_fixture])

# -- random CSV files -------------------------------------------------------------------------

NAMES = st.one_of(st.sampled_from(["a", "b", "x1", "class", "Age", "my col", "a,b", "é",
                                   "'q'", "", " pad ", "日本"]),
                  st.text(string.ascii_letters + " ,'\"é", min_size=0, max_size=6))
VALUES = st.one_of(
    st.integers(-5, 5).map(str),
    st.floats(allow_nan=True, allow_infinity=True).map(repr),
    st.sampled_from(["", "?", "NA", "N/A", "NaN", "nan", "inf", "-inf", "1e400", "9" * 400,
                     "0x1F", "yes", "é", "1,5", "\"3\"", " 7 "]),
    st.text(max_size=5))
LABELS = st.sampled_from(["p", "q", "r", "1", "2", "", "NA", "ü"])


def mostly(good, bad):
    """`good` nine times in ten: commands must get past the checks to be tried."""
    return st.integers(0, 9).flatmap(lambda k: bad if k == 0 else good)


@st.composite
def csv_files(draw):
    """The bytes of a CSV file: mostly tables with a header, most of them clean
    (numbers, odd names, a value missing here and there, a class column of two or
    three classes) so that commands get as far as running, some broken."""
    if draw(st.integers(0, 19)) == 0:
        return draw(st.sampled_from([b"", b"\n\n", b"\x00\x01PK", "caf\xe9".encode("latin-1"),
                                     b"a,b,class\n"]))
    clean = draw(st.integers(0, 3)) > 0
    width = draw(st.integers(1, 4))
    names = [draw(st.sampled_from([f"f{j}", f"col {j}", f"v,{j}", f"ü{j}", f"'{j}"]))
             for j in range(width)] + ["class"] if clean else \
        draw(st.lists(NAMES, min_size=1, max_size=5))
    n = draw(st.integers(0, 40) if not clean else st.integers(12, 40))
    rows = []
    for i in range(n):
        if clean:
            row = [draw(mostly(st.one_of(st.integers(0, 9).map(str),
                                         st.floats(-1e300, 1e300).map(repr)),
                               st.sampled_from(["", "NA", "?", "1e308"])))
                   for _ in range(width)] + \
                [draw(mostly(st.sampled_from(["p", "q"]), LABELS)) if i > 1 else "pq"[i]]
        else:
            k = len(names) + draw(st.sampled_from([0, 0, 0, -1, 1]))   # ragged sometimes
            row = [draw(VALUES) for _ in range(max(k - 1, 0))] + [draw(LABELS)]
        rows.append(row)
    import csv
    import io
    buf = io.StringIO()
    csv.writer(buf, lineterminator="\n").writerows([names] + rows)
    return buf.getvalue().encode("utf-8")


# -- random option values ---------------------------------------------------------------------

def _num(lo, hi):
    return mostly(st.integers(lo, hi).map(str),
                  st.sampled_from(["-1", "0", "x", "", "1.5", "nan", "inf", "1e9"]))


FLOATS = mostly(st.floats(0.01, 0.9).map(repr),
                st.sampled_from(["0", "1", "nan", "inf", "-inf", "x", "-0.5", "1e-300", "2"]))

RUN_OPTIONS = {
    "--iterations": _num(1, 30), "--burn-in": _num(0, 10), "--thin": _num(1, 3),
    "--temper": _num(1, 3), "--delta-t": FLOATS, "--chains": _num(1, 2),
    "--jobs": mostly(st.just("1"), st.sampled_from(["0", "-2", "x"])), "--seed": _num(0, 99),
    "--top": _num(-1, 3), "--holdout": FLOATS, "--split-seed": _num(0, 5),
    "--proposal": mostly(st.sampled_from(["uc", "q0", "cycle:2", "change", "swap", "perturb",
                                          "exact:1", "default", "uc:0.5,change:0.5"]),
                         st.sampled_from(["cycle:", "cycle:x", "zz", "", "exact:9",
                                          "perturb:0", "uc:-1", "uc:0,change:0", "uc:"])),
    "--min-heat": FLOATS, "--ladder": mostly(st.sampled_from(["paper", "geometric"]),
                                             st.just("x")),
    "--swap": mostly(st.sampled_from(["neighbours", "random"]), st.just("x")),
    "--bucket": _num(2, 4),
    "--bucket-method": mostly(st.sampled_from(["uniform", "quantile"]), st.just("x")),
    "--likelihood": mostly(st.sampled_from(["dirichlet", "normal"]), st.just("x")),
    "--missing": mostly(st.sampled_from(["drop", "error"]), st.just("x")),
    "--target": mostly(st.just("class"), NAMES),
    "--init": mostly(st.sampled_from(["prior", "greedy"]), st.just("/no/such/file")),
    "--timeout": mostly(st.just("20"), st.sampled_from(["0", "-1", "x"])),
    "--max-steps": mostly(st.just("10000000"), st.sampled_from(["0", "-5"])),
    "-p": mostly(st.sampled_from(["min_leaf=2", "alpha=0.5"]),
                 st.sampled_from(["zeta=1", "oops", "alpha=(("])),
}


def _options(draw, table):
    args = []
    for opt in draw(st.lists(st.sampled_from(sorted(table)), max_size=4, unique=True)):
        args += [opt, draw(table[opt])]
    return args


def check(result):
    """Success, or one error line (warnings aside) and a documented exit status."""
    text = result.output
    assert "Traceback" not in text and "internal error" not in text, text
    assert result.exit_code in (0, 1, 2), (result.exit_code, text)
    if result.exit_code:
        lines = [ln for ln in result.stderr.splitlines() if not ln.startswith("warning:")]
        assert len(lines) == 1, result.stderr
        assert lines[0].strip(), result.stderr


@SETTINGS
@given(data=csv_files(), test=st.one_of(st.none(), csv_files()), st_data=st.data())
def test_run_with_random_options_and_files(data, test, st_data):
    args = _options(st_data.draw, RUN_OPTIONS)
    with tempfile.TemporaryDirectory() as tmp:
        (Path(tmp) / "d.csv").write_bytes(data)
        # short runs unless the options say otherwise (the last -n wins)
        cmd = ["run", PRIOR, "--data", str(Path(tmp) / "d.csv"), "-q", "-n", "30",
               "--out", str(Path(tmp) / "run")] + args
        if test is not None:
            (Path(tmp) / "t.csv").write_bytes(test)
            cmd += ["--test", str(Path(tmp) / "t.csv")]
        check(CliRunner().invoke(main, cmd))


@SETTINGS
@given(data=csv_files(), st_data=st.data())
def test_sample_exact_and_predict_with_random_files(data, st_data):
    target = st_data.draw(st.one_of(st.none(), NAMES))
    missing = st_data.draw(st.sampled_from(["drop", "error"]))
    extra = ["--target", target] if target is not None else []
    with tempfile.TemporaryDirectory() as tmp:
        f = Path(tmp) / "d.csv"
        f.write_bytes(data)
        common = ["--data", str(f), "--missing", missing] + extra
        check(CliRunner().invoke(main, ["sample", PRIOR, "-n", "2", "--seed", "1"] + common))
        check(CliRunner().invoke(main, ["exact", PRIOR, "--max-depth", "1", "-q",
                                        "--out", str(Path(tmp) / "e")] + common))
        run = Path(tmp) / "run"
        r = CliRunner().invoke(main, ["run", PRIOR, "-n", "20", "-q", "--out", str(run)]
                               + common)
        check(r)
        if r.exit_code == 0:      # the run's own data, and new random rows, predicted
            check(CliRunner().invoke(main, ["predict", str(run), "--data", str(f)]))
            g = Path(tmp) / "new.csv"
            g.write_bytes(st_data.draw(csv_files()))
            check(CliRunner().invoke(main, ["predict", str(run), "--data", str(g)]))


# -- slpy learn: random observation files ------------------------------------------------------

COINS = str(ROOT / "examples" / "learn" / "coins.slp")
OBS_LINES = st.one_of(
    st.sampled_from(["s(1, 1)", "s(2, 2) 7", "s(1, x).", "s(2, y). 3", "% note", "",
                     "s(1, 1) 0", "s(X, 1)", "s(3, 3)", "t(1)", "s(1, ", "s(2,2) 99999999",
                     "1.", "'s'(1, 1)", "s(1, x) -2", "\"s\"", "s(1, 1) 2 3"]),
    st.text(max_size=8))


@settings(max_examples=_DEEP or 30, deadline=None, derandomize=not _DEEP, database=None,
          suppress_health_check=[HealthCheck.too_slow])
@given(lines=st.lists(mostly(st.sampled_from(["s(1, 1) 4", "s(2, 2) 5", "s(1, x) 3"]),
                             OBS_LINES), min_size=0, max_size=6),
       args=st.lists(st.sampled_from([["--prior", "dirichlet:2"], ["--prior", "dirichlet:0"],
                                      ["--prior", "beta"], ["--predicates", "a/1"],
                                      ["--predicates", "zz/9"], ["--algorithm", "io"],
                                      ["--goal", "s(1, _)"], ["--goal", "s("],
                                      ["--estimate", "mean"], ["--max-iter", "3"],
                                      ["--min-prob", "0.5"]]), max_size=3))
def test_learn_with_random_observations(lines, args):
    with tempfile.TemporaryDirectory() as tmp:
        f = Path(tmp) / "o.obs"
        f.write_text("\n".join(lines) + "\n", encoding="utf-8")
        cmd = ["learn", COINS, "--data", str(f), "-q", "-o", str(Path(tmp) / "l.slp")]
        check(CliRunner().invoke(main, cmd + [a for pair in args for a in pair]))
