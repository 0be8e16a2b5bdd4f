"""The README's two-colour render: a colour puzzle's player block, made headless by the batch.

    .venv/bin/python scripts/render_colour_puzzle.py [--resolution 10] [--size 360] [--samples 24]
        [--model ../shared/models/trex.glb]

Writes a two-material model (a chess pawn: a red head on a blue foot, an OBJ with its MTL) into a
temporary folder, runs ``batch.py --colours 8 --puzzle-colours 2 --design --render player`` on it
and copies the PNG to docs/img/colour-pawn-<res>-player.png (with ``--model``: that model instead,
docs/img/colour-<model>-<res>-player.png). Prints the colour puzzle's size,
colours, verdict and design.
"""
from __future__ import annotations

import argparse
import csv
import json
import shutil
import subprocess
import sys
import tempfile
from pathlib import Path

import numpy as np

ROOT = Path(__file__).resolve().parent.parent


def sphere(centre, r, n=24):
    """A closed UV sphere: (vertices, triangles)."""
    verts = [(0.0, 0.0, -r)]
    for i in range(1, n):
        t = np.pi * i / n - np.pi / 2
        for j in range(2 * n):
            a = np.pi * j / n
            verts.append((r * np.cos(t) * np.cos(a), r * np.cos(t) * np.sin(a), r * np.sin(t)))
    verts.append((0.0, 0.0, r))
    m = 2 * n
    tris = [(0, 1 + (j + 1) % m, 1 + j) for j in range(m)]
    for i in range(n - 2):
        a, b = 1 + i * m, 1 + (i + 1) * m
        for j in range(m):
            k = (j + 1) % m
            tris += [(a + j, a + k, b + k), (a + j, b + k, b + j)]
    top, last = len(verts) - 1, 1 + (n - 2) * m
    tris += [(last + j, last + (j + 1) % m, top) for j in range(m)]
    return np.asarray(verts) + centre, tris


def frustum(r0, r1, z0, z1, n=48):
    """A closed cone frustum about the z axis from radius r0 at z0 to r1 at z1."""
    a = 2 * np.pi * np.arange(n) / n
    ring = np.stack([np.cos(a), np.sin(a)], 1)
    verts = np.concatenate([np.c_[ring * r0, np.full(n, z0)], np.c_[ring * r1, np.full(n, z1)],
                            [[0, 0, z0], [0, 0, z1]]])
    tris = []
    for j in range(n):
        k = (j + 1) % n
        tris += [(j, k, n + k), (j, n + k, n + j), (2 * n, k, j), (2 * n + 1, n + j, n + k)]
    return verts, tris


def write_model(folder: Path) -> Path:
    """pawn.obj + pawn.mtl: the foot (a wide frustum, blue) and the head (a sphere, red) as two
    objects that just touch. OBJ is Y-up: write (x, z, -y) so the pawn stands in Blender."""
    parts = {"foot": (frustum(1.0, 0.45, 0.0, 1.6), "blue"),
             "head": (sphere(np.array([0.0, 0.0, 2.15]), 0.6), "red")}
    (folder / "pawn.mtl").write_text("newmtl red\nKd 0.80 0.06 0.04\n\nnewmtl blue\nKd 0.05 0.20 0.80\n",
                                     encoding="utf-8")
    lines, base = ["mtllib pawn.mtl"], 1
    for name, ((verts, tris), mat) in parts.items():
        lines += [f"o {name}", f"usemtl {mat}"]
        lines += [f"v {x:.6f} {z:.6f} {-y:.6f}" for x, y, z in verts]
        lines += [f"f {a + base} {b + base} {c + base}" for a, b, c in tris]
        base += len(verts)
    path = folder / "pawn.obj"
    path.write_text("\n".join(lines) + "\n", encoding="utf-8")
    return path


def main(argv=None) -> int:
    ap = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    ap.add_argument("--resolution", type=int, default=10)
    ap.add_argument("--size", type=int, default=360)
    ap.add_argument("--samples", type=int, default=24)
    ap.add_argument("--out", type=Path, default=ROOT / "docs" / "img")
    ap.add_argument("--model", type=Path, default=None,
                    help="a model file (e.g. a shared model) instead of the pawn")
    args = ap.parse_args(argv)
    args.out.mkdir(parents=True, exist_ok=True)
    with tempfile.TemporaryDirectory(prefix="nonogram-colour-") as tmp:
        tmp = Path(tmp)
        model = write_model(tmp) if args.model is None else args.model.resolve()
        stem = "pawn" if args.model is None else args.model.stem
        out = tmp / "out"
        cmd = [sys.executable, str(ROOT / "batch.py"), "--", "--input", str(model), "--resolution",
               str(args.resolution), "--out", str(out), "--colours", "8", "--puzzle-colours", "2", "--design",
               "--render", "player", "--render-size", str(args.size), "--render-samples", str(args.samples)]
        proc = subprocess.run(cmd, capture_output=True, text=True)
        if proc.returncode != 0:
            sys.stderr.write(proc.stdout[-3000:] + proc.stderr[-3000:])
            return 1
        with open(out / "summary.csv", newline="", encoding="utf-8") as f:
            row = next(csv.DictReader(f))
        colours = json.loads((out / row["colour_puzzle_file"]).read_text(encoding="utf-8"))["clue_colours"]
        target = args.out / f"colour-{stem}-{args.resolution}-player.png"
        shutil.copyfile(out / row["png_file"], target)
        print(f"{stem} {row['size']}: palette {row['palette']} -> puzzle colours {' '.join(colours)}, "
              f"{row['colour_verdict']}; designed: {row['design_hidden']} of {row['lines']} clues hidden "
              f"({row['design_band']}) -> {target.relative_to(ROOT) if target.is_relative_to(ROOT) else target}")
    return 0


if __name__ == "__main__":
    sys.exit(main())
