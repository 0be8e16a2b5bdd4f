"""The engine's mesh loader and Blender's importers agree on where a model stands: an OBJ and a
GLB imported by Blender (its default axes) have the vertices ``blender_axes(load_mesh(...))``
gives, so a puzzle made from the CLI stands as Make's does in Blender."""
import json

import numpy as np
import pytest

from blender_support import addon, addon_module, bpy  # noqa: F401

pytestmark = pytest.mark.blender

# a small asymmetric tetrahedron, so that every axis and sign shows
VERTS = np.array([[0.0, 0.0, 0.0], [1.0, 0.0, 0.0], [0.0, 0.5, 2.0], [0.25, 3.0, 0.0]])
TRIS = np.array([[0, 1, 2], [0, 3, 1], [0, 2, 3], [1, 3, 2]])


def _write_obj(path):
    path.write_text("".join(f"v {a} {b} {c}\n" for a, b, c in VERTS)
                    + "".join(f"f {a + 1} {b + 1} {c + 1}\n" for a, b, c in TRIS))


def _write_glb(path):
    import struct
    pos = VERTS.astype(np.float32)
    idx = TRIS.astype(np.uint16).ravel()
    binary = pos.tobytes() + idx.tobytes()
    binary += b"\0" * (-len(binary) % 4)
    doc = {"asset": {"version": "2.0"}, "scene": 0, "scenes": [{"nodes": [0]}], "nodes": [{"mesh": 0}],
           "meshes": [{"primitives": [{"attributes": {"POSITION": 0}, "indices": 1}]}],
           "accessors": [{"bufferView": 0, "componentType": 5126, "count": 4, "type": "VEC3",
                          "min": pos.min(0).tolist(), "max": pos.max(0).tolist()},
                         {"bufferView": 1, "componentType": 5123, "count": 12, "type": "SCALAR"}],
           "bufferViews": [{"buffer": 0, "byteOffset": 0, "byteLength": 48},
                           {"buffer": 0, "byteOffset": 48, "byteLength": 24}],
           "buffers": [{"byteLength": len(binary)}]}
    js = json.dumps(doc).encode()
    js += b" " * (-len(js) % 4)
    chunks = struct.pack("<II", len(js), 0x4E4F534A) + js + struct.pack("<II", len(binary), 0x004E4942) + binary
    path.write_bytes(b"glTF" + struct.pack("<II", 2, 12 + len(chunks)) + chunks)


def _world_vertices(obj) -> np.ndarray:
    co = np.empty(len(obj.data.vertices) * 3, np.float64)
    obj.data.vertices.foreach_get("co", co)
    m = np.array(obj.matrix_world)
    return co.reshape(-1, 3) @ m[:3, :3].T + m[:3, 3]


def _sorted(v) -> np.ndarray:
    v = np.round(np.asarray(v, np.float64), 5) + 0.0
    return v[np.lexsort(v.T[::-1])]


@pytest.mark.parametrize("suffix", [".obj", ".glb"])
def test_blender_imports_a_y_up_file_where_the_engine_puts_it(tmp_path, suffix):
    meshio = addon_module("engine.voxel.meshio")
    path = tmp_path / f"tetra{suffix}"
    (_write_obj if suffix == ".obj" else _write_glb)(path)
    before = set(bpy.data.objects)
    if suffix == ".obj":
        bpy.ops.wm.obj_import(filepath=str(path))
    else:
        bpy.ops.import_scene.gltf(filepath=str(path))
    new = [o for o in bpy.data.objects if o not in before and o.type == 'MESH']
    assert len(new) == 1
    theirs = _world_vertices(new[0])
    v, _ = meshio.load_mesh(path)
    ours = meshio.blender_axes(v, path)
    assert np.allclose(_sorted(theirs), _sorted(ours), atol=1e-5)
    assert not np.allclose(_sorted(theirs), _sorted(v), atol=1e-5)  # turned: the file's axes differ
