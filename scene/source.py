"""The source mesh: its evaluated world-space triangles, and a check that a resolution fits."""
from __future__ import annotations

import os
from typing import Optional

import bpy
import numpy as np

from .properties import RESOLUTION_RANGE
from .common import BYTES_PER_CELL, MAX_CELLS, NonogramError, object_kind
from .store import nonogram_of


def source_triangles(context: bpy.types.Context, obj: Optional[bpy.types.Object]) -> tuple:
    """World-space vertices (n, 3) float64 and triangles (m, 3) int32 of the evaluated mesh."""
    if obj is None:
        raise NonogramError("No active object: select a mesh object first")
    if obj.type != 'MESH':
        raise NonogramError(f"'{obj.name}' is {object_kind(obj.type)} object, not a mesh")
    depsgraph = context.evaluated_depsgraph_get()
    ob_eval = obj.evaluated_get(depsgraph)
    mesh = ob_eval.to_mesh()
    try:
        mesh.calc_loop_triangles()
        n_verts, n_tris = len(mesh.vertices), len(mesh.loop_triangles)
        co = np.empty(n_verts * 3, dtype=np.float32)
        mesh.vertices.foreach_get("co", co)
        tris = np.empty(n_tris * 3, dtype=np.int32)
        mesh.loop_triangles.foreach_get("vertices", tris)
        # matrix_world of the evaluated object: constraints and drivers included.
        mw = np.array(ob_eval.matrix_world, dtype=np.float64)
    finally:
        ob_eval.to_mesh_clear()
    if n_tris == 0:
        raise NonogramError(f"'{obj.name}' has no faces (after modifiers): nothing to voxelize")
    verts = co.reshape(-1, 3).astype(np.float64) @ mw[:3, :3].T + mw[:3, 3]
    return verts, tris.reshape(-1, 3)


def sources_triangles(context: bpy.types.Context, objs) -> tuple:
    """The union of several objects' world-space triangles, as one (vertices, triangles)."""
    verts, tris, n = [], [], 0
    for obj in objs:
        v, t = source_triangles(context, obj)
        verts.append(v)
        tris.append(t.astype(np.int64) + n)
        n += len(v)
    if not verts:
        raise NonogramError("No mesh selected: select one or more mesh objects first")
    return np.concatenate(verts), np.concatenate(tris)


def grid_estimate(verts: np.ndarray, resolution: int) -> tuple:
    """The grid shape a fitted voxelization at ``resolution`` will roughly have."""
    ext = verts.max(axis=0) - verts.min(axis=0)
    longest = float(ext.max())
    if not np.isfinite(longest) or longest <= 0:
        return (1, 1, 1)
    vs = longest / resolution
    return tuple(max(1, int(np.ceil(e / vs))) for e in ext)


def available_memory() -> Optional[int]:
    """Bytes of memory available now, where the OS tells us (None otherwise)."""
    try:
        with open("/proc/meminfo") as f:
            for line in f:
                if line.startswith("MemAvailable:"):
                    return int(line.split()[1]) * 1024
    except (OSError, ValueError, IndexError):
        pass
    try:
        return os.sysconf("SC_AVPHYS_PAGES") * os.sysconf("SC_PAGE_SIZE")
    except (ValueError, OSError, AttributeError):
        return None


def check_resolution(verts: np.ndarray, resolution: int) -> tuple:
    """Refuse a resolution whose grid would not fit in memory, before allocating anything."""
    lo = RESOLUTION_RANGE[0]
    if resolution < lo:
        raise NonogramError(f"Resolution must be at least {lo}, got {resolution}: a smaller grid "
                            "makes no puzzle")
    shape = grid_estimate(verts, resolution)
    cells = shape[0] * shape[1] * shape[2]
    need = cells * BYTES_PER_CELL
    avail = available_memory()
    dims = "×".join(str(s) for s in shape)
    if cells > MAX_CELLS:
        raise NonogramError(f"Resolution {resolution} gives a {dims} grid ({cells:,} cells); "
                            f"the limit is {MAX_CELLS:,} cells: lower the resolution")
    if avail is not None and need > avail:
        raise NonogramError(f"Resolution {resolution} gives a {dims} grid that needs about "
                            f"{need / 2**30:.1f} GiB, more than the {avail / 2**30:.1f} GiB "
                            f"of memory available: lower the resolution")
    return shape


BONE_SHAPE = "an armature's bone shape"


def bone_shapes(objects) -> set:
    """The objects the armatures among ``objects`` draw their bones with (Custom Shape):
    widgets, not part of a model (the glTF importer adds an Icosphere for them)."""
    return {pb.custom_shape for ob in objects if ob.type == 'ARMATURE'
            for pb in ob.pose.bones if pb.custom_shape is not None}


def selected_sources(context):
    """(the mesh objects to voxelize together: the active object, then the other selected
    meshes; the other selected objects, left out, with why). A bone shape is left out even
    when it is selected (Select All with the importer's widgets shown) or active."""
    shapes = bone_shapes(context.scene.objects) if context.scene is not None else set()
    active = context.active_object
    meshes, left_out = [], []
    for o in [active] + [o for o in getattr(context, "selected_objects", None) or [] if o is not active]:
        if o is None:
            continue
        if o in shapes:
            left_out.append((o.name, BONE_SHAPE))
        elif o is active:
            meshes.append(o)
        elif nonogram_of(o) is not None:
            left_out.append((o.name, "a nonogram"))
        elif o.type != 'MESH':
            left_out.append((o.name, f"a {o.type.lower()}, not a mesh"))
        else:
            meshes.append(o)
    return meshes, left_out
