"""mypy over the Blender-facing code against fake-bpy-module-4-2 (the oldest supported Blender).

The checkout's folder name is arbitrary, so mypy sees the repo through a symlink named after the
extension: modules are then ``nonogram3d.scene`` etc., as in Blender.
"""
from __future__ import annotations

import subprocess
import sys
from pathlib import Path

import pytest

ROOT = Path(__file__).resolve().parent.parent
CONFIG = ROOT / "mypy.ini"
TARGETS = ("__init__.py", "batch.py", "batchjobs.py", "cli_command.py", "operators", "panels",
           "scene", "jobs", "scripts/build_extension.py")
ROOT_MODULES = ("batch.py", "batchjobs.py", "cli_command.py", "scripts/build_extension.py")

pytest.importorskip("mypy", reason="needs mypy (requirements-dev.txt)")


def have_stubs() -> bool:
    # Stub-only packages are folders named "<module>-stubs": not importable, so look for it.
    return any((Path(p) / "bpy-stubs").is_dir() for p in sys.path if p)


def mypy(args, cwd: Path) -> subprocess.CompletedProcess:
    return subprocess.run([sys.executable, "-m", "mypy", "--config-file", str(CONFIG),
                           "--cache-dir", str(ROOT / ".mypy_cache"), "--no-error-summary",
                           "--show-error-codes", *args], cwd=cwd, capture_output=True, text=True,
                          timeout=600)


@pytest.fixture(scope="module")
def addon_errors(tmp_path_factory) -> list:
    if not have_stubs():
        pytest.skip("fake-bpy-module-4-2 is not installed (requirements-dev.txt)")
    tmp = tmp_path_factory.mktemp("typecheck")
    (tmp / "nonogram3d").symlink_to(ROOT, target_is_directory=True)
    proc = mypy([f"nonogram3d/{t}" for t in TARGETS], cwd=tmp)
    assert proc.returncode in (0, 1), proc.stdout + proc.stderr  # 2 = mypy itself failed
    return [ln for ln in proc.stdout.splitlines() if ": error:" in ln]


def test_root_modules_typecheck(addon_errors):
    mine = [e for e in addon_errors if e.startswith(tuple(f"nonogram3d/{m}:" for m in ROOT_MODULES))]
    assert not mine, "\n".join(mine)


def test_operators_and_panels_typecheck(addon_errors):
    rest = [e for e in addon_errors
            if not e.startswith(tuple(f"nonogram3d/{m}:" for m in ROOT_MODULES))]
    assert not rest, f"{len(rest)} mypy errors:\n" + "\n".join(rest)


GOOD = """
import bpy
import numba  # untyped: the config lets it through

def place(context: bpy.types.Context, name: str) -> bpy.types.Object:
    obj = bpy.data.objects.new(name, None)
    obj.location = (0.0, 0.0, 1.0)
    context.collection.objects.link(obj)
    return obj
"""

# A misspelled attribute, a misspelled method, and an attribute newer than Blender 4.2
# (Scene.compositing_node_group appeared in 5.0; the bpy module here is 5.0, the stubs 4.2).
BAD = {
    "locaton": 'obj.locaton = (0.0, 0.0, 1.0)',
    "new_from_objekt": 'bpy.data.meshes.new_from_objekt(obj)',
    "compositing_node_group": 'context.scene.compositing_node_group = None',
}


def test_the_check_catches_bad_bpy_usage(tmp_path):
    if not have_stubs():
        pytest.skip("fake-bpy-module-4-2 is not installed (requirements-dev.txt)")
    (tmp_path / "good.py").write_text(GOOD, encoding="utf-8")
    proc = mypy(["good.py"], cwd=tmp_path)
    assert proc.returncode == 0, proc.stdout + proc.stderr

    body = GOOD.replace("    return obj\n", "".join(f"    {line}\n" for line in BAD.values()) + "    return obj\n")
    (tmp_path / "bad.py").write_text(body, encoding="utf-8")
    proc = mypy(["bad.py"], cwd=tmp_path)
    assert proc.returncode == 1, proc.stdout + proc.stderr
    errors = [ln for ln in proc.stdout.splitlines() if ": error:" in ln]
    for name in BAD:
        assert any(f'"{name}"' in e and "[attr-defined]" in e for e in errors), (name, errors)
    assert len(errors) == len(BAD), errors
