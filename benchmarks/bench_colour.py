"""Colour capture benchmark (issue #23): fidelity against an independent implementation, and speed.

Fidelity: for each shared model (duck.glb: one texture; trex.glb: five plain materials) at 24 and
36 voxels, every surface voxel's captured colour (before the palette) is compared with the colour
an independent implementation finds at the surface point nearest the voxel's centre: trimesh's
loader, its closest point on triangles (``trimesh.triangles.closest_point``; candidates found by
brute force over bounding boxes, no spatial index needed), its barycentric UV interpolation, and
the texture as decoded by Pillow, sampled bilinearly with repeat wrap.  Printed: mean and 95th percentile
CIEDE2000 (target: mean < 3), and for plain materials how many voxels are exactly their nearest
triangle's material colour (target: all).

Speed: Make's engine work at 64 voxels (voxelize + clues; warm, best of N, median also printed)
against the colour capture and the palette (k = 8) on the same grid.  "Make's engine time" is
``voxelize`` with the piece options Make uses by default (``MAKE_PIECE_DEFAULTS``: thin parts
restored, pieces bridged) + ``puzzle_from_grid`` only: not the mesh gathering from Blender, the
design or the scene writing that the Make operator also does.  Also printed: the share against
plain ``voxelize()`` (its own defaults, no piece options), which rounds 1 and 2 of the capture's
speed-up measured against.  Targets: capture <= 25 % of Make's engine time; palette < 50 ms.

    .venv/bin/python benchmarks/bench_colour.py [--repeat N]

The figures also go to benchmarks/results/colour_capture.json, from which benchmarks/report.py writes the
"Colour capture" section of docs/BENCHMARKS.md.
"""
import argparse
import json
import os
import platform
import sys
import time

import numpy as np

ROOT = os.path.dirname(os.path.dirname(os.path.abspath(__file__)))
sys.path.insert(0, ROOT)
MODELS = os.path.join(os.path.dirname(ROOT), "shared", "models")

from engine.model.clues import puzzle_from_grid  # noqa: E402
from engine.colour.capture import capture_colours  # noqa: E402
from engine.colour.colourspace import ciede2000, linear_to_lab, srgb_to_linear  # noqa: E402
from engine.colour.meshcolour import load_mesh_colours  # noqa: E402
from engine.colour.palette import grid_palette  # noqa: E402
from engine.voxel.voxelize import MAKE_PIECE_DEFAULTS, voxelize  # noqa: E402


def _nearest(mesh, points, chunk=256):
    """(closest point, triangle) by brute force: a triangle can be nearest only if its box is
    no farther than the nearest vertex; those candidates get trimesh's exact closest point."""
    import trimesh
    tris = mesh.triangles
    lo, hi = tris.min(axis=1), tris.max(axis=1)
    verts = mesh.vertices[mesh.referenced_vertices]
    out_p = np.zeros((len(points), 3))
    out_t = np.zeros(len(points), int)
    for s in range(0, len(points), chunk):
        p = points[s:s + chunk]
        dv = np.sqrt(((p[:, None, :] - verts[None]) ** 2).sum(axis=2).min(axis=1))
        gap = np.maximum(0, np.maximum(lo[None] - p[:, None], p[:, None] - hi[None]))
        box = np.sqrt((gap ** 2).sum(axis=2))
        pi, ti = np.nonzero(box <= dv[:, None] + 1e-12)
        q = trimesh.triangles.closest_point(tris[ti], p[pi])
        d = ((q - p[pi]) ** 2).sum(axis=1)
        order = np.lexsort((ti, d, pi))  # per point: nearest first, lowest triangle on ties
        first = order[np.r_[True, pi[order][1:] != pi[order][:-1]]]
        out_p[s + pi[first]] = q[first]
        out_t[s + pi[first]] = ti[first]
    return out_p, out_t


def independent_colours(path, points):
    """Linear RGB at the surface point nearest each point, by trimesh + Pillow."""
    import trimesh
    scene = trimesh.load(path)
    meshes = scene.dump() if hasattr(scene, "dump") else [scene]
    # trimesh applies the node transforms in dump(); remember which part each triangle is from
    merged = trimesh.util.concatenate(meshes)
    part = np.concatenate([np.full(len(m.faces), i) for i, m in enumerate(meshes)])
    first = np.concatenate([[0], np.cumsum([len(m.faces) for m in meshes])[:-1]])
    closest, tri = _nearest(merged, points)
    out = np.zeros((len(points), 3))
    for i, m in enumerate(meshes):
        sel = np.flatnonzero(part[tri] == i)
        if not len(sel):
            continue
        mat = m.visual.material
        factor = np.asarray(mat.baseColorFactor if mat.baseColorFactor is not None
                            else [255, 255, 255, 255], float)[:3] / 255.0
        tex = getattr(mat, "baseColorTexture", None)
        if tex is None or m.visual.uv is None:
            out[sel] = factor
            continue
        faces = m.faces[tri[sel] - first[i]]
        bary = trimesh.triangles.points_to_barycentric(m.vertices[faces], closest[sel])
        uv = np.einsum("pc,pcd->pd", bary, m.visual.uv[faces])
        img = np.asarray(tex.convert("RGB"), float) / 255.0  # row 0 at the top, v = 1
        h, w = img.shape[:2]
        x = uv[:, 0] * w - 0.5
        y = (1.0 - uv[:, 1]) * h - 0.5
        x0, y0 = np.floor(x).astype(int), np.floor(y).astype(int)
        tx, ty = (x - x0)[:, None], (y - y0)[:, None]

        def px(yy, xx):
            return img[yy % h, xx % w]
        srgb = ((1 - tx) * (1 - ty) * px(y0, x0) + tx * (1 - ty) * px(y0, x0 + 1)
                + (1 - tx) * ty * px(y0 + 1, x0) + tx * ty * px(y0 + 1, x0 + 1))
        out[sel] = srgb_to_linear(srgb) * factor
    return out


def fidelity(name, res):
    mc = load_mesh_colours(os.path.join(MODELS, name))
    r = voxelize(mc.vertices, mc.triangles, resolution=res)
    cap = capture_colours(r.grid, r.origin, r.voxel_size, mc.vertices, mc.triangles,
                          **mc.capture_args())
    idx = np.argwhere(cap.surface)
    centres = r.origin + (idx + 0.5) * r.voxel_size
    ours = cap.colours[cap.surface].astype(np.float64)
    theirs = independent_colours(os.path.join(MODELS, name), centres)
    de = ciede2000(linear_to_lab(ours), linear_to_lab(theirs))
    plain = [s.image < 0 and not s.corners for s in mc.sources]
    tri = cap.triangle[cap.surface]
    mat = mc.tri_material[tri]
    is_plain = np.asarray(plain)[mat]
    want = np.array([s.colour for s in mc.sources], np.float32)[mat]
    exact = int((ours.astype(np.float32) == want).all(axis=1)[is_plain].sum())
    return dict(model=name, res=res, shape="x".join(map(str, r.grid.shape)), surface=len(idx),
                mean=float(de.mean()), p95=float(np.percentile(de, 95)), max=float(de.max()),
                plain=int(is_plain.sum()), exact=exact)


def best(f, repeat, times=None):
    ts = []
    out = None
    for _ in range(repeat):
        t = time.perf_counter()
        out = f()
        ts.append(time.perf_counter() - t)
    if times is not None:
        times.extend(ts)
    return min(ts), out


def speed(name, res, repeat):
    mc = load_mesh_colours(os.path.join(MODELS, name))

    def make(options=MAKE_PIECE_DEFAULTS):
        r = voxelize(mc.vertices, mc.triangles, resolution=res, **options)
        puzzle_from_grid(r.grid)
        return r
    make()  # warm: compiled kernels loaded
    make({})
    all_make, all_cap = [], []
    t_plain, _ = best(lambda: make({}), repeat)
    t_make, r = best(make, repeat, all_make)
    t_cap, cap = best(lambda: capture_colours(r.grid, r.origin, r.voxel_size, mc.vertices,
                                              mc.triangles, **mc.capture_args()), repeat, all_cap)
    t_pal, _ = best(lambda: grid_palette(r.grid, cap.colours, 8), repeat)
    return dict(model=name, res=res, shape="x".join(map(str, r.grid.shape)),
                filled=int(r.grid.sum()), make_ms=1000 * t_make, capture_ms=1000 * t_cap,
                share=100 * t_cap / t_make, palette_ms=1000 * t_pal,
                plain_ms=1000 * t_plain, plain_share=100 * t_cap / t_plain,
                make_median_ms=1000 * float(np.median(all_make)),
                capture_median_ms=1000 * float(np.median(all_cap)),
                stages_ms=stages(mc, r, repeat))


def stages(mc, r, repeat):
    """Where the capture's time goes: its three largest kernels timed alone (best of ``repeat``)
    on the same grid (the rest: sampling, checks, allocation).  On the shared machine the best
    of each alone and the best of the whole do not add up exactly."""
    from engine.colour import capture as colour
    grid = r.grid
    verts = np.ascontiguousarray(mc.vertices, np.float64)
    tris = np.ascontiguousarray(mc.triangles, np.int64)
    # the surface sweep: mask, slots and the fill's first sweep along x
    t_surface, (surface, slot, idx, d, arg) = best(lambda: colour.surface_arrays(grid), repeat)
    t_near, _ = best(lambda: colour.nearest_for_voxels(surface, idx, r.origin, r.voxel_size,
                                                        verts, tris, slot), repeat)
    colours = np.zeros(grid.shape + (3,), np.float32)
    site_colours = np.random.default_rng(0).random((len(idx), 3)).astype(np.float32)
    ts = []
    for _ in range(repeat):  # the fill changes d and arg: fresh copies, made outside the timing
        d2, arg2 = d.copy(), arg.copy()
        t = time.perf_counter()
        colour.fill_from_sites(grid, surface, slot, d2, arg2, site_colours, colours)
        ts.append(time.perf_counter() - t)
    return {"surface": 1000 * t_surface, "nearest": 1000 * t_near, "fill": 1000 * min(ts)}


def main(argv=None):
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("--repeat", type=int, default=5)
    args = ap.parse_args(argv)
    t0 = time.perf_counter()
    # first use compiles (or loads) the kernels: reported apart
    mc = load_mesh_colours(os.path.join(MODELS, "trex.glb"))
    r = voxelize(mc.vertices, mc.triangles, resolution=8)
    capture_colours(r.grid, r.origin, r.voxel_size, mc.vertices, mc.triangles, **mc.capture_args())
    print(f"compile/load of the kernels: {time.perf_counter() - t0:.1f} s\n")
    compile_s = time.perf_counter() - t0
    result = {"compile_s": compile_s, "repeat": args.repeat, "fidelity": [], "speed": [],
              "load_average": list(os.getloadavg()), "machine": platform.processor() or platform.machine(),
              "started": time.strftime("%Y-%m-%d %H:%M UTC", time.gmtime())}
    print("fidelity (surface voxels, CIEDE2000 vs trimesh + Pillow; target mean < 3)")
    print(f"{'model':<10} {'res':>4} {'grid':>10} {'surface':>8} {'mean':>6} {'p95':>6} {'max':>6}"
          f" {'plain exact':>12}")
    for name in ("duck.glb", "trex.glb"):
        for res in (24, 36):
            f = fidelity(name, res)
            result["fidelity"].append(f)
            print(f"{f['model']:<10} {f['res']:>4} {f['shape']:>10} {f['surface']:>8} "
                  f"{f['mean']:>6.2f} {f['p95']:>6.2f} {f['max']:>6.2f} "
                  f"{f['exact']:>6}/{f['plain']:<5}")
    print("\nspeed at 64 (warm, best of %d; targets: capture <= 25 %% of make, palette k=8 < 50 ms)"
          % args.repeat)
    print(f"{'model':<10} {'grid':>10} {'filled':>8} {'make ms':>8} {'capture ms':>11} "
          f"{'share %':>8} {'palette ms':>11} {'median make/capture':>20} {'plain voxelize ms (share)':>26}")
    for name in ("duck.glb", "trex.glb"):
        s = speed(name, 64, args.repeat)
        result["speed"].append(s)
        print(f"{s['model']:<10} {s['shape']:>10} {s['filled']:>8} {s['make_ms']:>8.1f} "
              f"{s['capture_ms']:>11.1f} {s['share']:>8.0f} {s['palette_ms']:>11.1f} "
              f"{s['make_median_ms']:>10.1f}/{s['capture_median_ms']:<9.1f} "
              f"{s['plain_ms']:>14.1f} ({s['plain_share']:.0f} %)")
        st = s["stages_ms"]
        print(f"{'':<10} capture's kernels (ms, each alone, best): surface sweep {st['surface']:.2f}, "
              f"nearest triangles {st['nearest']:.2f}, interior fill {st['fill']:.2f}")
    result["load_average_end"] = list(os.getloadavg())
    out = os.path.join(ROOT, "benchmarks", "results", "colour_capture.json")
    with open(out, "w", encoding="utf-8") as fh:
        json.dump(result, fh, indent=1)
    print(f"\nwrote {out}")


if __name__ == "__main__":
    main()
