"""The voxelizer on the shared test meshes (../shared/models/), against the README's reference counts.

Grid convention of the README: a cubic N³ grid whose side is the longest bounding-box extent,
centred on the bounding box, in each file's own coordinates = ``voxelize(..., fit=False)``.
"""
import functools
import re

import numpy as np
import pytest

from conftest import shared_path
from engine.voxel.meshio import load_mesh
from engine.voxel.voxelize import voxelize

CLOSED = ["duck.glb", "horse.ply", "torus_knot.obj", "trex.glb"]
OPEN = ["jeep.obj", "stanford_bunny.obj", "teapot.obj"]
RESOLUTIONS = (12, 24, 36, 64)


@functools.lru_cache(maxsize=None)
def reference_counts():
    """{model stem: {N: (parity count, winding-number count)}} parsed from the models README."""
    text = shared_path("models", "README.md").read_text()
    section = text[text.index("## Reference filled-voxel counts"):]
    header = re.search(r"^\| file \|(.*)\|\s*$", section, re.M).group(1)
    sizes = [int(re.match(r"\s*(\d+)", c).group(1)) for c in header.split("|")]
    out = {}
    for m in re.finditer(r"^\| ([a-z_]+) \|([ \d/|]*)\|\s*$", section, re.M):
        cells = [tuple(int(x) for x in c.split("/")) for c in m.group(2).split("|")]
        out[m.group(1)] = dict(zip(sizes, cells))
    assert len(out) == 7, "could not parse the README's reference table"
    return out


@functools.lru_cache(maxsize=None)
def mesh(name):
    return load_mesh(shared_path("models", name))


def y_up_to_z_up(v):
    """As Blender's importers do: (x, y, z) -> (x, -z, y), exact in floating point."""
    return np.stack([v[:, 0], -v[:, 2], v[:, 1]], axis=1)


def streak_voxels(result, vertices):
    """Filled voxels whose centres lie outside the mesh's bounding box.

    Parity leaks through a hole fill a whole line of voxels from the hole out to the edge of the
    grid (a full-height streak); the part of such a line beyond the mesh's extent is filled with
    nothing around it, so no correct fill can have it.  The cubic grid leaves margins on the
    shorter axes, where these ends of streaks show.
    """
    idx = np.argwhere(result.grid)
    c = result.origin + (idx + 0.5) * result.voxel_size
    return int(((c < vertices.min(axis=0)) | (c > vertices.max(axis=0))).any(axis=1).sum())


@pytest.mark.parametrize("name", CLOSED)
def test_closed_models_match_reference_exactly(name):
    v, t = mesh(name)
    ref = reference_counts()[name.split(".")[0]]
    for n in RESOLUTIONS:
        for robust in (True, False):
            r = voxelize(v, t, resolution=n, fit=False, robust=robust)
            assert r.grid.shape == (n, n, n)
            assert int(r.grid.sum()) == ref[n][0], (name, n, robust)
            # Thin legs may fall apart into pieces (said so); nothing else is wrong.
            assert [w for w in r.warnings if "fall apart" not in w] == []
            assert not r.diagnostics["looks_open"]
            if robust:
                assert r.diagnostics["disagreements"] == 0
                assert r.diagnostics["parts"] == 1 and r.diagnostics["boundary_edges"] == 0
                assert r.diagnostics["watertight"] is True


@pytest.mark.parametrize("name", OPEN)
def test_open_models_are_plausible(name):
    v0, t = mesh(name)
    ref = reference_counts()[name.split(".")[0]]
    for v in (v0, y_up_to_z_up(v0)):
        for n in RESOLUTIONS:
            r = voxelize(v, t, resolution=n, fit=False)
            winding = ref[n][1]
            assert abs(int(r.grid.sum()) - winding) <= 0.03 * winding, (name, n)
            assert r.diagnostics["looks_open"] and r.diagnostics["boundary_edges"] > 0
            assert r.diagnostics["watertight"] is False and r.diagnostics["disagreements"] > 0
            assert any(w.startswith("The mesh is open") for w in r.warnings)
            assert streak_voxels(r, v) == 0, (name, n)


@pytest.mark.parametrize("name, n, rotate", [("jeep.obj", 36, True), ("stanford_bunny.obj", 24, False)])
def test_streak_check_catches_single_axis_leaks(name, n, rotate):
    v, t = mesh(name)
    if rotate:
        v = y_up_to_z_up(v)
    plain = voxelize(v, t, resolution=n, fit=False, robust=False)
    assert streak_voxels(plain, v) > 0
    assert streak_voxels(voxelize(v, t, resolution=n, fit=False), v) == 0


def test_jeep_parts_are_united():
    """44 overlapping open parts: per-part parity unites them, plain parity leaves holes."""
    v, t = mesh("jeep.obj")
    r = voxelize(v, t, resolution=36, fit=False)
    plain = voxelize(v, t, resolution=36, fit=False, robust=False)
    winding = reference_counts()["jeep"][36][1]
    assert r.diagnostics["parts"] > 30
    assert abs(int(r.grid.sum()) - winding) < abs(int(plain.grid.sum()) - winding)


def test_fitted_models_keep_the_longest_axis():
    v, t = mesh("horse.ply")
    r = voxelize(v, t, resolution=24)
    assert max(r.grid.shape) == 24 and r.grid.shape[0] < 24  # the horse is Z-up and thin in x
    lo = r.origin
    hi = r.origin + np.array(r.grid.shape) * r.voxel_size
    assert np.all(lo >= v.min(axis=0) - 1e-12) and np.all(hi <= v.max(axis=0) + r.voxel_size)


def test_benchmark_command_runs(capsys):
    from benchmarks.bench_voxelize import main

    model = str(shared_path("models", "trex.glb"))
    assert main(["--model", model, "--json", "--repeat", "1", "--no-cold",
                 "--numpy-resolution", "16", "--numpy-rows", "4"]) == 0
    import json

    report = json.loads(capsys.readouterr().out)
    assert report["triangles"] == 1820 and report["numpy_reference"]["grids_equal"] is True
    assert set(report["warm_ms"]) == {f"{c} {a}" for c in ("64", "128", "256", "128 4x4") for a in ("xyz", "z")}
    assert all(isinstance(v, float) for row in report["spatial_index"].values() for v in row.values())
    assert main(["--model", model[:-4] + "_missing.glb"]) == 2
    assert "cannot read" in capsys.readouterr().err
