"""engine/voxel/meshio.py: OBJ, PLY, STL and GLB loading on files written here and on the shared models."""
import json
import re
import struct
from pathlib import Path

import numpy as np
import pytest

from conftest import shared_path
from engine.voxel import raycast
from engine.voxel.meshio import MeshFileError, blender_axes, load_mesh, weld_vertices

QUAD_V = np.array([[0, 0, 0], [1, 0, 0], [1, 1, 0], [0, 1, 0], [0, 0, 1]], float)


def test_obj_polygons_index_forms_and_negative_indices(tmp_path):
    p = tmp_path / "m.obj"
    p.write_text(
        "# comment\nmtllib x.mtl\no thing\n"
        "v 0 0 0\nv 1 0 0\nv 1 1 0\nv 0 1 0\nvt 0 0\nvn 0 0 1\n"
        "f 1/1/1 2/1/1 3/1/1 4/1/1\n"  # a quad: fan-triangulated
        "v 0 0 1\n"
        "f -5//1 -4//1 -1//1\n"  # negative = relative to the vertices read so far
        "g group\ns off\nl 1 2\n")
    v, t = load_mesh(p)
    assert np.array_equal(v, QUAD_V)
    assert t.tolist() == [[0, 1, 2], [0, 2, 3], [0, 1, 4]]
    assert v.dtype == np.float64 and t.dtype == np.int64


def _ply_header(fmt, n_v, n_f, extra_vertex_props=True):
    h = ["ply", f"format {fmt} 1.0", "comment made in a test", f"element vertex {n_v}",
         "property float x", "property float y", "property float z"]
    if extra_vertex_props:
        h += ["property float nx", "property uchar red"]
    h += [f"element face {n_f}", "property list uchar int vertex_indices",
          "element extra 1", "property int value", "end_header"]
    return ("\n".join(h) + "\n").encode()


FACES = [[0, 1, 2, 3], [0, 1, 4]]


@pytest.mark.parametrize("fmt", ["ascii", "binary_little_endian", "binary_big_endian"])
def test_ply_formats(tmp_path, fmt):
    body = b""
    if fmt == "ascii":
        body += b"".join(f"{x} {y} {z} 0.5 200\n".encode() for x, y, z in QUAD_V)
        body += b"".join((" ".join(map(str, [len(f)] + f)) + "\n").encode() for f in FACES)
        body += b"7\n"
    else:
        o = "<" if fmt.endswith("little_endian") else ">"
        for x, y, z in QUAD_V:
            body += struct.pack(o + "ffffB", x, y, z, 0.5, 200)
        for f in FACES:
            body += struct.pack(o + "B" + "i" * len(f), len(f), *f)
        body += struct.pack(o + "i", 7)
    p = tmp_path / "m.ply"
    p.write_bytes(_ply_header(fmt, 5, 2) + body)
    v, t = load_mesh(p)
    assert np.array_equal(v, QUAD_V)
    assert t.tolist() == [[0, 1, 2], [0, 2, 3], [0, 1, 4]]


def test_ply_binary_triangles_fast_path(tmp_path):
    rng = np.random.default_rng(1)
    verts = rng.random((50, 3)).astype(np.float32)
    faces = rng.integers(0, 50, (80, 3)).astype(np.int32)
    rec = np.zeros(80, dtype=[("n", "u1"), ("i", "<i4", (3,))])
    rec["n"] = 3
    rec["i"] = faces
    p = tmp_path / "t.ply"
    p.write_bytes(_ply_header("binary_little_endian", 50, 80, False).replace(b"element extra 1\nproperty int value\n", b"")
                  + verts.tobytes() + rec.tobytes())
    v, t = load_mesh(p)
    assert np.array_equal(v, verts.astype(np.float64)) and np.array_equal(t, faces)


def _glb(doc, binary):
    js = json.dumps(doc).encode()
    js += b" " * (-len(js) % 4)
    binary += b"\0" * (-len(binary) % 4)
    chunks = struct.pack("<II", len(js), 0x4E4F534A) + js + struct.pack("<II", len(binary), 0x004E4942) + binary
    return b"glTF" + struct.pack("<II", 2, 12 + len(chunks)) + chunks


def test_glb_node_transforms(tmp_path):
    pos = np.array([[0, 0, 0], [1, 0, 0], [0, 1, 0]], np.float32)
    idx = np.array([0, 1, 2], np.uint16)
    binary = pos.tobytes() + idx.tobytes()
    s = np.sin(np.pi / 4)  # 90 degrees about z: (x, y) -> (-y, x)
    doc = {
        "asset": {"version": "2.0"}, "scene": 0,
        "scenes": [{"nodes": [0, 3]}],
        "nodes": [
            {"translation": [10, 0, 0], "children": [1, 2]},
            {"mesh": 0},
            {"rotation": [0, 0, s, s], "scale": [2, 2, 2], "mesh": 0},
            {"matrix": [1, 0, 0, 0, 0, 1, 0, 0, 0, 0, 1, 0, 0, 0, 5, 1], "mesh": 0},
            {"mesh": 0},  # not in the scene
        ],
        "meshes": [{"primitives": [{"attributes": {"POSITION": 0}, "indices": 1}]}],
        "accessors": [
            {"bufferView": 0, "componentType": 5126, "count": 3, "type": "VEC3"},
            {"bufferView": 1, "componentType": 5123, "count": 3, "type": "SCALAR"},
        ],
        "bufferViews": [{"buffer": 0, "byteOffset": 0, "byteLength": 36},
                        {"buffer": 0, "byteOffset": 36, "byteLength": 6}],
        "buffers": [{"byteLength": 44}],
    }
    p = tmp_path / "m.glb"
    p.write_bytes(_glb(doc, binary))
    v, t = load_mesh(p)
    assert len(v) == 9 and len(t) == 3
    tri = {tuple(map(tuple, np.round(v[row], 6))) for row in t}
    assert ((10, 0, 0), (11, 0, 0), (10, 1, 0)) in tri  # parent translation
    assert ((10, 0, 0), (10, 2, 0), (8, 0, 0)) in tri  # rotated, scaled, then translated
    assert ((0, 0, 5), (1, 0, 5), (0, 1, 5)) in tri  # column-major matrix


def test_glb_required_extension_is_refused(tmp_path):
    doc = {"asset": {"version": "2.0"}, "extensionsRequired": ["KHR_draco_mesh_compression"]}
    p = tmp_path / "d.glb"
    p.write_bytes(_glb(doc, b""))
    with pytest.raises(MeshFileError, match="KHR_draco_mesh_compression"):
        load_mesh(p)


@pytest.mark.parametrize("name, content, message", [
    ("m.3ds", b"solid", "unsupported mesh format"),
    ("m.stl", b"solid x\nfacet normal 0 0 1\nouter loop\nvertex 0 0 0\nvertex 1 0 0\nendloop\n",
     "line 6: a facet has 2 vertices"),
    ("m.stl", b"solid x\nfacet normal 0 0 1\nouter loop\nvertex 0 0 zero\n", "line 4: bad vertex"),
    ("m.stl", b"solid x\nfacet normal 0 0 1\nouter loop\nvertex 0 0 0\n", "ends inside a facet"),
    ("m.stl", b"\0" * 80 + struct.pack("<I", 3) + b"\0" * 100, "3 facets needs 234 bytes, this file has 184"),
    ("m.stl", b"abc", "not an STL file"),
    ("m.obj", b"v 0 0 0\nf 1 2 x\n", "line 2: bad face index"),
    ("m.obj", b"v 0 0\n", "line 1: a vertex needs x y z"),
    ("m.obj", b"v 0 0 0\nf 1 2 3\n", "refers to a vertex that does not exist"),
    ("m.obj", b"v 0 0 0\nv 1 0 0\nv 0 1 0\nf 0 1 2\n", "face index 0"),
    ("m.ply", b"nope", "not a PLY file"),
    ("m.ply", b"ply\nformat binary_little_endian 1.0\nelement vertex 10\nproperty float x\n"
              b"property float y\nproperty float z\nend_header\n\0\0", "malformed PLY"),
    ("m.ply", b"ply\nformat ascii 1.0\nelement vertex 1\nproperty wibble x\nend_header\n", "unknown PLY property type"),
    ("m.glb", b"GLTF....", "not a GLB file"),
])
def test_bad_files_name_the_problem(tmp_path, name, content, message):
    p = tmp_path / name
    p.write_bytes(content)
    with pytest.raises(MeshFileError, match=message) as err:
        load_mesh(p)
    assert str(p) in str(err.value)


@pytest.mark.parametrize("binary", [True, False])
def test_stl_ascii_and_binary(tmp_path, binary):
    import procedural
    v, t = procedural.box([0.5, 1.0, 1.5], [0.5, 1.0, 1.5])
    p = tmp_path / "box.stl"
    procedural.write_stl(p, v, t, binary=binary)
    lv, lt = load_mesh(p)
    assert lv.shape == (36, 3) and lt.tolist() == np.arange(36).reshape(12, 3).tolist()
    assert np.allclose(lv[lt], v[t], atol=1e-6)
    wv, wt = load_mesh(p, weld=True)
    assert len(wv) == 8 and np.allclose(wv[wt], v[t], atol=1e-6)
    if binary:
        # Some exporters start the binary header with "solid": the size tells them apart.
        data = bytearray(p.read_bytes())
        data[:5] = b"solid"
        p.write_bytes(bytes(data))
        assert np.array_equal(load_mesh(p)[0], lv)


def test_missing_file(tmp_path):
    with pytest.raises(MeshFileError, match="cannot read"):
        load_mesh(tmp_path / "absent.obj")


def test_weld_by_position():
    v = np.array([[0, 0, 0], [1, 0, 0], [0, 1, 0], [1, 0, 0], [-0.0, 0, 0], [0, 0, 1]], float)
    t = np.array([[0, 1, 2], [4, 3, 5]])
    wt, n = weld_vertices(v, t)
    assert n == 4 and wt[0, 0] == wt[1, 0] and wt[0, 1] == wt[1, 1]
    assert len(set(wt.ravel().tolist())) == 4


def _readme_geometry():
    text = shared_path("models", "README.md").read_text()
    rows = {}
    for m in re.finditer(r"^\| (\w+)\.(\w+) \| [\d,]+ \| ([\d,]+) \| ([\d,]+) \| (yes|no) \|"
                         r" (\d+) \| (\d+) \| (\d+) \| \(([^)]*)\) \| \(([^)]*)\) \|", text, re.M):
        rows[f"{m.group(1)}.{m.group(2)}"] = dict(
            triangles=int(m.group(3).replace(",", "")), welded=int(m.group(4).replace(",", "")),
            boundary=int(m.group(7)), bmin=[float(x) for x in m.group(9).split(",")],
            bmax=[float(x) for x in m.group(10).split(",")])
    assert len(rows) == 7, "could not parse the README's geometry table"
    return rows


@pytest.mark.parametrize("name", ["duck.glb", "horse.ply", "jeep.obj", "stanford_bunny.obj", "teapot.obj",
                                  "torus_knot.obj", "trex.glb"])
def test_shared_models_match_readme_geometry(name):
    facts = _readme_geometry()[name]
    v, t = load_mesh(shared_path("models", name))
    assert len(t) == facts["triangles"]
    # Bounding boxes as printed (3 significant figures): this checks the GLB node transforms.
    for got, want in zip(np.concatenate([v.min(0), v.max(0)]), facts["bmin"] + facts["bmax"]):
        assert abs(got - want) <= 0.006 * max(abs(want), 1e-3) + 1e-4, (name, got, want)
    wv, wt = load_mesh(shared_path("models", name), weld=True)
    assert len(wv) == facts["welded"] and np.array_equal(wv[wt], v[t])
    # The voxelizer's tolerance weld (numba) and the loader's exact sort weld (numpy) agree on
    # these models, and so do the boundary edges counted over either.
    used = np.zeros(len(v), bool)
    used[t.ravel()] = True
    tol = 1e-5 * (v.max(0) - v.min(0)).max()
    ids, n = raycast.weld_near(v, (v + 0.0).view(np.int64), used, tol, 64 * tol)
    assert len(np.unique(ids[t])) == facts["welded"]
    assert np.array_equal(ids[t][:, 0] == ids[t][:, 1], wt[:, 0] == wt[:, 1])
    assert raycast.edge_stats(np.ascontiguousarray(ids[t]), n, np.zeros(len(t), np.int32), 1)[0] == facts["boundary"]


def _tall_tetra():
    """A tetrahedron 3 units tall along +Y (as a Y-up file stands a model), outward winding."""
    v = np.array([[0, 0, 0], [1, 0, 0], [0, 0, 1], [0, 3, 0]], np.float64)
    t = np.array([[0, 1, 2], [0, 3, 1], [0, 2, 3], [1, 3, 2]], np.int64)
    return v, t


def _signed_volume(v, t):
    a, b, c = v[t[:, 0]], v[t[:, 1]], v[t[:, 2]]
    return float(np.einsum("ij,ij->i", a, np.cross(b, c)).sum() / 6)


@pytest.mark.parametrize("suffix, turned", [(".obj", True), (".glb", True), (".ply", False), (".stl", False),
                                            (".OBJ", True), (".glb#1", True)])
def test_blender_axes_stand_y_up_formats_upright(suffix, turned):
    """OBJ and glTF are Y-up, Blender Z-up: their vertices turn (x, y, z) -> (x, -z, y), as
    Blender's importers place them by default; PLY and STL stay. A rotation: the winding (the
    signed volume) is kept."""
    v, t = _tall_tetra()
    out = blender_axes(v, "model" + suffix)
    if not turned:
        assert np.array_equal(out, v)
        return
    assert np.array_equal(out, np.stack([v[:, 0], -v[:, 2], v[:, 1]], axis=1))
    assert np.ptp(out, axis=0).tolist() == [1.0, 1.0, 3.0]  # standing on z
    assert _signed_volume(v, t) > 0 and _signed_volume(out, t) == pytest.approx(_signed_volume(v, t))


def test_the_cli_makes_a_y_up_model_stand_on_z(tmp_path):
    """``python -m engine design`` from an OBJ: the puzzle is as tall along z as the model is
    along the file's y (Make in Blender gives the same)."""
    import subprocess
    import sys
    v, t = _tall_tetra()
    v = np.concatenate([v, v + [2.0, 0.0, 0.0]])  # two, side by side along x
    t = np.concatenate([t, t + 4])
    obj = tmp_path / "tall.obj"
    obj.write_text("".join(f"v {a} {b} {c}\n" for a, b, c in v) + "".join(f"f {a + 1} {b + 1} {c + 1}\n" for a, b, c in t))
    out = tmp_path / "tall.json"
    root = Path(__file__).resolve().parent.parent
    r = subprocess.run([sys.executable, "-m", "engine", "design", str(obj), "-o", str(out), "--resolution", "12"],
                       cwd=root, capture_output=True, text=True, timeout=300)
    assert r.returncode == 0, r.stderr
    from engine.files.puzzlefile import load_puzzle
    x, y, z = load_puzzle(str(out)).shape
    assert z == 12 and z > x > y, (x, y, z)
