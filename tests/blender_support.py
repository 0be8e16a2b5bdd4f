"""Helpers for the Blender tests: the real bpy module, and the add-on loaded as a package.

The checkout's directory name is not stable (a CI clone may have any name), so the repo root is
loaded under the fixed package name ``nonogram3d`` from its ``__init__.py``, the way Blender loads
an extension under ``bl_ext.<repo>.<id>``; its subpackages then import as ``nonogram3d.engine``,
``nonogram3d.operators``, ...
"""
from __future__ import annotations

import importlib.util
import sys
from pathlib import Path

import numpy as np
import pytest

ROOT = Path(__file__).resolve().parent.parent
PACKAGE = "nonogram3d"

bpy = pytest.importorskip("bpy", reason="needs the bpy module (pip install bpy==5.0.1, Python 3.11)")


def load_addon():
    """The add-on package ``nonogram3d`` (imported once per process, not registered)."""
    mod = sys.modules.get(PACKAGE)
    if mod is not None:
        return mod
    spec = importlib.util.spec_from_file_location(PACKAGE, ROOT / "__init__.py",
                                                  submodule_search_locations=[str(ROOT)])
    mod = importlib.util.module_from_spec(spec)
    sys.modules[PACKAGE] = mod
    try:
        spec.loader.exec_module(mod)
    except BaseException:
        del sys.modules[PACKAGE]
        raise
    return mod


def engine(name: str):
    """An engine module of the add-on, imported the way the add-on imports it (runtime.engine:
    numba's cache in the add-on's folder, not the source tree's, which the top-level ``engine``
    package of the engine tests writes with its own module names)."""
    load_addon()
    return importlib.import_module(f"{PACKAGE}.operators.runtime").engine(name)


def is_registered() -> bool:
    return hasattr(bpy.types, "NONOGRAM_OT_make")


def ensure_registered():
    addon = load_addon()
    if not is_registered():
        addon.register()
    return addon


@pytest.fixture(autouse=True)
def addon():
    """The registered add-on package, on an empty scene (import it into a test module to use it)."""
    mod = ensure_registered()
    reset_scene()
    return mod


def addon_module(name: str):
    """``operators.scene``-style names inside the add-on; ``engine.X`` as the add-on imports it."""
    if name.startswith("engine."):
        return engine(name[len("engine."):])
    return importlib.import_module(f"{PACKAGE}.{name}")


def reset_scene():
    """Factory settings with no data; registered classes survive."""
    bpy.ops.wm.read_factory_settings(use_empty=True)
    return bpy.context


def view3d_override():
    """Context members for operators that need a 3D View (background mode still has one)."""
    win = bpy.context.window_manager.windows[0]
    area = next(a for a in win.screen.areas if a.type == 'VIEW_3D')
    region = next(r for r in area.regions if r.type == 'WINDOW')
    return dict(window=win, screen=win.screen, area=area, region=region)


def data_counts() -> dict:
    d = bpy.data
    return {k: len(getattr(d, k)) for k in ("objects", "meshes", "collections", "node_groups",
                                             "materials", "curves", "cameras", "images", "actions")}


def add_primitive(kind: str, **kwargs):
    """Add a mesh primitive ('cube', 'uv_sphere', 'monkey', ...) and return the new object."""
    getattr(bpy.ops.mesh, f"primitive_{kind}_add")(**kwargs)
    return bpy.context.active_object


def mesh_coords(obj) -> np.ndarray:
    co = np.empty(len(obj.data.vertices) * 3, dtype=np.float32)
    obj.data.vertices.foreach_get("co", co)
    return co.reshape(-1, 3)


def point_attribute(obj, name):
    attr = obj.data.attributes[name]
    out = np.empty(len(obj.data.vertices), dtype=bool if attr.data_type == 'BOOLEAN' else np.int32)
    attr.data.foreach_get("value", out)
    return out


def run_op(op, **kwargs):
    """Call an operator in a 3D View context; returns (result set, reports)."""
    with bpy.context.temp_override(**view3d_override()):
        return op(**kwargs)


def instances_of(obj):
    """(instanced object, world matrix) for every instance the object's modifiers produce.

    A FONT object is instanced as two geometry components (curve and mesh) at the same place:
    count it once.
    """
    dg = bpy.context.evaluated_depsgraph_get()
    dg.update()
    out, seen = [], set()
    for inst in dg.object_instances:
        if inst.is_instance and inst.parent is not None and inst.parent.original == obj:
            m = inst.matrix_world.copy()
            key = (inst.object.original.name, tuple(round(v, 5) for v in m.translation))
            if key in seen:
                continue
            seen.add(key)
            out.append((inst.object.original, m))
    return out
