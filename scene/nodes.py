"""The Geometry Nodes groups: cubes on the cell points, glyphs on the clue points."""
from __future__ import annotations

import bpy

from . import compat
from .common import CELL_COLOURS, EMPTY, FILLED, LABEL_GROUP, UNKNOWN, VOXEL_GROUP
from .materials import own_colours, tag_id, tagged, voxel_material
from .nodetree import boolean_node, compare_node, math_node, named_attribute, new_node, socket


def new_group(name, colours=None):
    """A new Geometry Nodes group tagged as ours, with a geometry input and output: the group,
    its Group Input and its Group Output."""
    ng = bpy.data.node_groups.new(name, "GeometryNodeTree")  # type: ignore[arg-type]  # stub lists only 'DUMMY' 
    tag_id(ng, name, colours)
    ng.interface.new_socket("Geometry", in_out='INPUT', socket_type='NodeSocketGeometry')
    ng.interface.new_socket("Geometry", in_out='OUTPUT', socket_type='NodeSocketGeometry')
    gin = new_node(ng, "NodeGroupInput")
    gout = new_node(ng, "NodeGroupOutput")
    return ng, gin, gout


def voxel_group(colours=None):
    """Cube on every point that is visible and not empty; cells still pending in a solve
    animation (scene frame < ``known_at``) are drawn as unknown. The cubes' material has
    ``colours`` (see ``voxel_material``): one group per set of colours."""
    colours = own_colours(colours, CELL_COLOURS)
    ng = tagged(bpy.data.node_groups, VOXEL_GROUP, colours)
    if ng is not None:
        return ng
    material = voxel_material(colours)
    ng, gin, gout = new_group(VOXEL_GROUP, colours)
    size = ng.interface.new_socket("Cube Size", in_out='INPUT', socket_type='NodeSocketFloat')
    size.default_value, size.min_value, size.max_value = 0.92, 0.05, 1.0
    links = ng.links

    # The frame comes in through an input that only a solve animation drives: a Scene Time node
    # would re-evaluate every nonogram on every frame change, animated or not.
    frame_in = ng.interface.new_socket("Frame", in_out='INPUT', socket_type='NodeSocketFloat')
    frame_in.default_value = 0.0
    frame = gin.outputs["Frame"]
    known_at = named_attribute(ng, "known_at", 'INT')
    pending = compare_node(ng, 'FLOAT', 'LESS_THAN', frame, known_at)
    sw = new_node(ng, "GeometryNodeSwitch")
    sw.input_type = 'INT'
    links.new(pending, sw.inputs["Switch"])
    links.new(named_attribute(ng, "state", 'INT'), sw.inputs["False"])
    sw.inputs["True"].default_value = UNKNOWN
    shown = sw.outputs[0]
    shown_not_empty = compare_node(ng, 'INT', 'NOT_EQUAL', shown, EMPTY)
    wanted = boolean_node(ng, 'OR', pending, named_attribute(ng, "visible", 'BOOLEAN'))
    selection = boolean_node(ng, 'AND', wanted, shown_not_empty)
    # The designer's clue layer: the layers between it and the camera are cut away.
    selection = boolean_node(ng, 'AND', selection, _not_cut_by_layer(ng, _layer_inputs(ng, gin)))

    # Reveal: the solution's cubes, all shown as filled (in their colours when they have one)
    reveal = ng.interface.new_socket("Reveal", in_out='INPUT', socket_type='NodeSocketBool')
    reveal.description = "Show the finished model (the solution) in its colours"
    rsel = new_node(ng, "GeometryNodeSwitch")
    rsel.input_type = 'BOOLEAN'
    links.new(gin.outputs["Reveal"], rsel.inputs["Switch"])
    links.new(selection, rsel.inputs["False"])
    links.new(named_attribute(ng, "solution", 'BOOLEAN'), rsel.inputs["True"])
    selection = rsel.outputs[0]
    rstate = new_node(ng, "GeometryNodeSwitch")
    rstate.input_type = 'INT'
    links.new(gin.outputs["Reveal"], rstate.inputs["Switch"])
    links.new(shown, rstate.inputs["False"])
    rstate.inputs["True"].default_value = FILLED
    shown = rstate.outputs[0]
    # filled cubes of a coloured puzzle take their cell's colour (materials.voxel_material)
    colour_on = boolean_node(ng, 'AND', compare_node(ng, 'INT', 'EQUAL', shown, FILLED),
                         named_attribute(ng, "coloured", 'BOOLEAN'))

    store = new_node(ng, "GeometryNodeStoreNamedAttribute")
    store.data_type = 'INT'
    store.domain = 'POINT'
    store.inputs["Name"].default_value = "shown_state"
    links.new(gin.outputs["Geometry"], store.inputs["Geometry"])
    links.new(shown, socket(store.inputs, "Value"))
    store_colour = new_node(ng, "GeometryNodeStoreNamedAttribute")
    store_colour.data_type = 'BOOLEAN'
    store_colour.domain = 'POINT'
    store_colour.inputs["Name"].default_value = "colour_on"
    links.new(store.outputs["Geometry"], store_colour.inputs["Geometry"])
    links.new(colour_on, socket(store_colour.inputs, "Value"))
    store = store_colour

    cube = new_node(ng, "GeometryNodeMeshCube")
    links.new(gin.outputs["Cube Size"], cube.inputs["Size"])
    setmat = new_node(ng, "GeometryNodeSetMaterial")
    setmat.inputs["Material"].default_value = material
    links.new(cube.outputs["Mesh"], setmat.inputs["Geometry"])

    inst = new_node(ng, "GeometryNodeInstanceOnPoints")
    links.new(store.outputs["Geometry"], inst.inputs["Points"])
    links.new(selection, inst.inputs["Selection"])
    links.new(setmat.outputs["Geometry"], inst.inputs["Instance"])
    links.new(inst.outputs["Instances"], gout.inputs["Geometry"])
    return ng


def collection_instances(ng, collection):
    """One instance per child of ``collection`` (a socket), in name order, each at the origin:
    what Instance on Points' Pick Instance picks from by index."""
    n = new_node(ng, "GeometryNodeCollectionInfo")
    ng.links.new(collection, n.inputs["Collection"])
    n.inputs["Separate Children"].default_value = True
    n.inputs["Reset Children"].default_value = True
    return n.outputs[0]


def label_group():
    """The glyph of each clue point (picked by its ``glyph`` attribute) plus a circle/square
    outline for 2-block/3+-block clues, all rotated like the active camera (so they face it).
    Points with ``hidden`` set are clues the player does not see: drawn greyed, or not at all."""
    ng = tagged(bpy.data.node_groups, LABEL_GROUP)
    if ng is not None:
        return ng
    ng, gin, gout = new_group(LABEL_GROUP)
    ng.interface.new_socket("Glyphs", in_out='INPUT', socket_type='NodeSocketCollection')
    ng.interface.new_socket("Outlines", in_out='INPUT', socket_type='NodeSocketCollection')
    ng.interface.new_socket("Show Zero Clues", in_out='INPUT', socket_type='NodeSocketBool')
    ghosts = ng.interface.new_socket("Show Hidden Clues", in_out='INPUT', socket_type='NodeSocketBool')
    ghosts.default_value = True
    ghosts.description = "Draw hidden clues greyed (the player does not see them)"
    scale = ng.interface.new_socket("Label Size", in_out='INPUT', socket_type='NodeSocketFloat')
    scale.default_value, scale.min_value, scale.max_value = 1.0, 0.05, 10.0
    links = ng.links

    total = named_attribute(ng, "clue_total", 'INT')
    kind = named_attribute(ng, "clue_kind", 'INT')
    nonzero = compare_node(ng, 'INT', 'GREATER_THAN', total, 0)
    shown = boolean_node(ng, 'OR', nonzero, gin.outputs["Show Zero Clues"])
    # Hidden clues stay drawable (greyed by their material) so the designer can pick them.
    hidden = named_attribute(ng, "hidden", 'BOOLEAN')
    shown = boolean_node(ng, 'AND', shown, boolean_node(ng, 'OR', boolean_node(ng, 'NOT', hidden),
                                                 gin.outputs["Show Hidden Clues"]))

    cam = new_node(ng, "GeometryNodeInputActiveCamera")
    info = new_node(ng, "GeometryNodeObjectInfo")
    info.transform_space = 'RELATIVE'  # camera rotation in the clue object's own space
    links.new(cam.outputs[0], info.inputs["Object"])
    rotation = info.outputs["Rotation"]

    # The designer's clue layer (see layer_positions): only the lines of that layer, at their
    # far ends beside the cut-away layer, each no wider than the row leaves room for.
    onehot, layer, all_layers, view_side = _layer_inputs(ng, gin)
    in_layer, layer_pos, floating_pos, layer_scale = _layer_labels(
        ng, onehot, layer, view_side, info.outputs["Location"], gin.outputs["Label Size"])
    shown = boolean_node(ng, 'AND', shown, boolean_node(ng, 'OR', all_layers, in_layer))

    # The labels' material draws floating labels with light ink (see materials.clue_material).
    floating = new_node(ng, "GeometryNodeStoreNamedAttribute")
    floating.data_type = 'BOOLEAN'
    floating.domain = 'POINT'
    floating.inputs["Name"].default_value = "floating"
    placed = new_node(ng, "GeometryNodeSetPosition")
    links.new(gin.outputs["Geometry"], placed.inputs["Geometry"])
    where = new_node(ng, "GeometryNodeSwitch")
    where.input_type = 'VECTOR'
    links.new(all_layers, where.inputs["Switch"])
    links.new(layer_pos, where.inputs["False"])
    links.new(floating_pos, where.inputs["True"])
    links.new(where.outputs[0], placed.inputs["Position"])
    links.new(placed.outputs[0], floating.inputs["Geometry"])
    socket(floating.inputs, "Value").default_value = True
    size = new_node(ng, "GeometryNodeSwitch")
    size.input_type = 'FLOAT'
    links.new(all_layers, size.inputs["Switch"])
    links.new(layer_scale, size.inputs["False"])
    links.new(gin.outputs["Label Size"], size.inputs["True"])

    def instance(selection, instances, index):
        n = new_node(ng, "GeometryNodeInstanceOnPoints")
        links.new(floating.outputs["Geometry"], n.inputs["Points"])
        links.new(selection, n.inputs["Selection"])
        links.new(instances, n.inputs["Instance"])
        n.inputs["Pick Instance"].default_value = True
        links.new(index, n.inputs["Instance Index"])
        links.new(rotation, n.inputs["Rotation"])
        links.new(size.outputs[0], n.inputs["Scale"])
        return n.outputs[0]

    glyphs = instance(shown, collection_instances(ng, gin.outputs["Glyphs"]),
                      named_attribute(ng, "glyph", 'INT'))
    # Outline children are named so that circle comes first: index = kind - KIND_CIRCLE.
    outlined = boolean_node(ng, 'AND', shown, compare_node(ng, 'INT', 'GREATER_EQUAL', kind, 3))
    sub = new_node(ng, "ShaderNodeMath")
    sub.operation = 'SUBTRACT'
    links.new(kind, sub.inputs[0])
    sub.inputs[1].default_value = 3.0
    outlines = instance(outlined, collection_instances(ng, gin.outputs["Outlines"]),
                        sub.outputs[0])

    join = new_node(ng, "GeometryNodeJoinGeometry")
    links.new(glyphs, join.inputs[0])
    links.new(outlines, join.inputs[0])
    links.new(join.outputs[0], gout.inputs["Geometry"])
    return ng


def input_id(ng, name):
    for item in ng.interface.items_tree:
        if getattr(item, "in_out", None) == 'INPUT' and item.name == name:
            return item.identifier
    raise KeyError(name)


def set_modifier_input(mod, name, value):
    compat.set_modifier_value(mod, input_id(mod.node_group, name), value)
    # ID-property writes (Blender < 5.2) do not tag the object for re-evaluation by themselves.
    mod.id_data.update_tag()


def get_modifier_input(mod, name):
    return compat.get_modifier_value(mod, input_id(mod.node_group, name))


def modifier_input_prop(mod, name):
    """(struct, property) of the modifier's input ``name``, for ``layout.prop``."""
    return compat.modifier_input_owner(mod, input_id(mod.node_group, name))


def modifier_input_path(mod, name):
    """The data path of the modifier's input ``name`` from its object (for a driver)."""
    return compat.modifier_input_path(mod, input_id(mod.node_group, name))


# ---------------------------------------------------------------------------------------------
# the designer's clue layer (scene/layers.py holds the same rules in numpy)

# The side (+1 or -1 per axis) the designer's view is drawn for when nothing says otherwise:
# the side Blender's default camera looks from (+X, -Y, +Z), where the floating labels (the clue
# points' own positions, scene/glyphs.py) stand. The groups' "View Side" input overrides it:
# scene/view_side.py writes the side the 3D View actually looks from.
LAYER_CUT_SIDE = (1.0, -1.0, 1.0)
DEFAULT_VIEW_SIDE = LAYER_CUT_SIDE
# How far (voxel units) a layer's label sits from the layer's centre towards the cut-away side:
# its centre just past the exposed face, so the layer's own cubes never cover it.
LAYER_LABEL_LIFT = 0.7
# How far past a line's end (voxel units, from the face) a floating label of the all-clues view
# stands: the clue points' offset (scene/glyphs.py clue_points, 0.6 from the face) minus the
# half cell that puts it on the cell centre past the end.
FLOATING_LABEL_GAP = 0.1


def _layer_inputs(ng, gin):
    """The group's "Layer Axis" (0 every clue, 1 X, 2 Y, 3 Z), "Layer" and "View Side" inputs,
    added here: (one-hot vector of the axis, the layer as a float, bool "every clue", the side
    vector)."""
    axis = ng.interface.new_socket("Layer Axis", in_out='INPUT', socket_type='NodeSocketInt')
    axis.default_value, axis.min_value, axis.max_value = 0, 0, 3
    axis.description = "Show the clues of one layer (1 X, 2 Y, 3 Z) or of every line (0)"
    layer = ng.interface.new_socket("Layer", in_out='INPUT', socket_type='NodeSocketInt')
    layer.default_value, layer.min_value, layer.max_value = 0, 0, 4096
    layer.description = "The layer whose clues are shown; the layers in front of it are cut away"
    side = ng.interface.new_socket("View Side", in_out='INPUT', socket_type='NodeSocketVector')
    side.default_value = DEFAULT_VIEW_SIDE
    side.min_value, side.max_value = -1.0, 1.0
    side.description = ("The side the designer looks from, +1 or -1 per axis (the add-on follows "
                        "the 3D View): the layers on that side are cut away, the labels face it")
    comb = new_node(ng, "ShaderNodeCombineXYZ")
    for i in range(3):
        ng.links.new(compare_node(ng, 'INT', 'EQUAL', gin.outputs["Layer Axis"], i + 1), comb.inputs[i])
    every = compare_node(ng, 'INT', 'EQUAL', gin.outputs["Layer Axis"], 0)
    return comb.outputs[0], gin.outputs["Layer"], every, gin.outputs["View Side"]


def _not_cut_by_layer(ng, layer_inputs):
    """True for the cells the clue layer keeps: every cell with no layer axis, else the layer
    and the layers on the far side of it from the viewer ("View Side")."""
    onehot, layer, _, view_side = layer_inputs
    cell = math_node(ng, 'FLOOR', new_node(ng, "GeometryNodeInputPosition").outputs[0], vector=True)
    side = math_node(ng, 'MULTIPLY', onehot, view_side, vector=True)
    # side . (cell - layer): > 0 exactly for the cells between the layer and the viewer
    from_layer = math_node(ng, 'SUBTRACT', cell, _layer_vector(ng, layer), vector=True)
    ahead = math_node(ng, 'DOT_PRODUCT', side, from_layer, vector=True)
    return compare_node(ng, 'FLOAT', 'LESS_THAN', ahead, 0.5)


def _layer_vector(ng, layer):
    comb = new_node(ng, "ShaderNodeCombineXYZ")
    for i in range(3):
        ng.links.new(layer, comb.inputs[i])
    return comb.outputs[0]


def _vscale(ng, vector, scalar):
    n = new_node(ng, "ShaderNodeVectorMath")
    n.operation = 'SCALE'
    ng.links.new(vector, n.inputs[0])
    ng.links.new(scalar, n.inputs["Scale"])
    return n.outputs["Vector"]


def _layer_labels(ng, onehot, layer, view_side, camera, label_size):
    """Per clue point: in the layer? (bool), where its label goes (vector: in layer mode at the
    line's end away from the viewer, beside the cut-away layer; with every clue shown in front
    of the line's end facing the viewer), its scale in layer mode (float). Reads the points'
    positions (in front of the ends facing the default side), ``far_x/y/z`` (the cell just past
    the line's other end) and ``line_axis`` attributes."""
    far = new_node(ng, "ShaderNodeCombineXYZ")
    for i, a in enumerate("xyz"):
        ng.links.new(named_attribute(ng, f"far_{a}", 'INT'), far.inputs[i])
    far = far.outputs[0]
    on_layer = math_node(ng, 'DOT_PRODUCT', far, onehot, vector=True)
    in_layer = compare_node(ng, 'FLOAT', 'EQUAL', on_layer, layer)
    line_axis = named_attribute(ng, "line_axis", 'INT')
    line_dir = new_node(ng, "ShaderNodeCombineXYZ")
    for i in range(3):
        ng.links.new(compare_node(ng, 'INT', 'EQUAL', line_axis, i), line_dir.inputs[i])
    line_dir = line_dir.outputs[0]
    # The cell just past the line's end on the default side (the point's own cell) and past
    # its other end (``far``); a line whose axis the viewer sees from the other side swaps them.
    near = math_node(ng, 'FLOOR', new_node(ng, "GeometryNodeInputPosition").outputs[0], vector=True)
    defaults = math_node(ng, 'MULTIPLY', view_side, DEFAULT_VIEW_SIDE, vector=True)
    flipped = math_node(ng, 'MULTIPLY', math_node(ng, 'SUBTRACT', (1.0, 1.0, 1.0), defaults, vector=True),
                        (0.5, 0.5, 0.5), vector=True)  # 1 where the side differs from the default, else 0
    swap = math_node(ng, 'DOT_PRODUCT', flipped, line_dir, vector=True)
    to_far = _vscale(ng, math_node(ng, 'SUBTRACT', far, near, vector=True), swap)
    away = math_node(ng, 'SUBTRACT', far, to_far, vector=True)
    toward = math_node(ng, 'ADD', near, to_far, vector=True)
    # every clue: in front of the end facing the viewer
    gap = math_node(ng, 'MULTIPLY', math_node(ng, 'DOT_PRODUCT', view_side, line_dir, vector=True),
                    FLOATING_LABEL_GAP)
    floating_pos = math_node(ng, 'ADD', math_node(ng, 'ADD', toward, (0.5, 0.5, 0.5), vector=True),
                             _vscale(ng, line_dir, gap), vector=True)
    # one layer: beside the cut-away layer, at the end away from the viewer
    lift = math_node(ng, 'MULTIPLY', onehot, math_node(ng, 'MULTIPLY', view_side,
                                                       (LAYER_LABEL_LIFT,) * 3, vector=True), vector=True)
    pos = math_node(ng, 'ADD', math_node(ng, 'ADD', away, (0.5, 0.5, 0.5), vector=True), lift, vector=True)
    # The labels of a layer stand in two rows, one voxel apart, facing the camera: a label may
    # be as wide as the row's spacing seen from the camera (sqrt(1 - (row . view)^2)).
    row = math_node(ng, 'SUBTRACT', math_node(ng, 'SUBTRACT', (1.0, 1.0, 1.0), line_dir, vector=True), onehot,
                    vector=True)
    view = math_node(ng, 'NORMALIZE', math_node(ng, 'SUBTRACT', pos, camera, vector=True), vector=True)
    d = math_node(ng, 'DOT_PRODUCT', row, view, vector=True)
    room = math_node(ng, 'SQRT', math_node(ng, 'MAXIMUM', math_node(ng, 'SUBTRACT', 1.0,
                                                                    math_node(ng, 'MULTIPLY', d, d)), 0.0))
    scale = math_node(ng, 'MINIMUM', label_size, math_node(ng, 'MULTIPLY', room, LAYER_ROW_FILL))
    return in_layer, pos, floating_pos, scale


# The widest label (a circle, 0.94 voxel) times this fills at most ~0.9 of a row's spacing.
LAYER_ROW_FILL = 0.95
