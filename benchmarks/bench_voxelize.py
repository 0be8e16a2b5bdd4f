"""``python -m benchmarks.bench_voxelize [--model PATH] [--json] [--repeat N] [--no-cold] [--no-numpy]
[--numpy-resolution N] [--numpy-rows K]``

Times the voxelizer on a mesh (default: the 97k-triangle horse from ../shared/models/): warm
best-of-N at 64³, 128³, 256³ and 4×4 anti-aliasing at 128³ (robust three-axis mode and single-axis
mode); the cold first call in a fresh process with numba's cache emptied and with it filled; and
the speed-up over a straightforward numpy voxelizer (vectorised ray-triangle tests for every column
against every triangle, no spatial index), whose grid must equal ours.
"""
import argparse
import json
import os
import subprocess
import sys
import tempfile
import time
from pathlib import Path

import numpy as np

from engine.voxel import raycast
from engine.jit import njit

DEFAULT_MODEL = Path(__file__).resolve().parent.parent.parent / "shared" / "models" / "horse.ply"
CASES = [
    ("64", dict(resolution=64)),
    ("128", dict(resolution=128)),
    ("256", dict(resolution=256)),
    ("128 4x4", dict(resolution=128, samples=4)),
]

_COLD = """
import sys, time
t0 = time.perf_counter()
sys.path.insert(0, {root!r})
from engine.voxel.meshio import load_mesh
from engine.voxel.voxelize import voxelize
t1 = time.perf_counter()
v, f = load_mesh({model!r})
t2 = time.perf_counter()
voxelize(v, f, resolution=128)
t3 = time.perf_counter()
print(t1 - t0, t3 - t2)
"""


def best_of(fn, repeat):
    best = float("inf")
    for _ in range(repeat):
        t = time.perf_counter()
        fn()
        best = min(best, time.perf_counter() - t)
    return best


def cold_runs(model):
    """First-call seconds in fresh processes: (empty numba cache, then the cache just written)."""
    root = str(Path(__file__).resolve().parent.parent)
    code = _COLD.format(root=root, model=str(model))
    out = {}
    with tempfile.TemporaryDirectory() as cache:
        env = dict(os.environ, NUMBA_CACHE_DIR=cache)
        for label in ("no_cache", "cached"):
            proc = subprocess.run([sys.executable, "-c", code], env=env, capture_output=True,
                                  text=True, timeout=600)
            if proc.returncode != 0:
                raise RuntimeError(proc.stderr.strip().splitlines()[-1])
            imp, first = (float(x) for x in proc.stdout.split())
            out[label] = {"import_s": imp, "first_call_s": first}
    return out


def numpy_voxelize_z(vertices, triangles, n, rows=None):
    """Reference: rays along z through the column centres of the cubic n³ grid centred on the
    bounding box, each ray tested against every triangle at once; same tie rule as raycast.py.
    ``rows``: only these y rows of columns (the cost is the same for every row)."""
    bmin, bmax = vertices.min(axis=0), vertices.max(axis=0)
    vs = (bmax - bmin).max() / n
    g = (vertices - ((bmin + bmax) / 2 - n * vs / 2)) / vs - 0.5
    tri = g[triangles]  # (m, 3, 3)
    u, v, d = tri[:, :, 0], tri[:, :, 1], tri[:, :, 2]
    area = (u[:, 1] - u[:, 0]) * (v[:, 2] - v[:, 0]) - (v[:, 1] - v[:, 0]) * (u[:, 2] - u[:, 0])
    keep = area != 0
    u, v, d, orient = u[keep], v[keep], d[keep], np.sign(area[keep])
    edges = []
    for k in range(3):  # edge k runs from vertex k+1 to k+2, opposite vertex k
        xu, xv, yu, yv = u[:, (k + 1) % 3], v[:, (k + 1) % 3], u[:, (k + 2) % 3], v[:, (k + 2) % 3]
        fwd = (xu < yu) | ((xu == yu) & (xv < yv))
        pu, pv = np.where(fwd, xu, yu), np.where(fwd, xv, yv)
        du, dv = np.where(fwd, yu - xu, xu - yu), np.where(fwd, yv - xv, xv - yv)
        sg = np.where(fwd, orient, -orient)
        eu, ev = (yu - xu) * orient, (yv - xv) * orient
        edges.append((pu, pv, du, dv, sg, (ev < 0) | ((ev == 0) & (eu > 0))))
    grid = np.zeros((n, n, n), bool)
    cols = np.arange(n, dtype=np.float64)[:, None]
    zc = np.arange(n, dtype=np.float64)
    for j in range(n) if rows is None else rows:
        inside = np.ones((n, u.shape[0]), bool)
        es = []
        for pu, pv, du, dv, sg, inc in edges:
            e = sg * (du * (j - pv) - dv * (cols - pu))
            inside &= (e > 0) | ((e == 0) & inc)
            es.append(e)
        w = es[0] + es[1] + es[2]
        with np.errstate(invalid="ignore", divide="ignore"):
            t = (es[0] * d[:, 0] + es[1] * d[:, 1] + es[2] * d[:, 2]) / w
        for i in np.flatnonzero(inside.any(axis=1)):
            hits = t[i, inside[i]]
            grid[i, j] = (hits[None, :] > zc[:, None]).sum(axis=1) % 2 == 1
    return grid


@njit
def _ray_driven_hits(P, tris, bin_start, bin_tris, B, n_u, n_v, store, start, hit_t, hit_p):
    """Ray-driven alternative to raycast.raster_hits: each column tests every triangle listed in
    its B x B-column bin of a uniform grid.  Returns the number of crossings (and, with
    ``store``, fills the column CSR ``start``/``hit_t``/``hit_p``)."""
    nb_v = (n_v + B - 1) // B
    n = 0
    for i in range(n_u):
        for j in range(n_v):
            if store:
                start[i * n_v + j] = n
            b = (i // B) * nb_v + j // B
            for x in range(bin_start[b], bin_start[b + 1]):
                ti = bin_tris[x]
                a, bb, c = tris[ti, 0], tris[ti, 1], tris[ti, 2]
                au, av, bu, bv, cu, cv = P[a, 0], P[a, 1], P[bb, 0], P[bb, 1], P[c, 0], P[c, 1]
                area = (bu - au) * (cv - av) - (bv - av) * (cu - au)
                if area == 0.0:
                    continue
                o = 1.0 if area > 0.0 else -1.0
                p0u, p0v, d0u, d0v, s0, inc0 = raycast._edge(bu, bv, cu, cv, o)
                p1u, p1v, d1u, d1v, s1, inc1 = raycast._edge(cu, cv, au, av, o)
                p2u, p2v, d2u, d2v, s2, inc2 = raycast._edge(au, av, bu, bv, o)
                e0 = s0 * (d0u * (j - p0v) - d0v * (i - p0u))
                e1 = s1 * (d1u * (j - p1v) - d1v * (i - p1u))
                e2 = s2 * (d2u * (j - p2v) - d2v * (i - p2u))
                if (e0 < 0.0 or (e0 == 0.0 and not inc0) or e1 < 0.0 or (e1 == 0.0 and not inc1)
                        or e2 < 0.0 or (e2 == 0.0 and not inc2)):
                    continue
                if store:
                    hit_t[n] = (e0 * P[a, 2] + e1 * P[bb, 2] + e2 * P[c, 2]) / (e0 + e1 + e2)
                    hit_p[n] = 0
                n += 1
    if store:
        start[n_u * n_v] = n
    return n


@njit
def _bin_triangles(P, tris, B, n_u, n_v):
    """CSR of triangle ids per B x B-column bin (a triangle goes to every bin its box touches)."""
    nb_u = (n_u + B - 1) // B
    nb_v = (n_v + B - 1) // B
    count = np.zeros(nb_u * nb_v + 1, np.int64)
    for rep in range(2):
        if rep == 1:
            for b in range(nb_u * nb_v):
                count[b + 1] += count[b]
            fill = count[:-1].copy()
            out = np.empty(count[-1], np.int64)
        for ti in range(tris.shape[0]):
            lo_u, hi_u, lo_v, hi_v = np.inf, -np.inf, np.inf, -np.inf
            for e in range(3):
                lo_u = min(lo_u, P[tris[ti, e], 0])
                hi_u = max(hi_u, P[tris[ti, e], 0])
                lo_v = min(lo_v, P[tris[ti, e], 1])
                hi_v = max(hi_v, P[tris[ti, e], 1])
            i0, i1 = max(int(np.ceil(lo_u)), 0), min(int(np.floor(hi_u)), n_u - 1)
            j0, j1 = max(int(np.ceil(lo_v)), 0), min(int(np.floor(hi_v)), n_v - 1)
            if i0 > i1 or j0 > j1:
                continue
            for bu in range(i0 // B, i1 // B + 1):
                for bv in range(j0 // B, j1 // B + 1):
                    if rep == 0:
                        count[bu * nb_v + bv + 1] += 1
                    else:
                        out[fill[bu * nb_v + bv]] = ti
                        fill[bu * nb_v + bv] += 1
    return count, out


def _cube_setup(vertices, triangles, n):
    bmin, bmax = vertices.min(axis=0), vertices.max(axis=0)
    vs = (bmax - bmin).max() / n
    P = np.ascontiguousarray((vertices - ((bmin + bmax) / 2 - n * vs / 2)) / vs - 0.5)
    return P, np.ascontiguousarray(triangles, dtype=np.int64)


def ray_driven_z(vertices, triangles, n, B):
    """Plain z parity on the cubic n³ grid with a ray-driven uniform grid of B x B-column bins."""
    P, tris = _cube_setup(vertices, triangles, n)
    bin_start, bin_tris = _bin_triangles(P, tris, B, n, n)
    dummy = np.empty(0, np.int64)
    total = _ray_driven_hits(P, tris, bin_start, bin_tris, B, n, n, False, dummy,
                             np.empty(0), np.empty(0, np.int32))
    start = np.empty(n * n + 1, np.int64)
    hit_t = np.empty(total, np.float64)
    hit_p = np.empty(total, np.int32)
    _ray_driven_hits(P, tris, bin_start, bin_tris, B, n, n, True, start, hit_t, hit_p)
    out = np.zeros((n, n, n), np.uint8)
    raycast.fill_columns(start, hit_t, hit_p, False, np.zeros(1, np.bool_), 0, n, n, n, 1, 2, out)
    return out.astype(bool)


def triangle_driven_z(vertices, triangles, n):
    """The same with raycast.py's triangle rasterization (what voxelize() runs per pass)."""
    P, tris = _cube_setup(vertices, triangles, n)
    parts = np.zeros(len(tris), np.int32)
    cap = 2 * len(tris) + 4096
    while True:
        h_col, h_t, h_p = np.empty(cap, np.int64), np.empty(cap), np.empty(cap, np.int32)
        total = raycast.raster_hits(P, tris, parts, 0, n, n, h_col, h_t, h_p)
        if total <= cap:
            break
        cap = total
    start, hit_t, hit_p = raycast.bucket_hits(total, h_col, h_t, h_p, n * n)
    out = np.zeros((n, n, n), np.uint8)
    raycast.fill_columns(start, hit_t, hit_p, False, np.zeros(1, np.bool_), 0, n, n, n, 1, 2, out)
    return out.astype(bool)


def main(argv=None):
    ap = argparse.ArgumentParser(prog="python -m benchmarks.bench_voxelize", description=__doc__.split("\n\n")[1])
    ap.add_argument("--model", default=str(DEFAULT_MODEL), help="mesh file (.obj, .ply, .stl, .glb)")
    ap.add_argument("--json", action="store_true", help="print the figures as JSON")
    ap.add_argument("--repeat", type=int, default=7, help="best of N warm runs (default 7)")
    ap.add_argument("--no-cold", action="store_true", help="skip the cold-start subprocesses")
    ap.add_argument("--no-numpy", action="store_true", help="skip the numpy reference")
    ap.add_argument("--numpy-resolution", type=int, default=64, help="grid of the numpy reference")
    ap.add_argument("--numpy-rows", type=int, default=8,
                    help="time the numpy reference on this many rows of columns and scale up "
                         "(0: all rows)")
    args = ap.parse_args(argv)
    from engine.voxel.meshio import MeshFileError, load_mesh
    from engine.voxel.voxelize import VoxelizeError, voxelize

    if args.repeat < 1 or not 1 <= args.numpy_resolution <= 256:
        sys.stderr.write("--repeat must be >= 1 and --numpy-resolution from 1 to 256\n")
        return 2
    try:
        verts, tris = load_mesh(args.model)
        voxelize(verts, tris, resolution=8)
        voxelize(verts, tris, resolution=8, samples=2)
    except (MeshFileError, VoxelizeError) as exc:
        sys.stderr.write(f"{exc}\n")
        return 2
    report = {"model": Path(args.model).name, "triangles": int(len(tris)), "repeat": args.repeat,
              "warm_ms": {}}
    for label, kw in CASES:
        for robust in (True, False):
            r = voxelize(verts, tris, robust=robust, **kw)
            ms = best_of(lambda: voxelize(verts, tris, robust=robust, **kw), args.repeat) * 1e3
            report["warm_ms"][f"{label} {'xyz' if robust else 'z'}"] = {
                "ms": round(ms, 2), "shape": list(r.grid.shape), "filled": int(r.grid.sum())}
    report["spatial_index"] = {}
    for n in (128, 256):
        ours = voxelize(verts, tris, resolution=n, fit=False, robust=False).grid
        row = {}
        variants = [("triangle rasterization (raycast.py)", lambda: triangle_driven_z(verts, tris, n))]
        variants += [(f"ray-driven, {B}x{B}-column bins", lambda B=B: ray_driven_z(verts, tris, n, B))
                     for B in (1, 4, 16)]
        for name, fn in variants:
            same = np.array_equal(fn(), ours)
            ms = best_of(fn, args.repeat if "raycast" in name else max(1, args.repeat // 2)) * 1e3
            row[name] = round(ms, 2) if same else f"{ms:.2f} (grid differs!)"
        report["spatial_index"][f"{n} z"] = row
    if not args.no_numpy:
        n = args.numpy_resolution
        k = n if args.numpy_rows <= 0 else min(n, args.numpy_rows)
        rows = np.unique(np.linspace(0, n - 1, k).round().astype(int))
        t = time.perf_counter()
        ref = numpy_voxelize_z(verts, tris, n, rows)
        np_s = (time.perf_counter() - t) * n / len(rows)
        ours = voxelize(verts, tris, resolution=n, fit=False, robust=False)
        ours_s = best_of(lambda: voxelize(verts, tris, resolution=n, fit=False, robust=False),
                         args.repeat)
        report["numpy_reference"] = {
            "resolution": n, "rows_timed": int(len(rows)), "numpy_s": round(np_s, 3),
            "ours_ms": round(ours_s * 1e3, 2), "speedup": round(np_s / ours_s, 1),
            "grids_equal": bool(np.array_equal(ref[:, rows], ours.grid[:, rows]))}
    if not args.no_cold:
        try:
            report["cold_128"] = cold_runs(args.model)
        except (RuntimeError, subprocess.TimeoutExpired) as exc:
            report["cold_128"] = {"error": str(exc)}
    if args.json:
        print(json.dumps(report, indent=2))
        return 0
    print(f"{report['model']}: {report['triangles']:,} triangles; warm = best of {args.repeat}")
    for key, row in report["warm_ms"].items():
        shape = "×".join(map(str, row["shape"]))
        print(f"  {key:<14} {row['ms']:8.1f} ms   grid {shape:<12} filled {row['filled']:,}")
    for key, row in report["spatial_index"].items():
        print(f"  spatial index, {key} (one plain pass: crossings + parity fill, no set-up):")
        for name, ms in row.items():
            print(f"    {name:<36} {ms} ms")
    if "numpy_reference" in report:
        nr = report["numpy_reference"]
        print(f"  numpy reference (z only, {nr['resolution']}³, no index; scaled from "
              f"{nr['rows_timed']} of {nr['resolution']} rows): {nr['numpy_s']:.2f} s vs "
              f"{nr['ours_ms']:.1f} ms = {nr['speedup']:.0f}× faster; grids equal: {nr['grids_equal']}")
    if "cold_128" in report:
        c = report["cold_128"]
        if "error" in c:
            print(f"  cold start failed: {c['error']}")
        else:
            for label in ("no_cache", "cached"):
                print(f"  cold 128³ ({label.replace('_', ' ')}): import {c[label]['import_s']:.2f} s, "
                      f"first call {c[label]['first_call_s']:.2f} s")
    return 0


if __name__ == "__main__":
    sys.exit(main())
