"""Blender conventions around the operators: poll messages, the Object ▸ Nonogram menu, the
keymap entry."""
import threading

import pytest

from blender_support import (PACKAGE, RecordingLayout, add_primitive, addon, addon_module, bpy,
                             run_op, view3d_override)

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
                  "nonogram.animate_solve", "nonogram.export_puzzle", "nonogram.clear")


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
    for idname in ("nonogram.solve", "nonogram.compare", "nonogram.export_puzzle", "nonogram.clear"):
        assert _why(idname) == "", idname
    # Its clue object counts as the nonogram.
    bpy.context.view_layer.objects.active = obj.nonogram.labels
    assert _why("nonogram.solve") == ""


def test_poll_reasons_in_edit_mode_and_while_a_job_runs(addon):
    obj = _nonogram()
    assert run_op(bpy.ops.nonogram.solve) == {'FINISHED'}
    src = add_primitive("uv_sphere")
    with bpy.context.temp_override(**view3d_override()):
        bpy.ops.object.mode_set(mode='EDIT')
    try:
        for idname in ("nonogram.make", "nonogram.import_puzzle"):
            assert _why(idname) == "Switch to Object Mode", idname
    finally:
        with bpy.context.temp_override(**view3d_override()):
            bpy.ops.object.mode_set(mode='OBJECT')
    bpy.context.view_layer.objects.active = obj
    with bpy.context.temp_override(**view3d_override()):
        bpy.ops.object.mode_set(mode='EDIT')
    try:
        for idname in ("nonogram.solve", "nonogram.show_cells", "nonogram.animate_solve",
                       "nonogram.clear"):
            assert _why(idname) == "Switch to Object Mode", idname
        # Reading the puzzle needs no particular mode.
        assert _why("nonogram.export_puzzle") == ""
    finally:
        with bpy.context.temp_override(**view3d_override()):
            bpy.ops.object.mode_set(mode='OBJECT')

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
    assert listed == _user_operators()
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
    in_sidebar = {v for kind, v in log if kind == "operator"}
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
