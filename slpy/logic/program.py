"""The Program: clause store, loader and the Python API over the engine."""
from __future__ import annotations

import math
import sys
from dataclasses import dataclass
from pathlib import Path

from ..lang.clauses import split_clause
from ..lang.dcg import dcg_transform
from ..lang.syntax_errors import SlpSyntaxError
from ..terms.errors import domain_error, permission_error
from ..terms.ops import OpTable
from ..terms.term import Atom, Struct, deref, PrologError, indicator
from ..terms.walk import is_ground, resolve
from . import builtins as _builtins
from . import plugins as _plugins
from .arith import eval_arith
from .compile import CompileContext, compile_clause, check_body
from .db import Database, Clause, first_arg_key, USER, DET, NONDET, STOCH, SBUILTIN
from .engine import Engine
from .kinds import CONTROL_PREDS, SAMPLE, PURE, ENUM, Halt
from .sandbox import (LOAD_TIMEOUT, Sandbox, directive_limits, load_budget,
                      relative_to_loading)
from .sources import LoadError, LoadErrors, _source_path, _source_text  # noqa: F401

LIBRARY = Path(__file__).with_name("library.pl")
_FILE_LOCAL_FLAGS = ("double_quotes", "back_quotes")


@dataclass
class Sample:
    """One sampled answer: its bindings, proof tree and log probability."""
    bindings: dict
    tree: object
    log_prob: float

    def _repr_html_(self) -> str:      # what a notebook shows (slpy.logic.display)
        from .display import sample_html
        return sample_html(self)


@dataclass
class Proof:
    """One refutation found by exhaustive enumeration, with its probability."""
    bindings: dict
    prob: float
    tree: object

    def _repr_html_(self) -> str:      # what a notebook shows (slpy.logic.display)
        from .display import sample_html
        return sample_html(self)


def _load_builtin_modules():
    # importing registers the core builtins; here, not at the top, because the reader
    # they use loads lark, which a plain `import slpy` does without
    from .builtins import (aggregate, arith_bi, atoms, chartype, checking,  # noqa: F401
                           control, dbbi, grammar, listbi, listing, loading, output,
                           debugbi, randombi, reading, sorting, stream_io, strings, suspend,
                           system, tabled, termbi, typecheck, uniform)
    from . import rationals  # noqa: F401


class Program:
    """An SLP program: consult files or text, then query, sample or enumerate proofs.

    Every program has the core builtins and the plugins it is given (``plugins``: a
    list of :class:`~slpy.logic.plugins.Plugin`), by default every registered one:
    slpy's data, PCFG and network builtins, and any a user registered.

    >>> p = Program()
    >>> p.consult_text("0.5 :: coin(head). 0.5 :: coin(tail).")
    >>> [str(a['X']) for a in p.query("coin(X)")]
    ['head', 'tail']

    Queries have no limits unless given (``max_steps``, ``timeout`` in seconds,
    ``max_memory`` in bytes). Loading a file with consult or consult_text has its
    own: ``load_timeout`` seconds for the whole load (None: none) and ``max_memory``
    or the default memory limit (slpy.logic.sandbox). The files a program asks to
    load must be below the folder of a file loaded here or a folder of ``allow_load``.
    """

    def __init__(self, max_steps: int | None = None, timeout: float | None = None,
                 max_term_size: int = 10_000_000, max_memory: int | None = None, out=None,
                 plugins=None, load_timeout: float | None = LOAD_TIMEOUT, allow_load=()):
        _load_builtin_modules()
        if plugins is None:
            plugins = _plugins.registered()
        self.plugins = {p.name: p for p in plugins}
        self.db = Database()
        self.flags = {"double_quotes": "string", "unknown": "error", "bounded": "false",
                      "max_integer": sys.maxsize, "min_integer": -sys.maxsize - 1,
                      "integer_rounding_function": "toward_zero", "max_arity": "unbounded",
                      "debug": "off", "char_conversion": "off", "occurs_check": "false",
                      "sampling": "backtrackable", "prefer_rationals": "false"}
        self.ops = OpTable()
        self.out = out if out is not None else (lambda s: sys.stdout.write(s))
        self.engine = Engine(self.db, self.flags, self.ops, self.out, max_steps=max_steps,
                             timeout=timeout, max_term_size=max_term_size,
                             max_memory=max_memory)
        self.engine.program = self
        self.ctx = CompileContext(self.db, CONTROL_PREDS, self.engine)
        self.loaded_files: dict[str, float] = {}
        self._loading_file = None
        self.load_timeout = load_timeout
        self.sandbox = Sandbox(allow_load)
        self._budget = None           # the limits of the load running (sandbox.py)
        self._wiped: set = set()
        self.params: dict = {}
        self.param_overrides: dict = {}
        self.param_domains: dict = {}   # name -> (domain term, the file declaring it)
        for key, p in CONTROL_PREDS.items():
            if key != ("::", 2):
                self.db.preds[key] = p
        for table in [_builtins.BUILTINS] + [p.builtins for p in self.plugins.values()]:
            for (name, arity), (kind, fn) in table.items():
                p = self.db.get(name, arity)
                p.kind = {"det": DET, "nondet": NONDET, "stochastic": SBUILTIN}[kind]
                p.fn = fn
                p.defined = True
                p.builtin = True
        self.libraries: set = set()
        self.tabled: dict = {}      # (name, arity) -> the name of its clauses' predicate
        self.engine.autoload = self._autoload
        self._consult_text(LIBRARY.read_text(), str(LIBRARY), library=True)

    # -- libraries loaded on first use (slpy/logic/lib, see slpy.logic.autoload) -----
    def load_library(self, name: str) -> bool:
        """Load library(name) once; False when slpy has no such library file."""
        from .autoload import library_path
        if name in self.libraries:
            return True
        path = library_path(name)
        if path is None:
            return False
        self.libraries.add(name)
        prev = self._loading_file
        try:
            self._consult_text(path.read_text(), str(path), library=True)
        finally:
            self._loading_file = prev
        return True

    def _autoload(self, pred) -> bool:
        """Called for an undefined predicate: load the library exporting it."""
        from .autoload import exports
        lib = exports().get((pred.name, pred.arity))
        if lib is None or lib in self.libraries:
            return False
        return self.load_library(lib) and (pred.defined or pred.dynamic)

    # -- loading ------------------------------------------------------------------
    def _outside(self) -> bool:
        """Called by the program's user, not by a running query or load."""
        return self._loading_file is None and not self.engine.cps

    def consult(self, path) -> None:
        """Load a .slp or .pl file (reloading it replaces its predicates); the files
        it asks to load may be below its folder."""
        if self._outside():
            self.sandbox.allow_file(path)
        with load_budget(self):
            self._consult_file(_source_path(Path(path)))

    def load_file(self, name: str) -> None:
        """Load a file the program asks for (consult/1 and the like): a relative name
        is found next to the file being loaded; a file outside the allowed folders is
        a permission error (slpy.logic.sandbox)."""
        path = relative_to_loading(self._loading_file, name)
        self.sandbox.check(path, name)
        with load_budget(self):
            self._consult_file(_source_path(Path(path)))

    def _consult_file(self, path: Path) -> None:
        text = _source_text(path)
        self.loaded_files[str(path.resolve())] = path.stat().st_mtime
        self._consult_text(text, str(path))

    def consult_text(self, text: str, filename: str = "<string>") -> None:
        """Load clauses from text, as from the file `filename` (its folder is the one
        files may be loaded from)."""
        if self._outside() and filename != "<string>":
            self.sandbox.allow_file(filename)
        with load_budget(self):
            self._consult_text(text, filename)

    def _consult_text(self, text, filename, library=False):
        from ..lang.reader import Reader  # lark: not on `import slpy`
        errors = []
        prev = self._loading_file
        self._loading_file = filename
        wiped = set()
        init_goals = []
        # as in SWI-Prolog, a file's set_prolog_flag(double_quotes, ...) is its own
        lex = {k: self.flags[k] for k in _FILE_LOCAL_FLAGS if k in self.flags}
        try:
            reader = Reader(self.ops, self.flags)
            results = reader.read_clauses(text, filename)
            while True:
                try:
                    r = next(results)
                except StopIteration:
                    break
                except SlpSyntaxError as e:
                    errors.append(e)
                    continue
                except Exception as e:  # the reader's container of several errors
                    if hasattr(e, "errors"):
                        errors.extend(e.errors)
                        break
                    raise
                if isinstance(r, SlpSyntaxError):
                    errors.append(r)
                    continue
                try:
                    self._load_term(r.term, filename, r.line, wiped, library, init_goals,
                                    r.varnames)
                except LoadError as e:
                    errors.append(e)
                except PrologError as e:
                    errors.append(LoadError(f"{filename}:{r.line}: {e}", e.term))
        finally:
            self._loading_file = prev
            self.flags.update(lex)
        self._loading_file = filename     # the file's initialization goals run as its
        try:
            for g, line in init_goals:
                self._run_directive(g, filename, line, errors)
        finally:
            self._loading_file = prev
        if errors:
            raise LoadErrors(errors)

    def _load_term(self, term, filename, line, wiped, library, init_goals, varnames=None):
        term = deref(term)
        if type(term) is Struct and term.name == ":-" and len(term.args) == 1:
            goal = deref(term.args[0])
            if type(goal) is Struct and goal.name == "initialization":
                init_goals.append((goal.args[0], line))
                return
            errs = []
            self._run_directive(goal, filename, line, errs)
            if errs:
                raise errs[0]
            return
        if type(term) is Struct and term.name == "?-" and len(term.args) == 1:
            errs = []
            self._run_directive(term.args[0], filename, line, errs)
            if errs:
                raise errs[0]
            return
        if type(term) is Struct and term.name == "-->" and len(term.args) == 2:
            term = dcg_transform(term)
        self.add_clause(term, filename=filename, line=line, wiped=wiped, library=library)

    def _run_directive(self, goal, filename, line, errors):
        try:
            ok = False
            with directive_limits(self):
                for _ in self.engine.solve(goal):
                    ok = True
                    break
            if not ok:
                sys.stderr.write(f"Warning: {filename}:{line}: goal (directive) failed\n")
        except Halt as h:
            if getattr(h, "where", None) is None:
                h.where = f"{filename}:{line}"      # for the message that reports it
            raise
        except PrologError as e:
            errors.append(LoadError(f"{filename}:{line}: {e}", e.term))

    def add_clause(self, term, first=False, filename=None, line=None, wiped=None,
                   library=False, _wrapper=False):
        """Compile and add one clause (consult and assert/1 come here)."""
        parts = split_clause(term)
        head = parts.head
        name = head.name
        arity = len(head.args) if type(head) is Struct else 0
        impl = self.tabled.get((name, arity)) if self.tabled else None
        if impl is not None and not _wrapper:    # a tabled predicate's own clauses
            name = impl
            head = parts.head = Struct(impl, head.args) if arity else Atom(impl)
        pred = self.db.get(name, arity)
        where = f"{filename}:{line}: " if filename else ""
        if pred.builtin or (name, arity) in CONTROL_PREDS or name in (",", ";", "->"):
            raise LoadError(
                f"{where}No permission to modify static procedure `{name}/{arity}'",
                permission_error("modify", "static_procedure", indicator(name, arity)).term)
        if filename is not None and wiped is not None and (name, arity) not in wiped:
            # (re)consulting: a file's clauses replace earlier definitions from that file
            # or from the library
            wiped.add((name, arity))
            if getattr(pred, "library", False) and not library or filename in pred.files:
                pred.clear()
                pred.kind = USER
            pred.files.add(filename)
            pred.library = library
        labelled = parts.label is not None
        if pred.clauses and (pred.kind == STOCH) != labelled:
            raise LoadError(
                f"{where}{name}/{arity} mixes labelled and unlabelled clauses "
                f"(an SLP predicate must label every clause)",
                domain_error("labelled_clause" if pred.kind == STOCH else "unlabelled_clause",
                             head).term)
        if parts.body is not None:
            try:
                check_body(parts.body, parts.body)
            except PrologError as e:
                raise LoadError(f"{where}{e}", e.term)
        fn = compile_clause(self.ctx, head, parts.body, parts.label, parts.guard)
        c = Clause(head, parts.body, fn, first_arg_key(deref(head.args[0]))
                   if arity else None, parts.label, parts.guard, filename, line)
        if labelled:
            pred.kind = STOCH
            lab = deref(parts.label)
            if is_ground(lab):
                try:
                    value = eval_arith(lab)
                except PrologError as e:
                    raise LoadError(f"{where}label of {name}/{arity}: {e}", e.term)
                if type(value) is float and not math.isfinite(value) or value < 0:
                    raise LoadError(f"{where}the label of {name}/{arity} is {value}: a label "
                                    "must be a finite number >= 0")
                c.ground_label = value
            if parts.guard is not None or not is_ground(lab):
                # pure sampling normalises over the clauses whose guard unifies
                c.label_fn = compile_clause(self.ctx, Atom("$label"), None, parts.label,
                                            parts.guard)
        if first:
            pred.add_first(c)
        else:
            pred.add_last(c)
        return c

    def table(self, name: str, arity: int) -> None:
        """Table name/arity (the :- table directive): its clauses, those already
        loaded and those to come, go to a predicate of their own that the tables'
        driver calls (slpy.logic.tabling)."""
        from .tabling import impl_name, wrapper_clause
        key = (name, arity)
        if key in self.tabled:
            return
        pred = self.db.get(name, arity)
        if pred.builtin or key in CONTROL_PREDS:
            raise permission_error("modify", "static_procedure", indicator(name, arity))
        old = list(pred.clauses)
        pred.clear()
        pred.kind = USER
        self.tabled[key] = impl_name(name)
        pred.tabled = self.db.get(impl_name(name), arity)
        pred.tabled.files = set(pred.files)
        pred.tabled.defined = True     # no clauses yet: a call fails
        for c in old:
            self.add_clause(c.term(), filename=c.file, line=c.line)
        self.add_clause(wrapper_clause(name, arity), _wrapper=True)

    # -- data (for the plugins' builtins) ---------------------------------------------------
    dataset = None      # set by attach_data
    rowsets = None

    def attach(self, plugin: str, data) -> None:
        """Give an installed plugin's builtins the data they work on (the "bn" plugin:
        a slpy.bn.data.DiscreteData for bn_variables/1)."""
        p = self.plugins.get(plugin)
        if p is None:
            raise ValueError(f"this program has no {plugin!r} plugin (it has: "
                             f"{', '.join(self.plugins) or 'none'})")
        p.attach(self, data)

    def attach_data(self, dataset) -> None:
        """Make a Dataset's predictors available to the prior's data builtins
        (data_rows/1, uniform_split/3, ...): sets ``dataset`` and ``rowsets``, its row
        sets."""
        self.attach("data", dataset)

    # -- parameters (prior hyperparameters, overridable from the CLI and API) ----------
    def set_param(self, name: str, value) -> None:
        """Override the parameter `name` (a number or a term). A value outside the
        domain the prior declares (``:- param(Name, Default, Domain).``) is a
        ParamError (a ValueError) naming the parameter, the value and the domain; set
        before the prior loads, check_params() checks it."""
        if name in self.param_domains:
            from .params import check_value
            check_value(name, value, *self.param_domains[name])
        self.param_overrides[name] = value

    def check_params(self) -> None:
        """Check every overridden parameter against its declared domain (ParamError)."""
        from .params import check_value
        for name, value in self.param_overrides.items():
            if name in self.param_domains:
                check_value(name, value, *self.param_domains[name])

    # -- querying -------------------------------------------------------------------------
    def parse_query(self, text: str):
        from ..lang.reader import read_term_from_text  # lark: not on `import slpy`
        term, varnames = read_term_from_text(text, self.ops, self.flags)
        return term, varnames

    def query(self, text: str):
        """Yield one dict (variable name -> term) per solution, in Prolog order."""
        goal, varnames = self.parse_query(text)
        for _ in self.engine.solve(goal):
            yield {n: resolve(v) for n, v in varnames.items() if not n.startswith("_")}

    def once(self, text: str):
        """The first solution's bindings, or None."""
        for b in self.query(text):
            return b
        return None

    def sample(self, text: str, rng=None, pure: bool = False, record: bool = False):
        """One sampled answer (Sample) or None when the sample fails."""
        import numpy as np  # not on `import slpy`
        if rng is None:
            rng = np.random.default_rng()
        goal, varnames = self.parse_query(text)
        ok, tree, logp = self.engine.run_sampling(goal, rng, PURE if pure else SAMPLE,
                                                  record=record)
        if not ok:
            return None
        b = {n: resolve(v) for n, v in varnames.items() if not n.startswith("_")}
        return Sample(b, tree, logp)

    def listing(self, spec: str | None = None) -> str:
        """The clauses of the user predicates, or of ``spec`` (``"name"`` or
        ``"name/arity"``), as listing/1 writes them."""
        from .builtins.listing import listing
        goal = None if spec is None else self.parse_query(spec)[0]
        out: list = []
        saved = self.engine.out
        self.engine.out = out.append
        try:
            listing(self.engine, goal)
        finally:
            self.engine.out = saved
        return "".join(out)

    def portray_clause(self, clause) -> str:
        """A clause (a term, or its text) as portray_clause/1 writes it."""
        from .builtins.listing import clause_text
        if isinstance(clause, str):
            clause = self.parse_query(clause)[0]
        return clause_text(clause, self.ops)

    def proofs(self, text: str, min_prob: float = 0.0, max_proofs: int | None = None):
        """Every refutation of a stochastic query with its probability (pure SLP
        semantics: labels normalised over all clauses of their predicate)."""
        goal, varnames = self.parse_query(text)
        out = []
        for s in self.engine.solutions(goal, ENUM, min_prob=min_prob):
            b = {n: resolve(v) for n, v in varnames.items() if not n.startswith("_")}
            out.append(Proof(b, math.exp(s.log_prob), s.tree))
            if max_proofs is not None and len(out) >= max_proofs:
                break
        return out
