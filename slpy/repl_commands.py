"""The top level's own predicates, and the text it shows: listings, help and proof trees.

The commands are registered on one session's Program only (never in the global builtin
table), as library predicates: a program that defines a predicate of the same name and
arity replaces the command, as a user definition overrides a library predicate in
SWI-Prolog. Being predicates, they also work inside conjunctions
(``set_seed(1), sample(coin(X), 100, F)``).

    help/0, help/1             the top level's keys and commands; one predicate's summary
    make/0                     reconsult the loaded files that changed on disk
    consult/1, [File|Files]    load files; load errors are printed and loading goes on
    set_seed/1                 restart the session's random generator from a seed
    sampling/1                 read or set the sampling mode: backtrackable or pure
    prob/2, prob/3             exhaustive probability of a goal (sum over refutations)
    sample/3                   N independent samples of a goal, as Instance-Count pairs
    proof_tree/0               the proof tree of the last stochastic answer
"""
from __future__ import annotations

import math
import os

from .logic.db import DET, STOCH, SBUILTIN, USER
from .logic.kinds import ENUM, PURE, SAMPLE, SampleFailed
from .terms.term import Atom, Struct, Var, atom, deref, list_items, mklist, compare
from .terms.walk import copy_term, resolve
from .terms.errors import instantiation_error, type_error, domain_error
from .terms.unify import undo_to
from .terms.writer import term_to_text
from .logic.proof_text import _call_text, _text
from .logic.builtins.listing import _spec

# -- registering ------------------------------------------------------------------------


def register(session) -> None:
    """Give the session's Program the top-level commands (see the module docstring)."""
    p = session.program

    def add(name, arity, fn, builtin=False):
        pred = p.db.get(name, arity)
        pred.clear()
        pred.kind = DET
        pred.fn = fn
        pred.defined = True
        pred.builtin = builtin
        pred.library = not builtin

    add("help", 0, lambda eng: _help0(session))
    add("help", 1, lambda eng, spec: _help1(session, spec))
    add("make", 0, lambda eng: _make(session))
    # consult/1 stays a (protected) builtin; the session's version reports load errors
    # and goes on, as SWI-Prolog does
    add("consult", 1, lambda eng, files: _consult(session, files), builtin=True)
    add(".", 2, lambda eng, h, t: _consult(session, Struct(".", (h, t))))
    add("[]", 0, lambda eng: True)   # `[].` consults nothing, as in SWI-Prolog
    add("set_seed", 1, lambda eng, s: _set_seed(session, s))
    add("sampling", 1, lambda eng, m: _sampling(session, m))
    add("prob", 2, lambda eng, g, pr: _prob(session, g, 0.0, pr))
    add("prob", 3, lambda eng, g, m, pr: _prob(session, g, m, pr))
    add("sample", 3, lambda eng, g, n, a: _sample(session, g, n, a))
    add("proof_tree", 0, lambda eng: _proof_tree(session))


COMMANDS = ["listing", "portray_clause", "help", "make", "consult", "set_seed", "sampling",
            "prob", "sample", "proof_tree", "halt"]


# -- loading ------------------------------------------------------------------------------

def _file_names(t):
    t = deref(t)
    if type(t) is Var:
        raise instantiation_error()
    if type(t) is Struct and t.name == "." and len(t.args) == 2:
        items, tail = list_items(t)
        if type(tail) is Var:
            raise instantiation_error()
    else:
        items = [t]
    names = []
    for f in items:
        f = deref(f)
        if type(f) is Var:
            raise instantiation_error()
        if type(f) is Struct and f.name == "library" and len(f.args) == 1:
            continue  # library(lists) and friends are built in
        if type(f) is Atom:
            names.append(f.name)
        elif type(f) is str:
            names.append(f)
        else:
            raise type_error("atom", f)
    return names


def _consult(session, files) -> bool:
    for name in _file_names(files):
        session.consult(name)
    return True


def _make(session) -> bool:
    p = session.program
    for path, mtime in list(p.loaded_files.items()):
        if not os.path.exists(path):
            session.message(f"Warning: {path}: file no longer exists")
            continue
        if os.stat(path).st_mtime != mtime:
            session.message(f"% Reloading {path}")
            session.consult(path)
    return True


# -- randomness and sampling -------------------------------------------------------------------

def _int_arg(t, what="integer"):
    t = deref(t)
    if type(t) is Var:
        raise instantiation_error()
    if type(t) is not int:
        raise type_error(what, t)
    return t


def _set_seed(session, s) -> bool:
    seed = _int_arg(s)
    if seed < 0:
        raise domain_error("not_less_than_zero", seed)
    session.set_seed(seed)
    return True


def _sampling(session, m) -> bool:
    p = session.program
    m = deref(m)
    if type(m) is Var:
        return p.engine.unify(m, atom(p.flags["sampling"]))
    if type(m) is not Atom:
        raise type_error("atom", m)
    if m.name not in ("backtrackable", "pure"):
        raise domain_error("sampling_mode", m)
    p.flags["sampling"] = m.name
    eng = p.engine
    if eng.mode in (SAMPLE, PURE):  # the running query samples with the new mode from now on
        eng.mode = PURE if m.name == "pure" else SAMPLE
    return True


def _float_arg(t):
    t = deref(t)
    if type(t) is Var:
        raise instantiation_error()
    if type(t) is not int and type(t) is not float:
        raise type_error("number", t)
    return float(t)


def _prob(session, goal, min_prob, out) -> bool:
    """prob(Goal, P): P is the sum over all refutations of Goal of the product of the
    labels chosen (labels normalised over all clauses of their predicate: pure SLP
    semantics). prob(Goal, MinProb, P) leaves out refutations less probable than
    MinProb (a lower bound that terminates on priors with infinitely many proofs)."""
    eng = session.program.engine
    min_prob = _float_arg(min_prob)
    goal = copy_term(goal)
    total = 0.0
    for s in eng.solutions(goal, ENUM, min_prob=min_prob):
        total += math.exp(s.log_prob)
    return eng.unify(out, total)


def sample_once(eng, goal, rng, pure):
    """One sample of a copy of goal, at the top level or nested in a running query:
    (instance, log prob, proof log, values) or None when the sample fails; values maps
    each variable of goal to its value in the sample. goal itself is left unbound."""
    mark = len(eng.trail)
    mapping: dict = {}
    copy = copy_term(goal, mapping)
    gen = eng.solutions(copy, PURE if pure else SAMPLE, rng)
    try:
        for s in gen:
            values = {v: resolve(nv) for v, nv in mapping.items()}
            return resolve(copy), s.log_prob, s.plog, values
        return None
    except SampleFailed:
        return None
    finally:
        gen.close()
        del gen
        if len(eng.trail) > mark:
            undo_to(eng.trail, mark)


def _sample(session, goal, n, answers) -> bool:
    """sample(Goal, N, Answers): draw N independent samples of Goal with the session's
    generator and sampling mode; Answers is a list of Instance-Count pairs, most frequent
    first (ties in standard order). Failed samples are not listed."""
    n = _int_arg(n)
    if n < 0:
        raise domain_error("not_less_than_zero", n)
    p = session.program
    eng = p.engine
    pure = p.flags["sampling"] == "pure"
    counts: dict[str, list] = {}
    for _ in range(n):
        r = sample_once(eng, goal, session.rng, pure)
        if r is None:
            continue
        inst = r[0]
        key = term_to_text(inst, quoted=True, ignore_ops=True, numbervars=False,
                           var_names=_numbered_names(inst))
        c = counts.get(key)
        if c is None:
            counts[key] = [inst, 1]
        else:
            c[1] += 1
    import functools
    items = sorted(counts.values(),
                   key=functools.cmp_to_key(lambda a, b: (b[1] - a[1]) or compare(a[0], b[0])))
    return eng.unify(answers, mklist([Struct("-", (i, c)) for i, c in items]))


def _numbered_names(t) -> dict:
    """Names _0, _1, ... in order of first occurrence (a key that identifies variants)."""
    names = {}
    stack = [t]
    while stack:
        x = deref(stack.pop())
        if type(x) is Var:
            if x not in names:
                names[x] = f"_{len(names)}"
        elif type(x) is Struct:
            stack.extend(reversed(x.args))
    return names


def _proof_tree(session) -> bool:
    if session.last_tree is None:
        session.message("% No stochastic answer yet")
        return True
    session.write(format_proof(session.last_tree, session.last_logp, session.program.ops)
                  + "\n")
    return True


# -- proof trees ---------------------------------------------------------------------------------

def _node_choice(n, ops=None) -> str:
    """What a choice point chose: `clause K (file:line)` or `-> Value`."""
    if n.value is not None:
        return "-> " + _text(n.value, ops)
    c = n.key
    where = ""
    if getattr(c, "file", None):
        where = f" ({os.path.basename(c.file)}:{c.line})"
    return f"clause {n.chosen}{where}"


def proof_lines(tree, ops=None, indent="  "):
    """One line per choice point, indented by depth: the call, the choice, its
    probability."""
    stack = [(c, 0) for c in reversed(tree.children)]
    while stack:
        n, depth = stack.pop()
        call = _call_text(n, ops)
        yield f"{indent * depth}{call}  {_node_choice(n, ops)}  p = {n.prob:.4g}"
        stack.extend((c, depth + 1) for c in reversed(n.children))


def format_proof(tree, logp=None, ops=None) -> str:
    """The proof tree as comment lines, for the top level."""
    k = tree.size()
    if logp is None:
        logp = tree.log_prob()
    head = (f"% proof tree: {k} choice point{'s' if k != 1 else ''}, "
            f"p = {math.exp(logp):.4g} (log p = {logp:.4g})")
    return "\n".join([head] + ["%   " + line for line in proof_lines(tree, ops)])


# -- help ------------------------------------------------------------------------------------------

TOPLEVEL_HELP = """\
slpy top level: type a query ending with '.', for example  ?- member(X, [a,b]).

After an answer that has alternatives:
  ;  n  r  space  next answer (a stochastic answer: under backtrackable sampling,
                  draw again among the untried choices; under pure sampling,
                  draw a fresh independent sample)
  Enter  .  c  a  stop
  t               show the proof tree of a stochastic answer
  h  ?            this help

Commands (predicates, usable inside conjunctions too):
  [File].  consult(File)   load .slp/.pl files        make.  reload changed files
  listing.  listing(Name/Arity)                      help(Name/Arity)
  set_seed(Seed)           restart the random generator
  sampling(pure)  sampling(backtrackable)  sampling(Mode)   choose or show the mode
  prob(Goal, P)            exhaustive probability (sum over refutations)
  prob(Goal, MinProb, P)   the same, leaving out refutations less probable than MinProb
  sample(Goal, N, Answers) N samples as Instance-Count pairs, most frequent first
  proof_tree.              the proof tree of the last stochastic answer
  halt.  or Ctrl-D         exit;   Ctrl-C interrupts a running query
"""

# template and one-line description of the commonly used builtins
HELP: dict[str, tuple[str, str]] = {
    # the top level
    "listing/0": ("listing", "List the clauses of every user predicate, SLP labels included."),
    "listing/1": ("listing(+NameOrIndicator)", "List the clauses of the predicates Name or Name/Arity."),
    "portray_clause/1": ("portray_clause(+Clause)", "Write Clause as listing/0 writes clauses."),
    "help/0": ("help", "Show the top level's keys and commands."),
    "help/1": ("help(+NameOrIndicator)", "Show what a predicate does."),
    "make/0": ("make", "Reconsult every loaded file that changed on disk since it was loaded."),
    "consult/1": ("consult(+FileOrList)", "Load .slp/.pl files (the extension may be left out); [File, ...] does the same."),
    "./2": ("[+File|+Files]", "Consult the files of the list."),
    "set_seed/1": ("set_seed(+Seed)", "Restart the session's random generator from the integer Seed."),
    "sampling/1": ("sampling(?Mode)", "Mode is backtrackable (draw again among untried clauses on backtracking) or pure (a failing draw fails the whole sample); unbound: the current mode."),
    "prob/2": ("prob(:Goal, -P)", "P is the probability of Goal: the sum over its refutations of the product of the labels used (pure SLP semantics, exhaustive)."),
    "prob/3": ("prob(:Goal, +MinProb, -P)", "As prob/2, leaving out refutations less probable than MinProb (a lower bound; terminates on infinite priors)."),
    "sample/3": ("sample(:Goal, +N, -Answers)", "Draw N independent samples of Goal; Answers is a list of Instance-Count pairs, most frequent first. Failed samples are not listed."),
    "proof_tree/0": ("proof_tree", "Show the proof tree of the last stochastic answer: one line per choice point with the chosen clause and its probability."),
    "halt/0": ("halt", "Exit slpy."),
    "halt/1": ("halt(+Status)", "Exit slpy with exit status Status."),
    # SLP
    "::/2": ("+Guard :: :Goal", "Call the labelled predicate Goal passing Guard (a list) to the clauses' guards."),
    "uniform_member/2": ("uniform_member(?X, +List)", "Stochastic: X is an element of List drawn uniformly; on backtracking another, without replacement."),
    "uniform_between/3": ("uniform_between(+Low, +High, ?X)", "Stochastic: X is an integer of Low..High drawn uniformly; on backtracking another, without replacement."),
    "param/2": ("param(+Name, ?Value)", "Value of the prior parameter Name (declared by :- param(Name, Default); set from the command line with -p Name=Value)."),
    # control
    ",/2": ("(:Goal1, :Goal2)", "Conjunction: prove Goal1, then Goal2."),
    ";/2": ("(:Goal1 ; :Goal2)", "Disjunction; (If -> Then ; Else) is if-then-else."),
    "->/2": ("(:If -> :Then)", "If-then: commit to the first solution of If, then prove Then."),
    "*->/2": ("(:If *-> :Then)", "Soft cut: Then for every solution of If."),
    "\\+/1": ("\\+ :Goal", "Negation as failure: true if Goal has no solution."),
    "not/1": ("not(:Goal)", "Same as \\+ Goal."),
    "!/0": ("!", "Cut: discard the choice points since the clause was entered."),
    "call/1": ("call(:Goal)", "Prove Goal (call/2..8 add arguments to it)."),
    "once/1": ("once(:Goal)", "The first solution of Goal only."),
    "ignore/1": ("ignore(:Goal)", "Prove Goal once if possible; succeed anyway."),
    "true/0": ("true", "Succeed."),
    "fail/0": ("fail", "Fail."),
    "false/0": ("false", "Fail."),
    "catch/3": ("catch(:Goal, ?Catcher, :Recovery)", "Prove Goal; if it throws a ball unifying with Catcher, prove Recovery."),
    "throw/1": ("throw(+Ball)", "Throw an exception."),
    "findall/3": ("findall(+Template, :Goal, -List)", "List of the instances of Template for every solution of Goal."),
    "findall/4": ("findall(+Template, :Goal, -List, ?Tail)", "findall/3 with the list ending in Tail."),
    "forall/2": ("forall(:Cond, :Action)", "True if Action succeeds for every solution of Cond."),
    "bagof/3": ("bagof(+Template, :Goal, -Bag)", "Solutions grouped by the free variables of Goal (Var^Goal to exclude Var); fails if none."),
    "setof/3": ("setof(+Template, :Goal, -Set)", "As bagof/3, sorted without duplicates."),
    "aggregate_all/3": ("aggregate_all(+Spec, :Goal, -Result)", "count, sum(E), max(E), min(E), max(E, W), min(E, W), bag(E) or set(E) over all solutions of Goal, or a compound of them (r(count, max(E)))."),
    # terms and arithmetic
    "=/2": ("?X = ?Y", "Unify X and Y."),
    "\\=/2": ("?X \\= ?Y", "True if X and Y do not unify."),
    "==/2": ("?X == ?Y", "X and Y are identical."),
    "\\==/2": ("?X \\== ?Y", "X and Y are not identical."),
    "is/2": ("-X is +Expr", "Evaluate the arithmetic expression Expr and unify X with its value."),
    "=:=/2": ("+E1 =:= +E2", "The expressions evaluate to equal numbers."),
    "</2": ("+E1 < +E2", "Arithmetic comparison (also >, =<, >=, =\\=)."),
    "functor/3": ("functor(?Term, ?Name, ?Arity)", "Term has name Name and arity Arity."),
    "arg/3": ("arg(?N, +Term, ?Arg)", "Arg is the N-th argument of Term."),
    "=../2": ("?Term =.. ?List", "List is [Name|Args] of Term."),
    "copy_term/2": ("copy_term(+In, -Out)", "Out is a copy of In with fresh variables."),
    "compare/3": ("compare(?Order, +X, +Y)", "Order is <, = or > by the standard order of terms."),
    "var/1": ("var(@X)", "X is an unbound variable."),
    "nonvar/1": ("nonvar(@X)", "X is not an unbound variable."),
    "atom/1": ("atom(@X)", "X is an atom."),
    "number/1": ("number(@X)", "X is an integer or a float."),
    "integer/1": ("integer(@X)", "X is an integer."),
    "float/1": ("float(@X)", "X is a float."),
    "atomic/1": ("atomic(@X)", "X is an atom, number or string."),
    "compound/1": ("compound(@X)", "X is a compound term."),
    "callable/1": ("callable(@X)", "X is an atom or compound term."),
    "is_list/1": ("is_list(@X)", "X is a proper list."),
    "ground/1": ("ground(@X)", "X has no unbound variables."),
    # atoms and strings
    "atom_length/2": ("atom_length(+Atom, -Length)", "Number of characters of Atom."),
    "atom_concat/3": ("atom_concat(?A1, ?A2, ?A3)", "A3 is A1 followed by A2."),
    "sub_atom/5": ("sub_atom(+Atom, ?Before, ?Length, ?After, ?Sub)", "Sub is a sub-atom of Atom."),
    "atom_codes/2": ("atom_codes(?Atom, ?Codes)", "Codes are the character codes of Atom."),
    "atom_chars/2": ("atom_chars(?Atom, ?Chars)", "Chars are the characters of Atom."),
    "atom_number/2": ("atom_number(?Atom, ?Number)", "Atom is the text of Number."),
    "number_codes/2": ("number_codes(?Number, ?Codes)", "Codes are the text of Number."),
    "atomic_list_concat/3": ("atomic_list_concat(?List, +Sep, ?Atom)", "Atom is the items of List joined by Sep."),
    "term_to_atom/2": ("term_to_atom(?Term, ?Atom)", "Atom is the text of Term."),
    # lists
    "append/3": ("append(?L1, ?L2, ?L3)", "L3 is L1 followed by L2."),
    "member/2": ("member(?X, ?List)", "X is an element of List (each on backtracking)."),
    "memberchk/2": ("memberchk(?X, +List)", "The first element of List unifying with X."),
    "length/2": ("length(?List, ?N)", "List has N elements."),
    "nth0/3": ("nth0(?N, ?List, ?X)", "X is element N of List, counting from 0."),
    "nth1/3": ("nth1(?N, ?List, ?X)", "X is element N of List, counting from 1."),
    "reverse/2": ("reverse(+List, -Reversed)", "Reversed has the elements of List in reverse order."),
    "select/3": ("select(?X, ?List, ?Rest)", "Rest is List without one occurrence of X."),
    "msort/2": ("msort(+List, -Sorted)", "Sorted in standard order, duplicates kept."),
    "sort/2": ("sort(+List, -Sorted)", "Sorted in standard order, duplicates removed."),
    "sort/4": ("sort(+Key, +Order, +List, -Sorted)", "Sort on argument Key with order @<, @=<, @> or @>=."),
    "keysort/2": ("keysort(+Pairs, -Sorted)", "Sort Key-Value pairs on Key, stably."),
    "sum_list/2": ("sum_list(+List, -Sum)", "Sum of a list of numbers."),
    "max_list/2": ("max_list(+List, -Max)", "Largest number of the list."),
    "min_list/2": ("min_list(+List, -Min)", "Smallest number of the list."),
    "last/2": ("last(?List, ?X)", "X is the last element of List."),
    "between/3": ("between(+Low, +High, ?X)", "X is an integer of Low..High (each on backtracking)."),
    "numlist/3": ("numlist(+Low, +High, -List)", "List is [Low, ..., High]."),
    "maplist/2": ("maplist(:Goal, ?List)", "Goal holds for every element (maplist/3..5 walk several lists)."),
    "include/3": ("include(:Goal, +List, -Included)", "The elements for which Goal holds."),
    "exclude/3": ("exclude(:Goal, +List, -Excluded)", "The elements for which Goal fails."),
    "foldl/4": ("foldl(:Goal, +List, +V0, -V)", "Fold Goal(Elem, Acc0, Acc) over List."),
    # database
    "assert/1": ("assert(+Clause)", "Add Clause at the end of its predicate."),
    "asserta/1": ("asserta(+Clause)", "Add Clause at the start of its predicate."),
    "assertz/1": ("assertz(+Clause)", "Add Clause at the end of its predicate."),
    "retract/1": ("retract(+Clause)", "Remove the first clause unifying with Clause."),
    "retractall/1": ("retractall(+Head)", "Remove every clause whose head unifies with Head."),
    "abolish/1": ("abolish(+Name/Arity)", "Remove a dynamic predicate."),
    "dynamic/1": ("dynamic(+Indicators)", "Declare predicates dynamic."),
    "clause/2": ("clause(?Head, ?Body)", "A clause of a dynamic predicate."),
    "set_prolog_flag/2": ("set_prolog_flag(+Flag, +Value)", "Set a flag (e.g. sampling: backtrackable or pure; unknown: error or fail)."),
    "current_prolog_flag/2": ("current_prolog_flag(?Flag, ?Value)", "Flag has Value."),
    "op/3": ("op(+Priority, +Type, +Names)", "Declare operators."),
    # output
    "write/1": ("write(+Term)", "Write Term."),
    "writeln/1": ("writeln(+Term)", "Write Term and a newline."),
    "print/1": ("print(+Term)", "Write Term quoted."),
    "writeq/1": ("writeq(+Term)", "Write Term quoted, so it reads back."),
    "write_canonical/1": ("write_canonical(+Term)", "Write Term quoted, ignoring operators."),
    "write_term/2": ("write_term(+Term, +Options)", "Write Term with options (quoted(true), max_depth(N), ...)."),
    "nl/0": ("nl", "Write a newline."),
    "tab/1": ("tab(+N)", "Write N spaces."),
    "format/1": ("format(+Format)", "Write Format (directives ~w ~q ~a ~d ~f ~n ...)."),
    "format/2": ("format(+Format, +Args)", "Write Args as Format directs."),
}


def help_text(p, name, arity=None) -> str | None:
    """Help for name (all arities) or name/arity; None when nothing is known."""
    out = []
    arities = set()
    for key in HELP:
        n, _, a = key.rpartition("/")
        if n == name and (arity is None or int(a) == arity):
            arities.add(int(a))
    for (n, a), pred in p.db.preds.items():
        if n == name and (arity is None or a == arity) and (
                pred.defined or pred.clauses or pred.dynamic):
            arities.add(a)
    from .logic.autoload import exports
    autoload = exports()
    arities.update(a for n, a in autoload if n == name and (arity is None or a == arity))
    for a in sorted(arities):
        key = f"{name}/{a}"
        pred = p.db.lookup(name, a)
        if key in HELP:
            template, desc = HELP[key]
            out.append(f"{template}\n    {desc}")
            continue
        if (pred is None or not pred.defined) and (name, a) in autoload:
            out.append(f"{key}\n    Library predicate (library({autoload[(name, a)]}), "
                       f"loaded on first use).")
            continue
        if pred is None:
            continue
        if not pred.builtin and not pred.library:
            kind = "stochastic (labelled) " if pred.kind == STOCH else ""
            where = ""
            if pred.clauses and pred.clauses[0].file:
                c = pred.clauses[0]
                where = f", defined in {c.file}:{c.line}"
            dyn = "dynamic " if pred.dynamic else ""
            n = len(pred.clauses)
            out.append(f"{key}\n    User {dyn}{kind}predicate, {n} clause"
                       f"{'s' if n != 1 else ''}{where}.")
            continue
        doc = (getattr(pred.fn, "__doc__", None) or "").strip()
        if pred.kind == SBUILTIN:
            what = "Stochastic built-in predicate"
        elif pred.library and pred.kind in (USER, STOCH):
            what = "Library predicate"
        else:
            what = "Built-in predicate"
        line = doc.split("\n\n")[0].replace("\n", " ") if doc else what + "."
        out.append(f"{key}\n    {line}")
    return "\n".join(out) + "\n" if out else None


def _help0(session) -> bool:
    session.write(TOPLEVEL_HELP)
    return True


def _help1(session, spec) -> bool:
    name, arity = _spec(spec)
    text = help_text(session.program, name, arity)
    if text is None:
        what = name if arity is None else f"{name}/{arity}"
        session.message(f"Warning: no help for {what}")
    else:
        session.write(text)
    return True
