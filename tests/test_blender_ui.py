"""Blender conventions around the operators: poll messages, the Object ▸ Nonogram menu, the
keymap entry."""
import json
import shutil
import threading
from pathlib import Path

import numpy as np
import pytest

from blender_support import (PACKAGE, RecordingLayout, add_primitive, addon, addon_module, bpy,
                             run_op, set_mode, view3d_override)

pytestmark = pytest.mark.blender


def _user_operators():
    """Every operator of the add-on a user can call (the preset helpers are INTERNAL)."""
    ops = addon_module("operators")
    return {cls.bl_idname for cls in ops.classes if 'INTERNAL' not in cls.bl_options}


def _why(idname):
    """The poll message of operator ``idname`` in the current context ('' when poll passes)."""
    mod, name = idname.split(".")
    op = getattr(getattr(bpy.ops, mod), name)
    with bpy.context.temp_override(**view3d_override()):
        if op.poll():
            return ""
        with pytest.raises(RuntimeError) as err:
            op()
    msg = str(err.value)
    assert "poll() failed" not in msg, msg  # F3 would say nothing useful
    return msg.split("poll() ", 1)[1]


def _nonogram(res=4):
    add_primitive("cube")
    assert run_op(bpy.ops.nonogram.make, resolution=res) == {'FINISHED'}
    return bpy.context.active_object


NONOGRAM = "Select a nonogram (made by Make Nonogram or Import Puzzle)"
NEEDS_NONOGRAM = ("nonogram.solve", "nonogram.compare", "nonogram.show_cells",
                  "nonogram.animate_solve", "nonogram.export_puzzle", "nonogram.clear",
                  "nonogram.play_in_browser")


def test_every_operator_has_a_poll_reason_in_the_wrong_context(addon):
    # Nothing selected.
    assert _why("nonogram.make") == "No active object: select a mesh object to make a nonogram from"
    for idname in NEEDS_NONOGRAM:
        assert _why(idname) == NONOGRAM, idname
    assert _why("nonogram.import_puzzle") == ""
    # Not a mesh.
    bpy.ops.object.camera_add()
    assert _why("nonogram.make") == "'Camera' is a camera object, not a mesh: select a mesh object"
    # A nonogram that was never solved.
    obj = _nonogram()
    assert _why("nonogram.make") == f"'{obj.name}' is already a nonogram: select a mesh object"
    for idname in ("nonogram.show_cells", "nonogram.animate_solve"):
        assert _why(idname) == "Solve the nonogram first", idname
    for idname in ("nonogram.solve", "nonogram.compare", "nonogram.export_puzzle", "nonogram.clear",
                   "nonogram.play_in_browser"):
        assert _why(idname) == "", idname
    # Its clue object counts as the nonogram.
    bpy.context.view_layer.objects.active = obj.nonogram.labels
    assert _why("nonogram.solve") == ""


def test_poll_reasons_in_edit_mode_and_while_a_job_runs(addon):
    obj = _nonogram()
    assert run_op(bpy.ops.nonogram.solve) == {'FINISHED'}
    src = add_primitive("uv_sphere")
    set_mode('EDIT')
    try:
        for idname in ("nonogram.make", "nonogram.import_puzzle"):
            assert _why(idname) == "Switch to Object Mode", idname
    finally:
        set_mode('OBJECT')
    bpy.context.view_layer.objects.active = obj
    set_mode('EDIT')
    try:
        for idname in ("nonogram.solve", "nonogram.show_cells", "nonogram.animate_solve",
                       "nonogram.clear"):
            assert _why(idname) == "Switch to Object Mode", idname
        # Reading the puzzle needs no particular mode.
        assert _why("nonogram.export_puzzle") == ""
    finally:
        set_mode('OBJECT')

    worker = addon_module("operators.worker")
    release = threading.Event()
    job = worker.Job("solve", lambda progress: release.wait(10)).start()
    try:
        running = "A nonogram solve is still running (Esc cancels it)"
        for idname in ("nonogram.solve", "nonogram.compare", "nonogram.clear"):
            assert _why(idname) == running, idname
        bpy.context.view_layer.objects.active = src
        assert _why("nonogram.make") == running
    finally:
        release.set()
        job.done_event.wait(5)
        job.finished = True
    assert _why("nonogram.make") == ""


def _draw_menu(cls):
    log = []
    fake = type("M", (), {"layout": RecordingLayout(log)})()
    cls.draw(fake, bpy.context)
    return log


def test_object_menu_has_a_nonogram_submenu_with_every_operator(addon):
    menus = addon_module("panels.menus")
    funcs = bpy.types.VIEW3D_MT_object.draw._draw_funcs
    ours = [f for f in funcs if f.__module__.startswith(PACKAGE + ".")]
    assert len(ours) == 1
    assert ("menu", "NONOGRAM_MT_object") in _draw_menu(type("T", (), {"draw": ours[0]}))
    log = _draw_menu(menus.NONOGRAM_MT_object)
    listed = {idname for kind, idname in log if kind == "operator"}
    # Clearing the kernel cache is a button of the add-on's preferences.
    assert listed == _user_operators() - {"nonogram.clear_kernel_cache"}
    # Both Show Cells modes, and removing the animation as well as making it.
    props = {v for kind, v in log if kind == "operator_prop"}
    assert {("nonogram.show_cells", "mode", "UNDECIDED"), ("nonogram.show_cells", "mode", "RESULT"),
            ("nonogram.animate_solve", "clear", True)} <= props


def test_every_sidebar_button_is_in_the_menu(addon):
    sidebar = addon_module("panels.sidebar")
    menus = addon_module("panels.menus")
    obj = _nonogram()
    assert run_op(bpy.ops.nonogram.solve) == {'FINISHED'}
    assert obj.nonogram.report
    log = []
    for cls in sidebar.classes:
        if cls.bl_region_type == 'HEADER' or (hasattr(cls, "poll") and not cls.poll(bpy.context)):
            continue
        cls.draw(type("P", (), {"layout": RecordingLayout(log)})(), bpy.context)
    # (nonogram.explain is a figure's tooltip, INTERNAL: not a button)
    in_sidebar = {v for kind, v in log if kind == "operator"} - {"nonogram.explain"}
    in_menu = {v for kind, v in _draw_menu(menus.NONOGRAM_MT_object) if kind == "operator"}
    assert in_sidebar and in_sidebar <= in_menu


def test_keymap_opens_the_nonogram_menu_in_object_mode(addon):
    menus = addon_module("panels.menus")
    items = menus.keymap_items()
    assert len(items) == 1
    km, kmi = items[0]
    assert km.name == "Object Mode" and kmi.idname == "wm.call_menu"
    assert kmi.properties.name == "NONOGRAM_MT_object"
    assert (kmi.type, kmi.shift, kmi.alt, kmi.ctrl) == ('N', True, True, False)
    # Nothing in Blender's default Object Mode keymap uses that key.
    default = bpy.context.window_manager.keyconfigs.default.keymaps["Object Mode"]
    clashes = [k.idname for k in default.keymap_items
               if k.type == 'N' and k.shift and k.alt and not k.ctrl and k.active]
    assert clashes == []


def _enable_preferences():
    """The add-on's preferences, as when it is enabled in Blender (tests register it only)."""
    entry = bpy.context.preferences.addons.get(PACKAGE) or bpy.context.preferences.addons.new()
    entry.module = PACKAGE
    return entry.preferences


def _ramp_colours(mat):
    ramp = next(n for n in mat.node_tree.nodes if n.bl_idname == "ShaderNodeValToRGB")
    return [tuple(round(c, 4) for c in e.color) for e in ramp.color_ramp.elements]


def test_preferences_set_what_new_nonograms_start_with(addon):
    scene_mod = addon_module("operators.scene")
    first = _nonogram(4)  # before the preferences change: built-in look
    default_group = first.modifiers["Nonogram Voxels"].node_group
    assert bpy.context.scene.nonogram_settings.resolution == 12
    prefs = _enable_preferences()
    prefs.resolution = 7
    prefs.filled = (1.0, 0.0, 0.0, 1.0)
    prefs.circle = (0.0, 1.0, 0.0, 1.0)
    prefs.label_size = 1.7
    # A scene that has not set its own resolution starts at the preferences' one ...
    settings = bpy.context.scene.nonogram_settings
    assert settings.resolution == 7
    src = add_primitive("uv_sphere", location=(5, 0, 0))
    assert run_op(bpy.ops.nonogram.make) == {'FINISHED'}
    obj = bpy.context.active_object
    assert json.loads(obj.nonogram.make_info)["resolution"] == 7
    # ... and new nonograms have the preferences' colours and label size.
    group = obj.modifiers["Nonogram Voxels"].node_group
    assert group != default_group
    setmat = next(n for n in group.nodes if n.bl_idname == "GeometryNodeSetMaterial")
    assert (1.0, 0.0, 0.0, 1.0) in _ramp_colours(setmat.inputs["Material"].default_value)
    labels = obj.nonogram.labels
    assert scene_mod.get_modifier_input(labels.modifiers["Nonogram Clues"], "Label Size") == pytest.approx(1.7)
    circle = next(o for o in obj.nonogram.outlines.objects if "circle" in o.name)
    assert tuple(circle.data.materials[0].diffuse_color) == pytest.approx((0.0, 1.0, 0.0, 1.0))
    # The earlier nonogram keeps its look: its materials are not shared with other colours.
    old_setmat = next(n for n in default_group.nodes if n.bl_idname == "GeometryNodeSetMaterial")
    assert (1.0, 0.0, 0.0, 1.0) not in _ramp_colours(old_setmat.inputs["Material"].default_value)
    old_circle = next(o for o in first.nonogram.outlines.objects if "circle" in o.name)
    assert tuple(old_circle.data.materials[0].diffuse_color) != pytest.approx((0.0, 1.0, 0.0, 1.0))
    # A resolution the scene set is its own, whatever the preferences say later.
    settings.resolution = 9
    prefs.resolution = 5
    assert settings.resolution == 9
    # Clearing removes the materials only this nonogram used; the first one's stay.
    group_name, mat_name = group.name, setmat.inputs["Material"].default_value.name
    scene_mod.clear_nonogram(obj)
    assert group_name not in bpy.data.node_groups and mat_name not in bpy.data.materials
    assert default_group.name in bpy.data.node_groups
    assert src.name in bpy.data.objects


def _numba_or_skip():
    jit = addon_module("engine.jit")
    if not jit.HAVE_NUMBA:
        pytest.skip("numba is not available: no kernel cache")
    return jit


def test_clear_kernel_cache_removes_only_cached_kernels(addon, tmp_path, monkeypatch):
    jit = _numba_or_skip()
    real = Path(jit.cache_folder())
    kernels = sorted(p for p in real.rglob("*") if p.suffix in (".nbi", ".nbc"))
    assert kernels, "the engine's kernels should be cached by now"
    # A copy of the real cache, so this test does not make the others compile again.
    folder = tmp_path / "cache"
    for p in kernels[:6]:
        dest = folder / p.relative_to(real)
        dest.parent.mkdir(parents=True, exist_ok=True)
        shutil.copy2(p, dest)
    (folder / "notes.txt").write_text("not a kernel")
    monkeypatch.setattr(jit, "_cache_folder", str(folder))
    runtime = addon_module("operators.runtime")
    status = runtime.numba_status()
    assert status["cache_dir"] == str(folder) and status["loaded"] and not status["error"]
    assert status["cache_files"] == len(kernels[:6])
    assert status["cache_bytes"] == sum(p.stat().st_size for p in kernels[:6])
    assert bpy.ops.nonogram.clear_kernel_cache() == {'FINISHED'}
    assert not [p for p in folder.rglob("*") if p.suffix in (".nbi", ".nbc")]
    assert (folder / "notes.txt").read_text() == "not a kernel"
    assert runtime.numba_status()["cache_files"] == 0
    assert all(p.exists() for p in kernels)  # the real cache was not touched
    # The loaded kernels keep working.
    assert addon_module("engine.voxel.voxelize") is not None


def test_preferences_show_numba_and_the_keymap(addon):
    _numba_or_skip()
    prefs = _enable_preferences()
    log = []
    fake = type("P", (), {"layout": RecordingLayout(log),
                          "__getattr__": lambda self, name: getattr(prefs, name)})()
    type(prefs).draw(fake, bpy.context)
    labels = [v for kind, v in log if kind == "label"]
    version = addon_module("operators.runtime").numba_status()["version"]
    assert version and f"numba {version}" in labels
    sat = addon_module("operators.runtime").numba_status()["sat"]
    assert any(t.startswith(f"python-sat {sat}:" if sat else "python-sat not installed") for t in labels)
    assert any(t.startswith("Cache: ") for t in labels)
    assert ("operator", "nonogram.clear_kernel_cache") in log
    drawn = {v for kind, v in log if kind == "prop"}
    assert {"resolution", "label_size", "unknown", "filled", "empty", "highlight", "plain",
            "circle", "square"} <= drawn
    assert any("Keymap" == t for t in labels)
