"""Colour capture kernels against plain-Python references, and the capture on small meshes with
known colours."""
import math

import numpy as np
import pytest

from engine.colour import capture as colour
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
def test_fill_interior_takes_a_nearest_surface_voxel(seed):
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
    assert colour.fill_interior(grid, surface, colours) == inner.sum()
    want = ref_nearest_feature_dist2(surface)
    coords = np.argwhere(np.ones(grid.shape, bool)).reshape(grid.shape + (3,))
    for idx in np.argwhere(inner):
        src = int(colours[tuple(idx)][0]) - 1
        assert surface.ravel()[src] and colours[tuple(idx)][1] == 7
        got = ((coords.reshape(-1, 3)[src] - idx) ** 2).sum()
        assert got == want[tuple(idx)]
    np.testing.assert_array_equal(colours[~inner], before[~inner])


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


@pytest.mark.parametrize("seed", [0, 1])
def test_triangle_first_pass_gives_the_bucket_answer(seed):
    rng = np.random.default_rng(seed)
    verts, tris = random_mesh(rng, 30)
    g = rng.random((9, 8, 7)) < 0.4
    surface = np.empty(g.shape, bool)
    colour.surface_mask(g, surface)
    idx = np.argwhere(surface)
    origin, vs = np.array([-2.0, -2.0, -1.5]), 0.45
    tri, bary = colour._nearest_for_voxels(surface, idx, origin, vs, verts, tris)
    want, wbary, d2 = nearest_surface(origin + (idx + 0.5) * vs, verts, tris)
    np.testing.assert_array_equal(tri, want)
    np.testing.assert_allclose(bary, wbary, atol=1e-12)
    # the check is meaningful: both passes answered some of the voxels
    assert (d2 <= vs**2).any() and (d2 > vs**2).any()
