"""Clause compilation: each clause becomes a Python function built from generated source.

A plain clause compiles to ``fn(a, nxt, cb, pn, trail)``: it unifies the head with the
call's argument tuple ``a`` (specialised code, read/write mode per argument as in the
WAM), and returns the continuation that proves the body: a chain of frames
``(pred, args, next, cut_barrier, proof_parent)`` ending in ``nxt``. It returns None when
the head does not unify (the engine undoes partial bindings).

A labelled clause compiles to ``fn(a, g, nxt, cb, pn, trail)`` which also unifies the
guard list with ``g`` (when the call passed one) and returns ``(label, frame)``.

Structure copying happens here, once per resolution step; ground subterms of a clause
are built once at compile time and shared.
"""
from __future__ import annotations

from ..terms.term import Var, Atom, Struct, deref
from ..terms.unify import unify, undo_to
from ..terms.walk import is_ground, term_variables
from ..terms.errors import type_error
from ..terms.control import CONNECTIVES, is_connective
from .arith_functions import FUNCTIONS
from .arith import eval_arith
from .db import DET, Clause, Pred, first_arg_key

# control constructs that bodies compile to special frames; the engine provides them
CONTROL_NAMES = {(name, 2) for name in CONNECTIVES} | {
    ("\\+", 1), ("!", 0), ("call", 1), ("::", 2), (":", 2)}


class CompileContext:
    """What the compiler needs from the engine: predicate lookup and control preds."""

    def __init__(self, db, control, engine=None):
        self.db = db
        self.control = control  # name -> Pred for '$cut', '$call', '$disj', ...
        self.engine = engine    # for conditions decided inside a clause function


def _compile_error_if_not_callable(goal, whole):
    if type(goal) is Var:
        return
    if type(goal) is not Atom and type(goal) is not Struct:
        raise type_error("callable", whole)


class _Gen:
    def __init__(self, ctx: CompileContext):
        self.ctx = ctx
        self.lines: list[str] = []
        self.consts: dict[str, object] = {}
        self.names: dict[Var, str] = {}  # fixed per variable, whatever branch sees it first
        self.vars: set = set()             # variables already defined at this point
        self.tmp = 0

    def name(self, v: Var) -> str:
        n = self.names.get(v)
        if n is None:
            self.names[v] = n = f"V{len(self.names)}"
        return n

    def const(self, value) -> str:
        name = f"K{len(self.consts)}"
        self.consts[name] = value
        return name

    def newtmp(self) -> str:
        self.tmp += 1
        return f"t{self.tmp}"

    def emit(self, indent: int, line: str):
        self.lines.append("    " * indent + line)

    # -- head: unify `src` (an expression naming a term) with pattern `p` ----------
    def match(self, p, src: str, ind: int):
        p = deref(p)
        if type(p) is Var:
            name = self.name(p)
            if p not in self.vars:
                self.vars.add(p)
                self.emit(ind, f"{name} = {src}")
            else:
                self.emit(ind, f"if not unify({name}, {src}, trail): return None")
            return
        t = self.newtmp()
        self.emit(ind, f"{t} = {src}")
        self.emit(ind, f"while type({t}) is Var:")
        self.emit(ind + 1, f"r = {t}.ref")
        self.emit(ind + 1, "if r is None: break")
        self.emit(ind + 1, f"{t} = r")
        if type(p) is Struct and not is_ground(p):
            self.emit(ind, f"if type({t}) is Var:")
            # write mode: build the pattern; first-occurrence variables become fresh
            saved = set(self.vars)
            expr = self.build(p, ind + 1)
            self.emit(ind + 1, f"{t}.ref = {expr}; trail.append({t})")
            write_vars = self.vars
            self.vars = saved
            self.emit(ind, f"elif type({t}) is Struct and {t}.name == {p.name!r} "
                           f"and len({t}.args) == {len(p.args)}:")
            ta = self.newtmp()
            self.emit(ind + 1, f"{ta} = {t}.args")
            for i, sub in enumerate(p.args):
                self.match(sub, f"{ta}[{i}]", ind + 1)
            # both branches must define the same variables
            self.vars |= write_vars
            self.emit(ind, "else: return None")
            return
        k = self.const(p)
        tp = type(p)
        self.emit(ind, f"if type({t}) is Var: {t}.ref = {k}; trail.append({t})")
        if tp is Atom:
            self.emit(ind, f"elif {t} is not {k}: return None")
        elif tp is int:
            self.emit(ind, f"elif type({t}) is not int or {t} != {k}: return None")
        else:
            self.emit(ind, f"elif not unify({t}, {k}, trail): return None")

    # -- body: an expression that builds term p from the clause's variables ---------
    def build(self, p, ind: int) -> str:
        p = deref(p)
        if type(p) is Var:
            name = self.name(p)
            if p not in self.vars:
                self.vars.add(p)
                self.emit(ind, f"{name} = Var()")
            return name
        if type(p) is not Struct or is_ground(p):
            return self.const(p)
        # lists: build iteratively from the tail so long list literals stay flat
        items = []
        t = p
        while type(t) is Struct and t.name == "." and len(t.args) == 2 and not is_ground(t):
            items.append(t.args[0])
            t = deref(t.args[1])
        if len(items) > 1:
            expr = self.build(t, ind)
            for it in reversed(items):
                expr = f"Struct('.', ({self.build(it, ind)}, {expr}))"
            return expr
        args = [self.build(a, ind) for a in p.args]
        return f"Struct({p.name!r}, ({', '.join(args)}{',' if len(args) == 1 else ''}))"


def flatten_conj(body):
    goals = []
    stack = [body]
    while stack:
        g = deref(stack.pop())
        if type(g) is Struct and g.name == "," and len(g.args) == 2:
            stack.append(g.args[1])
            stack.append(g.args[0])
        else:
            goals.append(g)
    return goals


def check_body(body, whole):
    """ISO: a clause body must be callable throughout its control structure."""
    stack = [body]
    while stack:
        g = deref(stack.pop())
        if type(g) is Var:
            continue
        if is_connective(g):
            stack.extend(g.args)
            continue
        if type(g) is Struct and g.name == "\\+" and len(g.args) == 1:
            stack.append(g.args[0])
            continue
        _compile_error_if_not_callable(g, whole)


def goal_frame_code(gen: _Gen, goal, nxt: str, ind: int) -> str:
    """Emit code making the frame for one body goal; returns the frame expression."""
    ctx = gen.ctx
    control = ctx.control
    goal = deref(goal)
    if type(goal) is Var:
        v = gen.build(goal, ind)
        return f"(C_call, ({v},), {nxt}, cb, pn)"
    if type(goal) is Atom:
        name, args = goal.name, ()
        if name == "!":
            return f"(C_cut, (), {nxt}, cb, pn)"
        if name == "true":
            return nxt
    else:
        name, args = goal.name, goal.args
    arity = len(args)
    if (name, arity) in CONTROL_NAMES and name not in ("!", ","):
        if name in ("::", ":"):
            g = deref(args[1])
            left = deref(args[0])
            if name == ":" and type(left) is Atom:
                # module qualification: modules are not supported, the goal runs as is
                return goal_frame_code(gen, g, nxt, ind)
            if type(g) is Atom or type(g) is Struct:
                pa = () if type(g) is Atom else g.args
                pk = gen.const(ctx.db.get(g.name, len(pa)))
                built = [gen.build(x, ind) for x in pa]
                tup = f"({', '.join(built)}{',' if len(built) == 1 else ''})"
                return f"(C_gcall, ({pk}, {tup}, {gen.build(left, ind)}), {nxt}, cb, pn)"
        cp = gen.const(control[(name, arity)])
        built = [gen.build(x, ind) for x in args]
        return f"({cp}, ({', '.join(built)}{',' if len(built) == 1 else ''}), {nxt}, cb, pn)"
    if arity == 2 and name in _ARITH_GOALS:
        fast = _arith_goal_frame(gen, name, args, nxt, ind)
        if fast is not None:
            return fast
    pk = gen.const(ctx.db.get(name, arity))
    built = [gen.build(x, ind) for x in args]
    return f"({pk}, ({', '.join(built)}{',' if len(built) == 1 else ''}), {nxt}, cb, pn)"


# -- arithmetic compiled to Python --------------------------------------------------------
# `X is Expr`, the comparisons and computed labels become Python expressions calling the
# evaluator's own functions (same results and errors), instead of building the
# expression term and walking it on every call. Anything else falls back to the
# general evaluator.

_ARITH_GOALS = {"is": None, "<": "<", ">": ">", "=<": "<=", ">=": ">=", "=:=": "==",
                "=\\=": "!="}


def _num_fn():

    def _n(t):
        while type(t) is Var:
            r = t.ref
            if r is None:
                break
            t = r
        if type(t) is int or type(t) is float:
            return t
        return eval_arith(t)
    return _n


def arith_code(gen, t, ind, used: list):
    """Python text computing arithmetic term t, or None; `used` collects variables."""
    t = deref(t)
    tt = type(t)
    if tt is int:
        return repr(t)
    if tt is float:
        return gen.const(t)
    if tt is Var:
        name = gen.build(t, ind)
        if t not in used:
            used.append(t)
        return f"_n({name})"
    if tt is Struct and len(t.args) in (1, 2):
        fn = FUNCTIONS.get((t.name, len(t.args)))
        if fn is None:
            return None
        parts = [arith_code(gen, a, ind, used) for a in t.args]
        if any(p is None for p in parts):
            return None
        return f"{gen.const(fn)}({', '.join(parts)})"
    return None


def _arith_goal_frame(gen, name, args, nxt, ind):
    used: list = []
    if name == "is":
        rhs = arith_code(gen, args[1], ind, used)
        if rhs is None or type(deref(args[1])) is not Struct:
            return None
        target = gen.build(args[0], ind)
        body = f"return unify(X, {rhs}, eng.trail)"
        params = ["X"]
        frame_args = [target]
    else:
        a = arith_code(gen, args[0], ind, used)
        b = arith_code(gen, args[1], ind, used)
        if a is None or b is None:
            return None
        body = f"return {a} {_ARITH_GOALS[name]} {b}"
        params, frame_args = [], []
    names = [gen.name(v) for v in used]
    src = f"def goal(eng, {', '.join(params + names)}):\n    {body}\n"
    ns = {"unify": unify, "_n": _num_fn(), **gen.consts}
    exec(compile(src, "<arith>", "exec"), ns)
    pred = Pred(name, 2)
    pred.kind, pred.fn, pred.defined, pred.builtin = DET, ns["goal"], True, True
    # the goal as written, for the tracer: the frame's arguments replace `params`
    if name == "is":
        hole = Var()
        pred.trace_goal = (Struct(name, (hole, args[1])), [hole] + used)
    else:
        pred.trace_goal = (Struct(name, tuple(args)), used)
    pk = gen.const(pred)
    built = frame_args + names
    return f"({pk}, ({', '.join(built)}{',' if len(built) == 1 else ''}), {nxt}, cb, pn)"


def compile_clause(ctx: CompileContext, head, body, label=None, guard=None):
    """Compile one clause; returns the Python function (see module docstring)."""
    head = deref(head)
    gen = _Gen(ctx)
    ind = 1
    hargs = head.args if type(head) is Struct else ()
    for i, h in enumerate(hargs):
        gen.match(h, f"a[{i}]", ind)
    labelled = label is not None
    if labelled and guard is not None:
        # guard-only variables exist whether or not the call passed a guard
        fresh = [v for v in term_variables(guard) if v not in gen.vars]
        gen.emit(ind, "if g is None:")
        gen.emit(ind + 1, "pass")
        for v in fresh:
            gen.emit(ind + 1, f"{gen.name(v)} = Var()")
        gen.emit(ind, "else:")
        gen.match(guard, "g", ind + 1)  # specialised, like the head arguments
        gen.vars.update(fresh)
    goals = flatten_conj(body) if body is not None else []
    ite = _inline_ite(ctx, goals[0]) if goals and not labelled else None
    if ite is not None:
        _emit_inline_ite(gen, ctx, ite, goals[1:], ind)
    else:
        _emit_frames(gen, [_auxiliary(ctx, g) for g in goals], ind)
    if labelled:
        lab = arith_code(gen, label, ind, []) if type(deref(label)) is Struct else None
        if lab is None:
            lab = gen.build(label, ind)
        gen.emit(ind, f"return ({lab}, nxt)")
        sig = "a, g, nxt, cb, pn, trail"
    else:
        gen.emit(ind, "return nxt")
        sig = "a, nxt, cb, pn, trail"
    src = f"def clause_fn({sig}):\n" + "\n".join(gen.lines) + "\n"
    ns = {"Var": Var, "Struct": Struct, "unify": unify, "undo_to": undo_to, "_n": _num_fn(),
          "C_call": ctx.control[("call", 1)],
          "C_cut": ctx.control[("!", 0)], "C_gcall": ctx.control[("::", 2)]}
    ns.update(gen.consts)
    exec(compile(src, "<clause>", "exec"), ns)
    fn = ns["clause_fn"]
    fn.source = src
    return fn


def _emit_frames(gen, goals, ind):
    # argument construction is emitted in source order (fresh variables appear in
    # text order); the frames are then chained from the last goal back to the first
    exprs = [goal_frame_code(gen, goal, "@NEXT@", ind) for goal in goals]
    for e in reversed(exprs):
        if e != "@NEXT@":      # `true` adds no frame
            gen.emit(ind, "nxt = " + e.replace("@NEXT@", "nxt"))


# -- an opening if-then-else decided in Python -------------------------------------------
# `( C -> T ; E )` as the first goal of a body, with C a deterministic builtin without
# side effects, runs C in the clause function itself (right after the head, as it would
# run anyway) and builds the frames of T or E: no auxiliary call, choice point or cut.
# GROWTREE's `( has_split(Rows, M) -> ... ; ... )` runs at every node of every regrowth.

_INLINE_CONDITIONS = {("has_split", 2), ("var", 1), ("nonvar", 1), ("atom", 1),
                      ("number", 1), ("integer", 1), ("float", 1), ("atomic", 1),
                      ("compound", 1), ("callable", 1), ("is_list", 1), ("==", 2),
                      ("\\==", 2), ("<", 2), (">", 2), ("=<", 2), (">=", 2), ("=:=", 2),
                      ("=\\=", 2)}


def _inline_ite(ctx, goal):
    """(condition pred, its arguments, then-goals, else-goals), or None."""
    g = deref(goal)
    if ctx.engine is None or not (type(g) is Struct and g.name == ";" and len(g.args) == 2):
        return None
    left = deref(g.args[0])
    if not (type(left) is Struct and left.name == "->" and len(left.args) == 2):
        return None
    c = deref(left.args[0])
    if type(c) is not Struct or (c.name, len(c.args)) not in _INLINE_CONDITIONS \
            or _has_cut_or_var(g):
        return None
    pred = ctx.db.get(c.name, len(c.args))
    if pred.kind != DET or not pred.builtin:
        return None
    return pred, c.args, flatten_conj(left.args[1]), flatten_conj(g.args[1])


def _emit_inline_ite(gen, ctx, ite, rest, ind):
    pred, cargs, then_goals, else_goals = ite
    cond = [gen.build(a, ind) for a in cargs]
    _emit_frames(gen, [_auxiliary(ctx, g) for g in rest], ind)  # shared by both branches
    gen.emit(ind, "m = len(trail)")
    gen.emit(ind, f"if {gen.const(pred.fn)}({gen.const(ctx.engine)}, {', '.join(cond)}):")
    saved = set(gen.vars)
    gen.emit(ind + 1, "pass")
    _emit_frames(gen, [_auxiliary(ctx, g) for g in then_goals], ind + 1)
    then_vars = gen.vars
    gen.vars = saved
    gen.emit(ind, "else:")
    gen.emit(ind + 1, "undo_to(trail, m)")
    _emit_frames(gen, [_auxiliary(ctx, g) for g in else_goals], ind + 1)
    gen.vars |= then_vars


# -- control constructs compiled to auxiliary predicates ---------------------------------
# A cut-free (C -> T ; E), (A ; B), (C -> T) or \+ G in a body becomes a call of a new
# predicate with one clause per branch, so it runs as compiled clauses with indexing
# instead of being interpreted on every call. Constructs that contain a cut or a
# variable goal keep the runtime path, which is transparent to cut.

def _has_cut_or_var(t) -> bool:
    stack = [t]
    while stack:
        g = deref(stack.pop())
        if type(g) is Var:
            return True
        if type(g) is Atom and g.name == "!":
            return True
        if type(g) is Struct:
            if is_connective(g):
                stack.extend(g.args)
            elif len(g.args) == 1 and g.name == "\\+":
                stack.append(g.args[0])
            elif g.name in ("call", "findall", "forall", "catch", "bagof", "setof",
                            "aggregate_all", "\\+", "not"):
                continue  # opaque to cut
    return False


def _auxiliary(ctx, g):
    g = deref(g)
    if type(g) is not Struct:
        return g
    name, n = g.name, len(g.args)
    if not ((n == 2 and name in (";", "->", "|")) or (n == 1 and name == "\\+")):
        return g
    if name == ";" and type(deref(g.args[0])) is Struct and \
            deref(g.args[0]).name == "*->":
        return g
    if _has_cut_or_var(g):
        return g
    vs = term_variables(g)
    ctx.aux_count = getattr(ctx, "aux_count", 0) + 1
    aux = f"$aux{ctx.aux_count}"
    head = Struct(aux, tuple(vs)) if vs else Atom(aux)
    cut = Atom("!")
    if name == "\\+":
        branches = [Struct(",", (g.args[0], Struct(",", (cut, Atom("fail"))))), None]
    elif name == "->":
        branches = [Struct(",", (g.args[0], Struct(",", (cut, g.args[1]))))]
    else:
        left = deref(g.args[0])
        if type(left) is Struct and left.name == "->" and len(left.args) == 2:
            branches = [Struct(",", (left.args[0], Struct(",", (cut, left.args[1])))),
                        g.args[1]]
        else:
            branches = [g.args[0], g.args[1]]
    pred = ctx.db.get(aux, len(vs))
    for b in branches:
        fn = compile_clause(ctx, head, b)
        c = Clause(head, b if b is not None else Atom("true"), fn,
                   first_arg_key(deref(head.args[0])) if vs else None)
        pred.add_last(c)
    pred.library = True
    return head
