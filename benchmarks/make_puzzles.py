"""Stage 1: the 3D test puzzles, and the voxelizer's timings.

For each public model in ``../shared/models/`` and each resolution, make the puzzle through the same
code path as the add-on: Blender's own importers (bpy module) and the add-on's
``operators.scene.make_nonogram``. When that path is not available (no bpy, add-on not importable,
importer failing) fall back to ``engine.voxel.meshio.load_mesh`` + ``engine.voxel.voxelize.voxelize`` with the
add-on's settings (samples=1, threshold=0.5, robust=True, fit=True) and record which path was used.
Plus the even checkerboard (cell filled when x+y+z is odd) at each size.

Puzzles go to ``benchmarks/out/puzzles/*.json`` (engine puzzle files, git-ignored); the facts to
``benchmarks/results/puzzles3d.json``. The voxelizer timing series (engine voxelizer on the loaded
triangles, resolution x model) goes to ``benchmarks/results/voxelizer.json``.

    python benchmarks/make_puzzles.py [--quick] [--path auto|blender|engine]
"""
from __future__ import annotations

import argparse
import importlib.util
import sys
import time
import traceback
from pathlib import Path

sys.path.insert(0, str(Path(__file__).resolve().parent.parent))
from benchmarks.common import (OUT, RESULTS, ROOT, SHARED, log, machine_info, rel, save_json,  # noqa: E402
                               single_thread_env)

single_thread_env()

import numpy as np  # noqa: E402

# (our name, file, the seed model it stands in for or None)
MODELS = [
    ("trex", "trex.glb", "Dino"),
    ("duck", "duck.glb", "Duck"),
    ("horse", "horse.ply", "Horse"),
    ("jeep", "jeep.obj", "Jeep"),
    ("torus_knot", "torus_knot.obj", "Knot"),
    ("teapot", "teapot.obj", None),
    ("bunny", "stanford_bunny.obj", None),
]
RESOLUTIONS = [12, 24, 36, 64]
QUICK_RESOLUTIONS = [12, 24]
VOXEL_TIMING_RES = [12, 24, 36, 64, 128, 256]
QUICK_VOXEL_TIMING_RES = [12, 24, 36]
ADDON_NAME = "nonogram3d"


def puzzle_path(name: str, res: int) -> Path:
    return OUT / "puzzles" / f"{name}_{res}.json"


def checkerboard(n: int) -> np.ndarray:
    idx = np.indices((n, n, n)).sum(axis=0)
    return (idx % 2 == 1)


# ---------------------------------------------------------------------------------------------
# the add-on's path: Blender importers + make_nonogram


class BlenderPath:
    """Imports meshes with Blender's importers and calls the add-on's make_nonogram."""

    def __init__(self):
        import bpy  # noqa: F401 - ImportError = no Blender path
        self.bpy = bpy
        init = ROOT / "__init__.py"
        if not init.exists():
            raise ImportError("the add-on's root __init__.py is not there yet")
        if ADDON_NAME in sys.modules:
            self.addon = sys.modules[ADDON_NAME]
        else:
            spec = importlib.util.spec_from_file_location(ADDON_NAME, init,
                                                          submodule_search_locations=[str(ROOT)])
            mod = importlib.util.module_from_spec(spec)
            sys.modules[ADDON_NAME] = mod
            spec.loader.exec_module(mod)
            self.addon = mod
        bpy.ops.wm.read_factory_settings(use_empty=True)
        self.addon.register()
        self.scene = importlib.import_module(f"{ADDON_NAME}.operators.scene")
        self.version = ".".join(str(v) for v in bpy.app.version)

    def load(self, path: Path):
        """Import a model file into an empty scene; returns one mesh object (parts joined)."""
        bpy = self.bpy
        bpy.ops.wm.read_factory_settings(use_empty=True)
        self.addon_reregister()
        ext = path.suffix.lower()
        if ext == ".obj":
            bpy.ops.wm.obj_import(filepath=str(path))
        elif ext == ".ply":
            bpy.ops.wm.ply_import(filepath=str(path))
        elif ext in (".glb", ".gltf"):
            bpy.ops.import_scene.gltf(filepath=str(path))
        else:
            raise ValueError(f"no Blender importer for {ext}")
        meshes = [o for o in bpy.context.scene.objects if o.type == 'MESH']
        if not meshes:
            raise RuntimeError(f"{path.name}: the importer made no mesh object")
        if len(meshes) == 1:
            return meshes[0]
        # several parts: join them into one object (the add-on voxelizes one object)
        for o in bpy.context.scene.objects:
            o.select_set(o in meshes)
        active = max(meshes, key=lambda o: len(o.data.polygons))
        with bpy.context.temp_override(active_object=active, object=active,
                                       selected_objects=meshes, selected_editable_objects=meshes):
            bpy.ops.object.join()
        return active

    def addon_reregister(self):
        # read_factory_settings keeps registered classes; nothing to do, kept as a hook
        pass

    def make(self, path: Path, res: int):
        t0 = time.perf_counter()
        obj = self.load(path)
        t_import = time.perf_counter() - t0
        ctx = self.bpy.context
        n_tris = sum(len(p.vertices) - 2 for p in obj.data.polygons)
        t1 = time.perf_counter()
        nono, result = self.scene.make_nonogram(ctx, obj, resolution=res)
        t_make = time.perf_counter() - t1
        import json
        info = {}
        try:
            info = json.loads(nono.nonogram.make_info)
        except Exception:
            pass
        tv = (info.get("time_s") or {}).get("voxelize", t_make)
        return result, {"path": "blender", "import_s": t_import, "make_s": t_make, "voxelize_s": tv,
                        "triangles": int(n_tris), "warnings": list(getattr(result, "warnings", []))}


def engine_make(path: Path, res: int):
    from engine.voxel.meshio import load_mesh
    from engine.voxel.voxelize import voxelize
    t0 = time.perf_counter()
    v, t = load_mesh(path)
    t_import = time.perf_counter() - t0
    t1 = time.perf_counter()
    result = voxelize(v, t, resolution=res, samples=1, threshold=0.5, robust=True, fit=True)
    tv = time.perf_counter() - t1
    return result, {"path": "engine", "import_s": t_import, "make_s": tv, "voxelize_s": tv,
                    "triangles": int(len(t)), "warnings": list(result.warnings)}


def main(argv=None) -> int:
    ap = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    ap.add_argument("--quick", action="store_true", help="12 and 24 only")
    ap.add_argument("--path", choices=("auto", "blender", "engine"), default="auto")
    ap.add_argument("--resolutions", type=int, nargs="*")
    ap.add_argument("--no-voxel-timing", action="store_true")
    a = ap.parse_args(argv)
    from engine.model.clues import puzzle_from_grid
    from engine.files.puzzlefile import save_puzzle
    from engine.model.stats import puzzle_stats

    res_list = a.resolutions or (QUICK_RESOLUTIONS if a.quick else RESOLUTIONS)
    models_dir = SHARED / "models"
    blender, why_not = None, ""
    if a.path in ("auto", "blender"):
        try:
            blender = BlenderPath()
            log(f"Blender path: bpy {blender.version} + the add-on's make_nonogram")
            # compile the voxelizer in the add-on's package once, so JIT time is not in the timings
            warm = next((models_dir / f for _n, f, _s in MODELS if (models_dir / f).exists()), None)
            if warm is not None:
                blender.make(warm, 8)
        except Exception as exc:
            why_not = f"{type(exc).__name__}: {exc}"
            if a.path == "blender":
                raise
            log(f"Blender path not available ({why_not}); using engine.voxel.meshio + engine.voxel.voxelize")
    rows = []
    for name, fname, seed_name in MODELS:
        fpath = models_dir / fname
        if not fpath.exists():
            log(f"missing model {rel(fpath)}")
            continue
        for res in res_list:
            info = None
            result = None
            if blender is not None:
                try:
                    result, info = blender.make(fpath, res)
                except Exception as exc:
                    err = f"{type(exc).__name__}: {exc}"
                    log(f"  {name} {res}: Blender path failed ({err}); engine fallback")
                    traceback.print_exc()
                    result, info = engine_make(fpath, res)
                    info["blender_error"] = err
            else:
                result, info = engine_make(fpath, res)
                if why_not:
                    info["blender_error"] = why_not
            grid = np.asarray(result.grid, dtype=bool)
            p = puzzle_from_grid(grid, name=f"{name}_{res}")
            out = puzzle_path(name, res)
            out.parent.mkdir(parents=True, exist_ok=True)
            save_puzzle(p, out)
            row = {"model": name, "file": fname, "seed_model": seed_name, "resolution": res,
                   "puzzle_file": rel(out), "filled": int(grid.sum()), "stats": puzzle_stats(p)}
            row.update(info)
            rows.append(row)
            log(f"  {name:11s} {res:3d}: {'x'.join(map(str, grid.shape)):10s} filled {int(grid.sum()):6d} "
                f"[{info['path']}] voxelize {info['voxelize_s']:.3f}s")
    for res in res_list:
        g = checkerboard(res)
        p = puzzle_from_grid(g, name=f"checkerboard_{res}")
        out = puzzle_path("checkerboard", res)
        out.parent.mkdir(parents=True, exist_ok=True)
        save_puzzle(p, out)
        rows.append({"model": "checkerboard", "file": None, "seed_model": "Check", "resolution": res,
                     "puzzle_file": rel(out), "filled": int(g.sum()), "stats": puzzle_stats(p),
                     "path": "generated", "triangles": None, "voxelize_s": None})
    save_json({"machine": machine_info(), "blender_unavailable": why_not,
               "resolutions": res_list, "puzzles": rows}, RESULTS / "puzzles3d.json")

    if not a.no_voxel_timing:
        voxel_timing(models_dir, QUICK_VOXEL_TIMING_RES if a.quick else VOXEL_TIMING_RES)
    return 0


def voxel_timing(models_dir: Path, res_list) -> None:
    """The engine voxelizer alone (add-on settings) per model and resolution: best of a few runs."""
    from engine.voxel.meshio import load_mesh
    from engine.voxel.voxelize import voxelize
    # compile once
    v = np.array([[0, 0, 0], [1, 0, 0], [0, 1, 0], [0, 0, 1]], float)
    t = np.array([[0, 2, 1], [0, 1, 3], [0, 3, 2], [1, 2, 3]])
    voxelize(v, t, resolution=4)
    rows = []
    for name, fname, _ in MODELS:
        fpath = models_dir / fname
        if not fpath.exists():
            continue
        v, t = load_mesh(fpath)
        for res in res_list:
            times = []
            reps = 3 if res <= 64 else 1
            filled = None
            for _ in range(reps):
                t0 = time.perf_counter()
                r = voxelize(v, t, resolution=res, samples=1, threshold=0.5, robust=True, fit=True)
                times.append(time.perf_counter() - t0)
                filled = int(r.grid.sum())
            rows.append({"model": name, "triangles": int(len(t)), "resolution": res,
                         "time_s": min(times), "filled": filled})
            log(f"  voxelize {name:11s} {len(t):6d} tris @ {res:3d}: {min(times)*1000:8.1f} ms")
    save_json({"machine": machine_info(), "rows": rows}, RESULTS / "voxelizer.json")


if __name__ == "__main__":
    raise SystemExit(main())
