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

from ..jit import njit


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
            # Narrow the row to where each edge function can be >= 0 (a slack of one column
            # absorbs rounding; the exact tests below decide), so long slivers cost their
            # crossings, not their bounding boxes.
            lo_f = float(j0)
            hi_f = float(j1)
            for du, dv, pu, pv, sg in ((d0u, d0v, p0u, p0v, s0), (d1u, d1v, p1u, p1v, s1),
                                       (d2u, d2v, p2u, p2v, s2)):
                if du != 0.0:
                    root = pv + dv * (fu - pu) / du
                    if sg * du > 0.0:
                        lo_f = max(lo_f, root - 1.0)
                    else:
                        hi_f = min(hi_f, root + 1.0)
            if not lo_f <= hi_f:
                continue
            for j in range(int(np.ceil(lo_f)), int(np.floor(hi_f)) + 1):
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
def _sort_pairs(key, val, lo, hi):
    """Shell sort of key[lo:hi] (int64), carrying val along."""
    gap = 1
    while gap < (hi - lo) // 3:
        gap = 3 * gap + 1
    while gap > 0:
        for x in range(lo + gap, hi):
            kv = key[x]
            vv = val[x]
            y = x - gap
            while y >= lo and key[y] > kv:
                key[y + gap] = key[y]
                val[y + gap] = val[y]
                y -= gap
            key[y + gap] = kv
            val[y + gap] = vv
        gap //= 3


@njit
def _merge_intervals(iv_lo, iv_hi, lo, hi):
    """Sort [lo, hi) of the intervals by start and merge overlaps in place; returns the new end."""
    if hi - lo < 2:
        return hi
    _sort_pairs(iv_lo, iv_hi, lo, hi)
    w = lo
    for x in range(lo + 1, hi):
        if iv_lo[x] <= iv_hi[w]:
            if iv_hi[x] > iv_hi[w]:
                iv_hi[w] = iv_hi[x]
        else:
            w += 1
            iv_lo[w] = iv_lo[x]
            iv_hi[w] = iv_hi[x]
    return w + 1


@njit
def fill_columns(start, hit_t, hit_p, by_part, cavity, u_lo, u_hi, n_v, n_d, k, axis, out):
    """Turn each fine column's crossings into inside samples and add them to ``out``.

    A depth sample s is inside a part when the number of that part's crossings with depth > s is
    odd.  With ``by_part`` the parts are united, except that parts flagged in ``cavity`` (closed
    shells wound against the solid ones) are combined by exclusive or: a cavity inside a solid
    is carved out of it, a stray inverted shell outside every solid is still filled.
    ``out[X, Y, Z]`` counts inside samples per voxel: fine column (u, v) belongs to coarse column
    (u // k, v // k), sample s to voxel s // k along the ray ``axis`` (the plane axes (u, v) are
    the other two, ascending).  Writing every pass into the same layout costs strided writes
    along x and y, but only for the filled runs, and lets the passes be combined in one
    sequential sweep.
    """
    max_m = 0
    for col in range((u_hi - u_lo) * n_v):
        m = start[col + 1] - start[col]
        if m > max_m:
            max_m = m
    # A part with g crossings gives at most g intervals, so <= m in all; the exclusive or then
    # needs the cavity intervals plus twice m end points.
    room = 3 * max_m + 4
    iv_lo = np.empty(room, np.int64)
    iv_hi = np.empty(room, np.int64)
    cv_lo = np.empty(room, np.int64)
    cv_hi = np.empty(room, np.int64)
    for col in range((u_hi - u_lo) * n_v):
        lo = start[col]
        hi = start[col + 1]
        if hi == lo:
            continue
        _sort_hits(hit_t, hit_p, lo, hi)
        n_iv = 0
        n_cv = 0
        g0 = lo
        while g0 < hi:
            g1 = g0 + 1
            while g1 < hi and hit_p[g1] == hit_p[g0]:
                g1 += 1
            m = g1 - g0
            is_cav = by_part and cavity[hit_p[g0]]
            # Between crossing r-1 and r (r = 0..m) there are m - r crossings beyond.
            for r in range(m + 1):
                if (m - r) % 2 == 0:
                    continue
                s0 = 0 if r == 0 else int(np.ceil(hit_t[g0 + r - 1]))
                s1 = n_d if r == m else int(np.ceil(hit_t[g0 + r]))
                s0 = max(s0, 0)
                s1 = min(s1, n_d)
                if s0 < s1:
                    if is_cav:
                        cv_lo[n_cv] = s0
                        cv_hi[n_cv] = s1
                        n_cv += 1
                    else:
                        iv_lo[n_iv] = s0
                        iv_hi[n_iv] = s1
                        n_iv += 1
            g0 = g1
        if by_part:
            # Overlapping parts: merge so a sample is counted once.
            n_iv = _merge_intervals(iv_lo, iv_hi, 0, n_iv)
            if n_cv:
                n_cv = _merge_intervals(cv_lo, cv_hi, 0, n_cv)
                # Exclusive or of two sets of disjoint intervals: sort all end points, then
                # pair them up (inside = an odd number of end points at or before s).
                n_e = 0
                for x in range(n_iv):
                    cv_lo[n_cv + n_e] = iv_lo[x]
                    cv_lo[n_cv + n_e + 1] = iv_hi[x]
                    n_e += 2
                for x in range(n_cv):
                    cv_lo[n_cv + n_e] = cv_lo[x]
                    cv_lo[n_cv + n_e + 1] = cv_hi[x]
                    n_e += 2
                _sort_pairs(cv_lo, cv_hi, n_cv, n_cv + n_e)
                n_iv = 0
                for x in range(n_cv, n_cv + n_e, 2):
                    if cv_lo[x] < cv_lo[x + 1]:
                        iv_lo[n_iv] = cv_lo[x]
                        iv_hi[n_iv] = cv_lo[x + 1]
                        n_iv += 1
        if n_iv == 0:
            continue
        fu = u_lo + col // n_v
        cu = fu // k
        cv = (col % n_v) // k
        for x in range(n_iv):
            s0 = iv_lo[x]
            s1 = iv_hi[x]
            for z in range(s0 // k, (s1 - 1) // k + 1):
                add = min(s1, (z + 1) * k) - max(s0, z * k)
                if axis == 2:
                    out[cu, cv, z] += add
                elif axis == 0:
                    out[z, cu, cv] += add
                else:
                    out[cu, z, cv] += add


@njit
def combine_axes(c0, c1, c2, mode, need, want_med, med, grid, box, x_lo, x_hi):
    """Threshold the passes' sample counts (all laid out (X, Y, Z)) into ``grid``.

    mode 0: one pass, ``c0``.  mode 1: ``c0`` holds votes (one sample per voxel, each of the three
    passes added 0 or 1): filled = at least 2.  mode 2: three count arrays, filled = median >=
    ``need``.  ``med`` gets the median count when ``want_med``.  Only slabs ``x_lo <= x < x_hi``
    (so the caller can report progress between slabs); ``box`` (6,) (lo xyz, hi xyz exclusive)
    is widened to the filled voxels found.  Returns the number of voxels on which the three
    passes do not all agree (0 in mode 0).
    """
    nx, ny, nz = c0.shape
    disagree = 0
    lo0, lo1, lo2 = box[0], box[1], box[2]
    hi0, hi1, hi2 = box[3], box[4], box[5]
    for x in range(x_lo, x_hi):
        for y in range(ny):
            first = -1
            last = -1
            for z in range(nz):
                m = int(c0[x, y, z])
                if mode == 1:
                    if m == 1 or m == 2:
                        disagree += 1
                    f = m >= 2
                else:
                    if mode == 2:
                        b = int(c1[x, y, z])
                        c = int(c2[x, y, z])
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
                lo0 = min(lo0, x)
                lo1 = min(lo1, y)
                lo2 = min(lo2, first)
                hi0 = max(hi0, x + 1)
                hi1 = max(hi1, y + 1)
                hi2 = max(hi2, last + 1)
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
        # Fold each coordinate to 32 bits first so the products cannot overflow (the same code
        # then runs as plain Python where numba is missing).
        h = 0
        for d in range(3):
            x = bits[i, d]
            x = (x ^ (x >> 32)) & 0xFFFFFFFF
            h ^= x * (0x2545F491, 0x1E3779B1, 0x05EBCA77)[d]
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



# A cell of ``weld_near`` keeps at most this many positions to compare with, which bounds the
# cost of a dense cluster (its later vertices then weld through the first ones).
WELD_CELL_CAP = 64


@njit
def weld_near(verts, bits, used, tol, side):
    """Welded id per vertex: used vertices within ``tol`` (> 0) of each other on every axis
    share an id (so do exact copies, used or not); ids are numbered in first-seen order.

    ``bits``: the int64 bit patterns of ``verts + 0.0`` (so -0.0 is 0.0).  Exact copies are
    merged first (``weld_ids``: one hash probe each); the distinct positions are then hashed
    into cells of size ``side`` (>= 2 * tol) and compared with the positions kept for their own
    cell, and for a neighbour cell when they lie within ``tol`` of the side between them: with
    ``side`` many times ``tol`` most vertices cost one probe, but a cell must not hold more than
    ``WELD_CELL_CAP`` positions of the mesh.
    """
    n = verts.shape[0]
    exact, n_exact = weld_ids(bits)
    rep = np.full(n_exact, -1, np.int64)  # a used vertex of each exact position
    for i in range(n):
        if used[i] and rep[exact[i]] < 0:
            rep[exact[i]] = i
    size = _table_size(n_exact)
    mask = size - 1
    # One row per slot, so a probe touches one cache line: cell x, y, z, the first kept
    # position of the cell (-1: empty slot), how many are kept.
    table = np.zeros((size, 5), np.int64)
    table[:, 3] = -1
    nxt = np.full(n_exact, -1, np.int64)
    parent = np.arange(n_exact)
    cell = np.zeros(3, np.int64)
    lo = np.zeros(3, np.int64)
    hi = np.zeros(3, np.int64)
    for e in range(n_exact):
        i = rep[e]
        if i < 0:
            continue
        for d in range(3):
            c = int(np.floor(verts[i, d] / side))
            cell[d] = c
            off = verts[i, d] - c * side
            lo[d] = c - 1 if off <= 1.001 * tol else c
            hi[d] = c + 1 if side - off <= 1.001 * tol else c
        own = -1
        for cx in range(lo[0], hi[0] + 1):
            for cy in range(lo[1], hi[1] + 1):
                for cz in range(lo[2], hi[2] + 1):
                    slot = _cell_slot(table, mask, cx, cy, cz)
                    if cx == cell[0] and cy == cell[1] and cz == cell[2]:
                        own = slot
                    f = table[slot, 3]
                    while f >= 0:
                        j = rep[f]
                        if (abs(verts[j, 0] - verts[i, 0]) <= tol
                                and abs(verts[j, 1] - verts[i, 1]) <= tol
                                and abs(verts[j, 2] - verts[i, 2]) <= tol):
                            a = _root(parent, e)
                            b = _root(parent, f)
                            if a != b:
                                parent[max(a, b)] = min(a, b)
                        f = nxt[f]
        if table[own, 3] < 0:
            table[own, 0] = cell[0]
            table[own, 1] = cell[1]
            table[own, 2] = cell[2]
        if table[own, 4] < WELD_CELL_CAP:
            nxt[e] = table[own, 3]
            table[own, 3] = e
            table[own, 4] += 1
    label = np.empty(n_exact, np.int64)
    n_ids = 0
    for e in range(n_exact):
        r = _root(parent, e)  # a set's root is its smallest index: numbered before e
        if r == e:
            label[e] = n_ids
            n_ids += 1
        else:
            label[e] = label[r]
    ids = np.empty(n, np.int64)
    for i in range(n):
        ids[i] = label[exact[i]]
    return ids, n_ids


@njit
def _root(parent, a):
    while parent[a] != a:
        parent[a] = parent[parent[a]]
        a = parent[a]
    return a


@njit
def _cell_slot(table, mask, x, y, z):
    """The slot of cell (x, y, z) in ``weld_near``'s open-addressing table: its own, or the
    empty one where it would go.  Coordinates are folded to 32 bits before mixing so the
    products cannot overflow (the same code then runs as plain Python where numba is missing)."""
    h = ((x ^ (x >> 32)) & 0xFFFFFFFF) * 0x2545F491
    h ^= ((y ^ (y >> 32)) & 0xFFFFFFFF) * 0x1E3779B1
    h ^= ((z ^ (z >> 32)) & 0xFFFFFFFF) * 0x05EBCA77
    h ^= h >> 29
    slot = h & mask
    while table[slot, 3] >= 0 and not (table[slot, 0] == x and table[slot, 1] == y
                                        and table[slot, 2] == z):
        slot = (slot + 1) & mask
    return slot


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
def edge_stats(wt, n_vertices, tri_part, n_parts):
    """(edges used an odd number of times, edges used more than twice, odd edges per part) over
    welded triangles.

    Edges are bucketed by their smaller vertex (a counting sort); each bucket is then sorted
    (usually a handful of entries) to group equal edges.
    """
    start = np.zeros(n_vertices + 1, np.int64)
    vpart = np.zeros(n_vertices, np.int64)
    for t in range(wt.shape[0]):
        for e in range(3):
            a = wt[t, e]
            b = wt[t, (e + 1) % 3]
            start[min(a, b) + 1] += 1
            vpart[a] = tri_part[t]
    for v in range(n_vertices):
        start[v + 1] += start[v]
    fill = start[:-1].copy()
    other = np.empty(start[-1], np.int64)
    dummy = np.empty(start[-1], np.int64)
    for t in range(wt.shape[0]):
        for e in range(3):
            a = wt[t, e]
            b = wt[t, (e + 1) % 3]
            lo = min(a, b)
            other[fill[lo]] = max(a, b)
            fill[lo] += 1
    odd = 0
    many = 0
    per_part = np.zeros(max(n_parts, 1), np.int64)
    for v in range(n_vertices):
        lo = start[v]
        hi = start[v + 1]
        _sort_pairs(other, dummy, lo, hi)
        x = lo
        while x < hi:
            r = x + 1
            while r < hi and other[r] == other[x]:
                r += 1
            if (r - x) % 2 == 1:
                odd += 1
                per_part[vpart[v]] += 1
            if r - x > 2:
                many += 1
            x = r
    return odd, many, per_part


@njit
def part_volumes(verts, tris, tri_part, n_parts, centre):
    """Signed volume enclosed by each part (positive when wound counter-clockwise outwards)."""
    vol = np.zeros(max(n_parts, 1))
    cx, cy, cz = centre[0], centre[1], centre[2]
    for t in range(tris.shape[0]):
        i, j, k = tris[t, 0], tris[t, 1], tris[t, 2]
        ax, ay, az = verts[i, 0] - cx, verts[i, 1] - cy, verts[i, 2] - cz
        bx, by, bz = verts[j, 0] - cx, verts[j, 1] - cy, verts[j, 2] - cz
        qx, qy, qz = verts[k, 0] - cx, verts[k, 1] - cy, verts[k, 2] - cz
        det = ax * (by * qz - bz * qy) - ay * (bx * qz - bz * qx) + az * (bx * qy - by * qx)
        vol[tri_part[t]] += det / 6.0
    return vol


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
