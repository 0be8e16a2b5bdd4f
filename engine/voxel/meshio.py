"""Small triangle-mesh loader: OBJ, PLY (ASCII and binary), STL (ASCII and binary) and GLB
(glTF 2.0 binary).

``load_mesh(path, weld=False) -> (vertices float64 (n, 3), triangles int64 (m, 3))``; with
``weld=True`` only the vertices triangles use are kept, one per distinct position.
Polygons are fan-triangulated.  STL repeats every vertex per facet, as the file does (weld to
share them).  For GLB the triangles of every mesh node of the default scene are
placed with the node's world transform.  Used by the CLI, tests and benchmarks; no dependencies
beyond numpy.

Vertices are in the file's own axes. ``blender_axes`` turns them as Blender's importers do by
default (OBJ and glTF are Y-up, Blender is Z-up), so that a model made into a puzzle from the
CLI stands as it does in Blender.
"""
import json
import struct
from pathlib import Path

import numpy as np


class MeshFileError(ValueError):
    """A mesh file that cannot be read; the message names the file and the problem."""


def load_mesh(path, weld=False, _want_extra=False):
    path = Path(path)
    suffix = path.suffix.lower()
    loaders = {".obj": _load_obj, ".ply": _load_ply, ".stl": _load_stl, ".glb": _load_glb}
    if suffix not in loaders:
        raise MeshFileError(f"{path}: unsupported mesh format {suffix!r} "
                            "(use .obj, .ply, .stl or .glb)")
    try:
        data = path.read_bytes()
    except OSError as exc:
        raise MeshFileError(f"{path}: cannot read: {exc.strerror or exc}") from None
    try:
        verts, tris, extra = loaders[suffix](data)
    except MeshFileError as exc:
        raise MeshFileError(f"{path}: {exc}") from None
    except (ValueError, IndexError, KeyError, TypeError, struct.error, UnicodeDecodeError) as exc:
        raise MeshFileError(f"{path}: malformed {suffix[1:].upper()} file ({type(exc).__name__}: {exc})") from None
    verts = np.ascontiguousarray(verts, dtype=np.float64).reshape(-1, 3)
    tris = np.ascontiguousarray(tris, dtype=np.int64).reshape(-1, 3)
    if tris.size and (tris.min() < 0 or tris.max() >= len(verts)):
        raise MeshFileError(f"{path}: a face refers to a vertex that does not exist")
    if _want_extra:
        return verts, tris, extra
    if weld:
        # Only vertices that triangles use, one per distinct position.
        used, inv = np.unique(tris, return_inverse=True)
        verts, tris = verts[used], inv.reshape(-1, 3)
        ids, n = weld_vertices(verts, tris)
        first = np.zeros(n, np.int64)
        first[ids.ravel()] = tris.ravel()
        return verts[first], ids
    return verts, tris


# The formats Blender's importers turn from Y-up to its Z-up by default: glTF (+Y up by its
# specification) and OBJ (Blender's OBJ importer: forward -Z, up Y). PLY and STL are read as
# they are (forward Y, up Z).
Y_UP_SUFFIXES = (".obj", ".glb")


def blender_axes(vertices, path) -> np.ndarray:
    """``vertices`` (n, 3) of the mesh file ``path`` in Blender's axes, as its importers place
    them by default: (x, y, z) -> (x, -z, y) for a Y-up format, unchanged otherwise (a proper
    rotation: triangles keep their winding)."""
    v = np.asarray(vertices, np.float64)
    if Path(str(path).split("#")[0]).suffix.lower() not in Y_UP_SUFFIXES:
        return v
    return np.ascontiguousarray(np.stack([v[:, 0], -v[:, 2], v[:, 1]], axis=1)) + 0.0  # no -0.0


def weld_vertices(vertices, triangles):
    """Triangles re-indexed so vertices at the same position share one index.

    Returns (triangles int64 (m, 3) into the welded set, number of welded vertices); the
    welded vertex ids are numbered in lexicographic order of position.
    """
    v = np.asarray(vertices, np.float64)
    if len(v) == 0:
        return np.asarray(triangles, np.int64).reshape(-1, 3), 0
    v = v + 0.0  # -0.0 and 0.0 are the same position
    order = np.lexsort((v[:, 2], v[:, 1], v[:, 0]))
    sv = v[order]
    new = np.empty(len(v), bool)
    new[0] = True
    new[1:] = (sv[1:] != sv[:-1]).any(axis=1)
    ids = np.empty(len(v), np.int64)
    ids[order] = np.cumsum(new) - 1
    return ids[np.asarray(triangles, np.int64)], int(new.sum())


def _fan(faces_flat, counts):
    """Fan-triangulate polygons given as a flat index array and per-face vertex counts."""
    counts = np.asarray(counts, np.int64)
    if counts.size and counts.min() < 3:
        raise MeshFileError("a face has fewer than 3 vertices")
    starts = np.concatenate(([0], np.cumsum(counts)[:-1]))
    ntri = counts - 2
    first = np.repeat(starts, ntri)
    offs = np.arange(int(ntri.sum())) - np.repeat(np.cumsum(ntri) - ntri, ntri)
    f = np.asarray(faces_flat, np.int64)
    return np.stack([f[first], f[first + offs + 1], f[first + offs + 2]], axis=1)


def _load_obj(data):
    verts = []
    rgb = []  # "v x y z r g b": the common vertex colour extension
    flat = []
    counts = []
    for lineno, raw in enumerate(data.decode("utf-8", errors="replace").splitlines(), 1):
        parts = raw.split()
        if not parts:
            continue
        if parts[0] == "v":
            if len(parts) < 4:
                raise MeshFileError(f"line {lineno}: a vertex needs x y z")
            try:
                verts.append((float(parts[1]), float(parts[2]), float(parts[3])))
            except ValueError:
                raise MeshFileError(f"line {lineno}: bad vertex coordinates") from None
            if len(parts) >= 7:
                try:
                    rgb.append((float(parts[4]), float(parts[5]), float(parts[6])))
                except ValueError:
                    pass
        elif parts[0] == "f":
            if len(parts) < 4:
                raise MeshFileError(f"line {lineno}: a face needs at least 3 vertices")
            for p in parts[1:]:
                try:
                    i = int(p.split("/")[0])
                except ValueError:
                    raise MeshFileError(f"line {lineno}: bad face index {p!r}") from None
                if i == 0:
                    raise MeshFileError(f"line {lineno}: face index 0 (OBJ counts from 1)")
                # Negative indices count back from the vertices read so far.
                flat.append(i - 1 if i > 0 else len(verts) + i)
            counts.append(len(parts) - 1)
    extra = {}
    if rgb and len(rgb) == len(verts):
        extra["vertex_srgb"] = np.asarray(rgb, np.float64)
    if not counts:
        return np.zeros((len(verts), 3)), np.zeros((0, 3), np.int64), extra
    return np.asarray(verts, np.float64).reshape(-1, 3), _fan(flat, counts), extra


_PLY_TYPES = {
    "char": "i1", "int8": "i1", "uchar": "u1", "uint8": "u1", "short": "i2", "int16": "i2",
    "ushort": "u2", "uint16": "u2", "int": "i4", "int32": "i4", "uint": "u4", "uint32": "u4",
    "float": "f4", "float32": "f4", "double": "f8", "float64": "f8",
}


def _load_ply(data):
    end = data.find(b"end_header")
    if not data.startswith(b"ply") or end < 0:
        raise MeshFileError("not a PLY file (missing 'ply' magic or 'end_header')")
    body = data.index(b"\n", end) + 1
    fmt = None
    elements = []  # [name, count, [(prop name, type, list count type or None)]]
    for line in data[:end].decode("ascii", errors="replace").splitlines()[1:]:
        w = line.split()
        if not w or w[0] in ("comment", "obj_info"):
            continue
        if w[0] == "format":
            fmt = w[1]
        elif w[0] == "element":
            elements.append([w[1], int(w[2]), []])
        elif w[0] == "property":
            if not elements:
                raise MeshFileError("property before any element")
            if w[1] == "list":
                elements[-1][2].append((w[4], _ply_type(w[3]), _ply_type(w[2])))
            else:
                elements[-1][2].append((w[2], _ply_type(w[1]), None))
    if fmt not in ("ascii", "binary_little_endian", "binary_big_endian"):
        raise MeshFileError(f"unsupported PLY format {fmt!r}")
    if fmt == "ascii":
        return _ply_ascii(data[body:], elements)
    return _ply_binary(data, body, elements, "<" if fmt == "binary_little_endian" else ">")


def _ply_type(name):
    if name not in _PLY_TYPES:
        raise MeshFileError(f"unknown PLY property type {name!r}")
    return _PLY_TYPES[name]


def _ply_pick(elements, values):
    verts = tris = None
    extra = {}
    for (name, _count, props), cols in zip(elements, values):
        if name == "vertex":
            names = [p[0] for p in props]
            if not all(a in names for a in "xyz"):
                raise MeshFileError("the vertex element has no x, y, z properties")
            verts = np.stack([np.asarray(cols[names.index(a)], np.float64) for a in "xyz"], axis=1)
            if all(a in names for a in ("red", "green", "blue")):
                c = np.stack([np.asarray(cols[names.index(a)], np.float64)
                              for a in ("red", "green", "blue")], axis=1)
                kind = props[names.index("red")][1]
                extra["vertex_srgb"] = c / 255.0 if kind in ("u1", "i1") else c
        elif name == "face":
            lists = [c for p, c in zip(props, cols) if p[2] is not None
                     and p[0] in ("vertex_indices", "vertex_index")]
            if not lists:
                raise MeshFileError("the face element has no vertex_indices list")
            flat, counts = lists[0]
            tris = _fan(flat, counts) if len(counts) else np.zeros((0, 3), np.int64)
    if verts is None:
        raise MeshFileError("no vertex element")
    return verts, (np.zeros((0, 3), np.int64) if tris is None else tris), extra


def _ply_ascii(text, elements):
    tokens = text.split()
    pos = 0
    values: list = []
    for _name, count, props in elements:
        cols: list = [[] if p[2] is None else ([], []) for p in props]
        for _ in range(count):
            for p, col in zip(props, cols):
                if p[2] is None:
                    col.append(float(tokens[pos]))
                    pos += 1
                else:
                    n = int(tokens[pos])
                    col[0].extend(int(float(t)) for t in tokens[pos + 1:pos + 1 + n])
                    col[1].append(n)
                    pos += 1 + n
        values.append(cols)
    if pos > len(tokens):
        raise MeshFileError("the file ends before all elements were read")
    return _ply_pick(elements, values)


def _ply_binary(data, pos, elements, order):
    values: list = []
    for _name, count, props in elements:
        if all(p[2] is None for p in props):
            dt = np.dtype([(f"p{i}", order + p[1]) for i, p in enumerate(props)])
            arr = np.frombuffer(data, dt, count, pos)
            pos += dt.itemsize * count
            values.append([arr[f"p{i}"] for i in range(len(props))])
            continue
        if len(props) == 1 and count:
            # One list property (the usual face element): fast path when every list has the
            # same length, as in a pure triangle mesh.
            ct, it = np.dtype(order + props[0][2]), np.dtype(order + props[0][1])
            n0 = int(np.frombuffer(data, ct, 1, pos)[0])
            dt = np.dtype([("n", ct), ("i", it, (n0,))])
            if pos + dt.itemsize * count <= len(data):
                arr = np.frombuffer(data, dt, count, pos)
                if (arr["n"] == n0).all():
                    pos += dt.itemsize * count
                    values.append([(arr["i"].ravel(), np.full(count, n0))])
                    continue
        cols: list = [[] if p[2] is None else ([], []) for p in props]
        for _ in range(count):
            for p, col in zip(props, cols):
                if p[2] is None:
                    t = np.dtype(order + p[1])
                    col.append(np.frombuffer(data, t, 1, pos)[0])
                    pos += t.itemsize
                else:
                    ct, it = np.dtype(order + p[2]), np.dtype(order + p[1])
                    n = int(np.frombuffer(data, ct, 1, pos)[0])
                    pos += ct.itemsize
                    col[0].extend(np.frombuffer(data, it, n, pos).tolist())
                    col[1].append(n)
                    pos += it.itemsize * n
        values.append(cols)
    return _ply_pick(elements, values)


def _load_stl(data):
    # A binary STL may also begin with "solid" (some exporters write it into the header), so
    # the size decides: 84 bytes + 50 per facet exactly means binary.
    if len(data) >= 84:
        count = struct.unpack_from("<I", data, 80)[0]
        if len(data) == 84 + 50 * count:
            rec = np.dtype([("normal", "<f4", 3), ("v", "<f4", (3, 3)), ("attr", "<u2")])
            facets = np.frombuffer(data, rec, count, 84)
            verts = facets["v"].reshape(-1, 3).astype(np.float64)
            return verts, np.arange(len(verts), dtype=np.int64).reshape(-1, 3), {}
    text = data.decode("ascii", errors="replace")
    if not text.lstrip().startswith("solid"):
        if len(data) >= 84:
            count = struct.unpack_from("<I", data, 80)[0]
            raise MeshFileError(f"a binary STL of {count:,} facets needs {84 + 50 * count:,} bytes, "
                                f"this file has {len(data):,}")
        raise MeshFileError("not an STL file (no 'solid' and too short to be binary)")
    verts = []
    n_facet = 0
    in_loop = 0
    for lineno, raw in enumerate(text.splitlines(), 1):
        w = raw.split()
        if not w:
            continue
        if w[0] == "outer":
            in_loop = 0
        elif w[0] == "vertex":
            if len(w) < 4:
                raise MeshFileError(f"line {lineno}: a vertex needs x y z")
            try:
                verts.append((float(w[1]), float(w[2]), float(w[3])))
            except ValueError:
                raise MeshFileError(f"line {lineno}: bad vertex coordinates") from None
            in_loop += 1
        elif w[0] == "endloop":
            if in_loop != 3:
                raise MeshFileError(f"line {lineno}: a facet has {in_loop} vertices (STL facets "
                                    "are triangles)")
            n_facet += 1
    if len(verts) != 3 * n_facet:
        raise MeshFileError("the file ends inside a facet")
    v = np.asarray(verts, np.float64).reshape(-1, 3)
    return v, np.arange(len(v), dtype=np.int64).reshape(-1, 3), {}


_GLTF_COMPONENTS = {5120: "i1", 5121: "u1", 5122: "i2", 5123: "u2", 5125: "u4", 5126: "f4"}
_GLTF_WIDTH = {"SCALAR": 1, "VEC2": 2, "VEC3": 3, "VEC4": 4, "MAT4": 16}


def _load_glb(data):
    if len(data) < 20 or data[:4] != b"glTF":
        raise MeshFileError("not a GLB file (missing 'glTF' magic)")
    version, _length = struct.unpack_from("<II", data, 4)
    if version != 2:
        raise MeshFileError(f"glTF version {version} is not supported (only 2)")
    pos = 12
    doc = None
    binary = b""
    while pos + 8 <= len(data):
        clen, ctype = struct.unpack_from("<II", data, pos)
        chunk = data[pos + 8:pos + 8 + clen]
        if ctype == 0x4E4F534A:
            doc = json.loads(chunk.decode("utf-8"))
        elif ctype == 0x004E4942:
            binary = chunk
        pos += 8 + clen
    if doc is None:
        raise MeshFileError("no JSON chunk")
    unsupported = set(doc.get("extensionsRequired", [])) - {"KHR_materials_unlit", "KHR_texture_transform"}
    if unsupported:
        raise MeshFileError(f"needs glTF extensions this loader does not support: {sorted(unsupported)}")
    nodes = doc.get("nodes", [])
    scenes = doc.get("scenes", [])
    if scenes:
        roots = scenes[doc.get("scene", 0)].get("nodes", [])
    else:
        children = {c for n in nodes for c in n.get("children", [])}
        roots = [i for i in range(len(nodes)) if i not in children]
    all_v, all_t, prims = [], [], []
    n_v = 0
    stack = [(r, np.eye(4)) for r in roots]
    seen = set()
    while stack:
        idx, parent = stack.pop()
        if idx in seen:
            raise MeshFileError(f"node {idx} appears twice in the scene graph")
        seen.add(idx)
        node = nodes[idx]
        world = parent @ _node_matrix(node)
        if "mesh" in node:
            for v, t, prim in _gltf_mesh(doc, binary, doc["meshes"][node["mesh"]]):
                v = v @ world[:3, :3].T + world[:3, 3]
                all_v.append(v)
                all_t.append(t + n_v)
                prims.append((prim, t))
                n_v += len(v)
        stack.extend((c, world) for c in node.get("children", []))
    extra = {"gltf": (doc, binary, prims)}
    if not all_v:
        return np.zeros((0, 3)), np.zeros((0, 3), np.int64), extra
    return np.concatenate(all_v), np.concatenate(all_t), extra


def _node_matrix(node):
    if "matrix" in node:
        return np.asarray(node["matrix"], np.float64).reshape(4, 4).T  # column-major
    m = np.eye(4)
    s = np.asarray(node.get("scale", [1, 1, 1]), np.float64)
    x, y, z, w = node.get("rotation", [0, 0, 0, 1])
    r = np.array([
        [1 - 2 * (y * y + z * z), 2 * (x * y - z * w), 2 * (x * z + y * w)],
        [2 * (x * y + z * w), 1 - 2 * (x * x + z * z), 2 * (y * z - x * w)],
        [2 * (x * z - y * w), 2 * (y * z + x * w), 1 - 2 * (x * x + y * y)],
    ])
    m[:3, :3] = r * s
    m[:3, 3] = node.get("translation", [0, 0, 0])
    return m


def gltf_accessor(doc, binary, index):
    """The array of glTF accessor ``index`` (its buffer view and sparse values applied)."""
    acc = doc["accessors"][index]
    if "sparse" in acc:
        raise MeshFileError(f"accessor {index}: sparse accessors are not supported")
    width = _GLTF_WIDTH[acc["type"]]
    comp = np.dtype("<" + _GLTF_COMPONENTS[acc["componentType"]])
    count = acc["count"]
    if "bufferView" not in acc:
        return np.zeros((count, width), comp)
    view = doc["bufferViews"][acc["bufferView"]]
    if view.get("buffer", 0) != 0:
        raise MeshFileError("only the GLB's own binary buffer is supported")
    start = view.get("byteOffset", 0) + acc.get("byteOffset", 0)
    stride = view.get("byteStride", 0) or comp.itemsize * width
    if start + stride * (count - 1) + comp.itemsize * width > len(binary):
        raise MeshFileError(f"accessor {index} reaches past the end of the binary chunk")
    raw: np.ndarray = np.ndarray((count, width), comp, binary, start, (stride, comp.itemsize))
    out = np.array(raw)
    if acc.get("normalized") and comp.kind in "iu":
        out = out.astype(np.float64) / np.iinfo(comp).max
    return out


def _gltf_mesh(doc, binary, mesh):
    for prim in mesh.get("primitives", []):
        mode = prim.get("mode", 4)
        if "POSITION" not in prim.get("attributes", {}):
            continue
        v = gltf_accessor(doc, binary, prim["attributes"]["POSITION"]).astype(np.float64)
        if "indices" in prim:
            idx = gltf_accessor(doc, binary, prim["indices"]).ravel().astype(np.int64)
        else:
            idx = np.arange(len(v))
        if mode == 4:
            t = idx[: len(idx) // 3 * 3].reshape(-1, 3)
        elif mode == 5:  # strip: every other triangle flips to keep the winding
            n = max(len(idx) - 2, 0)
            i = np.arange(n)
            even = i % 2 == 0
            t = np.stack([idx[i], np.where(even, idx[i + 1], idx[i + 2]),
                          np.where(even, idx[i + 2], idx[i + 1])], axis=1)
        elif mode == 6:
            n = max(len(idx) - 2, 0)
            t = np.stack([np.full(n, idx[0]) if n else idx[:0], idx[1:n + 1], idx[2:n + 2]], axis=1)
        else:
            continue  # points and lines have no volume
        yield v, t, prim
