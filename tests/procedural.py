"""Test models built from numbers (numpy only, no files): closed meshes with thin parts.

Shared by the engine tests, the Blender tests and ``scripts/render_pieces.py`` (the renders in
docs/ADDON.md), so all of them voxelize the same geometry. Every part is a closed, outward-wound
shell; parts overlap where they join (the voxelizer unites them).
"""
from __future__ import annotations

import math

import numpy as np


def join(parts):
    """One (vertices, triangles) mesh from several."""
    verts, tris, n = [], [], 0
    for v, t in parts:
        verts.append(np.asarray(v, float))
        tris.append(np.asarray(t, np.int64) + n)
        n += len(v)
    return np.vstack(verts), np.vstack(tris)


def ellipsoid(centre, radii, n_lon=32, n_lat=16):
    verts = [(0.0, 0.0, 1.0), (0.0, 0.0, -1.0)]
    for i in range(1, n_lat):
        th = math.pi * i / n_lat
        for j in range(n_lon):
            ph = 2 * math.pi * j / n_lon
            verts.append((math.sin(th) * math.cos(ph), math.sin(th) * math.sin(ph), math.cos(th)))

    def ring(i, j):
        return 2 + (i - 1) * n_lon + j % n_lon

    tris = []
    for j in range(n_lon):
        tris.append((0, ring(1, j), ring(1, j + 1)))
        tris.append((1, ring(n_lat - 1, j + 1), ring(n_lat - 1, j)))
        for i in range(1, n_lat - 1):
            tris += [(ring(i, j), ring(i + 1, j), ring(i + 1, j + 1)),
                     (ring(i, j), ring(i + 1, j + 1), ring(i, j + 1))]
    return np.array(verts) * radii + centre, np.array(tris)


def tube(p0, p1, radius, sides=6):
    """A closed prism of ``sides`` sides around the segment p0 -> p1."""
    p0, p1 = np.asarray(p0, float), np.asarray(p1, float)
    d = p1 - p0
    d /= np.linalg.norm(d)
    a = np.cross(d, [0.0, 0.0, 1.0] if abs(d[2]) < 0.9 else [1.0, 0.0, 0.0])
    a /= np.linalg.norm(a)
    b = np.cross(d, a)
    ang = 2 * np.pi * np.arange(sides) / sides
    ring = radius * (np.cos(ang)[:, None] * a + np.sin(ang)[:, None] * b)
    verts = np.vstack([p0 + ring, p1 + ring, [p0, p1]])
    c0, c1 = 2 * sides, 2 * sides + 1
    tris = []
    for i in range(sides):
        j = (i + 1) % sides
        tris += [(i, j, sides + j), (i, sides + j, sides + i), (c0, j, i), (c1, sides + i, sides + j)]
    return verts, np.array(tris)


def box(centre, half, axes=np.eye(3)):
    """A closed box: ``centre`` + sum of +-half[k] * axes[k] (axes a right-handed frame)."""
    corners = np.array([[(1 if (i >> k) & 1 else -1) for k in range(3)] for i in range(8)], float)
    verts = np.asarray(centre, float) + (corners * half) @ np.asarray(axes, float)
    quads = [(0, 2, 3, 1), (4, 5, 7, 6), (0, 1, 5, 4), (2, 6, 7, 3), (0, 4, 6, 2), (1, 3, 7, 5)]
    tris = [t for a, b, c, d in quads for t in ((a, b, c), (a, c, d))]
    return verts, np.array(tris)


def spider(leg_radius=0.02):
    """A body and a head on eight long legs (two segments each) that are much thinner than a
    voxel at 24-36 voxels across (about 3.6 units wide: a voxel is 0.1-0.15)."""
    parts = [ellipsoid([0.0, 0.0, 0.55], [0.45, 0.35, 0.28]),
             ellipsoid([0.55, 0.0, 0.55], [0.2, 0.18, 0.16], 24, 12)]
    for side in (-1, 1):
        for i, ang in enumerate((-50, -18, 14, 46)):
            a = math.radians(ang)
            direction = np.array([math.sin(a) * 0.9 + 0.1, side * math.cos(a), 0.0])
            direction /= np.linalg.norm(direction)
            hip = np.array([0.05 * (i - 1.5), 0.0, 0.55]) + direction * 0.15
            knee = hip + direction * (0.75 + 0.05 * i) + [0.0, 0.0, 0.45]
            foot = knee + direction * (0.75 + 0.05 * i) + [0.0, 0.0, -1.0]
            parts += [tube(hip, knee, leg_radius), tube(knee, foot, leg_radius)]
    return join(parts)


def stegosaurus_parts(plate_half_thickness=0.03):
    """A multi-part model: body, neck and head, tail, four legs, and two staggered rows of thin
    back plates leaning outwards, standing on the body (each overlaps it slightly).  The plates
    are thinner than a voxel at 24-36 voxels across (about 4 units long): the voxel centres
    catch some of them in places only.  Returns {name: (verts, tris)}."""
    parts = {
        "body": ellipsoid([0.0, 0.0, 1.0], [1.0, 0.45, 0.45]),
        "head": join([tube([0.8, 0.0, 1.05], [1.45, 0.0, 0.8], 0.12, 8),
                      ellipsoid([1.55, 0.0, 0.78], [0.2, 0.12, 0.12], 16, 8)]),
        "tail": join([tube([-0.8, 0.0, 1.0], [-1.6, 0.0, 0.95], 0.16, 8),
                      tube([-1.55, 0.0, 0.95], [-2.3, 0.0, 0.85], 0.06, 8)]),
        "legs": join([tube([x, y, 0.9], [x, y, 0.0], 0.13, 8)
                      for x in (-0.55, 0.55) for y in (-0.25, 0.25)]),
    }
    plates = []
    for i, x in enumerate(np.linspace(-1.2, 0.9, 7)):
        height = 0.28 + 0.18 * math.sin(math.pi * (i + 0.5) / 7)
        z_base = 1.0 + 0.45 * math.sqrt(max(0.0, 1.0 - min(abs(x), 0.99) ** 2)) - 0.06
        if x < -0.95:
            z_base = 1.0 + 0.16 - 0.04  # on the tail
        side = 1 if i % 2 else -1
        lean = math.radians(14) * side
        up = np.array([0.0, -math.sin(lean), math.cos(lean)])
        frame = np.array([[1.0, 0.0, 0.0], np.cross(up, [1.0, 0.0, 0.0]), up])
        centre = np.array([x, 0.07 * side, z_base]) + up * height / 2
        plates.append(box(centre, [0.13, plate_half_thickness, height / 2], frame))
    parts["plates"] = join(plates)
    return parts


def stegosaurus(plate_half_thickness=0.03):
    return join(stegosaurus_parts(plate_half_thickness).values())


def cubes_apart():
    """Three cubes that do not touch (separate pieces in any connectivity) and a fourth that
    touches the first only along an edge (one piece in 26-connectivity, two in 6)."""
    return join([box([0.5, 0.5, 0.5], [0.5, 0.5, 0.5]), box([3.5, 0.5, 0.5], [0.5, 0.5, 0.5]),
                 box([6.5, 0.5, 0.5], [0.5, 0.5, 0.5]), box([1.5, 1.5, 0.5], [0.5, 0.5, 0.5])])


def write_stl(path, verts, tris, binary=True, jitter=0.0, seed=0):
    """Write an STL (one facet per triangle, vertices repeated as STL does). ``jitter`` moves
    every written copy of a vertex by up to that much, as CAD exporters' rounding does."""
    rng = np.random.default_rng(seed)
    v = np.asarray(verts, float)[np.asarray(tris)]  # (m, 3, 3)
    if jitter:
        v = v + rng.uniform(-jitter, jitter, v.shape)
    n = np.cross(v[:, 1] - v[:, 0], v[:, 2] - v[:, 0])
    n /= np.maximum(np.linalg.norm(n, axis=1, keepdims=True), 1e-300)
    if binary:
        rec = np.zeros(len(v), np.dtype([("n", "<f4", 3), ("v", "<f4", (3, 3)), ("a", "<u2")]))
        rec["n"], rec["v"] = n, v
        with open(path, "wb") as f:
            f.write(b"written by tests/procedural.py".ljust(80, b" "))
            f.write(np.uint32(len(v)).tobytes())
            f.write(rec.tobytes())
        return
    lines = ["solid test"]
    for nn, tri in zip(n, v):
        lines.append(f"  facet normal {nn[0]:.7e} {nn[1]:.7e} {nn[2]:.7e}")
        lines.append("    outer loop")
        lines += [f"      vertex {p[0]:.7e} {p[1]:.7e} {p[2]:.7e}" for p in tri]
        lines += ["    endloop", "  endfacet"]
    lines.append("endsolid test")
    with open(path, "w", encoding="ascii") as f:
        f.write("\n".join(lines) + "\n")
