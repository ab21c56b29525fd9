"""The second part of docs/conformance.md: every predicate and arithmetic function
slpy has without a program, against SWI-Prolog 9 (the same, differs and why, or
slpy's own), and what SWI-Prolog has that slpy does not. The iso runner writes it
after the ISO results (``python -m tests.conformance.iso_runner --doc ...``);
tests/conformance/test_builtins_doc.py checks it covers every registry."""
from __future__ import annotations

MARKER = "## Builtins and libraries against SWI-Prolog"

# slpy's own: the SLP language, the data builtins of priors, and the top level
OWN = {
    "::/2": "guarded call of a labelled predicate (the SLP language)",
    ":/2": "guarded call (`[P] : g`), or module qualification `m:g` (read as `g`)",
    "uniform_member/2": "stochastic builtin", "uniform_between/3": "stochastic builtin",
    "param/2": "prior parameters", "param/3": "prior parameters with their domains",
    "model_family/1": "declares the kind of model",
    "data_rows/1": "data builtin", "rows_size/2": "data builtin",
    "rows_class_counts/2": "data builtin", "features/1": "data builtin",
    "feature_thresholds/3": "data builtin", "split_rows/5": "data builtin",
    "valid_splits/3": "data builtin", "has_split/2": "data builtin",
    "uniform_split/3": "stochastic data builtin", "count_splits_except/4": "data builtin",
    "uniform_split_except/4": "stochastic data builtin", "phi_stop_prob/4": "BCART-PCFG prior",
    "phi_split/4": "BCART-PCFG prior", "bn_variables/1": "network data builtin",
    "bn_can_add/4": "network data builtin", "bn_families/3": "network data builtin",
    "bn_acyclic/1": "network data builtin", "bn_agrees/4": "network data builtin",
    "otherwise/0": "a synonym of true/0",
}

_RANDOM = ("a stochastic choice point drawn from the run's seeded generator: it is a "
           "node of the proof tree, and backtracking draws again among the values not "
           "yet tried (SWI-Prolog: deterministic, global generator)")

DIFFERS = {
    "random/1": _RANDOM + "; a float in [0, 1) (SWI: (0, 1)); enumeration refuses it",
    "random_between/3": _RANDOM, "random_member/2": _RANDOM, "random_select/3": _RANDOM,
    "random_permutation/2": _RANDOM + "; a sequence of random_select/3 draws",
    "table/1": "plain and stochastic tables; no mode-directed (answer subsumption), "
               "incremental, shared or well-founded (tnot) tabling; tables last one "
               "query; answers in the order found (SWI: trie order)",
    "abolish_all_tables/0": "tables also empty at the start of each top-level query",
    "print_message/2": "knows format(F, A), error terms and assertion failures; no "
                       "message/1 hook or message database (others: Unknown message)",
    "assertion/1": "always raises assertion_error (SWI: the debugger in an "
                   "interactive thread) and prints no backtrace",
    "open/3": "a file opens only below the folders the program may load from, and "
              "at the top level below its current folder (docs/language.md, Loading "
              "files); every file is text in UTF-8",
    "open/4": "as open/3; type(binary), encoding/1, bom/1 and eof_action/1 are checked "
              "and change nothing (text, UTF-8, eof_code)",
    "read_term/2": "the options variable_names/1, variables/1 and singletons/1; other "
                   "options are accepted and ignored",
    "read_term/3": "as read_term/2",
    "stream_property/2": "the properties mode/1, input, output, alias/1, file_name/1 "
                         "(as the program wrote it), type(text) and eof_action(eof_code)",
    "trace/0": "prints the ports and goes on, as SWI-Prolog with leash(-all) (no "
               "interactive debugger); Call, Exit, Redo and Fail, no Unify or Exception "
               "ports; depths count from 1 at the query (SWI: from its top level's "
               "frames); control constructs are not shown",
    "spy/1": "prints the ports of the spied predicates only (SWI-Prolog stops at the "
             "spy point and traces from there)",
    "debugging/0": "says whether trace mode is on and lists the spy points; no "
                   "exception traps line",
    "call_with_depth_limit/3": "depths as SWI-Prolog counts them for clauses and "
                               "builtins; findall/3 and a nested call_with_depth_limit/3 "
                               "count their own frames differently",
    "call_with_time_limit/2": "the limit is checked every 4096 inferences: a long "
                              "builtin is not interrupted",
    "=:=/2": "a rational and a float compare as floats (as SWI-Prolog 9.0.4); an integer "
             "past 2**53 and a float compare exactly (SWI converts the integer to a "
             "float), likewise for the other comparisons",
    "copy_term/2": "goals suspended on variables (freeze, dif, when) are not copied",
    "module/2": "accepted and checked; slpy has one name space",
    "use_module/1": "library(Name) loads slpy's library of that name, nothing for a "
                    "library slpy has built in (apply, yall, ...), else an existence "
                    "error; files as consult/1",
    "use_module/2": "as use_module/1; the import list is ignored",
    "consult/1": "a program may load only files below its own folder and the allowed "
                 "ones (docs/language.md, Loading files)",
    "ensure_loaded/1": "as consult/1 (loads the file again when it is loaded)",
    "include/1": "as consult/1: the file's clauses load as a file of their own",
    "load_files/2": "as consult/1; the options are ignored",
    "list_to_assoc/2": "same interface; the tree is built balanced, its shape may "
                       "differ from SWI's",
    "must_be/2": "SWI-Prolog's types but stream, encoding, dict and cyclic",
    "listing/1": "writes SLP labels and guards, and `:- table` for a tabled predicate",
    "set_prolog_flag/2": "the flags slpy has: double_quotes (file-local), unknown, "
                         "occurs_check, sampling, ...; no rational_syntax; "
                         "prefer_rationals is read-only false (SWI's default)",
    "halt/1": "ends the program's queries (the CLI exits with the status)",
    "format/2": "column stops count from the start of the format call's text",
    "format/3": "as format/2",
    "garbage_collect/0": "does nothing (Python collects)",
    "statistics/2": "the keys runtime, process_cputime, cputime, walltime, real_time "
                    "and inferences; not the memory and stack keys",
    "dif/2": "suspends on the variables the unifier binds; the residual goals it shows "
             "may repeat a constraint that SWI-Prolog would have simplified",
}

MISSING = [
    ("Streams and files", "binary streams (get_byte/1,2, put_byte/1,2, peek_byte/1,2), "
     "get_code/1,2, peek_code/1,2, see/1, tell/1, seeing/1, telling/1, set_stream/2, "
     "seek/4, set_stream_position/2, with_input_from/2",
     "text streams are there (open/3,4, read_term/2,3, ...); these are not implemented "
     "(ISO sections 8.11-8.14 are left out of the conformance run)"),
    ("Modules", "module-qualified definitions, import/export, meta_predicate/1",
     "one name space; `m:Goal` calls Goal, :- module/2 is accepted"),
    ("Dicts, threads, mutexes, engines", "dict syntax, thread_create/3, with_mutex/2, "
     "engine_create/3", "outside the language a prior needs"),
    ("Constraint libraries", "library(clpfd), library(clpb), library(chr)",
     "not implemented (coroutining is: freeze/2, dif/2, when/2)"),
    ("Attributed variables", "put_attr/3, get_attr/3, del_attr/2, attr_unify_hook/2, "
     "copy_term/3", "suspension is internal to freeze/2, dif/2 and when/2"),
    ("Solution sequences", "limit/2, offset/2, distinct/1,2, order_by/2, call_nth/2",
     "not implemented"),
    ("Strings and text", "sub_atom_icasechk/3, text_length/2, normalize_space/2, "
     "sformat/3", "not implemented"),
    ("Lists", "nth0/4, nth1/4, numlist/5, clumped/2, partition/6, selectchk/4, is_set/1",
     "not implemented"),
    ("Arithmetic", "the functions random/1 and random_float/0", "random draws are "
     "predicates (random/1, random_between/3: proof-tree nodes), not hidden in "
     "arithmetic"),
    ("Debugging", "the interactive debugger (leash/1, creep, skip, leap), debug/3, "
     "debug/1, backtrace/1", "trace/0 and spy/1 print the ports without stopping; the "
     "top level shows proof trees"),
    ("Tabling extras", "mode-directed tables, tnot/1, abolish_table_subgoals/1, "
     "current_table/2", "not implemented"),
    ("Database extras", "recorda/3, recorded/3, erase/1, flag/3",
     "not implemented (nb_setval/2 and friends are)"),
]


def _row(name, arity, where, own=OWN, differs=DIFFERS):
    key = f"{name}/{arity}"
    if key in own:
        status = f"slpy's own: {own[key]}"
    elif key in differs:
        status = f"differs: {differs[key]}"
    else:
        status = "as SWI-Prolog"
    shown = key.replace("|", "\\|")
    return f"| `{shown}` | {where} | {status} |"


def registries():
    """(name, arity, where) of every predicate a program sees without defining it."""
    from slpy import Program
    from slpy.logic.builtins import BUILTINS
    from slpy.logic.kinds import CONTROL_PREDS
    from slpy.logic.autoload import exports
    p = Program()

    def public(k):
        return not k[0].startswith("$")
    rows = {}
    for k in CONTROL_PREDS:
        if public(k):
            rows[k] = "control"
    for k in BUILTINS:
        if public(k):
            rows[k] = "builtin"
    for plugin in p.plugins.values():
        for k in plugin.builtins:
            if public(k):
                rows[k] = f"builtin (plugin {plugin.name})"
    for q in p.db.preds.values():
        k = (q.name, q.arity)
        if q.library and q.clauses and public(k):
            rows[k] = "library"
    for k, lib in exports().items():
        if public(k):
            rows[k] = f"library({lib})"
    return sorted((n, a, w) for (n, a), w in rows.items())


def section() -> str:
    from slpy.logic.arith_functions import FUNCTIONS, CONSTANTS
    out = [MARKER, "",
           "Every predicate a program can call without defining it (builtins, the core",
           "library `slpy/logic/library.pl` and the libraries of `slpy/logic/lib/`, loaded",
           "on first use), against SWI-Prolog 9.0.4: *as SWI-Prolog* where slpy follows",
           "it, *differs* with the reason, or *slpy's own*. The ISO failures above list",
           "the corner cases where slpy follows SWI-Prolog against iso.tst. The top",
           "level's own commands (`prob/2`, `sample/3`, `sampling/1`, `set_seed/1`,",
           "`proof_tree/0`, `help/0,1`, `make/0`) are in [repl.md](repl.md).", "",
           "| predicate | kind | against SWI-Prolog |", "|---|---|---|"]
    for name, arity, where in registries():
        out.append(_row(name, arity, where))
    funcs = sorted(f"{n}/{a}" for n, a in FUNCTIONS) + sorted(f"{c}/0" for c in CONSTANTS)
    out += ["", "Arithmetic functions, all as in SWI-Prolog (prefer_rationals false: `/` "
            "of integers that do not divide is a float; rationals as `1r3`, `rdiv`, "
            "`rational/1`, `rationalize/1`): " + ", ".join(f"`{f}`" for f in funcs) + ".",
            "", "### What SWI-Prolog has and slpy does not", "",
            "| area | predicates | why |", "|---|---|---|"]
    for area, preds, why in MISSING:
        out.append(f"| {area} | {preds} | {why} |")
    return "\n".join(out) + "\n"
