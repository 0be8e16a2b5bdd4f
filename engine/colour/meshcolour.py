"""A mesh file's colours, as the arrays ``colour.capture_colours`` takes.

``load_mesh_colours(path) -> MeshColours``:

* GLB: per primitive its material's ``baseColorFactor`` (linear) and ``baseColorTexture``
  (embedded PNG decoded by ``pngread``; JPEG through Pillow when it is installed, else the
  factor alone, said in ``notes``), sampled through ``TEXCOORD_0``; ``COLOR_0`` (times the
  factor) when the material has no texture.  A primitive without a material is white (glTF's
  default material).  Texture transforms and non-repeat wrap modes are not applied (noted).
* OBJ (``v x y z r g b``) and PLY (``red green blue``) vertex colours, read as sRGB.
* Anything else: one grey material.

Images come out linear, row 0 at v = 0 (glTF's v runs down the image: v is flipped to match).
"""
from dataclasses import dataclass, field

import numpy as np

from ..voxel import meshio
from .capture import DEFAULT_COLOUR, Source
from .colourspace import srgb_to_linear


@dataclass
class MeshColours:
    vertices: np.ndarray
    triangles: np.ndarray
    tri_material: np.ndarray
    sources: list
    uvs: np.ndarray | None = None
    corner_colours: np.ndarray | None = None
    images: list = field(default_factory=list)
    notes: list = field(default_factory=list)

    def capture_args(self) -> dict:
        return dict(tri_material=self.tri_material, sources=self.sources, uvs=self.uvs,
                    corner_colours=self.corner_colours, images=self.images)


def load_mesh_colours(path) -> MeshColours:
    verts, tris, extra = meshio.load_mesh(path, _want_extra=True)
    m = len(tris)
    if "gltf" in extra:
        try:
            return _gltf_colours(verts, tris, *extra["gltf"])
        except (KeyError, IndexError, TypeError, ValueError) as exc:
            raise meshio.MeshFileError(f"{path}: malformed material data ({type(exc).__name__}: "
                                       f"{exc})") from None
    if "vertex_srgb" in extra:
        c = srgb_to_linear(np.clip(extra["vertex_srgb"], 0.0, 1.0))
        return MeshColours(verts, tris, np.zeros(m, np.int64), [Source((1, 1, 1), corners=True,
                                                                       name="vertex colours")],
                           corner_colours=c[tris])
    return MeshColours(verts, tris, np.zeros(m, np.int64), [Source(DEFAULT_COLOUR, name="default")],
                       notes=["the file has no colours: every voxel is grey"])


def _decode_image(doc, binary, index, notes):
    """Linear float32 (h, w, 3|4), row 0 at the bottom, or None (noted)."""
    from ..files.pngread import PngError, decode_png
    img = doc["images"][index]
    if "bufferView" not in img:
        notes.append(f"image {index}: an external file ({img.get('uri', '?')!r}) is not read; the "
                     f"material's factor used")
        return None
    view = doc["bufferViews"][img["bufferView"]]
    start = view.get("byteOffset", 0)
    data = bytes(binary[start:start + view["byteLength"]])
    mime = img.get("mimeType", "")
    try:
        if data[:8] == b"\x89PNG\r\n\x1a\n":
            px = decode_png(data)
        else:
            try:
                import io

                from PIL import Image  # optional: JPEG and other formats
            except ImportError:
                notes.append(f"image {index} ({mime or 'unknown type'}) needs Pillow to decode; "
                             f"the material's factor used")
                return None
            with Image.open(io.BytesIO(data)) as im:
                px = np.asarray(im.convert("RGBA"))
    except (PngError, OSError, ValueError) as exc:
        notes.append(f"image {index} could not be decoded ({exc}); the material's factor used")
        return None
    lin = srgb_to_linear(px[..., :3].astype(np.float64) / 255.0).astype(np.float32)
    return np.ascontiguousarray(lin[::-1])


def _gltf_colours(verts, tris, doc, binary, prims):
    notes = []
    materials = doc.get("materials", [])
    textures = doc.get("textures", [])
    samplers = doc.get("samplers", [])
    images = []
    image_slot = {}  # glTF image index -> index into images (or None when undecodable)
    sources = []
    source_of = {}  # (material, uses vertex colours) -> source index
    tri_mat, uv_parts, col_parts = [], [], []
    any_uv = any_col = False
    for prim, t in prims:
        mat = prim.get("material")
        attrs = prim.get("attributes", {})
        pbr = materials[mat].get("pbrMetallicRoughness", {}) if mat is not None else {}
        factor = np.asarray(pbr.get("baseColorFactor", [1, 1, 1, 1]), np.float64)[:3]
        tex = pbr.get("baseColorTexture")
        image = -1
        closest = False
        if tex is not None:
            if tex.get("texCoord", 0) != 0:
                notes.append(f"material {mat}: its texture uses TEXCOORD_{tex['texCoord']}; only "
                             f"TEXCOORD_0 is read")
            if "extensions" in tex:
                notes.append(f"material {mat}: texture extensions (e.g. transforms) are not applied")
            tx = textures[tex["index"]]
            src = tx.get("source")
            smp = samplers[tx["sampler"]] if "sampler" in tx else {}
            closest = smp.get("magFilter") == 9728
            if smp.get("wrapS", 10497) != 10497 or smp.get("wrapT", 10497) != 10497:
                notes.append(f"material {mat}: clamp/mirror wrap is sampled as repeat")
            if src is not None:
                if src not in image_slot:
                    img = _decode_image(doc, binary, src, notes)
                    image_slot[src] = None if img is None else len(images)
                    if img is not None:
                        images.append(img)
                if image_slot[src] is not None and "TEXCOORD_0" in attrs:
                    image = image_slot[src]
                elif image_slot[src] is not None:
                    notes.append(f"material {mat}: a texture but no TEXCOORD_0; its factor used")
        use_col = image < 0 and "COLOR_0" in attrs
        key = (mat, use_col, image)
        if key not in source_of:
            name = materials[mat].get("name", f"material {mat}") if mat is not None else "default"
            source_of[key] = len(sources)
            sources.append(Source(tuple(factor), image=image, corners=use_col, name=name,
                                  closest=closest))
        tri_mat.append(np.full(len(t), source_of[key], np.int64))
        if "TEXCOORD_0" in attrs:
            uv = meshio.gltf_accessor(doc, binary, attrs["TEXCOORD_0"]).astype(np.float64)
            uv = np.stack([uv[:, 0], 1.0 - uv[:, 1]], axis=1)
            uv_parts.append(uv[t])
            any_uv = True
        else:
            uv_parts.append(np.full((len(t), 3, 2), np.nan))
        if "COLOR_0" in attrs:
            c = meshio.gltf_accessor(doc, binary, attrs["COLOR_0"]).astype(np.float64)
            col_parts.append(np.pad(c[:, :3], ((0, 0), (0, 3 - min(3, c.shape[1]))))[t])
            any_col = True
        else:
            col_parts.append(np.ones((len(t), 3, 3)))
    m = len(tris)
    if not sources:
        sources = [Source((1, 1, 1), name="default")]
    return MeshColours(
        verts, tris, np.concatenate(tri_mat) if tri_mat else np.zeros(m, np.int64), sources,
        np.concatenate(uv_parts) if any_uv else None,
        np.concatenate(col_parts) if any_col else None, images, notes)


def reveal_colours(mc: MeshColours, grid, origin, voxel_size, k):
    """(palette sRGB (k', 3), per-cell index uint8, Capture) of a voxel grid made from ``mc``."""
    from .capture import capture_colours
    from .palette import check_k, grid_palette
    k = check_k(k)
    cap = capture_colours(grid, origin, voxel_size, mc.vertices, mc.triangles, **mc.capture_args())
    palette, cells = grid_palette(grid, cap.colours, k)
    return palette, cells, cap
