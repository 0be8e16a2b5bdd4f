"""blender_manifest.toml: Blender's own validator accepts it, and it says what the project decided."""
from __future__ import annotations

import os
import shutil
import subprocess
import sys
import tomllib
from pathlib import Path

import pytest

ROOT = Path(__file__).resolve().parent.parent
sys.path.insert(0, str(ROOT / "scripts"))
import build_extension  # noqa: E402


@pytest.fixture(scope="module")
def scripts_dir():
    try:
        return build_extension.blender_scripts_dir()
    except build_extension.BuildError as e:
        pytest.skip(str(e))


def validate(path: Path, scripts: Path) -> subprocess.CompletedProcess:
    return subprocess.run([*build_extension.blender_ext_command(scripts), "validate", "--valid-tags",
                           str(build_extension.valid_tags_file(scripts)), str(path)],
                          capture_output=True, text=True, timeout=60)


def manifest() -> dict:
    with open(ROOT / "blender_manifest.toml", "rb") as f:
        return tomllib.load(f)


def test_blender_validator_accepts_the_repo(scripts_dir):
    proc = validate(ROOT, scripts_dir)
    assert proc.returncode == 0, proc.stdout + proc.stderr
    assert "Success" in proc.stdout


def test_validator_rejects_a_bad_tag(scripts_dir, tmp_path):
    # The check above only means something if the validator really reads our tags.
    text = (ROOT / "blender_manifest.toml").read_text(encoding="utf-8")
    (tmp_path / "blender_manifest.toml").write_text(
        text.replace('tags = ["Mesh"', 'tags = ["Puzzle", "Mesh"'), encoding="utf-8")
    shutil.copy(ROOT / "__init__.py", tmp_path / "__init__.py")
    proc = validate(tmp_path, scripts_dir)
    assert proc.returncode != 0
    assert "Puzzle" in proc.stdout + proc.stderr


def test_project_decisions():
    m = manifest()
    assert m["id"] == "nonogram3d"
    assert m["type"] == "add-on"
    assert m["license"] == ["SPDX:GPL-3.0-or-later"]
    assert m["blender_version_min"] == "4.2.0"
    assert set(m["platforms"]) == {"linux-x64", "windows-x64", "macos-arm64"}
    text = (ROOT / "LICENSE").read_text(encoding="utf-8")
    assert "GNU GENERAL PUBLIC LICENSE" in text and "Version 3, 29 June 2007" in text
    assert len(text) > 30000, "the full GPL-3.0 text, not a notice"


def test_wheels_cover_every_platform_and_python_and_never_numpy():
    m = manifest()
    by_platform = build_extension.wheels_by_platform(m)
    for platform, wheels in by_platform.items():
        have = {(build_extension.wheel_fields(w)["name"], build_extension.wheel_fields(w)["python"])
                for w in wheels}
        # cp311: Blender 4.2-5.0; cp313: Blender 5.1+.
        assert have == {(n, py) for n in ("numba", "llvmlite", "python_sat") for py in ("cp311", "cp313")}, platform
    for w in m["wheels"]:
        assert w.startswith("./wheels/")
        assert not os.path.basename(w).lower().startswith("numpy")
    versions = {build_extension.wheel_fields(w)["name"]: build_extension.wheel_fields(w)["version"]
                for w in m["wheels"]}
    # The bundled numba must be the one the engine is developed and tested with.
    pins = dict(line.strip().split("==") for name in ("requirements.txt", "requirements-dev.txt")
                for line in (ROOT / name).read_text().splitlines() if "==" in line and not line.startswith("#"))
    # The bundled python-sat (the search's SAT fallback) likewise.
    assert versions == {"numba": pins["numba"], "llvmlite": pins["llvmlite"], "python_sat": pins["python-sat"]}


def test_build_excludes_development_files():
    patterns = manifest()["build"]["paths_exclude_pattern"]
    for p in ("/tests/", "/scripts/", "/docs/", "/benchmarks/", "/out/", "/dist/", "/wheels/",
              "__pycache__/", ".*"):
        assert p in patterns
    assert "paths" not in manifest()["build"]


def test_staging_skips_the_venvs():
    """The build's staging copy leaves out every venv (the other Blender versions' test venvs,
    .venv-bpy42 and .venv-bpy45, are over a gigabyte each) but keeps the add-on's files."""
    names = [".venv", ".venv-bpy42", ".venv-bpy45", "venv", ".git", "engine", "scene", "__init__.py",
             "blender_manifest.toml"]
    skipped = build_extension._STAGING_IGNORE(".", names)
    assert {".venv", ".venv-bpy42", ".venv-bpy45", "venv", ".git"} <= skipped
    assert not skipped & {"engine", "scene", "__init__.py", "blender_manifest.toml"}



def test_wheel_platforms_and_manifest_rewrite():
    f = build_extension.wheel_fields
    w = "./wheels/numba-0.68.1-cp313-cp313-manylinux_2_27_x86_64.manylinux_2_28_x86_64.whl"
    assert f(w)["python"] == "cp313" and build_extension.python_version_of_tag("cp313") == "3.13"
    assert build_extension.blender_platform_of_wheel(w) == "linux-x64"
    assert build_extension.blender_platform_of_wheel("x/llvmlite-0.50.0-cp311-cp311-win_amd64.whl") == "windows-x64"
    assert build_extension.blender_platform_of_wheel(
        "x/numba-0.68.1-cp311-cp311-macosx_12_0_arm64.whl") == "macos-arm64"
    text = (ROOT / "blender_manifest.toml").read_text(encoding="utf-8")
    text = build_extension._replace_array(text, "platforms", ["linux-x64"])
    text = build_extension._replace_array(text, "wheels", [w])
    m = tomllib.loads(text)
    assert m["platforms"] == ["linux-x64"] and m["wheels"] == [w]
    assert m["build"] == manifest()["build"] and m["permissions"] == manifest()["permissions"]


def test_zip_check_flags_numpy_and_development_files(scripts_dir, tmp_path):
    import zipfile
    bad = tmp_path / "bad.zip"
    with zipfile.ZipFile(bad, "w") as zf:
        zf.write(ROOT / "blender_manifest.toml", "blender_manifest.toml")
        zf.write(ROOT / "__init__.py", "__init__.py")
        zf.writestr("tests/test_x.py", "")
        zf.writestr("wheels/numpy-1.26.4-cp311-cp311-manylinux_2_17_x86_64.whl", "")
    problems = build_extension.check_zip(bad, "linux-x64", [], scripts_dir)
    text = "\n".join(problems)
    assert "numpy must not be bundled" in text
    assert "development file in the zip: tests/test_x.py" in text
    assert "LICENSE missing" in text


def test_readme_names_the_zips_the_build_writes():
    """The README tells users which file to pick: it must name the zips as the build writes them
    (Blender's builder turns linux-x64 into linux_x64 in the file name)."""
    readme = (ROOT / "README.md").read_text(encoding="utf-8")
    m = dict(manifest(), version="<version>")
    for platform in m["platforms"]:
        for python in build_extension.python_tags(m["wheels"]):
            name = build_extension.release_zip_name(m, platform, python)
            suffix = name.split("-<version>-")[1]
            assert suffix in readme, f"README does not name {name}"
        assert f"-<version>-{platform}.zip" not in readme


def test_each_zip_is_for_one_blender_python():
    """Blender 4.2.0 installs an extension's wheels whatever their Python tag, so the build makes
    a zip per Python, each declaring the Blender versions that bundle that Python, and refuses a
    zip with two wheels of one package."""
    m = manifest()
    assert build_extension.python_tags(m["wheels"]) == ["cp311", "cp313"]
    text = (ROOT / "blender_manifest.toml").read_text(encoding="utf-8")
    for tag, (low, high) in {"cp311": ("4.2.0", "5.1.0"), "cp313": ("5.1.0", None)}.items():
        wheels = build_extension.wheels_for_python(m["wheels"], tag)
        assert len(wheels) == 9 and all(f"-{tag}-" in w for w in wheels)
        staged = tomllib.loads(build_extension._set_versions(text, *build_extension.PYTHON_BLENDER[tag][:2]))
        assert (staged["blender_version_min"], staged.get("blender_version_max")) == (low, high)
    with pytest.raises(build_extension.BuildError, match="cp39"):
        build_extension.python_tags(["./wheels/numba-0.68.1-cp39-cp39-win_amd64.whl"])


def test_zip_check_refuses_two_wheels_of_a_package(scripts_dir, tmp_path):
    import zipfile
    both = ["wheels/numba-0.68.1-cp311-cp311-win_amd64.whl", "wheels/numba-0.68.1-cp313-cp313-win_amd64.whl"]
    path = tmp_path / "both.zip"
    with zipfile.ZipFile(path, "w") as zf:
        for f in ("blender_manifest.toml", "__init__.py", "LICENSE"):
            zf.write(ROOT / f, f)
        for w in both:
            zf.writestr(w, "")
    problems = "\n".join(build_extension.check_zip(path, "windows-x64", both, scripts_dir))
    assert "more than one wheel of a package" in problems


def test_zip_check_wants_prebuilt_kernels_only_where_built(scripts_dir, tmp_path):
    """The host platform's zip must carry prebuilt kernels (TAG.json and numba's cache files,
    nothing else); any other platform's must carry none."""
    import zipfile

    def zip_with(name, files):
        path = tmp_path / name
        with zipfile.ZipFile(path, "w") as zf:
            for f in ("blender_manifest.toml", "__init__.py", "LICENSE"):
                zf.write(ROOT / f, f)
            for f in files:
                zf.writestr(f, "")
        return path

    kernels = ["engine/prebuilt/cp311-x86-64-v2/TAG.json", "engine/prebuilt/cp311-x86-64-v2/propagate.f-1.py311.nbi",
               "engine/prebuilt/cp311-x86-64-v2/propagate.f-1.py311.1.nbc"]
    good = zip_with("good.zip", kernels)

    def problems(path, prebuilt):
        return "\n".join(build_extension.check_zip(path, "windows-x64", [], scripts_dir, prebuilt))
    assert "prebuilt" not in problems(good, True)
    assert "prebuilt kernels in a zip that should have none" in problems(good, False)
    assert "no prebuilt kernels" in problems(zip_with("none.zip", []), True)
    stray = zip_with("stray.zip", kernels + ["engine/prebuilt/cp311-x86-64-v2/notes.txt"])
    assert "files other than numba cache files" in problems(stray, True)


def test_build_knows_its_platform_and_baselines():
    import platform
    from engine import jit
    host = build_extension.host_platform()
    if platform.machine().lower() in ("x86_64", "amd64") and sys.platform in ("linux", "win32", "darwin"):
        assert host.endswith("-x64") and build_extension.BASELINE[host] in jit.BASELINES
    assert set(build_extension.BASELINE.values()) <= set(jit.BASELINES)
