"""Colours read from mesh files: GLB materials and textures, OBJ/PLY vertex colours, PNG decoding."""
import io
import zlib

import numpy as np
import pytest

from conftest import shared_path
from engine.colour.capture import capture_colours
from engine.colour.meshcolour import load_mesh_colours
from engine.files.pngread import PngError, decode_png
from engine.voxel.voxelize import voxelize

PIL = pytest.importorskip("PIL.Image")


@pytest.mark.parametrize("mode", ["RGB", "RGBA", "L", "LA", "P", "1"])
def test_png_decoder_matches_pillow(mode):
    rng = np.random.default_rng(len(mode))
    base = PIL.fromarray((rng.random((13, 17, 3)) * 255).astype(np.uint8), "RGB")
    img = base.convert(mode) if mode != "P" else base.quantize(7)
    buf = io.BytesIO()
    img.save(buf, "PNG")
    got = decode_png(buf.getvalue())
    want = np.asarray(img.convert("RGBA" if got.shape[2] == 4 else "RGB"))
    np.testing.assert_array_equal(got, want)


def test_png_decoder_all_filters():
    # rows with filter types 0..4 written by hand (Pillow picks its own filters)
    w, h = 5, 5
    rng = np.random.default_rng(0)
    px = (rng.random((h, w, 3)) * 255).astype(np.uint8)
    raw = bytearray()
    prev = np.zeros(w * 3, np.int64)
    for y in range(h):
        cur = px[y].ravel().astype(np.int64)
        left = np.concatenate([[0, 0, 0], cur[:-3]])
        upleft = np.concatenate([[0, 0, 0], prev[:-3]])
        if y == 0:
            f, row = 0, cur
        elif y == 1:
            f, row = 1, cur - left
        elif y == 2:
            f, row = 2, cur - prev
        elif y == 3:
            f, row = 3, cur - (left + prev) // 2
        else:
            p = left + prev - upleft
            pa, pb, pc = abs(p - left), abs(p - prev), abs(p - upleft)
            pred = np.where((pa <= pb) & (pa <= pc), left, np.where(pb <= pc, prev, upleft))
            f, row = 4, cur - pred
        raw += bytes([f]) + bytes((row & 255).astype(np.uint8))
        prev = cur
    import struct

    def chunk(t, b):
        return struct.pack(">I", len(b)) + t + b + struct.pack(">I", zlib.crc32(t + b))
    data = (b"\x89PNG\r\n\x1a\n" + chunk(b"IHDR", struct.pack(">IIBBBBB", w, h, 8, 2, 0, 0, 0))
            + chunk(b"IDAT", zlib.compress(bytes(raw))) + chunk(b"IEND", b""))
    np.testing.assert_array_equal(decode_png(data), px)
    with pytest.raises(PngError):
        decode_png(data.replace(b"IHDR", b"IHDX"))
    with pytest.raises(PngError):
        decode_png(b"not a png")


def test_duck_texture_and_trex_materials():
    duck = load_mesh_colours(shared_path("models", "duck.glb"))
    assert len(duck.images) == 1 and duck.images[0].shape == (512, 512, 3)
    assert duck.sources[0].image == 0 and duck.uvs is not None and not duck.notes
    trex = load_mesh_colours(shared_path("models", "trex.glb"))
    assert [s.name for s in trex.sources] == ["LightYellow", "LightGreen", "Green", "Black", "Red"]
    assert sorted(set(trex.tri_material.tolist())) == [0, 1, 2, 3, 4]
    r = voxelize(trex.vertices, trex.triangles, resolution=24)
    cap = capture_colours(r.grid, r.origin, r.voxel_size, trex.vertices, trex.triangles,
                          **trex.capture_args())
    # plain materials: every surface voxel is exactly its nearest triangle's material colour
    want = np.array([s.colour for s in trex.sources], np.float32)
    got = cap.colours[cap.surface]
    np.testing.assert_array_equal(got, want[trex.tri_material[cap.triangle[cap.surface]]])
    # the duck is mostly yellow: the commonest captured hue is yellow-orange
    r = voxelize(duck.vertices, duck.triangles, resolution=16)
    cap = capture_colours(r.grid, r.origin, r.voxel_size, duck.vertices, duck.triangles,
                          **duck.capture_args())
    med = np.median(cap.colours[cap.surface], axis=0)
    assert med[0] > 0.5 and med[1] > 0.3 and med[2] < 0.1


def test_obj_and_ply_vertex_colours(tmp_path):
    obj = tmp_path / "t.obj"
    obj.write_text("v 0 0 0 1 0 0\nv 1 0 0 1 0 0\nv 0 1 0 1 0 0\nv 0 0 1 1 0 0\n"
                   "f 1 3 2\nf 1 2 4\nf 2 3 4\nf 3 1 4\n")
    mc = load_mesh_colours(obj)
    assert mc.sources[0].corners and np.allclose(mc.corner_colours, [1, 0, 0])
    ply = tmp_path / "t.ply"
    ply.write_text("ply\nformat ascii 1.0\nelement vertex 3\nproperty float x\nproperty float y\n"
                   "property float z\nproperty uchar red\nproperty uchar green\nproperty uchar blue\n"
                   "element face 1\nproperty list uchar int vertex_indices\nend_header\n"
                   "0 0 0 255 255 255\n1 0 0 255 255 255\n0 1 0 255 255 255\n3 0 1 2\n")
    mc = load_mesh_colours(ply)
    assert np.allclose(mc.corner_colours, 1.0)
    plain = tmp_path / "p.obj"
    plain.write_text("v 0 0 0\nv 1 0 0\nv 0 1 0\nf 1 2 3\n")
    assert load_mesh_colours(plain).notes
