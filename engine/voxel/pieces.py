"""Pieces of a voxel grid (its connected components) and the repairs that make a puzzle's answer
one sculpture instead of a cloud of loose cubes.

A player reads the answer of a 3D nonogram as one object; a thin part that the voxel centres
miss falls apart into single cubes floating in the air.  ``piece_stats`` measures that
(face- and corner-connected pieces, their sizes, loose single cubes); ``repair`` changes the grid:

* ``bridge``: every piece is joined to the largest piece of the mesh region it belongs to by
  the shortest chain of voxels the mesh passes through (the fewest added voxels per piece), so
  nothing is filled where the mesh is not;
* ``thin_parts``: where the mesh passes through a voxel and no voxel around it is filled (the
  part vanished at this resolution), the voxel is filled; then everything is bridged as above,
  so thin parts survive one voxel thick and attached;
* ``min_piece``: pieces of fewer voxels are dropped;
* ``keep_largest``: only the largest piece stays.

"Where the mesh passes through" is the conservative surface of the mesh: the voxels whose
closed box a triangle touches (``surface_voxels``).  Pieces are face-connected (6-connectivity)
unless said otherwise.  See docs/VOXELIZER.md ("Pieces").
"""
import numpy as np

from ..jit import njit

# Above this many voxels the analysis is skipped (it costs ~1-5 ms per 2**20 voxels and 16 bytes
# per run of filled voxels); puzzles are far smaller (the puzzle format stops at 2**24 cells).
MAX_ANALYSIS_VOXELS = 2**27
# The repairs run as single kernel calls of ~20 bytes a voxel: at most a puzzle's size, so they
# stay within about a second and never cost more than the puzzle itself.
MAX_REPAIR_VOXELS = 2**24
REPAIR_BYTES_PER_VOXEL = 24

# Codes in the ``changes`` grid ``repair`` returns.
THIN_ADDED, BRIDGE_ADDED, SMALL_REMOVED, OTHER_REMOVED = 1, 2, -1, -2


# ---------------------------------------------------------------------------------------------
# kernels


@njit
def column_runs(grid):
    """The runs of filled voxels along z of every (x, y) column of ``grid`` (bool (X, Y, Z)):
    (first int64 (X*Y + 1,): the runs of column x*Y + y are first[c]..first[c+1]-1, start and
    end int64: run r covers z = start[r] .. end[r]-1).  Runs come in x-major order."""
    X, Y, _ = grid.shape
    first = np.zeros(X * Y + 1, np.int64)
    # Count, then fill arrays of the right size (growing them inside the scan made it ~30x slower).
    n = _scan_runs(grid, first, first[:0], first[:0], False)
    start = np.empty(n, np.int64)
    end = np.empty(n, np.int64)
    _scan_runs(grid, first, start, end, True)
    return first, start, end


@njit
def _scan_runs(grid, first, start, end, store):
    X, Y, Z = grid.shape
    r = 0
    for x in range(X):
        for y in range(Y):
            prev = False
            for z in range(Z):
                f = grid[x, y, z]
                if f and not prev:
                    if store:
                        start[r] = z
                    r += 1
                elif prev and not f and store:
                    end[r - 1] = z
                prev = f
            if prev and store:
                end[r - 1] = Z
            first[x * Y + y + 1] = r
    return r


@njit
def label_runs(first, start, end, X, Y, full):
    """Connected pieces of the runs: (label int32 per run, 1..n numbered by their first run,
    which holds the piece's first voxel in x-major order; sizes int64 (n + 1,), index 0 unused).

    Each column's runs are joined with those of the columns before it (x-1 and y-1; with
    ``full`` also the two diagonal ones) whose runs overlap it, or (``full``) touch it by an
    edge or corner: one merge of two sorted lists per column pair, so the cost is the number of
    runs, not of voxels."""
    n = start.shape[0]
    parent = np.arange(n)
    slack = 1 if full else 0
    for x in range(X):
        for y in range(Y):
            col = x * Y + y
            if first[col] == first[col + 1]:
                continue
            for k in range(4):
                if k == 0:
                    nx, ny = x - 1, y
                elif k == 1:
                    nx, ny = x, y - 1
                elif k == 2:
                    nx, ny = x - 1, y - 1
                else:
                    nx, ny = x - 1, y + 1
                if k >= 2 and not full:
                    break
                if nx < 0 or ny < 0 or ny >= Y:
                    continue
                other = nx * Y + ny
                i = first[col]
                j = first[other]
                while i < first[col + 1] and j < first[other + 1]:
                    if start[j] < end[i] + slack and start[i] < end[j] + slack:
                        a = i
                        while parent[a] != a:
                            parent[a] = parent[parent[a]]
                            a = parent[a]
                        b = j
                        while parent[b] != b:
                            parent[b] = parent[parent[b]]
                            b = parent[b]
                        if a < b:
                            parent[b] = a
                        elif b < a:
                            parent[a] = b
                    if end[i] < end[j]:
                        i += 1
                    else:
                        j += 1
    label = np.empty(n, np.int32)
    sizes = np.zeros(n + 1, np.int64)
    m = 0
    for r in range(n):
        a = r
        while parent[a] != a:
            a = parent[a]
        if a == r:
            m += 1
            label[r] = m
        else:
            label[r] = label[a]  # a < r: numbered already
        sizes[label[r]] += end[r] - start[r]
    return label, sizes[:m + 1].copy()


@njit
def paint_runs(first, start, end, label, Y, out):
    """out[x, y, z] = the label of the run covering the voxel (out zero elsewhere on entry)."""
    for col in range(first.shape[0] - 1):
        x = col // Y
        y = col % Y
        for r in range(first[col], first[col + 1]):
            for z in range(start[r], end[r]):
                out[x, y, z] = label[r]


@njit
def thin_voxels(grid, surface, out):
    """out = surface voxels that are not filled and have no filled voxel among their 26
    neighbours: where a part of the mesh runs but the centre sampling left nothing near."""
    X, Y, Z = grid.shape
    n = 0
    for x in range(X):
        for y in range(Y):
            for z in range(Z):
                out[x, y, z] = False
                if not surface[x, y, z] or grid[x, y, z]:
                    continue
                near = False
                for u in range(max(x - 1, 0), min(x + 2, X)):
                    for v in range(max(y - 1, 0), min(y + 2, Y)):
                        for w in range(max(z - 1, 0), min(z + 2, Z)):
                            if grid[u, v, w]:
                                near = True
                if not near:
                    out[x, y, z] = True
                    n += 1
    return n


@njit
def bridge_flat(allowed, lab, root, offsets, added):
    """Join every piece to a root piece through ``allowed`` cells, adding the fewest cells.

    Flat arrays of the grid with a one-cell empty border, so no step leaves the array
    (``offsets``: the flat index steps to the 6 face neighbours): ``lab`` the 6-connected
    pieces of the grid (0 = empty), ``root[p]`` whether piece p is a root (the
    largest piece of its region of ``allowed``).  A 0-1 breadth-first search from the roots,
    where stepping onto a filled cell costs 0 and onto an empty allowed cell 1, gives every
    piece its cheapest path to a root (through other pieces for free); the empty cells of
    those paths are set in ``added``.  Returns how many were added."""
    V = allowed.shape[0]
    big = np.int32(2**31 - 1)  # the grids are far smaller than 2**31 cells (MAX_REPAIR_VOXELS)
    dist = np.full(V, big, np.int32)
    parent = np.full(V, -1, np.int32)
    done = np.zeros(V, np.bool_)
    # A cell is pushed at most twice (once at d + 1, once lowered to d): a ring of 2V holds all.
    cap = 2 * V + 2
    ring = np.empty(cap, np.int32)
    head = 0
    tail = 0
    for c in range(V):
        if lab[c] > 0 and root[lab[c]]:
            dist[c] = 0
            for o in offsets:  # only the roots' surface cells can lead anywhere new
                e = c + o
                if lab[e] != lab[c] and (allowed[e] or lab[e] > 0):
                    ring[tail] = c
                    tail += 1
                    break
    while head != tail:
        c = ring[head]
        head = head + 1 if head < cap - 1 else 0
        if done[c]:
            continue
        done[c] = True
        for o in offsets:
            e = c + o
            filled = lab[e] > 0
            if done[e] or not (filled or allowed[e]):
                continue
            nd = dist[c] + (0 if filled else 1)
            if nd < dist[e]:
                dist[e] = nd
                parent[e] = c
                if filled:
                    head = head - 1 if head > 0 else cap - 1
                    ring[head] = e
                else:
                    ring[tail] = e
                    tail = tail + 1 if tail < cap - 1 else 0
    # Every reached piece: walk back from one of its cells, marking the empty ones.
    n_added = 0
    traced = np.zeros(root.shape[0], np.bool_)
    for s in range(V):
        p = lab[s]
        if p == 0 or root[p] or traced[p]:
            continue
        traced[p] = True
        c = s
        if dist[c] >= big:
            continue  # not reached: its region has no root (cannot happen: every region has one)
        while c >= 0:
            q = lab[c]
            if q > 0 and root[q]:
                break
            if q == 0:
                if added[c]:
                    break  # joins a path already marked
                added[c] = True
                n_added += 1
            c = parent[c]
    return n_added


@njit
def surface_voxels(g, tris, out):
    """Mark in ``out`` (bool (X, Y, Z)) every voxel whose closed box [i, i+1]^3 a triangle
    touches; ``g`` are vertex coordinates in voxel units.  Separating-axis test of each triangle
    against the boxes in its bounding box (box axes, the triangle's normal, the nine edge cross
    products).  Returns the number of voxels marked."""
    X, Y, Z = out.shape
    h = 0.5 + 1e-9  # closed boxes, with room for rounding: a face on a boundary marks both sides
    n = 0
    for t in range(tris.shape[0]):
        a = tris[t, 0]
        b = tris[t, 1]
        c = tris[t, 2]
        lo = np.empty(3, np.int64)
        hi = np.empty(3, np.int64)
        dims = (X, Y, Z)
        empty = False
        for d in range(3):
            mn = min(g[a, d], min(g[b, d], g[c, d]))
            mx = max(g[a, d], max(g[b, d], g[c, d]))
            lo[d] = max(int(np.floor(mn - 1e-9)), 0)
            hi[d] = min(int(np.floor(mx + 1e-9)), dims[d] - 1)
            if lo[d] > hi[d]:
                empty = True
        if empty:
            continue
        e0x, e0y, e0z = g[b, 0] - g[a, 0], g[b, 1] - g[a, 1], g[b, 2] - g[a, 2]
        e1x, e1y, e1z = g[c, 0] - g[b, 0], g[c, 1] - g[b, 1], g[c, 2] - g[b, 2]
        e2x, e2y, e2z = g[a, 0] - g[c, 0], g[a, 1] - g[c, 1], g[a, 2] - g[c, 2]
        nx = e0y * e1z - e0z * e1y
        ny = e0z * e1x - e0x * e1z
        nz = e0x * e1y - e0y * e1x
        rn = h * (abs(nx) + abs(ny) + abs(nz))
        for i in range(lo[0], hi[0] + 1):
            for j in range(lo[1], hi[1] + 1):
                for k in range(lo[2], hi[2] + 1):
                    if out[i, j, k]:
                        continue
                    cx = i + 0.5
                    cy = j + 0.5
                    cz = k + 0.5
                    ax, ay, az = g[a, 0] - cx, g[a, 1] - cy, g[a, 2] - cz
                    bx, by, bz = g[b, 0] - cx, g[b, 1] - cy, g[b, 2] - cz
                    qx, qy, qz = g[c, 0] - cx, g[c, 1] - cy, g[c, 2] - cz
                    if abs(nx * ax + ny * ay + nz * az) > rn:
                        continue
                    if not _edge_axes_overlap(e0x, e0y, e0z, ax, ay, az, qx, qy, qz, h):
                        continue
                    if not _edge_axes_overlap(e1x, e1y, e1z, ax, ay, az, qx, qy, qz, h):
                        continue
                    if not _edge_axes_overlap(e2x, e2y, e2z, ax, ay, az, bx, by, bz, h):
                        continue
                    out[i, j, k] = True
                    n += 1
    return n


@njit
def _edge_axes_overlap(ex, ey, ez, px, py, pz, qx, qy, qz, h):
    """Do the projections of the triangle and the box (half size h, at the origin) overlap on
    the three axes edge x (unit axes)?  p, q: two vertices of the triangle that project
    differently (the edge's own two project alike, so its start and the opposite vertex)."""
    # axis x-unit cross e = (0, -ez, ey)
    s = -ez * py + ey * pz
    t = -ez * qy + ey * qz
    r = h * (abs(ez) + abs(ey))
    if min(s, t) > r or max(s, t) < -r:
        return False
    # axis y-unit cross e = (ez, 0, -ex)
    s = ez * px - ex * pz
    t = ez * qx - ex * qz
    r = h * (abs(ez) + abs(ex))
    if min(s, t) > r or max(s, t) < -r:
        return False
    # axis z-unit cross e = (-ey, ex, 0)
    s = -ey * px + ex * py
    t = -ey * qx + ex * qy
    r = h * (abs(ey) + abs(ex))
    if min(s, t) > r or max(s, t) < -r:
        return False
    return True


# ---------------------------------------------------------------------------------------------
# analysis and repair


def _offsets(shape):
    """Flat index steps to the 6 face neighbours in a C-ordered array of ``shape``."""
    _, Y, Z = shape
    return np.array([-Y * Z, Y * Z, -Z, Z, -1, 1], np.int64)


def _pad(grid, dtype=np.bool_):
    """The grid with a one-cell empty border, flattened (C order), and its padded shape."""
    p = np.zeros(tuple(n + 2 for n in grid.shape), dtype)
    p[1:-1, 1:-1, 1:-1] = grid
    return p.ravel(), p.shape


def _unpad(flat, padded_shape):
    return np.ascontiguousarray(flat.reshape(padded_shape)[1:-1, 1:-1, 1:-1])


def labels(grid, full=False):
    """(labels int32 (X, Y, Z), sizes int64 (n + 1,)): the pieces of a bool grid, numbered by
    their first voxel in x-major order; ``full``: 26-connectivity (faces, edges, corners), else
    6 (faces)."""
    grid = np.ascontiguousarray(grid, dtype=np.bool_)
    X, Y, _ = grid.shape
    first, start, end = column_runs(grid)
    run_label, sizes = label_runs(first, start, end, X, Y, bool(full))
    lab = np.zeros(grid.shape, np.int32)
    paint_runs(first, start, end, run_label, Y, lab)
    return lab, sizes


def piece_stats(grid, top=8):
    """What a designer needs to know about the pieces of ``grid``: a dict with ``pieces`` (face
    connected), ``pieces_26`` (touching by faces, edges or corners), ``sizes`` (the ``top``
    largest, descending), ``largest``, ``largest_fraction`` (of the filled voxels),
    ``single_cubes`` (voxels with no filled face neighbour), ``floating_cubes`` (single cubes
    touching nothing at all), ``filled``.  None when the grid is too large to analyse."""
    grid = np.ascontiguousarray(grid, dtype=np.bool_)
    if grid.size > MAX_ANALYSIS_VOXELS:
        return None
    X, Y, _ = grid.shape
    first, start, end = column_runs(grid)
    s6 = label_runs(first, start, end, X, Y, False)[1][1:]
    s26 = label_runs(first, start, end, X, Y, True)[1][1:]
    filled = int(s6.sum())
    if filled == 0:
        return {"pieces": 0, "pieces_26": 0, "sizes": [], "largest": 0, "largest_fraction": 0.0,
                "single_cubes": 0, "floating_cubes": 0, "filled": 0}
    desc = np.sort(s6)[::-1]
    return {"pieces": int(len(s6)), "pieces_26": int(len(s26)),
            "sizes": [int(x) for x in desc[:top]], "largest": int(desc[0]),
            "largest_fraction": float(desc[0]) / filled,
            "single_cubes": int(np.count_nonzero(s6 == 1)),
            "floating_cubes": int(np.count_nonzero(s26 == 1)), "filled": filled}


def describe(stats):
    """One line for a designer, e.g. '60 pieces (48 single cubes); the largest has 812 of
    1,020 voxels'; '' for one piece or no analysis."""
    if not stats or stats["pieces"] <= 1:
        return ""
    text = f"{stats['pieces']} pieces"
    if stats["single_cubes"]:
        text += f" ({stats['single_cubes']} single cube{'s' if stats['single_cubes'] != 1 else ''})"
    text += f"; the largest has {stats['largest']:,} of {stats['filled']:,} voxels"
    if stats["pieces_26"] < stats["pieces"]:
        text += f" ({stats['pieces_26']} if touching edges and corners count)"
    return text


def describe_repair(effects):
    """What the repairs changed, as short phrases ('14 voxels added to bridge pieces', ...);
    empty when they changed nothing."""
    if not effects:
        return []
    out = []
    if effects.get("thin_added"):
        n = effects["thin_added"]
        out.append(f"{n:,} voxel{'s' if n != 1 else ''} added to keep thin parts")
    if effects.get("bridge_added"):
        n = effects["bridge_added"]
        out.append(f"{n:,} voxel{'s' if n != 1 else ''} added to bridge pieces")
    for key, what in (("small", "small"), ("others", "other")):
        n = effects.get(f"{key}_removed", 0)
        k = effects.get(f"{what}_pieces_removed", 0)
        if n:
            out.append(f"{n:,} voxel{'s' if n != 1 else ''} removed in {k:,} {what} piece{'s' if k != 1 else ''}")
    return out


def check_options(thin_parts, bridge, min_piece, keep_largest):
    """The repair options as (bool, bool, int, bool); ValueError with a user-facing message."""
    if isinstance(min_piece, bool) or not isinstance(min_piece, (int, np.integer)) or min_piece < 0:
        raise ValueError(f"min_piece must be a whole number of voxels (0 = keep all), got {min_piece!r}")
    return bool(thin_parts), bool(bridge), int(min_piece), bool(keep_largest)


def repair(grid, surface=None, *, thin_parts=False, bridge=False, min_piece=0, keep_largest=False):
    """Apply the repairs in the order thin parts, bridges (also done for ``thin_parts``), small
    pieces, largest piece.

    ``surface`` (bool, same shape: the voxels the mesh passes through) is needed by
    ``thin_parts`` and ``bridge``.  Returns (new grid, changes int8 grid: THIN_ADDED,
    BRIDGE_ADDED, SMALL_REMOVED, OTHER_REMOVED or 0, effects dict with the number of voxels each
    step added or removed and the pieces it removed)."""
    thin_parts, bridge, min_piece, keep_largest = check_options(thin_parts, bridge, min_piece,
                                                                keep_largest)
    grid = np.array(grid, dtype=np.bool_, order="C")
    changes = np.zeros(grid.shape, np.int8)
    effects = {"thin_added": 0, "bridge_added": 0, "small_removed": 0, "small_pieces_removed": 0,
               "others_removed": 0, "other_pieces_removed": 0}
    if (thin_parts or bridge) and surface is None:
        raise ValueError("thin_parts and bridge need the surface voxels")
    if grid.size == 0 or not (thin_parts or bridge or min_piece > 1 or keep_largest):
        return grid, changes, effects
    if grid.size > MAX_REPAIR_VOXELS:
        raise ValueError(f"the piece options work on grids of up to {MAX_REPAIR_VOXELS:,} "
                         f"voxels; this one has {grid.size:,}: lower the resolution")
    if thin_parts:
        thin = np.empty(grid.shape, np.bool_)
        effects["thin_added"] = int(thin_voxels(grid, np.ascontiguousarray(surface), thin))
        grid |= thin
        changes[thin] = THIN_ADDED
    if bridge or thin_parts:
        added = _bridge(grid, np.asarray(surface, dtype=np.bool_) | grid)
        effects["bridge_added"] = int(np.count_nonzero(added))
        grid |= added
        changes[added] = BRIDGE_ADDED
    if min_piece > 1 or keep_largest:
        lab, sizes = labels(grid)
        if min_piece > 1:
            small = sizes < min_piece
            small[0] = False
            drop = small[lab]
            effects["small_removed"] = int(np.count_nonzero(drop))
            effects["small_pieces_removed"] = int(np.count_nonzero(small))
            grid &= ~drop
            changes[drop] = SMALL_REMOVED
            sizes = np.where(small, 0, sizes)
        if keep_largest and np.count_nonzero(sizes[1:]) > 1:
            keep = int(np.argmax(sizes[1:])) + 1
            other = sizes > 0
            other[0] = False
            other[keep] = False
            drop = other[lab]
            effects["others_removed"] = int(np.count_nonzero(drop))
            effects["other_pieces_removed"] = int(np.count_nonzero(other))
            grid &= ~drop
            changes[drop] = OTHER_REMOVED
    return grid, changes, effects


def _bridge(grid, allowed):
    """The voxels ``bridge_flat`` adds to join every piece of ``grid`` to the largest piece of
    its region of ``allowed`` (a superset of the grid)."""
    lab, sizes = labels(grid)
    n = len(sizes) - 1
    if n <= 1:
        return np.zeros(grid.shape, np.bool_)
    region, _ = labels(allowed)
    # The root of every region is its largest piece (any voxel of a piece names its region).
    where = np.flatnonzero(lab)
    voxel = np.zeros(n + 1, np.int64)
    voxel[lab.ravel()[where]] = where
    reg = region.ravel()[voxel[1:]]
    order = np.lexsort((-sizes[1:], reg))  # by region, largest piece first
    first = np.ones(n, bool)
    first[1:] = reg[order][1:] != reg[order][:-1]
    root = np.zeros(n + 1, np.bool_)
    root[order[first] + 1] = True
    lab_p, pshape = _pad(lab, np.int32)
    alw, _ = _pad(allowed)
    added = np.zeros(lab_p.shape[0], np.bool_)
    bridge_flat(alw, lab_p, root, _offsets(pshape), added)
    return _unpad(added, pshape)
