"""The player's view: the whole grid as a block of cubes with the clues printed on the cube faces
at both ends of every clued line (circle and square frames around 2-block and 3+-block clues,
hidden clues blank), and slicing that peels layers away, all in one Geometry Nodes group on the
nonogram object.

The group reads per-cell point attributes ``face_x``, ``face_y``, ``face_z``: the label of the
x-, y- and z-line through the cell, coded ``glyph * 4 + kind - KIND_PLAIN`` (so ``code % 4`` is
0 plain, 1 circle, 2 square), or -1 for a line without a shown clue. A cell on the surface of the
kept block shows the labels of its lines on its outward faces, so labels follow the slicers and
nothing depends on the frame.
"""
from __future__ import annotations

import math
from typing import Any, cast

import bpy
import numpy as np
from mathutils import Matrix, Vector

from .attributes import get_point_attribute, object_point_attribute, set_object_point_attribute
from .glyphs import GLYPH_BEVEL, OUTLINE_RADIUS
from .common import CELL_COLOURS, PLAYER_GROUP, PLAYER_MATERIAL, TAG, LABEL_GROUP, VOXEL_GROUP, NonogramError
from .materials import instancer_attribute, mix_colour, new_material, own_colours, tagged
from .nodes import collection_instances, get_modifier_input, new_group, set_modifier_input
from .nodetree import boolean_node, compare_node, math_node, named_attribute, new_node, socket
from .store import cells_mesh, n_lines, props

PLAYER_MODIFIER = "Nonogram Player"
AXES = "XYZ"
# Labels sit this far (voxel units) above the cube face: clear of it by more than the glyphs'
# bevel, so they never z-fight with it or sink into it.
LABEL_LIFT = GLYPH_BEVEL + 0.01
DEFAULT_CUBE_SIZE = 0.96
# The top face is seen at a grazing angle from the default camera (26° above the horizon): its
# labels turn about the vertical to read upright from the active camera (their "up" points away
# from it) and lean back by this much towards it, so they are foreshortened less (sin 56° instead
# of sin 26°) while a label still leaves the one behind it readable. Leaning, a label's lower
# half would sink into its cube: it is lifted by its half-height's drop.
TOP_TILT = math.radians(30.0)
TOP_LIFT = OUTLINE_RADIUS * math.sin(TOP_TILT)


def label_frame(axis: int, end: int) -> Matrix:
    """Rotation of a face label (text in its local XY plane, reading along +X) on the face of
    ``axis`` at ``end`` (-1 low, +1 high): normal out of the face, text upright (+Z up on side
    faces, +Y up on the top and bottom), never turned with the camera."""
    normal = Vector([0.0, 0.0, 0.0])
    normal[axis] = float(end)
    up = Vector((0.0, 1.0, 0.0)) if axis == 2 else Vector((0.0, 0.0, 1.0))
    right = up.cross(normal)
    return Matrix([right.to_tuple(), up.to_tuple(), normal.to_tuple()]).transposed()


def face_codes(shape, line_codes: np.ndarray) -> dict:
    """Per-cell ``face_x/y/z`` arrays (cell order of the puzzle) from one code per line (lines in
    the puzzle's order: x-lines by (y, z), y-lines by (x, z), z-lines by (x, y))."""
    X, Y, Z = shape
    codes = np.asarray(line_codes, dtype=np.int32)
    cx = codes[:Y * Z].reshape(1, Y, Z)
    cy = codes[Y * Z:Y * Z + X * Z].reshape(X, 1, Z)
    cz = codes[Y * Z + X * Z:].reshape(X, Y, 1)
    full = (X, Y, Z)
    return {"face_x": np.broadcast_to(cx, full).ravel(), "face_y": np.broadcast_to(cy, full).ravel(),
            "face_z": np.broadcast_to(cz, full).ravel()}


def line_codes(n_lines: int, line, glyph, kind, hidden=None) -> np.ndarray:
    """One face code per line from the clue points' ``line``, ``glyph`` and ``clue_kind``;
    -1 for lines without a clue point, or hidden (bool mask over lines)."""
    if line is None or glyph is None or kind is None:
        raise NonogramError("the clue points have lost their attributes")
    codes = np.full(n_lines, -1, dtype=np.int32)
    codes[line] = glyph * 4 + (kind - 2)
    if hidden is not None:
        codes[np.asarray(hidden, dtype=bool)] = -1
    return codes


def write_face_codes(obj: bpy.types.Object, codes: np.ndarray) -> None:
    shape = tuple(props(obj).shape)
    for name, values in face_codes(shape, codes).items():
        set_object_point_attribute(obj, name, values)
    obj.update_tag()


PLAYER_COLOURS = {k: CELL_COLOURS[k] for k in ("unknown", "highlight")}


def player_material(colours=None):
    """Light cubes like Picross 3D's (the style's colour of unknown cells); cells the live
    check left undecided in the highlight colour. ``colours`` None: the defaults."""
    colours = own_colours(colours, PLAYER_COLOURS)
    mat = tagged(bpy.data.materials, PLAYER_MATERIAL, colours)
    if mat is not None:
        return mat
    c = colours or PLAYER_COLOURS
    mat, nt, bsdf = new_material(PLAYER_MATERIAL, colours, c["unknown"])
    bsdf.inputs["Roughness"].default_value = 0.7
    nt.links.new(mix_colour(nt, instancer_attribute(nt, "player_highlight"), c["unknown"],
                            c["highlight"]), bsdf.inputs["Base Color"])
    return mat


def _scale(ng, vec, factor):
    n = new_node(ng, "ShaderNodeVectorMath")
    n.operation = 'SCALE'
    for sock, v in ((n.inputs[0], vec), (n.inputs["Scale"], factor)):
        if isinstance(v, bpy.types.NodeSocket):
            ng.links.new(v, sock)
        else:
            sock.default_value = v
    return n.outputs[0]


def _separate(ng, vec):
    n = new_node(ng, "ShaderNodeSeparateXYZ")
    ng.links.new(vec, n.inputs[0])
    return n.outputs


def player_group(colours=None):
    """Cubes on the surface of the kept block, labels on its outward faces (see module doc);
    one group per set of cube colours (``player_material``)."""
    colours = own_colours(colours, PLAYER_COLOURS)
    ng = tagged(bpy.data.node_groups, PLAYER_GROUP, colours)
    if ng is not None:
        return ng
    ng, gin, gout = new_group(PLAYER_GROUP, colours)
    _player_inputs(ng)
    points = gin.outputs["Geometry"]
    block = _kept_block(ng, gin, points)
    cubes = _surface_cubes(ng, gin, points, block["shell"], colours)
    ends = _label_points(ng, gin, points, block)
    glyphs, frames = _label_instances(ng, gin, ends)
    join = new_node(ng, "GeometryNodeJoinGeometry")
    for g in (cubes, glyphs, frames):
        ng.links.new(g, join.inputs[0])
    ng.links.new(join.outputs[0], gout.inputs["Geometry"])
    return ng


def _player_inputs(ng) -> None:
    """The group's inputs: cube and label size, the slices per axis, the highlight switch and
    the glyph and outline collections."""
    iface: Any = ng.interface
    size = iface.new_socket("Cube Size", in_out='INPUT', socket_type='NodeSocketFloat')
    size.default_value, size.min_value, size.max_value = DEFAULT_CUBE_SIZE, 0.5, 1.0
    scale = iface.new_socket("Label Size", in_out='INPUT', socket_type='NodeSocketFloat')
    scale.default_value, scale.min_value, scale.max_value = 1.0, 0.1, 2.0
    for a in AXES:
        s = iface.new_socket(f"Slice {a}", in_out='INPUT', socket_type='NodeSocketInt')
        s.default_value, s.min_value, s.max_value = 0, -4096, 4096
        s.description = (f"Layers peeled away along {a}: positive from the +{a} side, "
                         f"negative from the -{a} side")
    hl = iface.new_socket("Highlight Undecided", in_out='INPUT', socket_type='NodeSocketBool')
    hl.default_value = True
    iface.new_socket("Glyphs", in_out='INPUT', socket_type='NodeSocketCollection')
    iface.new_socket("Outlines", in_out='INPUT', socket_type='NodeSocketCollection')


def _kept_block(ng, gin, points) -> dict:
    """Fields of the block the slices keep: ``cell`` (each point's cell), its first and last
    kept index per axis (``lo``, ``hi``), ``inside`` it and on its ``shell``."""
    links = ng.links
    cell = math_node(ng, 'FLOOR', new_node(ng, "GeometryNodeInputPosition").outputs[0], vector=True)
    bbox = new_node(ng, "GeometryNodeBoundBox")
    links.new(points, bbox.inputs["Geometry"])
    top = math_node(ng, 'FLOOR', bbox.outputs["Max"], vector=True)  # last index per axis
    k = new_node(ng, "ShaderNodeCombineXYZ")
    for i, a in enumerate(AXES):
        links.new(gin.outputs[f"Slice {a}"], k.inputs[i])
    k = k.outputs[0]
    lo = math_node(ng, 'MAXIMUM', _scale(ng, k, -1.0), (0.0, 0.0, 0.0), vector=True)
    hi = math_node(ng, 'SUBTRACT', top,
                   math_node(ng, 'MAXIMUM', k, (0.0, 0.0, 0.0), vector=True), vector=True)
    below = math_node(ng, 'SUBTRACT', cell, lo, vector=True)     # >= 0 inside
    above = math_node(ng, 'SUBTRACT', hi, cell, vector=True)     # >= 0 inside
    margin = _separate(ng, math_node(ng, 'MINIMUM', below, above, vector=True))
    m = math_node(ng, 'MINIMUM', math_node(ng, 'MINIMUM', margin[0], margin[1]), margin[2])
    inside = compare_node(ng, 'FLOAT', 'GREATER_THAN', m, -0.5)
    shell = boolean_node(ng, 'AND', inside, compare_node(ng, 'FLOAT', 'LESS_THAN', m, 0.5))
    return {"cell": cell, "lo": lo, "hi": hi, "inside": inside, "shell": shell}


def _surface_cubes(ng, gin, points, shell, colours):
    """Cubes only on the kept block's surface (the interior can never be seen), undecided
    ones marked for the material's highlight."""
    links = ng.links
    store = new_node(ng, "GeometryNodeStoreNamedAttribute")
    store.data_type = 'BOOLEAN'
    store.domain = 'POINT'
    store.inputs["Name"].default_value = "player_highlight"
    links.new(points, store.inputs["Geometry"])
    links.new(boolean_node(ng, 'AND', named_attribute(ng, "highlight", 'BOOLEAN'),
                       gin.outputs["Highlight Undecided"]), socket(store.inputs, "Value"))
    cube = new_node(ng, "GeometryNodeMeshCube")
    links.new(gin.outputs["Cube Size"], cube.inputs["Size"])
    setmat = new_node(ng, "GeometryNodeSetMaterial")
    setmat.inputs["Material"].default_value = player_material(colours)
    links.new(cube.outputs["Mesh"], setmat.inputs["Geometry"])
    cubes = new_node(ng, "GeometryNodeInstanceOnPoints")
    links.new(store.outputs["Geometry"], cubes.inputs["Points"])
    links.new(shell, cubes.inputs["Selection"])
    links.new(setmat.outputs["Geometry"], cubes.inputs["Instance"])
    return cubes.outputs[0]


def _label_points(ng, gin, points, block):
    """Label points: per axis and end, the kept block's end cells of lines with a shown clue,
    moved onto that face, with the line's code (``label``), the face's rotation
    (``label_rotation``, turned towards the camera on the top face) and ``label_shrink``.
    Returns the joined points."""
    links = ng.links
    cell_axes = _separate(ng, block["cell"])
    lo_axes, hi_axes = _separate(ng, block["lo"]), _separate(ng, block["hi"])
    cam = new_node(ng, "GeometryNodeInputActiveCamera")
    cam_info = new_node(ng, "GeometryNodeObjectInfo")
    cam_info.transform_space = 'RELATIVE'  # the camera in the grid's own space
    links.new(cam.outputs[0], cam_info.inputs["Object"])
    camera = cam_info.outputs["Location"]
    lift = math_node(ng, 'ADD', math_node(ng, 'MULTIPLY', gin.outputs["Cube Size"], 0.5), LABEL_LIFT)
    ends = new_node(ng, "GeometryNodeJoinGeometry")
    for axis, a in enumerate(AXES):
        code = named_attribute(ng, f"face_{a.lower()}", 'INT')
        shown = boolean_node(ng, 'AND', block["inside"], compare_node(ng, 'INT', 'GREATER_EQUAL', code, 0))
        for end, bound in ((-1, lo_axes[axis]), (1, hi_axes[axis])):
            at_end = compare_node(ng, 'FLOAT', 'EQUAL', cell_axes[axis], bound)
            face = _face_labels(ng, points, boolean_node(ng, 'AND', shown, at_end), code, axis, end,
                                lift, camera)
            links.new(face, ends.inputs[0])
    return ends.outputs[0]


def _face_labels(ng, points, keep, code, axis, end, lift, camera):
    """The label points of one face (axis, end): ``points`` where ``keep``, lifted off the
    face, with their ``label``, ``label_rotation`` and ``label_shrink``."""
    links = ng.links
    delete = new_node(ng, "GeometryNodeDeleteGeometry")
    delete.domain = 'POINT'
    links.new(points, delete.inputs["Geometry"])
    links.new(boolean_node(ng, 'NOT', keep), delete.inputs["Selection"])
    direction = [0.0, 0.0, 0.0]
    direction[axis] = float(end)
    offset = _scale(ng, tuple(direction), lift)
    move = new_node(ng, "GeometryNodeSetPosition")
    links.new(delete.outputs[0], move.inputs["Geometry"])
    links.new(offset, move.inputs["Offset"])
    label = new_node(ng, "GeometryNodeStoreNamedAttribute")
    label.data_type = 'INT'
    label.domain = 'POINT'
    label.inputs["Name"].default_value = "label"
    links.new(move.outputs[0], label.inputs["Geometry"])
    links.new(code, socket(label.inputs, "Value"))
    rot = new_node(ng, "GeometryNodeStoreNamedAttribute")
    rot.data_type = 'FLOAT_VECTOR'
    rot.domain = 'POINT'
    rot.inputs["Name"].default_value = "label_rotation"
    links.new(label.outputs[0], rot.inputs["Geometry"])
    if (axis, end) == (2, 1):
        links.new(_scale(ng, (0.0, 0.0, 1.0), math_node(ng, 'ADD', lift, TOP_LIFT)),
                  move.inputs["Offset"])
        euler, shrink = _top_label_turn(ng, camera)
        links.new(euler, socket(rot.inputs, "Value"))
    else:
        euler = label_frame(axis, end).to_euler()
        socket(rot.inputs, "Value").default_value = (euler.x, euler.y, euler.z)
        shrink = 1.0
    sc = new_node(ng, "GeometryNodeStoreNamedAttribute")
    sc.data_type = 'FLOAT'
    sc.domain = 'POINT'
    sc.inputs["Name"].default_value = "label_shrink"
    links.new(rot.outputs[0], sc.inputs["Geometry"])
    if isinstance(shrink, float):
        socket(sc.inputs, "Value").default_value = shrink
    else:
        links.new(shrink, socket(sc.inputs, "Value"))
    return sc.outputs[0]


def _label_instances(ng, gin, ends):
    """(glyphs, frames): the clue glyphs and their circle/square outlines instanced on the
    label points ``ends`` (a label's code is 4 × glyph + frame: 0 plain, 1 circle, 2 square)."""
    links = ng.links
    code = named_attribute(ng, "label", 'INT')
    glyph = math_node(ng, 'FLOOR', math_node(ng, 'DIVIDE', code, 4.0))
    frame = math_node(ng, 'SUBTRACT', code, math_node(ng, 'MULTIPLY', glyph, 4.0))  # 0 plain, 1, 2
    to_rot = new_node(ng, "FunctionNodeEulerToRotation")
    links.new(named_attribute(ng, "label_rotation", 'FLOAT_VECTOR'), to_rot.inputs[0])
    # Square frames turned on the top face would reach into the next cell: they (and their
    # numbers) shrink to fit it; other labels keep their size.
    is_square = compare_node(ng, 'FLOAT', 'GREATER_THAN', frame, 1.5)
    shrink = new_node(ng, "GeometryNodeSwitch")
    shrink.input_type = 'FLOAT'
    links.new(is_square, shrink.inputs["Switch"])
    shrink.inputs["False"].default_value = 1.0
    links.new(named_attribute(ng, "label_shrink", 'FLOAT'), shrink.inputs["True"])
    label_scale = math_node(ng, 'MULTIPLY', gin.outputs["Label Size"], shrink.outputs[0])

    def instance(selection, instances, index):
        n = new_node(ng, "GeometryNodeInstanceOnPoints")
        links.new(ends, n.inputs["Points"])
        if selection is not None:
            links.new(selection, n.inputs["Selection"])
        links.new(instances, n.inputs["Instance"])
        n.inputs["Pick Instance"].default_value = True
        links.new(index, n.inputs["Instance Index"])
        links.new(to_rot.outputs[0], n.inputs["Rotation"])
        links.new(label_scale, n.inputs["Scale"])
        return n.outputs[0]

    glyphs = instance(None, collection_instances(ng, gin.outputs["Glyphs"]), glyph)
    framed = compare_node(ng, 'FLOAT', 'GREATER_THAN', frame, 0.5)
    frames = instance(framed, collection_instances(ng, gin.outputs["Outlines"]),
                      math_node(ng, 'SUBTRACT', frame, 1.0))
    return glyphs, frames


def _top_label_turn(ng, camera):
    """(Euler field (TOP_TILT, 0, yaw), shrink field) of the top face's labels: the yaw turns a
    label's up (+Y) to point away from ``camera`` seen from above, so it reads upright; the
    shrink 1 / (|cos yaw| + |sin yaw|) keeps a turned square frame inside its cell."""
    pos = new_node(ng, "GeometryNodeInputPosition").outputs[0]
    away = _separate(ng, math_node(ng, 'SUBTRACT', pos, camera, vector=True))
    # Rz(yaw) maps +Y to (-sin yaw, cos yaw): that is ``away`` when yaw = atan2(-dx, dy)
    yaw = math_node(ng, 'ARCTAN2', math_node(ng, 'MULTIPLY', away[0], -1.0), away[1])
    euler = new_node(ng, "ShaderNodeCombineXYZ")
    euler.inputs[0].default_value = TOP_TILT
    ng.links.new(yaw, euler.inputs[2])
    spread = math_node(ng, 'ADD', math_node(ng, 'ABSOLUTE', math_node(ng, 'COSINE', yaw)),
                       math_node(ng, 'ABSOLUTE', math_node(ng, 'SINE', yaw)))
    return euler.outputs[0], math_node(ng, 'DIVIDE', 1.0, spread)


# ---------------------------------------------------------------------------------------------
# the view switch


def _modifier(obj, role):
    for mod in obj.modifiers:
        group = getattr(mod, "node_group", None)
        if group is not None and group.get(TAG + "_role") == role:
            return mod
    return None


def find_player_modifier(obj: bpy.types.Object):
    """The player-view modifier, or None (never adds one: safe in draw code)."""
    return _modifier(obj, PLAYER_GROUP)


def player_modifier(obj: bpy.types.Object, style=None):
    """The nonogram's player-view modifier, added (after the designer's) when missing, e.g. on a
    nonogram made before the player's view existed; ``style`` as in ``build_from_puzzle``."""
    mod = _modifier(obj, PLAYER_GROUP)
    if mod is not None:
        return mod
    pg = props(obj)
    if pg.labels is None or pg.glyphs is None or pg.outlines is None:
        raise NonogramError(f"'{obj.name}' has lost its clue labels")
    if get_point_attribute(cells_mesh(obj), "face_x") is None:
        labels = pg.labels
        write_face_codes(obj, line_codes(n_lines(obj), *(object_point_attribute(labels, name)
                                                         for name in ("line", "glyph", "clue_kind"))))
    mod = cast(bpy.types.NodesModifier, obj.modifiers.new(PLAYER_MODIFIER, 'NODES'))
    mod.node_group = player_group(style)
    set_modifier_input(mod, "Glyphs", pg.glyphs)
    set_modifier_input(mod, "Outlines", pg.outlines)
    mod.show_viewport = mod.show_render = False
    return mod


def current_view(obj: bpy.types.Object) -> str:
    mod = _modifier(obj, PLAYER_GROUP)
    if mod is not None and mod.show_viewport:
        return 'PLAYER'
    vmod = _modifier(obj, VOXEL_GROUP)
    try:
        revealed = vmod is not None and bool(get_modifier_input(vmod, "Reveal"))
    except KeyError:  # a voxel group made before the reveal
        revealed = False
    return 'REVEAL' if revealed else 'DESIGNER'


def set_view(obj: bpy.types.Object, view: str) -> None:
    """'PLAYER': the block of cubes with face labels; 'DESIGNER': the solver's cells and the
    clue labels beside the grid; 'REVEAL': the finished model in its colours, no labels. Only
    modifier switches change: all stay built."""
    if view not in ('PLAYER', 'DESIGNER', 'REVEAL'):
        raise ValueError(view)
    player = view == 'PLAYER'
    pmod = player_modifier(obj) if player else _modifier(obj, PLAYER_GROUP)
    vmod = _modifier(obj, VOXEL_GROUP)
    if vmod is not None:
        vmod.show_viewport = vmod.show_render = not player
        try:
            set_modifier_input(vmod, "Reveal", view == 'REVEAL')
        except KeyError:  # a voxel group made before the reveal
            if view == 'REVEAL':
                raise NonogramError("This nonogram was made before the reveal existed: make it "
                                    "again to reveal it") from None
    if pmod is not None:
        pmod.show_viewport = pmod.show_render = player
    labels = props(obj).labels
    if labels is not None:
        lmod = _modifier(labels, LABEL_GROUP)
        if lmod is not None:
            lmod.show_viewport = lmod.show_render = view == 'DESIGNER'
    obj.update_tag()


def set_slice(obj: bpy.types.Object, axis: str, layers: int) -> None:
    """Peel ``layers`` layers along ``axis`` ('X', 'Y', 'Z'): positive from the high side,
    negative from the low side, 0 for none."""
    set_modifier_input(player_modifier(obj), f"Slice {axis.upper()}", int(layers))


def kept_block(shape, slices) -> tuple:
    """(lo, hi) inclusive cell index bounds per axis left by the slicers (the nodes' rule)."""
    lo = [max(-int(k), 0) for k in slices]
    hi = [int(n) - 1 - max(int(k), 0) for n, k in zip(shape, slices)]
    return lo, hi
