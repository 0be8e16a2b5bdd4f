"""The project's import graph (AST only, no import runs): no circles, and no import from a lower
layer up to a higher one. The layer table is LAYERS below; docs/DEVELOPING.md shows the same
table (a test checks they agree).

Every import counts, also one inside a function (it still ties the two modules together); only
imports under ``if TYPE_CHECKING:`` are exempt (mypy reads them, Python never runs them).
Imports through ``importlib`` with a computed name (``runtime.engine``, ``batch.Addon``) are not
seen: ``jobs/engine_access.py`` is the one place that names engine modules for the add-on.
"""
from __future__ import annotations

import ast
import re
from pathlib import Path

import pytest

ROOT = Path(__file__).resolve().parent.parent
PACKAGE = "nonogram3d"  # the name Blender gives the checkout (the root is the package)

# Layer of each top-level part, highest first; a module may import its own part and the parts of
# lower layers only. Parts of one layer do not import each other.
LAYERS = {
    "root": 4,        # __init__.py (register), batch.py, batchjobs.py, cli_command.py
    "operators": 3,   # registered operator classes
    "panels": 3,      # display: panels, menus, preferences UI
    "scene": 2,       # datablock writers and readers, stored property groups, shared polls
    "jobs": 1,        # engine loading and typed access, worker threads, warm-up, live check
    "engine": 0,      # pure Python + numpy + numba, no bpy
}
# The only module above the engine that may name engine modules (under TYPE_CHECKING, for mypy;
# at run time it imports them lazily through jobs/runtime.py).
ENGINE_GATE = f"{PACKAGE}.jobs.engine_access"
SKIP_DIRS = {"tests", "benchmarks", "scripts", "web", "docs", "__pycache__"}


def _module_files() -> dict:
    """Module name -> file for the project's own Python files."""
    found = {}
    for path in sorted(ROOT.rglob("*.py")):
        rel = path.relative_to(ROOT)
        top = rel.parts[0]
        if top.startswith(".") or top in SKIP_DIRS or (len(rel.parts) > 1 and top not in LAYERS):
            continue
        parts = list(rel.with_suffix("").parts)
        if parts[-1] == "__init__":
            parts = parts[:-1]
        found[".".join([PACKAGE, *parts])] = path
    return found


def part_of(module: str) -> str:
    parts = module.split(".")
    return parts[1] if len(parts) > 2 or (len(parts) == 2 and parts[1] in LAYERS) else "root"


def _is_type_checking(test: ast.expr) -> bool:
    return (isinstance(test, ast.Name) and test.id == "TYPE_CHECKING") or \
        (isinstance(test, ast.Attribute) and test.attr == "TYPE_CHECKING")


def _imports(tree: ast.AST):
    """Import nodes, skipping the bodies of ``if TYPE_CHECKING:`` (their else branch counts)."""
    stack = [tree]
    while stack:
        node = stack.pop()
        if isinstance(node, ast.If) and _is_type_checking(node.test):
            stack.extend(node.orelse)
            continue
        if isinstance(node, (ast.Import, ast.ImportFrom)):
            yield node
        stack.extend(ast.iter_child_nodes(node))


def _edges(modules: dict) -> dict:
    """Module -> set of project modules it imports."""
    graph: dict = {m: set() for m in modules}
    for mod, path in modules.items():
        is_pkg = path.name == "__init__.py"
        here = mod.split(".") if is_pkg else mod.split(".")[:-1]
        for node in _imports(ast.parse(path.read_text(encoding="utf-8"), str(path))):
            if isinstance(node, ast.Import):
                targets = [a.name for a in node.names]
            else:
                if node.level:
                    base = here[:len(here) - (node.level - 1)]
                    stem = ".".join(base + ([node.module] if node.module else []))
                else:
                    stem = node.module or ""
                # a name that is a submodule is an import of it; any other name one of the stem
                # (importing a submodule runs its parents' __init__ too: not counted as an edge)
                targets = [f"{stem}.{a.name}" if f"{stem}.{a.name}" in modules else stem
                           for a in node.names]
            for t in targets:
                # the longest project module the name refers to (a.b.name -> a.b)
                while t and t not in modules:
                    t = t.rpartition(".")[0]
                if t and t != mod:
                    graph[mod].add(t)
    return graph


def _sccs(graph: dict) -> list:
    """Strongly connected components (Tarjan, iterative), each a sorted list."""
    index: dict = {}
    low: dict = {}
    on_stack: set = set()
    stack: list = []
    out = []
    counter = 0
    for start in graph:
        if start in index:
            continue
        work = [(start, iter(sorted(graph[start])))]
        index[start] = low[start] = counter
        counter += 1
        stack.append(start)
        on_stack.add(start)
        while work:
            v, it = work[-1]
            for w in it:
                if w not in index:
                    index[w] = low[w] = counter
                    counter += 1
                    stack.append(w)
                    on_stack.add(w)
                    work.append((w, iter(sorted(graph[w]))))
                    break
                if w in on_stack:
                    low[v] = min(low[v], index[w])
            else:
                work.pop()
                if work:
                    low[work[-1][0]] = min(low[work[-1][0]], low[v])
                if low[v] == index[v]:
                    comp = []
                    while True:
                        w = stack.pop()
                        on_stack.discard(w)
                        comp.append(w)
                        if w == v:
                            break
                    out.append(sorted(comp))
    return out


@pytest.fixture(scope="module")
def graph() -> dict:
    return _edges(_module_files())


def test_the_graph_sees_every_layer(graph):
    # a test that can fail: the walk found the packages and real edges between them
    assert {part_of(m) for m in graph} == set(LAYERS)
    assert f"{PACKAGE}.scene.store" in graph[f"{PACKAGE}.scene.build"]
    assert ENGINE_GATE in graph[f"{PACKAGE}.scene.store"]


def test_no_circles_above_the_engine(graph):
    circles = [c for c in _sccs(graph) if len(c) > 1 and any(part_of(m) != "engine" for m in c)]
    assert not circles, "import circles:\n" + "\n".join(" ⇄ ".join(c) for c in circles)


def test_no_circles_in_the_engine(graph):
    circles = [c for c in _sccs(graph) if len(c) > 1 and all(part_of(m) == "engine" for m in c)]
    assert not circles, "import circles in the engine:\n" + "\n".join(" ⇄ ".join(c) for c in circles)


def test_imports_go_down_the_layers(graph):
    wrong = []
    for mod, targets in graph.items():
        a = part_of(mod)
        for t in targets:
            b = part_of(t)
            if a == b:
                continue
            if LAYERS[b] >= LAYERS[a]:
                wrong.append(f"{mod} ({a}) imports {t} ({b})")
            elif b == "engine" and mod != ENGINE_GATE:
                wrong.append(f"{mod} imports {t}: the engine is reached through {ENGINE_GATE}")
    assert not wrong, "\n".join(sorted(wrong))


def test_the_checker_finds_a_circle_and_an_upward_import():
    g = {"nonogram3d.scene.a": {"nonogram3d.scene.b"}, "nonogram3d.scene.b": {"nonogram3d.scene.a"},
         "nonogram3d.jobs.c": {"nonogram3d.panels.d"}, "nonogram3d.panels.d": set()}
    assert ["nonogram3d.scene.a", "nonogram3d.scene.b"] in _sccs(g)
    assert LAYERS[part_of("nonogram3d.panels.d")] > LAYERS[part_of("nonogram3d.jobs.c")]
    assert part_of("nonogram3d.batch") == "root" and part_of("nonogram3d") == "root"
    assert part_of("nonogram3d.engine") == "engine"


def test_the_guide_shows_the_same_layers():
    text = (ROOT / "docs" / "DEVELOPING.md").read_text(encoding="utf-8")
    rows = re.findall(r"^\| `([a-z_]+)/?` \| (\d) \|", text, flags=re.M)
    assert {name: int(rank) for name, rank in rows} == LAYERS
