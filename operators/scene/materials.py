"""Materials and the tagging that lets us find our own datablocks again (shared by every
nonogram in the file)."""
from __future__ import annotations

from typing import Any

import bpy

from .common import CELL_COLOURS, CLUE_COLOURS, CLUE_MATERIALS, GN_VERSION, TAG, VOXEL_MATERIAL


def colours_key(colours) -> str:
    """A datablock's colours as a tag value: nonograms of the same colours share it. The
    default colours' key is '' (what datablocks made before colours could change carry)."""
    if colours is None:
        return ""
    return ";".join(f"{k}={','.join(f'{c:.4f}' for c in v)}" for k, v in sorted(colours.items()))


def tagged(coll, name, colours=None):
    """Our current-version ``name`` (of these colours) in ``coll``: found by tag, so a user's
    datablock that happens to have the same name is never reused or removed."""
    key = colours_key(colours)
    for item in coll:
        if (item.get(TAG) == GN_VERSION and item.get(TAG + "_role") == name
                and item.get(TAG + "_colours", "") == key):
            return item
    return None


def tag_id(item, name, colours=None):
    item[TAG] = GN_VERSION
    item[TAG + "_role"] = name
    key = colours_key(colours)
    if key:
        item[TAG + "_colours"] = key


def own_colours(colours, defaults):
    """``colours`` restricted to ``defaults``' names; None when they are the defaults."""
    picked = {k: tuple(float(c) for c in colours[k]) for k in defaults} if colours else None
    if picked is None or all(abs(a - b) < 1e-4 for k in defaults
                             for a, b in zip(picked[k], defaults[k])):
        return None
    return picked


def new_node(tree, bl_idname: str) -> Any:
    # Any: the stubs type every node as the base Node, without its own properties.
    return tree.nodes.new(bl_idname)


def bsdf_node(tree) -> Any:
    return next(n for n in tree.nodes if n.bl_idname == "ShaderNodeBsdfPrincipled")


def socket(sockets, name):
    """The available socket called ``name`` (some nodes keep one hidden socket per data type)."""
    for s in sockets:
        if s.name == name and s.enabled:
            return s
    raise KeyError(name)


def voxel_material(colours=None):
    """The cubes' material; ``colours`` by state (CELL_COLOURS' names), None for the defaults."""
    colours = own_colours(colours, CELL_COLOURS)
    mat = tagged(bpy.data.materials, VOXEL_MATERIAL, colours)
    if mat is not None:
        return mat
    c = colours or CELL_COLOURS
    mat = bpy.data.materials.new(VOXEL_MATERIAL)
    tag_id(mat, VOXEL_MATERIAL, colours)
    _use_nodes(mat)
    mat.diffuse_color = (0.55, 0.6, 0.7, 1.0)
    nt = mat.node_tree
    bsdf = bsdf_node(nt)
    # Point attributes reach the instanced cubes only through the instancer.
    state = new_node(nt, "ShaderNodeAttribute")
    state.attribute_type = 'INSTANCER'
    state.attribute_name = "shown_state"
    scale = new_node(nt, "ShaderNodeMath")
    scale.operation = 'DIVIDE'
    scale.inputs[1].default_value = 4.0
    nt.links.new(state.outputs["Fac"], scale.inputs[0])
    ramp = new_node(nt, "ShaderNodeValToRGB")
    ramp.color_ramp.interpolation = 'CONSTANT'
    els = ramp.color_ramp.elements
    # state/4: contradiction 0, empty .25, filled .5, unknown .75
    els[0].position, els[0].color = 0.0, (1.0, 0.0, 1.0, 1.0)
    els[1].position, els[1].color = 0.2, c["empty"]
    e = els.new(0.45)
    e.color = c["filled"]
    e = els.new(0.7)
    e.color = c["unknown"]
    nt.links.new(scale.outputs[0], ramp.inputs["Fac"])
    hl = new_node(nt, "ShaderNodeAttribute")
    hl.attribute_type = 'INSTANCER'
    hl.attribute_name = "highlight"
    mix = new_node(nt, "ShaderNodeMix")
    mix.data_type = 'RGBA'
    nt.links.new(hl.outputs["Fac"], socket(mix.inputs, "Factor"))
    nt.links.new(ramp.outputs["Color"], socket(mix.inputs, "A"))
    socket(mix.inputs, "B").default_value = c["highlight"]
    nt.links.new(socket(mix.outputs, "Result"), bsdf.inputs["Base Color"])
    return mat


def _use_nodes(mat):
    # Blender 5.0 deprecates use_nodes (materials always have a node tree there); 4.x needs it.
    if mat.node_tree is None:
        mat.use_nodes = True


def clue_material(kind, colours=None):
    """The ink of ``kind`` clues ("plain", "circle", "square"); ``colours`` by kind, None for
    the defaults."""
    name = CLUE_MATERIALS[kind]
    colour = own_colours(colours, {kind: CLUE_COLOURS[kind]})
    mat = tagged(bpy.data.materials, name, colour)
    if mat is not None:
        return mat
    ink = (colour or CLUE_COLOURS)[kind]
    mat = bpy.data.materials.new(name)
    tag_id(mat, name, colour)
    mat.diffuse_color = ink
    _use_nodes(mat)
    nt = mat.node_tree
    bsdf = bsdf_node(nt)
    bsdf.inputs["Base Color"].default_value = ink
    bsdf.inputs["Roughness"].default_value = 1.0
    return mat
