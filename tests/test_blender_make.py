"""Make Nonogram on real meshes, and the errors that must leave bpy.data untouched."""
import json
from collections import Counter

import numpy as np
import pytest

from blender_support import (add_primitive, addon, addon_module, bpy, data_counts, engine, instances_of,
                             mesh_coords, point_attribute, run_op)

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
    vr = engine("voxelize").voxelize(verts, tris, resolution=res, samples=1,
                                             threshold=0.5, robust=True, fit=True)
    grid = vr.grid
    assert grid.sum() > 0
    # One point per grid cell, solution attribute = the voxel grid in puzzle cell order.
    assert len(obj.data.vertices) == grid.size
    assert np.array_equal(point_attribute(obj, "solution"), grid.ravel())
    assert (point_attribute(obj, "state") == 3).all()
    assert np.allclose(np.array(obj.matrix_world.translation), vr.origin, atol=1e-5)
    assert np.allclose(np.array(obj.scale), vr.voxel_size, rtol=1e-6)
    # Cell (x, y, z) sits at (x+.5, y+.5, z+.5) voxels from the origin.
    pts = mesh_coords(obj)
    X, Y, Z = grid.shape
    assert np.allclose(pts[(1 * Y + 0) * Z + 0 if X > 1 else 0], [1.5 if X > 1 else 0.5, 0.5, 0.5])

    # Clue labels: one point per clued line.
    puzzle = engine("clues").puzzle_from_grid(grid)
    clued = int((puzzle.clue_kind != 0).sum())
    labels = obj.nonogram.labels
    assert labels is not None and labels.parent == obj
    assert len(labels.data.vertices) == clued
    # Evaluated: one glyph per non-zero clue (zeros hidden by default) + an outline per
    # circle/square clue.
    totals = point_attribute(labels, "clue_total")
    kinds = point_attribute(labels, "clue_kind")
    inst = instances_of(labels)
    n_glyph = sum(1 for o, _ in inst if o.type == 'FONT')
    n_outline = sum(1 for o, _ in inst if o.type == 'MESH')
    assert n_glyph == int((totals > 0).sum())
    assert n_outline == int(((kinds >= 3) & (totals > 0)).sum())
    # Voxel cubes: every cell is unknown, so every cell is drawn.
    assert len(instances_of(obj)) == grid.size

    # The stored puzzle round-trips through the JSON export.
    path = tmp_path / "p.json"
    assert run_op(bpy.ops.nonogram.export_puzzle, filepath=str(path)) == {'FINISHED'}
    pf = engine("puzzlefile")
    loaded = pf.load_puzzle(str(path))
    assert pf.puzzle_to_dict(loaded) == pf.puzzle_to_dict(puzzle) | {"name": src.name}

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
    puzzle = engine("clues").puzzle_from_grid(grid, name="kinds")
    assert {2, 3, 4} <= set(puzzle.clue_kind.tolist())
    scene_mod = addon_module("operators.scene")
    # An earlier nonogram of the same name takes the glyph names first: Blender then renames
    # some of ours (".001"), which must not change their order.
    other = engine("clues").puzzle_from_grid(rng.random((3, 3, 3)) < 0.5)
    scene_mod.build_from_puzzle(bpy.context, other, name="kinds")
    obj = scene_mod.build_from_puzzle(bpy.context, puzzle, name="kinds", origin=(1, 2, 3),
                                      voxel_size=0.3)
    assert any(o.name.endswith(".001") for o in obj.nonogram.glyphs.objects)
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
    scene_mod = addon_module("operators.scene")
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
    scene_mod = addon_module("operators.scene")
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
    # Nothing selected, no active object.
    assert "No mesh selected" in _bad()
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
    # A flat mesh gives no filled voxels.
    add_primitive("plane")
    bpy.context.scene.nonogram_settings.resolution = 8
    assert "no filled voxels" in _bad()
    # A nonogram is not a source.
    add_primitive("cube")
    assert _make(4) == {'FINISHED'}
    assert "already a nonogram" in _bad()
