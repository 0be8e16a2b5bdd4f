"""Helpers for the Blender tests: the real bpy module, and the add-on loaded as a package.

The checkout's directory name is not stable (a CI clone may have any name), so the repo root is
loaded under the fixed package name ``nonogram3d`` from its ``__init__.py``, the way Blender loads
an extension under ``bl_ext.<repo>.<id>``; its subpackages then import as ``nonogram3d.engine``,
``nonogram3d.operators``, ...
"""
from __future__ import annotations

import importlib.util
import sys
import time
from types import SimpleNamespace
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
    return importlib.import_module(f"{PACKAGE}.jobs.runtime").engine(name)


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
    """``scene``-style names inside the add-on; ``engine.X`` as the add-on imports it."""
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


def data_names() -> dict:
    """The names of every datablock in bpy.data, per collection: any new or orphan datablock
    shows here."""
    d = bpy.data
    return {p.identifier: sorted(idb.name for idb in getattr(d, p.identifier))
            for p in d.bl_rna.properties
            if p.type == 'COLLECTION' and p.identifier not in ("window_managers", "screens",
                                                                "workspaces")}


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


def set_mode(mode: str):
    """Switch the active object to ``mode`` ('EDIT', 'OBJECT').

    Deliberately without ``temp_override``: bpy.ops releases the GIL while the operator runs,
    and Blender then reads an override's context dict without it, so a Python thread running
    at the same time (a Make job, the warm-up) corrupts memory: a segfault in about half the
    runs on bpy 4.2, 4.5 and 5.0 alike. mode_set needs no 3D View, so no override is needed.
    """
    assert bpy.ops.object.mode_set(mode=mode) == {'FINISHED'}


def run_op(op, **kwargs):
    """Call an operator in a 3D View context; returns (result set, reports).

    Not while an add-on thread runs Python: see ``set_mode``."""
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


class Recorder:
    """Just enough of a window-manager context to drive JobOperator's modal loop headless:
    timers, modal handlers and status texts are recorded; everything else (scene, view layer,
    active object, depsgraph) is the real ``bpy.context``."""

    def __init__(self):
        self.status = []
        self.timers = []
        self.handlers = []
        self.progress = []
        self.window = object()
        self.screen = None
        self.workspace = self
        self.window_manager = self

    def __getattr__(self, name):
        return getattr(bpy.context, name)

    def status_text_set(self, text):
        self.status.append(text)

    def event_timer_add(self, step, window=None):
        t = object()
        self.timers.append(t)
        return t

    def event_timer_remove(self, timer):
        self.timers.remove(timer)

    def modal_handler_add(self, op):
        self.handlers.append(op)

    def progress_begin(self, lo, hi):
        self.progress.append(("begin", lo, hi))

    def progress_update(self, value):
        self.progress.append(("update", value))

    def progress_end(self):
        self.progress.append(("end",))


class Event:
    """Only what bpy.types.Event has (no reference to the timer that fired, for one)."""
    __slots__ = [p.identifier for p in bpy.types.Event.bl_rna.properties if p.identifier != "rna_type"]

    def __init__(self, type, value='NOTHING'):
        self.type, self.value = type, value


def drive_modal(op, ctx, events, timeout=120.0):
    """Feed timer ticks (and the given events first) until the operator stops (the timeout
    allows for a first compile of the kernels)."""
    t0 = time.perf_counter()
    for ev in events:
        r = op.modal(ctx, ev)
        if r != {'RUNNING_MODAL'} and r != {'PASS_THROUGH'}:
            return r
    while time.perf_counter() - t0 < timeout:
        time.sleep(0.02)
        r = op.modal(ctx, Event('TIMER'))
        if r not in ({'RUNNING_MODAL'}, {'PASS_THROUGH'}):
            return r
    raise AssertionError("modal operator did not stop")


class _SetProperties:
    """``op.properties`` of a stand-in: a property counts as set once assigned, as in Blender."""

    def __init__(self):
        self.set = set()

    def is_property_set(self, name, ghost=True):
        return name in self.set


def operator_stand_in(op_class, **props):
    """The Python side of a registered operator class (its own methods and mix-ins, the real
    code) on a plain object: Blender cannot create an operator instance outside its operator
    machinery, and headless it has no event loop to drive a modal one. Property values start at
    their RNA defaults; ``props`` are set as a caller's arguments are. ``run_synchronously`` is
    False (modal, as in the UI); reports are recorded in ``.reports``."""
    module, name = op_class.bl_idname.split(".")
    rna = getattr(getattr(bpy.ops, module), name).get_rna_type().properties
    names = [p.identifier for p in rna if p.identifier != "rna_type"]
    own = {k: v for k, v in vars(op_class).items()
           if k not in ("__dict__", "__weakref__", "bl_rna", "__annotations__")}
    bases = tuple(b for b in op_class.__mro__[1:]
                  if b.__module__.startswith(PACKAGE + ".") or b.__module__ == "blender_support")

    def setattr_(self, name, value):
        object.__setattr__(self, name, value)
        if name in names:
            self.properties.set.add(name)

    def report(self, kind, msg):
        self.reports.append((set(kind), msg))

    cls = type(op_class.__name__ + "StandIn", bases, dict(
        own, __setattr__=setattr_, report=report, run_synchronously=lambda self, ctx: False))
    op = cls.__new__(cls)
    object.__setattr__(op, "properties", _SetProperties())
    object.__setattr__(op, "reports", [])
    object.__setattr__(op, "bl_rna", SimpleNamespace(properties=rna))
    for name in names:
        object.__setattr__(op, name, rna[name].default)
    for name, value in props.items():
        setattr(op, name, value)
    return op


class RecordingLayout:
    """Records what a panel or menu draws, checking every property, operator and menu it names
    exists (and every operator property it sets)."""

    def __init__(self, log):
        self.log = log
        self.enabled = self.active = True
        self.scale_y = 1.0
        self.use_property_split = False

    def _sub(self, *a, **k):
        return RecordingLayout(self.log)
    row = column = box = grid_flow = split = _sub

    def separator(self, *a, **k):
        pass

    def context_pointer_set(self, name, data):
        pass

    def label(self, text="", **k):
        self.log.append(("label", text))

    def prop(self, data, name, **k):
        if name.startswith('["'):
            assert name[2:-2] in data.keys(), name
        else:
            assert name in data.bl_rna.properties, name
        self.log.append(("prop", name))
        if isinstance(data, bpy.types.bpy_struct) and data.id_data is not None:
            # where it lives: a modifier's input is an ID property up to Blender 5.1, an RNA
            # property below the modifier's `properties` from 5.2 (scene/compat.py)
            self.log.append(("prop_path", data.path_from_id(name)))

    def operator(self, idname, **k):
        mod, op = idname.split(".")
        rna = getattr(getattr(bpy.ops, mod), op).get_rna_type()
        self.log.append(("operator", idname))
        if k.get("text"):
            self.log.append(("operator_text", (idname, k["text"])))
        log = self.log

        class Props:
            def __setattr__(self, name, value):
                assert name in rna.properties, (idname, name)
                log.append(("operator_prop", (idname, name, value)))
        return Props()

    def menu(self, name, **k):
        assert hasattr(bpy.types, name), name
        self.log.append(("menu", name))
