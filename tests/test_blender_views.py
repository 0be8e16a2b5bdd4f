"""Issue 22 item 8 in Blender: the designer's view draws the clues of one layer, beside the
cut-away grid, where they neither overlap each other nor cover a cube; the player's view turns
the top face's numbers to the camera and tilts them towards it; framed two-digit numbers are
larger. Checked on the evaluated instances against the numpy rules of layers.py and by projecting
the labels with the batch's camera."""
import math

import numpy as np
import pytest
from blender_support import addon, addon_module, bpy, instances_of, point_attribute

pytestmark = pytest.mark.blender


def _nonogram(shape=(7, 9, 6), seed=5, density=0.6, name="lay"):
    rng = np.random.default_rng(seed)
    grid = rng.random(shape) < density
    puzzle = addon_module("engine.model.clues").puzzle_from_grid(grid, name=name)
    scene = addon_module("scene")
    obj = scene.build_from_puzzle(bpy.context, puzzle, name=name, origin=(0.5, -1.0, 0.25),
                                  voxel_size=0.5)
    return obj, puzzle


def _camera(obj, direction=(7.36, -6.93, 4.96)):
    """The batch's render camera: Blender's default direction, framing the grid."""
    from mathutils import Vector
    shape = np.array(obj.nonogram.shape, dtype=float)
    centre = obj.matrix_world @ Vector((shape / 2).tolist())
    radius = float(np.linalg.norm(shape / 2)) * obj.scale[0]
    data = bpy.data.cameras.new("Test Camera")
    cam = bpy.data.objects.new("Test Camera", data)
    bpy.context.scene.collection.objects.link(cam)
    d = Vector(direction).normalized()
    cam.location = centre + d * (radius / math.sin(data.angle / 2) * 1.05)
    cam.rotation_euler = (-d).to_track_quat('-Z', 'Y').to_euler()
    bpy.context.scene.camera = cam
    bpy.context.view_layer.update()
    return cam


def _label_instances(labels):
    """(kind, local position, world matrix) of every glyph and outline instance."""
    instances = instances_of(labels)  # updates the depsgraph, and so matrix_world
    inv = labels.matrix_world.inverted()
    out = []
    for ob, m in instances:
        kind = 'FONT' if ob.type == 'FONT' else 'OUTLINE'
        out.append((kind, np.array((inv @ m).translation), m))
    return out


def test_new_nonograms_open_on_the_middle_layer_of_the_shortest_side(addon):
    obj, puzzle = _nonogram(shape=(7, 9, 6))
    assert (obj.nonogram.clue_layer_axis, obj.nonogram.clue_layer) == ('Z', 3)
    obj2, _ = _nonogram(shape=(5, 9, 6), name="lay2")
    assert (obj2.nonogram.clue_layer_axis, obj2.nonogram.clue_layer) == ('X', 2)


@pytest.mark.parametrize("axis,layer", [('Z', 3), ('X', 0), ('Y', 8), ('Y', 4), ('ALL', 0)])
def test_designer_view_draws_one_layer_where_layers_py_says(addon, axis, layer):
    obj, puzzle = _nonogram()
    scene = addon_module("scene")
    scene.set_clue_layer(obj, axis, layer)
    labels = obj.nonogram.labels
    far = np.stack([point_attribute(labels, f"far_{a}") for a in "xyz"], axis=1)
    line = point_attribute(labels, "line")
    total = point_attribute(labels, "clue_total")
    pos, drawn = scene.layer_label_positions(far, axis, layer)
    if pos is None:
        co = np.empty(len(labels.data.vertices) * 3)
        labels.data.vertices.foreach_get("co", co)
        pos = co.reshape(-1, 3)
    drawn &= total > 0  # zero clues stay hidden by default
    want = sorted(map(tuple, np.round(pos[drawn], 3).tolist()))
    got = sorted(tuple(np.round(p, 3).tolist()) for k, p, m in _label_instances(labels) if k == 'FONT')
    assert len(got) == len(want)
    assert np.allclose(np.array(got), np.array(want), atol=2e-3)
    if axis != 'ALL':
        # exactly the lines lying in the layer: those that cross it, not along its axis
        a = "XYZ".index(axis)
        X, Y, Z = puzzle.shape
        line_axis = np.repeat([0, 1, 2], [Y * Z, X * Z, X * Y])[line]
        assert not (drawn & (line_axis == a)).any()
        assert drawn.sum() > 0
    # The cubes: the layer and the layers behind it (away from the default camera).
    keep = scene.kept_by_layer(puzzle.shape, axis, layer)
    drawn_cells = point_attribute(obj, "state") != 1  # not known empty (unsolved: the model's)
    instances = instances_of(obj)
    cubes = [np.floor(np.array((obj.matrix_world.inverted() @ m).translation)).astype(int)
             for o, m in instances]
    X, Y, Z = puzzle.shape
    got_cells = sorted((x * Y + y) * Z + z for x, y, z in cubes)
    assert got_cells == sorted(np.flatnonzero(drawn_cells & keep).tolist())


def _screen_boxes(cam, items, obj_world):
    """Screen-space circles (centre, radius in the camera's normalized units) of label
    instances: a label of scale s spans at most OUTLINE_RADIUS s around its centre."""
    from bpy_extras.object_utils import world_to_camera_view
    scene = bpy.context.scene
    out = []
    for kind, local, m in items:
        centre = m.translation
        r_world = addon_module("scene.glyphs").OUTLINE_RADIUS * m.to_scale()[0]
        c = world_to_camera_view(scene, cam, centre)
        # radius: project a point r_world away along the camera's right axis
        right = cam.matrix_world.to_3x3().col[0].normalized()
        e = world_to_camera_view(scene, cam, centre + right * r_world)
        out.append((np.array(c[:2]), float(np.hypot(*(np.array(e[:2]) - np.array(c[:2])))), c[2]))
    return out


@pytest.mark.parametrize("axis,layer", [('Z', 3), ('X', 3), ('Y', 4)])
def test_layer_labels_never_overlap_nor_cover_a_cube_from_the_default_camera(addon, axis, layer):
    obj, puzzle = _nonogram(shape=(8, 10, 7))
    scene = addon_module("scene")
    scene.set_clue_layer(obj, axis, layer)
    cam = _camera(obj)
    labels = obj.nonogram.labels
    items = [it for it in _label_instances(labels) if it[0] == 'FONT']
    assert len(items) > 5
    discs = _screen_boxes(cam, items, obj.matrix_world)
    for i in range(len(discs)):
        for j in range(i + 1, len(discs)):
            (ci, ri, _), (cj, rj, _) = discs[i], discs[j]
            assert np.linalg.norm(ci - cj) >= ri + rj - 1e-6, (items[i][1], items[j][1])
    # No cube lies between a label and the camera, and no cube behind a label is covered:
    # a ray from the camera through a label's centre meets no kept filled cube anywhere.
    keep = scene.kept_by_layer(puzzle.shape, axis, layer)  # every cell, solved or not
    X, Y, Z = puzzle.shape
    cells = np.argwhere(keep.reshape(X, Y, Z)).astype(float)
    inv = obj.matrix_world.inverted()
    eye = np.array(inv @ cam.matrix_world.translation)
    for kind, local, m in items:
        for off in ((0, 0, 0), (0.3, 0, 0), (0, 0.3, 0), (0, 0, 0.3), (-0.3, 0, 0), (0, -0.3, 0),
                    (0, 0, -0.3)):
            p = local + np.array(off) * m.to_scale()[0] / obj.scale[0]
            d = p - eye
            d /= np.linalg.norm(d)
            # slab test of the ray against every kept cube (cube size 0.92 around the centre)
            lo, hi = cells + 0.04, cells + 0.96
            with np.errstate(divide="ignore", invalid="ignore"):
                t1, t2 = (lo - eye) / d, (hi - eye) / d
            tmin = np.nanmax(np.minimum(t1, t2), axis=1)
            tmax = np.nanmin(np.maximum(t1, t2), axis=1)
            assert not np.any(tmax >= np.maximum(tmin, 0.0)), (axis, local, off)


def test_player_top_face_numbers_read_upright_and_lean_to_the_camera(addon):
    obj, puzzle = _nonogram(shape=(8, 10, 7))
    scene = addon_module("scene")
    scene.set_view(obj, 'PLAYER')
    cam = _camera(obj)
    from bpy_extras.object_utils import world_to_camera_view
    bpy.context.view_layer.update()
    cam_pos = cam.matrix_world.translation
    top, sides = [], []
    for ob, m in instances_of(obj):
        if ob.type != 'FONT':
            continue
        normal = (m.to_3x3() @ __import__("mathutils").Vector((0, 0, 1))).normalized()
        up = (m.to_3x3() @ __import__("mathutils").Vector((0, 1, 0))).normalized()
        base = world_to_camera_view(bpy.context.scene, cam, m.translation)
        tip = world_to_camera_view(bpy.context.scene, cam, m.translation + up * 0.1)
        screen_up = np.array(tip[:2]) - np.array(base[:2])
        facing = float(normal.dot((cam_pos - m.translation).normalized()))
        (top if normal.z > 0.5 else sides).append((screen_up, facing))
    assert len(top) > 5 and len(sides) > 5
    angles = []
    for screen_up, facing in top:
        # upright: the text's up within 15° of the screen's up (perspective turns the labels
        # near the frame's edges a little; +Y up, as before, was ~45° off)
        angle = math.degrees(math.atan2(abs(screen_up[0]), screen_up[1]))
        angles.append(angle)
        assert angle < 15.0, angle
        # leaning towards the camera: more face-on than lying flat (sin 26°, about 0.44)
        assert facing > 0.75, facing
    assert np.mean(angles) < 8.0, angles
    seen = [(u, f) for u, f in sides if f > 0]  # the faces turned to the camera
    assert seen and all(u[1] > 0 for u, f in seen)  # the side faces were upright already


def test_two_digit_numbers_in_circles_are_larger_and_stay_inside(addon):
    glyphs = addon_module("scene.glyphs")
    inner = glyphs.OUTLINE_RADIUS - glyphs.OUTLINE_WIDTH
    heights = []
    for total in (10, 18, 48, 88, 99):
        c = bpy.data.curves.new(f"t{total}", 'FONT')
        c.body = str(total)
        c.align_x = c.align_y = 'CENTER'
        c.size = glyphs.glyph_size(total, "circle")
        c.space_character = glyphs.glyph_spacing(total)
        ob = bpy.data.objects.new(c.name, c)
        bpy.context.scene.collection.objects.link(ob)
        bpy.context.view_layer.update()
        me = ob.evaluated_get(bpy.context.evaluated_depsgraph_get()).to_mesh()
        co = np.array([v.co[:2] for v in me.vertices])
        # every point of the number inside the circle's inner edge, with room for the bevel
        assert np.hypot(co[:, 0], co[:, 1]).max() + glyphs.GLYPH_BEVEL < inner, total
        heights.append(co[:, 1].max() - co[:, 1].min())
        ob.to_mesh_clear()
    # Before: size 0.516, digits 0.36 voxel tall; now at least 0.42 (a fifth larger).
    assert min(heights) > 0.42, heights


def test_pick_clues_finds_the_layer_labels_where_they_are_drawn(addon):
    from blender_support import view3d_override
    from bpy_extras.view3d_utils import location_3d_to_region_2d
    obj, puzzle = _nonogram(shape=(6, 7, 5))
    scene = addon_module("scene")
    design = addon_module("operators.design")
    scene.set_view(obj, 'DESIGNER')
    scene.set_clue_layer(obj, 'Z', 2)
    bpy.context.view_layer.update()
    pos, normals, lines = scene.label_anchors(obj)
    labels = obj.nonogram.labels
    # the anchors are exactly the drawn labels (world positions of the glyph instances)
    drawn = [np.array(m.translation) for o, m in instances_of(labels) if o.type == 'FONT']
    total = dict(zip(point_attribute(labels, "line").tolist(), point_attribute(labels, "clue_total").tolist()))
    nonzero = np.array([total[int(k)] > 0 for k in lines])
    assert len(drawn) == int(nonzero.sum()) > 0
    for p in drawn:
        assert np.min(np.linalg.norm(pos - p, axis=1)) < 1e-4
    ov = view3d_override()
    region, rv3d = ov["region"], ov["area"].spaces.active.region_3d
    hits = 0
    for i in range(len(lines)):
        xy = location_3d_to_region_2d(region, rv3d, pos[i])
        if xy is None:
            continue
        assert design.pick_at(obj, region, rv3d, (xy.x, xy.y)) == lines[i]
        hits += 1
    assert hits > 5


# --- The designer's view follows the side the 3D View looks from (issue 22, the view side) ---

# (direction from the grid towards the viewer, world), the side expected in the grid's own axes
VIEW_SIDES = [((7.36, -6.93, 4.96), (1, -1, 1)), ((-7.0, -6.0, 5.0), (-1, -1, 1)),
              ((7.0, 6.5, -5.0), (1, 1, -1)), ((-7.0, 6.5, -5.0), (-1, 1, -1))]


def _look_from(obj, direction, mode):
    """Turn the 3D View to look at ``obj``'s grid from ``direction`` ('PERSP' or 'ORTHO'), or
    look through a scene camera placed there ('CAMERA')."""
    from blender_support import view3d_override
    from mathutils import Vector
    rv3d = view3d_override()["area"].spaces.active.region_3d
    shape = np.array(obj.nonogram.shape, dtype=float)
    if mode == 'CAMERA':
        _camera(obj, direction)
        rv3d.view_perspective = 'CAMERA'
        return
    rv3d.view_perspective = mode
    rv3d.view_location = obj.matrix_world @ Vector((shape / 2).tolist())
    rv3d.view_rotation = Vector(direction).normalized().to_track_quat('Z', 'Y')
    rv3d.view_distance = 3.0 * float(np.linalg.norm(shape)) * obj.scale[0]


def _expected_labels(labels, shape, side, axis, layer):
    """Where each drawn label must be (local), derived here from the clue points' cells and
    line axes: with one layer, past the line's end away from the viewer, lifted 0.7 towards the
    viewer; with every clue, 0.6 past the line's end facing the viewer."""
    far = np.stack([point_attribute(labels, f"far_{a}") for a in "xyz"], axis=1).astype(float)
    k = point_attribute(labels, "line_axis")
    rows = np.arange(len(k))
    pos = far + 0.5
    n = np.asarray(shape, dtype=float)[k]
    s = np.asarray(side, dtype=float)
    if axis == 'ALL':
        pos[rows, k] = np.where(s[k] > 0, n + 0.6, -0.6)
        drawn = np.ones(len(k), dtype=bool)
    else:
        a = "XYZ".index(axis)
        pos[rows, k] = np.where(s[k] > 0, -0.5, n + 0.5)
        pos[:, a] += 0.7 * s[a]
        drawn = far[:, a] == layer
    return pos, drawn & (point_attribute(labels, "clue_total") > 0)


@pytest.mark.parametrize("direction,side,mode", [vs + ('PERSP',) for vs in VIEW_SIDES]
                         + [VIEW_SIDES[3] + ('ORTHO',), VIEW_SIDES[1] + ('CAMERA',)])
def test_designer_view_follows_the_side_the_3d_view_looks_from(addon, direction, side, mode):
    obj, puzzle = _nonogram(shape=(6, 8, 5))
    scene = addon_module("scene")
    scene.set_view(obj, 'DESIGNER')
    _look_from(obj, direction, mode)
    meshes = len(bpy.data.meshes)
    changed = scene.follow_view()
    assert scene.side_of(obj) == tuple(float(v) for v in side)
    assert changed == (tuple(side) != (1, -1, 1))
    assert scene.follow_view() == 0  # the same view: nothing written again
    assert len(bpy.data.meshes) == meshes  # inputs switched, no geometry rebuilt
    labels = obj.nonogram.labels
    co = np.empty(len(labels.data.vertices) * 3)
    labels.data.vertices.foreach_get("co", co)
    far = np.stack([point_attribute(labels, f"far_{a}") for a in "xyz"], axis=1)
    X, Y, Z = puzzle.shape
    for axis, layer in (('Z', 2), ('X', 3), ('ALL', 0)):
        scene.set_clue_layer(obj, axis, layer)
        want, drawn = _expected_labels(labels, puzzle.shape, side, axis, layer)
        got = sorted(tuple(np.round(p, 3).tolist()) for k, p, m in _label_instances(labels) if k == 'FONT')
        assert np.allclose(np.array(got), np.array(sorted(map(tuple, np.round(want[drawn], 3).tolist()))),
                           atol=2e-3), (axis, side)
        # layers.py (picking) agrees with what is drawn
        pos, drawn_py = scene.layer_label_positions(far, axis, layer, points=co.reshape(-1, 3), side=side)
        assert np.allclose(pos[drawn], want[drawn]) and (drawn_py[drawn]).all()
        # the cubes: the layer and the layers beyond it, away from the viewer
        cells = {tuple(np.floor(np.array((obj.matrix_world.inverted() @ m).translation)).astype(int))
                 for o, m in instances_of(obj)}
        # the cells drawn at all: those not known empty (before a solve, the model's)
        shown = (point_attribute(obj, "state") != 1).reshape(X, Y, Z)
        if axis == 'ALL':
            assert cells == {tuple(c) for c in np.argwhere(shown)}
        else:
            a = "XYZ".index(axis)
            assert cells == {c for c in np.ndindex(X, Y, Z) if side[a] * (c[a] - layer) <= 0 and shown[c]}
            keep = scene.kept_by_layer(puzzle.shape, axis, layer, side).reshape(X, Y, Z)
            assert {tuple(c) for c in np.argwhere(keep & shown)} == cells


def test_view_side_is_taken_in_the_grids_own_axes_and_only_in_the_designers_view(addon):
    obj, puzzle = _nonogram(shape=(6, 8, 5))
    scene = addon_module("scene")
    obj.rotation_euler = (0.0, 0.0, math.pi / 2)  # local +X is world +Y, local +Y world -X
    bpy.context.view_layer.update()
    _look_from(obj, (-2.0, 7.0, 4.0), 'ORTHO')  # world (-, +, +): local (+, +, +)
    scene.follow_view()
    assert scene.side_of(obj) == (1.0, 1.0, 1.0)
    # looking straight down: the viewer is level with X and Y, which keep their side
    _look_from(obj, (0.0, 0.0, -1.0), 'ORTHO')
    scene.follow_view()
    assert scene.side_of(obj) == (1.0, 1.0, -1.0)
    # the player's view is not the designer's: left as it is
    scene.set_view(obj, 'PLAYER')
    _look_from(obj, (-7.0, -6.0, 5.0), 'PERSP')
    assert scene.follow_view() == 0 and scene.side_of(obj) == (1.0, 1.0, -1.0)
    scene.set_view(obj, 'DESIGNER')
    scene.follow_view()
    assert scene.side_of(obj) == (-1.0, 1.0, 1.0)  # local: world (-7, -6) turned by -90°
    assert bpy.app.timers.is_registered(addon_module("scene.view_side")._tick)


@pytest.mark.parametrize("direction,side", [VIEW_SIDES[1], VIEW_SIDES[3]])
def test_layer_labels_never_overlap_nor_cover_a_cube_from_other_sides(addon, direction, side):
    obj, puzzle = _nonogram(shape=(8, 10, 7))
    scene = addon_module("scene")
    scene.set_view(obj, 'DESIGNER')
    _look_from(obj, direction, 'CAMERA')
    scene.follow_view()
    cam = bpy.context.scene.camera
    for axis, layer in (('Z', 3), ('X', 3), ('Y', 4)):
        scene.set_clue_layer(obj, axis, layer)
        items = [it for it in _label_instances(obj.nonogram.labels) if it[0] == 'FONT']
        assert len(items) > 5
        discs = _screen_boxes(cam, items, obj.matrix_world)
        for i in range(len(discs)):
            for j in range(i + 1, len(discs)):
                (ci, ri, _), (cj, rj, _) = discs[i], discs[j]
                assert np.linalg.norm(ci - cj) >= ri + rj - 1e-6, (items[i][1], items[j][1])
        keep = scene.kept_by_layer(puzzle.shape, axis, layer, side)
        X, Y, Z = puzzle.shape
        cells = np.argwhere(keep.reshape(X, Y, Z)).astype(float)
        eye = np.array(obj.matrix_world.inverted() @ cam.matrix_world.translation)
        for kind, local, m in items:
            d = local - eye
            d /= np.linalg.norm(d)
            lo, hi = cells + 0.04, cells + 0.96
            with np.errstate(divide="ignore", invalid="ignore"):
                t1, t2 = (lo - eye) / d, (hi - eye) / d
            tmin = np.nanmax(np.minimum(t1, t2), axis=1)
            tmax = np.nanmin(np.maximum(t1, t2), axis=1)
            assert not np.any(tmax >= np.maximum(tmin, 0.0)), (axis, side, local)


def test_pick_clues_finds_the_labels_drawn_for_another_side(addon):
    obj, puzzle = _nonogram(shape=(6, 7, 5))
    scene = addon_module("scene")
    scene.set_view(obj, 'DESIGNER')
    _look_from(obj, (-7.0, 6.5, -5.0), 'PERSP')
    scene.follow_view()
    assert scene.side_of(obj) == (-1.0, 1.0, -1.0)
    for axis, layer in (('Z', 2), ('ALL', 0)):
        scene.set_clue_layer(obj, axis, layer)
        bpy.context.view_layer.update()
        pos, normals, lines = scene.label_anchors(obj)
        labels = obj.nonogram.labels
        drawn = [np.array(m.translation) for o, m in instances_of(labels) if o.type == 'FONT']
        total = dict(zip(point_attribute(labels, "line").tolist(),
                         point_attribute(labels, "clue_total").tolist()))
        assert len(drawn) == sum(total[int(k)] > 0 for k in lines) > 0
        for p in drawn:
            assert np.min(np.linalg.norm(pos - p, axis=1)) < 1e-4
