"""Numba kernels of the column-parity voxelizer (see docs/VOXELIZER.md).

Coordinates here are "fine grid" coordinates of one pass: columns 0 and 1 of ``P`` are the ray
plane (u, v), column 2 the depth along the ray, scaled so that every ray and every depth sample
sits on an integer.  A pass rasterizes each triangle over the integer lattice points inside its
projected bounding box (a uniform 2D grid whose cells are the columns themselves), so no ray ever
tests a triangle that does not cover it.

Tie rule: the ray point is treated as if moved by (+eps, +eps*delta) in (u, v), and a depth sample
as if moved by +eps along the ray.  On an edge this includes the edge when its direction, taken
with the triangle oriented counter-clockwise, has dv < 0 or (dv == 0 and du > 0).  Each edge
function is evaluated from the edge's lexicographically smaller end point, so the two triangles
sharing an edge compute bit-identical values of opposite sign: a ray through a shared edge or
vertex is counted exactly once, whatever the rounding.
"""
import numpy as np

from .jit import njit


@njit
def _edge(xu, xv, yu, yv, orient):
    """Canonical edge x->y: (start u, start v, du, dv, sign, include-on-tie)."""
    if xu < yu or (xu == yu and xv < yv):
        pu, pv, du, dv, sg = xu, xv, yu - xu, yv - xv, orient
    else:
        pu, pv, du, dv, sg = yu, yv, xu - yu, xv - yv, -orient
    # Direction of the edge in the counter-clockwise orientation of the triangle.
    eu = (yu - xu) * orient
    ev = (yv - xv) * orient
    include = ev < 0.0 or (ev == 0.0 and eu > 0.0)
    return pu, pv, du, dv, sg, include


@njit
def raster_hits(P, tris, parts, u_lo, u_hi, n_v, h_col, h_t, h_p):
    """Every (column, triangle) crossing in fine rows ``u_lo <= u < u_hi``.

    Stores column ``(u - u_lo) * n_v + v``, depth and part of each crossing in ``h_col``,
    ``h_t``, ``h_p`` while they have room, and returns the number of crossings (when that is
    more than the room, the caller grows the arrays and calls again).
    """
    cap = h_col.shape[0]
    n = 0
    for ti in range(tris.shape[0]):
        a = tris[ti, 0]
        b = tris[ti, 1]
        c = tris[ti, 2]
        au = P[a, 0]
        av = P[a, 1]
        bu = P[b, 0]
        bv = P[b, 1]
        cu = P[c, 0]
        cv = P[c, 1]
        i0 = max(int(np.ceil(min(au, min(bu, cu)))), u_lo)
        i1 = min(int(np.floor(max(au, max(bu, cu)))), u_hi - 1)
        if i0 > i1:
            continue
        j0 = max(int(np.ceil(min(av, min(bv, cv)))), 0)
        j1 = min(int(np.floor(max(av, max(bv, cv)))), n_v - 1)
        if j0 > j1:
            continue
        area = (bu - au) * (cv - av) - (bv - av) * (cu - au)
        if area == 0.0:
            continue  # edge-on to the ray: its neighbours' shared edges decide the tie
        orient = 1.0 if area > 0.0 else -1.0
        # Edge k is opposite vertex k, so its edge function is that vertex's barycentric weight.
        p0u, p0v, d0u, d0v, s0, inc0 = _edge(bu, bv, cu, cv, orient)
        p1u, p1v, d1u, d1v, s1, inc1 = _edge(cu, cv, au, av, orient)
        p2u, p2v, d2u, d2v, s2, inc2 = _edge(au, av, bu, bv, orient)
        ad = P[a, 2]
        bd = P[b, 2]
        cd = P[c, 2]
        part = parts[ti]
        for i in range(i0, i1 + 1):
            fu = float(i)
            base = (i - u_lo) * n_v
            for j in range(j0, j1 + 1):
                fv = float(j)
                e0 = s0 * (d0u * (fv - p0v) - d0v * (fu - p0u))
                if e0 < 0.0 or (e0 == 0.0 and not inc0):
                    continue
                e1 = s1 * (d1u * (fv - p1v) - d1v * (fu - p1u))
                if e1 < 0.0 or (e1 == 0.0 and not inc1):
                    continue
                e2 = s2 * (d2u * (fv - p2v) - d2v * (fu - p2u))
                if e2 < 0.0 or (e2 == 0.0 and not inc2):
                    continue
                if n < cap:
                    w = e0 + e1 + e2
                    h_t[n] = (e0 * ad + e1 * bd + e2 * cd) / w if w > 0.0 else (ad + bd + cd) / 3.0
                    h_col[n] = base + j
                    h_p[n] = part
                n += 1
    return n


@njit
def bucket_hits(n, h_col, h_t, h_p, n_cols):
    """Counting sort of the crossings by column: (start (n_cols + 1,), depth, part)."""
    start = np.zeros(n_cols + 1, np.int64)
    for x in range(n):
        start[h_col[x] + 1] += 1
    for c in range(n_cols):
        start[c + 1] += start[c]
    fill = start[:-1].copy()
    t = np.empty(n, np.float64)
    p = np.empty(n, np.int32)
    for x in range(n):
        c = h_col[x]
        t[fill[c]] = h_t[x]
        p[fill[c]] = h_p[x]
        fill[c] += 1
    return start, t, p


@njit
def _sort_hits(t, p, lo, hi):
    """Sort hits lo..hi in place by (part, depth).

    Shell sort: runs are mostly a handful of crossings (then it is an insertion sort), and it
    stays subquadratic on pathological columns without pulling in numba's heavy sort kernels.
    """
    gap = 1
    while gap < (hi - lo) // 3:
        gap = 3 * gap + 1
    while gap > 0:
        for x in range(lo + gap, hi):
            tv = t[x]
            pv = p[x]
            y = x - gap
            while y >= lo and (p[y] > pv or (p[y] == pv and t[y] > tv)):
                t[y + gap] = t[y]
                p[y + gap] = p[y]
                y -= gap
            t[y + gap] = tv
            p[y + gap] = pv
        gap //= 3


@njit
def fill_columns(start, hit_t, hit_p, by_part, u_lo, u_hi, n_v, n_d, k, out):
    """Turn each fine column's crossings into inside samples and add them to ``out``.

    A depth sample s is inside a part when the number of that part's crossings with depth > s is
    odd; parts are united.  ``out[U, V, D]`` counts inside samples per coarse voxel
    (fine column (u, v) belongs to coarse column (u // k, v // k), sample s to voxel s // k).
    """
    max_m = 0
    for col in range((u_hi - u_lo) * n_v):
        m = start[col + 1] - start[col]
        if m > max_m:
            max_m = m
    iv_lo = np.empty(max_m + 2, np.int64)
    iv_hi = np.empty(max_m + 2, np.int64)
    for col in range((u_hi - u_lo) * n_v):
        lo = start[col]
        hi = start[col + 1]
        if hi == lo:
            continue
        _sort_hits(hit_t, hit_p, lo, hi)
        n_iv = 0
        g0 = lo
        while g0 < hi:
            g1 = g0 + 1
            while g1 < hi and hit_p[g1] == hit_p[g0]:
                g1 += 1
            m = g1 - g0
            # Between crossing r-1 and r (r = 0..m) there are m - r crossings beyond.
            for r in range(m + 1):
                if (m - r) % 2 == 0:
                    continue
                s0 = 0 if r == 0 else int(np.ceil(hit_t[g0 + r - 1]))
                s1 = n_d if r == m else int(np.ceil(hit_t[g0 + r]))
                s0 = max(s0, 0)
                s1 = min(s1, n_d)
                if s0 < s1:
                    iv_lo[n_iv] = s0
                    iv_hi[n_iv] = s1
                    n_iv += 1
            g0 = g1
        if n_iv == 0:
            continue
        if by_part and n_iv > 1:
            # Overlapping parts: merge intervals so a sample is counted once.  The interval
            # starts are distinct sample indices per part; sort by start (insertion: few parts
            # cross one column) and sweep.
            for x in range(1, n_iv):
                a0 = iv_lo[x]
                a1 = iv_hi[x]
                y = x - 1
                while y >= 0 and iv_lo[y] > a0:
                    iv_lo[y + 1] = iv_lo[y]
                    iv_hi[y + 1] = iv_hi[y]
                    y -= 1
                iv_lo[y + 1] = a0
                iv_hi[y + 1] = a1
            w = 0
            for x in range(1, n_iv):
                if iv_lo[x] <= iv_hi[w]:
                    if iv_hi[x] > iv_hi[w]:
                        iv_hi[w] = iv_hi[x]
                else:
                    w += 1
                    iv_lo[w] = iv_lo[x]
                    iv_hi[w] = iv_hi[x]
            n_iv = w + 1
        fu = u_lo + col // n_v
        cu = fu // k
        cv = (col % n_v) // k
        for x in range(n_iv):
            s0 = iv_lo[x]
            s1 = iv_hi[x]
            if k == 1:
                for s in range(s0, s1):
                    out[cu, cv, s] += 1
            else:
                for z in range(s0 // k, (s1 - 1) // k + 1):
                    out[cu, cv, z] += min(s1, (z + 1) * k) - max(s0, z * k)


@njit
def combine_axes(cz, cx, cy, robust, need, want_med, med, grid, box):
    """Threshold (and, when ``robust``, majority-vote) the passes into ``grid``.

    ``cz`` is laid out (X, Y, Z), ``cx`` (Y, Z, X), ``cy`` (X, Z, Y); ``med`` gets the median
    sample count per voxel when ``want_med``.  ``box`` (6,) gets the bounding box of the filled
    voxels (lo xyz, hi xyz exclusive; all zero when empty).  Returns (filled voxels, voxels on
    which the three passes do not all agree).
    """
    nx, ny, nz = cz.shape
    disagree = 0
    rows = 0
    lo0, lo1, lo2 = nx, ny, nz
    hi0, hi1, hi2 = 0, 0, 0
    tile = 16  # (x, y) tiles keep the cache lines of the transposed layouts resident
    for y0 in range(0, ny, tile):
        for x0 in range(0, nx, tile):
            for x in range(x0, min(x0 + tile, nx)):
                for y in range(y0, min(y0 + tile, ny)):
                    first = -1
                    last = -1
                    for z in range(nz):
                        m = int(cz[x, y, z])
                        if robust:
                            b = int(cx[y, z, x])
                            c = int(cy[x, z, y])
                            votes = 0
                            if m >= need:
                                votes += 1
                            if b >= need:
                                votes += 1
                            if c >= need:
                                votes += 1
                            if votes == 1 or votes == 2:
                                disagree += 1
                            m = m + b + c - max(m, max(b, c)) - min(m, min(b, c))
                        if want_med:
                            med[x, y, z] = m
                        f = m >= need
                        grid[x, y, z] = f
                        if f:
                            if first < 0:
                                first = z
                            last = z
                    if first >= 0:
                        rows += 1
                        lo0 = min(lo0, x)
                        lo1 = min(lo1, y)
                        lo2 = min(lo2, first)
                        hi0 = max(hi0, x + 1)
                        hi1 = max(hi1, y + 1)
                        hi2 = max(hi2, last + 1)
    if rows == 0:
        lo0 = lo1 = lo2 = 0
    box[0] = lo0
    box[1] = lo1
    box[2] = lo2
    box[3] = hi0
    box[4] = hi1
    box[5] = hi2
    return disagree


# ---- mesh preparation: validation, welding, topology (all O(n) with open addressing) ----

@njit
def mesh_bounds(verts, tris):
    """(min xyz, max xyz, number of non-finite used vertices, first such vertex or -1)."""
    used = np.zeros(verts.shape[0], np.bool_)
    for ti in range(tris.shape[0]):
        for e in range(3):
            used[tris[ti, e]] = True
    bmin = np.full(3, np.inf)
    bmax = np.full(3, -np.inf)
    bad = 0
    first = -1
    for vi in range(verts.shape[0]):  # in vertex order: sequential reads
        if not used[vi]:
            continue
        x = verts[vi, 0]
        y = verts[vi, 1]
        z = verts[vi, 2]
        if not (np.isfinite(x) and np.isfinite(y) and np.isfinite(z)):
            bad += 1
            if first < 0:
                first = vi
            continue
        bmin[0] = min(bmin[0], x)
        bmin[1] = min(bmin[1], y)
        bmin[2] = min(bmin[2], z)
        bmax[0] = max(bmax[0], x)
        bmax[1] = max(bmax[1], y)
        bmax[2] = max(bmax[2], z)
    return bmin, bmax, bad, first


@njit
def _table_size(n):
    size = 16
    while size < 2 * n:
        size *= 2
    return size


@njit
def weld_ids(bits):
    """Welded id per vertex from the int64 bit patterns of its (x, y, z) (first-seen order)."""
    n = bits.shape[0]
    size = _table_size(n)
    mask = size - 1
    table = np.full(size, -1, np.int64)
    ids = np.empty(n, np.int64)
    first = np.empty(n, np.int64)
    n_ids = 0
    for i in range(n):
        h = bits[i, 0] * 0x2545F491 + bits[i, 1] * 0x9E3779B1 + bits[i, 2] * 0x85EBCA77
        h ^= h >> 29
        slot = h & mask
        while True:
            j = table[slot]
            if j < 0:
                table[slot] = n_ids
                first[n_ids] = i
                ids[i] = n_ids
                n_ids += 1
                break
            r = first[j]
            if bits[r, 0] == bits[i, 0] and bits[r, 1] == bits[i, 1] and bits[r, 2] == bits[i, 2]:
                ids[i] = j
                break
            slot = (slot + 1) & mask
    return ids, n_ids


@njit
def degenerate_triangles(verts, tris, welded, out):
    """out[t] = triangle t has a repeated welded vertex or an exactly zero cross product."""
    n = 0
    for t in range(tris.shape[0]):
        a = welded[t, 0]
        b = welded[t, 1]
        c = welded[t, 2]
        deg = a == b or b == c or a == c
        if not deg:
            i, j, k = tris[t, 0], tris[t, 1], tris[t, 2]
            ux = verts[j, 0] - verts[i, 0]
            uy = verts[j, 1] - verts[i, 1]
            uz = verts[j, 2] - verts[i, 2]
            vx = verts[k, 0] - verts[i, 0]
            vy = verts[k, 1] - verts[i, 1]
            vz = verts[k, 2] - verts[i, 2]
            deg = uy * vz - uz * vy == 0.0 and uz * vx - ux * vz == 0.0 and ux * vy - uy * vx == 0.0
        out[t] = deg
        if deg:
            n += 1
    return n


@njit
def edge_stats(wt, n_vertices):
    """(edges used an odd number of times, edges used more than twice) over welded triangles.

    Edges are bucketed by their smaller vertex (a counting sort), so each bucket is a handful
    of entries that a tiny insertion sort groups.
    """
    start = np.zeros(n_vertices + 1, np.int64)
    for t in range(wt.shape[0]):
        for e in range(3):
            a = wt[t, e]
            b = wt[t, (e + 1) % 3]
            start[min(a, b) + 1] += 1
    for v in range(n_vertices):
        start[v + 1] += start[v]
    fill = start[:-1].copy()
    other = np.empty(start[-1], np.int64)
    for t in range(wt.shape[0]):
        for e in range(3):
            a = wt[t, e]
            b = wt[t, (e + 1) % 3]
            lo = min(a, b)
            other[fill[lo]] = max(a, b)
            fill[lo] += 1
    odd = 0
    many = 0
    for v in range(n_vertices):
        lo = start[v]
        hi = start[v + 1]
        for x in range(lo + 1, hi):
            val = other[x]
            y = x - 1
            while y >= lo and other[y] > val:
                other[y + 1] = other[y]
                y -= 1
            other[y + 1] = val
        x = lo
        while x < hi:
            r = x + 1
            while r < hi and other[r] == other[x]:
                r += 1
            if (r - x) % 2 == 1:
                odd += 1
            if r - x > 2:
                many += 1
            x = r
    return odd, many


@njit
def triangle_parts(tris, n_vertices):
    """Connected components of triangles sharing a vertex: labels 0..n-1 and n."""
    parent = np.arange(n_vertices)
    for ti in range(tris.shape[0]):
        for e in range(1, 3):
            a = tris[ti, 0]
            b = tris[ti, e]
            while parent[a] != a:
                parent[a] = parent[parent[a]]
                a = parent[a]
            while parent[b] != b:
                parent[b] = parent[parent[b]]
                b = parent[b]
            if a != b:
                if a < b:
                    parent[b] = a
                else:
                    parent[a] = b
    label = np.full(n_vertices, -1, np.int64)
    labels = np.empty(tris.shape[0], np.int32)
    n = 0
    for ti in range(tris.shape[0]):
        r = tris[ti, 0]
        while parent[r] != r:
            r = parent[r]
        if label[r] < 0:
            label[r] = n
            n += 1
        labels[ti] = label[r]
    return labels, n
