"""Scene building for a nonogram: the functions the operators (and the headless batch) call.

Layout of a generated nonogram, all in one collection "<name> Nonogram":
- the *nonogram object*: a point mesh with one point per grid cell (local coordinates in voxel
  units, cell (x, y, z) at (x+.5, y+.5, z+.5); the object's location is the grid's world origin
  and its uniform scale the voxel size), per-point attributes ``solution``, ``state``, ``visible``,
  ``highlight``, ``known_at``, and a Geometry Nodes modifier that instances a cube on the points;
- the *clue object*, child of the nonogram object: one point per clued line, placed in front of
  the face the line ends on, with a Geometry Nodes modifier that instances the glyph for that
  clue (and a circle/square outline for 2-block/3+-block clues), turned to face the active camera.
The glyph library (one FONT object per distinct clue) and the two outlines live in collections
that are not linked to the scene: they are only instanced.
"""
from __future__ import annotations

import json
import os
import time
from typing import Any, Optional, cast

import bpy
import numpy as np

from .runtime import engine

# ---------------------------------------------------------------------------------------------
# names and stored data

TAG = "nonogram3d"              # ID property on node groups/materials this add-on made
GN_VERSION = 2                  # bump when the node groups change, so old files get new groups
VOXEL_GROUP = "Nonogram Voxels"
LABEL_GROUP = "Nonogram Clues"
VOXEL_MATERIAL = "Nonogram Voxel"
CLUE_MATERIALS = {"plain": "Nonogram Clue", "circle": "Nonogram Clue Circle",
                  "square": "Nonogram Clue Square"}
# Dark ink on light cubes, as in Picross 3D; circles and squares also get their own colour.
CLUE_COLOURS = {"plain": (0.02, 0.02, 0.02, 1.0), "circle": (0.02, 0.12, 0.6, 1.0),
                "square": (0.6, 0.05, 0.02, 1.0)}

EMPTY, FILLED, UNKNOWN = 1, 2, 3

# Rough peak memory per grid cell across voxelizing (grids per axis, anti-aliasing samples),
# the puzzle model (three int64 line arrays) and the point mesh with its attributes.
BYTES_PER_CELL = 160
# The puzzle file format refuses more cells than this; building a scene of them is pointless.
MAX_CELLS = 1 << 24


class NonogramError(Exception):
    """Bad input for a nonogram; the message is meant for the user."""


# ---------------------------------------------------------------------------------------------
# the source mesh


def source_triangles(context: bpy.types.Context, obj: Optional[bpy.types.Object]) -> tuple:
    """World-space vertices (n, 3) float64 and triangles (m, 3) int32 of the evaluated mesh."""
    if obj is None:
        raise NonogramError("No active object: select a mesh object first")
    if obj.type != 'MESH':
        raise NonogramError(f"'{obj.name}' is a {obj.type.lower()} object, not a mesh")
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
    if resolution < 1:
        raise NonogramError(f"Resolution must be at least 1, got {resolution}")
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


# ---------------------------------------------------------------------------------------------
# node groups and materials (shared by every nonogram in the file)


def _tagged(coll, name):
    """Our current-version ``name`` in ``coll``: found by tag, so a user's datablock that happens
    to have the same name is never reused or removed."""
    for item in coll:
        if item.get(TAG) == GN_VERSION and item.get(TAG + "_role") == name:
            return item
    return None


def _tag(item, name):
    item[TAG] = GN_VERSION
    item[TAG + "_role"] = name


def _new(tree, bl_idname: str) -> Any:
    # Any: the stubs type every node as the base Node, without its own properties.
    return tree.nodes.new(bl_idname)


def _bsdf(tree) -> Any:
    return next(n for n in tree.nodes if n.bl_idname == "ShaderNodeBsdfPrincipled")


def _sock(sockets, name):
    """The available socket called ``name`` (some nodes keep one hidden socket per data type)."""
    for s in sockets:
        if s.name == name and s.enabled:
            return s
    raise KeyError(name)


def _voxel_material():
    mat = _tagged(bpy.data.materials, VOXEL_MATERIAL)
    if mat is not None:
        return mat
    mat = bpy.data.materials.new(VOXEL_MATERIAL)
    _tag(mat, VOXEL_MATERIAL)
    _use_nodes(mat)
    mat.diffuse_color = (0.55, 0.6, 0.7, 1.0)
    nt = mat.node_tree
    bsdf = _bsdf(nt)
    # Point attributes reach the instanced cubes only through the instancer.
    state = _new(nt, "ShaderNodeAttribute")
    state.attribute_type = 'INSTANCER'
    state.attribute_name = "shown_state"
    scale = _new(nt, "ShaderNodeMath")
    scale.operation = 'DIVIDE'
    scale.inputs[1].default_value = 4.0
    nt.links.new(state.outputs["Fac"], scale.inputs[0])
    ramp = _new(nt, "ShaderNodeValToRGB")
    ramp.color_ramp.interpolation = 'CONSTANT'
    els = ramp.color_ramp.elements
    # state/4: contradiction 0, empty .25, filled .5, unknown .75
    els[0].position, els[0].color = 0.0, (1.0, 0.0, 1.0, 1.0)
    els[1].position, els[1].color = 0.2, (0.8, 0.35, 0.3, 1.0)
    e = els.new(0.45)
    e.color = (0.2, 0.45, 0.9, 1.0)
    e = els.new(0.7)
    e.color = (0.75, 0.75, 0.72, 1.0)
    nt.links.new(scale.outputs[0], ramp.inputs["Fac"])
    hl = _new(nt, "ShaderNodeAttribute")
    hl.attribute_type = 'INSTANCER'
    hl.attribute_name = "highlight"
    mix = _new(nt, "ShaderNodeMix")
    mix.data_type = 'RGBA'
    nt.links.new(hl.outputs["Fac"], _sock(mix.inputs, "Factor"))
    nt.links.new(ramp.outputs["Color"], _sock(mix.inputs, "A"))
    _sock(mix.inputs, "B").default_value = (1.0, 0.45, 0.0, 1.0)
    nt.links.new(_sock(mix.outputs, "Result"), bsdf.inputs["Base Color"])
    return mat


def _use_nodes(mat):
    # Blender 5.0 deprecates use_nodes (materials always have a node tree there); 4.x needs it.
    if mat.node_tree is None:
        mat.use_nodes = True


def _clue_material(kind):
    name = CLUE_MATERIALS[kind]
    mat = _tagged(bpy.data.materials, name)
    if mat is not None:
        return mat
    mat = bpy.data.materials.new(name)
    _tag(mat, name)
    mat.diffuse_color = CLUE_COLOURS[kind]
    _use_nodes(mat)
    nt = mat.node_tree
    bsdf = _bsdf(nt)
    bsdf.inputs["Base Color"].default_value = CLUE_COLOURS[kind]
    bsdf.inputs["Roughness"].default_value = 1.0
    return mat


def _new_group(name):
    ng = bpy.data.node_groups.new(name, "GeometryNodeTree")  # type: ignore[arg-type]  # stub lists only 'DUMMY' 
    _tag(ng, name)
    ng.interface.new_socket("Geometry", in_out='INPUT', socket_type='NodeSocketGeometry')
    ng.interface.new_socket("Geometry", in_out='OUTPUT', socket_type='NodeSocketGeometry')
    gin = _new(ng, "NodeGroupInput")
    gout = _new(ng, "NodeGroupOutput")
    return ng, gin, gout


def _named(ng, name, data_type):
    n = _new(ng, "GeometryNodeInputNamedAttribute")
    n.data_type = data_type
    n.inputs["Name"].default_value = name
    return _sock(n.outputs, "Attribute")


def _compare(ng, data_type, op, a, b):
    n = _new(ng, "FunctionNodeCompare")
    n.data_type = data_type
    n.operation = op
    for sock, v in ((_sock(n.inputs, "A"), a), (_sock(n.inputs, "B"), b)):
        if isinstance(v, bpy.types.NodeSocket):
            ng.links.new(v, sock)
        else:
            sock.default_value = v
    return n.outputs[0]


def _boolean(ng, op, a, b):
    n = _new(ng, "FunctionNodeBooleanMath")
    n.operation = op
    ng.links.new(a, n.inputs[0])
    ng.links.new(b, n.inputs[1])
    return n.outputs[0]


def voxel_group():
    """Cube on every point that is visible and not empty; cells still pending in a solve
    animation (scene frame < ``known_at``) are drawn as unknown."""
    ng = _tagged(bpy.data.node_groups, VOXEL_GROUP)
    if ng is not None:
        return ng
    ng, gin, gout = _new_group(VOXEL_GROUP)
    size = ng.interface.new_socket("Cube Size", in_out='INPUT', socket_type='NodeSocketFloat')
    size.default_value, size.min_value, size.max_value = 0.92, 0.05, 1.0
    links = ng.links

    # The frame comes in through an input that only a solve animation drives: a Scene Time node
    # would re-evaluate every nonogram on every frame change, animated or not.
    frame_in = ng.interface.new_socket("Frame", in_out='INPUT', socket_type='NodeSocketFloat')
    frame_in.default_value = 0.0
    frame = gin.outputs["Frame"]
    known_at = _named(ng, "known_at", 'INT')
    pending = _compare(ng, 'FLOAT', 'LESS_THAN', frame, known_at)
    sw = _new(ng, "GeometryNodeSwitch")
    sw.input_type = 'INT'
    links.new(pending, sw.inputs["Switch"])
    links.new(_named(ng, "state", 'INT'), sw.inputs["False"])
    sw.inputs["True"].default_value = UNKNOWN
    shown = sw.outputs[0]
    shown_not_empty = _compare(ng, 'INT', 'NOT_EQUAL', shown, EMPTY)
    wanted = _boolean(ng, 'OR', pending, _named(ng, "visible", 'BOOLEAN'))
    selection = _boolean(ng, 'AND', wanted, shown_not_empty)

    store = _new(ng, "GeometryNodeStoreNamedAttribute")
    store.data_type = 'INT'
    store.domain = 'POINT'
    store.inputs["Name"].default_value = "shown_state"
    links.new(gin.outputs["Geometry"], store.inputs["Geometry"])
    links.new(shown, _sock(store.inputs, "Value"))

    cube = _new(ng, "GeometryNodeMeshCube")
    links.new(gin.outputs["Cube Size"], cube.inputs["Size"])
    setmat = _new(ng, "GeometryNodeSetMaterial")
    setmat.inputs["Material"].default_value = _voxel_material()
    links.new(cube.outputs["Mesh"], setmat.inputs["Geometry"])

    inst = _new(ng, "GeometryNodeInstanceOnPoints")
    links.new(store.outputs["Geometry"], inst.inputs["Points"])
    links.new(selection, inst.inputs["Selection"])
    links.new(setmat.outputs["Geometry"], inst.inputs["Instance"])
    links.new(inst.outputs["Instances"], gout.inputs["Geometry"])
    return ng


def label_group():
    """The glyph of each clue point (picked by its ``glyph`` attribute) plus a circle/square
    outline for 2-block/3+-block clues, all rotated like the active camera (so they face it)."""
    ng = _tagged(bpy.data.node_groups, LABEL_GROUP)
    if ng is not None:
        return ng
    ng, gin, gout = _new_group(LABEL_GROUP)
    ng.interface.new_socket("Glyphs", in_out='INPUT', socket_type='NodeSocketCollection')
    ng.interface.new_socket("Outlines", in_out='INPUT', socket_type='NodeSocketCollection')
    ng.interface.new_socket("Show Zero Clues", in_out='INPUT', socket_type='NodeSocketBool')
    scale = ng.interface.new_socket("Label Size", in_out='INPUT', socket_type='NodeSocketFloat')
    scale.default_value, scale.min_value, scale.max_value = 1.0, 0.05, 10.0
    links = ng.links

    total = _named(ng, "clue_total", 'INT')
    kind = _named(ng, "clue_kind", 'INT')
    nonzero = _compare(ng, 'INT', 'GREATER_THAN', total, 0)
    shown = _boolean(ng, 'OR', nonzero, gin.outputs["Show Zero Clues"])

    cam = _new(ng, "GeometryNodeInputActiveCamera")
    info = _new(ng, "GeometryNodeObjectInfo")
    info.transform_space = 'RELATIVE'  # camera rotation in the clue object's own space
    links.new(cam.outputs[0], info.inputs["Object"])
    rotation = info.outputs["Rotation"]

    def collection_info(socket_name):
        n = _new(ng, "GeometryNodeCollectionInfo")
        links.new(gin.outputs[socket_name], n.inputs["Collection"])
        n.inputs["Separate Children"].default_value = True
        n.inputs["Reset Children"].default_value = True
        return n.outputs[0]

    def instance(selection, instances, index):
        n = _new(ng, "GeometryNodeInstanceOnPoints")
        links.new(gin.outputs["Geometry"], n.inputs["Points"])
        links.new(selection, n.inputs["Selection"])
        links.new(instances, n.inputs["Instance"])
        n.inputs["Pick Instance"].default_value = True
        links.new(index, n.inputs["Instance Index"])
        links.new(rotation, n.inputs["Rotation"])
        links.new(gin.outputs["Label Size"], n.inputs["Scale"])
        return n.outputs[0]

    glyphs = instance(shown, collection_info("Glyphs"), _named(ng, "glyph", 'INT'))
    # Outline children are named so that circle comes first: index = kind - KIND_CIRCLE.
    outlined = _boolean(ng, 'AND', shown, _compare(ng, 'INT', 'GREATER_EQUAL', kind, 3))
    sub = _new(ng, "ShaderNodeMath")
    sub.operation = 'SUBTRACT'
    links.new(kind, sub.inputs[0])
    sub.inputs[1].default_value = 3.0
    outlines = instance(outlined, collection_info("Outlines"), sub.outputs[0])

    join = _new(ng, "GeometryNodeJoinGeometry")
    links.new(glyphs, join.inputs[0])
    links.new(outlines, join.inputs[0])
    links.new(join.outputs[0], gout.inputs["Geometry"])
    return ng


def _input_id(ng, name):
    for item in ng.interface.items_tree:
        if getattr(item, "in_out", None) == 'INPUT' and item.name == name:
            return item.identifier
    raise KeyError(name)


def set_modifier_input(mod, name, value):
    mod[_input_id(mod.node_group, name)] = value
    # ID-property writes do not tag the object for re-evaluation by themselves.
    mod.id_data.update_tag()


def get_modifier_input(mod, name):
    return mod[_input_id(mod.node_group, name)]


# ---------------------------------------------------------------------------------------------
# building


KIND_CODES = {2: "plain", 3: "circle", 4: "square"}


def clue_points(puzzle) -> dict:
    """One entry per clued line: local position (voxel units), total, kind code, line index.

    An x-line's label sits in front of the +X face, a y-line's in front of -Y, a z-line's above
    +Z: the three faces Blender's default camera looks at.
    """
    X, Y, Z = puzzle.shape
    kinds = puzzle.clue_kind.astype(np.int64)
    starts = puzzle.clue_start[:-1]
    data = puzzle.clue_data
    totals = np.zeros(len(kinds), dtype=np.int64)
    has = kinds != 0
    if data.size:
        totals[has] = data[starts[has]]
    off = 0.6
    yy, zz = np.meshgrid(np.arange(Y), np.arange(Z), indexing="ij")
    px = np.stack([np.full(Y * Z, X + off), yy.ravel() + 0.5, zz.ravel() + 0.5], axis=1)
    xx, zz = np.meshgrid(np.arange(X), np.arange(Z), indexing="ij")
    py = np.stack([xx.ravel() + 0.5, np.full(X * Z, -off), zz.ravel() + 0.5], axis=1)
    xx, yy = np.meshgrid(np.arange(X), np.arange(Y), indexing="ij")
    pz = np.stack([xx.ravel() + 0.5, yy.ravel() + 0.5, np.full(X * Y, Z + off)], axis=1)
    pos = np.concatenate([px, py, pz]).astype(np.float32)
    lines = np.flatnonzero(has)
    return {"position": pos[lines], "total": totals[lines], "kind": kinds[lines], "line": lines}


def _points_mesh(name: str, positions) -> bpy.types.Mesh:
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


def _glyph_library(name, pts, created):
    """Collections of FONT objects (one per distinct clue) and of the two outlines."""
    keys = pts["kind"] * (1 << 32) + pts["total"]
    distinct, index = np.unique(keys, return_inverse=True)
    glyphs = bpy.data.collections.new(f"{name} Glyphs")
    created.append(glyphs)
    for i, key in enumerate(distinct.tolist()):
        kind, total = KIND_CODES[key >> 32], key & 0xFFFFFFFF
        suffix = {"plain": "", "circle": "o", "square": "s"}[kind]
        # Collection Info's Separate Children orders children by name: the zero-padded index
        # in front makes that order the glyph index.
        label = f"{name} glyph {i:05d} {total}{suffix}"
        curve = cast(bpy.types.TextCurve, bpy.data.curves.new(label, 'FONT'))
        created.append(curve)
        curve.body = str(total)
        curve.align_x = 'CENTER'
        curve.align_y = 'CENTER'
        curve.size = 0.55
        curve.materials.append(_clue_material(kind))
        ob = bpy.data.objects.new(label, curve)
        created.append(ob)
        ob.visible_shadow = False  # floating labels would print dark marks on the cubes
        glyphs.objects.link(ob)
    outlines = bpy.data.collections.new(f"{name} Outlines")
    created.append(outlines)
    for i, kind in enumerate(("circle", "square")):
        mesh = _outline_mesh(f"{name} outline {i} {kind}", kind)
        created.append(mesh)
        mesh.materials.append(_clue_material(kind))
        ob = bpy.data.objects.new(mesh.name, mesh)
        created.append(ob)
        ob.visible_shadow = False
        outlines.objects.link(ob)
    return glyphs, outlines, index.astype(np.int32)


def _outline_mesh(name, kind, r_out=0.46, width=0.06):
    """A flat ring (circle) or frame (square) in the XY plane, like the glyph text."""
    n = 40 if kind == "circle" else 4
    a = np.arange(n) * 2 * np.pi / n + (0 if kind == "circle" else np.pi / 4)
    r_out = r_out if kind == "circle" else r_out * np.sqrt(2)
    r_in = r_out - (width if kind == "circle" else width * np.sqrt(2))
    ring = np.concatenate([np.stack([np.cos(a), np.sin(a)], 1) * r_out,
                           np.stack([np.cos(a), np.sin(a)], 1) * r_in])
    verts = [(float(x), float(y), 0.0) for x, y in ring]
    faces = [(i, (i + 1) % n, n + (i + 1) % n, n + i) for i in range(n)]
    mesh = bpy.data.meshes.new(name)
    mesh.from_pydata(verts, [], faces)
    mesh.update()
    return mesh


def _remove_ids(ids):
    """Undo a half-built nonogram (newest first, so users go before what they use)."""
    for idb in reversed(ids):
        try:
            if isinstance(idb, bpy.types.Object):
                bpy.data.objects.remove(idb)
            elif isinstance(idb, bpy.types.Mesh):
                bpy.data.meshes.remove(idb)
            elif isinstance(idb, bpy.types.Collection):
                bpy.data.collections.remove(idb)
            else:
                bpy.data.curves.remove(idb)
        except ReferenceError:
            pass


def build_from_puzzle(context: bpy.types.Context, puzzle, *, name: str, origin=(0.0, 0.0, 0.0),
                      voxel_size: float = 1.0) -> bpy.types.Object:
    """Build the nonogram scene for a 3D puzzle; returns the nonogram object (made active)."""
    if not getattr(puzzle, "is_3d", False):
        raise NonogramError(f"'{puzzle.name or name}' is a {len(puzzle.shape)}D puzzle; only 3D "
                            "puzzles can be built in the scene")
    if puzzle.clue_kind.size and int(puzzle.clue_kind.max()) == 1:
        raise NonogramError("block-list clues cannot be shown on a 3D nonogram")
    X, Y, Z = puzzle.shape
    if X * Y * Z > MAX_CELLS:
        raise NonogramError(f"a {X}×{Y}×{Z} puzzle has too many cells (limit {MAX_CELLS:,})")
    created: list = []
    groups_before = set(bpy.data.node_groups)
    materials_before = set(bpy.data.materials)
    try:
        coll = bpy.data.collections.new(f"{name} Nonogram")
        created.append(coll)
        context.scene.collection.children.link(coll)

        # Cells in the puzzle's own order (x-major), so point i is cell i.
        idx = np.indices((X, Y, Z)).reshape(3, -1).T
        mesh = _points_mesh(f"{name} Cells", idx + 0.5)
        created.append(mesh)
        n = X * Y * Z
        sol = puzzle.solution if puzzle.solution is not None else np.zeros(n, dtype=bool)
        set_point_attribute(mesh, "solution", sol, 'BOOLEAN')
        set_point_attribute(mesh, "state", np.full(n, UNKNOWN), 'INT')
        set_point_attribute(mesh, "visible", np.ones(n, dtype=bool), 'BOOLEAN')
        set_point_attribute(mesh, "highlight", np.zeros(n, dtype=bool), 'BOOLEAN')
        set_point_attribute(mesh, "known_at", np.zeros(n), 'INT')
        obj = bpy.data.objects.new(f"{name} Nonogram", mesh)
        created.append(obj)
        coll.objects.link(obj)
        obj.location = tuple(float(v) for v in origin)
        obj.scale = (float(voxel_size),) * 3
        mod = cast(bpy.types.NodesModifier, obj.modifiers.new("Nonogram Voxels", 'NODES'))
        mod.node_group = voxel_group()

        pts = clue_points(puzzle)
        glyphs, outlines, glyph_index = _glyph_library(name, pts, created)
        lmesh = _points_mesh(f"{name} Clue Points", pts["position"])
        created.append(lmesh)
        set_point_attribute(lmesh, "glyph", glyph_index)
        set_point_attribute(lmesh, "clue_total", pts["total"])
        set_point_attribute(lmesh, "clue_kind", pts["kind"])
        set_point_attribute(lmesh, "line", pts["line"])
        labels = bpy.data.objects.new(f"{name} Clues", lmesh)
        created.append(labels)
        coll.objects.link(labels)
        labels.parent = obj
        labels.visible_shadow = False
        lmod = cast(bpy.types.NodesModifier, labels.modifiers.new("Nonogram Clues", 'NODES'))
        lmod.node_group = label_group()
        set_modifier_input(lmod, "Glyphs", glyphs)
        set_modifier_input(lmod, "Outlines", outlines)
        set_modifier_input(lmod, "Show Zero Clues", False)

        pg = props(obj)
        pg.is_nonogram = True
        pg.collection = coll
        pg.labels = labels
        pg.glyphs = glyphs
        pg.outlines = outlines
        props(labels).is_clue_object = True
        store_puzzle(obj, puzzle)
    except Exception:
        _remove_ids(created)
        for ng in set(bpy.data.node_groups) - groups_before:
            bpy.data.node_groups.remove(ng)
        for m in set(bpy.data.materials) - materials_before:
            bpy.data.materials.remove(m)
        raise

    for ob in context.view_layer.objects:
        if ob.select_get():
            ob.select_set(False)
    obj.select_set(True)
    context.view_layer.objects.active = obj
    return obj


def make_nonogram(context, source_obj, *, resolution=12, samples=1, threshold=0.5, robust=True,
                  hide_source=False, progress=None):
    """Voxelize the evaluated mesh of ``source_obj`` in world space and build its nonogram.

    ``progress(fraction) -> bool`` is passed to the voxelizer (True cancels it).

    Returns (nonogram object, VoxelResult). Raises NonogramError, with bpy.data unchanged, on
    input that cannot make a puzzle. Timings land in ``obj.nonogram.make_info`` (JSON).
    """
    t0 = time.perf_counter()
    verts, tris = source_triangles(context, source_obj)
    check_resolution(verts, int(resolution))
    tl = time.perf_counter()
    vox = engine("voxelize")  # first call: imports numba and loads cached kernels
    clues = engine("clues")
    t1 = time.perf_counter()
    try:
        result = vox.voxelize(verts, tris, resolution=int(resolution), samples=int(samples),
                              threshold=float(threshold), robust=bool(robust), fit=True,
                              progress=progress)
    except vox.VoxelizeError as e:
        raise NonogramError(str(e)) from None
    except MemoryError:
        raise NonogramError(f"Resolution {resolution} needs more memory than is available") from None
    t2 = time.perf_counter()
    if not result.grid.any():
        raise NonogramError(f"'{source_obj.name}' gave no filled voxels at resolution {resolution} "
                            "(is it flat, or too thin for the grid?)")
    puzzle = clues.puzzle_from_grid(result.grid, name=source_obj.name)
    t3 = time.perf_counter()
    obj = build_from_puzzle(context, puzzle, name=source_obj.name, origin=result.origin,
                            voxel_size=result.voxel_size)
    t4 = time.perf_counter()
    pg = props(obj)
    pg.source = source_obj
    info = {"resolution": int(resolution), "samples": int(samples), "threshold": float(threshold),
            "robust": bool(robust), "shape": [int(s) for s in result.grid.shape],
            "filled": int(result.grid.sum()), "warnings": list(result.warnings),
            "diagnostics": _jsonable(result.diagnostics),
            "time_s": {"triangles": tl - t0, "engine_import": t1 - tl, "voxelize": t2 - t1, "puzzle": t3 - t2,
                       "build": t4 - t3, "total": t4 - t0}}
    pg.make_info = json.dumps(info)
    if hide_source:
        source_obj.hide_set(True)
        pg.hid_source = True
    return obj, result


def _jsonable(v):
    if isinstance(v, dict):
        return {str(k): _jsonable(x) for k, x in v.items()}
    if isinstance(v, (list, tuple)):
        return [_jsonable(x) for x in v]
    if isinstance(v, np.ndarray):
        return v.tolist() if v.size <= 64 else f"array{v.shape}"
    if isinstance(v, np.generic):
        return v.item()
    if v is None or isinstance(v, (bool, int, float, str)):
        return v
    return str(v)


# ---------------------------------------------------------------------------------------------
# stored data


def cells_mesh(obj: bpy.types.Object) -> bpy.types.Mesh:
    """The nonogram object's point mesh."""
    return cast(bpy.types.Mesh, obj.data)


def settings(context: Any) -> Any:
    """The scene's Make/Solve settings (registered at run time, unknown to stubs)."""
    return context.scene.nonogram_settings


def props(obj: Any) -> Any:
    """The add-on's property group on an object (registered at run time, unknown to stubs)."""
    return obj.nonogram


def nonogram_of(obj):
    """The nonogram object for ``obj`` (itself, or the parent of its clue object), else None."""
    if obj is None:
        return None
    if obj.nonogram.is_nonogram:
        return obj
    if obj.parent is not None and obj.parent.nonogram.is_nonogram:
        return obj.parent
    return None


def store_puzzle(obj, puzzle) -> None:
    pf = engine("puzzlefile")
    pg = props(obj)
    pg.puzzle = json.dumps(pf.puzzle_to_dict(puzzle), separators=(",", ":"))
    if len(puzzle.shape) == 3:
        pg.shape = tuple(int(v) for v in puzzle.shape)


def load_stored_puzzle(obj):
    pf = engine("puzzlefile")
    text = obj.nonogram.puzzle
    if not text:
        raise NonogramError(f"'{obj.name}' holds no puzzle")
    try:
        return pf.puzzle_from_dict(json.loads(text), source=obj.name)
    except (ValueError, pf.PuzzleFileError) as e:
        raise NonogramError(f"the puzzle stored on '{obj.name}' is damaged: {e}") from None


def store_report(obj, report_dict) -> None:
    obj.nonogram.report = json.dumps(_jsonable(report_dict)) if report_dict is not None else ""


def load_stored_report(obj):
    text = obj.nonogram.report
    return json.loads(text) if text else None


# ---------------------------------------------------------------------------------------------
# solver results on the cells


def apply_solve_result(obj: bpy.types.Object, report) -> None:
    """Write a SolveReport's per-cell results into the point attributes."""
    mesh = cells_mesh(obj)
    n = len(mesh.vertices)
    state = np.asarray(report.state, dtype=np.int32).ravel()
    if state.size != n:
        raise NonogramError(f"the solver returned {state.size} cells for a {n}-cell nonogram")
    rank = np.full(n, -1, dtype=np.int32)
    order = np.asarray(report.order, dtype=np.int64).ravel()
    rank[order] = np.arange(order.size, dtype=np.int32)
    differs = np.zeros(n, dtype=bool)
    diff = np.asarray(report.differing_cells, dtype=np.int64).ravel()
    differs[diff] = True
    set_point_attribute(mesh, "state", state)
    set_point_attribute(mesh, "solve_rank", rank)
    set_point_attribute(mesh, "differs", differs, 'BOOLEAN')
    set_point_attribute(mesh, "visible", state != EMPTY, 'BOOLEAN')
    set_point_attribute(mesh, "highlight", np.zeros(n, dtype=bool), 'BOOLEAN')
    set_point_attribute(mesh, "known_at", np.zeros(n), 'INT')
    _drive_frame(obj, False)
    obj.update_tag()


def show_cells(obj: bpy.types.Object, mode: str) -> int:
    """'UNDECIDED': only the cells logic left unknown or where two solutions differ, highlighted;
    'RESULT': every cell that is not known empty. Returns the number of cells shown."""
    mesh = cells_mesh(obj)
    state = get_point_attribute(mesh, "state")
    differs = get_point_attribute(mesh, "differs")
    if differs is None:
        differs = np.zeros_like(state, dtype=bool)
    if mode == 'UNDECIDED':
        mark = (state == UNKNOWN) | differs
        visible = mark
    else:
        mark = np.zeros_like(differs)
        visible = state != EMPTY
    set_point_attribute(mesh, "visible", visible, 'BOOLEAN')
    set_point_attribute(mesh, "highlight", mark, 'BOOLEAN')
    obj.update_tag()
    return int(visible.sum())


def animate_solve(scene: bpy.types.Scene, obj: bpy.types.Object, *, start: int = 1,
                  duration: int = 120) -> int:
    """Per-cell ``known_at`` frames in solver order (frame-driven in Geometry Nodes); returns the
    number of animated cells. Cells the solver never decided keep ``known_at`` 0."""
    mesh = cells_mesh(obj)
    rank = get_point_attribute(mesh, "solve_rank")
    if rank is None:
        raise NonogramError("solve the nonogram first: there is no solver order to animate")
    known = rank >= 0
    n_known = int(known.sum())
    known_at = np.zeros(rank.size, dtype=np.int64)
    if n_known:
        steps = max(int(duration), 1)
        known_at[known] = start + 1 + (rank[known].astype(np.int64) * steps) // max(n_known, 1)
    set_point_attribute(mesh, "known_at", known_at)
    # Cells known before the animation ends must be visible while they are pending.
    state = get_point_attribute(mesh, "state")
    set_point_attribute(mesh, "visible", state != EMPTY, 'BOOLEAN')
    set_point_attribute(mesh, "highlight", np.zeros(rank.size, dtype=bool), 'BOOLEAN')
    _drive_frame(obj, True)
    scene.frame_start = start
    scene.frame_end = start + int(duration) + 1
    scene.frame_set(start)
    obj.update_tag()
    return n_known


def _voxel_modifier(obj):
    for mod in obj.modifiers:
        group = getattr(mod, "node_group", None)
        if group is not None and group.get(TAG + "_role") == VOXEL_GROUP:
            return mod
    raise NonogramError(f"'{obj.name}' has lost its '{VOXEL_GROUP}' modifier")


def _drive_frame(obj: bpy.types.Object, on: bool) -> None:
    """Drive (or stop driving) the voxel modifier's Frame input with the scene frame. A plain
    ``frame`` expression is a simple expression: it runs even with Python scripts disabled."""
    mod = _voxel_modifier(obj)
    path = f'modifiers["{mod.name}"]["{_input_id(mod.node_group, "Frame")}"]'
    obj.driver_remove(path)
    if on:
        fc = obj.driver_add(path)
        fc.driver.type = 'SCRIPTED'
        fc.driver.expression = "frame"
    else:
        set_modifier_input(mod, "Frame", 0.0)


def clear_animation(obj: bpy.types.Object) -> None:
    set_point_attribute(cells_mesh(obj), "known_at", np.zeros(len(cells_mesh(obj).vertices)), 'INT')
    _drive_frame(obj, False)
    obj.update_tag()


# ---------------------------------------------------------------------------------------------
# clearing


def clear_nonogram(nonogram_obj: bpy.types.Object) -> None:
    """Remove a generated nonogram and everything it created: its objects and their data, its
    collection (when nothing else was put in it), the glyph library, and the shared node groups
    and materials once no other nonogram uses them. Unhides the source if Make hid it."""
    obj = nonogram_of(nonogram_obj)
    if obj is None:
        raise NonogramError(f"'{nonogram_obj.name if nonogram_obj else None}' is not a nonogram")
    pg = obj.nonogram
    if pg.hid_source and pg.source is not None:
        try:
            pg.source.hide_set(False)
        except RuntimeError:  # source not in the current view layer
            pass
    coll, glyphs, outlines = pg.collection, pg.glyphs, pg.outlines
    objects = [obj] + [c for c in obj.children if c.nonogram.is_clue_object]
    if pg.labels is not None and pg.labels not in objects:
        objects.append(pg.labels)
    for lib in (glyphs, outlines):
        if lib is not None:
            objects.extend(lib.objects)
    datas = [o.data for o in objects if o.data is not None]
    for o in objects:
        bpy.data.objects.remove(o, do_unlink=True)
    for d in datas:
        if d.users == 0:
            if isinstance(d, bpy.types.Mesh):
                bpy.data.meshes.remove(d)
            else:
                bpy.data.curves.remove(d)
    for c in (glyphs, outlines):
        if c is not None:
            bpy.data.collections.remove(c)
    if coll is not None and not coll.objects and not coll.children:
        bpy.data.collections.remove(coll)
    # Groups first: they hold the voxel material.
    for ng in list(bpy.data.node_groups):
        if ng.get(TAG) is not None and ng.users == 0:
            bpy.data.node_groups.remove(ng)
    for m in list(bpy.data.materials):
        if m.get(TAG) is not None and m.users == 0:
            bpy.data.materials.remove(m)
