"""Headless batch: models in; nonogram puzzles, solver reports and a CSV summary out.

    blender -b --python batch.py -- --input MODELS... --resolution 12 24 36 --out OUT [options]
    python batch.py -- --input suzanne --resolution 12 --out out      (Blender as a Python module)
    blender -b -c nonogram --input MODELS... --out OUT                 (the installed extension)

MODELS are files (.obj .ply .stl .glb .gltf .fbx), directories (their model files, not
recursive) or built-in meshes (suzanne, cube, sphere, icosphere, cylinder, cone). For every model
and resolution the batch writes ``<model>-<res>.puzzle.json`` (the puzzle file),
``<model>-<res>.report.json`` and one row of ``summary.csv`` (also ``summary.json``); with
``--blend`` the .blend and with ``--render [designer|player]`` a Cycles PNG of that view. A model
that fails is reported in the summary and the batch goes on; the exit status is 1 if anything
failed. See docs/BATCH.md.

The batch clears the objects of the open file before it starts: run it on an empty session.
"""
from __future__ import annotations

import argparse
import csv
import importlib
import importlib.util
import json
import math
import os
import sys
import time
import traceback
from types import ModuleType, SimpleNamespace
from typing import Optional, cast


def _coordinator_only() -> bool:
    """Run as a script in a plain Python to coordinate a catalogue (``--workers``, ``--dask``,
    ``--scheduler``, ``--pool``, ``--resume``): this process hands jobs to its workers and never
    touches Blender, so it does not import bpy (half a second to a second before the first worker
    could start; with ``--export-html`` its index page comes from the engine alone). Anything else, or unsure (an abbreviated option),
    imports it as usual; ``run`` imports it when a run turns out to need it after all."""
    if __name__ != "__main__" or "bpy" in sys.modules:
        return False
    argv = sys.argv[sys.argv.index("--") + 1:] if "--" in sys.argv else sys.argv[1:]
    names = {a.split("=", 1)[0] for a in argv if a.startswith("--")}
    return bool(names & {"--workers", "--dask", "--scheduler", "--pool", "--resume"}) \
        and not names & {"--serve", "--help"}


if not _coordinator_only():
    import bpy

PACKAGE_NAME = "nonogram3d"
MODEL_EXTENSIONS = (".obj", ".ply", ".stl", ".glb", ".gltf", ".fbx")
# The add-on's smallest resolution (scene/properties.py RESOLUTION_RANGE).
MIN_RESOLUTION = 3
BUILTINS = ("suzanne", "cube", "sphere", "icosphere", "cylinder", "cone")

# The seed study's Table 5 solvers: CSV column prefix -> label used by engine.solve.driver.compare.
SEED_SOLVERS = {"brute": "Brute", "hier": "Hier", "hier_pre": "Hier+Pre", "heur": "Heur",
                "heur_pre": "Heur+Pre"}
_SOLVER_ALIASES = {"brute": "brute", "hier": "hier", "hierarchical": "hier", "hier+pre": "hier_pre",
                   "hier_pre": "hier_pre", "heur": "heur", "heuristic": "heur", "heur+pre": "heur_pre",
                   "heur_pre": "heur_pre"}

CSV_COLUMNS = (
    ["model", "input", "resolution", "status", "error",
     # Table 4: size, cells, lines, and each line type with its clue range.
     "size", "x", "y", "z", "cells", "filled", "lines", "hidden", "empty"]
    + [f"{k}_{f}" for k in ("plain", "circle", "square") for f in ("count", "min", "max")]
    # Table 5: linesolvers and bad-guess percentage per seed solver.
    + [f"{s}_{f}" for s in SEED_SOLVERS for f in ("linesolvers", "bad_pct", "verdict", "time_s")]
    + ["verdict", "difficulty", "score", "band", "known_fraction", "linesolvers", "bad_pct",
       "solve_time_s", "make_time_s", "total_time_s",
       # Connectivity of the answer (6-connected pieces unless said), before and after the
       # piece options, and the file's objects the batch left out.
       "pieces", "pieces_26", "single_cubes", "largest_piece", "pieces_before", "voxels_added",
       "voxels_removed", "skipped_objects", "palette",
       "warnings", "puzzle_file", "report_file", "blend_file", "png_file"]
    # --design: the designed puzzle (clues hidden), its hidden share and difficulty
    + ["design_target", "design_hidden", "design_hidden_pct", "design_score", "design_band",
       "design_in_target", "design_locally_minimal", "design_time_s", "design_message", "design_file"]
    # --export-html: the playable page (of the designed puzzle with --design)
    + ["html_file"]
    # --puzzle-colours K: the colour puzzle made from the reveal palette, its verdict (full clues)
    + ["puzzle_colours", "colour_puzzle_file", "colour_verdict"]
)
# Objects named like this are collision meshes (the game engines' convention), not the model.
COLLIDER_PREFIXES = ("UCX_", "UBX_", "UCP_", "USP_", "UME_")
GEOMETRY_TYPES = {'MESH', 'CURVE', 'SURFACE', 'META', 'FONT'}
DESIGN_BANDS = ("easy", "medium", "hard", "expert")
# engine/model/colourpuzzle.py MAX_COLOURS (not imported: parsing the options loads no engine)
MAX_PUZZLE_COLOURS = 35


class BatchError(Exception):
    """A model that cannot be processed; the message goes into the summary."""


def log(msg: str) -> None:
    print(f"[nonogram batch] {msg}", flush=True)


# ---------------------------------------------------------------------------------------------
# arguments


def script_args(argv: Optional[list] = None) -> list:
    """The batch's own arguments: everything after ``--`` (Blender's convention), else argv[1:]."""
    if argv is not None:
        return list(argv)
    if "--" in sys.argv:
        return sys.argv[sys.argv.index("--") + 1:]
    return sys.argv[1:]


def _clue_layer_arg(text: str) -> tuple:
    """'all' -> ('ALL', 0), 'x=5' -> ('X', 5): the argument of --clue-layer."""
    if text.strip().lower() == "all":
        return "ALL", 0
    axis, layers = _slice_arg(text)
    if layers < 0:
        raise argparse.ArgumentTypeError(f"the layer must be 0 or more, not {text!r}")
    return axis, layers


def _slice_arg(text: str) -> tuple:
    """'z=3' -> ('Z', 3): the argument of --slice."""
    axis, sep, n = text.partition("=")
    axis = axis.strip().upper()
    try:
        layers = int(n)
    except ValueError:
        layers = None
    if not sep or axis not in ("X", "Y", "Z") or layers is None:
        raise argparse.ArgumentTypeError(f"expected AXIS=N with AXIS x, y or z and N a whole number, "
                                         f"not {text!r}")
    return axis, layers


# --thin-parts: (bridge, thin_parts) per mode, as the panel's Thin Parts options.
THIN_PARTS_MODES = {"none": (False, False), "bridge": (True, False), "restore": (True, True)}


def parse_args(argv: list, prog: str = "batch.py") -> argparse.Namespace:
    ap = argparse.ArgumentParser(
        prog=prog, description="Make and solve 3D nonograms from models, headless.",
        epilog="Built-in models: " + ", ".join(BUILTINS) + ". Seed solvers: "
               + ", ".join(SEED_SOLVERS.values()) + " (or 'seed' for all five).")
    ap.add_argument("-i", "--input", nargs="+", required=True, metavar="MODEL",
                    help="model files, directories of models, or built-in names")
    ap.add_argument("-r", "--resolution", nargs="+", type=int, default=[12], metavar="N",
                    help="voxels along the longest side (default: 12)")
    ap.add_argument("-o", "--out", default="out", help="output directory (default: out)")
    ap.add_argument("--solvers", nargs="*", default=[], metavar="NAME",
                    help="seed solvers to compare as well as the complete solver: seed (all five), "
                         "brute, hier, hier+pre, heur, heur+pre")
    ap.add_argument("--linesolver", choices=("dp", "seed"), default="dp",
                    help="line solver of the seed solvers (default: dp)")
    ap.add_argument("--time-limit", type=float, default=60.0,
                    help="seconds per solve before giving up with verdict 'unknown' (default: 60)")
    ap.add_argument("--samples", type=int, default=1, help="anti-aliasing samples per voxel axis")
    ap.add_argument("--threshold", type=float, default=0.5, help="filled fraction for a sampled voxel")
    ap.add_argument("--no-robust", action="store_true",
                    help="single-axis parity instead of the 3-axis vote (leaks on open meshes)")
    ap.add_argument("--thin-parts", nargs="?", choices=THIN_PARTS_MODES, const="restore",
                    default="restore",
                    help="parts thinner than a voxel: 'restore' keeps them one voxel thick and joins "
                         "every loose piece on (the default, as in Make), 'bridge' only joins loose "
                         "pieces through voxels the mesh passes through, 'none' keeps the plain fill")
    ap.add_argument("--bridge", action="store_const", dest="thin_parts", const="bridge",
                    help="the same as --thin-parts bridge")
    ap.add_argument("--min-piece", type=int, default=0, metavar="N",
                    help="drop pieces of fewer than N voxels (default: 0, keep all)")
    ap.add_argument("--keep-largest", action="store_true", help="keep only the largest piece")
    ap.add_argument("--colours", type=int, default=1, metavar="K",
                    help="keep the model's colours for the reveal, reduced to K colours (1..256; "
                         "default 1: plain cubes)")
    ap.add_argument("--puzzle-colours", type=int, default=1, metavar="K",
                    help="make a colour puzzle of K puzzle colours (2..%d) from the reveal palette "
                         "(needs --colours; palette entries grouped into K, or fewer where the model "
                         "shows fewer or K would make two nearly the same: a warning says so; a model "
                         "of one colour stays black-and-white); its file, verdict and, with --design, "
                         "its design; 1 (default): black-and-white" % MAX_PUZZLE_COLOURS)
    ap.add_argument("--render", nargs="?", const="designer", default=None,
                    choices=("player", "designer", "solved"),
                    help="render a Cycles PNG per puzzle of the designer's view (the solved cells "
                         "cut at a middle layer, with its clues beside it; the default), the player's "
                         "view (the block of cubes with the clues on their faces) or the solved model "
                         "(the reveal, in its colours with --colours)")
    ap.add_argument("--clue-layer", type=_clue_layer_arg, default=None, metavar="AXIS=N|all",
                    help="the designer's view: show the clues of layer N across AXIS (x, y or z; the "
                         "layers in front are cut away), or 'all' clues at once (default: the middle "
                         "layer across the grid's shortest side)")
    ap.add_argument("--slice", action="append", default=[], type=_slice_arg, metavar="AXIS=N",
                    help="peel N layers of the player's view along AXIS (x, y or z) away, as the "
                         "player's slicer does: N > 0 from the high side, N < 0 from the low side "
                         "(repeatable; shows in --render player and the .blend)")
    ap.add_argument("--render-size", type=int, default=256, help="PNG width and height (default: 256)")
    ap.add_argument("--render-samples", type=int, default=16, help="Cycles samples (default: 16)")
    ap.add_argument("--blend", action="store_true", help="save a .blend per puzzle")
    ap.add_argument("--design", nargs="?", const="any", default=None, choices=("any",) + DESIGN_BANDS,
                    metavar="BAND", help="also hide clues (unique, solvable by logic), at a difficulty band ("
                                         + ", ".join(DESIGN_BANDS) + ") or as many as it can (no BAND)")
    ap.add_argument("--design-method", choices=("greedy", "anneal", "random"), default="greedy",
                    help="design search (default: greedy)")
    ap.add_argument("--export-html", action="store_true",
                    help="write a playable web page per puzzle (the designed one with --design) and an "
                         "index.html catalogue linking to them")
    ap.add_argument("--design-logic", choices=("line", "probe"), default="line",
                    help="logic the designed puzzle must be solvable with (default: line)")
    ap.add_argument("--workers", type=int, default=0, metavar="N",
                    help="run the jobs (one per model and resolution) in N worker processes at once, on a "
                         "Dask LocalCluster when dask is installed, else in the batch's own pool; results "
                         "as in a sequential run (docs/BATCH.md)")
    ap.add_argument("--dask", action="store_true",
                    help="run the jobs on a Dask LocalCluster of --workers processes (needs dask; what "
                         "--workers does anyway when dask is installed)")
    ap.add_argument("--pool", action="store_true",
                    help="run the jobs in the batch's own pool of --workers processes, not on Dask")
    ap.add_argument("--scheduler", metavar="ADDRESS",
                    help="run the jobs on an existing Dask cluster (e.g. tcp://host:8786); its workers "
                         "must see --out and the model files at the same paths")
    ap.add_argument("--no-pin", action="store_true",
                    help="let the local workers share every CPU (by default each of N workers keeps to "
                         "CPUs of its own, on Linux: docs/BATCH.md)")
    ap.add_argument("--resume", action="store_true",
                    help="skip the jobs whose outputs in --out are complete (from an earlier run)")
    ap.add_argument("--job-name", help=argparse.SUPPRESS)  # a worker's model name (batchjobs.py)
    args = ap.parse_args(argv)
    args.parser, args.argv = ap, list(argv)  # worker_options: what each job of a catalogue gets
    if args.workers < 0:
        ap.error("--workers must be 0 or more")
    if args.pool and (args.dask or args.scheduler):
        ap.error("--pool runs the jobs without Dask: not with --dask or --scheduler")
    if any(r < MIN_RESOLUTION for r in args.resolution):
        ap.error(f"resolutions must be at least {MIN_RESOLUTION} (a smaller grid makes no puzzle)")
    if args.min_piece < 0:
        ap.error("--min-piece must be 0 or more")
    args.thin_parts_mode = args.thin_parts
    args.bridge, args.thin_parts = THIN_PARTS_MODES[args.thin_parts_mode]
    if not 1 <= args.colours <= 256:
        ap.error(f"--colours must be 1 (plain) to 256, got {args.colours}")
    if not 1 <= args.puzzle_colours <= MAX_PUZZLE_COLOURS:
        ap.error(f"--puzzle-colours must be 1 (black-and-white) to {MAX_PUZZLE_COLOURS}, "
                 f"got {args.puzzle_colours}")
    if args.puzzle_colours > 1 and args.colours < 2:
        ap.error(f"--puzzle-colours {args.puzzle_colours} groups the reveal's colours: it needs "
                 f"--colours K with K >= {args.puzzle_colours}")
    if args.puzzle_colours > args.colours:
        ap.error(f"--puzzle-colours {args.puzzle_colours} is more than the reveal's --colours "
                 f"{args.colours}: each puzzle colour is a group of reveal colours")
    solvers: list = []
    for name in args.solvers:
        key = name.lower()
        picked = list(SEED_SOLVERS) if key in ("seed", "all") else [_SOLVER_ALIASES.get(key)]
        if picked == [None]:
            ap.error(f"unknown solver {name!r}; choose from seed, brute, hier, hier+pre, heur, heur+pre")
        solvers += [s for s in picked if s not in solvers]
    args.solvers = solvers
    return args


# ---------------------------------------------------------------------------------------------
# the add-on package


def addon_package() -> ModuleType:
    """The Nonogram 3D package this file belongs to, imported and registered.

    Imported as part of the package (``blender -c nonogram``): that package. Run as a script:
    the package already loaded from this folder (the installed extension, or a test's import),
    else this folder imported as ``nonogram3d`` and registered.
    """
    package = globals().get("__package__")  # None or '' when run as a script
    if package:
        return importlib.import_module(package)
    here = os.path.dirname(os.path.abspath(__file__))
    init = os.path.join(here, "__init__.py")
    for name, mod in list(sys.modules.items()):
        f = getattr(mod, "__file__", None)
        if name != "__main__" and f and os.path.abspath(f) == init:
            if not _registered():
                mod.register()
            return mod
    if PACKAGE_NAME in sys.modules:
        raise BatchError(f"another package named {PACKAGE_NAME!r} is loaded "
                         f"({sys.modules[PACKAGE_NAME].__file__}); cannot import {here}")
    spec = importlib.util.spec_from_file_location(PACKAGE_NAME, init, submodule_search_locations=[here])
    if spec is None or spec.loader is None:
        raise BatchError(f"cannot import the add-on from {here}")
    mod = importlib.util.module_from_spec(spec)
    sys.modules[PACKAGE_NAME] = mod
    try:
        spec.loader.exec_module(mod)
        mod.register()
    except Exception:
        del sys.modules[PACKAGE_NAME]
        raise
    return mod


def _registered() -> bool:
    """Whether the add-on's classes are registered (its per-object settings exist)."""
    return bpy.types.Object.bl_rna.properties.get("nonogram") is not None


class Addon:
    """The add-on's scene API and the engine modules the batch uses."""

    def __init__(self, pkg: ModuleType):
        name = pkg.__name__
        self.scene = importlib.import_module(f"{name}.scene")
        engine = importlib.import_module(f"{name}.jobs.engine_access")
        self.solve = engine.solve
        self.design = engine.design
        self.stats = engine.stats
        self.puzzlefile = engine.puzzlefile
        self.jit = engine.jit
        self.webpage = engine.webpage
        self.catalogue = importlib.import_module(f"{name}.engine.play.catalogue")
        self.colourgroups = engine.colourgroups
        self.colourpuzzle = engine.colourpuzzle
        runtime = importlib.import_module(f"{name}.jobs.runtime")
        for module in (self.solve, self.design, self.stats, self.puzzlefile, self.jit, self.webpage):
            runtime.load(module)  # now: a broken engine is a set-up error, not a row's


# ---------------------------------------------------------------------------------------------
# models


def expand_inputs(inputs: list) -> list:
    """(model name, source) pairs: directories expanded to their model files, names kept."""
    items = []
    for raw in inputs:
        if os.path.isdir(raw):
            files = sorted(f for f in os.listdir(raw) if f.lower().endswith(MODEL_EXTENSIONS))
            if not files:
                items.append(raw)  # reported as an error per resolution
            items += [os.path.join(raw, f) for f in files]
        else:
            items.append(raw)
    bases = []
    for src in items:
        if src.lower() in BUILTINS and not os.path.exists(src):
            bases.append((src.lower(), ""))
        else:
            stem, ext = os.path.splitext(os.path.basename(os.path.normpath(src)))
            bases.append((stem or "model", ext.lower().lstrip(".")))
    stems = [b for b, _ in bases]
    names: dict = {}
    out = []
    for src, (base, ext) in zip(items, bases):
        if ext and stems.count(base) > 1:
            base = f"{base}_{ext}"  # teapot.obj and teapot.ply -> teapot_obj, teapot_ply
        base = "".join(c if c.isalnum() or c in "-_." else "_" for c in base)
        n = names.get(base, 0)
        names[base] = n + 1
        out.append((base if n == 0 else f"{base}_{n + 1}", src))
    return out


def _operator(path: str):
    """``bpy.ops.<mod>.<name>`` if that operator exists in this Blender, else None."""
    mod, name = path.split(".")
    op = getattr(getattr(bpy.ops, mod), name)
    try:
        op.get_rna_type()
    except (KeyError, AttributeError):
        return None
    return op


# Per extension: (operator candidates newest first, add-on that provides it when not built in).
_IMPORTERS = {
    ".obj": (("wm.obj_import", "import_scene.obj"), "io_scene_obj"),
    ".ply": (("wm.ply_import", "import_mesh.ply"), "io_mesh_ply"),
    ".stl": (("wm.stl_import", "import_mesh.stl"), "io_mesh_stl"),
    ".glb": (("import_scene.gltf",), "io_scene_gltf2"),
    ".gltf": (("import_scene.gltf",), "io_scene_gltf2"),
    ".fbx": (("import_scene.fbx",), "io_scene_fbx"),
}


def importer_for(path: str):
    ext = os.path.splitext(path)[1].lower()
    if ext not in _IMPORTERS:
        raise BatchError(f"unsupported file type {ext or '(none)'!r}; supported: "
                         + " ".join(MODEL_EXTENSIONS))
    candidates, addon = _IMPORTERS[ext]
    for attempt in range(2):
        for c in candidates:
            op = _operator(c)
            if op is not None:
                return op
        if attempt == 0:
            import addon_utils
            addon_utils.enable(addon, default_set=False)
    raise BatchError(f"this Blender has no importer for {ext} files ({' or '.join(candidates)})")


def _builtin_mesh(name: str):
    import bmesh
    bm = bmesh.new()
    try:
        if name == "suzanne":
            bmesh.ops.create_monkey(bm)
        elif name == "cube":
            bmesh.ops.create_cube(bm, size=2.0)
        elif name == "sphere":
            bmesh.ops.create_uvsphere(bm, u_segments=32, v_segments=16, radius=1.0)
        elif name == "icosphere":
            bmesh.ops.create_icosphere(bm, subdivisions=3, radius=1.0)
        elif name in ("cylinder", "cone"):
            bmesh.ops.create_cone(bm, cap_ends=True, cap_tris=False, segments=32, radius1=1.0,
                                  radius2=1.0 if name == "cylinder" else 0.0, depth=2.0)
        else:
            raise BatchError(f"unknown built-in model {name!r}")
        mesh = bpy.data.meshes.new(name)
        bm.to_mesh(mesh)
    finally:
        bm.free()
    return mesh


def _merge_to_world_mesh(objects: list, name: str):
    """One mesh, in world space, of the evaluated geometry of ``objects`` (modifiers, armature
    bind pose and parenting applied), so multi-part files become one source object."""
    import bmesh
    import numpy as np
    depsgraph = bpy.context.evaluated_depsgraph_get()
    bm = bmesh.new()
    materials: list = []  # the merged mesh's slots: every part keeps its materials (colours)
    try:
        for ob in objects:
            ob_eval = ob.evaluated_get(depsgraph)
            tmp = bpy.data.meshes.new_from_object(ob_eval, preserve_all_data_layers=False,
                                                  depsgraph=depsgraph)
            try:
                tmp.transform(ob_eval.matrix_world)
                slots = [s.material for s in ob.material_slots] or [None]
                remap = []
                for m in slots:
                    if m not in materials:
                        materials.append(m)
                    remap.append(materials.index(m))
                idx = np.empty(len(tmp.polygons), np.int32)
                tmp.polygons.foreach_get("material_index", idx)
                tmp.polygons.foreach_set("material_index",
                                         np.asarray(remap, np.int32)[np.clip(idx, 0, len(slots) - 1)])
                bm.from_mesh(tmp)
            finally:
                bpy.data.meshes.remove(tmp)
        mesh = bpy.data.meshes.new(name)
        bm.to_mesh(mesh)
        if any(m is not None for m in materials):
            for m in materials:
                mesh.materials.append(m)
    finally:
        bm.free()
    return mesh


def model_objects(objects: list) -> tuple:
    """(the objects that make the model, [(object name, why it was left out)]).

    A model is what the file shows: hidden objects (and objects in hidden collections, such as
    the glTF importer's bone shapes), objects left out of renders, wire or bounds display
    helpers, collision meshes and armature widgets are not part of it."""
    shapes = {pb.custom_shape for arm in objects if arm.type == 'ARMATURE'
              for pb in arm.pose.bones if pb.custom_shape is not None}
    used, skipped = [], []
    for ob in objects:
        if ob.type not in GEOMETRY_TYPES:
            continue
        if ob in shapes:
            why = "an armature's bone shape"
        elif not ob.visible_get():
            why = "hidden"
        elif ob.hide_render:
            why = "not rendered"
        elif ob.display_type in {'WIRE', 'BOUNDS'}:
            why = f"displayed as {ob.display_type.lower()} only: a helper or collider"
        elif ob.name.upper().startswith(COLLIDER_PREFIXES):
            why = "a collision mesh"
        else:
            used.append(ob)
            continue
        skipped.append((ob.name, why))
    return used, skipped


def load_model(name: str, src: str):
    """A new mesh object (linked to the scene) for a model file or built-in name, and the
    file's objects left out of it as [(name, why)]."""
    scene = bpy.context.scene
    skipped: list = []
    if not os.path.exists(src):
        if src.lower() in BUILTINS:
            mesh = _builtin_mesh(src.lower())
        else:
            raise BatchError(f"no such file, and not a built-in model ({', '.join(BUILTINS)}): {src}")
    elif os.path.isdir(src):
        raise BatchError(f"no model files ({' '.join(MODEL_EXTENSIONS)}) in directory {src}")
    else:
        op = importer_for(src)
        before = set(bpy.data.objects)
        try:
            result = op(filepath=os.path.abspath(src))
        except RuntimeError as e:
            # Operator errors arrive as "Error: <message>"; the summary has its own context.
            raise BatchError(f"import failed: {str(e).strip().removeprefix('Error: ')}") from None
        new = [ob for ob in bpy.data.objects if ob not in before]
        try:
            if "FINISHED" not in result:
                raise BatchError(f"import failed ({', '.join(sorted(result))})")
            meshes, skipped = model_objects(new)
            if not meshes:
                if skipped:
                    raise BatchError("the file shows no mesh objects; left out: "
                                     + describe_skipped(skipped))
                raise BatchError("the file holds no mesh objects")
            mesh = _merge_to_world_mesh(meshes, name)
            mesh.use_fake_user = True  # survives the purge of the importer's data below
        finally:
            bpy.data.batch_remove(new)
            purge_orphans()
        mesh.use_fake_user = False
    if not len(mesh.polygons):
        bpy.data.meshes.remove(mesh)
        raise BatchError("the model has no faces")
    obj = bpy.data.objects.new(name, mesh)
    scene.collection.objects.link(obj)
    return obj, skipped


def describe_skipped(skipped: list) -> str:
    return "; ".join(f"{n} ({why})" for n, why in skipped)


def purge_orphans() -> None:
    # fake-bpy-module-4-2 declares no parameters here; Blender 4.2 has had them since 3.2.
    bpy.data.orphans_purge(do_local_ids=True, do_linked_ids=True, do_recursive=True)  # type: ignore[call-arg]


def clear_scene() -> None:
    bpy.data.batch_remove(list(bpy.data.objects))
    purge_orphans()


# ---------------------------------------------------------------------------------------------
# one puzzle


def seed_rows(addon: Addon, puzzle, wanted: list, linesolver: str, time_limit: float) -> list:
    """Table 5 rows (engine.solve.driver.compare's format) for the wanted seed solvers."""
    solve = addon.solve
    if set(wanted) == set(SEED_SOLVERS):
        return list(solve.compare(puzzle, linesolver=linesolver, time_limit=time_limit))
    labels = {SEED_SOLVERS[s] for s in wanted}
    rows = []
    for label, method, pre in solve.SEED_CONFIGS:
        if label not in labels:
            continue
        r = solve.solve(puzzle, method=method, prepass=pre, linesolver=linesolver, time_limit=time_limit)
        rows.append({"config": label, "method": method, "prepass": pre, "linesolvers": r.linesolvers,
                     "bad_guesses": r.bad_guesses, "bad_guess_rate": r.bad_guess_rate,
                     "known_fraction": r.known_fraction, "verdict": r.verdict, "time_s": r.time_s})
    return rows


def _bounds(vox) -> tuple:
    import numpy as np
    lo = np.asarray(vox.origin, dtype=float)
    hi = lo + np.asarray(vox.grid.shape, dtype=float) * float(vox.voxel_size)
    return lo, hi


def render_png(path: str, vox, size: int, samples: int) -> list:
    """Render the scene with Cycles (CPU) from a camera framing the grid; returns the objects
    added (camera, light) so the caller can keep them in the .blend and remove them after."""
    from mathutils import Vector
    scene = bpy.context.scene
    lo, hi = _bounds(vox)
    center = Vector(((lo + hi) / 2).tolist())
    radius = max(float(((hi - lo) / 2) @ ((hi - lo) / 2)) ** 0.5, 1e-6)

    cam_data = bpy.data.cameras.new("Batch Camera")
    cam = bpy.data.objects.new("Batch Camera", cam_data)
    scene.collection.objects.link(cam)
    # Blender's default camera direction: the +X, -Y and +Z faces, where clue labels are.
    direction = Vector((7.36, -6.93, 4.96)).normalized()
    distance = radius / math.sin(cam_data.angle / 2) * 1.05
    cam.location = center + direction * distance
    cam.rotation_euler = (-direction).to_track_quat('-Z', 'Y').to_euler()
    cam_data.clip_start = max(distance - radius * 2, distance * 1e-3)
    cam_data.clip_end = distance + radius * 2
    scene.camera = cam

    sun_data = cast(bpy.types.SunLight, bpy.data.lights.new("Batch Sun", 'SUN'))
    sun_data.energy = 3.0
    sun = bpy.data.objects.new("Batch Sun", sun_data)
    sun.rotation_euler = Vector((0.4, -0.6, 1.0)).normalized().to_track_quat('Z', 'Y').to_euler()
    scene.collection.objects.link(sun)

    if scene.world is None:
        scene.world = bpy.data.worlds.new("Batch World")
    scene.world.color = (0.05, 0.05, 0.06)
    if scene.world.node_tree is not None:
        bg: Optional[bpy.types.Node] = scene.world.node_tree.nodes.get("Background")
        if bg is not None:
            cast(bpy.types.NodeSocketColor, bg.inputs["Color"]).default_value = (0.05, 0.05, 0.06, 1.0)

    render = scene.render
    # The 4.2 stubs list only the built-in engines; Cycles is an add-on engine.
    render.engine = 'CYCLES'  # type: ignore[assignment]
    scene.cycles.device = 'CPU'
    cpus = jobs_module().process_cpus()
    if cpus:  # kept to CPUs of its own (a catalogue's worker): Cycles would start a thread per core
        render.threads_mode = 'FIXED'
        render.threads = cpus
    scene.cycles.samples = samples
    scene.cycles.use_denoising = False
    scene.cycles.use_adaptive_sampling = False
    render.resolution_x = render.resolution_y = size
    render.resolution_percentage = 100
    render.image_settings.file_format = 'PNG'
    render.filepath = path
    bpy.ops.render.render(write_still=True)
    if not os.path.isfile(path):
        raise BatchError(f"render finished but wrote no image at {path}")
    return [cam, sun]


def piece_columns(diagnostics: dict) -> dict:
    """The summary's connectivity columns from the voxelizer's diagnostics."""
    stats = diagnostics.get("pieces")
    if not stats:
        return {}
    rep = diagnostics.get("repair") or {}
    before = rep.get("before") or stats
    return {"pieces": stats["pieces"], "pieces_26": stats["pieces_26"],
            "single_cubes": stats["single_cubes"], "largest_piece": stats["largest"],
            "pieces_before": before["pieces"],
            "voxels_added": rep.get("thin_added", 0) + rep.get("bridge_added", 0),
            "voxels_removed": rep.get("small_removed", 0) + rep.get("others_removed", 0)}


def process(addon: Addon, args, name: str, source_obj, resolution: int, row: dict) -> None:
    """Make, solve and write one puzzle; fills ``row`` (raises on failure)."""
    t0 = time.perf_counter()
    scene_api = addon.scene
    out = os.path.abspath(args.out)
    base = os.path.join(out, f"{name}-{resolution}")
    obj, vox = scene_api.make_nonogram(bpy.context, source_obj, resolution=resolution,
                                       samples=args.samples, threshold=args.threshold,
                                       robust=not args.no_robust, hide_source=True,
                                       bridge=args.bridge, thin_parts=args.thin_parts,
                                       min_piece=args.min_piece, keep_largest=args.keep_largest,
                                       colours=args.colours)
    extra: list = []
    try:
        t_make = time.perf_counter() - t0
        puzzle = scene_api.load_stored_puzzle(obj)
        puzzle.name = name
        st = addon.stats.puzzle_stats(puzzle)
        X, Y, Z = st["shape"]
        row.update(size=f"{X}x{Y}x{Z}", x=X, y=Y, z=Z, cells=st["cells"], lines=st["lines"],
                   hidden=st["hidden"], empty=st["empty"]["count"],
                   filled=int(vox.grid.sum()), make_time_s=round(t_make, 4),
                   warnings=" | ".join(vox.warnings + [n for n in [vox.diagnostics.get("size_note")] if n]))
        row.update(piece_columns(vox.diagnostics))
        for k in ("plain", "circle", "square"):
            for f in ("count", "min", "max"):
                row[f"{k}_{f}"] = st[k][f]
        make_info = json.loads(obj.nonogram.make_info)
        row["palette"] = " ".join(make_info.get("palette", []))
        log(f"  {name} @ {resolution}: {X}x{Y}x{Z} grid, {row['filled']} filled"
            + (f" in {row['pieces']} pieces" if row.get("pieces", 1) != 1 else "")
            + f", {st['lines']} lines ({t_make:.2f} s)")
        if vox.diagnostics.get("size_note"):
            log(f"  {name} @ {resolution}: {vox.diagnostics['size_note']}")

        report = addon.solve.solve(puzzle, method="full", time_limit=args.time_limit, grade=True)
        rep = report.to_dict()
        row.update(verdict=report.verdict, difficulty=report.difficulty or "", score=report.score,
                   band=report.band or "",
                   known_fraction=round(report.known_fraction, 6), linesolvers=report.linesolvers,
                   bad_pct=round(100.0 * report.bad_guess_rate, 2), solve_time_s=round(report.time_s, 4))
        log(f"  {name} @ {resolution}: {report.verdict} ({report.difficulty}), "
            f"{report.linesolvers} line solves, {report.time_s:.2f} s")

        seed = []
        if args.solvers:
            seed = seed_rows(addon, puzzle, args.solvers, args.linesolver, args.time_limit)
            by_label = {r["config"]: r for r in seed}
            for key, label in SEED_SOLVERS.items():
                r = by_label.get(label)
                if r is not None:
                    row[f"{key}_linesolvers"] = r["linesolvers"]
                    row[f"{key}_bad_pct"] = round(100.0 * r["bad_guess_rate"], 2)
                    row[f"{key}_verdict"] = r["verdict"]
                    row[f"{key}_time_s"] = round(r["time_s"], 4)
            log(f"  {name} @ {resolution}: seed solvers " + ", ".join(
                f"{r['config']} {r['linesolvers']} ({100 * r['bad_guess_rate']:.0f}%)" for r in seed))

        scene_api.apply_solve_result(obj, report)
        scene_api.store_report(obj, rep)

        puzzle_file = base + ".puzzle.json"
        addon.puzzlefile.save_puzzle(puzzle, puzzle_file)
        row["puzzle_file"] = os.path.relpath(puzzle_file, out)
        colour = colour_puzzle(addon, args, puzzle, base, row) if args.puzzle_colours > 1 else None
        # one design for every kind: the colour puzzle's when there is one (shown on its own
        # object below), else the nonogram's clues are hidden in place
        designed = design_puzzle(addon, args, colour if colour is not None else puzzle, base, row,
                                 obj if colour is None else None) if args.design else None
        if args.export_html:
            export_page(addon, colour if colour is not None else puzzle, base, row, out)

        report_file = base + ".report.json"
        document = {
            "model": name, "input": row["input"], "resolution": resolution,
            "blender": bpy.app.version_string, "numba": not addon.jit.NUMBA_ERROR,
            "options": {"samples": args.samples, "threshold": args.threshold,
                        "robust": not args.no_robust, "time_limit": args.time_limit,
                        "linesolver": args.linesolver, "bridge": args.bridge,
                        "thin_parts": args.thin_parts, "min_piece": args.min_piece,
                        "keep_largest": args.keep_largest, "colours": args.colours,
                        "puzzle_colours": args.puzzle_colours,
                        "slice": {axis: layers for axis, layers in args.slice}},
            "colours": {"palette": make_info.get("palette", []),
                        "notes": make_info.get("colour_notes", []),
                        "info": make_info.get("colour_info", [])},
            "skipped_objects": row.get("skipped_objects", ""),
            "voxels": {"shape": list(vox.grid.shape), "filled": row["filled"],
                       "origin": vox.origin, "voxel_size": vox.voxel_size,
                       "warnings": list(vox.warnings), "diagnostics": vox.diagnostics},
            "stats": st, "solve": rep, "seed_solvers": seed, "puzzle_file": row["puzzle_file"],
            "colour_puzzle": None if colour is None else {
                "file": row["colour_puzzle_file"], "colours": colour.k, "verdict": row["colour_verdict"],
                "clue_colours": [addon.colourpuzzle.colour_text(c) for c in colour.clue_colours],
                "colour_groups": list(colour.colour_groups or [])},
            "design": designed,
        }
        if colour is not None and (args.render or args.blend):
            # the render and the .blend show the colour puzzle (designed, with --design), built
            # where the black-and-white one stood, as Import Puzzle builds it
            shown = colour
            if row.get("design_file"):
                shown = addon.puzzlefile.load_puzzle(os.path.join(out, row["design_file"]))
            colour_obj = scene_api.build_from_puzzle(bpy.context, shown, name=f"{name} colour",
                                                     origin=vox.origin, voxel_size=vox.voxel_size)
            # its cells as the solver leaves them (the designer's view draws them), as Solve does
            solved = addon.solve.solve(shown, time_limit=args.time_limit, grade=True)
            scene_api.apply_solve_result(colour_obj, solved)
            scene_api.store_report(colour_obj, solved.to_dict())
            scene_api.clear_nonogram(obj)
            obj = colour_obj
        for axis, layers in args.slice:
            scene_api.set_slice(obj, axis, layers)
        if args.clue_layer is not None:
            scene_api.set_clue_layer(obj, *args.clue_layer)
        if args.render:
            png = base + ".png"
            t = time.perf_counter()
            scene_api.set_view(obj, "REVEAL" if args.render == "solved" else args.render.upper())
            extra = render_png(png, vox, args.render_size, args.render_samples)
            row["png_file"] = os.path.relpath(png, out)
            log(f"  {name} @ {resolution}: rendered {png} ({time.perf_counter() - t:.1f} s)")
        if args.blend:
            blend = base + ".blend"
            bpy.ops.wm.save_as_mainfile(filepath=blend, copy=True, check_existing=False)
            row["blend_file"] = os.path.relpath(blend, out)
        row["total_time_s"] = round(time.perf_counter() - t0, 4)
        document["time_s"] = {"make": t_make, "total": row["total_time_s"]}
        with open(report_file, "w", encoding="utf-8") as fh:
            json.dump(scene_api.jsonable(document), fh, indent=1)
        row["report_file"] = os.path.relpath(report_file, out)
    finally:
        if extra:
            bpy.data.batch_remove(extra)
        scene_api.clear_nonogram(obj)


def design_puzzle(addon: Addon, args, puzzle, base: str, row: dict, obj=None) -> Optional[dict]:
    """``--design``: hide clues of the puzzle (plain, or the ``--puzzle-colours`` colour puzzle),
    write ``<model>-<res>.designed.json`` and fill the row's design columns; returns the design
    summary for the report (None when it failed). With ``obj`` (its nonogram) the clues are hidden
    there too, so a render or .blend shows the designed puzzle. The design compiles (or loads) its
    kernels before its time limit starts."""
    band = None if args.design == "any" else args.design
    row["design_target"] = args.design
    try:
        r = addon.design.design(puzzle, band=band, method=args.design_method, logic=args.design_logic,
                                time_limit=args.time_limit)
    except addon.design.DesignError as e:
        row["design_message"] = str(e)
        log(f"  design: {e}")
        return None
    path = base + ".designed.json"
    addon.puzzlefile.save_puzzle(r.puzzle, path)
    if obj is not None:
        addon.scene.set_hidden(obj, r.hidden)
        addon.scene.store_design(obj, {k: v for k, v in r.to_dict().items() if k != "stats"})
    row.update(design_hidden=r.hidden_count, design_hidden_pct=round(100.0 * r.hidden_fraction, 2),
               design_score=r.score, design_band=r.band or "", design_in_target=r.in_target,
               design_locally_minimal=r.locally_minimal, design_time_s=round(r.time_s, 4),
               design_message=r.message, design_file=os.path.relpath(path, os.path.abspath(args.out)))
    log(f"  design{' (colour)' if r.is_colour else ''}: {r.hidden_count} of {r.n_lines} clues hidden "
        f"({100 * r.hidden_fraction:.1f}%), score {r.score} ({r.band}), {r.time_s:.2f} s"
        + (f"; {r.message}" if r.message else ""))
    return r.to_dict()


def colour_puzzle(addon: Addon, args, puzzle, base: str, row: dict):
    """``--puzzle-colours K``: the full-clue colour puzzle whose colours group the reveal
    palette's entries, written to ``<model>-<res>.colour.json`` and solved (its verdict in the
    row). K colours, or fewer where the model shows fewer, or where K would make two of them
    nearly the same (the grouping's note goes to the row's warnings and the log); a model that
    shows one colour makes a black-and-white puzzle (None), so a catalogue can mix coloured and
    uncoloured models."""
    k = args.puzzle_colours
    palette = getattr(puzzle, "palette", None)
    n = 0 if palette is None else len(palette)
    notes = []
    if n < k:
        notes.append(f"--puzzle-colours {k}: the model's reveal has {n} colour{'' if n == 1 else 's'} "
                     f"(--colours {args.colours} reduced to what the model shows)")
    if n < 2:
        notes[-1] += ": a black-and-white puzzle"
        _warn(row, notes)
        row["puzzle_colours"] = 1
        return None
    try:
        cp = addon.colourgroups.colour_puzzle_from_reveal(puzzle, min(k, n), name=puzzle.name, fewer=True)
    except ValueError as e:
        raise BatchError(f"--puzzle-colours {k}: {e}") from None
    if cp.meta.get("grouping"):
        notes.append(f"puzzle colours: {cp.meta['grouping']['note']}")
    _warn(row, notes)
    row["puzzle_colours"] = cp.k
    path = base + ".colour.json"
    addon.puzzlefile.save_puzzle(cp, path)
    r = addon.solve.solve(cp, time_limit=args.time_limit, grade=True)
    row.update(colour_puzzle_file=os.path.relpath(path, os.path.abspath(args.out)), colour_verdict=r.verdict)
    log(f"  colour puzzle: {cp.k} colours, {r.verdict} ({r.difficulty}), {r.time_s:.2f} s: {path}")
    return cp


def _warn(row: dict, notes: list) -> None:
    for note in notes:
        row["warnings"] = " | ".join(w for w in (row.get("warnings"), note) if w)
        log(f"  {note}")


def export_page(addon: Addon, puzzle, base: str, row: dict, out: str) -> None:
    """``--export-html``: ``<model>-<res>.html``, the page of the designed puzzle when there is
    one (else of the full puzzle). A puzzle the player cannot take is a warning, not a failure."""
    if row.get("design_file"):
        puzzle = addon.puzzlefile.load_puzzle(os.path.join(out, row["design_file"]))
        puzzle.name = puzzle.name or row["model"]
    path = base + ".html"
    try:
        addon.webpage.write_page(puzzle, path)
    except addon.webpage.WebPageError as e:
        _warn(row, [f"no web page: {e}"])
        return
    row["html_file"] = os.path.relpath(path, out)
    log(f"  web page: {path}")


def write_catalogue(addon: Addon, out: str, rows: list, render: Optional[str] = None) -> Optional[str]:
    """``index.html``: the batch's pages with size, clues hidden, band and colours, without
    spoilers (engine/play/catalogue.py): a ``--render player`` PNG is the card's picture, a
    ``solved`` or ``designer`` one (they show the answer) only once the puzzle is solved in the
    browser; a model that failed, or whose page could not be made, is listed with the reason."""
    entries = []
    for r in rows:
        name = f"{r['model']} @ {r['resolution']}"
        if r.get("status") != "ok" or not r.get("html_file"):
            why = r.get("error") if r.get("status") != "ok" else next(
                (w for w in str(r.get("warnings") or "").split(" | ") if w.startswith("no web page")), "no web page")
            entries.append({"name": name, "error": why or "failed"})
            continue
        designed = bool(r.get("design_file"))
        png = r.get("png_file")
        entries.append(addon.catalogue.entry_for_page(
            out, r["html_file"], name=name, size=r.get("size", ""),
            hidden=r.get("design_hidden") if designed else r.get("hidden"), lines=r.get("lines"),
            band=(r.get("design_band") if designed else r.get("band")) or "",
            thumbnail=png if render == "player" else None, reveal=png if render in ("solved", "designer") else None))
    path = os.path.join(out, "index.html")
    with open(path, "w", encoding="utf-8") as fh:
        fh.write(addon.catalogue.catalogue_html(entries))
    return path


# ---------------------------------------------------------------------------------------------
# the batch


def write_summary(addon: Optional[Addon], out: str, rows: list) -> str:
    path = os.path.join(out, "summary.csv")
    with open(path, "w", newline="", encoding="utf-8") as f:
        w = csv.DictWriter(f, fieldnames=CSV_COLUMNS, extrasaction="ignore")
        w.writeheader()
        for r in rows:
            w.writerow({k: ("" if r.get(k) is None else r.get(k)) for k in CSV_COLUMNS})
    with open(os.path.join(out, "summary.json"), "w", encoding="utf-8") as fj:
        # Without the add-on the rows hold only the set-up error (plain strings).
        json.dump(addon.scene.jsonable(rows) if addon is not None else rows, fj, indent=1)
    return path


def _import_bpy() -> None:
    """bpy for a run that needs it, in a process that started as a coordinator without it."""
    global bpy
    import bpy


def run(args: argparse.Namespace) -> int:
    if args.workers or args.dask or args.scheduler or args.resume or args.pool:
        return run_jobs(args)
    _import_bpy()
    out = os.path.abspath(args.out)
    os.makedirs(out, exist_ok=True)
    models = expand_inputs(args.input)
    if args.job_name:  # one job of a catalogue run: the name the whole catalogue gave the model
        models = [(args.job_name, src) for _, src in models]
    rows: list = []
    failed = 0
    t_all = time.perf_counter()
    try:
        addon: Optional[Addon] = Addon(addon_package())
        setup_error = ""
    except Exception as e:
        addon, setup_error = None, f"cannot load the add-on: {type(e).__name__}: {e}"
        log(setup_error)
    if addon is not None and args.export_html:
        try:
            addon.webpage.template_text()
        except addon.webpage.WebPageError as e:
            sys.stderr.write(f"--export-html: {e}\n")
            return 2
    if addon is not None and addon.jit.NUMBA_ERROR:
        log(f"numba unavailable, running the engine in plain Python: {addon.jit.NUMBA_ERROR}")
    log(f"{len(models)} model(s) x {len(args.resolution)} resolution(s) -> {out}")
    if addon is not None:
        clear_scene()
    for i, (name, src) in enumerate(models, 1):
        log(f"[{i}/{len(models)}] {name} ({src})")
        base_row = {"model": name, "input": src}
        source = None
        error = setup_error
        if addon is not None:
            try:
                source, skipped = load_model(name, src)
                if skipped:
                    base_row["skipped_objects"] = describe_skipped(skipped)
                    log(f"  left out of {name}: {base_row['skipped_objects']}")
                # Only the nonogram should show in renders; make_nonogram hides it in the viewport.
                source.hide_render = True
            except Exception as e:
                error = str(e) if isinstance(e, BatchError) else f"{type(e).__name__}: {e}"
        for res in args.resolution:
            row = dict(base_row, resolution=res)
            bug = ""
            if source is None:
                row.update(status="error", error=error)
            else:
                try:
                    assert addon is not None
                    process(addon, args, name, source, res, row)
                    row["status"] = "ok"
                except Exception as e:
                    row.update(status="error", error=f"{type(e).__name__}: {e}")
                    # the model's own problems say so in the FAILED line; anything else is a
                    # bug, whose traceback follows that line
                    if not isinstance(e, (BatchError, addon.scene.NonogramError if addon else BatchError)):
                        bug = traceback.format_exc()
            if row["status"] != "ok":
                failed += 1
                log(f"  {name} @ {res}: FAILED: {row['error']}")
                if bug:
                    log("  (not the model's fault: a bug in the add-on; its traceback, for a report:)\n" + bug)
            rows.append(row)
        if source is not None:
            mesh = source.data
            bpy.data.objects.remove(source)
            if mesh.users == 0:
                bpy.data.meshes.remove(mesh)
        write_summary(addon, out, rows)  # after every model, so a crash still leaves a summary
        if args.export_html and addon is not None:
            write_catalogue(addon, out, rows, args.render)
    summary = write_summary(addon, out, rows)
    if args.export_html and addon is not None:
        log(f"catalogue: {write_catalogue(addon, out, rows, args.render)}")
    ok = len(rows) - failed
    log(f"done in {time.perf_counter() - t_all:.1f} s: {ok} ok, {failed} failed; summary: {summary}")
    log(f"outputs in {out}")
    return 1 if failed else 0


def engine_module(sub: str) -> ModuleType:
    """An engine module (``play.webpage``, ``play.catalogue``) for a catalogue's coordinator:
    without bpy or the add-on (the engine never imports Blender), so the workers start a second
    sooner."""
    package = globals().get("__package__")
    if package:
        return importlib.import_module(f"{package}.engine.{sub}")
    here = os.path.join(os.path.dirname(os.path.abspath(__file__)), "engine")
    name = _module_from_file("nonogram3d_batch_engine", os.path.join(here, "__init__.py"), package_dir=here).__name__
    return importlib.import_module(f"{name}.{sub}")


def jobs_module() -> ModuleType:
    """batchjobs.py beside this file (the package's, or loaded from the folder as a script)."""
    package = globals().get("__package__")
    if package:
        return importlib.import_module(f"{package}.batchjobs")
    return _module_from_file("nonogram3d_batchjobs", os.path.join(os.path.dirname(os.path.abspath(__file__)),
                                                                    "batchjobs.py"))


def _module_from_file(name: str, path: str, package_dir: Optional[str] = None) -> ModuleType:
    """The module ``name`` loaded from ``path`` once per process (a package when ``package_dir``
    is its folder), registered in ``sys.modules``: Dask's pickling looks a module up by name."""
    if name not in sys.modules:
        spec = importlib.util.spec_from_file_location(
            name, path, submodule_search_locations=[package_dir] if package_dir else None)
        if spec is None or spec.loader is None:
            raise BatchError(f"cannot import {path}")
        mod = importlib.util.module_from_spec(spec)
        sys.modules[name] = mod
        spec.loader.exec_module(mod)
    return sys.modules[name]


# Options the catalogue run handles itself; every other option goes to each job as given.
_CATALOGUE_OPTIONS = {"help", "input", "resolution", "out", "workers", "dask", "pool", "scheduler",
                      "resume", "job_name", "no_pin"}


def worker_options(args: argparse.Namespace) -> list:
    """The command-line options (besides input, resolution, out) that each job's batch gets: the
    arguments as given, less the catalogue's own options and their values (the parser tells which
    token is which option, also abbreviated or as ``--opt=value``)."""
    opts: list = []
    dropping = False
    for token in args.argv:
        found = args.parser._parse_optional(token) if token.startswith("-") else None
        if isinstance(found, list):  # Python 3.12+: the candidates
            found = found[0] if len(found) == 1 else None
        action = found[0] if found else None
        if action is None:  # a value: it goes with the option before it
            if not dropping:
                opts.append(token)
            continue
        dropping = action.dest in _CATALOGUE_OPTIONS
        if not dropping:
            opts.append(token)
    return opts


def run_jobs(args: argparse.Namespace) -> int:
    """The catalogue in worker processes or on Dask (batchjobs.py): one job per model and size."""
    jobs_mod = jobs_module()
    out = os.path.abspath(args.out)
    os.makedirs(out, exist_ok=True)
    models = expand_inputs(args.input)
    # Whether it is there, not importing it (half a second): the batch processes start first.
    if (args.dask or args.scheduler) and not jobs_mod.dask_available():
        sys.stderr.write(f"{jobs_mod.DASK_MISSING}\n")
        return 2
    # --workers N: a Dask LocalCluster (the embedded default) when dask is installed, else the own
    # pool. --resume alone (a render farm's one-job task) and --pool: the own pool.
    use_dask = bool(args.dask or args.scheduler)
    if args.workers and not (use_dask or args.pool):
        use_dask = jobs_mod.dask_available()
        if not use_dask:
            log("Dask is not installed (pip install 'dask[distributed]'): running the jobs in the "
                "batch's own worker processes")
    addon: Optional[Addon] = None
    if args.export_html:  # the coordinator writes index.html over all jobs' pages
        webpage = engine_module("play.webpage")
        try:
            webpage.template_text()
        except webpage.WebPageError as e:
            sys.stderr.write(f"--export-html: {e}\n")
            return 2
        # write_catalogue needs no more
        addon = cast(Addon, SimpleNamespace(webpage=webpage, catalogue=engine_module("play.catalogue")))
    batch_py = os.path.abspath(__file__)
    blender = sys.modules.get("bpy")  # not imported by a coordinator in a plain Python
    binary = blender.app.binary_path if blender is not None else ""  # '': workers are this Python
    launcher = [binary, "-b", "--python", batch_py] if binary else None
    jobs = jobs_mod.make_jobs(models, args.resolution, args.design)
    workers = args.workers or 1
    log(f"{len(models)} model(s) x {len(args.resolution)} resolution(s) = {len(jobs)} job(s) -> {out}")
    t_all = time.perf_counter()

    def on_rows(rows: list) -> None:  # after every job, so a crash still leaves a summary
        write_summary(None, out, rows)
        if addon is not None:
            write_catalogue(addon, out, rows, args.render)

    try:
        rows = jobs_mod.run_catalogue(jobs, out=out, launcher=launcher, batch_py=batch_py,
                                      options=worker_options(args), workers=workers,
                                      use_dask=use_dask, scheduler=args.scheduler,
                                      resume=args.resume, log=log, on_rows=on_rows,
                                      pin_cpus=not args.no_pin)
    except KeyboardInterrupt:
        log("interrupted: the finished jobs are in the summary; --resume runs the rest")
        return 130
    on_rows(rows)
    summary = os.path.join(out, "summary.csv")
    if addon is not None:
        log(f"catalogue: {os.path.join(out, 'index.html')}")
    failed = sum(1 for r in rows if r.get("status") != "ok")
    log(f"done in {time.perf_counter() - t_all:.1f} s: {len(rows) - failed} ok, {failed} failed; "
        f"summary: {summary}")
    log(f"outputs in {out}")
    return 1 if failed else 0


def _preload() -> None:
    """A worker's start: the add-on and the kernels every job uses (voxelizer, solver) load now,
    before the first job arrives (a Dask worker: while the cluster forms). The kernels of the
    options (design, colours, seed solvers) load with the first job that needs them."""
    try:
        package = addon_package()
        Addon(package)
        engine_access = importlib.import_module(f"{package.__name__}.jobs.engine_access")
        engine_access.kernels_warmup.ensure("make", "solve")
    except Exception:  # the first job reports it (a broken set-up is each job's error row)
        traceback.print_exc()


def serve() -> int:
    """A catalogue's worker (``batch.py -- --serve``): runs job after job in this one process, so
    Python, bpy, the add-on and the compiled kernels load once, not once per job.

    First the worker loads them (``_preload``) and says ``{"ready": <time.time()>}`` on stdout.
    Then each stdin line is ``{"argv": [...], "log": path}``; the job's output (also Blender's own,
    at the file-descriptor level) goes to that log, and one line ``{"rc": N}`` answers on stdout.
    End of stdin ends the worker.
    """
    if jobs_module().pin_this_process():  # before bpy makes its threads: they keep to the same CPUs
        # what the system reports, not what was asked: the worker's log shows where it runs
        sys.stderr.write(f"[nonogram worker] kept to CPU(s) "
                         f"{','.join(str(c) for c in sorted(os.sched_getaffinity(0)))}\n")
    channel = os.fdopen(os.dup(1), "w", buffering=1, encoding="utf-8")
    saved = os.dup(1), os.dup(2)
    os.dup2(saved[1], 1)  # what the preload prints goes to the worker's log (its stderr)
    try:
        _preload()
    finally:
        sys.stdout.flush()
        os.dup2(saved[0], 1)
    channel.write(json.dumps({"ready": time.time()}) + "\n")
    for line in sys.stdin:
        if not line.strip():
            continue
        request = json.loads(line)
        sys.stdout.flush()
        sys.stderr.flush()
        with open(request["log"], "a", encoding="utf-8") as log_file:
            os.dup2(log_file.fileno(), 1)
            os.dup2(log_file.fileno(), 2)
            try:
                rc = main(request["argv"])
            except Exception:  # a bug, not a bad model: the coordinator runs the job again
                traceback.print_exc()
                rc = 3
            finally:
                sys.stdout.flush()
                sys.stderr.flush()
                os.dup2(saved[0], 1)
                os.dup2(saved[1], 2)
        try:
            channel.write(json.dumps({"rc": rc}) + "\n")
        except BrokenPipeError:  # the one who gave the job died (a Dask worker killed): it runs elsewhere
            break
    try:
        channel.close()
    except BrokenPipeError:
        pass
    # Every job's files are written and closed: skip unloading Blender and numba (about a second
    # that the coordinator would wait for at the end of the run).
    sys.stdout.flush()
    sys.stderr.flush()
    os._exit(0)


def main(argv: Optional[list] = None, prog: str = "batch.py") -> int:
    if script_args(argv) == ["--serve"]:
        return serve()
    try:
        args = parse_args(script_args(argv), prog=prog)
    except SystemExit as e:  # argparse: --help (0) or a usage error (2)
        return int(e.code or 0) if not isinstance(e.code, str) else 2
    return run(args)


def _exit_now(status: int) -> None:
    import logging
    logging.shutdown()
    sys.stdout.flush()
    sys.stderr.flush()
    os._exit(status)


if __name__ == "__main__":
    status = main()
    if sys.modules.get("distributed") is not None and "bpy" not in sys.modules:
        # A catalogue's coordinator that ran Dask: the cluster is closed and every file written,
        # and Python's exit would wait 0.1-0.3 s for Dask's threads and exit hooks. The exit hook
        # registered last runs first: it ends the process (with this status) before them.
        import atexit
        atexit.register(_exit_now, status)
    sys.exit(status)
