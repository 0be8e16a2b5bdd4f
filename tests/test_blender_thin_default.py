"""Issue 22 item 7 in Blender: Make keeps thin parts by default, and its report says when the
grid's longest side is shorter than the resolution asked for, and why."""
import json

import numpy as np

import procedural as P
import pytest
from blender_support import Event, Recorder, addon, bpy, drive_modal, operator_stand_in

pytestmark = pytest.mark.blender


def mesh_object(name, parts):
    v, t = P.join(parts) if isinstance(parts, list) else parts
    me = bpy.data.meshes.new(name)
    me.from_pydata([tuple(map(float, p)) for p in v], [], [tuple(map(int, f)) for f in t])
    me.update()
    ob = bpy.data.objects.new(name, me)
    bpy.context.scene.collection.objects.link(ob)
    return select_only(ob)


def select_only(ob):
    for o in bpy.context.view_layer.objects:
        o.select_set(False)
    ob.select_set(True)
    bpy.context.view_layer.objects.active = ob
    return ob


def make_modal(**props):
    """Make as the button runs it (modal, worker thread); returns (nonogram, make_info, reports)."""
    op = operator_stand_in(bpy.types.NONOGRAM_OT_make, **props)
    ctx = Recorder()
    assert op.invoke(ctx, Event('NONE')) == {'RUNNING_MODAL'}
    assert drive_modal(op, ctx, []) == {'FINISHED'}
    obj = bpy.context.active_object
    return obj, json.loads(obj.nonogram.make_info), [msg for _, msg in op.reports]


def test_make_restores_thin_parts_by_default():
    settings = bpy.context.scene.nonogram_settings
    assert settings.thin_parts == 'RESTORE'
    assert bpy.ops.nonogram.make.get_rna_type().properties["thin_parts"].default == 'RESTORE'
    mesh_object("Spider", P.spider())
    settings.resolution = 24
    obj, info, reports = make_modal()
    assert info["bridge"] and info["thin_parts"]
    assert info["diagnostics"]["pieces"]["pieces"] == 1
    assert info["diagnostics"]["repair"]["thin_added"] > 100  # the legs
    assert any("in 1 piece" in r and "voxels added to keep thin parts" in r for r in reports)


def test_make_report_says_why_the_grid_is_shorter_than_asked():
    body = [P.box((0.0, 6.0, 0.0), (2.0, 6.0, 3.0)), P.box((0.0, 14.0, 0.0), (0.05, 2.0, 2.0))]
    src = mesh_object("Finned", body)
    bpy.context.scene.nonogram_settings.resolution = 16
    obj, info, reports = make_modal(thin_parts='NONE')
    assert info["shape"] == [4, 12, 6]
    line = next(r for r in reports if r.startswith("Nonogram 4×12×6"))
    assert "Asked for 16 voxels along the longest side, got 12" in line
    assert "the last 4 layers" in line and "Restore Thin Parts" in line
    # With the default the fin is kept: the full 16, and no note.
    select_only(src)
    obj, info, reports = make_modal()
    assert max(info["shape"]) == 16
    assert not any("Asked for" in r for r in reports)


def test_a_flat_mesh_becomes_a_sheet_by_default():
    plane = [(np.array([[0, 0, 0], [4, 0, 0], [4, 3, 0], [0, 3, 0]], float), np.array([[0, 1, 2], [0, 2, 3]]))]
    mesh_object("Flat", P.join(plane))
    bpy.context.scene.nonogram_settings.resolution = 8
    obj, info, reports = make_modal()
    assert info["shape"][2] == 1 and info["filled"] == info["shape"][0] * info["shape"][1] > 0
