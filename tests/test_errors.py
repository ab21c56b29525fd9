"""slpy's exceptions cross process boundaries intact (chains run in joblib workers,
whose exceptions come back pickled)."""
import pickle

import pytest

from slpy.data import DataError
from slpy.lang.reader import SlpSyntaxError, SlpSyntaxErrors
from slpy.lang.tokens import LexicalError
from slpy.logic.kinds import Halt, LimitExceeded
from slpy.logic.program import LoadError, LoadErrors
from slpy.terms.errors import type_error
from slpy.terms.term import atom, Struct, Var
from slpy.mcmc.run import RunError
from slpy.pcfg.grammar import GrammarTooLarge
from slpy.pcfg.tabled import CompileError
from slpy.report import ReportError
from slpy.trees.term import ModelTermError


def _syntax(line):
    return SlpSyntaxError("operator expected", "/tmp/p.slp", line, 7, "a b c.")


EXAMPLES = [
    DataError("/tmp/d.csv", "line 3 has 2 fields, the header has 4"),
    LexicalError("bad_escape", "undefined escape sequence", 3),
    LoadErrors([LoadError("/tmp/p.slp:2: foo/1 mixes labelled and unlabelled clauses"),
                _syntax(4)]),
    _syntax(1),
    SlpSyntaxErrors([_syntax(1), _syntax(9)]),
    type_error("integer", Struct("f", (Var(), atom("a")))),
    LimitExceeded(Struct("error", (Struct("resource_error", (atom("time"),)), Var())),
                  "Resource error: time limit of 1 s exceeded"),
    Halt(3),
    RunError("--iterations must be at least 1"),
    ReportError("runs/x: not a run directory (no config.json)"),
    CompileError("not in the fragment"),
    GrammarTooLarge("more than 100 row sets"),
    ModelTermError("not a model term: foo"),
]


@pytest.mark.parametrize("e", EXAMPLES, ids=lambda e: type(e).__name__)
def test_round_trip_keeps_type_message_and_attributes(e):
    back = pickle.loads(pickle.dumps(e))
    assert type(back) is type(e)
    assert str(back) == str(e)
    for name in ("errors", "source", "kind", "offset", "code", "line", "col", "filename"):
        if hasattr(e, name):
            assert str(getattr(back, name)) == str(getattr(e, name)), name


def test_load_errors_keep_their_list():
    e = EXAMPLES[2]
    back = pickle.loads(pickle.dumps(e))
    assert [str(x) for x in back.errors] == [str(x) for x in e.errors]
    assert str(back).splitlines()[1] == "/tmp/p.slp:4:7: operator expected"
