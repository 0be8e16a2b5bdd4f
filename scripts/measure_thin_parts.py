"""Which Thin Parts option should be the default? Pieces and IoU of every option on every model.

    .venv/bin/python scripts/measure_thin_parts.py [--models DIR] [--resolution 16 24 36] [--markdown]

For each model (the meshes in ``../shared/models`` and the procedural spider and stegosaurus of
tests/procedural.py) and resolution, voxelizes with each option (one sample per voxel, robust, as
Make does) and prints:

* ``pieces``: face-connected pieces of the answer (1 = one connected sculpture), single cubes;
* ``IoU``: the soft intersection over union of the answer with the mesh's volume on the same
  lattice, ``sum(min(g, f)) / sum(max(g, f))``, where ``f`` is each voxel's inside fraction measured
  with 4x4x4 samples (so a voxel the mesh fills by a tenth counts a tenth): what an option costs in
  faithfulness to the mesh when it adds voxels;
* ``lost``: the share of the voxels the mesh passes through (its conservative surface) with no
  filled voxel among their 26 neighbours: parts of the model that vanished (legs, plates). IoU
  barely sees them (they are thin), a player does.

Options: ``none`` (As Voxelized), ``bridge`` (Bridge Pieces), ``thin`` (thin parts restored but
not bridged: the engine always bridges after restoring, so this column takes the bridge voxels
back out to show what restoring alone does), ``both`` (thin parts restored, then bridged: the
panel's *Restore Thin Parts*). The lattice is the one Make uses (starting at the bounding box's
minimum corner), pinned so every option and the reference share it.
"""
from __future__ import annotations

import argparse
import sys
from pathlib import Path

import numpy as np

ROOT = Path(__file__).resolve().parent.parent
sys.path.insert(0, str(ROOT))
sys.path.insert(0, str(ROOT / "tests"))
from engine.voxel import pieces  # noqa: E402
from engine.voxel.meshio import load_mesh  # noqa: E402
from engine.voxel.voxelize import voxelize  # noqa: E402

OPTIONS = ("none", "bridge", "thin", "both")
REFERENCE_SAMPLES = 4


def models(folder: Path) -> dict:
    out = {}
    for p in sorted(folder.iterdir()) if folder.is_dir() else []:
        if p.suffix.lower() in (".obj", ".ply", ".stl", ".glb"):
            out[p.name] = lambda p=p: load_mesh(p)
    try:
        import procedural
        out["spider (procedural)"] = procedural.spider
        out["stegosaurus (procedural)"] = procedural.stegosaurus
    except ImportError:
        pass
    return out


def soft_iou(grid: np.ndarray, frac: np.ndarray) -> float:
    g = grid.astype(np.float64)
    return float(np.minimum(g, frac).sum() / max(np.maximum(g, frac).sum(), 1e-12))


def lost_share(grid: np.ndarray, surface: np.ndarray) -> float:
    """Share of the surface voxels with no filled voxel in their 3x3x3 neighbourhood."""
    p = np.pad(grid, 1)
    near = np.zeros_like(grid)
    X, Y, Z = grid.shape
    for dx in range(3):
        for dy in range(3):
            for dz in range(3):
                near |= p[dx:dx + X, dy:dy + Y, dz:dz + Z]
    return float(np.count_nonzero(surface & ~near)) / max(int(np.count_nonzero(surface)), 1)


def measure(verts, tris, res: int) -> dict:
    """{option: (pieces, single cubes, filled, IoU, lost)} on one lattice."""
    origin = verts.min(axis=0)
    common = dict(resolution=res, origin=origin, fit=False)
    ref = voxelize(verts, tris, samples=REFERENCE_SAMPLES, threshold=0.5, **common)
    frac = ref.fraction
    surface = np.zeros(frac.shape, np.bool_)
    pieces.surface_voxels((verts - ref.origin) / ref.voxel_size, np.ascontiguousarray(tris, np.int64),
                          surface)
    out = {}
    for option in OPTIONS:
        r = voxelize(verts, tris, bridge=option == "bridge", thin_parts=option in ("thin", "both"),
                     **common)
        grid = r.grid
        if option == "thin":
            grid = grid & (r.changes != pieces.BRIDGE_ADDED)
        assert grid.shape == frac.shape
        st = pieces.piece_stats(grid)
        out[option] = (st["pieces"], st["single_cubes"], st["filled"], soft_iou(grid, frac),
                       lost_share(grid, surface))
    return out


def main(argv=None) -> int:
    ap = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    ap.add_argument("--models", type=Path, default=ROOT.parent / "shared" / "models")
    ap.add_argument("--resolution", type=int, nargs="+", default=[16, 24, 36])
    ap.add_argument("--markdown", action="store_true", help="print the table for docs/VOXELIZER.md")
    args = ap.parse_args(argv)
    found = models(args.models)
    if not any(not k.endswith("(procedural)") for k in found):
        print(f"no models in {args.models}: only the procedural ones are measured", file=sys.stderr)
    connected = dict.fromkeys(OPTIONS, 0)
    iou_sum = dict.fromkeys(OPTIONS, 0.0)
    lost_sum = dict.fromkeys(OPTIONS, 0.0)
    n = 0
    if args.markdown:
        print("| model | res | " + " | ".join(
            f"{o}: pieces (single) / filled / IoU / lost" for o in OPTIONS) + " |")
        print("|---|---|" + "---|" * len(OPTIONS))
    for name, load in found.items():
        verts, tris = load()
        for res in args.resolution:
            m = measure(np.asarray(verts, np.float64), np.asarray(tris), res)
            n += 1
            for o in OPTIONS:
                connected[o] += m[o][0] == 1
                iou_sum[o] += m[o][3]
                lost_sum[o] += m[o][4]
            if args.markdown:
                cells = [f"{p} ({s}) / {f:,} / {iou:.2f} / {100 * lost:.0f} %"
                         for p, s, f, iou, lost in (m[o] for o in OPTIONS)]
                print(f"| {name} | {res} | " + " | ".join(cells) + " |")
            else:
                print(f"{name:26} {res:3}  " + "  ".join(
                    f"{o}: {p:3} pc {s:3} sc {f:6} v IoU {iou:.3f} lost {100 * lost:4.1f} %"
                    for o, (p, s, f, iou, lost) in m.items()), flush=True)
    summary = "\n".join(f"{o}: {connected[o]}/{n} in one piece, mean IoU {iou_sum[o] / max(n, 1):.3f}, "
                         f"mean lost {100 * lost_sum[o] / max(n, 1):.1f} %" for o in OPTIONS)
    print(("\n" if args.markdown else "") + summary)
    return 0


if __name__ == "__main__":
    sys.exit(main())
