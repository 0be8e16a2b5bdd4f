"""The voxelizer against Blender's own ray casts (mathutils.bvhtree.BVHTree) on a closed mesh."""
import numpy as np
import pytest

bpy = pytest.importorskip("bpy", reason="needs the bpy module (pip install bpy==5.0.1, Python 3.11)")
import bmesh  # noqa: E402
from mathutils import Matrix, Vector  # noqa: E402
from mathutils.bvhtree import BVHTree  # noqa: E402

from engine.voxel.voxelize import voxelize  # noqa: E402

pytestmark = pytest.mark.blender


def bmesh_uv_sphere(offset, radius=1.0):
    bm = bmesh.new()
    bmesh.ops.create_uvsphere(bm, u_segments=32, v_segments=16, radius=radius,
                              matrix=Matrix.Translation(Vector(offset)))
    bmesh.ops.triangulate(bm, faces=bm.faces[:])
    bm.verts.ensure_lookup_table()
    verts = np.array([v.co[:] for v in bm.verts], dtype=np.float64)
    tris = np.array([[v.index for v in f.verts] for f in bm.faces], dtype=np.int64)
    return bm, verts, tris


def bvh_parity_grid(bvh, origin, voxel_size, n):
    """Rays along +z through every column centre; each hit is re-cast from just past it, and a
    voxel is inside when an odd number of hits lie beyond its centre."""
    grid = np.zeros((n, n, n), bool)
    zc = origin[2] + (np.arange(n) + 0.5) * voxel_size
    start_z = origin[2] - voxel_size
    direction = Vector((0.0, 0.0, 1.0))
    for i in range(n):
        for j in range(n):
            x = origin[0] + (i + 0.5) * voxel_size
            y = origin[1] + (j + 0.5) * voxel_size
            p = Vector((x, y, start_z))
            hits = []
            while len(hits) < 64:
                loc, _normal, _index, _dist = bvh.ray_cast(p, direction)
                if loc is None:
                    break
                hits.append(loc.z)
                p = loc + direction * 1e-5  # float32 inside the BVH: step clear of the hit
            hits = np.array(hits)
            grid[i, j] = (hits[None, :] > zc[:, None]).sum(axis=1) % 2 == 1
    return grid


@pytest.mark.parametrize("n", [24, 48])
def test_uv_sphere_matches_bvhtree_ray_casts(n):
    bm, verts, tris = bmesh_uv_sphere((0.0123, -0.0371, 0.0219))
    try:
        bvh = BVHTree.FromBMesh(bm)
    finally:
        bm.free()
    for robust in (False, True):
        r = voxelize(verts, tris, resolution=n, fit=False, robust=robust)
        expect = bvh_parity_grid(bvh, r.origin, r.voxel_size, n)
        assert expect.sum() > 0.4 * n**3
        assert np.array_equal(r.grid, expect), (n, robust, int((r.grid != expect).sum()))


def test_voxel_centres_are_inside_in_world_space():
    """The returned origin/voxel size place voxels where the mesh is: filled centres are inside
    (the nearest surface point's normal faces away), empty centres near the sphere are outside."""
    bm, verts, tris = bmesh_uv_sphere((3.0, -2.0, 1.0), radius=0.5)
    try:
        bvh = BVHTree.FromBMesh(bm)
    finally:
        bm.free()
    r = voxelize(verts, tris, resolution=16)
    idx = np.argwhere(np.ones(r.grid.shape, bool))
    for (i, j, k), c in zip(idx, r.origin + (idx + 0.5) * r.voxel_size):
        loc, normal, _index, _dist = bvh.find_nearest(Vector(c))
        inside = (Vector(c) - loc).dot(normal) < 0
        assert inside == bool(r.grid[i, j, k]), (i, j, k)
