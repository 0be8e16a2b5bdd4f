"""Colour capture kernels against plain-Python references, and the capture on small meshes with
known colours."""
import math

import numpy as np
import pytest

from engine.colour import capture as colour
from engine.colour import fill, sampling
from engine.colour.capture import ColourError, Source, capture_colours, nearest_surface
from engine.voxel.voxelize import voxelize


# ---------------------------------------------------------------------------------------------
# plain-Python references


def ref_closest(p, a, b, c):
    """Closest point on a triangle by brute force over a fine barycentric lattice, refined by
    the exact projection when it falls inside: independent of Ericson's region tests."""
    p, a, b, c = (np.asarray(x, float) for x in (p, a, b, c))
    best = (math.inf, None)
    # interior: projection onto the plane
    n = np.cross(b - a, c - a)
    if np.dot(n, n) > 0:
        q = p - np.dot(p - a, n) / np.dot(n, n) * n
        m = np.array([b - a, c - a]).T
        vw = np.linalg.lstsq(m, q - a, rcond=None)[0]
        if vw.min() >= 0 and vw.sum() <= 1:
            best = (float(np.dot(p - q, p - q)), q)
    # edges: exact clamped projection on each segment
    for s, e in ((a, b), (b, c), (c, a)):
        d = e - s
        t = 0.0 if np.dot(d, d) == 0 else min(max(np.dot(p - s, d) / np.dot(d, d), 0.0), 1.0)
        q = s + t * d
        dd = float(np.dot(p - q, p - q))
        if dd < best[0]:
            best = (dd, q)
    return best


def ref_nearest(points, verts, tris):
    out = []
    for p in points:
        ds = [ref_closest(p, *verts[t])[0] for t in tris]
        out.append(min(ds))
    return np.array(out)


def ref_bilinear(img, u, v):
    h, w = img.shape[:2]
    x, y = u * w - 0.5, v * h - 0.5
    x0, y0 = math.floor(x), math.floor(y)
    tx, ty = x - x0, y - y0
    acc = np.zeros(3)
    for dx, wx in ((0, 1 - tx), (1, tx)):
        for dy, wy in ((0, 1 - ty), (1, ty)):
            acc += wx * wy * img[(y0 + dy) % h, (x0 + dx) % w, :3]
    return acc


def ref_nearest_feature_dist2(feature):
    pts = np.argwhere(feature)
    out = np.full(feature.shape, np.inf)
    for idx in np.ndindex(feature.shape):
        if len(pts):
            out[idx] = ((pts - np.array(idx)) ** 2).sum(axis=1).min()
    return out


# ---------------------------------------------------------------------------------------------
# kernels vs references


def random_mesh(rng, n_tris):
    verts = rng.normal(size=(n_tris * 3, 3))
    return verts, np.arange(n_tris * 3).reshape(-1, 3)


@pytest.mark.parametrize("seed", [0, 1, 2])
def test_nearest_surface_matches_brute_force(seed):
    rng = np.random.default_rng(seed)
    verts, tris = random_mesh(rng, 40)
    pts = rng.normal(size=(60, 3)) * 1.5
    tri, bary, d2 = nearest_surface(pts, verts, tris)
    want = ref_nearest(pts, verts, tris)
    np.testing.assert_allclose(d2, want, rtol=1e-9, atol=1e-12)
    # the barycentric weights give the closest point itself
    q = np.einsum("pc,pcd->pd", bary, verts[tris[tri]])
    np.testing.assert_allclose(((pts - q) ** 2).sum(axis=1), want, rtol=1e-9, atol=1e-12)
    assert np.allclose(bary.sum(axis=1), 1.0) and bary.min() >= -1e-12


def test_closest_point_regions():
    a, b, c = (0.0, 0, 0), (1.0, 0, 0), (0.0, 1, 0)
    cases = [((-1, -1, 0), (1, 0, 0)), ((2, -0.5, 0), (0, 1, 0)), ((-0.5, 2, 0), (0, 0, 1)),
             ((0.5, -1, 0), (0.5, 0.5, 0)), ((0.25, 0.25, 3), (0.5, 0.25, 0.25))]
    for p, want in cases:
        d2, u, v, w = colour.closest_point_triangle(*p, *a, *b, *c)
        assert np.allclose((u, v, w), want), (p, (u, v, w))
        assert d2 == pytest.approx(ref_closest(p, a, b, c)[0])


def test_ties_go_to_the_lowest_triangle():
    # two coincident triangles: the first wins whatever the bucket order
    verts = np.array([[0, 0, 0], [1, 0, 0], [0, 1, 0]], float)
    tris = np.array([[0, 1, 2], [2, 0, 1], [0, 1, 2]])
    tri, _, _ = nearest_surface([[0.2, 0.2, 1.0]], verts, tris)
    assert tri[0] == 0


@pytest.mark.parametrize("seed", [0, 1])
def test_bilinear_sampling_matches_reference(seed):
    rng = np.random.default_rng(seed)
    img = rng.random((5, 7, 3))
    pixels = img.ravel().astype(np.float64)
    out = np.empty(3)
    for u, v in rng.normal(size=(50, 2)) * 2:
        colour.sample_image(pixels, 0, 7, 5, u, v, out)
        np.testing.assert_allclose(out, ref_bilinear(img, u, v), atol=1e-12)


@pytest.mark.parametrize("seed", [0, 1, 2])
def test_nearest_feature_is_exact(seed):
    rng = np.random.default_rng(seed)
    feature = rng.random((6, 5, 7)) < 0.08
    feature[0, 0, 0] = True
    arg = colour.nearest_feature(feature)
    want = ref_nearest_feature_dist2(feature)
    coords = np.stack(np.unravel_index(arg.ravel(), feature.shape), axis=1)
    got = ((coords - np.argwhere(np.ones(feature.shape, bool))) ** 2).sum(axis=1)
    assert feature.ravel()[arg.ravel()].all()
    np.testing.assert_array_equal(got.reshape(feature.shape), want)


@pytest.mark.parametrize("seed", [0, 1, 2, 3])
@pytest.mark.parametrize("window", [0, 12])  # runs: all by the envelope / all searched outwards
def test_fill_interior_takes_a_nearest_surface_voxel(seed, window):
    # every surface voxel gets its own colour (its flat index): each interior voxel must end up
    # with the colour of a surface voxel at the exact minimum distance; the rest stay untouched
    rng = np.random.default_rng(seed)
    grid = rng.random((7, 6, 8)) < 0.85
    surface = np.empty(grid.shape, bool)
    colour.surface_mask(grid, surface)
    colours = np.zeros(grid.shape + (3,), np.float32)
    flat_ids = np.arange(grid.size, dtype=np.float32).reshape(grid.shape)
    colours[surface, 0] = flat_ids[surface] + 1
    colours[surface, 1] = 7
    before = colours.copy()
    inner = grid & ~surface
    assert inner.any()
    assert colour.fill_interior(grid, surface, colours, window) == inner.sum()
    want = ref_nearest_feature_dist2(surface)
    coords = np.argwhere(np.ones(grid.shape, bool)).reshape(grid.shape + (3,))
    for idx in np.argwhere(inner):
        src = int(colours[tuple(idx)][0]) - 1
        assert surface.ravel()[src] and colours[tuple(idx)][1] == 7
        got = ((coords.reshape(-1, 3)[src] - idx) ** 2).sum()
        assert got == want[tuple(idx)]
    np.testing.assert_array_equal(colours[~inner], before[~inner])


@pytest.mark.parametrize("window", [0, 2, 1000])  # envelope / both by depth / searched outwards
def test_fill_interior_is_exact_on_long_runs(window):
    # a solid ball with a few holes punched in: long runs of interior voxels, the runs split by
    # holes (a hole's rim is surface too); exact distances against the brute-force reference
    idx = np.indices((15, 13, 14)).transpose(1, 2, 3, 0)
    grid = (((idx - (7, 6, 6.5)) / (7.2, 6.3, 6.8)) ** 2).sum(axis=3) <= 1.0
    grid[7, 2:9, 6] = False
    grid[3:6, 6, 4:7] = False
    surface = np.empty(grid.shape, bool)
    colour.surface_mask(grid, surface)
    colours = np.zeros(grid.shape + (3,), np.float32)
    colours[surface, 0] = np.flatnonzero(surface.ravel()) + 1
    inner = grid & ~surface
    assert colour.fill_interior(grid, surface, colours, window) == inner.sum() > 300
    want = ref_nearest_feature_dist2(surface)
    src = colours[inner, 0].astype(np.int64) - 1
    assert surface.ravel()[src].all()
    site = np.stack(np.unravel_index(src, grid.shape), axis=1)
    np.testing.assert_array_equal(((site - np.argwhere(inner)) ** 2).sum(axis=1), want[inner])


def test_non_finite_pixels_sample_as_black():
    # a broken float image: NaN and inf channels read as 0, in the bilinear and the closest sample
    img = np.array([[[1, np.nan, 0.5], [0.2, 0.4, np.inf]], [[0, 1, 0], [-np.inf, 0.3, 0.9]]])
    clean = np.where(np.isfinite(img), img, 0.0)
    pixels, offs, ws, hs = colour._pack_images([img])
    out = np.empty(3)
    for u, v in [(0.3, 0.2), (0.75, 0.6), (0.1, 0.9), (0.5, 0.5)]:
        colour.sample_image(pixels, offs[0], ws[0], hs[0], u, v, out)
        np.testing.assert_allclose(out, ref_bilinear(clean, u, v), atol=1e-6)
        sampling.sample_closest(pixels, offs[0], ws[0], hs[0], u, v, out)
        np.testing.assert_allclose(out, clean[int(v * 2), int(u * 2)], atol=1e-6)


def test_nearest_for_voxels_of_a_voxelized_mesh_is_the_bucket_answer():
    # small triangles on a real surface: the triangle-by-triangle pass (with its box and plane
    # pruning) answers almost every voxel and must agree with the bucket search exactly
    rng = np.random.default_rng(4)
    u, w = np.meshgrid(np.linspace(0, np.pi, 9), np.linspace(0, 2 * np.pi, 13), indexing="ij")
    pts = np.stack([np.sin(u) * np.cos(w), np.sin(u) * np.sin(w) * 0.7, np.cos(u) * 1.2], axis=-1)
    pts = pts + rng.normal(scale=0.01, size=pts.shape)
    verts = pts.reshape(-1, 3)
    tris = []
    for i in range(8):
        for j in range(12):
            a, b, c, d = i * 13 + j, i * 13 + j + 1, (i + 1) * 13 + j, (i + 1) * 13 + j + 1
            tris += [(a, b, d), (a, d, c)]
    tris = np.array(tris)
    r = voxelize(verts, tris, resolution=14)
    surface = np.empty(r.grid.shape, bool)
    colour.surface_mask(r.grid, surface)
    idx = np.argwhere(surface)
    tri, bary = colour.nearest_for_voxels(surface, idx, r.origin, r.voxel_size, verts, tris)
    want, wbary, _ = nearest_surface(r.origin + (idx + 0.5) * r.voxel_size, verts, tris)
    np.testing.assert_array_equal(tri, want)
    np.testing.assert_allclose(bary, wbary, atol=1e-12)


@pytest.mark.parametrize("seed", [0, 1, 2])
def test_run_kernels_match_the_1d_reference(seed):
    # one run of heights (every voxel has a site) inside a strided flat array: both the
    # envelope and the outward search give min over p of (q - p)² + f[p], with a site at it
    rng = np.random.default_rng(seed)
    for n in (1, 2, 5, 17, 40):
        f = (rng.integers(0, 6, n) ** 2).astype(np.int32)
        want = [min((q - p) ** 2 + int(f[p]) for p in range(n)) for q in range(n)]
        for kernel in ("envelope", "window"):
            stride, base = 3, 2
            d = np.full(base + n * stride, -7, np.int32)
            arg = np.full_like(d, -7)
            d[base::stride] = f
            arg[base::stride] = np.arange(n) + 100  # the site of each voxel
            buf = [np.empty(n + 1, np.int64) for _ in range(5)]
            if kernel == "envelope":
                fill._run_envelope(d, arg, base, stride, n, *buf)
            else:
                fill._run_window(d, arg, base, stride, n, buf[0], buf[1])
            got, site = d[base::stride], arg[base::stride] - 100
            np.testing.assert_array_equal(got, want, err_msg=kernel)
            np.testing.assert_array_equal((np.arange(n) - site) ** 2 + f[site], want)
            assert (np.delete(d, np.s_[base::stride]) == -7).all()  # nothing else touched


def test_surface_slots_match_argwhere():
    rng = np.random.default_rng(5)
    surface = rng.random((5, 4, 6)) < 0.3
    slot = np.empty(surface.shape, np.int64)
    idx = np.empty((int(surface.sum()), 3), np.int64)
    colour.surface_slots(surface, slot, idx)
    np.testing.assert_array_equal(idx, np.argwhere(surface))
    want = np.full(surface.shape, -1)
    want[tuple(idx.T)] = np.arange(len(idx))
    np.testing.assert_array_equal(slot, want)


@pytest.mark.parametrize("seed", [0, 1, 2])
def test_surface_sites_match_the_references(seed):
    # the fused sweep: surface mask, slots and rows as the separate kernels, and for each filled
    # voxel the nearest surface voxel at or below it along x within its run (d, arg as a slot)
    rng = np.random.default_rng(seed)
    grid = rng.random((9, 5, 6)) < 0.8
    grid[2:7, 1:4, 1:5] = True  # some interior voxels whatever the seed
    surface, slot, idx, d, arg = colour.surface_arrays(grid)
    want_surface = np.empty(grid.shape, bool)
    colour.surface_mask(grid, want_surface)
    np.testing.assert_array_equal(surface, want_surface)
    want_slot = np.empty(grid.shape, np.int64)
    want_idx = np.empty((int(want_surface.sum()), 3), np.int64)
    colour.surface_slots(want_surface, want_slot, want_idx)
    np.testing.assert_array_equal(idx, want_idx)
    np.testing.assert_array_equal(slot, want_slot)
    d, arg = d.reshape(grid.shape), arg.reshape(grid.shape)
    assert (grid & ~surface).any()
    for x, y, z in np.argwhere(grid):
        p = x
        while not surface[p, y, z]:
            p -= 1
            assert grid[p, y, z]  # a run starts with a surface voxel
        assert d[x, y, z] == (x - p) ** 2 and arg[x, y, z] == slot[p, y, z]


def test_fill_interior_refuses_a_wrong_surface():
    grid = np.ones((4, 4, 4), bool)
    with pytest.raises(ValueError):
        colour.fill_interior(grid, grid.copy(), np.zeros((4, 4, 4, 3), np.float32))


def test_nearest_feature_without_features():
    assert (colour.nearest_feature(np.zeros((3, 2, 4), bool)) == -1).all()


def test_surface_mask_matches_numpy():
    rng = np.random.default_rng(3)
    g = rng.random((7, 6, 5)) < 0.7
    out = np.empty(g.shape, bool)
    colour.surface_mask(g, out)
    p = np.pad(g, 1)
    inner = (p[:-2, 1:-1, 1:-1] & p[2:, 1:-1, 1:-1] & p[1:-1, :-2, 1:-1] & p[1:-1, 2:, 1:-1]
             & p[1:-1, 1:-1, :-2] & p[1:-1, 1:-1, 2:])
    np.testing.assert_array_equal(out, g & ~inner)


# ---------------------------------------------------------------------------------------------
# the capture on meshes with known colours


def box_mesh(lo, hi):
    x0, y0, z0 = lo
    x1, y1, z1 = hi
    v = np.array([[x, y, z] for x in (x0, x1) for y in (y0, y1) for z in (z0, z1)], float)
    # faces: -x, +x, -y, +y, -z, +z as two triangles each (outward winding not needed here)
    quads = [(0, 1, 3, 2), (4, 6, 7, 5), (0, 4, 5, 1), (2, 3, 7, 6), (0, 2, 6, 4), (1, 5, 7, 3)]
    t = []
    for a, b, c, d in quads:
        t += [(a, b, c), (a, c, d)]
    return v, np.array(t)


FACE_COLOURS = [(1, 0, 0), (0, 1, 0), (0, 0, 1), (1, 1, 0), (0, 1, 1), (1, 0, 1)]


def test_cube_with_six_materials():
    v, t = box_mesh((0, 0, 0), (1, 1, 1))
    r = voxelize(v, t, resolution=8)
    mats = np.repeat(np.arange(6), 2)
    cap = capture_colours(r.grid, r.origin, r.voxel_size, v, t, tri_material=mats,
                          sources=[Source(c) for c in FACE_COLOURS])
    c = cap.colours
    assert r.grid.shape == (8, 8, 8)
    # a voxel in the middle of each face (not on an edge) is exactly its face's colour
    mid = slice(1, 7)
    for face, sel in enumerate([(0, mid, mid), (7, mid, mid), (mid, 0, mid), (mid, 7, mid),
                                (mid, mid, 0), (mid, mid, 7)]):
        np.testing.assert_array_equal(c[sel].reshape(-1, 3), np.tile(FACE_COLOURS[face], (36, 1)))
    # interior voxels copy a nearest surface voxel: (3,3,3) is 3 from x=0, y=0 and z=0
    assert tuple(c[3, 3, 3]) in [tuple(map(float, FACE_COLOURS[i])) for i in (0, 2, 4)]
    assert cap.surface.sum() == 8**3 - 6**3
    assert not cap.fallbacks


def test_checker_texture_through_uvs():
    # a thin box whose top face maps the unit UV square onto a 2x2 checker
    v, t = box_mesh((0, 0, 0), (1, 1, 0.25))
    uvs = np.zeros((len(t), 3, 2))
    uvs[:] = np.nan  # only the top face (+z, triangles 10 and 11) has UVs
    for i in (10, 11):
        uvs[i] = v[t[i], :2]
    mats = np.zeros(len(t), int)
    img = np.array([[[1, 0, 0], [0, 1, 0]], [[0, 0, 1], [1, 1, 1]]], float)  # row 0 = v 0
    cap = capture_colours(*_vox(v, t, 8), v, t, tri_material=mats,
                          sources=[Source((1, 1, 1), image=0)], uvs=uvs, images=[img])
    top = cap.colours[:, :, -1]
    # away from the sides, the top voxel (x, y) takes the texture at its centre's (u, v)
    for x in range(1, 7):
        for y in range(1, 7):
            np.testing.assert_allclose(top[x, y], ref_bilinear(img, (x + .5) / 8, (y + .5) / 8),
                                       atol=1e-6)
    # a sample at a pixel centre is that pixel exactly
    out = np.empty(3)
    colour.sample_image(img.ravel().astype(float), 0, 2, 2, 0.25, 0.75, out)
    np.testing.assert_array_equal(out, img[1, 0])
    # 'Closest' interpolation: each quadrant exactly its pixel
    cap = capture_colours(*_vox(v, t, 8), v, t, tri_material=mats,
                          sources=[Source((1, 1, 1), image=0, closest=True)], uvs=uvs, images=[img])
    top = cap.colours[:, :, -1]
    for x in range(1, 7):
        for y in range(1, 7):
            np.testing.assert_array_equal(top[x, y], img[y // 4, x // 4])
    # side faces have NaN UVs: they fall back to the constant colour and say so
    assert cap.fallbacks and "NaN" in cap.fallbacks[-1]


def _vox(v, t, n):
    r = voxelize(v, t, resolution=n)
    return r.grid, r.origin, r.voxel_size


def test_corner_colours_interpolate():
    v, t = box_mesh((0, 0, 0), (1, 1, 1))
    cc = v[t].copy()  # colour = position: the captured colour is the nearest surface point
    r = voxelize(v, t, resolution=6)
    cap = capture_colours(r.grid, r.origin, r.voxel_size, v, t,
                          sources=[Source((1, 1, 1), corners=True)], corner_colours=cc)
    idx = np.argwhere(cap.surface)
    centres = r.origin + (idx + 0.5) * r.voxel_size
    tri, bary, _ = nearest_surface(centres, v, t)
    nearest_pt = np.einsum("pc,pcd->pd", bary, v[t[tri]])
    np.testing.assert_allclose(cap.colours[tuple(idx.T)], nearest_pt, atol=1e-6)


def test_bad_inputs_fall_back_or_raise():
    v, t = box_mesh((0, 0, 0), (1, 1, 1))
    g, o, s = _vox(v, t, 4)
    # image missing, no UVs, no colour attribute: the material colour, with a message each
    cap = capture_colours(g, o, s, v, t, tri_material=np.repeat(np.arange(3), 4),
                          sources=[Source((1, 0, 0), image=3), Source((0, 1, 0), image=0),
                                   Source((0, 0, 1), corners=True)], images=[np.ones((2, 2, 3))])
    assert len(cap.fallbacks) == 3
    assert set(map(tuple, cap.colours[g].tolist())) <= {(1, 0, 0), (0, 1, 0), (0, 0, 1)}
    # no material at all: Blender's default grey
    cap = capture_colours(g, o, s, v, t)
    assert np.allclose(cap.colours[g], colour.DEFAULT_COLOUR)
    # 10 000 materials, indices beyond the slots take the last slot
    many = [Source((i / 10000, 0, 0)) for i in range(10000)]
    cap = capture_colours(g, o, s, v, t, tri_material=np.arange(12) * 1000, sources=many)
    assert cap.fallbacks and "slot" in cap.fallbacks[0]
    with pytest.raises(ColourError, match="uvs"):
        capture_colours(g, o, s, v, t, uvs=np.zeros((3, 3, 2)))
    with pytest.raises(ColourError, match="material indices"):
        capture_colours(g, o, s, v, t, tri_material=[0, 1])
    with pytest.raises(ColourError, match="image 0"):
        capture_colours(g, o, s, v, t, images=[np.zeros((2, 2))])
    with pytest.raises(ColourError, match="no triangles"):
        capture_colours(g, o, s, v, t[:0])


def test_grid_beyond_int32_indices_is_refused(monkeypatch):
    # the fill and the slots index voxels in int32: a larger grid gets a clear message
    v, t = box_mesh((0, 0, 0), (1, 1, 1))
    r = voxelize(v, t, resolution=4)
    monkeypatch.setattr(colour, "MAX_GRID_CELLS", r.grid.size - 1)
    with pytest.raises(ColourError, match="at most"):
        capture_colours(r.grid, r.origin, r.voxel_size, v, t)


@pytest.mark.parametrize("seed", [0, 1])
def test_triangle_first_pass_gives_the_bucket_answer(seed):
    rng = np.random.default_rng(seed)
    verts, tris = random_mesh(rng, 30)
    g = rng.random((9, 8, 7)) < 0.4
    surface = np.empty(g.shape, bool)
    colour.surface_mask(g, surface)
    idx = np.argwhere(surface)
    origin, vs = np.array([-2.0, -2.0, -1.5]), 0.45
    tri, bary = colour.nearest_for_voxels(surface, idx, origin, vs, verts, tris)
    want, wbary, d2 = nearest_surface(origin + (idx + 0.5) * vs, verts, tris)
    np.testing.assert_array_equal(tri, want)
    np.testing.assert_allclose(bary, wbary, atol=1e-12)
    # the check is meaningful: both passes answered some of the voxels
    assert (d2 <= vs**2).any() and (d2 > vs**2).any()
