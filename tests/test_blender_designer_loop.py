"""The designer's loop in Blender (issue #22): the numbers the Design panel shows are the ones
the engine wrote, a Hide Clues result does not outlive hand edits, an imported design is checked,
Repair, and the metric names."""
import json

import numpy as np
import pytest

from blender_support import addon, addon_module, bpy, reset_scene, run_op  # noqa: F401
from test_blender_design import _random_nonogram

pytestmark = pytest.mark.blender


def _labels(addon):
    from test_blender_addon import _draw_all
    return [t for k, t in _draw_all(addon) if k == "label"]


def test_the_check_box_shows_how_many_clues_are_hidden(addon):
    obj, full, hidden = _random_nonogram(hidden_fraction=0.4)
    assert hidden.sum() > 0
    addon_module("scene.live_check").request(obj)
    n = int(addon_module("scene").hidden_mask(obj).sum())
    assert n > 0
    labels = _labels(addon)
    assert any(t.startswith(f"Hidden {n:,} of {full.n_lines:,} clues, checked in") for t in labels), labels


def test_the_hide_clues_box_does_not_outlive_hand_edits(addon):
    obj, full, _ = _random_nonogram(shape=(6, 5, 7), seed=11, hidden_fraction=0.0)
    scene = addon_module("scene")
    assert run_op(bpy.ops.nonogram.hide_clues) == {'FINISHED'}
    n = int(scene.hidden_mask(obj).sum())
    labels = _labels(addon)
    assert any(t.startswith(f"Hidden: {n:,} of") for t in labels)
    assert "Locally minimal: yes" in labels
    # a hand edit: hide one more clue
    mask = scene.hidden_mask(obj)
    addon_module("operators.design").toggle_line(obj, int(np.flatnonzero(~mask)[0]))
    labels = _labels(addon)
    assert not any(t.startswith("Hidden: ") or t.startswith("Locally minimal") for t in labels), labels
    assert f"Edited by hand since Hide Clues ({n:,} hidden then)" in labels
    assert any(t.startswith(f"Hidden {n + 1:,} of") for t in labels)  # the live check: current
    # back to the designed clues (as undo would): the result is current again
    addon_module("operators.design").change_hidden(obj, mask)
    assert "Locally minimal: yes" in _labels(addon)


def test_import_of_a_designed_puzzle_checks_it(addon, tmp_path):
    obj, full, _ = _random_nonogram(shape=(6, 5, 7), seed=11, hidden_fraction=0.0)
    scene = addon_module("scene")
    assert run_op(bpy.ops.nonogram.hide_clues) == {'FINISHED'}
    mask = scene.hidden_mask(obj)
    path = tmp_path / "designed.json"
    assert run_op(bpy.ops.nonogram.export_puzzle, filepath=str(path)) == {'FINISHED'}
    reset_scene()
    assert run_op(bpy.ops.nonogram.import_puzzle, filepath=str(path)) == {'FINISHED'}
    new = bpy.context.active_object
    assert np.array_equal(scene.hidden_mask(new), mask)
    check = scene.load_check(new)
    assert check is not None, "the imported design was never checked"
    assert (check["verdict"], check["solvable"], check["hidden_count"]) == ("unique", True, int(mask.sum()))
    assert not any(t.startswith("Not checked yet") for t in _labels(addon))


def test_the_solve_panel_names_idle_line_solves_and_explains_them(addon):
    from test_blender_addon import _draw_all
    obj, full, _ = _random_nonogram(hidden_fraction=0.0)
    bpy.context.view_layer.objects.active = obj
    assert run_op(bpy.ops.nonogram.solve) == {'FINISHED'}
    assert run_op(bpy.ops.nonogram.compare) == {'FINISHED'}
    log = _draw_all(addon)
    texts = [t for k, t in log if k == "label"] + [v[1] for k, v in log if k == "operator_text"]
    assert not any("bad guess" in t.lower() for t in texts), texts
    idle = [v for k, v in log if k == "operator_text" and v[1].startswith("Idle line solves:")]
    assert idle and idle[0][0] == "nonogram.explain"
    assert ("operator_prop", ("nonogram.explain", "topic", "idle_line_solves")) in log
    explain = addon_module("operators.explain")
    tip = explain.NONOGRAM_OT_explain.description(bpy.context, type("P", (), {"topic": "idle_line_solves"}))
    assert "deduced nothing" in tip and "not guessing" in tip
    assert run_op(bpy.ops.nonogram.explain, topic="idle_line_solves") == {'FINISHED'}


def test_small_things_a_designer_reads(addon):
    """'an empty object', and a resolution that makes no puzzle is refused with a reason."""
    polls = addon_module("scene.polls")
    scene = addon_module("scene")
    empty = bpy.data.objects.new("RootNode", None)
    bpy.context.scene.collection.objects.link(empty)
    bpy.context.view_layer.objects.active = empty
    assert polls.mesh_source(bpy.context) == \
        "'RootNode' is an empty object, not a mesh: select a mesh object"
    with pytest.raises(scene.NonogramError, match="is an empty object"):
        scene.source_triangles(bpy.context, empty)
    assert scene.object_kind('ARMATURE') == "an armature" and scene.object_kind('CURVE') == "a curve"
    rna = bpy.ops.nonogram.make.get_rna_type().properties["resolution"]
    assert rna.hard_min == 3 and "at least 3" in rna.description
    assert bpy.context.scene.nonogram_settings.bl_rna.properties["resolution"].hard_min == 3
    with pytest.raises(scene.NonogramError, match="at least 3"):
        scene.check_resolution(np.zeros((3, 3)), 1)
    from blender_support import add_primitive
    add_primitive("cube")
    assert run_op(bpy.ops.nonogram.make, resolution=1) == {'FINISHED'}  # Blender clamps it to 3
    assert len(bpy.context.active_object.data.vertices) == 27


def test_batch_refuses_a_resolution_that_makes_no_puzzle(capsys):
    from test_batch import load_batch_module
    batch = load_batch_module()
    assert batch.main(["--input", "cube", "--resolution", "2"]) == 2
    assert "at least 3" in capsys.readouterr().err
    assert batch.parse_args(["--input", "cube", "--resolution", "3"]).resolution == [3]


def test_repair_brings_a_hand_broken_design_back_in_one_step(addon):
    """One Suggest Clue is not enough on this hand-broken design; Repair shows the engine's
    fewest clues at once, and the live check follows."""
    from test_designer_loop import _hand_broken
    design_ops = addon_module("operators.design")
    assert design_ops.NONOGRAM_OT_repair.bl_options >= {'REGISTER', 'UNDO'}
    sess, broken, _ = _hand_broken(1)
    scene = addon_module("scene")
    grid = np.asarray(sess.full.solution, bool).reshape(sess.full.grid_shape())
    puzzle = addon_module("engine.model.clues").puzzle_from_grid(grid, name="broken")
    obj = scene.build_from_puzzle(bpy.context, puzzle, name="broken", voxel_size=0.3)
    design_ops.change_hidden(obj, broken)
    assert not scene.load_check(obj)["solvable"]
    assert run_op(bpy.ops.nonogram.suggest_clue) == {'FINISHED'}
    assert not scene.load_check(obj)["solvable"]  # one click was not enough
    design_ops.change_hidden(obj, broken)
    want = sess.repair(broken, "line")
    assert run_op(bpy.ops.nonogram.repair) == {'FINISHED'}
    now = scene.hidden_mask(obj)
    assert np.array_equal(np.flatnonzero(broken & ~now), sorted(want.lines))
    check = scene.load_check(obj)
    assert (check["verdict"], check["solvable"], check["undecided"]) == ("unique", True, 0)
    # nothing left to repair: it says so and changes nothing
    assert run_op(bpy.ops.nonogram.repair) == {'CANCELLED'}
    assert np.array_equal(scene.hidden_mask(obj), now)
    from test_blender_addon import _draw_all
    assert ("operator", "nonogram.repair") in _draw_all(addon)


def test_the_panel_says_before_the_run_what_a_size_allows(addon):
    obj, full, _ = _random_nonogram(shape=(6, 5, 7), seed=11, hidden_fraction=0.0)
    opts = obj.nonogram.design_options
    opts.band = 'expert'
    labels = _labels(addon)
    assert any(t.startswith("Expert: reached on 5 of 7 test models below 24 voxels") for t in labels), labels
    assert any(t.startswith("Line logic: some models reach this band only with probing") for t in labels)
    opts.logic = 'probe'
    assert not any(t.startswith("Line logic:") for t in _labels(addon))
    opts.band = 'medium'
    assert not any(t.startswith("Expert:") or t.startswith("Hard:") for t in _labels(addon))
    panel = addon_module("panels.design")
    assert panel.band_outlook('expert', 24, 'line') == [] and len(panel.band_outlook('hard', 12, 'line')) == 1
