"""The rough edges a new user met with the installed add-on (issue #37, "Also found in Blender"),
each with real bpy: out-of-range colours, the Design panel after a colour Make, the designer's
view right after Make, an armature's bone shape among the selected meshes, Merge Colours'
entry numbers, the wording of counts, and the batch's report of a model that fails."""
import json
import os
import subprocess
import sys

import numpy as np
import pytest

from blender_support import (ROOT, addon, addon_module, bpy, data_counts, instances_of,  # noqa: F401
                             operator_stand_in, point_attribute, run_op)
from test_blender_colours import principled as _material

pytestmark = pytest.mark.blender


def _two_colour_cube(name="Model", location=(0.0, 0.0, 0.0)):
    """A cube whose top and bottom faces are red and the other four blue."""
    bpy.ops.mesh.primitive_cube_add(size=2.0, location=location)
    cube = bpy.context.active_object
    cube.name = name
    for rgb in ((0.8, 0.02, 0.02), (0.02, 0.02, 0.8)):
        cube.data.materials.append(_material(f"{name} {rgb}", rgb))
    for poly in cube.data.polygons:
        poly.material_index = 0 if abs(poly.normal.z) > 0.5 else 1
    return cube


def _make_reports(**props):
    """Make run as the button runs it (the operator's own code, to the end), its reports."""
    op = operator_stand_in(bpy.types.NONOGRAM_OT_make, **props)
    assert op.execute(bpy.context) == {'FINISHED'}, op.reports
    return op.reports


@pytest.mark.parametrize("setting, value, message", [
    ("colours", 0, "Colours must be 1 (plain) to 256, got 0"),
    ("colours", 300, "Colours must be 1 (plain) to 256, got 300"),
    ("colours", -5, "Colours must be 1 (plain) to 256, got -5"),
    ("puzzle_colours", 0, "Puzzle Colours must be 1 (black-and-white) to 35, got 0"),
    ("puzzle_colours", 50, "Puzzle Colours must be 1 (black-and-white) to 35, got 50"),
])
def test_colours_out_of_range_are_refused_with_a_message_not_clamped(setting, value, message):
    """Blender clamped 0, 300 and -5 to the property's limits without a word (300 made "77
    colours")."""
    settings = bpy.context.scene.nonogram_settings
    _two_colour_cube()
    settings.resolution = 4
    setattr(settings, setting, value)
    assert getattr(settings, setting) == value  # kept as typed, for Make to refuse
    before = data_counts()
    with pytest.raises(RuntimeError, match=message.replace("(", r"\(").replace(")", r"\)")):
        run_op(bpy.ops.nonogram.make)
    setattr(settings, setting, 6 if setting == "colours" else 1)
    with pytest.raises(RuntimeError, match=f"got {value}"):  # the operator's own argument too
        run_op(bpy.ops.nonogram.make, **{setting: value})
    assert data_counts() == before


def test_make_with_puzzle_colours_sets_the_design_panels_puzzle_colours():
    _two_colour_cube()
    reports = _make_reports(resolution=6, colours=4, puzzle_colours=2)
    obj = bpy.context.active_object
    assert obj.nonogram.is_nonogram
    assert len(addon_module("scene").load_full_puzzle(obj).clue_colours) == 2
    # the Design panel's Puzzle Colours is this nonogram's (it said 1)
    assert obj.nonogram.design_options.puzzle_colours == 2
    info = next(msg for kind, msg in reports if kind == {'INFO'})
    assert "a colour puzzle of 2 colours" in info


def test_the_designers_view_right_after_make_shows_the_model():
    """It was a grey block, every cell drawn as unknown, until a Solve."""
    bpy.ops.mesh.primitive_monkey_add()
    _make_reports(resolution=8)
    obj = bpy.context.active_object
    scene = addon_module("scene")
    assert scene.current_view(obj) == 'DESIGNER'
    scene.set_clue_layer(obj, 'ALL', 0)  # every cell, not one layer's
    solution = point_attribute(obj, "solution")
    assert 0 < solution.sum() < solution.size
    cubes = instances_of(obj)
    assert len(cubes) == solution.sum()
    # each cube on a cell of the model (the cell points are in the object's local space)
    cells = np.array([tuple(obj.matrix_world.inverted() @ m.translation) for _, m in cubes])
    X, Y, Z = obj.nonogram.shape
    idx = np.floor(cells).astype(int)
    assert solution[(idx[:, 0] * Y + idx[:, 1]) * Z + idx[:, 2]].all()


def _armature_with_bone_shape():
    """A model, the armature posing it and the Icosphere its bone is drawn with (as the glTF
    importer makes them), all selected, the model active."""
    bpy.ops.mesh.primitive_cube_add(size=2.0)
    model = bpy.context.active_object
    model.name = "Model"
    bpy.ops.mesh.primitive_ico_sphere_add(radius=0.3, location=(3.0, 0.0, 0.0))
    shape = bpy.context.active_object
    shape.name = "Icosphere"
    arm_data = bpy.data.armatures.new("Armature")
    arm = bpy.data.objects.new("Armature", arm_data)
    bpy.context.scene.collection.objects.link(arm)
    bpy.context.view_layer.objects.active = arm
    bpy.ops.object.mode_set(mode='EDIT')
    bone = arm_data.edit_bones.new("Bone")
    bone.head, bone.tail = (0.0, 0.0, 0.0), (0.0, 0.0, 1.0)
    bpy.ops.object.mode_set(mode='OBJECT')
    arm.pose.bones["Bone"].custom_shape = shape
    for ob in (model, shape, arm):
        ob.select_set(True)
    bpy.context.view_layer.objects.active = model
    return model, shape


def test_select_all_leaves_an_armatures_bone_shape_out_of_the_nonogram():
    model, shape = _armature_with_bone_shape()
    reports = _make_reports(resolution=6)
    obj = bpy.context.active_object
    assert [s.object.name for s in obj.nonogram.sources] == ["Model"]
    info = next(msg for kind, msg in reports if kind == {'INFO'})
    assert "'Icosphere' (an armature's bone shape)" in info
    # the bone shape alone, active: nothing to make, and the message says why
    bpy.ops.object.select_all(action='DESELECT')
    shape.select_set(True)
    bpy.context.view_layer.objects.active = shape
    with pytest.raises(RuntimeError, match="No mesh to make a nonogram from: left out 'Icosphere' "
                                           "\\(an armature's bone shape\\)"):
        run_op(bpy.ops.nonogram.make)


def test_merge_colours_counts_entries_as_the_panel_does():
    """drop=9 on a 3-entry palette said "no palette entry 8 to drop" (counted from 0)."""
    cube = _two_colour_cube()
    cube.data.materials.append(_material("green", (0.02, 0.8, 0.02)))
    cube.data.polygons[0].material_index = 2
    _make_reports(resolution=6, colours=6)
    obj = bpy.context.active_object
    assert len(obj.nonogram.palette) == 3
    with pytest.raises(RuntimeError, match=r"Merge Into It: no colour 9 \(the palette has 3\)"):
        run_op(bpy.ops.nonogram.merge_colours, keep=1, drop=9)
    with pytest.raises(RuntimeError, match=r"Keep: no colour 4 \(the palette has 3\)"):
        run_op(bpy.ops.nonogram.merge_colours, keep=4, drop=1)
    assert run_op(bpy.ops.nonogram.merge_colours, keep=1, drop=3) == {'FINISHED'}
    assert len(obj.nonogram.palette) == 2


def test_one_of_a_thing_is_said_in_the_singular():
    # a model of one colour: "1 colour" in Make's report and the Colours panel
    bpy.ops.mesh.primitive_cube_add(size=2.0)
    cube = bpy.context.active_object
    cube.data.materials.append(_material("red", (0.8, 0.02, 0.02)))
    info = next(msg for kind, msg in _make_reports(resolution=4, colours=6) if kind == {'INFO'})
    assert "; 1 colour" in info and "1 colours" not in info
    from test_blender_addon import _draw_all
    labels = [t for k, t in _draw_all(None) if k == "label"]
    assert "Palette: 1 colour" in labels
    # a Mix Shader names its node once
    mix = bpy.data.materials.new("mix")
    if mix.node_tree is None:
        mix.use_nodes = True
    out = next(n for n in mix.node_tree.nodes if n.bl_idname == "ShaderNodeOutputMaterial")
    mix.node_tree.links.new(mix.node_tree.nodes.new("ShaderNodeMixShader").outputs[0], out.inputs["Surface"])
    bpy.ops.mesh.primitive_cube_add(size=2.0, location=(5, 0, 0))
    bpy.context.active_object.data.materials.append(mix)
    _make_reports(resolution=4, colours=6)
    notes = json.loads(bpy.context.active_object.nonogram.make_info)["colour_notes"]
    assert any("its Mix Shader node has no colour input" in n for n in notes), notes
    assert not any("Shader shader" in n for n in notes)
    # one voxel added or removed, a colour puzzle of one colour
    pieces = addon_module("engine.voxel.pieces")
    assert pieces.describe_repair({"bridge_added": 1, "thin_added": 1, "small_removed": 1,
                                   "small_pieces_removed": 1}) == [
        "1 voxel added to keep thin parts", "1 voxel added to bridge pieces",
        "1 voxel removed in 1 small piece"]
    colourfile = addon_module("engine.files.colourfile")
    cp = addon_module("engine.model.colourpuzzle")
    one = cp.colour_puzzle_from_grid(np.ones((2, 2), dtype=int), 1, np.array([[0.1, 0.2, 0.3]], np.float32), "one")
    d = colourfile.colour_puzzle_to_dict(one)
    d["solution"] = "2" * 4
    with pytest.raises(Exception, match="a puzzle of 1 colour allows") as err:
        colourfile.colour_puzzle_from_dict(d, "one.json")
    assert "1 colours" not in str(err.value)
    assert "colour puzzle, 1 colour (" in cp.format_colour_stats("one", cp.colour_stats(one))


def test_the_batch_reports_a_models_own_failure_without_a_traceback(tmp_path):
    """A model that cannot be made at the size asked (here: a cube at 1024, over the cell limit)
    gets its FAILED line, as before, and no Python traceback in front of it."""
    env = {k: v for k, v in os.environ.items() if not k.startswith("BLENDER_")}
    proc = subprocess.run([sys.executable, str(ROOT / "batch.py"), "--", "--input", "cube",
                           "--resolution", "1024", "--out", str(tmp_path)],
                          capture_output=True, text=True, timeout=300, env=env, cwd=tmp_path)
    out = proc.stdout + proc.stderr
    assert proc.returncode == 1, out[-3000:]
    assert "cube @ 1024: FAILED: NonogramError: Resolution 1024 gives a 1024×1024×1024 grid" in out, out[-3000:]
    assert "Traceback" not in out, out[-3000:]
