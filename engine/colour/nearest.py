"""The model's triangle nearest to each point, for the colour capture (``capture.py``).

A uniform grid of buckets over the triangles' boxes, searched ring by ring with the exact
closest point on each triangle (Ericson, Real-Time Collision Detection 5.1.5); ties go to the
lowest triangle index, so the result does not depend on the bucket order. Surface voxels are
first measured triangle by triangle against the triangles within ``NEAR_MARGIN`` voxels of
them (``nearest_near_triangles``), the rest by the bucket search (``nearest_for_voxels``).
"""
import numpy as np

from ..jit import njit

# Buckets per triangle (the grid has about this many cells per triangle, at most 256 per axis).
CELLS_PER_TRIANGLE = 2.0
# Surface voxels are measured triangle by triangle against the triangles within this many voxels
# (the rest by the bucket search).
NEAR_MARGIN = 1.0


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


def bucket_spec(verts, tris, cell=None):
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
        lo, h, dims = bucket_spec(verts, tris, cell)
        start, ids = bucket_triangles(verts, tris, lo, h, dims)
        nearest_triangles(points, verts, tris, lo, h, dims, start, ids, out_tri, out_bary, out_d2)
    return out_tri, out_bary, out_d2


def nearest_for_voxels(surface, idx, origin, vs, verts, tris, slot=None):
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
