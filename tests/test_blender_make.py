"""Make Nonogram on real meshes, and the errors that must leave bpy.data untouched."""
import builtins
import json
import threading
from collections import Counter
from types import SimpleNamespace

import numpy as np
import pytest

from blender_support import (Event, Recorder, RecordingLayout, add_primitive, addon, addon_module, bpy, data_counts, data_names,
                             drive_modal, engine, instances_of, mesh_coords, operator_stand_in, point_attribute,
                             run_op, set_mode)

pytestmark = pytest.mark.blender


def _world_triangles(obj):
    """The evaluated mesh in world space, computed here independently of the add-on."""
    dg = bpy.context.evaluated_depsgraph_get()
    ev = obj.evaluated_get(dg)
    me = ev.to_mesh()
    me.calc_loop_triangles()
    co = np.array([ev.matrix_world @ v.co for v in me.vertices], dtype=np.float64)
    tris = np.array([tuple(t.vertices) for t in me.loop_triangles], dtype=np.int64)
    ev.to_mesh_clear()
    return co, tris


def _make(resolution, **settings):
    s = bpy.context.scene.nonogram_settings
    s.resolution = resolution
    for k, v in settings.items():
        setattr(s, k, v)
    return run_op(bpy.ops.nonogram.make)


CASES = [
    ("cube", {}, 6),
    ("uv_sphere", {"segments": 24, "ring_count": 12}, 10),
    ("monkey", {}, 12),
]


@pytest.mark.parametrize("kind,args,res", CASES, ids=[c[0] for c in CASES])
def test_make_matches_engine(addon, kind, args, res, tmp_path):
    src = add_primitive(kind, **args)
    # A modifier and a transform, so that "evaluated mesh in world space" matters.
    src.location = (1.0, -2.0, 0.5)
    src.rotation_euler = (0.3, 0.0, 0.7)
    src.scale = (1.5, 1.0, 1.0)
    src.modifiers.new("sub", 'SUBSURF').levels = 1
    before = mesh_coords(src).copy()
    n_meshes = len(bpy.data.meshes)

    assert _make(res) == {'FINISHED'}
    obj = bpy.context.active_object
    assert obj is not src and obj.nonogram.is_nonogram

    verts, tris = _world_triangles(src)
    vox = engine("voxel.voxelize")
    vr = vox.voxelize(verts, tris, resolution=res, samples=1, threshold=0.5, robust=True,
                      fit=True, **vox.MAKE_PIECE_DEFAULTS)
    grid = vr.grid
    assert grid.sum() > 0
    # One point per grid cell, solution attribute = the voxel grid in puzzle cell order.
    assert len(obj.data.vertices) == grid.size
    assert np.array_equal(point_attribute(obj, "solution"), grid.ravel())
    # before any solve the designer's view shows the model Make made: filled (2) and empty (1)
    assert np.array_equal(point_attribute(obj, "state"), np.where(grid.ravel(), 2, 1))
    assert np.allclose(np.array(obj.matrix_world.translation), vr.origin, atol=1e-5)
    assert np.allclose(np.array(obj.scale), vr.voxel_size, rtol=1e-6)
    # Cell (x, y, z) sits at (x+.5, y+.5, z+.5) voxels from the origin.
    pts = mesh_coords(obj)
    X, Y, Z = grid.shape
    assert np.allclose(pts[(1 * Y + 0) * Z + 0 if X > 1 else 0], [1.5 if X > 1 else 0.5, 0.5, 0.5])

    # Clue labels: one point per clued line.
    puzzle = engine("model.clues").puzzle_from_grid(grid)
    clued = int((puzzle.clue_kind != 0).sum())
    labels = obj.nonogram.labels
    assert labels is not None and labels.parent == obj
    assert len(labels.data.vertices) == clued
    # every clue and every cell (a new nonogram's designer view shows one clue layer:
    # test_blender_views.py)
    addon_module("scene").set_clue_layer(obj, 'ALL', 0)
    # Evaluated: one glyph per non-zero clue (zeros hidden by default) + an outline per
    # circle/square clue.
    totals = point_attribute(labels, "clue_total")
    kinds = point_attribute(labels, "clue_kind")
    inst = instances_of(labels)
    n_glyph = sum(1 for o, _ in inst if o.type == 'FONT')
    n_outline = sum(1 for o, _ in inst if o.type == 'MESH')
    assert n_glyph == int((totals > 0).sum())
    assert n_outline == int(((kinds >= 3) & (totals > 0)).sum())
    # Voxel cubes: the model's cells (a grey block of every cell until a Solve, before)
    assert len(instances_of(obj)) == grid.sum()

    # The stored puzzle round-trips through the JSON export.
    path = tmp_path / "p.json"
    assert run_op(bpy.ops.nonogram.export_puzzle, filepath=str(path)) == {'FINISHED'}
    pf = engine("files.puzzlefile")
    loaded = pf.load_puzzle(str(path))
    # (Make keeps the model's colours by default: the file has them beside the solution)
    exported = pf.puzzle_to_dict(loaded)
    assert "palette" in exported and len(exported.pop("colours")) == 2 * grid.size
    exported.pop("palette")
    assert exported == pf.puzzle_to_dict(puzzle) | {"name": src.name}

    # The source is untouched (and still visible: hide_source defaults to off).
    assert np.array_equal(mesh_coords(src), before)
    assert src.modifiers[0].name == "sub" and len(src.modifiers) == 1
    assert src.visible_get()
    # Only our meshes were added: cells, clue points, two outlines.
    assert len(bpy.data.meshes) == n_meshes + 4
    # The collection is named after the object.
    assert obj.users_collection[0].name.startswith(src.name)
    info = json.loads(obj.nonogram.make_info)
    assert info["shape"] == list(grid.shape) and info["filled"] == int(grid.sum())


def test_glyphs_show_the_right_clue_at_the_right_place(addon):
    # A grid with plain, circle (2 blocks) and square (3+ blocks) clues of several values.
    rng = np.random.default_rng(7)
    grid = rng.random((7, 5, 4)) < 0.55
    grid[:, 0, 0] = [1, 0, 1, 0, 1, 1, 0]  # a square clue
    grid[:, 1, 0] = [1, 1, 0, 0, 1, 0, 0]  # a circle clue
    puzzle = engine("model.clues").puzzle_from_grid(grid, name="kinds")
    assert {2, 3, 4} <= set(puzzle.clue_kind.tolist())
    scene_mod = addon_module("scene")
    # An earlier nonogram of the same name takes the glyph names first: Blender then renames
    # some of ours (".001"), which must not change their order.
    other = engine("model.clues").puzzle_from_grid(rng.random((3, 3, 3)) < 0.5)
    scene_mod.build_from_puzzle(bpy.context, other, name="kinds")
    obj = scene_mod.build_from_puzzle(bpy.context, puzzle, name="kinds", origin=(1, 2, 3),
                                      voxel_size=0.3)
    assert any(o.name.endswith(".001") for o in obj.nonogram.glyphs.objects)
    scene_mod.set_clue_layer(obj, 'ALL', 0)  # every clue at its point
    bpy.context.view_layer.update()  # parent transforms reach matrix_world on update
    labels = obj.nonogram.labels
    mw = np.array(labels.matrix_world)
    pts = mesh_coords(labels).astype(np.float64)
    world = pts @ mw[:3, :3].T + mw[:3, 3]
    totals = point_attribute(labels, "clue_total")
    kinds = point_attribute(labels, "clue_kind")
    suffix_kind = {"Nonogram Clue": 2, "Nonogram Clue Circle": 3, "Nonogram Clue Square": 4}
    seen = Counter()
    for ob, m in instances_of(labels):
        d = np.linalg.norm(world - np.array(m.translation), axis=1)
        i = int(np.argmin(d))
        assert d[i] < 1e-4, (ob.name, tuple(m.translation))
        total, kind = int(totals[i]), int(kinds[i])
        mat = ob.data.materials[0].name.split(".")[0]
        if ob.type == 'FONT':
            assert ob.data.body == str(total)
            assert suffix_kind[mat] == kind
            seen["glyph"] += 1
        else:
            assert kind >= 3 and suffix_kind[mat] == kind
            assert ("circle" in ob.name) == (kind == 3)
            seen["outline"] += 1
    assert seen["glyph"] == int((totals > 0).sum())
    assert seen["outline"] == int(((kinds >= 3) & (totals > 0)).sum()) > 0


def test_zero_clues_can_be_shown(addon):
    add_primitive("uv_sphere", segments=16, ring_count=8)
    assert _make(6) == {'FINISHED'}
    labels = bpy.context.active_object.nonogram.labels
    totals = point_attribute(labels, "clue_total")
    assert (totals == 0).any()
    scene_mod = addon_module("scene")
    scene_mod.set_clue_layer(bpy.context.active_object, 'ALL', 0)
    mod = labels.modifiers["Nonogram Clues"]
    scene_mod.set_modifier_input(mod, "Show Zero Clues", True)
    glyphs = [o for o, _ in instances_of(labels) if o.type == 'FONT']
    assert len(glyphs) == len(totals)


def test_operator_arguments_override_the_panel(addon):
    add_primitive("cube")
    bpy.context.scene.nonogram_settings.resolution = 9
    assert run_op(bpy.ops.nonogram.make, resolution=3) == {'FINISHED'}
    assert len(bpy.context.active_object.data.vertices) == 27
    add_primitive("cube", location=(5, 0, 0))
    assert run_op(bpy.ops.nonogram.make) == {'FINISHED'}
    assert len(bpy.context.active_object.data.vertices) == 9 ** 3


def test_hide_source_and_open_mesh_warning(addon):
    src = add_primitive("monkey")
    s = bpy.context.scene.nonogram_settings
    s.hide_source = True
    s.resolution = 10
    # Suzanne's eye sockets are holes: Make must still work, and warn.
    scene_mod = addon_module("scene")
    obj, result = scene_mod.make_nonogram(bpy.context, src, resolution=10, hide_source=True)
    assert result.diagnostics["looks_open"] and result.warnings
    assert not src.visible_get()
    assert obj.nonogram.source == src


def _bad(op_kwargs=None):
    """Run Make expecting an ERROR report; returns the message. bpy.data must not change."""
    before = data_counts()
    n_ops = len(bpy.context.window_manager.operators)
    with pytest.raises(RuntimeError) as err:
        run_op(bpy.ops.nonogram.make, **(op_kwargs or {}))
    assert data_counts() == before
    # CANCELLED operators are not recorded as the last (redo-able) operator.
    ops = bpy.context.window_manager.operators
    assert len(ops) == n_ops or ops[-1].bl_idname != "NONOGRAM_OT_make"
    return str(err.value)


def test_errors_leave_data_unchanged(addon):
    # No active object.
    assert "No active object" in _bad()
    # Not a mesh.
    bpy.ops.object.camera_add()
    assert "not a mesh" in _bad()
    # A mesh without faces (after modifiers).
    me = bpy.data.meshes.new("edges")
    me.from_pydata([(0, 0, 0), (1, 0, 0), (1, 1, 1)], [(0, 1), (1, 2)], [])
    ob = bpy.data.objects.new("edges", me)
    bpy.context.scene.collection.objects.link(ob)
    bpy.context.view_layer.objects.active = ob
    assert "no faces" in _bad()
    # An absurd resolution.
    add_primitive("cube")
    bpy.context.scene.nonogram_settings.resolution = 4000
    msg = _bad()
    assert "Resolution 4000" in msg and "lower the resolution" in msg
    # A flat mesh gives no filled voxels as voxelized (restoring thin parts, the default, makes
    # it a one-voxel sheet: test_blender_thin_default.py).
    add_primitive("plane")
    bpy.context.scene.nonogram_settings.resolution = 8
    bpy.context.scene.nonogram_settings.thin_parts = 'NONE'
    assert "no filled voxels" in _bad()
    bpy.context.scene.nonogram_settings.thin_parts = 'RESTORE'
    # A nonogram is not a source.
    add_primitive("cube")
    assert _make(4) == {'FINISHED'}
    assert "already a nonogram" in _bad()


BASIC_OPTIONS = ("resolution", "samples", "threshold", "robust", "hide_source")


def _voxel_grid(src, res):
    verts, tris = _world_triangles(src)
    vox = engine("voxel.voxelize")
    return vox.voxelize(verts, tris, resolution=res, samples=1, threshold=0.5, robust=True,
                        fit=True, **vox.MAKE_PIECE_DEFAULTS).grid


def _spy_progress(monkeypatch, hold_until_cancel=False):
    """Record (thread, fraction) of every progress call the job gets; optionally hold the worker
    in its first call until Esc has been pressed (so Esc lands mid-voxelization)."""
    worker = addon_module("jobs.worker")
    real = worker.Job.progress
    calls = []

    def spy(job, fraction, message=""):
        calls.append((threading.get_ident(), float(fraction)))
        if hold_until_cancel:
            assert job.cancel_event.wait(10)
        return real(job, fraction, message)
    monkeypatch.setattr(worker.Job, "progress", spy)
    return calls


def test_modal_make_reports_progress_and_builds_on_the_main_thread(addon, monkeypatch):
    src = add_primitive("monkey")
    bpy.context.scene.nonogram_settings.resolution = 10
    calls = _spy_progress(monkeypatch)
    before = data_names()
    ctx = Recorder()
    op = operator_stand_in(bpy.types.NONOGRAM_OT_make)
    assert op.invoke(ctx, Event('NONE')) == {'RUNNING_MODAL'}
    assert ctx.handlers == [op] and len(ctx.timers) == 1
    # The scene is built by finish() on the main thread, never while the worker runs.
    assert data_names() == before
    assert op.modal(ctx, Event('MOUSEMOVE')) == {'PASS_THROUGH'}
    assert drive_modal(op, ctx, []) == {'FINISHED'}
    obj = bpy.context.active_object
    assert obj.nonogram.is_nonogram and obj.nonogram.source == src
    assert np.array_equal(point_attribute(obj, "solution"), _voxel_grid(src, 10).ravel())
    # The voxelizer's progress reached the job from the worker thread, in order, up to 100 %.
    fractions = [f for _, f in calls]
    assert len(calls) >= 3 and fractions == sorted(fractions) and fractions[-1] == 1.0
    assert all(t != threading.get_ident() for t, _ in calls)
    assert any(t and t.startswith("Nonogram make:") and "Esc to cancel" in t for t in ctx.status)
    assert ctx.status[-1] is None and ctx.timers == []
    assert any("Nonogram" in msg and "filled cells" in msg for _, msg in op.reports)
    assert addon_module("jobs.worker").active_job() is None


def test_modal_make_esc_restores_everything(addon, monkeypatch):
    src = add_primitive("monkey")
    src.modifiers.new("sub", 'SUBSURF').levels = 1
    other = add_primitive("cube", location=(4, 0, 0))
    other.select_set(False)
    src.select_set(True)
    bpy.context.view_layer.objects.active = src
    s = bpy.context.scene.nonogram_settings
    s.resolution, s.hide_source = 16, True
    calls = _spy_progress(monkeypatch, hold_until_cancel=True)
    names, counts, coords = data_names(), data_counts(), mesh_coords(src).copy()
    selected = {o.name for o in bpy.context.selected_objects}
    ctx = Recorder()
    op = operator_stand_in(bpy.types.NONOGRAM_OT_make)
    assert op.invoke(ctx, Event('NONE')) == {'RUNNING_MODAL'}
    worker = addon_module("jobs.worker")
    job = worker.active_job()
    assert job is not None and job.label == "make"
    # Esc while the voxelizer runs: the job is asked to stop, and stops at its next check.
    assert op.modal(ctx, Event('ESC', value='PRESS')) == {'RUNNING_MODAL'}
    assert drive_modal(op, ctx, []) == {'CANCELLED'}
    assert calls and job.done and job.error is not None and "cancelled" in str(job.error)
    assert any("Nonogram make cancelled" in msg for _, msg in op.reports)
    # Exactly as before: no datablock added (not even an orphan), the source untouched and
    # still visible (hide_source only applies to a finished Make), selection kept.
    assert data_names() == names and data_counts() == counts
    assert np.array_equal(mesh_coords(src), coords) and list(src.modifiers.keys()) == ["sub"]
    assert src.visible_get() and bpy.context.view_layer.objects.active == src
    assert {o.name for o in bpy.context.selected_objects} == selected
    assert ctx.timers == [] and ctx.status[-1] is None and worker.active_job() is None


def test_modal_make_esc_after_the_voxels_are_done_still_builds_nothing(addon):
    add_primitive("monkey")
    bpy.context.scene.nonogram_settings.resolution = 8
    names = data_names()
    ctx = Recorder()
    op = operator_stand_in(bpy.types.NONOGRAM_OT_make)
    assert op.invoke(ctx, Event('NONE')) == {'RUNNING_MODAL'}
    job = addon_module("jobs.worker").active_job()
    assert job.done_event.wait(120) and job.error is None
    # Esc before the timer tick that would have built the scene.
    assert op.modal(ctx, Event('ESC', value='PRESS')) == {'RUNNING_MODAL'}
    assert drive_modal(op, ctx, []) == {'CANCELLED'}
    assert data_names() == names


def test_modal_make_waits_for_object_mode_to_build(addon):
    add_primitive("monkey")
    other = add_primitive("cube", location=(4, 0, 0))
    src = bpy.data.objects["Suzanne"]
    bpy.context.view_layer.objects.active = src
    bpy.context.scene.nonogram_settings.resolution = 6
    ctx = Recorder()
    op = operator_stand_in(bpy.types.NONOGRAM_OT_make)
    assert op.invoke(ctx, Event('NONE')) == {'RUNNING_MODAL'}
    job = addon_module("jobs.worker").active_job()
    # Meanwhile the user edits another mesh: the finished job waits instead of building.
    bpy.context.view_layer.objects.active = other
    set_mode('EDIT')
    names = data_names()
    assert job.done_event.wait(120)
    for _ in range(3):
        assert op.modal(ctx, Event('TIMER')) == {'PASS_THROUGH'}
    assert data_names() == names
    assert "Switch to Object Mode to apply it" in ctx.status[-1]
    set_mode('OBJECT')
    assert drive_modal(op, ctx, []) == {'FINISHED'}
    assert bpy.context.active_object.nonogram.is_nonogram


def test_make_options_are_real_properties_for_adjust_last_operation(addon):
    cls = bpy.types.NONOGRAM_OT_make
    assert {'REGISTER', 'UNDO', 'PRESET'} <= cls.bl_options
    rna = bpy.ops.nonogram.make.get_rna_type().properties
    options = addon_module("operators.make").MAKE_OPTIONS  # every option, later ones too
    assert set(BASIC_OPTIONS) <= set(options)
    for name in options:
        # Shown in the redo panel, and saved in presets (Blender's skip SKIP_SAVE ones).
        assert not rna[name].is_hidden and not rna[name].is_skip_save, name
    # The redo panel draws every option (the operator's own draw).
    log = []
    op = operator_stand_in(cls)
    op.layout = RecordingLayout(log)
    op.draw(bpy.context)
    assert sorted(v for kind, v in log if kind == "prop") == sorted(options)


def test_redo_reruns_with_the_operators_own_values(addon):
    src = add_primitive("monkey")
    bpy.context.scene.nonogram_settings.resolution = 6
    scene_mod = addon_module("scene")
    op = operator_stand_in(bpy.types.NONOGRAM_OT_make)
    # First run: the options the caller left unset come from the panel, and are then set.
    ctx = Recorder()
    assert op.execute(ctx) == {'FINISHED'}
    assert op.resolution == 6 and op.properties.is_property_set("resolution")
    # In place (scripts, redo), Make shows its progress on the cursor.
    assert ctx.progress[0] == ("begin", 0.0, 1.0) and ctx.progress[-1] == ("end",)
    assert ("update", 1.0) in ctx.progress
    first = bpy.context.active_object
    assert np.array_equal(point_attribute(first, "solution"), _voxel_grid(src, 6).ravel())
    # Adjust Last Operation: Blender undoes the Make, sets the changed value on the operator
    # and runs execute() again; the panel is not consulted.
    scene_mod.clear_nonogram(first)
    bpy.context.view_layer.objects.active = src
    op.resolution = 9
    assert op.execute(Recorder()) == {'FINISHED'}
    second = bpy.context.active_object
    assert json.loads(second.nonogram.make_info)["resolution"] == 9
    assert np.array_equal(point_attribute(second, "solution"), _voxel_grid(src, 9).ravel())
    assert bpy.context.scene.nonogram_settings.resolution == 6


def _run_operator_preset(path, op):
    """Run a preset file as Blender's redo panel does (``script.execute_preset``), with
    ``bpy.context.active_operator`` being ``op``; headless there is no active operator."""
    fake_bpy = SimpleNamespace(context=SimpleNamespace(active_operator=op))

    def imp(name, *args, **kwargs):
        return fake_bpy if name == "bpy" else builtins.__import__(name, *args, **kwargs)
    code = compile(path.read_text(), str(path), "exec")
    exec(code, {"__builtins__": dict(vars(builtins), __import__=imp)})


def test_presets_are_written_and_applied_to_panel_and_operator(addon, tmp_path, monkeypatch):
    # Presets go to the user's script folder: a temporary one here.
    monkeypatch.setenv("BLENDER_USER_SCRIPTS", str(tmp_path))
    add_primitive("monkey")
    s = bpy.context.scene.nonogram_settings
    s.resolution, s.samples, s.threshold, s.robust = 5, 2, 0.25, False
    assert bpy.ops.nonogram.make_preset_add(name="Chunky Draft") == {'FINISHED'}
    path = tmp_path / "presets" / "operator" / "nonogram.make" / "Chunky_Draft.py"
    assert path.is_file()
    text = path.read_text()
    # Blender's operator preset format, so the redo panel's preset menu lists and applies it.
    assert "op = bpy.context.active_operator" in text
    assert "op.resolution = 5" in text and "op.robust = False" in text
    assert str(path.parent) in bpy.utils.preset_paths("operator/nonogram.make")
    # The sidebar's preset button lists it, applying it with our operator, and offers + and -.
    panel = addon_module("panels.sidebar").NONOGRAM_PT_make_presets
    log = []
    fake = type("P", (), {k: getattr(panel, k) for k in (
        "preset_subdir", "preset_operator", "preset_add_operator", "preset_operator_defaults",
        "path_menu",)})()
    fake.layout = RecordingLayout(log)
    panel.draw(fake, bpy.context)
    props = [v for kind, v in log if kind == "operator_prop"]
    assert ("nonogram.preset_apply", "filepath", str(path)) in props
    assert ("nonogram.preset_apply", "menu_idname", "NONOGRAM_PT_make_presets") in props
    assert ("nonogram.make_preset_add", "remove_name", True) in props

    # The sidebar applies it to the panel's settings (reading, not running, the file).
    s.resolution, s.samples, s.threshold, s.robust = 12, 1, 0.5, True
    assert bpy.ops.nonogram.preset_apply(filepath=str(path),
                                         menu_idname="NONOGRAM_PT_make_presets") == {'FINISHED'}
    assert (s.resolution, s.samples, s.threshold, s.robust) == (5, 2, 0.25, False)
    assert bpy.types.NONOGRAM_PT_make_presets.bl_label == "Chunky Draft"

    # The redo panel applies it to the operator, which then makes with those values.
    s.resolution, s.samples, s.threshold, s.robust = 12, 1, 0.5, True
    op = operator_stand_in(bpy.types.NONOGRAM_OT_make)
    _run_operator_preset(path, op)
    assert (op.resolution, op.samples, op.robust) == (5, 2, False)
    assert op.execute(Recorder()) == {'FINISHED'}
    info = json.loads(bpy.context.active_object.nonogram.make_info)
    assert (info["resolution"], info["samples"], info["threshold"], info["robust"]) == (5, 2, 0.25, False)

    # Removing it (the "-" beside the preset) deletes the file.
    assert bpy.ops.nonogram.make_preset_add(name="Chunky_Draft", remove_name=True) == {'FINISHED'}
    assert not path.exists()
