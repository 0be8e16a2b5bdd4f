"""Point meshes and their per-point attributes (numpy in, numpy out)."""
from __future__ import annotations

from typing import Any, cast

import bpy
import numpy as np


def points_mesh(name: str, positions) -> bpy.types.Mesh:
    mesh = bpy.data.meshes.new(name)
    mesh.vertices.add(len(positions))
    mesh.vertices.foreach_set("co", np.ascontiguousarray(positions, dtype=np.float32).ravel())
    return mesh


def set_point_attribute(mesh: bpy.types.Mesh, name: str, values, kind: Any = 'INT'):
    """Create or overwrite a point attribute from a numpy array."""
    attr: Any = mesh.attributes.get(name)
    if attr is not None and (attr.data_type != kind or attr.domain != 'POINT'):
        mesh.attributes.remove(attr)
        attr = None
    if attr is None:
        attr = mesh.attributes.new(name, kind, 'POINT')
    if kind == 'BOOLEAN':
        attr.data.foreach_set("value", np.asarray(values, dtype=bool).ravel())
    else:
        attr.data.foreach_set("value", np.asarray(values, dtype=np.int32).ravel())
    mesh.update()


def get_point_attribute(mesh: bpy.types.Mesh, name: str, kind: str = 'INT'):
    attr: Any = mesh.attributes.get(name)
    if attr is None:
        return None
    out = np.empty(len(mesh.vertices), dtype=bool if attr.data_type == 'BOOLEAN' else np.int32)
    attr.data.foreach_get("value", out)
    return out


def object_point_attribute(obj: bpy.types.Object, name: str):
    """``get_point_attribute`` of an object's mesh that also works in Edit Mode, where mesh
    attributes hold no data (they live in the edit BMesh's layers until Edit Mode ends)."""
    mesh = cast(bpy.types.Mesh, obj.data)
    if obj.mode != 'EDIT':
        return get_point_attribute(mesh, name)
    import bmesh
    bm = bmesh.from_edit_mesh(mesh)
    for kind, dtype in (("int", np.int32), ("bool", bool)):
        layers = getattr(bm.verts.layers, kind, None)  # bool layers: newer Blenders only
        layer = layers.get(name) if layers is not None else None
        if layer is not None:
            return np.fromiter((v[layer] for v in bm.verts), dtype=dtype, count=len(bm.verts))
    return None


def set_object_point_attribute(obj: bpy.types.Object, name: str, values, kind: Any = 'INT') -> None:
    """``set_point_attribute`` that also works in Edit Mode (writing the edit BMesh's layer,
    which Blender copies back when Edit Mode ends)."""
    mesh = cast(bpy.types.Mesh, obj.data)
    if obj.mode != 'EDIT':
        set_point_attribute(mesh, name, values, kind)
        return
    import bmesh
    bm = bmesh.from_edit_mesh(mesh)
    layers = getattr(bm.verts.layers, "bool" if kind == 'BOOLEAN' else "int", None)
    if layers is None:
        return  # a Blender without bool BMesh layers: updated when Edit Mode ends
    layer = layers.get(name) or layers.new(name)
    for v, x in zip(bm.verts, np.asarray(values).ravel().tolist()):
        v[layer] = x
    bmesh.update_edit_mesh(mesh, loop_triangles=False, destructive=False)
