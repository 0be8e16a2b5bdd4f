"""The voxelizer on shapes built here, checked against inside tests computed independently."""
import math

import numpy as np
import pytest

import procedural
from conftest import run_without_numba
from engine.voxel import voxelize as vox_mod
from engine.voxel.voxelize import VoxelizeError, voxelize

# ---------------------------------------------------------------------------------------------
# shapes


def box_mesh(lo, hi, flip_diagonals=False):
    lo, hi = np.asarray(lo, float), np.asarray(hi, float)
    v = np.array([[(hi if (i >> a) & 1 else lo)[a] for a in range(3)] for i in range(8)])
    quads = [(0, 2, 3, 1), (4, 5, 7, 6), (0, 1, 5, 4), (2, 6, 7, 3), (0, 4, 6, 2), (1, 3, 7, 5)]
    tris = []
    for a, b, c, d in quads:
        tris += [(a, b, d), (b, c, d)] if flip_diagonals else [(a, b, c), (a, c, d)]
    return v, np.array(tris)


def grid_surface_mesh(occ, rng):
    """The boundary of a voxel set as a closed triangle mesh on the integer lattice (voxel
    (i, j, k) spans [i, i+1] x [j, j+1] x [k, k+1]); each unit square gets a random diagonal."""
    X, Y, Z = occ.shape
    pad = np.pad(occ, 1)

    def vid(i, j, k):
        return (i * (Y + 1) + j) * (Z + 1) + k

    ii, jj, kk = np.meshgrid(np.arange(X + 1), np.arange(Y + 1), np.arange(Z + 1), indexing="ij")
    verts = np.stack([ii.ravel(), jj.ravel(), kk.ravel()], axis=1).astype(float)
    tris = []
    for axis in range(3):
        d = np.diff(pad.astype(np.int8), axis=axis)  # +1: empty -> filled across the face
        sl = [slice(1, -1)] * 3
        sl[axis] = slice(None)
        d = d[tuple(sl)]
        for f in np.argwhere(d != 0):
            c = list(f)
            a1, a2 = [a for a in range(3) if a != axis]
            corners = []
            for du, dv in ((0, 0), (1, 0), (1, 1), (0, 1)):
                p = list(c)
                p[a1] += du
                p[a2] += dv
                corners.append(vid(*p))
            q = corners if d[tuple(f)] > 0 else corners[::-1]
            if rng.random() < 0.5:
                tris += [(q[0], q[1], q[2]), (q[0], q[2], q[3])]
            else:
                tris += [(q[0], q[1], q[3]), (q[1], q[2], q[3])]
    return verts, np.array(tris)


def uv_sphere(centre, r, n_lon=32, n_lat=16):
    return procedural.ellipsoid(centre, r, n_lon, n_lat)


def torus(centre, R, r, n_u=96, n_v=48):
    u = 2 * np.pi * np.arange(n_u) / n_u
    v = 2 * np.pi * np.arange(n_v) / n_v
    U, V = np.meshgrid(u, v, indexing="ij")
    verts = np.stack([(R + r * np.cos(V)) * np.cos(U), (R + r * np.cos(V)) * np.sin(U), r * np.sin(V)],
                     axis=-1).reshape(-1, 3)
    tris = []
    for i in range(n_u):
        for j in range(n_v):
            a, b = i * n_v + j, ((i + 1) % n_u) * n_v + j
            c, d = ((i + 1) % n_u) * n_v + (j + 1) % n_v, i * n_v + (j + 1) % n_v
            tris += [(a, b, c), (a, c, d)]
    return verts + centre, np.array(tris)


def centres(result):
    X, Y, Z = result.grid.shape
    idx = np.stack(np.meshgrid(np.arange(X), np.arange(Y), np.arange(Z), indexing="ij"), -1)
    return result.origin + (idx + 0.5) * result.voxel_size


def convex_inside(verts, tris, pts, margin):
    """Inside test for a convex closed mesh by its face planes; asserts no point is nearer than
    ``margin`` to the boundary, so the expectation cannot hinge on rounding."""
    a, b, c = verts[tris[:, 0]], verts[tris[:, 1]], verts[tris[:, 2]]
    n = np.cross(b - a, c - a)
    n /= np.linalg.norm(n, axis=1, keepdims=True)
    if (n * (a - verts.mean(axis=0))).sum(axis=1).min() < 0:
        raise AssertionError("faces of the test shape are not outward")
    p = pts.reshape(-1, 3)
    worst = np.full(len(p), -np.inf)
    for s in range(0, len(n), 256):
        dist = p @ n[s:s + 256].T - (a[s:s + 256] * n[s:s + 256]).sum(axis=1)
        worst = np.maximum(worst, dist.max(axis=1))
    assert np.abs(worst).min() > margin, "a voxel centre is too close to the surface"
    return (worst < 0).reshape(pts.shape[:-1])


# ---------------------------------------------------------------------------------------------
# analytic shapes against independent inside tests


@pytest.mark.parametrize("robust", [True, False])
def test_uv_sphere_matches_plane_test(robust):
    v, t = uv_sphere(np.array([0.3137, -0.2718, 0.1414]), 1.0)
    r = voxelize(v, t, voxel_size=0.0913, origin=(0.0, 0.0, 0.0), fit=False, robust=robust)
    expect = convex_inside(v, t, centres(r), 1e-6)
    assert expect.sum() > 3000
    assert np.array_equal(r.grid, expect)
    assert r.diagnostics["looks_open"] is False and r.warnings == []
    if robust:
        assert r.diagnostics["disagreements"] == 0


def test_rotated_box_matches_plane_test():
    v, t = box_mesh((-1.1, -0.7, -0.45), (1.2, 0.8, 0.55))
    a, b = 0.5, 0.3
    rz = np.array([[math.cos(a), -math.sin(a), 0], [math.sin(a), math.cos(a), 0], [0, 0, 1]])
    rx = np.array([[1, 0, 0], [0, math.cos(b), -math.sin(b)], [0, math.sin(b), math.cos(b)]])
    v = v @ (rx @ rz).T + 0.0123
    r = voxelize(v, t, resolution=40, fit=False)
    assert np.array_equal(r.grid, convex_inside(v, t, centres(r), 1e-6))


def test_torus_matches_implicit_function():
    R, rr, n_u, n_v = 1.0, 0.4, 256, 128
    # The mesh lies within the sagittas of the two polygonisations of the ideal surface: place
    # the torus (a fixed search) so that no voxel centre is within that band.
    sag = rr * (1 - math.cos(math.pi / n_v)) + (R + rr) * (1 - math.cos(math.pi / n_u))
    rng = np.random.default_rng(7)
    for _ in range(50):
        c = rng.uniform(-0.05, 0.05, 3)
        v, t = torus(c, R, rr, n_u, n_v)
        r = voxelize(v, t, resolution=24, fit=False)
        p = centres(r) - c
        d = np.sqrt((np.hypot(p[..., 0], p[..., 1]) - R) ** 2 + p[..., 2] ** 2) - rr
        if np.abs(d).min() > 1.5 * sag:
            break
    else:
        raise AssertionError("test set-up: no placement keeps the centres off the surface band")
    assert np.array_equal(r.grid, d < 0)
    assert r.diagnostics["disagreements"] == 0 and r.diagnostics["parts"] == 1


def test_two_interpenetrating_boxes_unite_in_robust_mode():
    v1, t1 = box_mesh((0.03, 0.07, 0.11), (1.53, 1.01, 0.93))
    v2, t2 = box_mesh((0.61, 0.39, -0.37), (2.03, 1.47, 0.57))
    v = np.vstack([v1, v2])
    t = np.vstack([t1, t2 + 8])
    robust = voxelize(v, t, voxel_size=0.1, origin=(0, 0, 0), fit=False)
    plain = voxelize(v, t, voxel_size=0.1, origin=(0, 0, 0), fit=False, robust=False)
    p = centres(robust)
    in1 = ((p > [0.03, 0.07, 0.11]) & (p < [1.53, 1.01, 0.93])).all(-1)
    in2 = ((p > [0.61, 0.39, -0.37]) & (p < [2.03, 1.47, 0.57])).all(-1)
    assert robust.diagnostics["parts"] == 2
    assert (in1 & in2).sum() > 100
    assert np.array_equal(robust.grid, in1 | in2)
    assert np.array_equal(plain.grid, in1 ^ in2)  # single-pass parity hollows the overlap


# ---------------------------------------------------------------------------------------------
# tie rule: grid-aligned geometry is exact


@pytest.mark.parametrize("flip", [False, True])
def test_box_on_voxel_boundaries_is_exact(flip):
    v, t = box_mesh((0.0, 0.0, 0.0), (12.0, 7.0, 3.0), flip_diagonals=flip)
    r = voxelize(v, t, resolution=12)
    assert r.grid.shape == (12, 7, 3) and r.grid.all()  # the seed's 12x7x3 from a 12³ request
    assert r.voxel_size == 1.0 and np.array_equal(r.origin, [0.0, 0.0, 0.0])
    # Scaled by a non-dyadic voxel size the faces are only nearly on the boundaries.
    r = voxelize(v * 0.1 + 0.3, t, voxel_size=0.1, origin=(0.0, 0.0, 0.0))
    assert r.grid.shape == (12, 7, 3) and r.grid.all()
    assert np.allclose(r.origin, [0.3, 0.3, 0.3])


@pytest.mark.parametrize("flip", [False, True])
def test_box_through_voxel_centres_is_half_open(flip):
    # Faces exactly through rows of voxel centres: every ray on a face edge, every centre on
    # a face.  Half-open on each axis: [2, 5) of centres 0..7 is inside.
    v, t = box_mesh((2.5, 2.5, 2.5), (5.5, 5.5, 5.5), flip_diagonals=flip)
    r = voxelize(v, t, voxel_size=1.0, origin=(0.0, 0.0, 0.0), fit=False)
    assert r.grid.sum() == 27
    assert r.diagnostics["disagreements"] == 0
    p = centres(r)
    assert np.array_equal(r.grid, ((p >= 2.5) & (p < 5.5)).all(-1))


@pytest.mark.parametrize("seed", range(4))
def test_voxel_surface_mesh_round_trips(seed):
    """A mesh made of voxel faces voxelizes back to exactly its voxels: every ray runs through
    a face diagonal, and touching voxels make edges shared by four faces."""
    rng = np.random.default_rng(seed)
    occ = rng.random((9, 8, 7)) < 0.45
    occ[0, 0, 0] = occ[-1, -1, -1] = True  # the bounding box of the mesh is the whole grid
    v, t = grid_surface_mesh(occ, rng)
    r = voxelize(v, t, voxel_size=1.0, origin=(0.0, 0.0, 0.0))
    assert np.array_equal(r.grid, occ)
    assert r.diagnostics["disagreements"] == 0 and r.diagnostics["boundary_edges"] == 0
    plain = voxelize(v, t, voxel_size=1.0, origin=(0.0, 0.0, 0.0), robust=False)
    assert np.array_equal(plain.grid, occ)
    # The same solid moved and scaled off dyadic coordinates.
    r2 = voxelize(v * 0.37 + 1.3, t, voxel_size=0.37, origin=(1.3, 1.3, 1.3))
    assert np.array_equal(r2.grid, occ)


# ---------------------------------------------------------------------------------------------
# grid specification


def test_resolution_grid_fit_and_origin():
    v, t = uv_sphere(np.array([5.0, -3.0, 2.0]), 1.0)
    v[:, 2] *= 0.5
    cube = voxelize(v, t, resolution=20, fit=False)
    assert cube.grid.shape == (20, 20, 20)
    assert math.isclose(cube.voxel_size, 0.1, rel_tol=1e-12)
    assert np.allclose(cube.origin, [4.0, -4.0, 0.0])  # the cube centred on the bounding box
    fit = voxelize(v, t, resolution=20)
    assert fit.grid.shape[0] == 20 and fit.grid.shape[2] < 12
    steps = (fit.origin - v.min(axis=0)) / fit.voxel_size  # anchored at the bbox min corner
    assert np.allclose(steps, np.round(steps))
    for ax in range(3):  # fitted: every boundary layer holds a filled voxel
        assert fit.grid.take(0, axis=ax).any() and fit.grid.take(-1, axis=ax).any()
    # With a pinned lattice the fitted grid is the crop of the unfitted one.
    pinned = dict(voxel_size=0.1, origin=(0.05, 0.05, 0.05))
    full = voxelize(v, t, fit=False, **pinned)
    fit = voxelize(v, t, **pinned)
    off = np.round((fit.origin - full.origin) / fit.voxel_size).astype(int)
    assert np.allclose(full.origin + off * full.voxel_size, fit.origin) and off.min() >= 0
    X, Y, Z = fit.grid.shape
    assert np.array_equal(full.grid[off[0]:off[0] + X, off[1]:off[1] + Y, off[2]:off[2] + Z], fit.grid)
    assert full.grid.sum() == fit.grid.sum() > 0


def test_fixed_origin_keeps_cells_when_the_mesh_moves():
    v, t = uv_sphere(np.array([0.0, 0.0, 0.0]), 1.0)
    a = voxelize(v, t, voxel_size=0.15, origin=(0.05, 0.05, 0.05))
    b = voxelize(v + [0.6, 0.0, 0.0], t, voxel_size=0.15, origin=(0.05, 0.05, 0.05))
    for r in (a, b):
        steps = (r.origin - 0.05) / 0.15
        assert np.allclose(steps, np.round(steps))  # corners stay on the lattice
    # Moving by 4 voxels exactly moves the solid by 4 cells.
    c = voxelize(v + [0.6, 0.0, 0.0], t, voxel_size=0.15, origin=(0.05 + 0.6, 0.05, 0.05))
    assert np.array_equal(c.grid, a.grid) and np.allclose(c.origin, a.origin + [0.6, 0, 0])


def test_blender_style_dtypes():
    """The add-on passes float32 coordinates (cast to float64 in world space) and int32 indices."""
    v, t = uv_sphere(np.array([0.1, 0.2, 0.3]), 1.0)
    a = voxelize(v, t, resolution=14)
    b = voxelize(v.astype(np.float32).astype(np.float64), t.astype(np.int32), resolution=14)
    c = voxelize(v.T.copy().T, np.asfortranarray(t.astype(np.uint32)), resolution=14)
    assert a.grid.shape == b.grid.shape and abs(int(a.grid.sum()) - int(b.grid.sum())) <= 2
    assert np.array_equal(a.grid, c.grid)


def test_voxel_size_mode():
    v, t = box_mesh((0.0, 0.0, 0.0), (2.0, 1.0, 0.5))
    r = voxelize(v, t, voxel_size=0.25)
    assert r.grid.shape == (8, 4, 2) and r.grid.all() and r.voxel_size == 0.25


# ---------------------------------------------------------------------------------------------
# anti-aliasing


def test_samples_1_is_plain_parity_and_fraction_none():
    v, t = uv_sphere(np.array([0.1, 0.2, 0.3]), 1.0)
    r = voxelize(v, t, resolution=17, fit=False)
    assert r.fraction is None
    assert np.array_equal(r.grid, convex_inside(v, t, centres(r), 1e-6))


@pytest.mark.parametrize("k, n", [(2, 10), (3, 10), (8, 5)])  # k = 8: two-byte counters
def test_fraction_is_the_finer_parity_grid_averaged(k, n):
    v, t = torus(np.array([0.0371, -0.0213, 0.0117]), 1.0, 0.4, 48, 24)
    coarse = voxelize(v, t, resolution=n, samples=k, fit=False, robust=False)
    fine = voxelize(v, t, resolution=n * k, fit=False, robust=False)
    blocks = fine.grid.reshape(n, k, n, k, n, k).sum(axis=(1, 3, 5))
    assert coarse.fraction.dtype == np.float32 and coarse.fraction.shape == (n, n, n)
    assert np.array_equal(np.round(coarse.fraction * k**3).astype(int), blocks)
    assert np.array_equal(coarse.grid, blocks >= math.ceil(0.5 * k**3))
    # Closed mesh: the three passes sample the same points, so the vote changes nothing.
    robust = voxelize(v, t, resolution=n, samples=k, fit=False)
    assert np.array_equal(robust.fraction, coarse.fraction) and robust.diagnostics["disagreements"] == 0


def test_fraction_converges_to_volume_and_threshold_orders_grids():
    v, t = uv_sphere(np.array([0.0, 0.0, 0.0]), 1.0, 48, 24)
    a, b, c = v[t[:, 0]], v[t[:, 1]], v[t[:, 2]]
    volume = np.einsum("ij,ij->i", a, np.cross(b, c)).sum() / 6.0
    errors = []
    for k in (1, 2, 4):
        r = voxelize(v, t, resolution=12, samples=k, fit=False)
        frac = r.grid.astype(float) if r.fraction is None else r.fraction.astype(float)
        errors.append(abs(frac.sum() * r.voxel_size**3 - volume) / volume)
    assert errors[2] < 0.005 and errors[2] < errors[0]
    grids = [voxelize(v, t, resolution=12, samples=3, threshold=th).grid.sum() for th in (0.0, 0.25, 0.5, 0.75, 1.0)]
    assert grids == sorted(grids, reverse=True) and grids[0] > grids[-1]


# ---------------------------------------------------------------------------------------------
# open meshes, diagnostics, progress


def test_open_box_warns_and_robust_fill_bridges_the_hole():
    v, t = box_mesh((0.03, 0.05, 0.07), (1.03, 1.05, 1.07))
    keep = np.ones(len(t), bool)
    keep[2:4] = False  # remove one z face (the top)
    open_t = t[keep]
    r = voxelize(v, open_t, voxel_size=0.1, origin=(0, 0, 0), fit=False)
    assert r.diagnostics["looks_open"] and r.diagnostics["boundary_edges"] == 4
    dis = r.diagnostics["disagreements"]
    assert dis > 0
    assert any(w.startswith("The mesh is open (4 boundary edges)") and f"disagree on {dis:,} voxels" in w
               for w in r.warnings), r.warnings
    assert r.grid.sum() == 1000  # x and y passes still see a closed box in every column
    plain = voxelize(v, open_t, voxel_size=0.1, origin=(0, 0, 0), fit=False, robust=False)
    assert any("robust" in w for w in plain.warnings)
    assert plain.grid.sum() != 1000


def test_near_duplicate_vertices_are_welded_before_judging_openness():
    """An STL-like closed mesh: every facet has its own copies of its vertices, a few float32
    steps apart (as exporters' rounding leaves them, and Blender's STL import keeps them)."""
    v, t = procedural.stegosaurus()
    rng = np.random.default_rng(1)
    soup = v[t].reshape(-1, 3) + rng.uniform(-1e-6, 1e-6, (3 * len(t), 3))
    soup_t = np.arange(len(soup)).reshape(-1, 3)
    r = voxelize(soup, soup_t, resolution=24)
    exact = voxelize(v, t, resolution=24)
    assert r.diagnostics["boundary_edges"] == 0 and not r.diagnostics["looks_open"]
    assert r.diagnostics["vertices_welded"] == exact.diagnostics["vertices_welded"] == len(np.unique(v, axis=0))
    assert r.diagnostics["parts"] == exact.diagnostics["parts"]
    assert not any("open" in w for w in r.warnings)
    assert np.array_equal(r.grid, exact.grid)
    # Far from the origin a float32 step is larger (0.00024 at 3000): copies two steps apart.
    far = (v + 3000.0)[t].reshape(-1, 3).astype(np.float32).astype(float)
    far += rng.choice([-2, 0, 2], far.shape) * np.spacing(np.float32(3000.0))
    f = voxelize(far, soup_t, resolution=24)
    assert f.diagnostics["boundary_edges"] == 0 and not any("open" in w for w in f.warnings)
    assert f.diagnostics["weld_tolerance"] < 1e-3 * 4.6
    # Copies farther apart than the tolerance (1e-5 of the model's size) are real gaps.
    gaps = v[t].reshape(-1, 3) + rng.uniform(-1e-3, 1e-3, (3 * len(t), 3))
    g = voxelize(gaps, soup_t, resolution=24)
    assert g.diagnostics["boundary_edges"] > 0 and any(w.startswith("The mesh is open") for w in g.warnings)


def test_weld_near_matches_brute_force():
    from engine.voxel import raycast
    rng = np.random.default_rng(2)
    base = rng.uniform(-1, 1, (300, 3))
    v = np.vstack([base, base[:200] + rng.uniform(-4e-4, 4e-4, (200, 3)), [[np.nan, 0, 0]]])
    used = np.ones(len(v), bool)
    used[-1] = False
    ids, n = raycast.weld_near(v, (v + 0.0).view(np.int64), used, 1e-3, 0.064)
    # Reference: union of all pairs within the tolerance on every axis (the points are spread
    # out, so there are no chains for the greedy cell rule to cut short).
    close = (np.abs(v[:-1, None, :] - v[None, :-1, :]) <= 1e-3).all(axis=2)
    comp = np.arange(len(v) - 1)
    for i, j in zip(*np.nonzero(close)):
        a, b = comp[i], comp[j]
        comp[comp == max(a, b)] = min(a, b)
    assert n == len(np.unique(comp)) + 1 == 301
    assert np.array_equal(ids[:-1][:, None] == ids[:-1][None, :], comp[:, None] == comp[None, :])
    assert ids[-1] == n - 1 and ids[0] == 0
    # Cells of twice the tolerance: every vertex looks into neighbour cells; same answer.
    ids2, n2 = raycast.weld_near(v, (v + 0.0).view(np.int64), used, 1e-3, 2e-3)
    assert n2 == n and np.array_equal(ids2, ids)


def test_open_mesh_messages_say_what_the_holes_did():
    # A hole that no ray passes through differently: open, but no voxel changed.
    v, t = box_mesh((0.03, 0.02, 0.04), (1.01, 1.02, 1.03))
    hole_v = np.vstack([v, [[0.5, 0.5, 1.03], [0.51, 0.5, 1.03], [0.5, 0.51, 1.03]]])
    hole_t = np.vstack([t, [[8, 9, 10]]])  # a stray one-sided triangle between the rays
    r = voxelize(hole_v, hole_t, voxel_size=0.1, origin=(0, 0, 0))
    assert r.diagnostics["boundary_edges"] == 3
    assert any("open (3 boundary edges), but the holes changed no voxel" in w for w in r.warnings), r.warnings
    from engine.voxel.voxelize import _mesh_warnings
    assert _mesh_warnings(0, 0, 100) == [] and _mesh_warnings(0, 8, 100) == []
    closed_bad = _mesh_warnings(0, 50, 1000)
    assert len(closed_bad) == 1 and "disagree on 50 voxels (5.0 % of the filled voxels)" in closed_bad[0]
    assert "closed" in closed_bad[0] and "intersects itself" in closed_bad[0]
    assert "robust" in _mesh_warnings(2, None, 100)[0] and _mesh_warnings(0, None, 100) == []


def test_absurd_coordinates_have_their_own_messages():
    v = np.vstack([CUBE_V, [[1e30, 0.0, 0.0]]])
    t = np.vstack([CUBE_T, [[0, 1, 8]]])
    with pytest.raises(VoxelizeError, match=r"vertex 8 is at \(1e\+30, 0, 0\), far away from the rest"):
        voxelize(v, t, resolution=12)
    # Unused, it is ignored; a merely large model part is not a stray.
    assert voxelize(v, CUBE_T, resolution=4).grid.all()
    spike = np.vstack([CUBE_V, [[40.0, 0.5, 0.5]]])
    assert voxelize(spike, t, resolution=80).grid.any()
    with pytest.raises(VoxelizeError, match="1e\\+12 units from the world origin but only 1 across"):
        voxelize(CUBE_V + 1e12, CUBE_T, resolution=4)


def test_progress_is_called_and_can_cancel():
    v, t = uv_sphere(np.array([0.0, 0.0, 0.0]), 1.0)
    seen = []
    voxelize(v, t, resolution=16, progress=lambda f: seen.append(f) or False)
    assert len(seen) >= 4 and seen == sorted(seen) and seen[0] == 0.0 and seen[-1] == 1.0
    calls = []
    with pytest.raises(VoxelizeError, match="cancelled"):
        voxelize(v, t, resolution=16, progress=lambda f: calls.append(f) or len(calls) >= 2)
    assert len(calls) == 2


def test_bands_give_the_same_grid(monkeypatch):
    v, t = torus(np.array([0.0371, -0.0213, 0.0117]), 1.0, 0.4, 48, 24)
    whole = voxelize(v, t, resolution=24, samples=2)
    monkeypatch.setattr(vox_mod, "BAND_COLUMNS", 64)  # many small bands
    monkeypatch.setattr(vox_mod, "BAND_VOXELS", 500)  # and slabs of the vote
    banded = voxelize(v, t, resolution=24, samples=2)
    assert np.array_equal(whole.grid, banded.grid) and np.array_equal(whole.fraction, banded.fraction)
    assert np.array_equal(whole.origin, banded.origin)
    assert whole.diagnostics["disagreements"] == banded.diagnostics["disagreements"]
    ticks = []
    voxelize(v, t, resolution=24, progress=lambda f: ticks.append(f) or False)
    assert len(ticks) > 20 and ticks == sorted(ticks)


# ---------------------------------------------------------------------------------------------
# degenerate and bad input


def test_degenerate_triangles_are_counted_and_ignored():
    v, t = box_mesh((0.03, 0.05, 0.07), (1.03, 1.05, 1.07))
    v = np.vstack([v, [[0.5, 0.5, 0.5], [0.6, 0.6, 0.6], [0.7, 0.7, 0.7]]])
    t = np.vstack([t, [[8, 9, 10], [0, 0, 1], [9, 9, 9]]])
    r = voxelize(v, t, voxel_size=0.1, origin=(0, 0, 0))
    assert r.diagnostics["degenerate_triangles"] == 3
    assert r.grid.sum() == 1000 and not r.diagnostics["looks_open"]


def test_flat_mesh_gives_empty_grid_with_warning():
    v = np.array([[0, 0, 0.5], [1, 0, 0.5], [1, 1, 0.5], [0, 1, 0.5]], float)
    t = np.array([[0, 1, 2], [0, 2, 3], [0, 2, 1], [0, 3, 2]])  # both sides: a closed flat sheet
    r = voxelize(v, t, resolution=8)
    assert r.grid.shape == (0, 0, 0) and r.grid.dtype == bool
    assert any("Nothing was filled" in w for w in r.warnings)
    r = voxelize(v, t, resolution=8, fit=False)
    assert r.grid.shape == (8, 8, 8) and not r.grid.any()


def test_only_zero_area_triangles():
    v = np.array([[0, 0, 0], [1, 1, 1], [2, 2, 2]], float)
    r = voxelize(v, [[0, 1, 2]], resolution=4)
    assert r.grid.size == 0 and r.diagnostics["degenerate_triangles"] == 1 and r.warnings


CUBE_V, CUBE_T = box_mesh((0, 0, 0), (1, 1, 1))


@pytest.mark.parametrize("kwargs, message", [
    (dict(vertices=CUBE_V, triangles=np.zeros((0, 3), int), resolution=4), "no triangles"),
    (dict(vertices=CUBE_V, triangles=[], resolution=4), "no triangles"),
    (dict(vertices=CUBE_V[:, :2], triangles=CUBE_T, resolution=4), r"shape \(n, 3\)"),
    (dict(vertices=CUBE_V, triangles=CUBE_T[:, :2], resolution=4), r"shape \(m, 3\)"),
    (dict(vertices=CUBE_V, triangles=CUBE_T + 0.5, resolution=4), "integer"),
    (dict(vertices=CUBE_V, triangles=np.vstack([CUBE_T, [[0, 1, 8]]]), resolution=4),
     "triangle 12 uses vertex 8, but there are 8 vertices"),
    (dict(vertices=CUBE_V, triangles=np.vstack([CUBE_T, [[0, -1, 2]]]), resolution=4), "vertex -1"),
    (dict(vertices=np.where(np.arange(24).reshape(8, 3) == 7, np.nan, CUBE_V), triangles=CUBE_T,
          resolution=4), "NaN or infinite.*vertex 2"),
    (dict(vertices=np.where(np.arange(24).reshape(8, 3) == 0, np.inf, CUBE_V), triangles=CUBE_T,
          resolution=4), "NaN or infinite"),
    (dict(vertices=np.ones((8, 3)), triangles=CUBE_T, resolution=4), "zero size"),
    (dict(vertices=(CUBE_V * 2 - 1) * 1.7e308, triangles=CUBE_T, resolution=4), "overflow"),
    (dict(vertices=CUBE_V, triangles=CUBE_T), "exactly one"),
    (dict(vertices=CUBE_V, triangles=CUBE_T, resolution=4, voxel_size=0.1), "exactly one"),
    (dict(vertices=CUBE_V, triangles=CUBE_T, resolution=0), "at least 1"),
    (dict(vertices=CUBE_V, triangles=CUBE_T, resolution=-3), "at least 1"),
    (dict(vertices=CUBE_V, triangles=CUBE_T, resolution=2.5), "whole number"),
    (dict(vertices=CUBE_V, triangles=CUBE_T, resolution=True), "whole number"),
    (dict(vertices=CUBE_V, triangles=CUBE_T, resolution="12"), "whole number"),
    (dict(vertices=CUBE_V, triangles=CUBE_T, resolution=5000), "resolution 5000 is too large.*1024"),
    (dict(vertices=CUBE_V, triangles=CUBE_T, voxel_size=1e-5), "100,000 voxels along the longest axis"),
    (dict(vertices=CUBE_V, triangles=CUBE_T, voxel_size=0.0), "positive"),
    (dict(vertices=CUBE_V, triangles=CUBE_T, voxel_size=float("nan")), "positive"),
    (dict(vertices=CUBE_V, triangles=CUBE_T, voxel_size=1e-5, origin=(0, 0, 0)), "1024"),
    (dict(vertices=CUBE_V, triangles=CUBE_T, resolution=4, origin=(0, np.nan, 0)), "origin must be finite"),
    (dict(vertices=CUBE_V, triangles=CUBE_T, resolution=4, origin=(0, 0)), "origin must be three numbers"),
    (dict(vertices=CUBE_V, triangles=CUBE_T, resolution=4, origin=(1e300, 0, 0)), "origin is too far"),
    (dict(vertices=CUBE_V, triangles=CUBE_T, resolution=4, samples=0), "samples must be from 1 to 8"),
    (dict(vertices=CUBE_V, triangles=CUBE_T, resolution=4, samples=9), "samples must be from 1 to 8"),
    (dict(vertices=CUBE_V, triangles=CUBE_T, resolution=4, samples=2.0), "whole number"),
    (dict(vertices=CUBE_V, triangles=CUBE_T, resolution=4, threshold=1.5), "threshold"),
    (dict(vertices=CUBE_V, triangles=CUBE_T, resolution=4, threshold=float("nan")), "threshold"),
    (dict(vertices=CUBE_V, triangles=CUBE_T, resolution=4, threshold="half"), "threshold"),
    (dict(vertices=CUBE_V, triangles=CUBE_T, resolution=4, progress=3), "progress must be a callable"),
])
def test_bad_input_messages(kwargs, message):
    kwargs = dict(kwargs)
    with pytest.raises(VoxelizeError, match=message):
        voxelize(kwargs.pop("vertices"), kwargs.pop("triangles"), **kwargs)


def test_memory_refusal_names_the_size(monkeypatch):
    monkeypatch.setattr(vox_mod, "_available_memory", lambda: 2**30)
    with pytest.raises(VoxelizeError, match=r"1024×1024×1024 grid .*too large"):
        voxelize(CUBE_V, CUBE_T, resolution=1024)


def test_unused_nan_vertices_are_ignored():
    v = np.vstack([CUBE_V, [[np.nan, 0, 0]]])
    r = voxelize(v, CUBE_T, resolution=4)
    assert r.grid.shape == (4, 4, 4) and r.grid.all()


def test_plain_python_fallback_without_numba():
    """Where numba is missing the same kernels run as plain Python (engine/jit.py): same grid."""
    code = (
        "import numpy as np\n"
        "from engine import jit; assert not jit.HAVE_NUMBA\n"
        "from engine.voxel.voxelize import voxelize\n"
        "from test_voxelize import uv_sphere, convex_inside, centres\n"
        "v, t = uv_sphere(np.array([0.3137, -0.2718, 0.1414]), 1.0, 16, 8)\n"
        "r = voxelize(v, t, resolution=10, fit=False)\n"
        "assert np.array_equal(r.grid, convex_inside(v, t, centres(r), 1e-6))\n"
        "r2 = voxelize(v, t, resolution=6, samples=2)\n"
        "print(int(r.grid.sum()), r.diagnostics['disagreements'], r2.fraction is not None)\n")
    out = run_without_numba(code, "-W", "error::RuntimeWarning")
    assert out.returncode == 0, out.stderr
    n, dis, has_frac = out.stdout.split()
    assert int(n) > 200 and dis == "0" and has_frac == "True"


def test_inverted_inner_shell_is_a_cavity():
    """A hollow ball made of two separate shells, the inner one wound inwards: robust mode
    carves it out (as parity does) instead of uniting the two parts; an inverted shell that is
    not inside anything is still filled."""
    c = np.array([0.0123, -0.0371, 0.0219])
    vo, to = uv_sphere(c, 1.0)
    vi, ti = uv_sphere(c, 0.55)
    v = np.vstack([vo, vi])
    t = np.vstack([to, ti[:, ::-1] + len(vo)])
    r = voxelize(v, t, resolution=24, fit=False)
    p = centres(r)
    outer = convex_inside(vo, to, p, 1e-6)
    inner = convex_inside(vi, ti, p, 1e-6)
    assert inner.sum() > 100
    assert r.diagnostics["parts"] == 2 and r.diagnostics["cavities"] == 1
    assert np.array_equal(r.grid, outer & ~inner)
    # Both shells wound outwards: two nested solids, united.
    same = voxelize(np.vstack([vo, vi]), np.vstack([to, ti + len(vo)]), resolution=24, fit=False)
    assert same.diagnostics["cavities"] == 0 and np.array_equal(same.grid, outer)
    # An inverted ball beside a solid one stays filled (exclusive or, not subtraction).
    vs_ = np.vstack([vo, vi + [2.0, 0.0, 0.0]])
    r2 = voxelize(vs_, t, voxel_size=r.voxel_size, origin=r.origin, fit=False)
    p2 = centres(r2)
    expect = convex_inside(vo, to, p2, 1e-6) | convex_inside(vi + [2.0, 0.0, 0.0], ti, p2, 1e-6)
    assert r2.diagnostics["cavities"] == 1 and np.array_equal(r2.grid, expect)


def test_high_valence_vertices():
    """A closed cone whose apex and base centre each touch 100,000 triangles: the per-vertex
    edge grouping and the column sorts must not go quadratic."""
    n = 100_000
    a = 2 * np.pi * np.arange(n) / n
    rim = np.stack([np.cos(a), np.sin(a), np.zeros(n)], axis=1)
    v = np.vstack([rim, [[0.0, 0.0, 1.3], [0.0, 0.0, 0.0]]]) + [0.0123, -0.0371, 0.0219]
    i = np.arange(n)
    t = np.vstack([np.stack([i, (i + 1) % n, np.full(n, n)], 1),
                   np.stack([(i + 1) % n, i, np.full(n, n + 1)], 1)])
    r = voxelize(v, t, resolution=15, fit=False)
    assert r.diagnostics["boundary_edges"] == 0 and r.diagnostics["disagreements"] == 0
    p = centres(r) - [0.0123, -0.0371, 0.0219]
    rad = np.hypot(p[..., 0], p[..., 1])
    inside = (p[..., 2] > 0) & (rad < 1.0 - p[..., 2] / 1.3)
    # The polygon is within 5e-10 of the circle; keep every centre well clear of both.
    near = (np.abs(rad - (1.0 - p[..., 2] / 1.3)) < 1e-3) | (np.abs(p[..., 2]) < 1e-3)
    assert not near.any()
    assert np.array_equal(r.grid, inside)
