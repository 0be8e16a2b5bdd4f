"""Materials and the tagging that lets us find our own datablocks again (shared by every
nonogram in the file)."""
from __future__ import annotations

from typing import Any

import bpy

from .common import (CELL_COLOURS, CLUE_COLOURS, CLUE_MATERIALS, FLOATING_CLUE_COLOURS, GN_VERSION,
                     HIDDEN_CLUE_FADE, TAG, VOXEL_MATERIAL)
from .nodetree import new_node, socket


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


def bsdf_node(tree) -> Any:
    return next(n for n in tree.nodes if n.bl_idname == "ShaderNodeBsdfPrincipled")


def instancer_attribute(tree, name):
    """The ``Fac`` of the instancer's attribute ``name``: point attributes reach instanced
    geometry only through the instancer (0 where the attribute does not exist)."""
    node = new_node(tree, "ShaderNodeAttribute")
    node.attribute_type = 'INSTANCER'
    node.attribute_name = name
    return node.outputs["Fac"]


def mix_colour(tree, factor, a, b):
    """An RGBA mix from ``a`` (factor 0) to ``b`` (factor 1): sockets or colours."""
    mix = new_node(tree, "ShaderNodeMix")
    mix.data_type = 'RGBA'
    tree.links.new(factor, socket(mix.inputs, "Factor"))
    for name, v in (("A", a), ("B", b)):
        if isinstance(v, bpy.types.NodeSocket):
            tree.links.new(v, socket(mix.inputs, name))
        else:
            socket(mix.inputs, name).default_value = v
    return socket(mix.outputs, "Result")


def new_material(name, colours, diffuse):
    """A new tagged material ``name`` (of ``colours``) with a node tree: (material, node tree,
    its Principled BSDF). ``diffuse`` is what Solid mode shows."""
    mat = bpy.data.materials.new(name)
    tag_id(mat, name, colours)
    _use_nodes(mat)
    mat.diffuse_color = diffuse
    return mat, mat.node_tree, bsdf_node(mat.node_tree)


def voxel_material(colours=None):
    """The cubes' material; ``colours`` by state (CELL_COLOURS' names), None for the defaults."""
    colours = own_colours(colours, CELL_COLOURS)
    mat = tagged(bpy.data.materials, VOXEL_MATERIAL, colours)
    if mat is not None:
        return mat
    c = colours or CELL_COLOURS
    mat, nt, bsdf = new_material(VOXEL_MATERIAL, colours, (0.55, 0.6, 0.7, 1.0))
    scale = new_node(nt, "ShaderNodeMath")
    scale.operation = 'DIVIDE'
    scale.inputs[1].default_value = 4.0
    nt.links.new(instancer_attribute(nt, "shown_state"), scale.inputs[0])
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
    # a filled cube of a coloured puzzle (``colour_on``, set by the voxel nodes) shows its cell's
    # ``reveal_colour``: the palette drives the cubes through this per-instance attribute
    reveal = new_node(nt, "ShaderNodeAttribute")
    reveal.attribute_type = 'INSTANCER'
    reveal.attribute_name = "reveal_colour"
    coloured = mix_colour(nt, instancer_attribute(nt, "colour_on"), ramp.outputs["Color"],
                          reveal.outputs["Color"])
    nt.links.new(mix_colour(nt, instancer_attribute(nt, "highlight"), coloured,
                            c["highlight"]), bsdf.inputs["Base Color"])
    return mat


def _use_nodes(mat):
    # Blender 5.0 deprecates use_nodes (materials always have a node tree there); 4.x needs it.
    if mat.node_tree is None:
        mat.use_nodes = True


def clue_material(kind, colours=None, floating=None):
    """The ink of ``kind`` clues ("plain", "circle", "square"); ``colours`` by kind, None for
    the defaults. ``floating``: the ink of the designer's floating labels instead of the
    kind's light default (a colour puzzle's clue colour)."""
    name = CLUE_MATERIALS[kind]
    colour = own_colours(colours, {kind: CLUE_COLOURS[kind]})
    if floating is not None:
        colour = dict(colour or {kind: CLUE_COLOURS[kind]}, floating=tuple(float(v) for v in floating))
    mat = tagged(bpy.data.materials, name, colour)
    if mat is not None:
        return mat
    ink = (colour or CLUE_COLOURS)[kind]
    light = (colour or {}).get("floating", FLOATING_CLUE_COLOURS[kind])
    mat, nt, bsdf = new_material(name, colour, ink)
    bsdf.inputs["Roughness"].default_value = 1.0
    # ``ink`` on the player's light cubes; light ink for the designer's labels, which float
    # over the (dark) background. The label nodes mark those with ``floating``.
    nt.links.new(mix_colour(nt, instancer_attribute(nt, "floating"), ink, light),
                 bsdf.inputs["Base Color"])
    # A hidden clue (designer's view) is drawn faint: mostly transparent, on any background.
    faint = new_node(nt, "ShaderNodeMath")
    faint.operation = 'MULTIPLY'
    nt.links.new(instancer_attribute(nt, "hidden"), faint.inputs[0])
    faint.inputs[1].default_value = HIDDEN_CLUE_FADE
    clear = new_node(nt, "ShaderNodeBsdfTransparent")
    mix = new_node(nt, "ShaderNodeMixShader")
    nt.links.new(faint.outputs[0], mix.inputs["Fac"])
    nt.links.new(bsdf.outputs[0], mix.inputs[1])
    nt.links.new(clear.outputs[0], mix.inputs[2])
    out = next(n for n in nt.nodes if n.bl_idname == "ShaderNodeOutputMaterial")
    nt.links.new(mix.outputs[0], out.inputs["Surface"])
    return mat
