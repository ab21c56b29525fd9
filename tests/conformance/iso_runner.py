"""Run the ECLiPSe ISO test patterns (../shared/prolog-suites/eclipse_iso_tst/iso.tst).

    python -m tests.conformance.iso_runner [--doc docs/conformance.md] [--verbose]

prints the pass rate over the sections the engine issue covers (everything but
8.11-8.14, streams and I/O, and 8.17, flags) and can write the list of failures with
their reasons to docs/conformance.md.
"""
from __future__ import annotations

import argparse
import re
import sys
import time
from dataclasses import dataclass
from pathlib import Path

from slpy import Program
from slpy.terms.term import Struct, Atom, Var, deref, PrologError
from slpy.terms.unify import unify, undo_to, variant
from slpy.terms.writer import term_to_text

SUITE = Path(__file__).resolve().parents[3] / "shared" / "prolog-suites" / "eclipse_iso_tst"
EXCLUDED = ("8.11", "8.12", "8.13", "8.14", "8.17")

FIXTURES = {
    "iso_8_8": """
        :- dynamic(cat/0). cat.
        :- dynamic(dog/0). dog :- true.
        elk(X) :- moose(X).
        :- dynamic(legs/2). legs(A, 6) :- insect(A). legs(A, 7) :- A, call(A).
        :- dynamic(insect/1). insect(ant). insect(bee).
    """,
    "iso_8_10": """
        a(1, f(_)). a(2, f(_)).
        b(1, 1). b(1, 1). b(1, 2). b(2, 1). b(2, 2). b(2, 2).
        d(1, 1). d(1, 2). d(1, 1). d(2, 2). d(2, 1). d(2, 2).
    """,
}

# Why a pattern fails, where slpy follows SWI-Prolog (our users' reference) rather than
# iso.tst's expectation. Keyed by the pattern's line in iso.tst (a file we never edit).
_POW_ZERO = ("SWI-Prolog: zero to a negative power raises evaluation_error(zero_divisor); "
             "iso.tst (ECLiPSe) expects 1.0Inf")
REASONS = {
    227: "SWI-Prolog: arg/3 with an unbound index enumerates the arguments",
    334: "SWI-Prolog: clause/2 may inspect static user predicates (listing/1 and "
         "meta-programs rely on it); ISO asks for a permission error",
    466: "^/2 is defined as a goal that calls its second argument (as in SWI-Prolog), "
         "so it is not an undefined procedure here",
    517: "^/2 is defined as a goal that calls its second argument (as in SWI-Prolog), "
         "so it is not an undefined procedure here",
    1381: "SWI-Prolog: rem/2 is evaluable and rem(1,0) raises zero_divisor; iso.tst "
          "expects rem/2 not to exist",
    1383: "SWI-Prolog (prefer_rationals=false): integer ** integer is an integer (125)",
    1390: "SWI-Prolog: a negative base with an integral float exponent gives -8.0",
    1391: "SWI-Prolog: a negative base with an integral float exponent gives -8.0",
    1393: _POW_ZERO, 1394: _POW_ZERO, 1395: _POW_ZERO, 1417: _POW_ZERO, 1418: _POW_ZERO,
    1419: _POW_ZERO,
    1467: "SWI-Prolog and C: round/1 rounds half away from zero",
    1468: "SWI-Prolog and C: round/1 rounds half away from zero",
    1472: "SWI-Prolog: log(0) raises evaluation_error(undefined); iso.tst expects -1.0Inf",
    1473: "SWI-Prolog: log(0) raises evaluation_error(undefined); iso.tst expects -1.0Inf",
}

HELPERS = """
iso_test_variant(X, Y) :- X =@= Y.
iso_test_same_members(Xs, Ys) :- msort(Xs, S), msort(Ys, S).
iso_test_os(unix).
iso_test_non_repositionable_stream(_) :- fail.
iso_test_ensure_loaded(F) :- '$iso_fixture'(F).
"""


@dataclass
class Outcome:
    line: int
    section: str
    text: str
    passed: bool
    reason: str


def sections(text: str):
    """(start line, section number) of each section header."""
    out = []
    for i, ln in enumerate(text.splitlines(), 1):
        m = re.match(r"%-+\s*([0-9][0-9.]*)\s", ln)
        if m:
            out.append((i, m.group(1).rstrip(".")))
    return out


def section_of(line, heads):
    sec = "?"
    for start, num in heads:
        if start <= line:
            sec = num
    return sec


def excluded(sec: str) -> bool:
    return any(sec == e or sec.startswith(e + ".") for e in EXCLUDED)


def make_program():
    p = Program(max_steps=200_000, timeout=5.0)
    # iso.tst is ISO Prolog: "..." is a code list there (slpy's default is a string,
    # as in SWI-Prolog 7)
    p.flags["double_quotes"] = "codes"
    p.out = lambda s: None
    p.engine.out = p.out
    p.consult_text(HELPERS, "iso_helpers")
    from slpy.logic.builtins import BUILTINS  # noqa: F401

    def fixture(eng, name):
        name = deref(name)
        src = FIXTURES.get(getattr(name, "name", ""), None)
        if src is None:
            return False
        p.consult_text(src, name.name)
        return True

    pred = p.db.get("$iso_fixture", 1)
    from slpy.logic.db import DET
    pred.kind, pred.fn, pred.defined, pred.builtin = DET, fixture, True, True
    return p


def _solutions(p, goal):
    return p.engine.solve(goal)


def _subsumes(general, specific) -> bool:
    from slpy.terms.walk import copy_term, term_variables
    trail = []
    g = copy_term(general)
    before = [deref(v) for v in term_variables(specific)]
    ok = unify(g, specific, trail) and all(
        type(deref(v)) is Var for v in before) and len(
        {id(deref(v)) for v in before}) == len(before)
    undo_to(trail, 0)
    return ok


def run_pattern(p, term) -> tuple[bool, str]:
    term = deref(term)
    eng = p.engine
    name = term.name if type(term) is Struct else getattr(term, "name", "")
    try:
        if name == "should_fail":
            goal = term.args[0]
            for _ in _solutions(p, goal):
                return False, "succeeded"
            return True, ""
        if name == "should_give":
            goal, check = term.args
            check = deref(check)
            if type(check) is Struct and check.name == "multiple_solutions" \
                    and len(check.args) == 3:
                k, total, each = check.args
                count = 0
                for _ in _solutions(p, goal):
                    count += 1
                    mark = len(eng.trail)
                    if not unify(k, count, eng.trail):
                        return False, f"K does not unify at solution {count}"
                    ok = any(True for _ in _solutions(p, each))
                    undo_to(eng.trail, mark)
                    if not ok:
                        return False, f"check failed at solution {count}"
                mark = len(eng.trail)
                unify(k, count, eng.trail)
                ok = any(True for _ in _solutions(p, total))
                undo_to(eng.trail, mark)
                return (True, "") if ok else (False, f"{count} solutions")
            for _ in _solutions(p, goal):
                for _ in _solutions(p, check):
                    return True, ""
                return False, "check failed: " + term_to_text(goal, quoted=True)
            return False, "failed"
        if name == "should_throw":
            goal, expected = term.args
            try:
                for _ in _solutions(p, goal):
                    return False, "succeeded"
                return False, "failed"
            except PrologError as e:
                ball = deref(e.term)
                exp = deref(expected)
                # the pattern must subsume the ball; for error(F, _) only F counts
                if type(exp) is Struct and exp.name == "error" and len(exp.args) == 2 \
                        and type(ball) is Struct and ball.name == "error":
                    if _subsumes(exp.args[0], ball.args[0]):
                        return True, ""
                elif _subsumes(exp, ball):
                    return True, ""
                return False, "threw " + term_to_text(ball, quoted=True)
        return False, "unknown pattern"
    except PrologError as e:
        return False, "error: " + term_to_text(deref(e.term), quoted=True)[:200]
    except RecursionError:
        return False, "python recursion"


def run(verbose=False):
    path = SUITE / "iso.tst"
    text = path.read_text()
    heads = sections(text)
    p = make_program()
    from slpy.lang.reader import Reader
    ops = p.ops.copy()
    ops.add(1200, "fy", "fixme")
    ops.add(1110, "xf", "should_fail")
    ops.add(1110, "xfx", "should_give")
    ops.add(1110, "xfx", "should_throw")
    flags = dict(p.flags)
    flags["double_quotes"] = "codes"
    reader = Reader(ops, flags)
    outcomes = []
    lines = text.splitlines()
    it = reader.read_clauses(text, str(path))
    while True:
        try:
            r = next(it)
        except StopIteration:
            break
        except Exception as e:  # a pattern our reader rejects
            if hasattr(e, "errors"):
                for err in e.errors:
                    sec = section_of(err.line, heads)
                    if not excluded(sec):
                        outcomes.append(Outcome(err.line, sec, lines[err.line - 1].strip(),
                                                False, "syntax: " + err.message))
                break
            line = getattr(e, "line", 0)
            sec = section_of(line, heads)
            if not excluded(sec):
                outcomes.append(Outcome(line, sec, lines[line - 1].strip() if line else "",
                                        False, "syntax: " + str(e)))
            continue
        if not hasattr(r, "term"):  # a syntax error yielded in line
            line = getattr(r, "line", 0)
            sec = section_of(line, heads)
            if not excluded(sec):
                outcomes.append(Outcome(line, sec, lines[line - 1].strip(), False,
                                        "syntax: " + getattr(r, "message", str(r))))
            continue
        sec = section_of(r.line, heads)
        term = deref(r.term)
        if excluded(sec) or (type(term) is Struct and term.name == "fixme"):
            continue
        t0 = time.monotonic()
        ok, why = run_pattern(p, term)
        src = lines[r.line - 1].strip()
        outcomes.append(Outcome(r.line, sec, src, ok, why))
        if verbose and not ok:
            print(f"FAIL {r.line} [{sec}] {src}: {why} ({time.monotonic() - t0:.2f}s)")
    return outcomes


def write_doc(outcomes, path: Path):
    passed = sum(o.passed for o in outcomes)
    total = len(outcomes)
    out = [
        "# Conformance",
        "",
        "How slpy's Prolog compares with the ISO standard and with SWI-Prolog: the ISO",
        "test patterns first, then every builtin and library against SWI-Prolog's.",
        "",
        "## ISO test patterns",
        "",
        "The ECLiPSe ISO test patterns (`../shared/prolog-suites/eclipse_iso_tst/iso.tst`,",
        "Joachim Schimpf, public domain), run by `python -m tests.conformance.iso_runner`",
        "over every section but 8.11-8.14 (streams and I/O) and 8.17 (flags), which the",
        "engine does not cover; `fixme` patterns are skipped. The patterns are ISO Prolog,",
        "so they are read and run with the flag `double_quotes` set to `codes` (slpy's",
        "default, as SWI-Prolog 7's, is `string`).",
        "",
        f"**{passed} of {total} patterns pass ({100.0 * passed / total:.1f}%).**",
        "(SWI-Prolog 9.0.4 passes 732 of all 953 patterns.)",
        "",
        "### Failures",
        "",
        "Each failing pattern, what slpy did, and why. Every one is a place where slpy",
        "deliberately behaves as SWI-Prolog does; a failure without a reason is a bug.",
        "",
        "| line | section | pattern | what happened | why |",
        "|---|---|---|---|---|",
    ]
    for o in outcomes:
        if not o.passed:
            pat = o.text.replace("|", "\\|")[:90]
            what = o.reason.replace("|", "\\|").replace("\n", " ")[:120]
            why = REASONS.get(o.line, "**not yet explained: a bug to fix**")
            out.append(f"| {o.line} | {o.section} | `{pat}` | {what} | {why} |")
    from .builtins_doc import section
    path.write_text("\n".join(out) + "\n\n" + section())


def main(argv=None):
    ap = argparse.ArgumentParser()
    ap.add_argument("--doc", type=Path)
    ap.add_argument("--verbose", action="store_true")
    a = ap.parse_args(argv)
    outcomes = run(a.verbose)
    passed = sum(o.passed for o in outcomes)
    print(f"ISO patterns (outside 8.11-8.14, 8.17): {passed}/{len(outcomes)} pass "
          f"({100.0 * passed / len(outcomes):.1f}%)")
    if a.doc:
        write_doc(outcomes, a.doc)


if __name__ == "__main__":
    main()
