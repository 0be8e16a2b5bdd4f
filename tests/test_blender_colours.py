"""Colours from real Blender meshes: materials, an image texture through UVs, a colour attribute;
the reveal's attributes and view; palette editing; export/import; bad input."""
import json

import numpy as np
import pytest

from blender_support import (Event, Recorder, add_primitive, addon, addon_module, bpy, drive_modal, engine,  # noqa: F401
                             instances_of, operator_stand_in, point_attribute)

import bmesh  # noqa: E402  (importable once bpy is)

pytestmark = pytest.mark.blender


def scene_api():
    return addon_module("scene")


def make(obj, resolution, colours):
    return scene_api().make_nonogram(bpy.context, obj, resolution=resolution, colours=colours)[0]


def puzzle_of(obj):
    return scene_api().load_full_puzzle(obj)


def cell_srgb(obj):
    """Per cell the 8-bit sRGB colour the stored puzzle gives it, as ints (X, Y, Z, 3)."""
    p = puzzle_of(obj)
    rgb = np.rint(np.asarray(p.palette, np.float64)[p.colours] * 255).astype(int)
    return rgb.reshape(tuple(p.shape) + (3,)), p.solution.reshape(p.shape)


def principled(name, rgb_linear):
    mat = bpy.data.materials.new(name)
    if mat.node_tree is None:
        mat.use_nodes = True
    bsdf = next(n for n in mat.node_tree.nodes if n.bl_idname == "ShaderNodeBsdfPrincipled")
    bsdf.inputs["Base Color"].default_value = (*rgb_linear, 1.0)
    return mat


def to_bytes(linear):
    cs = engine("colour.colourspace")
    return tuple(int(v) for v in np.rint(cs.linear_to_srgb(np.asarray(linear)) * 255))


AXIS_COLOURS = {(-1, 0): (0.8, 0.05, 0.05), (1, 0): (0.05, 0.6, 0.05), (-1, 1): (0.05, 0.05, 0.8),
                (1, 1): (0.9, 0.9, 0.05), (-1, 2): (0.05, 0.7, 0.7), (1, 2): (0.6, 0.05, 0.6)}


def six_colour_cube():
    """A 2 m cube whose six faces each have a material of their own, coloured by the face's
    outward direction (``AXIS_COLOURS``)."""
    bpy.ops.mesh.primitive_cube_add(size=2.0)
    cube = bpy.context.active_object
    keys = list(AXIS_COLOURS)
    for key in keys:
        cube.data.materials.append(principled(f"m{key}", AXIS_COLOURS[key]))
    for poly in cube.data.polygons:
        axis = int(np.argmax(np.abs(poly.normal)))
        poly.material_index = keys.index((int(np.sign(poly.normal[axis])), axis))
    return cube


def test_cube_with_six_face_materials():
    cube = six_colour_cube()
    obj = make(cube, 6, 8)
    rgb, sol = cell_srgb(obj)
    assert sol.all() and sol.shape == (6, 6, 6)
    assert len(puzzle_of(obj).palette) == 6
    mid = slice(1, 5)
    for (end, axis), lin in AXIS_COLOURS.items():
        sel = [mid, mid, mid]
        sel[axis] = 0 if end < 0 else 5
        face = rgb[tuple(sel)].reshape(-1, 3)
        assert {tuple(c) for c in face} == {to_bytes(lin)}, (end, axis)
    # the reveal's per-instance colour is the entry's linear colour
    attr = obj.data.attributes["reveal_colour"]
    got = np.empty(len(attr.data) * 4, np.float32)
    attr.data.foreach_get("color", got)
    p = puzzle_of(obj)
    want = engine("colour.colourspace").srgb_to_linear(p.palette[p.colours])
    np.testing.assert_allclose(got.reshape(-1, 4)[:, :3], want, atol=1e-6)
    info = json.loads(obj.nonogram.make_info)
    assert len(info["palette"]) == 6 and info["colour_notes"] == []


def checker_image():
    img = bpy.data.images.new("checker", 2, 2)
    # rows from the bottom: (red, green) then (blue, white), sRGB bytes
    px = np.array([[1, 0, 0, 1], [0, 1, 0, 1], [0, 0, 1, 1], [1, 1, 1, 1]], np.float32)
    img.pixels.foreach_set(px.ravel())
    return img, px[:, :3].reshape(2, 2, 3)


def textured_box(img, interpolation='Closest', uv=True):
    """A 1 x 1 x 0.25 box whose UVs are its (x, y) squeezed into 0.01..0.99 (so u = 0.5 at
    x = 0.5), with a material sampling ``img``."""
    me = bpy.data.meshes.new("box")
    bm = bmesh.new()
    bmesh.ops.create_cube(bm, size=1.0)
    for v in bm.verts:
        v.co = ((v.co.x + 0.5), (v.co.y + 0.5), (v.co.z + 0.5) * 0.25)
    if uv:
        layer = bm.loops.layers.uv.new("UVMap")
        for f in bm.faces:
            for loop in f.loops:
                loop[layer].uv = (0.01 + 0.98 * loop.vert.co.x, 0.01 + 0.98 * loop.vert.co.y)
    bm.to_mesh(me)
    bm.free()
    obj = bpy.data.objects.new("box", me)
    bpy.context.scene.collection.objects.link(obj)
    mat = bpy.data.materials.new("tex")
    if mat.node_tree is None:
        mat.use_nodes = True
    nt = mat.node_tree
    bsdf = next(n for n in nt.nodes if n.bl_idname == "ShaderNodeBsdfPrincipled")
    tex = nt.nodes.new("ShaderNodeTexImage")
    tex.image = img
    tex.interpolation = interpolation
    nt.links.new(tex.outputs["Color"], bsdf.inputs["Base Color"])
    mat.diffuse_color = (0.2, 0.3, 0.4, 1.0)
    me.materials.append(mat)
    bpy.context.view_layer.objects.active = obj
    return obj


def test_checker_texture_through_uvs():
    img, px = checker_image()
    obj = make(textured_box(img), 8, 8)
    rgb, sol = cell_srgb(obj)
    assert rgb.shape[:2] == (8, 8) and sol.all()
    for x in range(8):
        for y in range(8):
            want = np.rint(px[y // 4, x // 4] * 255).astype(int)
            for z in range(rgb.shape[2]):
                assert tuple(rgb[x, y, z]) == tuple(want), (x, y, z)
    assert len(puzzle_of(obj).palette) == 4


def test_colour_attribute_without_material():
    bpy.ops.mesh.primitive_cube_add(size=2.0)
    cube = bpy.context.active_object
    me = cube.data
    attr = me.color_attributes.new("Col", 'BYTE_COLOR', 'CORNER')
    face_bytes = {}
    for poly in me.polygons:
        axis = int(np.argmax(np.abs(poly.normal)))
        key = (int(np.sign(poly.normal[axis])), axis)
        srgb = tuple(int(v * 255) for v in AXIS_COLOURS[key])
        face_bytes[key] = srgb
        for li in poly.loop_indices:
            attr.data[li].color_srgb = (*[v / 255 for v in srgb], 1.0)
    obj = make(cube, 6, 8)
    rgb, _ = cell_srgb(obj)
    mid = slice(1, 5)
    for (end, axis), srgb in face_bytes.items():
        sel = [mid, mid, mid]
        sel[axis] = 0 if end < 0 else 5
        assert {tuple(c) for c in rgb[tuple(sel)].reshape(-1, 3)} == {srgb}


def test_reveal_view_and_palette_editing():
    cube = six_colour_cube()
    obj = make(cube, 4, 3)
    sc = scene_api()
    assert len(puzzle_of(obj).palette) == 3 and len(obj.nonogram.palette) == 3
    sc.set_view(obj, 'PLAYER')
    sc.set_view(obj, 'REVEAL')
    assert sc.current_view(obj) == 'REVEAL'
    # the solution's cubes, all of them, whatever the solver state
    assert len(instances_of(obj)) == int(puzzle_of(obj).solution.sum())
    # editing an entry in the panel's property: the cells' colour attribute follows
    obj.nonogram.palette[0].colour = (0.0, 0.0, 1.0)
    p = puzzle_of(obj)
    np.testing.assert_array_equal(p.palette[0], [0, 0, 1])
    attr = obj.data.attributes["reveal_colour"]
    got = np.empty(len(attr.data) * 4, np.float32)
    attr.data.foreach_get("color", got)
    got = got.reshape(-1, 4)[:, :3]
    assert np.allclose(got[p.colours == 0], [0, 0, 1])
    # merging: two entries left, the dropped entry's cells take the kept one's colour
    before = p.colours.copy()
    from blender_support import run_op
    assert run_op(bpy.ops.nonogram.merge_colours, keep=1, drop=2) == {'FINISHED'}
    q = puzzle_of(obj)
    assert len(q.palette) == 2 and len(obj.nonogram.palette) == 2
    np.testing.assert_array_equal(q.palette[q.colours], p.palette[np.where(before == 1, 0, before)])
    sc.set_view(obj, 'DESIGNER')
    assert sc.current_view(obj) == 'DESIGNER'


def test_export_and_import_keep_the_colours(tmp_path):
    img, _ = checker_image()
    obj = make(textured_box(img), 6, 4)
    path = tmp_path / "box.json"
    from blender_support import run_op
    assert run_op(bpy.ops.nonogram.export_puzzle, filepath=str(path)) == {'FINISHED'}
    d = json.loads(path.read_text())
    assert len(d["palette"]) == 4 and len(d["colours"]) == 2 * len(d["solution"])
    assert run_op(bpy.ops.nonogram.import_puzzle, filepath=str(path)) == {'FINISHED'}
    new = bpy.context.active_object
    assert new is not obj
    np.testing.assert_array_equal(point_attribute(new, "colour_index"),
                                  point_attribute(obj, "colour_index"))
    assert len(new.nonogram.palette) == 4


def test_bad_colour_sources_fall_back_with_a_note(tmp_path):
    sc = scene_api()
    # no material, no colour attribute: the object colour
    bpy.ops.mesh.primitive_cube_add(size=2.0)
    cube = bpy.context.active_object
    cube.color = (0.2, 0.4, 0.6, 1.0)
    obj = make(cube, 4, 4)
    rgb, _ = cell_srgb(obj)
    assert {tuple(c) for c in rgb.reshape(-1, 3)} == {to_bytes((0.2, 0.4, 0.6))}
    # the documented last source, not a fallback: mentioned, never warned about
    info = json.loads(obj.nonogram.make_info)
    assert info["colour_notes"] == []
    assert any("object colour" in n for n in info["colour_info"])
    # an image that failed to load (pink in Blender): the viewport display colour
    missing = bpy.data.images.new("missing", 4, 4)
    missing.filepath_raw = str(tmp_path / "missing.png")
    missing.file_format = 'PNG'
    missing.save()
    missing.source = 'FILE'
    (tmp_path / "missing.png").unlink()
    missing.reload()
    box = textured_box(missing)
    obj = make(box, 4, 4)
    rgb, _ = cell_srgb(obj)
    assert {tuple(c) for c in rgb.reshape(-1, 3)} == {to_bytes((0.2, 0.3, 0.4))}
    assert any("no pixels" in n for n in json.loads(obj.nonogram.make_info)["colour_notes"])
    # a UV map with NaN: those triangles take the material's colour (1, 1, 1 for an image)
    img, _ = checker_image()
    box = textured_box(img)
    uv = box.data.uv_layers.active.data
    vals = np.empty(len(uv) * 2, np.float32)
    uv.foreach_get("uv", vals)
    vals[:] = np.nan
    uv.foreach_set("uv", vals)
    obj = make(box, 4, 4)
    notes = json.loads(obj.nonogram.make_info)["colour_notes"]
    assert any("NaN" in n for n in notes)
    # a shader the add-on cannot follow (a Mix Shader): the viewport display colour, said so
    bpy.ops.mesh.primitive_cube_add(size=2.0)
    cube = bpy.context.active_object
    mat = bpy.data.materials.new("mix")
    if mat.node_tree is None:
        mat.use_nodes = True
    nt = mat.node_tree
    out = next(n for n in nt.nodes if n.bl_idname == "ShaderNodeOutputMaterial")
    mix = nt.nodes.new("ShaderNodeMixShader")
    nt.links.new(mix.outputs[0], out.inputs["Surface"])
    mat.diffuse_color = (0.5, 0.1, 0.1, 1.0)
    cube.data.materials.append(mat)
    obj = make(cube, 4, 4)
    rgb, _ = cell_srgb(obj)
    assert {tuple(c) for c in rgb.reshape(-1, 3)} == {to_bytes((0.5, 0.1, 0.1))}
    assert any("Mix Shader" in n for n in json.loads(obj.nonogram.make_info)["colour_notes"])
    # k outside 1..256: a clear error, nothing made
    n_obj = len(bpy.data.objects)
    for k in (0, 257):
        with pytest.raises(sc.NonogramError, match="1 \\(plain\\) to 256"):
            make(cube, 4, k)
    assert len(bpy.data.objects) == n_obj
    # colours=1: plain, no palette
    obj = make(cube, 4, 1)
    assert puzzle_of(obj).palette is None and len(obj.nonogram.palette) == 0


def test_several_meshes_keep_their_own_colours():
    bpy.ops.mesh.primitive_cube_add(size=2.0, location=(0, 0, 0))
    a = bpy.context.active_object
    a.data.materials.append(principled("red", (0.8, 0.02, 0.02)))
    bpy.ops.mesh.primitive_cube_add(size=2.0, location=(3.0, 0, 0))
    b = bpy.context.active_object
    b.data.materials.append(principled("blue", (0.02, 0.02, 0.8)))
    obj = scene_api().make_nonogram(bpy.context, [a, b], resolution=10, colours=4)[0]
    rgb, sol = cell_srgb(obj)
    assert rgb.shape[:3] == (10, 4, 4) and sol[:4].all() and sol[6:].all() and not sol[4:6].any()
    assert {tuple(c) for c in rgb[:4].reshape(-1, 3)} == {to_bytes((0.8, 0.02, 0.02))}
    assert {tuple(c) for c in rgb[6:].reshape(-1, 3)} == {to_bytes((0.02, 0.02, 0.8))}


def test_hidden_clues_keep_the_colours_through_export_and_import(tmp_path):
    from blender_support import run_op
    img, _ = checker_image()
    obj = make(textured_box(img), 6, 4)
    sc = scene_api()
    hidden = np.zeros(sc.n_lines(obj), bool)
    hidden[::3] = True
    sc.set_hidden(obj, hidden)
    path = tmp_path / "designed.json"
    assert run_op(bpy.ops.nonogram.export_puzzle, filepath=str(path)) == {'FINISHED'}
    d = json.loads(path.read_text())
    assert any(c is None for row in d["x"] for c in row) and len(d["palette"]) == 4
    assert run_op(bpy.ops.nonogram.import_puzzle, filepath=str(path)) == {'FINISHED'}
    new = bpy.context.active_object
    assert sc.hidden_mask(new).sum() == hidden.sum()
    np.testing.assert_array_equal(point_attribute(new, "colour_index"),
                                  point_attribute(obj, "colour_index"))


def _make_reports(src, colours):
    """The reports of the Make operator (the modal path the UI takes) on ``src``."""
    bpy.context.view_layer.objects.active = src
    bpy.context.scene.nonogram_settings.resolution = 6
    bpy.context.scene.nonogram_settings.colours = colours
    ctx = Recorder()
    op = operator_stand_in(bpy.types.NONOGRAM_OT_make)
    assert op.invoke(ctx, Event('NONE')) == {'RUNNING_MODAL'}
    assert drive_modal(op, ctx, []) == {'FINISHED'}
    return op.reports


def test_object_colour_of_a_mesh_without_material_is_no_warning():
    # Suzanne without material: the object colour is the documented source, not a fallback
    monkey = add_primitive("monkey")
    reports = _make_reports(monkey, 4)
    # (Suzanne is open: the voxelizer's warning about that stays; none about colours)
    assert not [m for kind, m in reports if 'WARNING' in kind and "olour" in m], reports
    text = [m for kind, m in reports if 'INFO' in kind and "filled cells" in m]
    assert len(text) == 1 and "object colour" in text[0], reports
    # a real fallback (a shader the add-on cannot follow) still warns
    cube = add_primitive("cube")
    mat = bpy.data.materials.new("mix")
    if mat.node_tree is None:
        mat.use_nodes = True
    out = next(n for n in mat.node_tree.nodes if n.bl_idname == "ShaderNodeOutputMaterial")
    mix = mat.node_tree.nodes.new("ShaderNodeMixShader")
    mat.node_tree.links.new(mix.outputs[0], out.inputs["Surface"])
    cube.data.materials.append(mat)
    reports = _make_reports(cube, 4)
    assert any('WARNING' in kind and m.startswith("Colours:") and "Mix Shader" in m
               for kind, m in reports), reports

