"""The engine's layout, read from its source (AST only, nothing imported): it never imports
Blender, imports its own modules relatively, has no import circle, keeps underscore names private
to their module, and holds no development benchmark."""
import ast
import os
from pathlib import Path

from conftest import ROOT

ENGINE = ROOT / "engine"
BLENDER = {"bpy", "mathutils", "bmesh", "bpy_extras", "gpu", "blf"}


def _modules() -> dict:
    """Dotted name ("engine.solve.driver", "engine.solve" for a package) -> parsed source."""
    found = {}
    for folder, dirs, files in os.walk(ENGINE):
        dirs[:] = [d for d in dirs if d != "__pycache__"]
        for name in files:
            if name.endswith(".py"):
                path = Path(folder) / name
                parts = list(path.relative_to(ROOT).with_suffix("").parts)
                if parts[-1] == "__init__":
                    parts.pop()
                found[".".join(parts)] = (path, ast.parse(path.read_text(encoding="utf-8"), str(path)))
    return found


MODULES = _modules()


def _package_of(name: str) -> str:
    path = MODULES[name][0]
    return name if path.name == "__init__.py" else name.rsplit(".", 1)[0]


def _imports(name: str):
    """(node, target module, imported names) for every import in the module, at any depth
    (function-level imports too: a lazy import is still an import)."""
    for node in ast.walk(MODULES[name][1]):
        if isinstance(node, ast.Import):
            for a in node.names:
                yield node, a.name, []
        elif isinstance(node, ast.ImportFrom):
            if node.level:
                base = _package_of(name).split(".")
                base = base[:len(base) - (node.level - 1)]
                target = ".".join(base + ([node.module] if node.module else []))
            else:
                target = node.module or ""
            yield node, target, [a.name for a in node.names]


def _edges(name: str) -> set:
    """The engine modules ``name`` imports (a submodule imported by ``from pkg import mod`` counts
    as that module, not its package)."""
    out = set()
    for _, target, names in _imports(name):
        if not target.startswith("engine"):
            continue
        subs = [f"{target}.{n}" for n in names if f"{target}.{n}" in MODULES]
        out.update(subs)
        if len(subs) < len(names) or not names:
            out.add(target)
    out.discard(name)
    return out


def test_the_engine_is_grouped_into_parts():
    assert len(MODULES) > 40
    packages = {n for n, (p, _) in MODULES.items() if p.name == "__init__.py" and n != "engine"}
    assert {"engine.lines", "engine.solve", "engine.design", "engine.files"} <= packages
    top = {n for n in MODULES if n.count(".") == 1 and n not in packages}
    # beside the entry point, only the process-wide machinery every part uses: the JIT shim, the
    # compile gate and its warm-up, and the garbage collector's hold (solve, design, the CLI)
    assert top <= {"engine.__main__", "engine.jit", "engine.gate", "engine.warmup", "engine.gcpause"}, top


def test_engine_never_imports_blender():
    bad = [(name, target) for name in MODULES for _, target, _ in _imports(name)
           if target.split(".")[0] in BLENDER]
    assert not bad


def test_engine_imports_itself_relatively_only():
    bad = [(name, node.lineno, target) for name in MODULES for node, target, _ in _imports(name)
           if isinstance(node, ast.Import) and target.split(".")[0] in ("engine", "operators", "panels")
           or isinstance(node, ast.ImportFrom) and not node.level
           and target.split(".")[0] in ("engine", "operators", "panels", "batch", "batchjobs")]
    assert not bad


def test_every_relative_import_names_a_module_that_exists():
    bad = [(name, target) for name in MODULES for node, target, _ in _imports(name)
           if isinstance(node, ast.ImportFrom) and node.level and target not in MODULES]
    assert not bad


def _circles() -> list:
    """Strongly connected components of more than one module (Tarjan)."""
    graph = {n: _edges(n) & MODULES.keys() for n in MODULES}
    index, low, stack, on, out = {}, {}, [], set(), []

    def visit(v):
        index[v] = low[v] = len(index)
        stack.append(v)
        on.add(v)
        for w in graph[v]:
            if w not in index:
                visit(w)
                low[v] = min(low[v], low[w])
            elif w in on:
                low[v] = min(low[v], index[w])
        if low[v] == index[v]:
            comp = []
            while True:
                w = stack.pop()
                on.discard(w)
                comp.append(w)
                if w == v:
                    break
            if len(comp) > 1:
                out.append(sorted(comp))
    for n in sorted(graph):
        if n not in index:
            visit(n)
    return out


def test_no_import_circle_among_engine_modules():
    assert _circles() == []


def test_the_circle_finder_finds_a_circle():
    graph_backup = dict(MODULES)
    try:
        MODULES["engine.lines.linesolve"] = (MODULES["engine.lines.linesolve"][0],
                                             ast.parse("from ..solve import driver"))
        assert any("engine.lines.linesolve" in c for c in _circles())
    finally:
        MODULES.clear()
        MODULES.update(graph_backup)


def test_no_underscore_name_is_imported_across_modules():
    bad = []
    for name in MODULES:
        for node, target, names in _imports(name):
            if not target.startswith("engine") or target == name:
                continue
            bad += [(name, target, n) for n in names
                    if n.startswith("_") and not n.startswith("__") and f"{target}.{n}" not in MODULES]
    assert not bad


def test_no_underscore_attribute_of_another_engine_module():
    """``from . import propagate`` then ``propagate._kernel``: private all the same."""
    bad = []
    for name in MODULES:
        bound = {}
        for node, target, names in _imports(name):
            if isinstance(node, ast.ImportFrom) and target.startswith("engine"):
                for a in node.names:
                    if f"{target}.{a.name}" in MODULES:
                        bound[a.asname or a.name] = f"{target}.{a.name}"
        for node in ast.walk(MODULES[name][1]):
            if (isinstance(node, ast.Attribute) and isinstance(node.value, ast.Name)
                    and node.value.id in bound and node.attr.startswith("_")
                    and not node.attr.startswith("__") and bound[node.value.id] != name):
                bad.append((name, f"{node.value.id}.{node.attr}", node.lineno))
    assert not bad


def test_no_benchmark_or_flat_cli_module_in_the_engine():
    bad = [n for n in MODULES if n.rsplit(".", 1)[-1].startswith(("bench_", "cli_"))]
    assert not bad


def test_kernel_modules_have_distinct_file_names():
    """numba names a kernel's cache files after its module's last name (and the function, and its
    line): two kernel modules of one name in different parts would share cache file names."""
    kernel_modules = [n for n in MODULES if any(target.endswith("jit") and "njit" in names
                                                for _, target, names in _imports(n))]
    assert len(kernel_modules) > 20
    last = [n.rsplit(".", 1)[-1] for n in kernel_modules]
    assert len(set(last)) == len(last), sorted(n for n in kernel_modules if last.count(n.rsplit(".", 1)[-1]) > 1)
