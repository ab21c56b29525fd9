"""Builtins written in Python, and the plugins that bring more of them to a program.

A builtin is a Python function called with the engine first and then the call's
arguments (not dereferenced). It is registered in a :class:`Plugin`'s table with one
of three decorators:

- ``@plugin.det("name", N)``: a function returning True (success, bindings made on
  ``eng.trail``) or False (failure; the engine undoes the bindings).
- ``@plugin.nondet("name", N)``: a generator. Each ``yield`` is one solution. Before
  asking for the next solution the engine undoes the bindings of the previous one, so
  the generator must not rely on them; use ``eng.try_unify`` (which undoes a partial
  unification itself) for each candidate. A generator that knows an answer is its
  last yields ``LAST`` for it: the engine then leaves no choice point, so the top
  level prints that answer with a full stop, as SWI-Prolog does for nth0(1, [a,b], X).
- ``@plugin.stochastic("name", N)``: a choice point like a labelled call. The function
  returns ``(target, candidates)`` where candidates is a list of ``(weight, value,
  key)`` or a :class:`UniformChoice`; the engine draws one in proportion to its weight
  and unifies ``target`` with its value. ``key`` (hashable) identifies the candidate in
  proof trees, so replay can force the same choice; on backtracking the engine draws
  again among the untried candidates.

Errors are raised as ``PrologError`` (constructors in :mod:`slpy.terms.errors`). What
a builtin may use of the engine: ``eng.trail``, ``eng.unify(a, b)``,
``eng.try_unify(a, b)``, ``eng.flags`` (the Prolog flags), ``eng.ops`` (the operator
table), ``eng.write(text)`` (current output), ``eng.db`` (the clause store),
``eng.program`` and ``eng.plugin_state`` (below).

The core builtins (:mod:`slpy.logic.builtins`) are the table every program has. A
plugin is a package's own table: slpy's data builtins (``data_rows/1``,
``uniform_split/3``: :mod:`slpy.data.builtins`), its PCFG builtins (:mod:`slpy.pcfg.builtins`)
and its network builtins (:mod:`slpy.bn.builtins`) are plugins. A package makes its
plugin known with :func:`register`; a :class:`~slpy.logic.program.Program` installs
every registered plugin, or those it is given (``Program(plugins=[...])``). A plugin
keeps its state for one program in ``eng.plugin_state[plugin.name]`` (nothing else is
added to the engine), and its ``attach(program, data)``, if it has one, gives a program
its data (``Program.attach(name, data)``).

slpy/logic never imports a plugin. slpy's own are imported by the function that
``import slpy`` hands to :func:`add_loader`, which runs when the registry is first read
(when the first program is made): the data plugin loads numba, which a plain
``import slpy`` should not.
"""
from __future__ import annotations

__all__ = ["Plugin", "UniformChoice", "LAST", "register", "registered", "get", "add_loader", "load"]


# what a nondeterministic builtin yields for its last answer (see above)
LAST = "$last"


class Plugin:
    """A named table of builtins, ``builtins[(name, arity)] = (kind, fn)``, and the
    optional ``attach(program, data)`` that gives a program the data they work on."""

    def __init__(self, name: str, attach=None):
        self.name = name
        self.builtins: dict[tuple[str, int], tuple[str, object]] = {}
        self._attach = attach

    def __repr__(self):
        return f"Plugin({self.name!r}, {len(self.builtins)} builtins)"

    def _register(self, kind, name, arity):
        def register(fn):
            self.builtins[(name, arity)] = (kind, fn)
            return fn
        return register

    def det(self, name: str, arity: int):
        return self._register("det", name, arity)

    def nondet(self, name: str, arity: int):
        return self._register("nondet", name, arity)

    def stochastic(self, name: str, arity: int):
        return self._register("stochastic", name, arity)

    def attach(self, program, data) -> None:
        if self._attach is None:
            raise ValueError(f"the {self.name} plugin takes no data")
        self._attach(program, data)


class UniformChoice:
    """Candidates of a stochastic builtin drawn uniformly, without building them all.

    ``n`` candidates; ``value(i)`` builds the term of candidate i, ``key(i)`` its
    hashable identity, and ``index_of(key)`` finds a candidate again (for replay), or
    returns None. A builtin returns ``(target, UniformChoice(...))`` instead of a list.
    """
    __slots__ = ("n", "value", "key", "index_of")

    def __init__(self, n, value, key, index_of):
        self.n = n
        self.value = value
        self.key = key
        self.index_of = index_of

    def materialise(self):
        return [(1.0, self.value(i), self.key(i)) for i in range(self.n)]


_PLUGINS: dict[str, Plugin] = {}
_LOADERS: list = []


def register(plugin: Plugin) -> Plugin:
    """Make a plugin known: programs made from now on install it (by default)."""
    if not isinstance(plugin, Plugin) or not plugin.name:
        raise TypeError("a plugin must be a Plugin with a name")
    _PLUGINS[plugin.name] = plugin
    return plugin


def add_loader(load) -> None:
    """Run ``load()`` (which imports modules that register plugins) the first time the
    registry is read."""
    _LOADERS.append(load)


def load() -> None:
    """Run the loaders not run yet (slpy.family uses it too: slpy's model families
    load with its plugins)."""
    while _LOADERS:
        _LOADERS.pop(0)()


def registered() -> list:
    """The registered plugins, in the order they registered."""
    load()
    return list(_PLUGINS.values())


def get(name: str) -> Plugin:
    load()
    try:
        return _PLUGINS[name]
    except KeyError:
        raise KeyError(f"no plugin named {name!r} (known: {', '.join(_PLUGINS)})") from None
