"""Small helpers that add one node to a node tree (shader or geometry nodes) and wire its inputs:
the materials, the voxel and label groups and the player's groups are built from them."""
from __future__ import annotations

from typing import Any

import bpy


def new_node(tree, bl_idname: str) -> Any:
    # Any: the stubs type every node as the base Node, without its own properties.
    return tree.nodes.new(bl_idname)


def math_node(tree, op: str, a, b=None, vector: bool = False) -> Any:
    """A Math (or, with ``vector``, a Vector Math) node doing ``op`` on ``a`` and ``b``, each a
    socket to link or a value to set (None: left as it is); its result socket."""
    n = new_node(tree, "ShaderNodeVectorMath" if vector else "ShaderNodeMath")
    n.operation = op
    for i, v in enumerate((a, b)):
        if v is None:
            continue
        if isinstance(v, bpy.types.NodeSocket):
            tree.links.new(v, n.inputs[i])
        else:
            n.inputs[i].default_value = v
    if vector:
        return n.outputs["Value" if op in ('DOT_PRODUCT', 'LENGTH') else "Vector"]
    return n.outputs[0]


def socket(sockets, name):
    """The available socket called ``name`` (some nodes keep one hidden socket per data type)."""
    for s in sockets:
        if s.name == name and s.enabled:
            return s
    raise KeyError(name)


def named_attribute(ng, name, data_type):
    """A Named Attribute node reading ``name`` as ``data_type``; its value socket."""
    n = new_node(ng, "GeometryNodeInputNamedAttribute")
    n.data_type = data_type
    n.inputs["Name"].default_value = name
    return socket(n.outputs, "Attribute")


def compare_node(ng, data_type, op, a, b):
    """A Compare node: ``a`` ``op`` ``b``, each a socket to link or a value to set."""
    n = new_node(ng, "FunctionNodeCompare")
    n.data_type = data_type
    n.operation = op
    for sock, v in ((socket(n.inputs, "A"), a), (socket(n.inputs, "B"), b)):
        if isinstance(v, bpy.types.NodeSocket):
            ng.links.new(v, sock)
        else:
            sock.default_value = v
    return n.outputs[0]


def boolean_node(ng, op, a, b=None):
    """A Boolean Math node on two sockets, or on one for 'NOT' (whose node has a single input
    from Blender 5.2 on: an unavailable second one before)."""
    n = new_node(ng, "FunctionNodeBooleanMath")
    n.operation = op
    ng.links.new(a, n.inputs[0])
    if op != 'NOT':
        ng.links.new(b, n.inputs[1])
    return n.outputs[0]
