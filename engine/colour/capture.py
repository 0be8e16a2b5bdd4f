"""Colour capture: each filled voxel takes the colour of the model's surface nearest to it.

Public API: ``capture_colours(grid, origin, voxel_size, vertices, triangles, ...) -> Capture`` and
``Source`` (one per material); see docs/ENGINE_API.md ("Colour capture").

* Surface voxels (filled, with an empty or outside face neighbour) find the nearest triangle to
  their centre: a uniform grid of buckets over the triangles' boxes, searched ring by ring with
  the exact closest point on each triangle (Ericson, Real-Time Collision Detection 5.1.5); ties
  go to the lowest triangle index, so the result does not depend on the bucket order.
* The colour at that point comes from the triangle's material (``Source``): an image sampled
  through the per-corner UVs (bilinear, repeat wrap), per-corner colours interpolated
  barycentrically, or the material's constant colour.  An image colour is multiplied by the
  constant (glTF's baseColorFactor; Blender passes 1).  A triangle whose UVs are NaN falls
  back to the constant colour (counted in ``Capture.fallbacks``).
* Interior voxels take the colour of the nearest surface voxel (exact Euclidean feature
  transform, separable by axis: Felzenszwalb and Huttenlocher 2012, in integer arithmetic,
  each pass only over the runs of filled voxels holding interior voxels; where several surface
  voxels are equally near, which one is not promised).  Its first sweep shares one sweep of the
  grid with the surface mask and slots (``surface_sites``).  Exact rather than a cheaper chamfer or
  breadth-first fill: the tests promise the exact distance, and the capture's speed is as much
  the nearest-triangle search's (see docs/BENCHMARKS.md, "Colour capture").

Colours are linear RGB.  Images are float arrays (h, w, 3 or 4), row 0 at v = 0 (the bottom row,
Blender's ``Image.pixels`` order), pixel centres at ((i + 0.5) / w, (j + 0.5) / h).
"""
from dataclasses import dataclass, field

import numpy as np

from ..jit import njit

KIND_CONSTANT, KIND_IMAGE, KIND_CORNERS = 0, 1, 2
DEFAULT_COLOUR = (0.8, 0.8, 0.8)  # Blender's default material grey
MAX_SOURCES = 1 << 20
# The interior fill and the surface slots index voxels in int32 (the voxelizer's MAX_VOXELS is 2**31).
MAX_GRID_CELLS = 2**31
# Buckets per triangle (the grid has about this many cells per triangle, at most 256 per axis).
CELLS_PER_TRIANGLE = 2.0
# Surface voxels are measured triangle by triangle against the triangles within this many voxels
# (the rest by the bucket search).
NEAR_MARGIN = 1.0


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
# kernels


@njit
def closest_point_triangle(px, py, pz, ax, ay, az, bx, by, bz, cx, cy, cz):
    """(squared distance, barycentric weights of a, b, c) of the point of triangle abc nearest p."""
    abx, aby, abz = bx - ax, by - ay, bz - az
    acx, acy, acz = cx - ax, cy - ay, cz - az
    apx, apy, apz = px - ax, py - ay, pz - az
    d1 = abx * apx + aby * apy + abz * apz
    d2 = acx * apx + acy * apy + acz * apz
    if d1 <= 0.0 and d2 <= 0.0:
        u, v, w = 1.0, 0.0, 0.0
    else:
        bpx, bpy, bpz = px - bx, py - by, pz - bz
        d3 = abx * bpx + aby * bpy + abz * bpz
        d4 = acx * bpx + acy * bpy + acz * bpz
        cpx, cpy, cpz = px - cx, py - cy, pz - cz
        d5 = abx * cpx + aby * cpy + abz * cpz
        d6 = acx * cpx + acy * cpy + acz * cpz
        vc = d1 * d4 - d3 * d2
        vb = d5 * d2 - d1 * d6
        va = d3 * d6 - d5 * d4
        if d3 >= 0.0 and d4 <= d3:
            u, v, w = 0.0, 1.0, 0.0
        elif d6 >= 0.0 and d5 <= d6:
            u, v, w = 0.0, 0.0, 1.0
        elif vc <= 0.0 and d1 >= 0.0 and d3 <= 0.0:
            t = d1 / (d1 - d3)
            u, v, w = 1.0 - t, t, 0.0
        elif vb <= 0.0 and d2 >= 0.0 and d6 <= 0.0:
            t = d2 / (d2 - d6)
            u, v, w = 1.0 - t, 0.0, t
        elif va <= 0.0 and (d4 - d3) >= 0.0 and (d5 - d6) >= 0.0:
            t = (d4 - d3) / ((d4 - d3) + (d5 - d6))
            u, v, w = 0.0, 1.0 - t, t
        else:
            den = va + vb + vc
            if den <= 0.0:  # degenerate triangle: nearest of its corners
                u, v, w = 1.0, 0.0, 0.0
            else:
                v = vb / den
                w = vc / den
                u = 1.0 - v - w
    qx = u * ax + v * bx + w * cx
    qy = u * ay + v * by + w * cy
    qz = u * az + v * bz + w * cz
    dx, dy, dz = px - qx, py - qy, pz - qz
    return dx * dx + dy * dy + dz * dz, u, v, w


@njit
def bucket_triangles(verts, tris, lo, h, dims):
    """CSR buckets: (start (n_cells + 1,), triangle ids) of every cell a triangle's box overlaps."""
    nx, ny, nz = dims[0], dims[1], dims[2]
    m = tris.shape[0]
    boxes = np.empty((m, 6), np.int64)
    count = np.zeros(nx * ny * nz + 1, np.int64)
    for t in range(m):
        for a in range(3):
            mn = np.inf
            mx = -np.inf
            for c in range(3):
                x = verts[tris[t, c], a]
                mn = min(mn, x)
                mx = max(mx, x)
            n = dims[a]
            i0 = int(np.floor((mn - lo[a]) / h))
            i1 = int(np.floor((mx - lo[a]) / h))
            boxes[t, a] = min(max(i0, 0), n - 1)
            boxes[t, a + 3] = min(max(i1, 0), n - 1)
        for i in range(boxes[t, 0], boxes[t, 3] + 1):
            for j in range(boxes[t, 1], boxes[t, 4] + 1):
                for k in range(boxes[t, 2], boxes[t, 5] + 1):
                    count[(i * ny + j) * nz + k + 1] += 1
    for c in range(1, count.shape[0]):
        count[c] += count[c - 1]
    fill = count[:-1].copy()
    ids = np.empty(count[-1], np.int64)
    for t in range(m):
        for i in range(boxes[t, 0], boxes[t, 3] + 1):
            for j in range(boxes[t, 1], boxes[t, 4] + 1):
                for k in range(boxes[t, 2], boxes[t, 5] + 1):
                    c = (i * ny + j) * nz + k
                    ids[fill[c]] = t
                    fill[c] += 1
    return count, ids


@njit
def nearest_triangles(points, verts, tris, lo, h, dims, start, ids, out_tri, out_bary, out_d2):
    """For each point: nearest triangle (lowest index on ties), its barycentric weights, distance²."""
    nx, ny, nz = dims[0], dims[1], dims[2]
    maxr = max(nx, max(ny, nz))
    for p in range(points.shape[0]):
        px, py, pz = points[p, 0], points[p, 1], points[p, 2]
        ci = min(max(int(np.floor((px - lo[0]) / h)), 0), nx - 1)
        cj = min(max(int(np.floor((py - lo[1]) / h)), 0), ny - 1)
        ck = min(max(int(np.floor((pz - lo[2]) / h)), 0), nz - 1)
        best = np.inf
        bt = -1
        bu, bv, bw = 1.0, 0.0, 0.0
        for r in range(maxr + 1):
            for i in range(max(ci - r, 0), min(ci + r, nx - 1) + 1):
                for j in range(max(cj - r, 0), min(cj + r, ny - 1) + 1):
                    on_i = i == ci - r or i == ci + r
                    on_j = j == cj - r or j == cj + r
                    for k in range(max(ck - r, 0), min(ck + r, nz - 1) + 1):
                        if not (on_i or on_j or k == ck - r or k == ck + r):
                            continue  # inside the ring: searched before
                        c = (i * ny + j) * nz + k
                        for q in range(start[c], start[c + 1]):
                            t = ids[q]
                            a, b, d = tris[t, 0], tris[t, 1], tris[t, 2]
                            d2, u, v, w = closest_point_triangle(
                                px, py, pz, verts[a, 0], verts[a, 1], verts[a, 2],
                                verts[b, 0], verts[b, 1], verts[b, 2],
                                verts[d, 0], verts[d, 1], verts[d, 2])
                            if d2 < best or (d2 == best and t < bt):
                                best, bt, bu, bv, bw = d2, t, u, v, w
            # every cell outside ring r lies beyond the walls of the box of rings 0..r
            if bt >= 0:
                wall = np.inf
                if ci - r > 0:
                    wall = min(wall, px - (lo[0] + (ci - r) * h))
                if ci + r < nx - 1:
                    wall = min(wall, lo[0] + (ci + r + 1) * h - px)
                if cj - r > 0:
                    wall = min(wall, py - (lo[1] + (cj - r) * h))
                if cj + r < ny - 1:
                    wall = min(wall, lo[1] + (cj + r + 1) * h - py)
                if ck - r > 0:
                    wall = min(wall, pz - (lo[2] + (ck - r) * h))
                if ck + r < nz - 1:
                    wall = min(wall, lo[2] + (ck + r + 1) * h - pz)
                if wall == np.inf or (wall > 0 and best <= wall * wall):
                    break
        out_tri[p] = bt
        out_bary[p, 0] = bu
        out_bary[p, 1] = bv
        out_bary[p, 2] = bw
        out_d2[p] = best


@njit
def nearest_near_triangles(slot, origin, vs, margin, verts, tris, out_tri, out_bary, out_d2):
    """Triangle by triangle: every query voxel (``slot`` >= 0: its query number) whose centre
    lies within ``margin`` of the triangle's box is measured against it.  A voxel whose nearest
    triangle is within ``margin`` gets it exactly (ties: lowest index); the others keep d2 > margin²
    and need ``nearest_triangles``."""
    X, Y, Z = slot.shape
    dims = (X, Y, Z)
    lo = np.empty(3, np.int64)
    hi = np.empty(3, np.int64)
    m2 = margin * margin
    for t in range(tris.shape[0]):
        a, b, c = tris[t, 0], tris[t, 1], tris[t, 2]
        for k in range(3):
            mn = min(verts[a, k], min(verts[b, k], verts[c, k]))
            mx = max(verts[a, k], max(verts[b, k], verts[c, k]))
            # voxel i's centre is origin + (i + 0.5) vs
            lo[k] = max(int(np.ceil((mn - margin - origin[k]) / vs - 0.5)), 0)
            hi[k] = min(int(np.floor((mx + margin - origin[k]) / vs - 0.5)), dims[k] - 1)
        # the triangle's plane (unit normal): its distance bounds the triangle's from below, so a
        # voxel whose plane distance clearly exceeds both the margin and its best so far is skipped
        # (the slack keeps rounding from ever skipping a triangle that ties or wins)
        e1x, e1y, e1z = verts[b, 0] - verts[a, 0], verts[b, 1] - verts[a, 1], verts[b, 2] - verts[a, 2]
        e2x, e2y, e2z = verts[c, 0] - verts[a, 0], verts[c, 1] - verts[a, 1], verts[c, 2] - verts[a, 2]
        nx = e1y * e2z - e1z * e2y
        ny = e1z * e2x - e1x * e2z
        nz = e1x * e2y - e1y * e2x
        nn = np.sqrt(nx * nx + ny * ny + nz * nz)
        use_plane = nn > 0.0 and np.isfinite(nn)
        if use_plane:
            nx, ny, nz = nx / nn, ny / nn, nz / nn
        ax, ay, az = verts[a, 0], verts[a, 1], verts[a, 2]
        bx, by, bz = verts[b, 0], verts[b, 1], verts[b, 2]
        cx, cy, cz = verts[c, 0], verts[c, 1], verts[c, 2]
        # the triangle's box bounds its distance from below too: rows and voxels in the corners
        # of the box grown by the margin are skipped the same way (same slack)
        mnx, mxx = min(ax, min(bx, cx)), max(ax, max(bx, cx))
        mny, mxy = min(ay, min(by, cy)), max(ay, max(by, cy))
        mnz, mxz = min(az, min(bz, cz)), max(az, max(bz, cz))
        lim = 1.000001 * m2 + 1e-300
        for i in range(lo[0], hi[0] + 1):
            px = origin[0] + (i + 0.5) * vs
            gx = max(mnx - px, max(px - mxx, 0.0))
            for j in range(lo[1], hi[1] + 1):
                py = origin[1] + (j + 0.5) * vs
                gy = max(mny - py, max(py - mxy, 0.0))
                gxy = gx * gx + gy * gy
                if gxy > lim:
                    continue
                hxy = (px - ax) * nx + (py - ay) * ny
                for k in range(lo[2], hi[2] + 1):
                    q = slot[i, j, k]
                    if q < 0:
                        continue
                    pz = origin[2] + (k + 0.5) * vs
                    bound = 1.000001 * min(out_d2[q], m2) + 1e-300
                    gz = max(mnz - pz, max(pz - mxz, 0.0))
                    if gxy + gz * gz > bound:
                        continue
                    if use_plane:
                        h = hxy + (pz - az) * nz
                        if h * h > bound:
                            continue
                    d2, u, v, w = closest_point_triangle(px, py, pz, ax, ay, az, bx, by, bz,
                                                         cx, cy, cz)
                    if d2 < out_d2[q] or (d2 == out_d2[q] and t < out_tri[q]):
                        out_d2[q] = d2
                        out_tri[q] = t
                        out_bary[q, 0] = u
                        out_bary[q, 1] = v
                        out_bary[q, 2] = w


@njit
def _pixel(pixels, i):
    """A pixel channel; NaN or infinite (a broken float image) reads as 0.  Checked here, at the
    few pixels sampled, rather than over the whole image on every capture."""
    p = pixels[i]
    return p if np.isfinite(p) else 0.0


@njit
def sample_closest(pixels, offset, w, h, u, v, out):
    """The pixel holding (u, v), with repeat wrap."""
    x = int(np.floor(u * w)) % w
    y = int(np.floor(v * h)) % h
    for c in range(3):
        out[c] = _pixel(pixels, offset + (y * w + x) * 3 + c)


@njit
def sample_image(pixels, offset, w, h, u, v, out):
    """Bilinear sample with repeat wrap of the image stored at ``pixels[offset:]`` (h*w*3)."""
    x = u * w - 0.5
    y = v * h - 0.5
    fx0 = np.floor(x)
    fy0 = np.floor(y)
    tx = x - fx0
    ty = y - fy0
    x0 = int(fx0) % w
    y0 = int(fy0) % h
    x1 = (x0 + 1) % w
    y1 = (y0 + 1) % h
    for c in range(3):
        p00 = _pixel(pixels, offset + (y0 * w + x0) * 3 + c)
        p10 = _pixel(pixels, offset + (y0 * w + x1) * 3 + c)
        p01 = _pixel(pixels, offset + (y1 * w + x0) * 3 + c)
        p11 = _pixel(pixels, offset + (y1 * w + x1) * 3 + c)
        out[c] = ((1.0 - tx) * (1.0 - ty) * p00 + tx * (1.0 - ty) * p10
                  + (1.0 - tx) * ty * p01 + tx * ty * p11)


@njit
def shade_points(tri, bary, tri_mat, kind, const, image_of, closest, uvs, corners, pixels, img_offset,
                 img_w, img_h, out, fell_back):
    """Colour of each point: its triangle's material source at the barycentric weights."""
    tmp = np.empty(3, np.float64)
    for p in range(tri.shape[0]):
        t = tri[p]
        m = tri_mat[t]
        k = kind[m]
        u, v, w = bary[p, 0], bary[p, 1], bary[p, 2]
        if k == 1:
            su = u * uvs[t, 0, 0] + v * uvs[t, 1, 0] + w * uvs[t, 2, 0]
            sv = u * uvs[t, 0, 1] + v * uvs[t, 1, 1] + w * uvs[t, 2, 1]
            if np.isfinite(su) and np.isfinite(sv):
                im = image_of[m]
                if closest[m]:
                    sample_closest(pixels, img_offset[im], img_w[im], img_h[im], su, sv, tmp)
                else:
                    sample_image(pixels, img_offset[im], img_w[im], img_h[im], su, sv, tmp)
                for c in range(3):
                    out[p, c] = tmp[c] * const[m, c]
                continue
            fell_back[p] = True
        elif k == 2:
            for c in range(3):
                out[p, c] = (u * corners[t, 0, c] + v * corners[t, 1, c]
                             + w * corners[t, 2, c]) * const[m, c]
            continue
        for c in range(3):
            out[p, c] = const[m, c]


@njit
def surface_mask(grid, out):
    """Filled voxels with an empty face neighbour or on the grid's border."""
    X, Y, Z = grid.shape
    n = 0
    for x in range(X):
        for y in range(Y):
            for z in range(Z):
                if not grid[x, y, z]:
                    out[x, y, z] = False
                    continue
                s = (x == 0 or y == 0 or z == 0 or x == X - 1 or y == Y - 1 or z == Z - 1
                     or not grid[x - 1, y, z] or not grid[x + 1, y, z] or not grid[x, y - 1, z]
                     or not grid[x, y + 1, z] or not grid[x, y, z - 1] or not grid[x, y, z + 1])
                out[x, y, z] = s
                if s:
                    n += 1
    return n


@njit
def surface_slots(surface, slot, idx):
    """``idx`` = np.argwhere(surface) (rows in C order) and ``slot`` = each True voxel's row in
    it, -1 elsewhere, in one pass without temporaries."""
    X, Y, Z = surface.shape
    n = 0
    for x in range(X):
        for y in range(Y):
            for z in range(Z):
                if surface[x, y, z]:
                    slot[x, y, z] = n
                    idx[n, 0] = x
                    idx[n, 1] = y
                    idx[n, 2] = z
                    n += 1
                else:
                    slot[x, y, z] = -1


@njit
def _envelope(f, n, arg_in, d_out, arg_out, v, zb):
    """1D squared-distance transform of f[0:n] (inf = no feature), carrying the feature ids."""
    k = -1
    for q in range(n):
        if f[q] == np.inf:
            continue
        s = -np.inf
        while k >= 0:
            p = v[k]
            s = ((f[q] + q * q) - (f[p] + p * p)) / (2.0 * q - 2.0 * p)
            if s <= zb[k]:
                k -= 1
            else:
                break
        k += 1
        v[k] = q
        zb[k] = s if k > 0 else -np.inf
        zb[k + 1] = np.inf
    if k < 0:
        for q in range(n):
            d_out[q] = np.inf
            arg_out[q] = -1
        return
    j = 0
    for q in range(n):
        while zb[j + 1] < q:
            j += 1
        p = v[j]
        d_out[q] = (q - p) * (q - p) + f[p]
        arg_out[q] = arg_in[p]


@njit
def nearest_feature(feature):
    """Flat index of the nearest True voxel of ``feature`` (Euclidean) for every voxel; -1 if none."""
    X, Y, Z = feature.shape
    n = max(X, max(Y, Z))
    d = np.empty((X, Y, Z), np.float64)
    arg = np.empty((X, Y, Z), np.int64)
    f = np.empty(n, np.float64)
    a_in = np.empty(n, np.int64)
    d_o = np.empty(n, np.float64)
    a_o = np.empty(n, np.int64)
    v = np.empty(n, np.int64)
    zb = np.empty(n + 1, np.float64)
    for x in range(X):
        for y in range(Y):
            for z in range(Z):
                f[z] = 0.0 if feature[x, y, z] else np.inf
                a_in[z] = (x * Y + y) * Z + z
            _envelope(f, Z, a_in, d_o, a_o, v, zb)
            for z in range(Z):
                d[x, y, z] = d_o[z]
                arg[x, y, z] = a_o[z]
    for x in range(X):
        for z in range(Z):
            for y in range(Y):
                f[y] = d[x, y, z]
                a_in[y] = arg[x, y, z]
            _envelope(f, Y, a_in, d_o, a_o, v, zb)
            for y in range(Y):
                d[x, y, z] = d_o[y]
                arg[x, y, z] = a_o[y]
    for y in range(Y):
        for z in range(Z):
            for x in range(X):
                f[x] = d[x, y, z]
                a_in[x] = arg[x, y, z]
            _envelope(f, X, a_in, d_o, a_o, v, zb)
            for x in range(X):
                arg[x, y, z] = a_o[x]
    return arg


@njit
def scatter_surface(idx, col, tri, colours, triangle):
    """Each surface voxel's colour and nearest triangle into the grids (one pass, no index
    temporaries)."""
    for p in range(idx.shape[0]):
        x, y, z = idx[p, 0], idx[p, 1], idx[p, 2]
        for c in range(3):
            colours[x, y, z, c] = col[p, c]
        triangle[x, y, z] = tri[p]


@njit
def _run_envelope(d, arg, base, stride, n, v, fv, av, num, den):
    """``_envelope`` in place on the n voxels ``base + i * stride`` of the flat ``d``/``arg`` (a
    run: every voxel has a site), in exact integer arithmetic: the parabolas' crossings are kept
    as fractions num/den and compared by cross multiplication, so no division and no rounding.
    The stack keeps its parabolas' heights and sites, so the run is read once and written only
    where the distance shrinks."""
    k = -1
    for q in range(n):
        i = base + q * stride
        fq = np.int64(d[i])
        sn = 0
        sd = 1
        while k > 0:
            p = v[k]
            sn = (fq + q * q) - (fv[k] + p * p)
            sd = 2 * (q - p)
            if sn * den[k] <= num[k] * sd:
                k -= 1
            else:
                break
        if k == 0:
            p = v[0]
            sn = (fq + q * q) - (fv[0] + p * p)
            sd = 2 * (q - p)
        k += 1
        v[k] = q
        fv[k] = fq
        av[k] = arg[i]
        num[k] = sn
        den[k] = sd
    j = 0
    for q in range(n):
        while j < k and num[j + 1] < q * den[j + 1]:
            j += 1
        p = v[j]
        dd = (q - p) * (q - p) + fv[j]
        i = base + q * stride
        if dd < d[i]:
            d[i] = dd
            arg[i] = av[j]


@njit
def _run_window(d, arg, base, stride, n, fv, av):
    """The same as ``_run_envelope`` by searching outwards from each voxel while a nearer site
    is still possible (radius² < its best): cheaper when the heights are small, as near the
    surface; O(n * sqrt(largest height)), so only used on runs whose heights are bounded."""
    for q in range(n):
        fv[q] = d[base + q * stride]
        av[q] = arg[base + q * stride]
    for q in range(n):
        best = fv[q]
        bp = q
        r = 1
        while r * r < best:
            if q - r >= 0 and fv[q - r] + r * r < best:
                best = fv[q - r] + r * r
                bp = q - r
            if q + r < n and fv[q + r] + r * r < best:
                best = fv[q + r] + r * r
                bp = q + r
            r += 1
        if bp != q:
            d[base + q * stride] = best
            arg[base + q * stride] = av[bp]


@njit
def surface_sites(grid, surface, slot, idx, d, arg):
    """One sweep of the grid in memory order doing three jobs: the surface mask (as
    ``surface_mask``), the surface voxels' rows and slots (as ``surface_slots``: ``idx`` needs
    room for every filled voxel, its first n rows are filled), and the first half of the
    interior fill's pass along x (``fill_from_sites``): each filled voxel's nearest surface
    voxel at or below it along x, as squared distance ``d`` and site slot ``arg`` (flat int32,
    grid-sized; written for filled voxels only).  Returns (surface voxels, interior voxels).
    One sweep instead of three: each sweep of the whole grid costs about as much as a pass of
    the fill over the filled voxels."""
    X, Y, Z = grid.shape
    last = np.full(Y * Z, -1, np.int64)  # per (y, z): x of the last surface voxel of the run
    last_slot = np.zeros(Y * Z, np.int32)
    n = 0
    inner = 0
    for x in range(X):
        for y in range(Y):
            for z in range(Z):
                yz = y * Z + z
                if not grid[x, y, z]:
                    surface[x, y, z] = False
                    slot[x, y, z] = -1
                    last[yz] = -1
                    continue
                s = (x == 0 or y == 0 or z == 0 or x == X - 1 or y == Y - 1 or z == Z - 1
                     or not grid[x - 1, y, z] or not grid[x + 1, y, z] or not grid[x, y - 1, z]
                     or not grid[x, y + 1, z] or not grid[x, y, z - 1] or not grid[x, y, z + 1])
                surface[x, y, z] = s
                c = (x * Y + y) * Z + z
                if s:
                    slot[x, y, z] = n
                    idx[n, 0] = x
                    idx[n, 1] = y
                    idx[n, 2] = z
                    last[yz] = x
                    last_slot[yz] = n
                    d[c] = 0
                    arg[c] = n
                    n += 1
                else:
                    # a run along x starts with a surface voxel: last[yz] >= 0 here
                    slot[x, y, z] = -1
                    inner += 1
                    p = last[yz]
                    d[c] = (x - p) * (x - p)
                    arg[c] = last_slot[yz]
    return n, inner


@njit
def fill_from_sites(grid, surface, slot, d, arg, site_colours, colours, window=12):
    """Give every interior voxel (filled, not on the surface) the colour of a nearest surface
    voxel (Euclidean, exact; on ties any of the nearest, not necessarily ``nearest_feature``'s),
    continuing from ``surface_sites`` (its ``surface``, ``slot``, ``d`` and ``arg``, which this
    changes).  ``site_colours`` (n, 3) is the colour of each surface voxel by slot.  Returns how
    many voxels were filled.

    ``nearest_feature``'s separable passes (x, y, z), each restricted to runs of filled voxels:
    a run along an axis ends at surface voxels on both sides (a filled voxel beside an empty one
    or the border is on the surface), and the site nearest an interior voxel along that axis
    lies inside the run holding it, since the run's end is a site and anything beyond the end is
    farther.  So the passes touch only filled voxels, each line's envelope only its runs holding
    interior voxels, in int32 (half the memory of the grid-wide int64 transform, which took most
    of the capture's time).  A run whose squared distances so far are all at most ``window``²
    is searched outwards voxel by voxel (``_run_window``, faster there); deeper runs take the
    envelope, linear in the run's length whatever the depth.  Sites are carried as slots, so the
    colour is copied from the small ``site_colours``, not from the colour grid."""
    X, Y, Z = grid.shape
    n = max(X, max(Y, Z))
    # pass 1 (x), its second sweep (the first is surface_sites'): the nearest site above
    last = np.full(Y * Z, -1, np.int64)
    last_slot = np.zeros(Y * Z, np.int32)
    for x in range(X - 1, -1, -1):
        for y in range(Y):
            for z in range(Z):
                yz = y * Z + z
                if not grid[x, y, z]:
                    last[yz] = -1
                elif surface[x, y, z]:
                    last[yz] = x
                    last_slot[yz] = slot[x, y, z]
                else:
                    p = last[yz]
                    dd = (p - x) * (p - x)
                    c = (x * Y + y) * Z + z
                    if dd < d[c]:
                        d[c] = dd
                        arg[c] = last_slot[yz]
    v = np.empty(n, np.int64)
    fv = np.empty(n, np.int64)
    av = np.empty(n, np.int64)
    num = np.empty(n + 1, np.int64)
    den = np.empty(n + 1, np.int64)
    w2 = window * window
    # pass 2 (y): per line along y, each run of filled voxels holding interior voxels; an interior
    # voxel at squared distance 1 cannot get nearer, so runs holding only those are left alone
    for x in range(X):
        for z in range(Z):
            y = 0
            while y < Y:
                if not grid[x, y, z]:
                    y += 1
                    continue
                y0 = y
                has_inner = False
                deepest = 0
                while y < Y and grid[x, y, z]:
                    dd = d[(x * Y + y) * Z + z]
                    if not surface[x, y, z] and dd > 1:
                        has_inner = True
                        deepest = max(deepest, dd)
                    y += 1
                if not has_inner:
                    continue
                base = (x * Y + y0) * Z + z
                if deepest <= w2:
                    _run_window(d, arg, base, Z, y - y0, fv, av)
                else:
                    _run_envelope(d, arg, base, Z, y - y0, v, fv, av, num, den)
    # pass 3 (z, contiguous): the same, then the colour copied from the site
    filled = 0
    for x in range(X):
        for y in range(Y):
            z = 0
            while z < Z:
                if not grid[x, y, z]:
                    z += 1
                    continue
                z0 = z
                has_inner = False
                deepest = 0
                base = (x * Y + y) * Z + z0
                while z < Z and grid[x, y, z]:
                    if not surface[x, y, z]:
                        has_inner = True
                        deepest = max(deepest, d[base + z - z0])
                    z += 1
                if not has_inner:
                    continue
                if deepest <= 1:
                    pass  # nothing to improve
                elif deepest <= w2:
                    _run_window(d, arg, base, 1, z - z0, fv, av)
                else:
                    _run_envelope(d, arg, base, 1, z - z0, v, fv, av, num, den)
                for k in range(z0, z):
                    if not surface[x, y, k]:
                        src = arg[base + k - z0]
                        for c in range(3):
                            colours[x, y, k, c] = site_colours[src, c]
                        filled += 1
    return filled


def surface_arrays(grid):
    """(surface mask, slots int32, rows (n, 3) of the surface voxels, d, arg): ``surface_sites``
    with its arrays allocated."""
    surface = np.empty(grid.shape, np.bool_)
    slot = np.empty(grid.shape, np.int32)
    idx = np.empty((int(np.count_nonzero(grid)), 3), np.int64)
    d = np.empty(grid.size, np.int32)
    arg = np.empty(grid.size, np.int32)
    n, _ = surface_sites(grid, surface, slot, idx, d, arg)
    return surface, slot, idx[:n], d, arg


def fill_interior(grid, surface, colours, window=12):
    """Give every interior voxel of ``grid`` the colour (in ``colours``) of a nearest surface
    voxel: ``surface_sites`` then ``fill_from_sites``.  ``surface`` must be ``surface_mask``'s
    of ``grid``.  Returns how many voxels were filled."""
    grid = np.ascontiguousarray(grid, np.bool_)
    own, slot, idx, d, arg = surface_arrays(grid)
    if not np.array_equal(own, surface):
        raise ValueError("surface is not the surface mask of grid")
    site_colours = np.ascontiguousarray(colours[idx[:, 0], idx[:, 1], idx[:, 2]], np.float32)
    return fill_from_sites(grid, own, slot, d, arg, site_colours, colours, window)


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


def _bucket_spec(verts, tris, cell=None):
    used = verts[np.unique(tris)]
    lo = used.min(axis=0)
    hi = used.max(axis=0)
    ext = np.maximum(hi - lo, 1e-12)
    h = float((np.prod(ext) / max(CELLS_PER_TRIANGLE * len(tris), 1.0)) ** (1.0 / 3.0))
    if cell is not None:
        # the queries are voxel centres within about a voxel of the surface: buckets of a voxel
        # hold few triangles, and the first ring around one answers most queries
        h = min(h, float(cell))
    h = max(h, float(ext.max()) / 256.0)
    dims = np.minimum(np.floor(ext / h).astype(np.int64) + 1, 257)
    return lo.astype(np.float64), h, dims


def nearest_surface(points, vertices, triangles, cell=None):
    """(triangle, barycentric (n, 3), squared distance) of the nearest triangle to each point."""
    points = np.ascontiguousarray(points, np.float64).reshape(-1, 3)
    verts = np.ascontiguousarray(vertices, np.float64)
    tris = np.ascontiguousarray(triangles, np.int64)
    n = len(points)
    out_tri = np.full(n, -1, np.int64)
    out_bary = np.zeros((n, 3), np.float64)
    out_d2 = np.full(n, np.inf)
    if n and len(tris):
        lo, h, dims = _bucket_spec(verts, tris, cell)
        start, ids = bucket_triangles(verts, tris, lo, h, dims)
        nearest_triangles(points, verts, tris, lo, h, dims, start, ids, out_tri, out_bary, out_d2)
    return out_tri, out_bary, out_d2


def _nearest_for_voxels(surface, idx, origin, vs, verts, tris, slot=None):
    """Nearest triangle of each surface voxel (rows of ``idx``): triangle by triangle within a
    voxel (most surface voxels' centres are that close to the surface), then the bucket search
    for the rest.  Both measure with the same kernel and break ties alike, so the answer is
    the one the bucket search alone would give."""
    n = len(idx)
    if slot is None:
        slot = np.full(surface.shape, -1, np.int32)
        slot[tuple(idx.T)] = np.arange(n)
    tri = np.full(n, -1, np.int64)
    bary = np.zeros((n, 3))
    d2 = np.full(n, np.inf)
    margin = NEAR_MARGIN * vs
    nearest_near_triangles(slot, origin, vs, margin, verts, tris, tri, bary, d2)
    rest = np.flatnonzero(~(d2 <= margin * margin))
    if len(rest):
        centres = origin + (idx[rest] + 0.5) * vs
        t2, b2, _ = nearest_surface(centres, verts, tris, cell=vs)
        tri[rest], bary[rest] = t2, b2
    return tri, bary


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
    tri, bary = _nearest_for_voxels(surface, idx, np.asarray(origin, np.float64),
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
