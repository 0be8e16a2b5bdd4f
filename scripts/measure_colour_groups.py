"""Puzzle colours from the reveal palette, before and after the partition search (issue #24):
for every shared model with colours, its palette at 24 voxels (Colours 8, as batch
``--colours 8``) grouped into k = 2 and 3 puzzle colours by the old k-means (farthest-point
seeding, kept here only to measure against) and by ``engine.colour.groups.group_palette``.
Printed per model and k: each group's share of the filled cells, its shown colour (the
use-weighted mean, as the puzzle's clue colour) and the least CIEDE2000 between two groups.

    .venv/bin/python scripts/measure_colour_groups.py [--resolution 24] [--colours 8]
"""
from __future__ import annotations

import argparse
import os
import sys
import time

import numpy as np

ROOT = os.path.dirname(os.path.dirname(os.path.abspath(__file__)))
sys.path.insert(0, ROOT)
MODELS = os.path.join(os.path.dirname(ROOT), "shared", "models")

from engine.colour.colourspace import ciede2000, linear_to_lab, srgb_to_linear, to_hex  # noqa: E402
from engine.colour.meshcolour import load_mesh_colours, reveal_colours  # noqa: E402
from engine.colour.groups import group_palette  # noqa: E402
from engine.voxel.voxelize import MAKE_PIECE_DEFAULTS, voxelize  # noqa: E402


def legacy_group_palette(palette, counts, k, iterations=50):
    """The grouping before: weighted k-means in an opponent space, seeded by the most used
    entry, then farthest points (weighted by sqrt(use))."""
    pal = np.asarray(palette, np.float64).reshape(-1, 3)
    n = len(pal)
    w = np.asarray(counts, np.float64).reshape(n) + 1e-9
    if k >= n:
        return np.arange(1, n + 1)
    lin = srgb_to_linear(pal)
    y = lin @ np.array([0.2126, 0.7152, 0.0722])
    x = np.stack([np.cbrt(y), (lin[:, 0] - lin[:, 1]) * 0.8, (lin[:, 1] - lin[:, 2]) * 0.6], 1)
    centres = [int(np.argmax(w))]
    for _ in range(1, k):
        d = np.min(((x[:, None, :] - x[centres][None]) ** 2).sum(-1), axis=1)
        centres.append(int(np.argmax(d * np.sqrt(w))))
    c = x[centres].copy()
    label = np.zeros(n, np.int64)
    for _ in range(iterations):
        new = np.argmin(((x[:, None, :] - c[None]) ** 2).sum(-1), axis=1)
        for j in range(k):
            if np.any(new == j):
                c[j] = np.average(x[new == j], axis=0, weights=w[new == j])
        if np.array_equal(new, label):
            break
        label = new
    use = np.array([w[label == j].sum() for j in range(k)])
    rank = np.empty(k, np.int64)
    rank[np.argsort(-use, kind="stable")] = np.arange(k)
    return rank[label] + 1


def describe(palette, counts, groups, k):
    shares, shown = [], []
    for j in range(1, k + 1):
        sel = groups == j
        shares.append(100.0 * counts[sel].sum() / counts.sum())
        shown.append(np.average(palette[sel], axis=0, weights=counts[sel] + 1e-9))
    lab = linear_to_lab(srgb_to_linear(np.array(shown)))
    de = min(float(ciede2000(lab[a], lab[b])) for a in range(k) for b in range(a + 1, k))
    return shares, to_hex(np.array(shown)), de


def main(argv=None) -> int:
    ap = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    ap.add_argument("--resolution", type=int, default=24)
    ap.add_argument("--colours", type=int, default=8)
    args = ap.parse_args(argv)
    if not os.path.isdir(MODELS):
        print(f"no shared models at {MODELS}", file=sys.stderr)
        return 2
    print("| model | palette | k | grouping | cells per group (%) | group colours | least ΔE00 | time (ms) |")
    print("|---|---|---|---|---|---|---|---|")
    for name in sorted(os.listdir(MODELS)):
        if not name.endswith((".glb", ".obj", ".ply")):
            continue
        mc = load_mesh_colours(os.path.join(MODELS, name))
        r = voxelize(mc.vertices, mc.triangles, resolution=args.resolution, samples=1, threshold=0.5,
                     robust=True, fit=True, **MAKE_PIECE_DEFAULTS)
        palette, cells, _ = reveal_colours(mc, r.grid, r.origin, r.voxel_size, args.colours)
        counts = np.bincount(cells[r.grid.ravel()], minlength=len(palette)).astype(np.float64)
        if len(palette) < 2:
            print(f"| {name} | 1 colour | – | – | one colour: no colour puzzle | {to_hex(palette)[0]} | – | – |")
            continue
        for k in (2, 3):
            for label, fn in (("before (k-means)", legacy_group_palette), ("after (partitions)", group_palette)):
                t = time.perf_counter()
                g = np.asarray(fn(palette, counts, k))
                ms = 1000 * (time.perf_counter() - t)
                shares, shown, de = describe(palette, counts, g, k)
                print(f"| {name} | {len(palette)} colours | {k} | {label} | "
                      f"{' / '.join(f'{s:.1f}' for s in shares)} | {' '.join(shown)} | {de:.1f} | {ms:.1f} |")
    return 0


if __name__ == "__main__":
    sys.exit(main())
