"""The built linux-x64 zip of this Python (the 4.2-5.0 zip on Python 3.11, the 5.1+ zip on 3.13)
installs into a clean Blender, enables, and makes a nonogram with the numba from its own bundled
wheels, then solves it, hides clues, makes one with the model's colours and a colour puzzle, and
solves and designs those, loading the kernels the zip carries: nothing compiles.

The subprocess imitates a Blender installation: Python started with -S (no site-packages) and only
bpy plus what Blender itself bundles (numpy, requests, ...) on the path, so numba can only come
from the extension's wheels. BLENDER_USER_RESOURCES points at a temporary folder, so the user's
real Blender configuration is never touched.
"""
from __future__ import annotations

import importlib.util
import inspect
import json
import os
import subprocess
import sys
import tomllib
import zipfile
from pathlib import Path

import pytest

ROOT = Path(__file__).resolve().parent.parent
sys.path.insert(0, str(ROOT / "scripts"))
import build_extension  # noqa: E402

pytest.importorskip("bpy", reason="needs the bpy module (pip install bpy==5.0.1, Python 3.11)")
import test_blender_colours  # noqa: E402
pytestmark = [pytest.mark.blender, pytest.mark.slow]

# What a Blender 4.2-5.0 installation provides to add-ons besides bpy: numpy and the bpy wheel's
# own dependencies. Deliberately not numba or llvmlite.
BLENDER_BUNDLED = ("bpy", "numpy", "requests", "urllib3", "idna", "certifi", "charset_normalizer",
                   "zstandard")


@pytest.fixture(scope="session")
def linux_build():
    try:
        build_extension.blender_scripts_dir()
    except build_extension.BuildError as e:
        pytest.skip(str(e))
    manifest = build_extension.read_manifest()
    wheels = build_extension.wheels_by_platform(manifest)["linux-x64"]
    try:
        # Wheels stay in wheels/ (git-ignored), so only the first session downloads them.
        build_extension.download_wheels(wheels)
    except build_extension.BuildError as e:
        pytest.skip(f"cannot download the numba/llvmlite wheels (offline?): {e}")
    # The prebuilt kernels of Make and the solver only (what the install test below runs): the
    # build compiles them once, the installed add-on then compiles nothing for them.
    paths = build_extension.build(["linux-x64"], download=False, out_dir=ROOT / "dist",
                                  prebuilt_parts=PREBUILT_PARTS)
    return paths


@pytest.fixture(scope="session")
def linux_zips(linux_build):
    """The linux-x64 zips by the Blender Python they are for ('cp311', 'cp313')."""
    out = {}
    for path in linux_build:
        with zipfile.ZipFile(path) as zf:
            tags = {build_extension.wheel_fields(n)["python"] for n in zf.namelist() if n.endswith(".whl")}
        assert len(tags) == 1, (path.name, tags)
        out[tags.pop()] = path
    return out


@pytest.fixture(scope="session")
def linux_zip(linux_zips):
    """The zip for this Python (the Blender the tests imitate)."""
    return linux_zips[f"cp{sys.version_info[0]}{sys.version_info[1]}"]


# Make, the solver (the batch grades its puzzles), Hide Clues, colours and colour puzzles: what
# the install test runs (build_extension.PREBUILT_PARTS less the seed study's schedulers)
PREBUILT_PARTS = ("make", "masks", "solve", "grade", "design", "colour", "colourdesign")
ON_HOST = build_extension.host_platform() == "linux-x64"


def test_zip_contents(linux_zip):
    with zipfile.ZipFile(linux_zip) as zf:
        names = set(zf.namelist())
        manifest = zf.read("blender_manifest.toml").decode()
    for needed in ("__init__.py", "batch.py", "cli_command.py", "LICENSE", "blender_manifest.toml",
                   "engine/__init__.py", "operators/__init__.py", "scene/__init__.py", "jobs/__init__.py",
                   "panels/__init__.py"):
        assert needed in names
    assert "engine/kinds/plain/learned_scheduler.json" in names  # the learned scheduler's weights ship too
    assert "engine/play/player/nonogram-player.html" in names  # the built web player (no network in Blender)
    assert not any(n.startswith("web/") for n in names)  # its sources and npm packages stay out
    wheels = sorted(n for n in names if n.endswith(".whl"))
    assert len(wheels) == 3 and all("x86_64" in w for w in wheels)
    assert sum(w.startswith("wheels/python_sat-") for w in wheels) == 1  # the search's SAT fallback
    assert not any(n.startswith(("tests/", "scripts/", "docs/", "wheels/numpy", "dist/", "benchmarks/"))
                   for n in names)
    # the kernels compiled ahead, for this Python, where the build ran on linux-x64
    prebuilt = sorted(n for n in names if n.startswith("engine/prebuilt/"))
    py = f"cp{sys.version_info[0]}{sys.version_info[1]}"
    if ON_HOST:
        folder = f"engine/prebuilt/{py}-x86-64-v2/"
        assert all(n.startswith(folder) for n in prebuilt)
        assert all(n.endswith((".nbi", ".nbc")) for n in prebuilt if n != folder + "TAG.json")
        with zipfile.ZipFile(linux_zip) as zf:
            tag = json.loads(zf.read(folder + "TAG.json"))
        assert tag["package"] == "bl_ext.user_default.nonogram3d.engine" and tag["python"] == py
        assert tag["parts"] == list(PREBUILT_PARTS) and tag["cpu"] == "x86-64-v2"
        assert any(n.startswith(folder + "propagate.") and n.endswith(".nbc") for n in prebuilt)
        assert any(n.startswith(folder + "raycast.") for n in prebuilt)  # the voxelizer
    else:
        assert not prebuilt
    assert not any(n.startswith("engine/bench_") for n in names)  # development-only CLIs
    assert "engine/solve/driver.py" in names and "engine/__main__.py" in names
    assert not any("__pycache__" in n for n in names)
    assert 'platforms = ["linux-x64"]' in manifest  # written by Blender's builder


def blender_like_site(tmp: Path) -> Path:
    site = tmp / "blender_site"
    site.mkdir()
    for name in BLENDER_BUNDLED:
        spec = importlib.util.find_spec(name)
        assert spec is not None, name
        loc = Path(spec.submodule_search_locations[0] if spec.submodule_search_locations else spec.origin)
        (site / loc.name).symlink_to(loc)
    numpy_libs = Path(importlib.util.find_spec("numpy").submodule_search_locations[0]).parent / "numpy.libs"
    if numpy_libs.is_dir():
        (site / "numpy.libs").symlink_to(numpy_libs)
    return site


INSTALL_SCRIPT = r"""
import csv, json, os, sys, time, importlib, importlib.util
t0 = time.perf_counter()
import bpy
for name in ("numba", "llvmlite", "pysat"):
    assert importlib.util.find_spec(name) is None, f"{name} importable before the install"
zip_path, res_dir = sys.argv[-2], sys.argv[-1]
r = bpy.ops.extensions.package_install_files(filepath=zip_path, repo="user_default",
                                              enable_on_install=True)
t_install = time.perf_counter() - t0
MOD = "bl_ext.user_default.nonogram3d"
got = {"install": sorted(r), "enabled": MOD in {a.module for a in bpy.context.preferences.addons},
       "package_file": sys.modules[MOD].__file__, "t_install": t_install}

mesh = bpy.data.meshes.new("TestCube")
import bmesh
bm = bmesh.new()
bmesh.ops.create_cube(bm, size=2.0)
bm.to_mesh(mesh)
bm.free()
for ob in list(bpy.data.objects):
    bpy.data.objects.remove(ob)
cube = bpy.data.objects.new("TestCube", mesh)
bpy.context.scene.collection.objects.link(cube)
bpy.context.view_layer.objects.active = cube
cube.select_set(True)
bpy.context.scene.nonogram_settings.resolution = 12
t1 = time.perf_counter()
got["make"] = sorted(bpy.ops.nonogram.make())
got["t_make"] = time.perf_counter() - t1
obj = bpy.context.active_object
info = json.loads(obj.nonogram.make_info)
got.update(object=obj.name, points=len(obj.data.vertices), shape=info["shape"], filled=info["filled"])

# The rest of a designer's first session, as the buttons run it: Solve and Hide Clues, a model's
# colours, a colour puzzle solved and designed. With the zip's kernels nothing compiles.
t3 = time.perf_counter()
workflow = got["workflow"] = {"solve": sorted(bpy.ops.nonogram.solve())}
workflow["verdict"] = json.loads(obj.nonogram.report)["verdict"]
workflow["hide_clues"] = sorted(bpy.ops.nonogram.hide_clues())
bpy.ops.mesh.primitive_cube_add(size=2.0, location=(6.0, 0.0, 0.0))
painted = bpy.context.active_object
for rgb in ((0.8, 0.02, 0.02), (0.02, 0.02, 0.8)):
    painted.data.materials.append(principled(str(rgb), rgb))
for poly in painted.data.polygons:
    poly.material_index = 0 if abs(poly.normal.z) > 0.5 else 1
settings = bpy.context.scene.nonogram_settings
settings.resolution, settings.colours = 6, 4
for k in (1, 2):
    bpy.context.view_layer.objects.active = painted
    painted.select_set(True)
    settings.puzzle_colours = k
    run = {"make": sorted(bpy.ops.nonogram.make())}
    made = bpy.context.active_object
    run["palette"] = len(made.nonogram.palette)
    run["clue_colours"] = len(json.loads(made.nonogram.puzzle).get("clue_colours", []))
    run["solve"] = sorted(bpy.ops.nonogram.solve())
    run["verdict"] = json.loads(made.nonogram.report)["verdict"]
    run["hide_clues"] = sorted(bpy.ops.nonogram.hide_clues())
    run["hidden"] = sum(bin(b).count("1") for b in __import__("base64").b64decode(made.nonogram.hidden))
    workflow[f"puzzle_colours_{k}"] = run
got["t_workflow"] = time.perf_counter() - t3


import numba
jit = sys.modules[MOD + ".engine.jit"]
cli = sys.modules[MOD + ".cli_command"]
got.update(numba_file=numba.__file__, have_numba=jit.HAVE_NUMBA, numba_error=jit.NUMBA_ERROR,
           numba_cache=numba.config.CACHE_DIR, cli_registered=cli._handle is not None)

# `blender -c nonogram ...` calls this handler with the arguments after the command name.
t2 = time.perf_counter()
got["batch_code"] = cli.execute(["--input", "cube", "--resolution", "3", "--out",
                                 os.path.join(res_dir, "batch")])
got["t_batch"] = time.perf_counter() - t2
got["batch_file"] = sys.modules[MOD + ".batch"].__file__
with open(os.path.join(res_dir, "batch", "summary.csv"), newline="") as fh:
    got["batch_rows"] = list(csv.DictReader(fh))
# The preferences exist under the extension's package name; they see its kernel cache.
got["prefs_resolution"] = bpy.context.preferences.addons[MOD].preferences.resolution
got["numba_status"] = sys.modules[MOD + ".jobs.kernel_cache"].numba_status()
# The search's CDCL fallback comes from the extension's python-sat wheel and really solves.
import numpy as np
import pysat
sat = importlib.import_module(MOD + ".engine.kinds.plain.sat")
puzzle = importlib.import_module(MOD + ".engine.model.puzzle")
propagate = importlib.import_module(MOD + ".engine.kinds.plain.propagate")
cells = importlib.import_module(MOD + ".engine.model.cells")
# 2x2, every row and column one block of 1: both diagonals solve it
net = propagate.build_net(puzzle.make_2d([[1], [1]], [[1], [1]]))
ss = sat.SatSearch(net, np.full(4, cells.UNKNOWN, np.int8), np.ones(4, bool))
ss.feed(1 << 30)
found = []
while (r := ss.step()) is not False:
    if r is not None:
        found.append(r.astype(int).tolist())
        ss.block(r)
ss.close()
got.update(pysat_file=pysat.__file__, have_sat=sat.HAVE_SAT, sat_solutions=sorted(found))
got["solves"] = solves_digest(lambda name: importlib.import_module(MOD + ".engine." + name))

got["prebuilt"] = jit.prebuilt_status()
got["compiled"] = sorted(f for f in os.listdir(jit.cache_folder()) if f.endswith(".nbi"))
print("RESULT " + json.dumps(got))
"""

# Solves that probe, search and walk, run the same in the installed add-on (prebuilt kernels)
# and here (this checkout's kernels, compiled for this CPU): their results must be identical.
SOLVES = r"""
def solves_digest(engine):
    import hashlib
    import numpy as np
    blobs, clues, solve = engine("voxel.blobs"), engine("model.clues"), engine("solve.driver").solve
    runs = [solve(blobs.blob_puzzle((9, 9, 9), seed=2)),
            solve(blobs.blob_puzzle((9, 9, 9), seed=4, hidden_fraction=0.3), use_known=False),
            solve(clues.puzzle_from_grid(np.random.default_rng(1).random((8, 8, 8)) < 0.35), use_known=False),
            solve(clues.puzzle_from_grid(np.random.default_rng(3).random((15, 15)) < 0.5), use_known=False)]
    out = []
    for r in runs:
        counters = {k: int(v) for k, v in r.stats.items() if isinstance(v, (int, np.integer)) and not k.endswith("_s")}
        out.append([r.verdict, r.linesolvers, r.bad_guesses, len(r.solutions),
                    hashlib.sha256(np.ascontiguousarray(r.state).tobytes()).hexdigest(), sorted(counters.items())])
    return out
"""
# the colour tests' one-colour material (a Principled BSDF's Base Color), for the install's colours
INSTALL_SCRIPT = SOLVES + inspect.getsource(test_blender_colours.principled) + INSTALL_SCRIPT


def test_one_zip_per_blender_python_with_one_wheel_per_package(linux_zips):
    """Blender 4.2.0 installs a zip's wheels without looking at their Python tag (it gave Python
    3.11 the cp313 numba: "cannot import name '_typeconv'"), so each zip carries the wheels of one
    Python and declares the Blender versions that bundle it."""
    assert set(linux_zips) == {"cp311", "cp313"}
    ranges = {}
    for tag, path in linux_zips.items():
        with zipfile.ZipFile(path) as zf:
            wheels = [n for n in zf.namelist() if n.endswith(".whl")]
            manifest = tomllib.loads(zf.read("blender_manifest.toml").decode())
        packages = sorted(build_extension.wheel_fields(w)["name"] for w in wheels)
        assert packages == ["llvmlite", "numba", "python_sat"], (path.name, wheels)
        assert all(build_extension.wheel_fields(w)["python"] == tag for w in wheels)
        ranges[tag] = (manifest["blender_version_min"], manifest.get("blender_version_max"))
    # 4.2-5.0 bundle Python 3.11, 5.1 and newer 3.13: the ranges meet and do not overlap
    assert ranges == {"cp311": ("4.2.0", "5.1.0"), "cp313": ("5.1.0", None)}
    assert linux_zips["cp311"].name.endswith("-linux_x64-blender4.2-5.0.zip")
    assert linux_zips["cp313"].name.endswith("-linux_x64-blender5.1+.zip")


def test_install_enable_and_make_on_a_cube(linux_zip, tmp_path):
    resources = tmp_path / "user_resources"
    resources.mkdir()
    site = blender_like_site(tmp_path)
    env = {k: v for k, v in os.environ.items() if not k.startswith(("PYTHON", "NUMBA_", "BLENDER_"))}
    env.update(BLENDER_USER_RESOURCES=str(resources), PYTHONPATH=str(site), PYTHONNOUSERSITE="1")
    proc = subprocess.run([sys.executable, "-S", "-c", INSTALL_SCRIPT, str(linux_zip), str(resources)],
                          env=env, capture_output=True, text=True, timeout=300, cwd=tmp_path)
    print(proc.stdout[-3000:])
    print(proc.stderr[-3000:], file=sys.stderr)
    assert proc.returncode == 0
    line = next(ln for ln in proc.stdout.splitlines() if ln.startswith("RESULT "))
    got = json.loads(line[len("RESULT "):])

    installed = resources / "extensions" / "user_default" / "nonogram3d"
    assert got["install"] == ["FINISHED"] and got["enabled"]
    assert Path(got["package_file"]) == installed / "__init__.py"
    assert Path(got["batch_file"]) == installed / "batch.py"
    assert got["cli_registered"], "the installed add-on did not register `blender -c nonogram`"

    # numba comes from the wheels Blender unpacked for the extension, and is really used.
    wheel_site = resources / "extensions" / ".local"
    assert Path(got["numba_file"]).is_relative_to(wheel_site), got["numba_file"]
    assert got["have_numba"] and not got["numba_error"]
    # so does python-sat, and its CaDiCaL finds exactly the two diagonals of a 2x2 puzzle
    assert Path(got["pysat_file"]).is_relative_to(wheel_site), got["pysat_file"]
    assert got["have_sat"] and got["sat_solutions"] == [[0, 1, 1, 0], [1, 0, 0, 1]]
    # our kernels cache in the extension's folder (numba_status below), numba's own setting
    # stays as it was for every other user of numba in the process
    assert not got["numba_cache"], got["numba_cache"]

    # A 2×2×2 cube at resolution 12 fills its whole 12³ grid: one point per cell.
    assert got["make"] == ["FINISHED"]
    assert got["shape"] == [12, 12, 12]
    assert got["points"] == 12 ** 3
    assert got["filled"] == 12 ** 3

    # The command's batch runs from the installed copy (package bl_ext.user_default.nonogram3d).
    assert got["batch_code"] == 0
    assert [(r["model"], r["status"], r["size"], r["verdict"]) for r in got["batch_rows"]] == [
        ("cube", "ok", "3x3x3", "unique")]

    # The add-on's preferences, and the numba state they show.
    assert got["prefs_resolution"] == 12
    status = got["numba_status"]
    assert status["version"] and not status["error"] and status["loaded"]
    assert Path(status["cache_dir"]).is_relative_to(resources / "extensions"), status
    assert status["sat"] == "1.9.dev22"
    if ON_HOST:
        # Make and the solves loaded the zip's kernels: nothing compiled, the cache stays empty
        assert got["prebuilt"] == f"Prebuilt kernels: in use (cp{sys.version_info[0]}{sys.version_info[1]}-x86-64-v2)"
        assert got["compiled"] == [] and status["cache_files"] == 0, got["compiled"]
        assert status["prebuilt"] == got["prebuilt"]  # the line the preferences show
    else:
        assert status["cache_files"] > 0 and status["cache_bytes"] > 0
    # Solve, Hide Clues, colours and a colour puzzle ran, on the kernels above (nothing compiled)
    workflow = got["workflow"]
    assert workflow["solve"] == workflow["hide_clues"] == ["FINISHED"] and workflow["verdict"] == "unique"
    for k in (1, 2):
        run = workflow[f"puzzle_colours_{k}"]
        assert run["make"] == run["solve"] == run["hide_clues"] == ["FINISHED"], run
        assert run["palette"] == 2 and run["clue_colours"] == (2 if k == 2 else 0), run
        assert run["verdict"] == "unique" and run["hidden"] > 0, run
    # the prebuilt code computes what this checkout's computes
    namespace: dict = {}
    exec(SOLVES, namespace)
    import importlib
    assert got["solves"] == json.loads(json.dumps(namespace["solves_digest"](
        lambda name: importlib.import_module("engine." + name))))
    print(f"install {got['t_install']:.1f} s, Make Nonogram (empty cache) {got['t_make']:.1f} s, "
          f"batch (empty cache) {got['t_batch']:.1f} s, Solve + Hide Clues + colours + colour puzzle "
          f"{got['t_workflow']:.1f} s; {got['prebuilt']}")


def test_a_blender_of_a_python_the_zip_does_not_carry_is_told_which_zip_to_take(linux_zips, tmp_path):
    """A Blender whose Python the zip has no wheels for (the next line's Python, say) installs it
    without numba: the add-on says why and what to do instead of running slowly for no reason."""
    import importlib
    sys.path.insert(0, str(ROOT / "tests"))
    from blender_support import load_addon
    load_addon()
    kernel_cache = importlib.import_module("nonogram3d.jobs.kernel_cache")
    notes = {}
    for tag, path in linux_zips.items():
        with zipfile.ZipFile(path) as zf:
            (tmp_path / tag).write_bytes(zf.read("blender_manifest.toml"))
        notes[tag] = {other: kernel_cache.wheels_mismatch(other, str(tmp_path / tag))
                      for other in ("cp311", "cp313", "cp314")}
    assert notes["cp311"]["cp311"] == notes["cp313"]["cp313"] == ""
    assert notes["cp313"]["cp314"] == (
        "this Nonogram 3D zip carries numba for Python 3.13 (Blender 5.1.0 and newer), and this "
        "Blender runs Python 3.14: install the zip made for this Blender's version")
    assert notes["cp311"]["cp313"].startswith(
        "this Nonogram 3D zip carries numba for Python 3.11 (Blender 4.2.0 up to (not including) 5.1.0)")
    # the checkout (numba wheels of both Pythons) and a manifest without numba say nothing
    assert kernel_cache.wheels_mismatch("cp311") == kernel_cache.wheels_mismatch("cp313") == ""
    (tmp_path / "plain.toml").write_text('blender_version_min = "4.2.0"\nwheels = []\n')
    assert kernel_cache.wheels_mismatch("cp314", str(tmp_path / "plain.toml")) == ""
