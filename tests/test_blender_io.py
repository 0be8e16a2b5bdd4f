"""Export / import of puzzle files, saving in the .blend, and Clear."""

import numpy as np
import pytest

from blender_support import (add_primitive, addon, addon_module, bpy, data_counts, engine, instances_of,
                             point_attribute, reset_scene, run_op)

pytestmark = pytest.mark.blender


def _make(kind="monkey", res=8, **args):
    add_primitive(kind, **args)
    bpy.context.scene.nonogram_settings.resolution = res
    assert run_op(bpy.ops.nonogram.make) == {'FINISHED'}
    return bpy.context.active_object


def test_export_import_builds_the_same_puzzle(addon, tmp_path):
    obj = _make()
    scene = addon_module("scene")
    pf = addon_module("engine.files.puzzlefile")
    path = tmp_path / "suzanne.json"
    assert run_op(bpy.ops.nonogram.export_puzzle, filepath=str(path)) == {'FINISHED'}
    sol = point_attribute(obj, "solution")
    n_labels = len(obj.nonogram.labels.data.vertices)
    # Import without any source mesh in the file.
    reset_scene()
    before = data_counts()
    assert run_op(bpy.ops.nonogram.import_puzzle, filepath=str(path),
                  voxel_size=0.25) == {'FINISHED'}
    new = bpy.context.active_object
    assert new.nonogram.is_nonogram and new.nonogram.source is None
    assert data_counts()["objects"] > before["objects"]
    assert pf.puzzle_to_dict(scene.load_stored_puzzle(new)) == pf.puzzle_to_dict(pf.load_puzzle(str(path)))
    assert np.array_equal(point_attribute(new, "solution"), sol)
    assert len(new.nonogram.labels.data.vertices) == n_labels
    assert np.allclose(np.array(new.scale), 0.25)
    scene.set_clue_layer(new, 'ALL', 0)  # every cell drawn (new nonograms cut at a clue layer)
    assert len(instances_of(new)) == sol.sum()  # the file's solution, its model: not a grey block


def test_import_errors_are_reported(addon, tmp_path):
    bad = tmp_path / "bad.json"
    bad.write_text('{"format": "nonogram", "version": 1, "shape": [2, 2, 2], "x": 5}')
    two_d = tmp_path / "flat.json"
    two_d.write_text('{"format": "nonogram", "version": 1, "shape": [2, 2], '
                     '"rows": [[1], [1]], "columns": [[1], [1]]}')
    op = bpy.ops.nonogram.import_puzzle
    for path, words in ((bad, "bad.json"), (two_d, "2D puzzle"),
                        (tmp_path / "missing.json", "missing.json")):
        before = data_counts()
        with pytest.raises(RuntimeError, match=words):
            run_op(op, filepath=str(path))
        assert data_counts() == before


def test_puzzle_and_report_survive_save_and_reload(addon, tmp_path):
    obj = _make(res=6)
    assert run_op(bpy.ops.nonogram.solve) == {'FINISHED'}
    scene = addon_module("scene")
    pf = addon_module("engine.files.puzzlefile")
    want_puzzle = pf.puzzle_to_dict(scene.load_stored_puzzle(obj))
    want_report = scene.load_stored_report(obj)
    want_state = point_attribute(obj, "state")
    name = obj.name
    path = tmp_path / "saved.blend"
    bpy.ops.wm.save_as_mainfile(filepath=str(path), copy=True)
    reset_scene()
    bpy.ops.wm.open_mainfile(filepath=str(path))
    obj = bpy.data.objects[name]
    assert pf.puzzle_to_dict(scene.load_stored_puzzle(obj)) == want_puzzle
    assert scene.load_stored_report(obj) == want_report
    assert np.array_equal(point_attribute(obj, "state"), want_state)
    # The glyph library is only referenced by the modifier: it must have been saved too.
    assert len(instances_of(obj.nonogram.labels)) > 0


def test_clear_removes_everything_it_created(addon):
    add_primitive("cube")  # unrelated user data that must survive
    user_mat = bpy.data.materials.new("Nonogram Voxel")  # same name as ours, not ours
    base = data_counts()
    src = add_primitive("uv_sphere", segments=16, ring_count=8)
    after_src = data_counts()
    s = bpy.context.scene.nonogram_settings
    s.resolution, s.hide_source = 6, True
    assert run_op(bpy.ops.nonogram.make) == {'FINISHED'}
    first = bpy.context.active_object
    assert not src.visible_get()
    bpy.context.view_layer.objects.active = src
    s.hide_source = False
    src.hide_set(False)
    assert run_op(bpy.ops.nonogram.make) == {'FINISHED'}
    second = bpy.context.active_object
    src.hide_set(True)
    # Clear the first one (selected through its clue object): the shared node groups and
    # materials stay for the second.
    bpy.context.view_layer.objects.active = first.nonogram.labels
    n_groups = len(bpy.data.node_groups)
    assert run_op(bpy.ops.nonogram.clear) == {'FINISHED'}
    assert not any(o.nonogram.is_nonogram and o.name == "Sphere Nonogram" for o in bpy.data.objects)
    assert len(bpy.data.node_groups) == n_groups
    assert src.visible_get()  # Make hid it, Clear shows it again
    bpy.context.view_layer.objects.active = second
    assert run_op(bpy.ops.nonogram.clear) == {'FINISHED'}
    assert data_counts() == after_src
    assert bpy.data.materials.get(user_mat.name) == user_mat
    assert all(not o.nonogram.is_nonogram for o in bpy.data.objects)
    bpy.data.objects.remove(src)
    assert data_counts()["objects"] == base["objects"]
