"""Point meshes and their per-point attributes (numpy in, numpy out)."""
from __future__ import annotations

from typing import Any

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
