"""The headless batch (batch.py) and the `blender -c nonogram` command, with the real bpy module.

Each run is a subprocess: the batch clears the scene and registers the add-on, and a fresh
Blender session per run is what `blender -b --python batch.py` gives too.
"""
from __future__ import annotations

import csv
import importlib.util
import json
import os
import struct
import subprocess
import sys
from pathlib import Path

import numpy as np
import pytest

from conftest import shared_path

pytest.importorskip("bpy", reason="needs the bpy module (pip install bpy==5.0.1, Python 3.11)")
pytestmark = pytest.mark.blender

ROOT = Path(__file__).resolve().parent.parent
PY = sys.executable


def load_batch_module():
    spec = importlib.util.spec_from_file_location("nonogram_batch_under_test", ROOT / "batch.py")
    mod = importlib.util.module_from_spec(spec)
    spec.loader.exec_module(mod)
    return mod


def run(args, timeout=300) -> subprocess.CompletedProcess:
    proc = subprocess.run([PY, *args], capture_output=True, text=True, timeout=timeout, cwd=ROOT)
    print(proc.stdout[-4000:])
    print(proc.stderr[-4000:], file=sys.stderr)
    return proc


def read_summary(out: Path) -> tuple:
    with open(out / "summary.csv", newline="", encoding="utf-8") as f:
        reader = csv.DictReader(f)
        return reader.fieldnames, list(reader)


@pytest.fixture(scope="module")
def batch_run(tmp_path_factory):
    """trex + jeep at two resolutions, plus a missing and a corrupt file, with the seed solvers,
    designing each puzzle (clues hidden) as well."""
    trex = shared_path("models", "trex.glb")
    jeep = shared_path("models", "jeep.obj")
    tmp = tmp_path_factory.mktemp("batch")
    corrupt = tmp / "broken.glb"
    corrupt.write_bytes(b"glTF\x02\x00\x00\x00 this is not a model")
    out = tmp / "out"
    proc = run(["batch.py", "--", "--input", str(trex), str(tmp / "missing.obj"), str(jeep), str(corrupt),
                "--resolution", "8", "12", "--out", str(out), "--solvers", "seed", "--design"])
    return proc, out


def test_failures_are_reported_and_give_a_nonzero_exit(batch_run):
    proc, out = batch_run
    assert proc.returncode == 1, "a failed model must make the batch fail"
    _, rows = read_summary(out)
    assert [(r["model"], r["resolution"]) for r in rows] == [
        (m, r) for m in ("trex", "missing", "jeep", "broken") for r in ("8", "12")]
    status = {(r["model"], r["resolution"]): r for r in rows}
    for res in ("8", "12"):
        assert status[("missing", res)]["status"] == "error"
        assert "no such file" in status[("missing", res)]["error"]
        assert status[("broken", res)]["status"] == "error"
        assert "import failed" in status[("broken", res)]["error"]
        # The models after a failure were still processed.
        assert status[("jeep", res)]["status"] == "ok", status[("jeep", res)]["error"]
        assert status[("trex", res)]["status"] == "ok", status[("trex", res)]["error"]
    assert "[3/4] jeep" in proc.stdout and "FAILED" in proc.stdout


def test_the_gltf_bone_shape_is_not_part_of_the_model(batch_run):
    """Blender's glTF importer makes a hidden 'Icosphere' as the bones' display shape: it must
    not become a stray cube under the T-Rex (it did, and stretched the grid)."""
    _, out = batch_run
    _, rows = read_summary(out)
    for r in rows:
        if r["model"] == "trex":
            assert r["skipped_objects"] == "Icosphere (an armature's bone shape)", r
            assert int(r["pieces"]) >= 1 and int(r["pieces_26"]) <= int(r["pieces"])
        elif r["model"] == "jeep":
            assert r["skipped_objects"] == ""


def test_summary_has_the_seed_tables_columns(batch_run):
    batch = load_batch_module()
    _, out = batch_run
    header, rows = read_summary(out)
    assert header == list(batch.CSV_COLUMNS)
    for col in ("size", "cells", "lines", "empty", "plain_count", "plain_min", "plain_max",
                "circle_count", "square_count", "verdict", "difficulty", "solve_time_s"):
        assert col in header
    for solver in ("brute", "hier", "hier_pre", "heur", "heur_pre"):
        assert f"{solver}_linesolvers" in header and f"{solver}_bad_pct" in header
    for r in rows:
        if r["status"] != "ok":
            continue
        X, Y, Z = int(r["x"]), int(r["y"]), int(r["z"])
        assert r["size"] == f"{X}x{Y}x{Z}"
        assert int(r["cells"]) == X * Y * Z
        assert int(r["lines"]) == X * Y + X * Z + Y * Z
        counts = [int(r["empty"])] + [int(r[f"{k}_count"]) for k in ("plain", "circle", "square")]
        assert sum(counts) == int(r["lines"])
        assert r["verdict"] in ("unique", "multiple", "none", "unknown")
        for solver in ("brute", "hier", "hier_pre", "heur", "heur_pre"):
            assert int(r[f"{solver}_linesolvers"]) >= 0
            assert 0.0 <= float(r[f"{solver}_bad_pct"]) <= 100.0
            assert float(r[f"{solver}_time_s"]) >= 0.0
            assert r[f"{solver}_verdict"] in ("unique", "none", "unknown")


def test_puzzle_and_report_files(batch_run):
    from engine.files.puzzlefile import load_puzzle
    from engine.solve.driver import solve
    _, out = batch_run
    _, rows = read_summary(out)
    ok = [r for r in rows if r["status"] == "ok"]
    assert len(ok) == 4
    for r in ok:
        puzzle = load_puzzle(out / r["puzzle_file"])
        assert puzzle.is_3d
        assert list(puzzle.shape) == [int(r["x"]), int(r["y"]), int(r["z"])]
        assert int(np.count_nonzero(puzzle.solution)) == int(r["filled"]) > 0
        # The file's clues are the ones the batch solved: same verdict from a fresh solve.
        assert solve(puzzle).verdict == r["verdict"]

        report = json.loads((out / r["report_file"]).read_text(encoding="utf-8"))
        assert report["model"] == r["model"] and report["resolution"] == int(r["resolution"])
        for key in ("verdict", "difficulty", "linesolvers", "bad_guess_rate", "known_fraction", "time_s"):
            assert key in report["solve"]
        assert report["solve"]["verdict"] == r["verdict"]
        assert [row["config"] for row in report["seed_solvers"]] == [
            "Brute", "Hier", "Hier+Pre", "Heur", "Heur+Pre"]
        assert report["stats"]["cells"] == int(r["cells"])
        assert report["voxels"]["filled"] == int(r["filled"])
    # No render or .blend unless asked.
    assert not list(out.glob("*.png")) and not list(out.glob("*.blend"))


def test_designed_puzzles(batch_run):
    """--design: a designed puzzle per model and resolution, its hidden share, score and band."""
    from engine.files.puzzlefile import load_puzzle
    from engine.solve.driver import solve
    _, out = batch_run
    _, rows = read_summary(out)
    ok = [r for r in rows if r["status"] == "ok"]
    for r in ok:
        assert r["score"] and r["band"] in ("easy", "medium", "hard", "expert")
        assert r["design_target"] == "any" and r["design_locally_minimal"] == "True"
        designed = load_puzzle(out / r["design_file"])
        hidden = int(np.count_nonzero(designed.clue_kind == 0))
        assert hidden == int(r["design_hidden"]) > 0
        assert abs(float(r["design_hidden_pct"]) - 100.0 * hidden / int(r["lines"])) < 0.01
        check = solve(designed, grade=True)
        assert check.verdict == "unique" and check.difficulty == "line"
        assert check.score == float(r["design_score"]) and check.band == r["design_band"]
        assert designed.meta["design"]["hidden_count"] == hidden
        report = json.loads((out / r["report_file"]).read_text(encoding="utf-8"))
        assert report["design"]["hidden_count"] == hidden


# A fresh Python with the bpy module: this checkout imported as the package nonogram3d, registered.
LOAD_ADDON = f"""
import importlib.util, sys
import bpy
spec = importlib.util.spec_from_file_location("nonogram3d", {str(ROOT / '__init__.py')!r},
                                              submodule_search_locations=[{str(ROOT)!r}])
pkg = importlib.util.module_from_spec(spec)
sys.modules["nonogram3d"] = pkg
spec.loader.exec_module(pkg)
pkg.register()
"""


def _png_size(path: Path) -> tuple:
    head = path.read_bytes()[:24]
    assert head[:8] == b"\x89PNG\r\n\x1a\n"
    return struct.unpack(">II", head[16:24])


def test_cli_command_with_render_and_blend(tmp_path):
    """`blender -c nonogram ...`: the add-on registers the command; its handler runs the batch.

    There is no blender binary here, so the handler registered by cli_command is called the way
    Blender would call it, with the arguments after `-c nonogram`."""
    out = tmp_path / "out"
    script = LOAD_ADDON + f"""
cli = sys.modules["nonogram3d.cli_command"]
assert cli._handle is not None, "register() did not register the command"
code = cli.execute(["--input", "suzanne", "--resolution", "6", "--out", {str(out)!r},
                    "--render", "player", "--render-size", "48", "--render-samples", "2", "--blend"])
# The saved .blend holds the nonogram with its puzzle and solve report, and a camera.
import glob, json
bpy.ops.wm.open_mainfile(filepath=glob.glob({str(out)!r} + "/*.blend")[0])
scene_api = sys.modules["nonogram3d.operators.scene"]
nonograms = [o for o in bpy.data.objects if o.nonogram.is_nonogram]
assert len(nonograms) == 1, [o.name for o in bpy.data.objects]
report = scene_api.load_stored_report(nonograms[0])
print("BLEND " + json.dumps({{"verdict": report["verdict"],
                              "cells": scene_api.load_stored_puzzle(nonograms[0]).n_cells,
                              "camera": bpy.context.scene.camera is not None,
                              "view": scene_api.current_view(nonograms[0])}}))
pkg.unregister()
assert cli._handle is None
sys.exit(code)
"""
    proc = run(["-c", script])
    assert proc.returncode == 0
    _, rows = read_summary(out)
    assert len(rows) == 1 and rows[0]["status"] == "ok", rows
    assert _png_size(out / rows[0]["png_file"]) == (48, 48)
    blend = out / rows[0]["blend_file"]
    assert blend.read_bytes()[:7] == b"BLENDER" or blend.read_bytes()[:2] == b"\x28\xb5"  # zstd
    assert "outputs in" in proc.stdout
    saved = json.loads(next(ln for ln in proc.stdout.splitlines() if ln.startswith("BLEND "))[6:])
    # --render player renders the player's view (and the .blend keeps it).
    assert saved == {"verdict": rows[0]["verdict"], "cells": int(rows[0]["cells"]), "camera": True,
                     "view": "PLAYER"}


def test_arguments_and_inputs(tmp_path):
    batch = load_batch_module()
    a = batch.parse_args(["--input", "cube", "--solvers", "hier+pre", "Brute", "--resolution", "4", "5"])
    assert a.solvers == ["hier_pre", "brute"] and a.resolution == [4, 5]
    assert batch.parse_args(["-i", "cube", "--solvers", "seed"]).solvers == list(batch.SEED_SOLVERS)
    with pytest.raises(SystemExit):
        batch.parse_args(["--input", "cube", "--solvers", "magic"])
    with pytest.raises(SystemExit):
        batch.parse_args(["--input", "cube", "--resolution", "0"])
    assert batch.main(["--input", "cube", "--resolution", "-3"]) == 2
    assert batch.parse_args(["-i", "cube"]).render is None
    assert batch.parse_args(["-i", "cube", "--render"]).render == "designer"
    assert batch.parse_args(["-i", "cube", "--render", "player"]).render == "player"
    with pytest.raises(SystemExit):
        batch.parse_args(["-i", "cube", "--render", "both"])
    assert batch.parse_args(["-i", "cube", "--slice", "z=3", "--slice", "X=-2"]).slice == [("Z", 3), ("X", -2)]
    for bad in ("w=1", "z", "z=two", "=3"):
        with pytest.raises(SystemExit):
            batch.parse_args(["-i", "cube", "--slice", bad])

    (tmp_path / "a.obj").write_text("")
    (tmp_path / "b.STL").write_text("")
    (tmp_path / "notes.txt").write_text("")
    items = batch.expand_inputs([str(tmp_path), "suzanne", str(tmp_path / "a.obj")])
    assert [n for n, _ in items] == ["a_obj", "b", "suzanne", "a_obj_2"]
    assert batch.script_args(None) is not None


EXPORT_SCRIPT = """
import sys, bpy
out = sys.argv[-1]
cube = bpy.data.objects["Cube"]
for ob in bpy.context.view_layer.objects:
    ob.select_set(ob == cube)
bpy.context.view_layer.objects.active = cube
bpy.ops.wm.stl_export(filepath=out + "/box.stl", export_selected_objects=True)
bpy.ops.wm.ply_export(filepath=out + "/box.ply", export_selected_objects=True)
bpy.ops.export_scene.fbx(filepath=out + "/box.fbx", use_selection=True)
bpy.ops.export_scene.gltf(filepath=out + "/box.gltf", export_format="GLTF_SEPARATE", use_selection=True)
# bpy 4.2's module crashes at exit once Blender's own exporters ran (their classes outlive the
# script: a Blender bug, gone in 4.5); the files are written, so end here
if bpy.app.version < (4, 5, 0):
    import os
    sys.stdout.flush()
    os._exit(0)
"""


def test_every_importer(tmp_path):
    """STL, PLY, FBX and glTF (OBJ and GLB are above) through the importers of this Blender."""
    models = tmp_path / "models"
    models.mkdir()
    assert run(["-c", EXPORT_SCRIPT, str(models)]).returncode == 0
    out = tmp_path / "out"
    proc = run(["batch.py", "--", "--input", str(models), "cube", "--resolution", "4", "--out", str(out)])
    assert proc.returncode == 0
    _, rows = read_summary(out)
    assert sorted(r["model"] for r in rows) == ["box_fbx", "box_gltf", "box_ply", "box_stl", "cube"]
    for r in rows:
        # The default cube and the built-in cube are the same 2x2x2 box: a full 4x4x4 grid.
        assert (r["status"], r["size"], r["filled"]) == ("ok", "4x4x4", "64"), r


def test_script_mode_as_blender_runs_it(tmp_path):
    """`blender -b --python batch.py -- ARGS`: Blender executes the file as __main__ in a fresh
    namespace that has __file__ but no __package__, with its own options before `--`."""
    out = tmp_path / "out"
    script = f"""
import sys
import bpy
path = {str(ROOT / 'batch.py')!r}
sys.argv = ["blender", "-b", "--python", path, "--", "--input", "cube", "--resolution", "3",
            "--out", {str(out)!r}]
namespace = {{"__name__": "__main__", "__file__": path, "__builtins__": __builtins__}}
exec(compile(open(path, encoding="utf-8").read(), path, "exec"), namespace)
"""
    proc = run(["-c", script])
    assert proc.returncode == 0  # batch.py ends with sys.exit(main())
    _, rows = read_summary(out)
    assert [(r["model"], r["status"], r["size"]) for r in rows] == [("cube", "ok", "3x3x3")]


HELPERS_SCRIPT = """
import sys, bpy
sys.path.insert(0, sys.argv[-2])
import procedural as P
bpy.ops.wm.read_factory_settings(use_empty=True)

def add(name, verts, tris):
    me = bpy.data.meshes.new(name)
    me.from_pydata([tuple(map(float, v)) for v in verts], [], [tuple(map(int, t)) for t in tris])
    ob = bpy.data.objects.new(name, me)
    bpy.context.scene.collection.objects.link(ob)
    return ob

add("Spider", *P.spider())
helper = add("Helper", *P.box([0.0, 0.0, -6.0], [0.5, 0.5, 0.5]))  # far below: would stretch the grid
helper.hide_viewport = True
add("UCX_Spider", *P.box([0.0, 0.0, 0.5], [2.0, 2.0, 0.6]))
bpy.ops.export_scene.fbx(filepath=sys.argv[-1], use_visible=False, axis_forward="Y", axis_up="Z")
"""


def test_hidden_helpers_are_left_out_and_pieces_reported(tmp_path):
    """A file whose model comes with a hidden helper and a collision mesh: only the visible model
    is voxelized, the others are listed; --bridge joins the spider's legs and the summary says
    how many pieces there were before.  (FBX keeps hidden objects hidden; the other rules of
    batch.model_objects are tested in test_blender_pieces.py.)"""
    fbx = tmp_path / "spider.fbx"
    assert run(["-c", HELPERS_SCRIPT, str(ROOT / "tests"), str(fbx)]).returncode == 0
    out = tmp_path / "out"
    proc = run(["batch.py", "--", "--input", str(fbx), "--resolution", "24", "--out", str(out),
                "--bridge"])
    assert proc.returncode == 0
    header, rows = read_summary(out)
    (row,) = rows
    assert row["status"] == "ok", row["error"]
    skipped = row["skipped_objects"]
    assert "Helper (hidden)" in skipped and "UCX_Spider (a collision mesh)" in skipped
    assert skipped == "Helper (hidden); UCX_Spider (a collision mesh)"
    # The grid is the spider's alone (the helper 6 units below would have stretched it).
    import procedural
    from engine.voxel.voxelize import voxelize
    ref = voxelize(*procedural.spider(), resolution=24, bridge=True)
    assert row["size"] == "x".join(str(n) for n in ref.grid.shape)
    assert int(row["filled"]) == int(ref.grid.sum())
    assert int(row["pieces"]) == 1 < int(row["pieces_before"])
    assert int(row["voxels_added"]) == ref.diagnostics["repair"]["bridge_added"] > 0
    assert row["voxels_removed"] == "0" and row["single_cubes"] == "0"
    report = json.loads((out / row["report_file"]).read_text(encoding="utf-8"))
    assert report["options"]["bridge"] is True and report["skipped_objects"] == skipped
    assert report["voxels"]["diagnostics"]["pieces"]["pieces"] == 1


def test_design_with_render_shows_the_designed_puzzle(tmp_path):
    """--design with --render player and --blend: the nonogram in the .blend (and so in the PNG)
    hides exactly the clues the designed puzzle file has as null."""
    out = tmp_path / "out"
    blend_check = tmp_path / "check.py"
    blend_check.write_text(LOAD_ADDON + f"""
import glob, json
bpy.ops.wm.open_mainfile(filepath=glob.glob({str(out)!r} + "/*.blend")[0])
scene = sys.modules["nonogram3d.operators.scene"]
(obj,) = [o for o in bpy.data.objects if o.nonogram.is_nonogram]
print("BLEND " + json.dumps({{"hidden": int(scene.hidden_mask(obj).sum()),
                             "view": scene.current_view(obj),
                             "design": (scene.load_design(obj) or {{}}).get("hidden_count"),
                             "slices": [scene.get_modifier_input(scene.player_modifier(obj), "Slice " + a)
                                        for a in "XYZ"]}}))
""")
    proc = run(["batch.py", "--", "--input", "suzanne", "--resolution", "8", "--out", str(out),
                "--design", "--render", "player", "--render-size", "48", "--render-samples", "1",
                "--blend", "--slice", "z=2", "--slice", "x=-1"])
    assert proc.returncode == 0
    _, rows = read_summary(out)
    r = rows[0]
    assert r["status"] == "ok" and int(r["design_hidden"]) > 0
    doc = json.loads((out / r["design_file"]).read_text())
    nulls = sum(v is None for axis in "xyz" for row in doc[axis] for v in row)
    assert nulls == int(r["design_hidden"])
    assert _png_size(out / r["png_file"]) == (48, 48)
    proc = run([str(blend_check)])
    saved = json.loads(next(ln for ln in proc.stdout.splitlines() if ln.startswith("BLEND "))[6:])
    assert saved == {"hidden": nulls, "view": "PLAYER", "design": nulls, "slices": [-1, 0, 2]}
    report = json.loads((out / r["report_file"]).read_text(encoding="utf-8"))
    assert report["options"]["slice"] == {"Z": 2, "X": -1}


def test_colours_and_the_solved_render(tmp_path):
    """--colours K keeps the model's colours (the summary and report name the palette, the
    puzzle file carries it) and --render solved renders the reveal in them."""
    out = tmp_path / "out"
    proc = run(["batch.py", "--", "--input", str(shared_path("models", "trex.glb")),
                "--resolution", "16", "--out", str(out), "--colours", "4", "--render", "solved",
                "--render-size", "64", "--render-samples", "2"])
    assert proc.returncode == 0
    _, rows = read_summary(out)
    assert rows[0]["status"] == "ok", rows
    palette = rows[0]["palette"].split()
    assert 2 <= len(palette) <= 4 and all(p.startswith("#") and len(p) == 7 for p in palette)
    report = json.loads((out / rows[0]["report_file"]).read_text())
    assert report["colours"]["palette"] == palette
    puzzle = json.loads((out / rows[0]["puzzle_file"]).read_text())
    assert puzzle["palette"] == palette
    from PIL import Image
    px = np.asarray(Image.open(out / rows[0]["png_file"]).convert("RGB")).astype(int)
    # the reveal is in the model's colours, not the grey/blue of plain cubes: reddish and
    # greenish pixels both appear (the T-rex's red mouth and green body)
    chroma = px.max(axis=2) - px.min(axis=2)
    assert (chroma > 12).sum() > 20
    bad = run(["batch.py", "--", "--input", "suzanne", "--out", str(tmp_path / "o2"), "--colours", "0"])
    assert bad.returncode == 2 and "--colours must be 1" in bad.stderr
