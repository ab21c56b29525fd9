"""slpy's exceptions cross process boundaries intact (chains run in joblib, dask and
Ray workers, whose exceptions come back pickled): every exception class slpy defines,
found by importing every module."""
import importlib
import pickle
from pathlib import Path

import pytest

from slpy.data import DataError, MissingValueError
from slpy.lang.reader import _Fail
from slpy.lang.syntax_errors import SlpSyntaxError, SlpSyntaxErrors
from slpy.lang.tokens import LexicalError
from slpy.logic.kinds import Halt, LimitExceeded, TraceFrom
from slpy.logic.program import LoadError, LoadErrors
from slpy.terms.errors import type_error
from slpy.terms.term import atom, Struct, Var
from slpy.errors import RunError, WorkerError, portable
from slpy.pcfg.grammar import GrammarTooLarge
from slpy.pcfg.tabled import CompileError, NotInFragment
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
    MissingValueError("/tmp/d.csv", "line 4: a missing value in column age"),
    LoadError("/tmp/p.slp:3: the label x of coin/1 is not a number"),
    NotInFragment("a stochastic goal that is not ground", "coin(X)"),
    _Fail(4, "operator_expected", "operator expected", 2),
    TraceFrom(None),
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


def slpy_exceptions() -> dict:
    """Every exception class defined in a module of slpy, by qualified name."""
    import slpy
    root = Path(slpy.__file__).parent
    found = {}
    for f in sorted(root.rglob("*.py")):
        parts = f.relative_to(root.parent).with_suffix("").parts
        name = ".".join(parts[:-1] if parts[-1] == "__init__" else parts)
        module = importlib.import_module(name)
        for obj in vars(module).values():
            if isinstance(obj, type) and issubclass(obj, BaseException) \
                    and obj.__module__ == name:
                found[f"{name}.{obj.__qualname__}"] = obj
    return found


def _has_own_init(cls) -> bool:
    return any("__init__" in vars(k) for k in cls.__mro__ if k.__module__.startswith("slpy"))


def test_every_exception_slpy_defines_round_trips_through_pickle():
    examples = {type(e): e for e in EXAMPLES}
    classes = slpy_exceptions()
    assert len(classes) > 20
    for name, cls in classes.items():
        if cls in examples:
            e = examples[cls]
        else:
            # a class whose __init__ takes other arguments needs an example above
            assert not _has_own_init(cls), f"add an example of {name} to EXAMPLES"
            e = cls("the message for the user")
            e.detail = ("an", "attribute")
        back = pickle.loads(pickle.dumps(e))
        assert type(back) is cls, name
        assert str(back) == str(e) and back.args == e.args, name
        assert {k: str(v) for k, v in vars(back).items()} == \
            {k: str(v) for k, v in vars(e).items()}, name


def test_an_error_that_does_not_pickle_travels_as_a_worker_error():
    class Local(Exception):          # a class pickle cannot find by name
        pass
    sent = portable(Local("the prior's builtin failed\nsecond line"))
    assert type(sent) is WorkerError
    assert str(sent) == "Local: the prior's builtin failed"
    ok = RunError("fine")
    assert portable(ok) is ok
