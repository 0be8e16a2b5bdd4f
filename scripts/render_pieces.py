"""Renders for docs/ADDON.md ("Pieces"): the thin-legged spider and the multi-part stegosaurus of
tests/procedural.py, made by the headless batch with and without the piece options.

    .venv/bin/python scripts/render_pieces.py [--resolution 36] [--size 400] [--samples 24]

Writes the two models as OBJ files (the stegosaurus as five objects: body, head, tail, legs,
plates) into a temporary folder, runs batch.py once per option set with --render, and copies the
PNGs to docs/img/pieces-<model>-<option>.png.  Prints each run's pieces before and after.
"""
from __future__ import annotations

import argparse
import csv
import shutil
import subprocess
import sys
import tempfile
from pathlib import Path

ROOT = Path(__file__).resolve().parent.parent
sys.path.insert(0, str(ROOT / "tests"))
import procedural  # noqa: E402

OPTIONS = {"plain": [], "bridge": ["--bridge"], "thin": ["--thin-parts"]}
RENDERED = {"spider": ("plain", "bridge", "thin"), "stegosaurus": ("plain", "thin")}


def write_obj(path: Path, parts: dict) -> None:
    """OBJ is Y-up: Blender's importer turns file (x, y, z) into (x, -z, y), so write (x, z, -y)
    to get the models back standing on their feet."""
    lines, base = [], 1
    for name, (verts, tris) in parts.items():
        lines.append(f"o {name}")
        lines += [f"v {x:.6f} {z:.6f} {-y:.6f}" for x, y, z in verts]
        lines += [f"f {a + base} {b + base} {c + base}" for a, b, c in tris]
        base += len(verts)
    path.write_text("\n".join(lines) + "\n", encoding="utf-8")


def main(argv=None) -> int:
    ap = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    ap.add_argument("--resolution", type=int, default=36)
    ap.add_argument("--size", type=int, default=400)
    ap.add_argument("--samples", type=int, default=24)
    ap.add_argument("--out", type=Path, default=ROOT / "docs" / "img")
    args = ap.parse_args(argv)
    args.out.mkdir(parents=True, exist_ok=True)
    with tempfile.TemporaryDirectory(prefix="nonogram-pieces-") as tmp:
        tmp = Path(tmp)
        write_obj(tmp / "spider.obj", {"spider": procedural.spider()})
        write_obj(tmp / "stegosaurus.obj", procedural.stegosaurus_parts())
        for model, options in RENDERED.items():
            for option in options:
                flags = OPTIONS[option]
                out = tmp / f"{model}-{option}"
                cmd = [sys.executable, str(ROOT / "batch.py"), "--", "--input", str(tmp / f"{model}.obj"),
                       "--resolution", str(args.resolution), "--out", str(out), "--render",
                       "--render-size", str(args.size), "--render-samples", str(args.samples),
                       "--time-limit", "20", *flags]
                proc = subprocess.run(cmd, capture_output=True, text=True)
                if proc.returncode != 0:
                    sys.stderr.write(proc.stdout[-3000:] + proc.stderr[-3000:])
                    return 1
                with open(out / "summary.csv", newline="", encoding="utf-8") as f:
                    row = next(csv.DictReader(f))
                target = args.out / f"pieces-{model}-{option}.png"
                shutil.copyfile(out / row["png_file"], target)
                print(f"{model:12} {option:8} {row['size']:>9}  filled {row['filled']:>5}  pieces "
                      f"{row['pieces_before']:>3} -> {row['pieces']:>3}  single cubes {row['single_cubes']:>3}"
                      f"  +{row['voxels_added']} -{row['voxels_removed']}  make {float(row['make_time_s']):.2f} s"
                      f"  -> {target.relative_to(ROOT) if target.is_relative_to(ROOT) else target}")
    return 0


if __name__ == "__main__":
    sys.exit(main())
