"""The builtins of tabling: the table/1 directive, abolish_all_tables/0, and the
steps of the driver in lib/tabling.pl ('$tbl_table', '$tbl_push', '$tbl_iteration',
'$tbl_add', '$tbl_done', '$tbl_pop', '$tbl_abort', '$tbl_answer'), over the tables of
slpy.logic.tabling (whose docstring tells the algorithm).
"""
from __future__ import annotations

import math

from . import det, nondet
from .dbbi import indicator_parts
from ..proof import SNode
from ..tabling import (Tables, Table, Ref, RUNNING, INCOMPLETE, COMPLETE)
from ..variant import variant_key
from ...terms.term import Var, Atom, Struct, atom, deref
from ...terms.walk import copy_term, resolve
from ...terms.errors import instantiation_error, type_error, domain_error

_DIRECT, _COMPLETE, _ACTIVE, _FRESH = (atom(n) for n in ("direct", "complete", "active",
                                                          "fresh"))


def _tables(eng) -> Tables:
    t = eng.tables
    if t is None:
        t = eng.tables = Tables(eng.db)
    return t


@det("$tbl_table", 4)
def bi_tbl_table(eng, goal, impl, tid, status):
    """'$tbl_table'(+Goal, +Impl, -Id, -Status): the table of Goal's variant, and what
    to do with it: direct (call Impl untabled), complete, active (consume the answers
    found so far) or fresh (evaluate)."""
    tabs = _tables(eng)
    mode = tabs.mode(eng, impl)
    if mode == "direct":
        return eng.unify(status, _DIRECT)
    key = (mode, variant_key(goal))
    t = tabs.tables.get(key)
    stack = tabs.stack
    top = stack[-1] if stack else None
    if t is None:
        t = Table(len(tabs.by_id), key, copy_term(goal), mode == "explain")
        tabs.by_id.append(t)
        tabs.tables[key] = t
        what = _FRESH
    elif t.status == COMPLETE:
        what = _COMPLETE
    elif t.status == RUNNING:
        top.low = min(top.low, t.pos)
        what = _ACTIVE
    elif top is not None and t.stamp == (top.id, top.iter_no):
        top.low = min(top.low, t.low)      # evaluated in this pass of its caller
        what = _ACTIVE
    else:
        what = _FRESH
    return eng.unify(tid, t.id) and eng.unify(status, what)


@det("$tbl_push", 1)
def bi_tbl_push(eng, tid):
    tabs = _tables(eng)
    t = tabs.by_id[deref(tid)]
    stack = tabs.stack
    t.stamp = (stack[-1].id, stack[-1].iter_no) if stack else None
    t.status = RUNNING
    t.pos = t.low = len(stack)
    t.saved_min_prob = eng.min_prob
    eng.min_prob = 0.0          # a table's answers are exact, whatever prob/3 prunes
    stack.append(t)
    return True


@det("$tbl_iteration", 1)
def bi_tbl_iteration(eng, tid):
    """The start of a pass over the clauses."""
    tabs = _tables(eng)
    t = tabs.by_id[deref(tid)]
    t.iter_no += 1
    t.iter_mark = tabs.added
    t.eval_pass = tabs.passes
    tabs.passes += 1
    t.plog_base = eng.plog
    if t.explain:
        t.expl = [[] for _ in t.answers]
        t.used = [[] for _ in t.answers]
    return True


@det("$tbl_add", 2)
def bi_tbl_add(eng, tid, goal):
    """Record an answer (and, for enumeration, the derivation's explanation)."""
    tabs = _tables(eng)
    t = tabs.by_id[deref(tid)]
    ans = resolve(goal)
    k = variant_key(ans)
    i = t.index.get(k)
    if i is None:
        i = t.index[k] = len(t.answers)
        t.answers.append(copy_term(ans))
        tabs.added += 1
        if t.explain:
            t.expl.append([])
            t.used.append([])
    if t.explain:
        w = 1.0
        refs = []
        used = []
        e = eng.plog
        base = t.plog_base
        while e is not base:
            x = e[0]
            if type(x) is Ref:
                refs.append((x.table, x.i))
                used.append(x)
            else:
                w *= x.prob
                used.append((x.clause, x.prob, x.value))
            e = e[1]
        t.expl[i].append((w, tuple(refs)))
        used.reverse()
        t.used[i].append(tuple(used))
    return False    # the driver's loop fails into the next derivation


@det("$tbl_done", 1)
def bi_tbl_done(eng, tid):
    """Did the pass that ends add no answer to any table?"""
    tabs = _tables(eng)
    return tabs.added == tabs.by_id[deref(tid)].iter_mark


@det("$tbl_pop", 1)
def bi_tbl_pop(eng, tid):
    """The fixpoint of a table is reached: complete its component if it leads one."""
    tabs = _tables(eng)
    t = tabs.by_id[deref(tid)]
    tabs.stack.pop()
    eng.min_prob = t.saved_min_prob
    if t.low < t.pos:          # it used a table still running below: not complete yet
        t.status = INCOMPLETE
        parent = tabs.stack[-1]
        parent.low = min(parent.low, t.low)
        parent.scc.append(t)
        parent.scc.extend(t.scc)
        t.scc = []
        return True
    # the component: what it evaluated that is not complete and not forgotten since
    members = {u.id: u for u in t.scc if u.status != COMPLETE and tabs.tables.get(u.key) is u}
    members.pop(t.id, None)
    t.scc = []
    done = [t]
    for u in members.values():
        if u.eval_pass > t.eval_pass:     # evaluated in the last, unchanging pass
            done.append(u)
        else:                             # not reached by it: evaluate again if called
            del tabs.tables[u.key]
    for u in done:
        u.status = COMPLETE
    if t.explain:
        from ..explain import solve_tables
        solve_tables([u for u in done if u.explain], tabs.by_id)
    return True


@det("$tbl_abort", 1)
def bi_tbl_abort(eng, tid):
    """An exception left the evaluation of a table: forget it and what it started."""
    tabs = _tables(eng)
    t = tabs.by_id[deref(tid)]
    stack = tabs.stack
    if t in stack:
        for u in stack[stack.index(t):]:
            for x in [u] + u.scc:
                if x.status != COMPLETE and tabs.tables.get(x.key) is x:
                    del tabs.tables[x.key]
        del stack[stack.index(t):]
    eng.min_prob = t.saved_min_prob
    return True


@nondet("$tbl_answer", 2)
def bi_tbl_answer(eng, tid, goal):
    """Goal unified with each answer of the table, in the order they were found. Under
    enumeration an answer's probability enters the derivation: a node of the proof
    at the top level, a reference to the answer inside another table."""
    tabs = _tables(eng)
    t = tabs.by_id[deref(tid)]
    base_plog, base_logp = eng.plog, eng.logp
    numeric = t.explain and t.status == COMPLETE and not tabs.stack
    call = copy_term(goal) if numeric else None
    answers = t.answers
    i = 0
    while i < len(answers):       # the list grows while the table is evaluated
        ans = answers[i]
        if t.explain:
            if numeric:
                p = t.prob[i]
                if p <= 0.0 or (eng.min_prob > 0 and
                                base_logp + math.log(p) < math.log(eng.min_prob)):
                    i += 1
                    continue
                node = SNode(None, (), None, None)
                node.call, node.value, node.chosen, node.key, node.prob = call, ans, i, i, p
                eng.plog = (node, base_plog)
                eng.logp = base_logp + math.log(p)
            else:
                eng.plog = (Ref(t.id, i), base_plog)
        if eng.try_unify(goal, copy_term(ans)):
            yield
        i += 1


@det("abolish_all_tables", 0)
def bi_abolish_all_tables(eng):
    """abolish_all_tables: empty every table (tables otherwise last for one query)."""
    tabs = _tables(eng)
    if tabs.stack:
        raise domain_error("no_running_tables", atom("abolish_all_tables"))
    tabs.reset()
    return True


# -- the directive ------------------------------------------------------------------------

def _indicators(spec):
    """(name, arity) of each predicate a table/1 argument names."""
    spec = deref(spec)
    if type(spec) is Var:
        raise instantiation_error()
    if type(spec) is Struct and spec.name in (",", ".") and len(spec.args) == 2:
        return _indicators(spec.args[0]) + (
            [] if deref(spec.args[1]) is atom("[]") else _indicators(spec.args[1]))
    if type(spec) is Struct and spec.name in ("/", "//") and len(spec.args) == 2:
        name, a = indicator_parts(*spec.args)
        return [(name, a + 2 if spec.name == "//" else a)]
    if type(spec) is Struct and spec.name == "as" and len(spec.args) == 2:
        raise domain_error("table_option", spec.args[1])
    if type(spec) is Struct or type(spec) is Atom:
        # a mode-directed table, p(_, _, min): answer subsumption is not supported
        raise domain_error("table_declaration", spec)
    raise type_error("predicate_indicator", spec)


@det("table", 1)
def bi_table(eng, spec):
    """:- table Name/Arity, ...: table the predicates (Name//Arity for a grammar
    rule). Their clauses, before or after the directive, go to the table's
    implementation."""
    for name, arity in _indicators(spec):
        eng.program.table(name, arity)
    return True
