"""Mesh -> boolean voxel grid by column ray parity (the seed study's raycasting voxelizer).

Public API: ``voxelize(...) -> VoxelResult`` and ``VoxelizeError``; see docs/ENGINE_API.md
("Voxelizer") and docs/VOXELIZER.md.  The kernels live in ``raycast.py``.
"""
import math
import os
import time
from dataclasses import dataclass, field
from typing import NamedTuple

import numpy as np

from . import pieces
from . import raycast

MAX_PER_AXIS = 1024
MAX_VOXELS = 2**31
MAX_SAMPLES = 8
MAX_HITS = 2**28
# Vertices closer than this (times the longest extent) are one vertex for judging whether the
# mesh is closed: exporters' rounding leaves copies a few float32 steps apart (Blender's STL
# import keeps them), which would otherwise count as holes.  Far from the origin a float32 step
# is larger: the tolerance grows to WELD_FLOAT32_STEPS steps of the largest coordinate, but
# never beyond WELD_TOLERANCE_MAX of the extent (a voxel is at least 1/1024 of it).
WELD_TOLERANCE = 1e-5
WELD_FLOAT32_STEPS = 4 * 2.0**-23
WELD_TOLERANCE_MAX = 1e-3
# A vertex farther from the rest of the mesh than this many times the rest's size is a stray.
STRAY_FACTOR = 1000.0
# Coordinates this many times larger than the mesh lose the precision voxelizing needs.
FAR_FACTOR = 1e9
BAND_COLUMNS = 2**18  # fine columns rasterized per call: bounds memory, paces progress/cancel
BAND_VOXELS = 2**24  # voxels combined per call, for the same reason
# samples (columns x depth) filled per call: a 1024x1024x16 grid at 4 samples per axis had one
# call of 1G samples (5 s without a progress tick or a chance to cancel); this is ~0.2 s
BAND_SAMPLES = 2**26

# The piece options the add-on's Make, the batch and the CLI use unless told otherwise: restore
# parts thinner than a voxel, then bridge. Measured on the shared models and the procedural
# spider and stegosaurus at 16/24/36 (scripts/measure_thin_parts.py, docs/VOXELIZER.md): the only
# setting that gives one connected piece in every case and loses no part of a model; bridging
# alone also connects every case but leaves vanished legs and plates vanished. ``voxelize()``
# itself keeps the plain fill as its default (the engine's API says what it is asked).
MAKE_PIECE_DEFAULTS = {"thin_parts": True, "bridge": True}

# Per ray axis: (u, v, depth) world axes, plane axes ascending (raycast.fill_columns relies on it).
_PASS_AXES = {2: (0, 1, 2), 0: (1, 2, 0), 1: (0, 2, 1)}


class VoxelizeError(ValueError):
    """Bad input or a refused request; the message is meant for the user."""


@dataclass
class VoxelResult:
    grid: np.ndarray
    origin: np.ndarray
    voxel_size: float
    fraction: np.ndarray | None = None
    diagnostics: dict = field(default_factory=dict)
    warnings: list = field(default_factory=list)
    changes: np.ndarray | None = None  # int8 per voxel: what the piece options did (pieces.py)

    def centres(self) -> np.ndarray:
        """World-space centres of the filled voxels, shape (n, 3)."""
        idx = np.argwhere(self.grid).astype(np.float64)
        return self.origin + (idx + 0.5) * self.voxel_size


def voxelize(vertices, triangles, *, resolution=None, voxel_size=None, origin=None, samples=1,
             threshold=0.5, robust=True, fit=True, progress=None, thin_parts=False, bridge=False,
             min_piece=0, keep_largest=False) -> VoxelResult:
    """Voxelize a triangle mesh given in world space.

    Exactly one of ``resolution`` (voxels along the longest bounding-box axis) and
    ``voxel_size`` is required.  ``origin`` pins the lattice: voxel corners then lie on
    ``origin + integer * voxel_size``.  ``samples`` = k gives k*k rays per column and k samples
    per voxel along each ray; a voxel is filled when its inside fraction >= ``threshold``.
    ``robust`` votes over rays along x, y and z and unites the parity of each connected part.
    ``fit`` shrinks the grid to the filled voxels.  ``progress(fraction) -> bool`` is called
    between passes and bands; returning True cancels with ``VoxelizeError("cancelled")``.
    The piece options (``thin_parts``, ``bridge``, ``min_piece``, ``keep_largest``; see
    ``pieces.repair``) change the grid after the fill; ``changes`` then says where.
    """
    t_start = time.perf_counter()
    verts, tris = _check_mesh(vertices, triangles)
    k, need = _check_sampling(samples, threshold)
    try:
        repair_opts = pieces.check_options(thin_parts, bridge, min_piece, keep_largest)
    except ValueError as exc:
        raise VoxelizeError(str(exc)) from None
    if progress is not None and not callable(progress):
        raise VoxelizeError("progress must be a callable taking a fraction and returning a bool")
    bmin, bmax, n_bad, first_bad = raycast.mesh_bounds(verts, tris)
    if n_bad:
        raise VoxelizeError(
            f"the mesh has vertices with NaN or infinite coordinates (first: vertex {first_bad})")
    used = np.zeros(verts.shape[0], np.bool_)
    used[tris.ravel()] = True
    _check_coordinates(verts, used, bmin, bmax)
    lattice, vs, base_lo, base_hi = _grid_spec(bmin, bmax, resolution, voxel_size, origin, fit)
    # Only cells overlapping the bounding box can hold anything: compute just those.
    c_lo = np.clip(np.floor((bmin - lattice) / vs).astype(np.int64), base_lo, base_hi - 1)
    c_hi = np.clip(np.ceil((bmax - lattice) / vs).astype(np.int64), c_lo + 1, base_hi)
    shape = tuple(int(n) for n in c_hi - c_lo)
    axes = (2, 0, 1) if robust else (2,)
    _check_memory(shape, tuple(int(n) for n in base_hi - base_lo), k, len(axes), fit,
                  any(repair_opts))

    _tick(progress, 0.0)
    top = _topology(verts, tris, used, bmin, bmax, robust)
    cell_origin = lattice + c_lo * vs
    g = (verts - cell_origin) / vs  # voxel units: voxel i spans [i, i + 1)
    grid, frac, box, disagreements = _fill(g, top, axes, shape, k, need, robust, progress)

    changes = None
    repair_info = None
    if any(repair_opts):
        grid, changes, repair_info = _repair(grid, g, top.run_tris, shape, repair_opts, progress)
        box[:] = _filled_box(grid)
    if box[3] == 0:
        box[:] = 0

    size_note = None
    if fit and resolution is not None and box[3] > 0:
        size_note = _size_note(int(resolution), shape, box, k, repair_opts, repair_info)
    if fit:
        sl = tuple(slice(int(box[a]), int(box[a + 3])) for a in range(3))
        grid = np.ascontiguousarray(grid[sl])
        frac = None if frac is None else np.ascontiguousarray(frac[sl])
        changes = None if changes is None else np.ascontiguousarray(changes[sl])
        out_origin = cell_origin + box[:3] * vs
    else:
        grid, frac, changes = _in_full_lattice(grid, frac, changes, c_lo - base_lo,
                                               tuple(int(n) for n in base_hi - base_lo), shape)
        out_origin = lattice + base_lo * vs
    _tick(progress, 1.0)

    filled = int(np.count_nonzero(grid))
    t_pieces = time.perf_counter()
    piece_info = pieces.piece_stats(grid)
    t_pieces = time.perf_counter() - t_pieces
    warnings = _mesh_warnings(top.boundary, disagreements, filled)
    if filled == 0:
        warnings.append(
            "Nothing was filled: the mesh is flat, open or thinner than a voxel at this "
            "resolution (try a higher resolution or more samples)")
    elif piece_info is not None and piece_info["pieces"] > 1:
        warnings.append(
            f"The voxels fall apart into {pieces.describe(piece_info)}: a puzzle's answer "
            "reads best as one connected shape (the thin-part, bridge and piece-removal "
            "options can join or drop the loose pieces)")
    diagnostics = {
        "triangles": int(tris.shape[0]),
        "degenerate_triangles": int(top.n_degenerate),
        "vertices_welded": int(top.n_welded),
        "weld_tolerance": top.tol,
        "parts": int(top.n_parts),
        "cavities": int(top.cavity.sum()),
        "boundary_edges": int(top.boundary),
        "non_manifold_edges": int(top.non_manifold),
        "disagreements": disagreements,
        "watertight": top.boundary == 0,
        "looks_open": bool(top.boundary > 0),
        "filled": filled,
        "pieces": piece_info,
        "pieces_time_s": t_pieces,
        "repair": repair_info,
        "size_note": size_note,
        "computed_shape": shape,
        "samples": k,
        "axes": "xyz" if robust else "z",
        "time_s": time.perf_counter() - t_start,
    }
    return VoxelResult(grid, np.asarray(out_origin, np.float64), float(vs), frac, diagnostics, warnings,
                       changes)


class _Topology(NamedTuple):
    """The mesh as the rays see it: the triangles they cast against (degenerate ones out), and the
    parts, cavities and edges found on vertices welded within ``tol``."""
    run_tris: np.ndarray
    n_degenerate: int
    tol: float
    n_welded: int
    parts: np.ndarray
    n_parts: int
    boundary: int
    non_manifold: int
    cavity: np.ndarray


def _topology(verts, tris, used, bmin, bmax, robust) -> _Topology:
    degenerate = np.empty(tris.shape[0], np.bool_)
    n_degenerate = raycast.degenerate_triangles(verts, tris, tris, degenerate)
    run_tris = np.ascontiguousarray(tris[~degenerate]) if n_degenerate else tris
    # Topology (parts, boundary edges) on vertices welded within a tolerance; the rays use the
    # exact positions.  A triangle that the weld collapses has no edges of its own.
    extent = float((bmax - bmin).max())
    reach = float(np.abs(np.concatenate([bmin, bmax])).max())
    tol = max(WELD_TOLERANCE * extent, min(WELD_FLOAT32_STEPS * reach, WELD_TOLERANCE_MAX * extent))
    # Hash cells of 64 base tolerances: one probe for most vertices, and few vertices per cell.
    side = max(2.0 * tol, 64.0 * WELD_TOLERANCE * extent)
    welded_ids, n_welded = raycast.weld_near(verts, (verts + 0.0).view(np.int64), used, tol, side)
    wt = np.ascontiguousarray(welded_ids[run_tris])
    if robust and len(run_tris):
        parts, n_parts = raycast.triangle_parts(wt, n_welded)
    else:
        parts, n_parts = np.zeros(len(run_tris), np.int32), 1 if len(run_tris) else 0
    collapsed = (wt[:, 0] == wt[:, 1]) | (wt[:, 1] == wt[:, 2]) | (wt[:, 0] == wt[:, 2])
    if collapsed.any():
        keep = np.flatnonzero(~collapsed)
        boundary, non_manifold, open_edges = raycast.edge_stats(
            np.ascontiguousarray(wt[keep]), n_welded, np.ascontiguousarray(parts[keep]), n_parts)
    else:
        boundary, non_manifold, open_edges = raycast.edge_stats(wt, n_welded, parts, n_parts)
    cavity = _cavities(verts, run_tris, parts, n_parts, open_edges, (bmin + bmax) / 2.0)
    return _Topology(run_tris, n_degenerate, tol, n_welded, parts, n_parts, boundary, non_manifold, cavity)


def _fill(g, top: _Topology, axes, shape, k, need, robust, progress):
    """The ray passes along ``axes`` and their vote: (grid, inside fraction or None, filled box,
    disagreements between the axes or None)."""
    cdt = _count_dtype(k)
    if robust and k == 1:
        # One sample per voxel: the passes add their 0/1 into one array of votes.
        votes = np.zeros(shape, cdt)
        outs = [votes, votes, votes]
        mode = 1
    else:
        outs = [np.zeros(shape, cdt) for _ in axes]
        mode = 2 if robust else 0
    for n_pass, (axis, out) in enumerate(zip(axes, outs)):
        _pass(g, top.run_tris, top.parts, top.n_parts > 1, top.cavity, axis, shape, k, out, progress,
              0.9 * n_pass / len(axes), 0.9 / len(axes))
    grid = np.empty(shape, np.bool_)
    med = np.empty(shape if k > 1 else (0, 0, 0), cdt)
    box = np.array([shape[0], shape[1], shape[2], 0, 0, 0], np.int64)
    c1, c2 = (outs[1], outs[2]) if mode == 2 else (outs[0], outs[0])
    slab = max(1, BAND_VOXELS // (shape[1] * shape[2]))
    disagreements = 0
    for x_lo in range(0, shape[0], slab):
        x_hi = min(x_lo + slab, shape[0])
        disagreements += raycast.combine_axes(outs[0], c1, c2, mode, need, k > 1, med, grid, box,
                                              x_lo, x_hi)
        _tick(progress, 0.9 + 0.05 * x_hi / shape[0])
    disagreements = int(disagreements) if robust else None
    frac = med.astype(np.float32) / np.float32(k**3) if k > 1 else None
    return grid, frac, box, disagreements


def _repair(grid, g, run_tris, shape, repair_opts, progress):
    """The piece options applied to the filled grid: (grid, changes, the repair's diagnostics)."""
    t_rep = time.perf_counter()
    before = pieces.piece_stats(grid)
    surface = None
    if repair_opts[0] or repair_opts[1]:
        surface = np.zeros(shape, np.bool_)
        pieces.surface_voxels(g, run_tris, surface)
        _tick(progress, 0.97)
    try:
        grid, changes, effects = pieces.repair(
            grid, surface, thin_parts=repair_opts[0], bridge=repair_opts[1],
            min_piece=repair_opts[2], keep_largest=repair_opts[3])
    except ValueError as exc:
        raise VoxelizeError(str(exc)) from None
    return grid, changes, dict(effects, before=before, time_s=time.perf_counter() - t_rep)


def _in_full_lattice(grid, frac, changes, off, full, shape):
    """Without ``fit``: the computed part (``shape`` at offset ``off``) placed in the whole
    lattice box ``full``, for the grid and, when present, the fractions and the changes."""
    if full == shape:
        return grid, frac, changes
    sl = tuple(slice(int(o), int(o) + n) for o, n in zip(off, shape))
    big = np.zeros(full, bool)
    big[sl] = grid
    if frac is not None:
        bigf = np.zeros(full, np.float32)
        bigf[sl] = frac
        frac = bigf
    if changes is not None:
        bigc = np.zeros(full, np.int8)
        bigc[sl] = changes
        changes = bigc
    return big, frac, changes


def _size_note(asked, shape, box, k, repair_opts, repair_info):
    """Why the fitted grid's longest side is shorter than the resolution asked for, or None.

    ``shape`` is the part of the lattice the mesh's bounding box covers (its longest side is
    ``asked`` voxels), ``box`` the filled box within it. The layers cut off at either end of
    the longest axis held mesh but no filled voxel: say how many and what emptied them."""
    got = max(int(box[3 + a] - box[a]) for a in range(3))
    if got >= asked:
        return None
    axis = int(np.argmax(shape))
    lo, hi = int(box[axis]), int(shape[axis] - box[3 + axis])
    ends = " and ".join(part for part in (
        f"the first {lo} layer{'s' if lo != 1 else ''}" if lo else "",
        f"the last {hi} layer{'s' if hi != 1 else ''}" if hi else "") if part)
    if not ends:  # the longest axis kept its length; another axis cannot be longer
        return None
    thin_parts = repair_opts[0]
    removed = bool(repair_info and (repair_info.get("small_removed") or
                                    repair_info.get("others_removed")))
    if removed:
        why = "pieces there were removed by Drop Pieces Under / Largest Piece Only"
    elif not thin_parts:
        why = ("the parts there are thinner than a voxel, so no voxel centre"
               + (" reaches the threshold" if k > 1 else " lies inside them")
               + "; Restore Thin Parts keeps them")
    else:
        why = "the mesh only grazes them next to filled voxels"
    return (f"Asked for {asked} voxels along the longest side, got {got}: the mesh is {asked} "
            f"voxels long along {'xyz'[axis]}, but {ends} hold no filled voxel ({why})")


def _mesh_warnings(boundary, disagreements, filled):
    """'Open' only for real boundary edges (after the tolerance weld), with what the holes did
    to the voxels; a closed mesh whose fills still disagree has another problem, named so."""
    if disagreements is None:
        if boundary:
            return [f"The mesh is open ({boundary:,} boundary edges): a single-axis fill may leak "
                    "through the holes; turn on robust mode"]
        return []
    share = f"{100.0 * disagreements / max(filled, 1):.1f} % of the filled voxels"
    if boundary:
        if disagreements:
            return [f"The mesh is open ({boundary:,} boundary edges): the x, y and z fills "
                    f"disagree on {disagreements:,} voxels ({share}), settled by a majority "
                    "vote; check the result where the holes are"]
        return [f"The mesh is open ({boundary:,} boundary edges), but the holes changed no "
                "voxel: the x, y and z fills agree"]
    if disagreements > max(8, 0.01 * filled):
        return [f"The x, y and z fills disagree on {disagreements:,} voxels ({share}) although "
                "the mesh is closed: it probably intersects itself or has faces inside; the "
                "majority vote settled them, check the result"]
    return []


def _filled_box(grid):
    """(lo x, lo y, lo z, hi x, hi y, hi z) of the filled voxels, zeros when there are none."""
    box = np.zeros(6, np.int64)
    for a in range(3):
        other = tuple(b for b in range(3) if b != a)
        nz = np.flatnonzero(grid.any(axis=other))
        if len(nz) == 0:
            return np.zeros(6, np.int64)
        box[a], box[a + 3] = nz[0], nz[-1] + 1
    return box


def _check_coordinates(verts, used, bmin, bmax):
    """Specific messages for coordinates that would make a useless grid: a stray vertex far from
    the rest (it stretches the grid until the model is smaller than a voxel), and a mesh so far
    from the origin that its coordinates have lost the precision voxels need."""
    pts = verts[used]
    if len(pts) < 2:
        return
    # The body's centre and size from (a stride of at most ~4,000 of) the vertices: the median
    # (the upper one for an even count), and the distance within which 90 % of them lie.
    # (numpy's median and max along the short axis cost ~1 ms on any mesh: partition rows.)
    sample = np.ascontiguousarray(pts[::max(1, len(pts) // 4096)].T)
    half = sample.shape[1] // 2
    centre = np.partition(sample, half, axis=1)[:, half]
    with np.errstate(over="ignore", invalid="ignore"):
        off = np.abs(sample - centre[:, None])
        sample_dist = np.maximum(np.maximum(off[0], off[1]), off[2])
        k = int(0.9 * (len(sample_dist) - 1))
        body = float(np.partition(sample_dist, k)[k])
        reach = max(float((bmax - centre).max()), float((centre - bmin).max()))
    if 0.0 < body < np.inf and reach > STRAY_FACTOR * body:
        with np.errstate(over="ignore", invalid="ignore"):
            dist = np.abs(pts - centre).max(axis=1)
        stray = dist > STRAY_FACTOR * body
        if stray.any():
            ids = np.flatnonzero(used)[stray]
            worst = ids[np.argmax(dist[stray])]
            p = ", ".join(f"{c:.4g}" for c in verts[worst])
            c = ", ".join(f"{x:.4g}" for x in centre)
            more = f" ({len(ids):,} vertices like it)" if len(ids) > 1 else ""
            raise VoxelizeError(
                f"vertex {int(worst)} is at ({p}), far away from the rest of the mesh, which lies "
                f"within {body:.4g} of ({c}){more}: such a stray vertex stretches the grid until "
                "the model is smaller than a voxel; delete or move it")
    with np.errstate(over="ignore", invalid="ignore"):
        extent = float((bmax - bmin).max())
        reach = float(np.abs(np.concatenate([bmin, bmax])).max())
    if extent > 0.0 and np.isfinite(extent) and reach > FAR_FACTOR * extent:
        raise VoxelizeError(
            f"the mesh is {reach:.4g} units from the world origin but only {extent:.4g} across: "
            "at that distance its coordinates have lost the precision voxels need; move it "
            "near the origin")


def _cavities(verts, tris, parts, n_parts, open_edges, centre):
    """Parts to carve rather than unite: closed shells wound against the largest closed part
    (an inner wall of a hollow solid made as a separate shell)."""
    cavity = np.zeros(max(n_parts, 1), np.bool_)
    closed = open_edges[:n_parts] == 0
    if n_parts < 2 or closed.sum() < 2:
        return cavity
    vol = raycast.part_volumes(verts, tris, parts, n_parts, centre)[:n_parts]
    ref = np.flatnonzero(closed)[np.argmax(np.abs(vol[closed]))]
    cavity[:n_parts] = closed & (np.sign(vol) == -np.sign(vol[ref])) & (vol != 0)
    return cavity


def _count_dtype(k):
    """Inside-sample counters: one byte while k**3 fits (k <= 6), else two."""
    return np.uint8 if k**3 <= 255 else np.uint16


def _tick(progress, fraction):
    if progress is not None and progress(float(fraction)):
        raise VoxelizeError("cancelled")


def _pass(g, tris, parts, by_part, cavity, axis, shape, k, out, progress, p0, dp):
    """Parity along one axis: adds per-voxel inside-sample counts to ``out`` (X, Y, Z)."""
    ua, va, da = _PASS_AXES[axis]
    P = np.ascontiguousarray(g[:, [ua, va, da]] * k - 0.5)  # samples on integers
    n_u, n_v, n_d = shape[ua] * k, shape[va] * k, shape[da] * k
    rows = max(k, min(BAND_COLUMNS // n_v, BAND_SAMPLES // (n_v * n_d)) // k * k)
    bands = list(range(0, n_u, rows))
    hint = min(MAX_HITS, max(4096, 2 * tris.shape[0]))
    if len(bands) > 1:
        tu = P[tris, 0]
        tmin = tu.min(axis=1)
        tmax = tu.max(axis=1)
    for b, u_lo in enumerate(bands):
        u_hi = min(u_lo + rows, n_u)
        if len(bands) > 1:
            sel = np.flatnonzero((tmax >= u_lo - 1) & (tmin <= u_hi))
            bt = np.ascontiguousarray(tris[sel])
            bp = np.ascontiguousarray(parts[sel])
        else:
            bt, bp = tris, parts
        cap = hint
        while True:
            h_col = np.empty(cap, np.int64)
            h_t = np.empty(cap, np.float64)
            h_p = np.empty(cap, np.int32)
            n_hits = raycast.raster_hits(P, bt, bp, u_lo, u_hi, n_v, h_col, h_t, h_p)
            if n_hits > MAX_HITS:
                raise VoxelizeError(
                    f"the mesh has too many ray crossings ({n_hits:,}) at this resolution; "
                    "lower the resolution or the number of samples")
            if n_hits <= cap:
                break
            cap = n_hits
        hint = max(hint, n_hits)
        start, hit_t, hit_p = raycast.bucket_hits(n_hits, h_col, h_t, h_p, (u_hi - u_lo) * n_v)
        del h_col, h_t, h_p
        raycast.fill_columns(start, hit_t, hit_p, by_part, cavity, u_lo, u_hi, n_v, n_d, k, axis,
                             out)
        _tick(progress, p0 + dp * (b + 1) / len(bands))


def _check_mesh(vertices, triangles):
    try:
        verts = np.asarray(vertices, dtype=np.float64)
    except (TypeError, ValueError) as exc:
        raise VoxelizeError(f"vertices must be numbers: {exc}") from None
    if verts.ndim != 2 or verts.shape[1] != 3:
        raise VoxelizeError(f"vertices must have shape (n, 3), got {verts.shape}")
    verts = np.ascontiguousarray(verts)
    tris = np.asarray(triangles)
    if tris.size == 0:
        raise VoxelizeError("the mesh has no triangles")
    if tris.ndim != 2 or tris.shape[1] != 3:
        raise VoxelizeError(f"triangles must have shape (m, 3), got {tris.shape}")
    if tris.dtype.kind not in "iu":
        if tris.dtype.kind == "f" and np.all(np.isfinite(tris)) and np.all(tris == np.round(tris)):
            tris = tris.astype(np.int64)
        else:
            raise VoxelizeError(f"triangles must be integer vertex indices, got {tris.dtype}")
    tris = tris.astype(np.int64, copy=False)
    n = verts.shape[0]
    bad = (tris < 0) | (tris >= n)
    if bad.any():
        row = int(np.flatnonzero(bad.any(axis=1))[0])
        raise VoxelizeError(
            f"{int(bad.any(axis=1).sum())} triangles refer to missing vertices (first: triangle "
            f"{row} uses vertex {int(tris[row][bad[row]][0])}, but there are {n} vertices)")
    return verts, np.ascontiguousarray(tris)


def _check_sampling(samples, threshold):
    if isinstance(samples, bool) or not isinstance(samples, (int, np.integer)):
        raise VoxelizeError(f"samples must be a whole number from 1 to {MAX_SAMPLES}, got {samples!r}")
    k = int(samples)
    if not 1 <= k <= MAX_SAMPLES:
        raise VoxelizeError(f"samples must be from 1 to {MAX_SAMPLES}, got {k}")
    try:
        thr = float(threshold)
    except (TypeError, ValueError):
        raise VoxelizeError(f"threshold must be a number from 0 to 1, got {threshold!r}") from None
    if not 0.0 <= thr <= 1.0:
        raise VoxelizeError(f"threshold must be from 0 to 1, got {threshold!r}")
    need = max(1, math.ceil(thr * k**3 - 1e-9))
    return k, need


def _grid_spec(bmin, bmax, resolution, voxel_size, origin, fit):
    """The lattice (corner of voxel 0), voxel size and the base box of voxel indices."""
    with np.errstate(over="ignore", invalid="ignore"):
        extent = bmax - bmin
    longest = float(extent.max())
    if not math.isfinite(longest):
        raise VoxelizeError("the mesh is too large: its extent overflows floating point")
    if not longest > 0.0:
        raise VoxelizeError("the mesh has zero size (all its vertices are at one point)")
    if (resolution is None) == (voxel_size is None):
        raise VoxelizeError("give either a resolution or a voxel size (exactly one of them)")
    if resolution is not None:
        if isinstance(resolution, bool) or not isinstance(resolution, (int, np.integer, float)) \
                or (isinstance(resolution, float) and not resolution.is_integer()):
            raise VoxelizeError(f"resolution must be a whole number, got {resolution!r}")
        n = int(resolution)
        if n < 1:
            raise VoxelizeError(f"resolution must be at least 1, got {n}")
        if n > MAX_PER_AXIS:
            raise VoxelizeError(
                f"resolution {n} is too large: at most {MAX_PER_AXIS} voxels per axis")
        vs = longest / n
    else:
        try:
            vs = float(voxel_size)
        except (TypeError, ValueError):
            raise VoxelizeError(f"voxel size must be a number, got {voxel_size!r}") from None
        if not (vs > 0.0 and math.isfinite(vs)):
            raise VoxelizeError(f"voxel size must be positive, got {voxel_size!r}")
        n_f = longest / vs
        if n_f > MAX_PER_AXIS:
            raise VoxelizeError(
                f"voxel size {vs:g} gives {math.ceil(n_f):,} voxels along the longest axis "
                f"(extent {longest:g}); at most {MAX_PER_AXIS} are allowed")
        n = max(1, math.ceil(n_f - 1e-9))
    if origin is None and fit:
        # Anchored at the bounding box's min corner, so grid-aligned meshes (a CAD part, a
        # box of whole voxels) put their faces on voxel boundaries.
        cells = np.maximum(1, np.ceil(extent / vs - 1e-9)).astype(np.int64)
        return bmin.copy(), vs, np.zeros(3, np.int64), np.minimum(cells, n)
    if origin is None:
        # The cube of n voxels centred on the bounding box (the models README's convention).
        lattice = (bmin + bmax) / 2.0 - n * vs / 2.0
        return lattice, vs, np.zeros(3, np.int64), np.full(3, n, np.int64)
    try:
        lattice = np.asarray(origin, dtype=np.float64).reshape(3)
    except (TypeError, ValueError):
        raise VoxelizeError(f"origin must be three numbers, got {origin!r}") from None
    if not np.isfinite(lattice).all():
        raise VoxelizeError(f"origin must be finite, got {origin!r}")
    with np.errstate(over="ignore", invalid="ignore"):
        lo_f = np.floor((bmin - lattice) / vs)
        hi_f = np.ceil((bmax - lattice) / vs)
    if not (np.isfinite(lo_f).all() and np.isfinite(hi_f).all()
            and np.abs(np.concatenate([lo_f, hi_f])).max() < 2.0**52):
        raise VoxelizeError("the origin is too far from the mesh for this voxel size")
    lo = lo_f.astype(np.int64)
    hi = np.maximum(hi_f.astype(np.int64), lo + 1)
    if (hi - lo).max() > MAX_PER_AXIS + 1:
        raise VoxelizeError(
            f"the grid would be {'×'.join(str(int(x)) for x in hi - lo)} voxels: at most "
            f"{MAX_PER_AXIS} per axis are allowed")
    return lattice, vs, lo, hi


def _available_memory():
    try:
        with open("/proc/meminfo") as f:
            for line in f:
                if line.startswith("MemAvailable:"):
                    return int(line.split()[1]) * 1024
    except OSError:
        pass
    try:
        return os.sysconf("SC_AVPHYS_PAGES") * os.sysconf("SC_PAGE_SIZE")
    except (ValueError, OSError, AttributeError):
        return 4 * 2**30


def _check_memory(shape, full, k, n_axes, fit, repair=False):
    voxels = math.prod(shape)
    cb = np.dtype(_count_dtype(k)).itemsize
    counters = 1 if k == 1 else n_axes + 1  # votes, or counts per pass and their median
    per_voxel = counters * cb + 1 + (8 if k > 1 else 0)  # + grid, fraction (and its copy)
    need = voxels * per_voxel + (0 if fit else math.prod(full) * (1 + (4 if k > 1 else 0)))
    need += BAND_COLUMNS * 8 * 3
    if repair:
        if voxels > pieces.MAX_REPAIR_VOXELS:
            raise VoxelizeError(
                f"the piece options work on grids of up to {pieces.MAX_REPAIR_VOXELS:,} voxels; "
                f"this one has {voxels:,}: lower the resolution")
        need += voxels * pieces.REPAIR_BYTES_PER_VOXEL
    avail = _available_memory()
    size = "×".join(str(n) for n in (full if not fit else shape))
    if voxels > MAX_VOXELS or (not fit and math.prod(full) > MAX_VOXELS) or need > avail // 2:
        raise VoxelizeError(
            f"a {size} grid ({voxels / 1e6:,.0f} M voxels, about {need / 2**30:.1f} GiB of working "
            f"memory) is too large for this machine ({avail / 2**30:.1f} GiB available); "
            "lower the resolution")
