"""engine/voxel/pieces.py: connected pieces, surface voxels and the repairs, against plain-Python
references; and what the repairs do to models with thin parts (tests/procedural.py)."""
from collections import deque
from itertools import product

import numpy as np
import pytest

import procedural as P
from conftest import run_without_numba
from engine.voxel import pieces
from engine.voxel.voxelize import VoxelizeError, voxelize

FACES = [(1, 0, 0), (-1, 0, 0), (0, 1, 0), (0, -1, 0), (0, 0, 1), (0, 0, -1)]
ALL = [d for d in product((-1, 0, 1), repeat=3) if d != (0, 0, 0)]


def reference_labels(grid, full):
    """Breadth-first flood fill in x-major scan order: the numbering pieces.labels promises."""
    lab = np.zeros(grid.shape, np.int64)
    sizes = [0]
    steps = ALL if full else FACES
    for start in zip(*np.nonzero(grid)):
        if lab[start]:
            continue
        n = len(sizes)
        lab[start] = n
        todo, size = deque([start]), 0
        while todo:
            c = todo.popleft()
            size += 1
            for d in steps:
                e = tuple(a + b for a, b in zip(c, d))
                if all(0 <= e[i] < grid.shape[i] for i in range(3)) and grid[e] and not lab[e]:
                    lab[e] = n
                    todo.append(e)
        sizes.append(size)
    return lab, np.array(sizes)


def random_grids():
    rng = np.random.default_rng(7)
    shapes = [(1, 1, 1), (1, 1, 9), (9, 1, 1), (1, 7, 1), (5, 6, 7), (12, 3, 9), (8, 8, 8)]
    for shape in shapes:
        for density in (0.0, 0.15, 0.35, 0.6, 1.0):
            yield rng.random(shape) < density


@pytest.mark.parametrize("full", [False, True])
def test_labels_match_flood_fill(full):
    for grid in random_grids():
        lab, sizes = pieces.labels(grid, full=full)
        ref_lab, ref_sizes = reference_labels(grid, full)
        assert np.array_equal(lab, ref_lab), grid.shape
        assert np.array_equal(sizes[1:], ref_sizes[1:])
        assert lab.dtype == np.int32 and lab.shape == grid.shape


def test_piece_stats_on_a_grid_built_by_hand():
    g = np.zeros((8, 8, 8), bool)
    g[0:3, 0:3, 0:3] = True      # 27 voxels
    g[3, 3, 3] = True            # touches the block at a corner only
    g[6, 6, 6] = True            # alone
    g[6, 0, 0] = g[6, 0, 1] = True  # a pair
    s = pieces.piece_stats(g)
    assert s == {"pieces": 4, "pieces_26": 3, "sizes": [27, 2, 1, 1], "largest": 27,
                 "largest_fraction": 27 / 31, "single_cubes": 2, "floating_cubes": 1, "filled": 31}
    assert "4 pieces (2 single cubes); the largest has 27 of 31 voxels" in pieces.describe(s)
    assert "3 if touching edges and corners count" in pieces.describe(s)
    assert pieces.describe(pieces.piece_stats(g[:3, :3, :3])) == ""
    assert pieces.piece_stats(np.zeros((3, 4, 5), bool))["pieces"] == 0


# ---------------------------------------------------------------------------------------------
# surface voxels: triangle/box overlap against polygon clipping


def clip_overlaps(tri, lo, hi):
    """Whether a triangle meets the closed box [lo, hi]: clip the triangle against the box's six
    half-spaces (Sutherland-Hodgman) and see whether anything is left."""
    poly = [np.asarray(p, float) for p in tri]
    for axis in range(3):
        for bound, sign in ((lo[axis], 1.0), (hi[axis], -1.0)):
            out = []
            for i in range(len(poly)):
                a, b = poly[i], poly[(i + 1) % len(poly)]
                da, db = sign * (a[axis] - bound), sign * (b[axis] - bound)
                if da >= 0:
                    out.append(a)
                if (da >= 0) != (db >= 0):
                    out.append(a + (b - a) * (da / (da - db)))
            poly = out
            if not poly:
                return False
    return True


def test_surface_voxels_match_polygon_clipping():
    rng = np.random.default_rng(11)
    shape = (6, 5, 7)
    for trial in range(60):
        scale = rng.choice([0.3, 1.5, 4.0])
        centre = rng.uniform([0, 0, 0], shape)
        tri = centre + rng.normal(size=(3, 3)) * scale
        g = np.ascontiguousarray(tri)
        out = np.zeros(shape, bool)
        n = pieces.surface_voxels(g, np.array([[0, 1, 2]]), out)
        expect = np.zeros(shape, bool)
        for idx in np.ndindex(*shape):
            lo = np.array(idx, float)
            # Keep the comparison away from grazing contacts, where the two methods may round
            # differently: shrink/grow the box by 1e-6 and require both to agree.
            inner = clip_overlaps(tri, lo + 1e-6, lo + 1 - 1e-6)
            outer = clip_overlaps(tri, lo - 1e-6, lo + 1 + 1e-6)
            if inner != outer:
                expect[idx] = out[idx]  # grazing: either answer is right
            else:
                expect[idx] = inner
        assert np.array_equal(out, expect), trial
        assert n == out.sum()


def test_surface_of_a_box_on_voxel_boundaries_marks_both_sides():
    v, t = P.box([2.0, 2.0, 2.0], [1.0, 1.0, 1.0])  # the box [1, 3]^3
    out = np.zeros((5, 5, 5), bool)
    pieces.surface_voxels(v, t, out)
    # Closed boxes: every voxel touching the box's surface, inside or outside ([0, 4)^3 minus
    # the far corners that touch nothing... all of [0, 4)^3 touches the surface here).
    expect = np.zeros((5, 5, 5), bool)
    expect[0:4, 0:4, 0:4] = True
    assert np.array_equal(out, expect)


# ---------------------------------------------------------------------------------------------
# repairs


def dilate26(g):
    p = np.pad(g, 1)
    out = np.zeros_like(g)
    X, Y, Z = g.shape
    for dx, dy, dz in product(range(3), repeat=3):
        out |= p[dx:dx + X, dy:dy + Y, dz:dz + Z]
    return out


def test_thin_voxels_are_surface_voxels_with_nothing_filled_around():
    rng = np.random.default_rng(3)
    for _ in range(20):
        g = rng.random((7, 6, 5)) < 0.08
        s = rng.random((7, 6, 5)) < 0.4
        out = np.empty(g.shape, bool)
        n = pieces.thin_voxels(g, s, out)
        expect = s & ~g & ~dilate26(g)
        assert np.array_equal(out, expect) and n == expect.sum()


def zero_one_distances(grid, allowed, root_mask):
    """Per voxel: the fewest empty allowed voxels on a face-connected path from a root voxel."""
    dist = np.full(grid.shape, np.inf)
    todo = deque()
    for c in zip(*np.nonzero(root_mask)):
        dist[c] = 0
        todo.append(c)
    while todo:
        c = todo.popleft()
        for d in FACES:
            e = tuple(a + b for a, b in zip(c, d))
            if not all(0 <= e[i] < grid.shape[i] for i in range(3)) or not allowed[e]:
                continue
            w = 0 if grid[e] else 1
            if dist[c] + w < dist[e]:
                dist[e] = dist[c] + w
                (todo.appendleft if w == 0 else todo.append)(e)
    return dist


def test_bridge_joins_pieces_within_the_surface_with_few_voxels():
    rng = np.random.default_rng(5)
    for trial in range(25):
        shape = (9, 8, 7)
        allowed = rng.random(shape) < 0.7
        grid = allowed & (rng.random(shape) < 0.3)
        added = pieces._bridge(grid, allowed)
        assert not (added & ~allowed).any() and not (added & grid).any()
        joined = grid | added
        # One piece per region of allowed voxels that holds any filled voxel.
        region, _ = pieces.labels(allowed)
        lab, sizes = pieces.labels(grid)
        after, _ = pieces.labels(joined)
        for r in np.unique(region[grid]):
            assert len(np.unique(after[(region == r) & joined])) == 1, trial
            # Each piece costs no more than its own cheapest path to the region's largest piece,
            # and the whole region no more than their sum.
            in_r = np.unique(lab[(region == r) & grid])
            big = in_r[np.argmax(sizes[in_r])]
            dist = zero_one_distances(grid, allowed, lab == big)
            need = [dist[lab == p].min() for p in in_r if p != big]
            n_added = int((added & (region == r)).sum())
            assert max(need, default=0) <= n_added <= sum(need), trial


def test_bridge_through_a_corridor_adds_exactly_the_gap():
    grid = np.zeros((12, 5, 5), bool)
    grid[0:3, 1:4, 1:4] = True
    grid[7:10, 1:4, 1:4] = True
    allowed = grid.copy()
    allowed[3:7, 2, 2] = True   # a corridor of 4 voxels
    allowed[3:7, 0, 0] = True   # and a dead end beside it (not connected to the far block)
    added = pieces._bridge(grid, allowed)
    assert added.sum() == 4 and added[3:7, 2, 2].all()


def test_repair_small_pieces_and_largest_and_change_codes():
    g = np.zeros((10, 10, 10), bool)
    g[0:4, 0:4, 0:4] = True   # 64
    g[6:8, 6:8, 6:8] = True   # 8
    g[9, 0, 0] = True         # 1
    g[0, 9, 9] = g[0, 9, 8] = True  # 2
    out, changes, eff = pieces.repair(g, min_piece=3)
    assert out.sum() == 72 and eff["small_removed"] == 3 and eff["small_pieces_removed"] == 2
    assert (changes == pieces.SMALL_REMOVED).sum() == 3 and not out[changes != 0].any()
    out, changes, eff = pieces.repair(g, keep_largest=True)
    assert out.sum() == 64 and eff["others_removed"] == 11 and eff["other_pieces_removed"] == 3
    assert np.array_equal(out, g & (changes == 0))
    out, changes, eff = pieces.repair(g, min_piece=3, keep_largest=True)
    assert out.sum() == 64 and eff["small_removed"] == 3 and eff["others_removed"] == 8
    same, changes, eff = pieces.repair(g)
    assert np.array_equal(same, g) and not changes.any() and not any(eff.values())
    with pytest.raises(ValueError, match="surface"):
        pieces.repair(g, bridge=True)
    with pytest.raises(ValueError, match="min_piece"):
        pieces.repair(g, min_piece=-1)


# ---------------------------------------------------------------------------------------------
# through voxelize, on models with thin parts


def _check_changes(plain, fixed):
    """The repaired grid is the plain one plus the voxels marked added, minus those marked
    removed (both grids on the same lattice: fit=False with a pinned origin)."""
    ch = fixed.changes
    added = ch > 0
    removed = ch < 0
    assert np.array_equal(fixed.grid, (plain.grid | added) & ~removed)
    assert not (added & plain.grid).any() and not (removed & ~plain.grid).any()


@pytest.mark.parametrize("res", [24, 36])
def test_spider_legs_fall_apart_and_the_options_join_them(res):
    v, t = P.spider()
    kw = dict(voxel_size=3.8 / res, origin=(-2.0, -2.0, -0.1), fit=False)
    plain = voxelize(v, t, **kw)
    before = plain.diagnostics["pieces"]
    assert before["pieces"] > 1 and before["single_cubes"] >= 1
    assert plain.changes is None and plain.diagnostics["repair"] is None
    assert any("fall apart into" in w and "single cube" in w for w in plain.warnings)
    for opts in ({"bridge": True}, {"thin_parts": True}):
        fixed = voxelize(v, t, **kw, **opts)
        after = fixed.diagnostics["pieces"]
        rep = fixed.diagnostics["repair"]
        assert after["pieces"] == 1 and after["single_cubes"] == 0, opts
        assert rep["before"] == before
        assert not any("fall apart" in w for w in fixed.warnings)
        _check_changes(plain, fixed)
        n_added = int((fixed.changes > 0).sum())
        assert n_added == rep["thin_added"] + rep["bridge_added"] > 0
    bridged = voxelize(v, t, **kw, bridge=True)
    thick = voxelize(v, t, **kw, thin_parts=True)
    # Bridging adds only connecting voxels; restoring thin parts keeps the whole legs.
    assert bridged.grid.sum() < thick.grid.sum()
    assert thick.diagnostics["repair"]["thin_added"] > 0
    largest = voxelize(v, t, **kw, keep_largest=True)
    assert largest.diagnostics["pieces"]["pieces"] == 1
    assert largest.grid.sum() == before["largest"]
    _check_changes(plain, largest)
    small = voxelize(v, t, **kw, min_piece=2)
    assert small.diagnostics["pieces"]["single_cubes"] == 0
    assert small.diagnostics["repair"]["small_removed"] == before["single_cubes"]


def test_added_voxels_touch_the_mesh():
    v, t = P.spider()
    r = voxelize(v, t, resolution=24, thin_parts=True, fit=False)
    tri = v[t]
    for idx in np.argwhere(r.changes > 0):
        lo = r.origin + idx * r.voxel_size
        hi = lo + r.voxel_size
        near = ((tri.max(axis=1) >= lo - 1e-9) & (tri.min(axis=1) <= hi + 1e-9)).all(axis=1)
        assert any(clip_overlaps(x, lo - 1e-9, hi + 1e-9) for x in tri[near]), idx


def test_stegosaurus_plates_are_kept_and_attached():
    v, t = P.stegosaurus()
    for res in (24, 36):
        plain = voxelize(v, t, resolution=res)
        thick = voxelize(v, t, resolution=res, thin_parts=True)
        assert thick.diagnostics["pieces"]["pieces"] == 1
        assert thick.grid.sum() > plain.grid.sum()


def test_fitted_grid_grows_to_restored_parts():
    """A thin part beyond every filled voxel (here a long thin spike) must not be cut off by the
    fit: the grid is fitted after the repairs."""
    v, t = P.join([P.box([0.5, 0.5, 0.5], [0.5, 0.5, 0.5]), P.tube([0.5, 0.5, 0.9], [0.5, 0.5, 3.0], 0.02)])
    plain = voxelize(v, t, resolution=12)
    thick = voxelize(v, t, resolution=12, thin_parts=True)
    assert thick.grid.shape[2] > plain.grid.shape[2]
    assert thick.changes.shape == thick.grid.shape
    assert thick.diagnostics["pieces"]["pieces"] == 1


def test_edge_touching_cubes_bridge_with_one_voxel():
    v, t = P.cubes_apart()
    kw = dict(voxel_size=0.25, origin=(0.0, 0.0, 0.0), fit=False)
    plain = voxelize(v, t, **kw)
    assert plain.diagnostics["pieces"]["pieces"] == 4 and plain.diagnostics["pieces"]["pieces_26"] == 3
    b = voxelize(v, t, **kw, bridge=True)
    # The two cubes that share an edge get one voxel; cubes apart stay apart (no mesh between).
    assert b.diagnostics["repair"]["bridge_added"] == 1 and b.diagnostics["pieces"]["pieces"] == 3


def test_bad_piece_options():
    v, t = P.cubes_apart()
    for bad in (-1, 2.5, True, "3"):
        with pytest.raises(VoxelizeError, match="min_piece"):
            voxelize(v, t, resolution=8, min_piece=bad)


def test_pieces_without_numba():
    """The kernels run as plain Python where numba is missing (engine/jit.py): same answers."""
    code = (
        "from engine import jit; assert not jit.HAVE_NUMBA\n"
        "import procedural as P\n"
        "from engine.voxel.voxelize import voxelize\n"
        "v, t = P.spider()\n"
        "a = voxelize(v, t, resolution=12)\n"
        "b = voxelize(v, t, resolution=12, thin_parts=True)\n"
        "print(a.diagnostics['pieces']['pieces'], b.diagnostics['pieces']['pieces'], int(b.grid.sum()))\n")
    out = run_without_numba(code)
    assert out.returncode == 0, out.stderr
    v, t = P.spider()
    a = voxelize(v, t, resolution=12)
    b = voxelize(v, t, resolution=12, thin_parts=True)
    assert out.stdout.split() == [str(a.diagnostics["pieces"]["pieces"]),
                                  str(b.diagnostics["pieces"]["pieces"]), str(int(b.grid.sum()))]


def test_a_flat_sheet_keeps_one_layer_with_thin_parts():
    v = np.array([[0, 0, 0.52], [1, 0, 0.52], [1, 1, 0.52], [0, 1, 0.52]], float)
    t = np.array([[0, 1, 2], [0, 2, 3], [0, 2, 1], [0, 3, 2]])  # both sides: a closed flat sheet
    assert voxelize(v, t, resolution=8).grid.size == 0
    r = voxelize(v, t, resolution=8, thin_parts=True)
    assert r.grid.shape == (8, 8, 1) and r.grid.all()
    assert r.diagnostics["pieces"]["pieces"] == 1 and r.diagnostics["repair"]["thin_added"] == 64


def test_the_options_refuse_grids_beyond_a_puzzle(monkeypatch):
    monkeypatch.setattr(pieces, "MAX_REPAIR_VOXELS", 1000)
    v, t = P.spider()
    assert voxelize(v, t, resolution=24).grid.any()  # no option: no limit
    with pytest.raises(VoxelizeError, match="piece options work on grids of up to 1,000 voxels"):
        voxelize(v, t, resolution=24, bridge=True)
