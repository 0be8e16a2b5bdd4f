"""Colour capture: each filled voxel takes the colour of the model's surface nearest to it.

Public API: ``capture_colours(grid, origin, voxel_size, vertices, triangles, ...) -> Capture`` and
``Source`` (one per material); see docs/ENGINE_API.md ("Colour capture").

* Surface voxels (filled, with an empty or outside face neighbour) find the nearest triangle to
  their centre (``nearest.py``: exact closest points, ties to the lowest triangle index).
* The colour at that point comes from the triangle's material (``Source``; ``sampling.py``): an
  image sampled through the per-corner UVs (bilinear, repeat wrap), per-corner colours
  interpolated barycentrically, or the material's constant colour.  An image colour is
  multiplied by the constant (glTF's baseColorFactor; Blender passes 1).  A triangle whose UVs
  are NaN falls back to the constant colour (counted in ``Capture.fallbacks``).
* Interior voxels take the colour of the nearest surface voxel (``fill.py``: an exact Euclidean
  feature transform).  Exact rather than a cheaper chamfer or breadth-first fill: the tests
  promise the exact distance, and the capture's speed is as much the nearest-triangle search's
  (see docs/BENCHMARKS.md, "Colour capture").

Colours are linear RGB.  Images are float arrays (h, w, 3 or 4), row 0 at v = 0 (the bottom row,
Blender's ``Image.pixels`` order), pixel centres at ((i + 0.5) / w, (j + 0.5) / h).
"""
from dataclasses import dataclass, field

import numpy as np

from .fill import fill_from_sites, fill_interior, nearest_feature, scatter_surface, surface_arrays  # noqa: F401
from .fill import surface_mask, surface_slots  # noqa: F401
from .nearest import closest_point_triangle, nearest_for_voxels, nearest_surface  # noqa: F401
from .sampling import KIND_CORNERS, KIND_IMAGE, sample_image, shade_points  # noqa: F401

DEFAULT_COLOUR = (0.8, 0.8, 0.8)  # Blender's default material grey
MAX_SOURCES = 1 << 20
# The interior fill and the surface slots index voxels in int32 (the voxelizer's MAX_VOXELS is 2**31).
MAX_GRID_CELLS = 2**31


class ColourError(ValueError):
    """Bad colour input; the message is meant for the user."""


@dataclass
class Source:
    """Where one material's colour comes from (linear RGB)."""
    colour: tuple = DEFAULT_COLOUR  # constant colour; multiplies the image's colour
    image: int = -1  # index into ``images``, sampled through the UVs; -1: none
    corners: bool = False  # use the per-corner colours
    name: str = ""
    closest: bool = False  # sample the image's nearest pixel (Blender's 'Closest'), not bilinear


@dataclass
class Capture:
    colours: np.ndarray  # float32 (X, Y, Z, 3) linear RGB; 0 where the grid is empty
    surface: np.ndarray  # bool (X, Y, Z)
    triangle: np.ndarray  # int64 (X, Y, Z): nearest triangle of surface voxels, else -1
    fallbacks: list = field(default_factory=list)  # messages: where a source fell back
    time_s: float = 0.0


# ---------------------------------------------------------------------------------------------
# checking and packing the inputs


def _check_sources(sources, n_images, has_uvs, has_corners):
    if sources is None or len(sources) == 0:
        sources = [Source()]
    if len(sources) > MAX_SOURCES:
        raise ColourError(f"{len(sources):,} materials; at most {MAX_SOURCES:,} are supported")
    kind = np.zeros(len(sources), np.int8)
    const = np.empty((len(sources), 3), np.float64)
    image_of = np.zeros(len(sources), np.int64)
    notes = []
    for i, s in enumerate(sources):
        c = np.asarray(s.colour, np.float64).ravel()[:3]
        if c.size != 3 or not np.isfinite(c).all():
            notes.append(f"material {s.name or i}: its colour {s.colour!r} is not an RGB colour; "
                         f"grey used")
            c = np.asarray(DEFAULT_COLOUR)
        const[i] = c
        if s.image >= 0:
            if s.image >= n_images:
                notes.append(f"material {s.name or i}: its image is missing; its colour used")
            elif not has_uvs:
                notes.append(f"material {s.name or i}: the mesh has no UV map for its image; "
                             f"its colour used")
            else:
                kind[i], image_of[i] = KIND_IMAGE, s.image
        elif s.corners:
            if has_corners:
                kind[i] = KIND_CORNERS
            else:
                notes.append(f"material {s.name or i}: the mesh has no colour attribute; "
                             f"its colour used")
    return kind, const, image_of, notes


def _pack_images(images):
    offs, ws, hs, parts = [], [], [], []
    off = 0
    for i, img in enumerate(images):
        a = np.asarray(img, np.float32)
        if a.ndim != 3 or a.shape[2] not in (3, 4) or a.shape[0] < 1 or a.shape[1] < 1:
            raise ColourError(f"image {i} has shape {a.shape}; expected (height, width, 3 or 4)")
        a = np.ascontiguousarray(a[:, :, :3])  # non-finite pixels: see _pixel
        offs.append(off)
        hs.append(a.shape[0])
        ws.append(a.shape[1])
        parts.append(a.ravel())
        off += a.size
    # one image (the usual case) is passed as is: no copy of its pixels
    pixels = parts[0] if len(parts) == 1 else (np.concatenate(parts) if parts
                                               else np.zeros(3, np.float32))
    return (pixels, np.asarray(offs or [0], np.int64),
            np.asarray(ws or [1], np.int64), np.asarray(hs or [1], np.int64))


def capture_colours(grid, origin, voxel_size, vertices, triangles, *, tri_material=None,
                    sources=None, uvs=None, corner_colours=None, images=()) -> Capture:
    """Linear RGB colour of every filled voxel of ``grid`` (a VoxelResult's grid, origin and
    voxel size) from the mesh's surface: see the module docstring.

    ``tri_material`` int (m,) indexes ``sources`` (default: all 0); ``uvs`` float (m, 3, 2) and
    ``corner_colours`` float (m, 3, 3 or 4) are per triangle corner; ``images`` float arrays
    (h, w, 3|4), linear.  A material index outside ``sources`` takes the last one (Blender's rule).
    """
    import time
    t0 = time.perf_counter()
    grid = np.ascontiguousarray(grid, np.bool_)
    if grid.ndim != 3:
        raise ColourError(f"the voxel grid must be 3D, got shape {grid.shape}")
    if grid.size > MAX_GRID_CELLS:
        raise ColourError(f"the voxel grid has {grid.size:,} cells; colours are captured for at most "
                          f"{MAX_GRID_CELLS:,}")
    verts = np.ascontiguousarray(vertices, np.float64).reshape(-1, 3)
    tris = np.ascontiguousarray(triangles, np.int64).reshape(-1, 3)
    m = len(tris)
    if tris.size and (tris.min() < 0 or tris.max() >= len(verts)):
        raise ColourError("a triangle refers to a vertex that does not exist")
    if m and not np.isfinite(verts).all() and not np.isfinite(verts[np.unique(tris)]).all():
        raise ColourError("the mesh has vertices with NaN or infinite coordinates")
    if uvs is not None:
        uvs = np.asarray(uvs, np.float64)
        if uvs.shape != (m, 3, 2):
            raise ColourError(f"uvs has shape {uvs.shape}; expected ({m}, 3, 2), per triangle corner")
    if corner_colours is not None:
        corner_colours = np.asarray(corner_colours, np.float64)
        if corner_colours.ndim != 3 or corner_colours.shape[:2] != (m, 3) or \
                corner_colours.shape[2] not in (3, 4):
            raise ColourError(f"corner colours have shape {corner_colours.shape}; expected "
                              f"({m}, 3, 3 or 4)")
        corner_colours = np.ascontiguousarray(corner_colours[:, :, :3])
        corner_colours = np.where(np.isfinite(corner_colours), corner_colours, 0.0)
    kind, const, image_of, notes = _check_sources(sources, len(images), uvs is not None,
                                                  corner_colours is not None)
    n_src = len(kind)
    if tri_material is None:
        tri_mat = np.zeros(m, np.int64)
    else:
        tri_mat = np.asarray(tri_material, np.int64).ravel()
        if tri_mat.shape != (m,):
            raise ColourError(f"{tri_mat.size} material indices for {m} triangles")
        if m and (tri_mat.min() < 0 or tri_mat.max() >= n_src):
            notes.append(f"{int(((tri_mat < 0) | (tri_mat >= n_src)).sum()):,} triangles name a "
                         f"material slot that does not exist; the nearest slot used")
            tri_mat = np.clip(tri_mat, 0, n_src - 1)
    pixels, offs, ws, hs = _pack_images(images)

    # int32 slots: half the memory the triangle-by-triangle search walks (< MAX_VOXELS rows)
    surface, slot, idx, d, arg = surface_arrays(grid)
    colours = np.zeros(grid.shape + (3,), np.float32)
    triangle = np.full(grid.shape, -1, np.int64)
    if len(idx) == 0:  # every filled voxel has a filled neighbour: none is filled
        return Capture(colours, surface, triangle, notes, time.perf_counter() - t0)
    if m == 0:
        raise ColourError("the mesh has no triangles to take colours from")
    tri, bary = nearest_for_voxels(surface, idx, np.asarray(origin, np.float64),
                                    float(voxel_size), verts, tris, slot)
    col = np.zeros((len(idx), 3), np.float64)
    fell = np.zeros(len(idx), np.bool_)
    closest = np.array([bool(getattr(s, "closest", False)) for s in (sources or [Source()])])
    shade_points(tri, bary, tri_mat, kind, const, image_of, closest,
                 uvs if uvs is not None else np.zeros((1, 3, 2)),
                 corner_colours if corner_colours is not None else np.zeros((1, 3, 3)),
                 pixels, offs, ws, hs, col, fell)
    if fell.any():
        notes.append(f"{int(fell.sum()):,} surface voxels lie nearest to triangles with missing "
                     f"(NaN) UVs; their material colour used")
    scatter_surface(idx, col, tri, colours, triangle)
    fill_from_sites(grid, surface, slot, d, arg, col.astype(np.float32), colours)
    return Capture(colours, surface, triangle, notes, time.perf_counter() - t0)
