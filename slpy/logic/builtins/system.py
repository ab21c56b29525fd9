"""Builtins of the system around the clauses: operators, flags, global
variables, statistics, halt and the constants of control (true, fail, throw/1);
prior parameters (param/2) and the model family; and the helpers library.pl's
bagof/setof use."""
from __future__ import annotations

import time
from functools import cmp_to_key

from . import det, nondet
from ...terms.term import (Var, Atom, Struct, deref, atom, mklist, list_items, NIL,
                           PrologError, compare)
from ...terms.unify import undo_to, variant
from ...terms.args import items_arg
from ...terms.walk import copy_term, term_variables
from ...terms.errors import (type_error, domain_error, instantiation_error,
                             permission_error, existence_error)
from ..control import check_partial_list
from ..kinds import Halt


# -- operators -------------------------------------------------------------------------

_OP_TYPES = {"xfx", "xfy", "yfx", "fy", "fx", "xf", "yf"}


@det("op", 3)
def op(eng, p, t, names):
    p, t = deref(p), deref(t)
    if type(p) is Var or type(t) is Var:
        raise instantiation_error()
    if type(p) is not int:
        raise type_error("integer", p)
    if not 0 <= p <= 1200:
        raise domain_error("operator_priority", p)
    if type(t) is not Atom:
        raise type_error("atom", t)
    if t.name not in _OP_TYPES:
        raise domain_error("operator_specifier", t)
    todo = []
    for x in items_arg(names):
        if type(x) is not Atom:
            raise type_error("atom" if type(x) is not Struct else "list", x)
        if x.name == ",":
            raise permission_error("modify", "operator", x)
        if x.name in ("|",) and (p < 1001 and p != 0 or t.name not in ("xfx", "xfy", "yfx")):
            raise permission_error("create", "operator", x)
        if x.name in ("[]", "{}"):
            raise permission_error("create", "operator", x)
        # an infix and a postfix operator may not share a name
        if t.name in ("xf", "yf") and x.name in eng.ops.infix:
            raise permission_error("create", "operator", x)
        if t.name in ("xfx", "xfy", "yfx") and x.name in eng.ops.postfix:
            raise permission_error("create", "operator", x)
        todo.append(x.name)
    for name in todo:
        eng.ops.add(p, t.name, name)
    return True


@nondet("current_op", 3)
def current_op(eng, p, t, name):
    p, t, name = deref(p), deref(t), deref(name)
    if type(p) is not Var and (type(p) is not int or not 0 <= p <= 1200):
        raise domain_error("operator_priority", p)
    if type(t) is not Var and (type(t) is not Atom or t.name not in _OP_TYPES):
        raise domain_error("operator_specifier", t)
    if type(name) is not Var and type(name) is not Atom:
        raise type_error("atom", name)
    for pri, typ, n in list(eng.ops.all_ops()):
        if eng.try_unify(Struct("op", (p, t, name)), Struct("op", (pri, atom(typ), atom(n)))):
            yield


# -- flags -------------------------------------------------------------------------------

_READONLY = {"bounded", "max_integer", "min_integer", "integer_rounding_function",
             "max_arity", "prefer_rationals"}
_FLAG_VALUES = {"double_quotes": {"codes", "chars", "atom", "string"},
                "unknown": {"error", "fail", "warning"}, "debug": {"on", "off"},
                "char_conversion": {"on", "off"}, "occurs_check": {"true", "false", "error"},
                "sampling": {"backtrackable", "pure"}}


def _flag_term(v):
    if type(v) is int or type(v) is float:
        return v
    return atom(str(v))


@det("set_prolog_flag", 2)
def set_prolog_flag(eng, f, v):
    f, v = deref(f), deref(v)
    if type(f) is Var or type(v) is Var:
        raise instantiation_error()
    if type(f) is not Atom:
        raise type_error("atom", f)
    if f.name not in eng.flags:
        raise domain_error("prolog_flag", f)
    if f.name in _READONLY:
        raise permission_error("modify", "flag", f)
    allowed = _FLAG_VALUES.get(f.name)
    if allowed is not None and (type(v) is not Atom or v.name not in allowed):
        raise domain_error("flag_value", Struct("+", (f, v)))
    eng.flags[f.name] = v.name if type(v) is Atom else v
    return True


@nondet("current_prolog_flag", 2)
def current_prolog_flag(eng, f, v):
    f = deref(f)
    if type(f) is not Var and type(f) is not Atom:
        raise type_error("atom", f)
    if type(f) is Atom:
        if f.name in eng.flags and eng.try_unify(v, _flag_term(eng.flags[f.name])):
            yield
        return
    for k, val in list(eng.flags.items()):
        if eng.try_unify(Struct("-", (f, v)), Struct("-", (atom(k), _flag_term(val)))):
            yield


# -- loading (the loading builtins are in loading.py) ----------------------------------------

@det("module", 2)
def module2(eng, name, exports):
    """`:- module(Name, Exports).` at the top of a file: accepted (slpy has one
    name space), its arguments checked."""
    n = deref(name)
    if type(n) is Var:
        raise instantiation_error()
    if type(n) is not Atom:
        raise type_error("atom", n)
    _, tail = list_items(exports)
    if tail is not NIL:
        raise type_error("list", deref(exports))
    return True


# -- global variables, statistics, halt ----------------------------------------------------

@det("nb_setval", 2)
def nb_setval(eng, k, v):
    k = deref(k)
    if type(k) is not Atom:
        raise type_error("atom", k)
    eng.globals[k.name] = copy_term(v)
    return True


@det("b_setval", 2)
def b_setval(eng, k, v):
    return nb_setval(eng, k, v)


@det("nb_getval", 2)
def nb_getval(eng, k, v):
    k = deref(k)
    if type(k) is not Atom:
        raise type_error("atom", k)
    if k.name not in eng.globals:
        raise existence_error("variable", k)
    return eng.unify(v, eng.globals[k.name])


@nondet("nb_current", 2)
def nb_current(eng, k, v):
    """SWI-Prolog: enumerates the global variables; fails (no error) for an unknown one."""
    k = deref(k)
    if type(k) is Atom:
        if k.name in eng.globals and eng.try_unify(v, eng.globals[k.name]):
            yield
        return
    if type(k) is not Var:
        raise type_error("atom", k)
    for name, val in list(eng.globals.items()):
        if eng.try_unify(Struct("-", (k, v)), Struct("-", (atom(name), val))):
            yield


@det("b_getval", 2)
def b_getval(eng, k, v):
    return nb_getval(eng, k, v)


_T0 = time.process_time()
_W0 = time.monotonic()


@det("statistics", 2)
def statistics(eng, k, v):
    k = deref(k)
    if type(k) is not Atom:
        raise type_error("atom", k)
    name = k.name
    if name in ("runtime", "process_cputime", "cputime"):
        ms = int(time.process_time() * 1000)
        if name == "cputime":
            return eng.unify(v, time.process_time())
        return eng.unify(v, mklist([ms, 0]))
    if name in ("walltime", "real_time"):
        ms = int((time.monotonic() - _W0) * 1000)
        return eng.unify(v, mklist([ms, 0]))
    if name == "inferences":
        return eng.unify(v, eng.steps)
    raise domain_error("statistics_key", k)


@det("halt", 0)
def halt0(eng):
    raise Halt(0)


@det("halt", 1)
def halt1(eng, c):
    c = deref(c)
    if type(c) is Var:
        raise instantiation_error()
    if type(c) is not int:
        raise type_error("integer", c)
    raise Halt(c)


@det("true", 0)
def true0(eng):
    return True


@det("otherwise", 0)
def otherwise0(eng):
    return True


@det("fail", 0)
def fail0(eng):
    return False


@det("false", 0)
def false0(eng):
    return False


@det("throw", 1)
def throw(eng, ball):
    ball = deref(ball)
    if type(ball) is Var:
        raise instantiation_error()
    raise PrologError(copy_term(ball))


@det("garbage_collect", 0)
def garbage_collect(eng):
    return True


@det("param", 2)
def param(eng, name, value):
    """param(Name, Value): a prior parameter declared by `:- param(Name, Default).`,
    unless the user overrode it (CLI -p name=value, or Program.set_param)."""
    name = deref(name)
    if type(name) is Var:
        raise instantiation_error()
    if type(name) is not Atom:
        raise type_error("atom", name)
    prog = eng.program
    if prog._loading_file is not None and type(deref(value)) is not Var:
        # `:- param(Name, Default).` while loading declares the default
        prog.params[name.name] = copy_term(value)
        return True
    if name.name in prog.param_overrides:
        v = prog.param_overrides[name.name]
        if name.name in prog.param_domains:
            _check_param(name.name, v, prog.param_domains[name.name])
        return eng.unify(value, v)
    if name.name in prog.params:
        return eng.unify(value, prog.params[name.name])
    raise existence_error("parameter", name)


def _check_param(name, value, declared):
    """A domain error naming the parameter when `value` is outside its domain (a value
    set before the prior loaded, read without Program.check_params)."""
    from ..params import ParamError, check_value
    try:
        check_value(name, value, *declared)
    except ParamError as e:
        raise PrologError(Struct("error", (Struct("domain_error", (declared[0], value)),
                                           Struct("context", (Struct("/", (atom("param"), 2)),
                                                              atom(str(e))))))) from None


@det("param", 3)
def param3(eng, name, value, domain):
    """`:- param(Name, Default, Domain).` declares a parameter with its default and the
    values it may take (slpy.logic.params: -p and Program.set_param refuse others);
    after loading, param(Name, Value, Domain) reads the value and the domain (`any`
    when none was declared)."""
    from ..params import ParamError, check_value, parse_domain
    n = deref(name)
    if type(n) is Var:
        raise instantiation_error()
    if type(n) is not Atom:
        raise type_error("atom", n)
    prog = eng.program
    if prog._loading_file is not None and type(deref(value)) is not Var:
        d = parse_domain(copy_term(domain))
        try:
            check_value(n.name, value, d)
        except ParamError as e:
            raise PrologError(Struct("error", (Struct("domain_error", (d, deref(value))),
                                               Struct("context", (Struct("/", (atom("param"), 3)),
                                                                  atom(f"the default {e}")))))) \
                from None
        prog.params[n.name] = copy_term(value)
        prog.param_domains[n.name] = (d, prog._loading_file)
        return True
    d = prog.param_domains.get(n.name, (atom("any"),))[0]
    return param(eng, name, value) and eng.unify(domain, d)


@det("model_family", 1)
def model_family(eng, name):
    """model_family(Name): the kind of model the prior's answers are (slpy.family:
    tree, bn, or a registered one). `:- model_family(bn).` declares it while loading;
    undeclared, a prior's models are trees."""
    prog = eng.program
    t = deref(name)
    if prog._loading_file is not None and type(t) is not Var:
        if type(t) is not Atom:
            raise type_error("atom", t)
        prog.model_family = t.name
        return True
    return eng.unify(name, Atom(getattr(prog, "model_family", None) or "tree"))


# -- helpers for the Prolog library ---------------------------------------------------------

@det("$free_variable_set", 3)
def free_variable_set(eng, tg, g1, w):
    """T^G -> the goal without its ^-prefixes and the witness of its free variables."""
    tg = deref(tg)
    t, g = tg.args
    bound = set(id(v) for v in term_variables(t))
    g = deref(g)
    while type(g) is Struct and g.name == "^" and len(g.args) == 2:
        for v in term_variables(g.args[0]):
            bound.add(id(v))
        g = deref(g.args[1])
    free = [v for v in term_variables(g) if id(v) not in bound]
    witness = Struct("$w", tuple(free)) if free else NIL
    return eng.unify(g1, g) and eng.unify(w, witness)


@det("$check_result_list", 1)
def check_result_list(eng, t):
    check_partial_list(t)
    return True


@nondet("$bagof_groups", 3)
def bagof_groups(eng, pairs, w, l):
    """Group Witness-Template pairs by variant witnesses; one solution per group, the
    groups in the standard order of their witnesses, each list in solution order."""
    items = []
    for p in list_items(pairs)[0]:
        p = deref(p)
        items.append((p.args[0], p.args[1]))
    groups = []   # [key, [(witness, template), ...]]
    for wit, t in items:
        for g in groups:
            if variant(g[0], wit):
                g[1].append((wit, t))
                break
        else:
            groups.append([wit, [(wit, t)]])
    groups.sort(key=cmp_to_key(lambda a, b: compare(a[0], b[0])))
    for key, members in groups:
        mark = len(eng.trail)
        ok = all(eng.unify(wit, key) for wit, _ in members)
        if ok and eng.unify(w, key) and eng.unify(l, mklist([t for _, t in members])):
            yield
        else:
            undo_to(eng.trail, mark)
