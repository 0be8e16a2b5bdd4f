"""Issue 14 in Blender: pieces and the piece options, the union of selected meshes, warnings
that mean something (STL import, open meshes), and the small fixes (Show Unknown Cells on a
solved puzzle, Clear and the font)."""
import json

import numpy as np
import pytest

import procedural as P
from blender_support import (add_primitive, addon, addon_module, bpy, data_counts, engine, instances_of,
                             point_attribute, run_op)

pytestmark = pytest.mark.blender


def mesh_object(name, verts, tris, location=(0.0, 0.0, 0.0)):
    me = bpy.data.meshes.new(name)
    me.from_pydata([tuple(map(float, v)) for v in verts], [], [tuple(map(int, t)) for t in tris])
    me.update()
    ob = bpy.data.objects.new(name, me)
    bpy.context.scene.collection.objects.link(ob)
    ob.location = location
    return ob


def select_only(*objs, active=None):
    for o in bpy.context.view_layer.objects:
        o.select_set(False)
    for o in objs:
        o.select_set(True)
    bpy.context.view_layer.objects.active = active or objs[0]


def make(**settings):
    s = bpy.context.scene.nonogram_settings
    for k, v in settings.items():
        setattr(s, k, v)
    assert run_op(bpy.ops.nonogram.make) == {'FINISHED'}
    obj = bpy.context.active_object
    return obj, json.loads(obj.nonogram.make_info)


def test_thin_legs_and_what_each_option_does(addon):
    v, t = P.spider()
    spider = mesh_object("Spider", v, t)
    counts = {}
    for mode, extra in (("NONE", {}), ("BRIDGE", {}), ("RESTORE", {}),
                        ("NONE", {"min_piece": 2}), ("NONE", {"keep_largest": True})):
        select_only(spider)
        obj, info = make(resolution=36, thin_parts=mode, min_piece=extra.get("min_piece", 0),
                         keep_largest=extra.get("keep_largest", False))
        stats = info["diagnostics"]["pieces"]
        counts[(mode, tuple(extra))] = stats["pieces"]
        # The cells are the voxelizer's grid with the same options, in world space.
        ref = engine("voxel.voxelize").voxelize(v, t, resolution=36, bridge=mode != "NONE",
                                          thin_parts=mode == "RESTORE", **extra)
        assert np.array_equal(point_attribute(obj, "solution"), ref.grid.ravel())
        if mode == "NONE" and not extra:
            assert stats["pieces"] > 1 and stats["single_cubes"] > 0
            assert any("fall apart into" in w for w in info["warnings"])
            assert info["changes"] == [] and "repair" not in obj.data.attributes
        else:
            assert stats["pieces"] == 1 and stats["single_cubes"] == 0
            assert not any("fall apart" in w for w in info["warnings"])
            assert info["changes"], "the make info must say what the option changed"
            repair = point_attribute(obj, "repair")
            added = int((repair > 0).sum())
            rep = info["diagnostics"]["repair"]
            assert added == rep["thin_added"] + rep["bridge_added"]
            assert rep["before"]["pieces"] == counts[("NONE", ())]
            if added:
                # Show Added Cells highlights exactly those cells over the answer.
                assert run_op(bpy.ops.nonogram.show_added) == {'FINISHED'}
                assert np.array_equal(point_attribute(obj, "highlight"), repair > 0)
                assert np.array_equal(point_attribute(obj, "visible"),
                                      point_attribute(obj, "solution").astype(bool))
        run_op(bpy.ops.nonogram.clear)
    assert counts[("NONE", ())] > 1
    assert all(n == 1 for k, n in counts.items() if k != ("NONE", ()))


def test_two_selected_meshes_are_voxelized_together(addon):
    a = add_primitive("cube", location=(0.0, 0.0, 0.0))
    b = add_primitive("uv_sphere", location=(4.0, 0.0, 0.5), radius=0.8)
    select_only(a, b, active=a)
    obj, info = make(resolution=16, hide_source=True)
    assert info["sources"] == [a.name, b.name]
    assert [item.object for item in obj.nonogram.sources] == [a, b]
    # The union in world space: the grid spans both objects, and equals the engine's grid of
    # both meshes' world triangles together.
    scene = addon_module("operators.scene")
    verts, tris = scene.sources_triangles(bpy.context, [a, b])
    assert verts[:, 0].min() < -0.9 and verts[:, 0].max() > 4.7
    ref = engine("voxel.voxelize").voxelize(verts, tris, resolution=16)
    assert np.array_equal(point_attribute(obj, "solution"), ref.grid.ravel())
    assert info["diagnostics"]["pieces"]["pieces"] == 2
    assert not a.visible_get() and not b.visible_get()
    run_op(bpy.ops.nonogram.clear)
    assert a.visible_get() and b.visible_get()  # Clear shows every hidden source again
    # One mesh and a camera selected: the camera is left out, the mesh used.
    cam = bpy.data.objects.new("Cam", bpy.data.cameras.new("Cam"))
    bpy.context.scene.collection.objects.link(cam)
    select_only(a, cam, active=a)
    obj, info = make(resolution=8, hide_source=False)
    assert info["sources"] == [a.name]


def test_closed_stl_imported_by_blender_is_not_called_open(addon, tmp_path):
    """Blender's STL import merges only exactly equal vertices; an exporter's rounding leaves
    copies a few float32 steps apart, which Blender then sees as boundary edges."""
    v, t = P.stegosaurus()
    path = tmp_path / "part.stl"
    P.write_stl(path, v, t, binary=True, jitter=2e-6)
    with bpy.context.temp_override(**_window()):
        assert bpy.ops.wm.stl_import(filepath=str(path)) == {'FINISHED'}
    src = bpy.context.selected_objects[0]
    import bmesh
    bm = bmesh.new()
    bm.from_mesh(src.data)
    assert sum(e.is_boundary for e in bm.edges) > 0  # the premise: Blender's mesh is "open"
    bm.free()
    select_only(src)
    obj, info = make(resolution=24)
    assert info["diagnostics"]["boundary_edges"] == 0 and not info["diagnostics"]["looks_open"]
    assert not any("open" in w for w in info["warnings"]), info["warnings"]


def test_a_truly_open_mesh_still_warns(addon):
    src = add_primitive("cube")
    bpy.ops.object.mode_set(mode='EDIT')
    bpy.ops.mesh.select_all(action='DESELECT')
    bpy.ops.object.mode_set(mode='OBJECT')
    top = max(src.data.polygons, key=lambda p: p.center.z)
    src.data.polygons.foreach_set("select", [p.index == top.index for p in src.data.polygons])
    bpy.ops.object.mode_set(mode='EDIT')
    bpy.ops.mesh.delete(type='FACE')
    bpy.ops.object.mode_set(mode='OBJECT')
    assert len(src.data.polygons) == 5
    select_only(src)
    obj, info = make(resolution=8, thin_parts='NONE', min_piece=0, keep_largest=False)
    assert info["diagnostics"]["boundary_edges"] == 4
    assert any(w.startswith("The mesh is open (4 boundary edges)") for w in info["warnings"])


def test_absurd_coordinates_are_named(addon):
    v, t = P.box([0.0, 0.0, 0.0], [1.0, 1.0, 1.0])
    v = np.vstack([v, [[1e30, 0.0, 0.0]]])
    t = np.vstack([t, [[0, 1, 8]]])
    ob = mesh_object("Stray", v, t)
    select_only(ob)
    bpy.context.scene.nonogram_settings.resolution = 12
    before = data_counts()
    with pytest.raises(RuntimeError, match="far away from the rest of the mesh"):
        run_op(bpy.ops.nonogram.make)
    assert data_counts() == before


def test_show_unknown_cells_on_a_solved_puzzle_keeps_the_cubes(addon):
    src = add_primitive("cube")
    select_only(src)
    obj, _ = make(resolution=4, thin_parts='NONE', min_piece=0, keep_largest=False)
    addon_module("operators.scene").set_clue_layer(obj, 'ALL', 0)  # no layer cut away
    assert run_op(bpy.ops.nonogram.solve) == {'FINISHED'}
    assert json.loads(obj.nonogram.report)["known_fraction"] == 1.0
    shown = point_attribute(obj, "visible").copy()
    n_cubes = len(instances_of(obj))
    assert n_cubes == 64
    assert run_op(bpy.ops.nonogram.show_cells, mode='UNDECIDED') == {'FINISHED'}
    assert np.array_equal(point_attribute(obj, "visible"), shown)
    assert len(instances_of(obj)) == n_cubes
    assert addon_module("operators.scene").show_cells(obj, 'UNDECIDED') == 0


def test_clear_leaves_no_font_behind(addon):
    assert len(bpy.data.fonts) == 0
    src = add_primitive("cube")
    before = data_counts()
    select_only(src)
    make(resolution=4)
    assert len(bpy.data.fonts) == 1  # Blender's built-in font, loaded by the first glyph
    run_op(bpy.ops.nonogram.clear)
    assert len(bpy.data.fonts) == 0
    assert data_counts() == before
    # A font the user loaded before is theirs: Clear keeps it.
    user_font = bpy.data.curves.new("mine", 'FONT')
    select_only(src)
    make(resolution=4)
    run_op(bpy.ops.nonogram.clear)
    assert len(bpy.data.fonts) == 1 and user_font.font.users > 0


def _window():
    from blender_support import view3d_override
    return view3d_override()


def test_batch_keeps_only_what_the_file_shows(addon):
    """batch.model_objects: the rules for leaving helpers out of a model."""
    from test_batch import load_batch_module
    batch = load_batch_module()
    box = P.box([0.0, 0.0, 0.0], [0.5, 0.5, 0.5])
    body = mesh_object("Body", *box)
    hidden = mesh_object("Hidden", *box)
    hidden.hide_set(True)
    unrendered = mesh_object("NoRender", *box)
    unrendered.hide_render = True
    wire = mesh_object("Cage", *box)
    wire.display_type = 'WIRE'
    bounds = mesh_object("Bounds", *box)
    bounds.display_type = 'BOUNDS'
    mesh_object("UCX_Body_01", *box)
    shape = mesh_object("Widget", *box)
    arm = bpy.data.objects.new("Rig", bpy.data.armatures.new("Rig"))
    bpy.context.scene.collection.objects.link(arm)
    bpy.context.view_layer.objects.active = arm
    bpy.ops.object.mode_set(mode='EDIT')
    bone = arm.data.edit_bones.new("b")
    bone.head, bone.tail = (0, 0, 0), (0, 0, 1)
    bpy.ops.object.mode_set(mode='OBJECT')
    arm.pose.bones["b"].custom_shape = shape
    tucked = bpy.data.collections.new("Helpers")
    bpy.context.scene.collection.children.link(tucked)
    in_hidden = bpy.data.objects.new("InHiddenCollection", bpy.data.meshes.new("m"))
    tucked.objects.link(in_hidden)
    bpy.context.view_layer.layer_collection.children["Helpers"].hide_viewport = True
    used, skipped = batch.model_objects(list(bpy.data.objects))
    assert used == [body]
    assert dict(skipped) == {
        "Hidden": "hidden", "NoRender": "not rendered",
        "Cage": "displayed as wire only: a helper or collider",
        "Bounds": "displayed as bounds only: a helper or collider",
        "UCX_Body_01": "a collision mesh", "Widget": "an armature's bone shape",
        "InHiddenCollection": "hidden"}


def test_the_panel_shows_pieces_and_what_the_options_changed(addon):
    from test_blender_addon import _draw_all
    v, t = P.spider()
    spider = mesh_object("Spider", v, t)
    other = add_primitive("cube", location=(5.0, 0.0, 0.0))
    select_only(spider, other)
    labels = [text for kind, text in _draw_all(addon) if kind == "label"]
    assert "The union of 2 selected meshes" in labels
    select_only(spider)
    obj, info = make(resolution=36, thin_parts='NONE', min_piece=0, keep_largest=False)
    stats = info["diagnostics"]["pieces"]
    labels = [text for kind, text in _draw_all(addon) if kind == "label"]
    assert f"{stats['pieces']} pieces, {stats['single_cubes']} single cubes" in " ".join(labels)
    run_op(bpy.ops.nonogram.clear)
    select_only(spider)
    obj, info = make(resolution=36, thin_parts='BRIDGE')
    log = _draw_all(addon)
    labels = [text for kind, text in log if kind == "label"]
    assert "1 piece" in labels
    added = info["diagnostics"]["repair"]["bridge_added"]
    assert f"{added} voxels added to bridge pieces" in labels
    assert ("operator", "nonogram.show_added") in log
