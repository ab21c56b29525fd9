"""The top level's help texts: the keys and commands (help/0), the keys after an
answer (``h``), and one predicate's summary (help/1): a template and a line for the
common builtins, what the program or the library says of the others.
"""
from __future__ import annotations

from ..logic.autoload import exports
from ..logic.db import STOCH, SBUILTIN, USER

__all__ = ["TOPLEVEL_HELP", "ACTION_HELP", "HELP", "help_text"]

ACTION_HELP = """\
Actions:
  ;  n  r  space   next answer (stochastic: another draw)
  Enter  .  c  a   stop
  t                proof tree of this answer
  h  ?             this help
"""

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
  mpe(Goal)  mpe(Goal, K)  the most probable proof of Goal (the K best), printed
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
    "mpe/1": ("mpe(?Goal)", "Print the most probable proof of Goal (probability and proof tree) and unify Goal with its instance; tabled programs share subproofs."),
    "mpe/2": ("mpe(?Goal, +K)", "Print the K most probable proofs of Goal, best first, and unify Goal with the best one's instance."),
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
    # the debugger and limits
    "trace/0": ("trace", "Print the Call/Exit/Redo/Fail ports of every goal on standard error, without stopping, until notrace."),
    "notrace/0": ("notrace", "Stop tracing."),
    "spy/1": ("spy(+NameOrIndicator)", "Print the ports of that predicate only."),
    "nospy/1": ("nospy(+NameOrIndicator)", "Remove a spy point."),
    "nodebug/0": ("nodebug", "No trace and no spy points."),
    "debugging/0": ("debugging", "Say whether trace mode is on and list the spy points."),
    "call_with_depth_limit/3": ("call_with_depth_limit(:Goal, +Limit, -Result)", "Goal with calls at most Limit levels deep; Result is the deepest level, or depth_limit_exceeded."),
    "call_with_time_limit/2": ("call_with_time_limit(+Seconds, :Goal)", "Goal once, or the exception time_limit_exceeded after Seconds."),
    # streams
    "open/3": ("open(+File, +Mode, -Stream)", "Open File (read, write or append) below the folders allowed; Stream is its stream."),
    "open/4": ("open(+File, +Mode, -Stream, +Options)", "open/3 with options: alias(A), type(text), encoding(utf8), ..."),
    "close/1": ("close(+Stream)", "Close a stream."),
    "read/1": ("read(-Term)", "Read a term from the current input (end_of_file at the end)."),
    "read_term/2": ("read_term(-Term, +Options)", "read/1 with variable_names(Vs), variables(Vs), singletons(Vs)."),
    "read_line_to_string/2": ("read_line_to_string(+Stream, -String)", "The next line without its newline; end_of_file at the end."),
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
        # a control construct's fn is its opcode, whose __doc__ is int's
        doc = "" if type(pred.fn) is int else (getattr(pred.fn, "__doc__", None) or "").strip()
        if pred.kind == SBUILTIN:
            what = "Stochastic built-in predicate"
        elif pred.library and pred.kind in (USER, STOCH):
            what = "Library predicate"
        else:
            what = "Built-in predicate"
        line = doc.split("\n\n")[0].replace("\n", " ") if doc else what + "."
        out.append(f"{key}\n    {line}")
    return "\n".join(out) + "\n" if out else None
