"""Make Nonogram end to end on the horse, timed by stage, with numba's cache empty and warm.

    .venv/bin/python scripts/bench_make.py [--model PATH] [--res 24 64]

Each scenario runs in a fresh process (Blender as the bpy module), because "cold" means a
Blender session that has not yet imported numba or loaded any kernel:
- empty cache: first click in a fresh process whose numba cache folder is empty (JIT compile);
- cached:      first click in a fresh process, the cache filled by the run before;
- warm:        the second click in that same process.
Stages come from the nonogram object's make_info: evaluated triangles, engine import (numba),
voxelize, puzzle (clues), scene build.
"""
from __future__ import annotations

import argparse
import importlib.util
import json
import os
import subprocess
import sys
import tempfile
import time
from pathlib import Path

ROOT = Path(__file__).resolve().parent.parent
DEFAULT_MODEL = ROOT.parent / "shared" / "models" / "horse.ply"


def child(model: str, resolutions: list) -> None:
    import bpy
    spec = importlib.util.spec_from_file_location("nonogram3d", ROOT / "__init__.py",
                                                  submodule_search_locations=[str(ROOT)])
    addon = importlib.util.module_from_spec(spec)
    sys.modules["nonogram3d"] = addon
    spec.loader.exec_module(addon)
    addon.register()
    from nonogram3d import scene
    bpy.ops.wm.read_factory_settings(use_empty=True)
    bpy.ops.wm.ply_import(filepath=model)
    src = bpy.context.selected_objects[0]
    out = []
    for res in resolutions:
        for click in ("first", "second"):
            bpy.context.view_layer.objects.active = src
            t0 = time.perf_counter()
            obj, result = scene.make_nonogram(bpy.context, src, resolution=res)
            wall = time.perf_counter() - t0
            info = json.loads(obj.nonogram.make_info)
            out.append({"res": res, "click": click, "wall_s": wall, "shape": info["shape"],
                        "cells": len(obj.data.vertices), "filled": info["filled"],
                        "clues": len(obj.nonogram.labels.data.vertices), **info["time_s"]})
            scene.clear_nonogram(obj)
    print("RESULT " + json.dumps(out))


def run(model, resolutions, cache_dir):
    env = dict(os.environ, NUMBA_CACHE_DIR=cache_dir)
    cmd = [sys.executable, __file__, "--child", "--model", model, "--res", *map(str, resolutions)]
    p = subprocess.run(cmd, env=env, capture_output=True, text=True, timeout=900)
    for line in p.stdout.splitlines():
        if line.startswith("RESULT "):
            return json.loads(line[7:])
    raise SystemExit(f"child failed ({p.returncode}):\n{p.stdout[-2000:]}\n{p.stderr[-4000:]}")


def main(argv=None) -> int:
    ap = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    ap.add_argument("--model", default=str(DEFAULT_MODEL))
    ap.add_argument("--res", type=int, nargs="+", default=[24, 64])
    ap.add_argument("--child", action="store_true", help=argparse.SUPPRESS)
    args = ap.parse_args(argv)
    if args.child:
        child(args.model, args.res)
        return 0
    if not Path(args.model).exists():
        print(f"model not found: {args.model}", file=sys.stderr)
        return 2
    cols = ("triangles", "engine_import", "voxelize", "puzzle", "build", "total")
    print(f"model {Path(args.model).name}; seconds; each resolution in fresh processes")
    print(f"{'scenario':<12} {'res':>4} {'click':<7} {'grid':<12} {'filled':>7} {'clues':>6} "
          + " ".join(f"{c:>9}" for c in cols))
    for res in args.res:
        with tempfile.TemporaryDirectory(prefix="nonogram_bench_cache_") as cache:
            for scenario in ("empty cache", "cached"):
                for row in run(args.model, [res], cache):
                    label = scenario if row["click"] == "first" else "warm"
                    grid = "x".join(map(str, row["shape"]))
                    print(f"{label:<12} {row['res']:>4} {row['click']:<7} {grid:<12} "
                          f"{row['filled']:>7} {row['clues']:>6} "
                          + " ".join(f"{row[c]:>9.3f}" for c in cols), flush=True)
    return 0


if __name__ == "__main__":
    sys.exit(main())
