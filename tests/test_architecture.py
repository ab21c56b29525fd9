"""The shape of the code: no import cycles between packages at any level, modules of a
few hundred lines, and the layers at the bottom (terms, lang, logic) kept apart from
what is built on them.

Every import in slpy/ counts, those inside functions included (relative ones
resolved). At depth d each module is collapsed to its ancestor package at that depth
(``slpy.logic.builtins.atoms`` is ``slpy.logic`` at depth 1; a top-level module such as
``slpy/cli.py`` is its own node), and the strongly connected components of more than
one node are the cycles.

KNOWN_CYCLES and KNOWN_LONG list what is still to fix, exactly: the test fails when
a new cycle or long module appears, and also when a listed one is gone, so whoever
fixes one removes it from the list.
"""
from __future__ import annotations

import ast
import re
import sys
from pathlib import Path

SLPY = Path(__file__).resolve().parents[1] / "slpy"

KNOWN_CYCLES: set = set()

KNOWN_LONG: set = set()

MAX_LINES = 500

# what each bottom layer may import of slpy (itself included)
LAYERS = {
    "slpy.terms": {"slpy.terms", "slpy.errors"},
    "slpy.lang": {"slpy.lang", "slpy.terms", "slpy.errors"},
    "slpy.logic": {"slpy.logic", "slpy.lang", "slpy.terms", "slpy.errors"},
}


# -- the import graph -----------------------------------------------------------------

def _modules() -> dict:
    """Module name -> (path, is_package) for every .py file in slpy/."""
    out = {}
    for path in sorted(SLPY.rglob("*.py")):
        parts = list(path.relative_to(SLPY.parent).with_suffix("").parts)
        is_pkg = parts[-1] == "__init__"
        if is_pkg:
            parts = parts[:-1]
        out[".".join(parts)] = (path, is_pkg)
    return out


MODULES = _modules()


def _imports(name: str) -> list:
    """(line, module of slpy) for every import statement of module `name`."""
    path, is_pkg = MODULES[name]
    out = []
    for node in ast.walk(ast.parse(path.read_text(encoding="utf-8"))):
        if isinstance(node, ast.Import):
            targets = [a.name for a in node.names]
        elif isinstance(node, ast.ImportFrom):
            if node.level:
                base = name.split(".")[:len(name.split(".")) - (0 if is_pkg else 1)]
                base = base[:len(base) - node.level + 1]
                mod = ".".join(base + ([node.module] if node.module else []))
            else:
                mod = node.module
            # `from pkg import mod` imports the module pkg.mod
            targets = [f"{mod}.{a.name}" if f"{mod}.{a.name}" in MODULES else mod
                       for a in node.names]
        else:
            continue
        for t in targets:
            while t not in MODULES and "." in t:
                t = t.rsplit(".", 1)[0]
            if t in MODULES and t != name and (node.lineno, t) not in out:
                out.append((node.lineno, t))
    return out


EDGES = {name: _imports(name) for name in MODULES}


def _collapse(name: str, depth: int) -> str:
    return ".".join(name.split(".")[:depth + 1])


def _components(nodes: set, adj: dict) -> list:
    """Strongly connected components (Tarjan's algorithm, iterative)."""
    index, low, on_stack, stack, out = {}, {}, set(), [], []
    counter = 0
    for root in sorted(nodes):
        if root in index:
            continue
        work = [(root, iter(sorted(adj.get(root, ()))))]
        index[root] = low[root] = counter
        counter += 1
        stack.append(root)
        on_stack.add(root)
        while work:
            v, it = work[-1]
            w = next(it, None)
            if w is not None:
                if w not in index:
                    index[w] = low[w] = counter
                    counter += 1
                    stack.append(w)
                    on_stack.add(w)
                    work.append((w, iter(sorted(adj.get(w, ())))))
                elif w in on_stack:
                    low[v] = min(low[v], index[w])
                continue
            work.pop()
            if work:
                low[work[-1][0]] = min(low[work[-1][0]], low[v])
            if low[v] == index[v]:
                comp = set()
                while True:
                    w = stack.pop()
                    on_stack.discard(w)
                    comp.add(w)
                    if w == v:
                        break
                out.append(frozenset(comp))
    return out


def import_cycles() -> dict:
    """Each cycle (a set of nodes) -> the depth at which it first appears."""
    depth_max = max(len(n.split(".")) for n in MODULES)
    found: dict = {}
    for depth in range(1, depth_max):
        adj: dict = {}
        nodes = set()
        for a, targets in EDGES.items():
            ca = _collapse(a, depth)
            nodes.add(ca)
            for _, b in targets:
                cb = _collapse(b, depth)
                nodes.add(cb)
                if ca != cb:
                    adj.setdefault(ca, set()).add(cb)
        for comp in _components(nodes, adj):
            if len(comp) > 1:
                found.setdefault(comp, depth)
    return found


def _witness(comp) -> str:
    """One import for each link of a cycle, for the failure message."""
    links = {}
    for a, targets in sorted(EDGES.items()):
        for line, b in targets:
            ca = next((c for c in comp if a == c or a.startswith(c + ".")), None)
            cb = next((c for c in comp if b == c or b.startswith(c + ".")), None)
            if ca and cb and ca != cb and (ca, cb) not in links:
                links[ca, cb] = f"{MODULES[a][0].relative_to(SLPY.parent)}:{line} imports {b}"
    return "\n".join(f"    {ca} -> {cb}  ({where})" for (ca, cb), where in links.items())


# -- the tests ---------------------------------------------------------------------------

def test_the_import_walk_sees_what_it_must():
    # relative imports, function-level imports and `from pkg import module` resolve
    assert any(t == "slpy.logic.plugins" for _, t in EDGES["slpy.logic.program"])
    assert any(t == "slpy.logic.builtins.atoms" for _, t in EDGES["slpy.logic.program"])
    assert any(t == "slpy.data.builtins" for _, t in EDGES["slpy"])   # inside a function
    assert _collapse("slpy.logic.builtins.atoms", 1) == "slpy.logic"
    assert _collapse("slpy.cli", 2) == "slpy.cli"
    comps = _components({"a", "b", "c", "d"}, {"a": {"b"}, "b": {"a", "c"}, "c": {"d"}})
    assert sorted(map(sorted, comps)) == [["a", "b"], ["c"], ["d"]]


def test_no_new_import_cycles():
    cycles = import_cycles()
    new = [c for c in cycles if c not in KNOWN_CYCLES]
    assert not new, "import cycles between packages:\n" + "\n".join(
        f"  at depth {cycles[c]}: {', '.join(sorted(c))}\n{_witness(c)}" for c in new)


def test_known_cycles_are_still_there():
    gone = [c for c in KNOWN_CYCLES if c not in import_cycles()]
    assert not gone, ("these cycles are gone (or changed): remove them from "
                      "KNOWN_CYCLES in tests/test_architecture.py:\n"
                      + "\n".join(f"  {', '.join(sorted(c))}" for c in gone))


def _long_modules() -> dict:
    out = {}
    for name, (path, _) in MODULES.items():
        text = path.read_text(encoding="utf-8")
        n = len(text.splitlines())
        doc = ast.get_docstring(ast.parse(text)) or ""
        if n > MAX_LINES and "over 500 lines" not in doc:
            out[str(path.relative_to(SLPY.parent))] = n
    return out


def test_no_new_long_modules():
    new = {p: n for p, n in _long_modules().items() if p not in KNOWN_LONG}
    assert not new, (f"modules over {MAX_LINES} lines whose docstring does not say why "
                     f"('over 500 lines' and the reason): {new}")


def test_known_long_modules_are_still_long():
    gone = sorted(KNOWN_LONG - set(_long_modules()))
    assert not gone, f"remove from KNOWN_LONG in tests/test_architecture.py: {gone}"


def test_bottom_layers_import_only_what_is_below():
    bad = []
    for name, targets in EDGES.items():
        layer = next((lay for lay in LAYERS if name == lay or name.startswith(lay + ".")),
                     None)
        if layer is None:
            continue
        for line, t in targets:
            if not any(t == ok or t.startswith(ok + ".") for ok in LAYERS[layer]):
                bad.append(f"{MODULES[name][0].relative_to(SLPY.parent)}:{line} imports {t}")
    assert not bad, "\n".join(bad)


_PLUGIN_NAME = re.compile(r"\bslpy\.(data|pcfg|bn|trees|mcmc|estimator|report)\b")


def test_bottom_layers_do_not_name_plugins_in_code():
    # not even by string (importlib): the plugins register themselves
    bad = []
    for name, (path, _) in MODULES.items():
        if not any(name == lay or name.startswith(lay + ".") for lay in LAYERS):
            continue
        tree = ast.parse(path.read_text(encoding="utf-8"))
        docstrings = {id(n.body[0].value) for n in ast.walk(tree)
                      if isinstance(n, (ast.Module, ast.ClassDef, ast.FunctionDef))
                      and n.body and isinstance(n.body[0], ast.Expr)
                      and isinstance(n.body[0].value, ast.Constant)}
        for node in ast.walk(tree):
            if isinstance(node, (ast.Import, ast.ImportFrom)) and any(
                    a.name == "importlib" for a in node.names) or (
                    isinstance(node, ast.ImportFrom) and node.module == "importlib"):
                bad.append(f"{path.name}:{node.lineno}: importlib")
            if isinstance(node, ast.Constant) and isinstance(node.value, str) and \
                    id(node) not in docstrings and _PLUGIN_NAME.search(node.value):
                bad.append(f"{path.name}:{node.lineno}: {node.value!r}")
    assert not bad, "\n".join(bad)


def test_nothing_inside_slpy_imports_the_root_package():
    bad = [f"{MODULES[a][0].relative_to(SLPY.parent)}:{line}"
           for a, targets in EDGES.items() for line, t in targets if t == "slpy"]
    assert not bad, ("the root package loads the plugins; import __version__ from "
                     f"slpy._version: {bad}")


def test_import_slpy_does_not_load_the_plugins():
    # they load with the first program: the data plugin brings numba
    import subprocess
    code = ("import sys, slpy; print(sorted(m for m in sys.modules "
            "if m.split('.')[0] == 'numba' or m.startswith(('slpy.data', 'slpy.pcfg'))))")
    run = [sys.executable, "-c", code]
    assert subprocess.run(run, capture_output=True, text=True, check=True).stdout == "[]\n"
    code += "; slpy.Program(); print('numba' in sys.modules)"
    out = subprocess.run([sys.executable, "-c", code], capture_output=True, text=True,
                         check=True).stdout
    assert out.split("\n")[1] == "True"



# what `slpy --version` must not wait for: numba and llvmlite alone take a second, pandas,
# scipy and numpy a tenth each (issue 27: the whole command in under 0.3 s)
HEAVY = ("numba", "llvmlite", "pandas", "scipy", "numpy")


def test_the_command_line_starts_without_the_heavy_libraries():
    import subprocess
    code = ("import sys\n"
            "from slpy.cli import main\n"
            "heavy = lambda: sorted({m.split('.')[0] for m in sys.modules} & set(%r))\n"
            "print(heavy())\n"
            "for args in (['--version'], ['--help'], ['run', '--help'], ['exact', '--help']):\n"
            "    try:\n"
            "        main(args)\n"
            "    except SystemExit:\n"
            "        pass\n"
            "    print(heavy())\n" % (HEAVY,))
    out = subprocess.run([sys.executable, "-c", code], cwd=SLPY.parent, capture_output=True,
                         text=True, check=True).stdout.splitlines()
    loaded = [line for line in out if line.startswith("[")]
    assert loaded == ["[]"] * 5, out
    # --help still lists every command, each with its one-line help
    assert all(f"  {c} " in "\n".join(out) for c in
               ("run", "exact", "learn", "compare", "report", "predict", "query", "export"))
    # and the check sees a heavy import: a command that runs loads them
    code = "import sys, slpy.cli, slpy.learning.em; print('scipy' in sys.modules)"
    assert subprocess.run([sys.executable, "-c", code], cwd=SLPY.parent, capture_output=True,
                          text=True, check=True).stdout == "True\n"

# -- docs/architecture.md stays true ----------------------------------------------------

ARCH_DOC = SLPY.parent / "docs" / "architecture.md"
_PATH_IN_DOC = re.compile(r"`((?:slpy|benchmarks|grammars|priors)/[\w./]*)`")


def test_architecture_page_names_only_what_exists():
    named = set(_PATH_IN_DOC.findall(ARCH_DOC.read_text(encoding="utf-8")))
    assert len(named) > 40
    missing = sorted(p for p in named if not (SLPY.parent / p).exists())
    assert not missing, f"docs/architecture.md names what does not exist: {missing}"


def test_architecture_page_shows_every_part():
    text = ARCH_DOC.read_text(encoding="utf-8")
    parts = sorted(p.name for p in SLPY.iterdir()
                   if p.is_dir() and (p / "__init__.py").exists())
    absent = [p for p in parts if f"slpy/{p}" not in text]
    assert not absent, f"docs/architecture.md does not show these parts: {absent}"
