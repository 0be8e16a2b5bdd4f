"""The voxels of the colour capture (``capture.py``): the surface voxels, and the interior fill
that gives every interior voxel the colour of a nearest surface voxel (an exact Euclidean
feature transform, separable by axis: Felzenszwalb and Huttenlocher 2012, in integer
arithmetic, each pass only over the runs of filled voxels holding interior voxels; where several
surface voxels are equally near, which one is not promised). Its first sweep shares one sweep of
the grid with the surface mask and slots (``surface_sites``).
"""
import numpy as np

from ..jit import njit


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
