"""Designing in Blender: hidden clues on the object, in files and .blends."""
import json

import numpy as np
import pytest

from blender_support import (add_primitive, addon, addon_module, bpy, data_counts, instances_of,
                             point_attribute, reset_scene, run_op)

pytestmark = pytest.mark.blender


def _random_nonogram(shape=(5, 4, 6), seed=3, density=0.55, hidden_fraction=0.3, name="rand"):
    rng = np.random.default_rng(seed)
    grid = rng.random(shape) < density
    puzzle = addon_module("engine.clues").puzzle_from_grid(grid, name=name)
    hidden = rng.random(puzzle.n_lines) < hidden_fraction
    scene = addon_module("operators.scene")
    obj = scene.build_from_puzzle(bpy.context, puzzle, name=name, voxel_size=0.3)
    scene.set_hidden(obj, hidden)
    return obj, puzzle, hidden


def _label_count(obj):
    return sum(1 for o, m in instances_of(obj) if o.type == 'FONT')


def test_export_writes_hidden_clues_as_null_and_import_shows_them_hidden(addon, tmp_path):
    obj, full, hidden = _random_nonogram()
    scene = addon_module("operators.scene")
    pf = addon_module("engine.puzzlefile")
    designed = scene.load_stored_puzzle(obj)
    assert np.array_equal(designed.clue_kind == 0, hidden)
    path = tmp_path / "designed.json"
    assert run_op(bpy.ops.nonogram.export_puzzle, filepath=str(path)) == {'FINISHED'}
    doc = json.loads(path.read_text())
    X, Y, Z = full.shape
    tables = [v for row in doc["x"] for v in row] + [v for row in doc["y"] for v in row] \
        + [v for row in doc["z"] for v in row]
    assert [v is None for v in tables] == hidden.tolist()
    assert doc["solution"]
    scene.set_view(obj, 'PLAYER')
    labels_before = _label_count(obj)
    assert labels_before == 2 * int((~hidden).sum())

    reset_scene()
    assert run_op(bpy.ops.nonogram.import_puzzle, filepath=str(path), voxel_size=0.3) == {'FINISHED'}
    new = bpy.context.active_object
    assert np.array_equal(scene.hidden_mask(new), hidden)
    # Every clue is known again (from the solution), so hidden ones can be shown.
    assert pf.puzzle_to_dict(scene.load_full_puzzle(new))["x"] == pf.puzzle_to_dict(full)["x"]
    assert pf.puzzle_to_dict(scene.load_stored_puzzle(new)) == pf.puzzle_to_dict(pf.load_puzzle(str(path)))
    assert len(new.nonogram.labels.data.vertices) == full.n_lines
    scene.set_view(new, 'PLAYER')
    assert _label_count(new) == labels_before
    # Exported again, the same file.
    again = tmp_path / "again.json"
    assert run_op(bpy.ops.nonogram.export_puzzle, filepath=str(again)) == {'FINISHED'}
    assert json.loads(again.read_text())["x"] == doc["x"]


def test_import_without_a_solution_keeps_missing_clues_missing(addon, tmp_path):
    path = tmp_path / "nosol.json"
    path.write_text(json.dumps({"format": "nonogram", "version": 1, "shape": [2, 2, 1],
                                "x": [["1"], [None]], "y": [["1"], ["1"]], "z": [["1", "0"], [None, "1"]]}))
    assert run_op(bpy.ops.nonogram.import_puzzle, filepath=str(path)) == {'FINISHED'}
    obj = bpy.context.active_object
    scene = addon_module("operators.scene")
    assert not scene.hidden_mask(obj).any()
    assert len(obj.nonogram.labels.data.vertices) == 6  # only the lines with a clue


def test_hidden_clues_view_and_slices_survive_save_and_reload(addon, tmp_path):
    obj, full, hidden = _random_nonogram()
    scene = addon_module("operators.scene")
    scene.set_view(obj, 'PLAYER')
    scene.set_slice(obj, 'Y', -1)
    name = obj.name
    labels = _label_count(obj)
    path = tmp_path / "designed.blend"
    bpy.ops.wm.save_as_mainfile(filepath=str(path), copy=True)
    reset_scene()
    bpy.ops.wm.open_mainfile(filepath=str(path))
    obj = bpy.data.objects[name]
    assert np.array_equal(scene.hidden_mask(obj), hidden)
    assert scene.current_view(obj) == 'PLAYER'
    assert scene.get_modifier_input(scene.player_modifier(obj), "Slice Y") == -1
    assert _label_count(obj) == labels


def test_make_keeps_the_source_out_of_renders_and_clear_restores_it(addon):
    src = add_primitive("uv_sphere", segments=16, ring_count=8)
    assert not src.hide_render
    bpy.context.scene.nonogram_settings.resolution = 5
    assert run_op(bpy.ops.nonogram.make) == {'FINISHED'}
    assert src.hide_render  # the cubes have gaps: the source would show through them
    assert run_op(bpy.ops.nonogram.clear) == {'FINISHED'}
    assert not src.hide_render
