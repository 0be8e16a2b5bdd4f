"""Build the Blender extension zips: one per platform, each with its numba + llvmlite wheels.

    python scripts/build_extension.py                          # every platform in the manifest
    python scripts/build_extension.py --platform linux-x64     # just one
    python scripts/build_extension.py --no-download            # use the wheels already in wheels/

The wheels named in ``blender_manifest.toml`` are fetched into ``wheels/`` with ``pip download``
(skipped when already there). The zips are made by Blender's own builder, ``blender_ext.py build
--split-platforms``, run on a staging copy whose manifest lists only the requested platforms (the
builder needs every listed wheel on disk). Each zip is then checked with ``blender_ext.py validate``
and for stray content (numpy, tests, other platforms' wheels). ``blender_ext.py`` ships inside the
``bpy`` wheel, so no Blender binary is needed.
"""
from __future__ import annotations

import argparse
import importlib.util
import os
import re
import shutil
import subprocess
import sys
import tempfile
import tomllib
import zipfile
from pathlib import Path

ROOT = Path(__file__).resolve().parent.parent
MANIFEST = "blender_manifest.toml"

# Wheel platform tag prefix/suffix -> Blender platform; enough for the platforms we ship.
_PLATFORM_RULES = (
    ("linux-x64", "manylinux", "_x86_64"),
    ("linux-arm64", "manylinux", "_aarch64"),
    ("windows-x64", "win", "_amd64"),
    ("windows-arm64", "win", "_arm64"),
    ("macos-arm64", "macosx", "_arm64"),
    ("macos-x64", "macosx", "_x86_64"),
)

# Copying these into the staging tree would only cost time: the builder excludes them anyway.
_STAGING_IGNORE = shutil.ignore_patterns(
    ".git", ".venv", "venv", "wheels", "dist", "out", "build", "__pycache__", ".mypy_cache",
    ".pytest_cache", ".hypothesis", "*.zip", "*.blend1")


class BuildError(RuntimeError):
    pass


def wheel_fields(path: str) -> dict:
    """name, version, python tag, abi tag and platform tags of a wheel file name."""
    stem = os.path.basename(path)[:-len(".whl")]
    parts = stem.split("-")
    if len(parts) not in (5, 6):
        raise BuildError(f"not a wheel file name: {path}")
    return {"name": parts[0], "version": parts[1], "python": parts[-3], "abi": parts[-2],
            "platforms": parts[-1].split(".")}


def blender_platform_of_wheel(path: str) -> str:
    tags = wheel_fields(path)["platforms"]
    for platform, prefix, suffix in _PLATFORM_RULES:
        if any(t.startswith(prefix) and t.endswith(suffix) for t in tags):
            return platform
    if tags == ["any"]:
        return "any"
    raise BuildError(f"cannot tell the Blender platform of wheel {os.path.basename(path)}")


def python_version_of_tag(tag: str) -> str:
    m = re.fullmatch(r"cp(\d)(\d+)", tag)
    if not m:
        raise BuildError(f"unexpected python tag {tag!r} (expected cpXY)")
    return f"{m.group(1)}.{m.group(2)}"


def blender_scripts_dir() -> Path:
    """``<site-packages>/bpy/<version>/scripts`` of the installed bpy module, without importing it."""
    spec = importlib.util.find_spec("bpy")
    if spec is None or not spec.submodule_search_locations:
        raise BuildError("the bpy module is not installed in this Python (pip install bpy==5.0.1); "
                         "its blender_ext.py is needed to build and validate the extension")
    base = Path(list(spec.submodule_search_locations)[0])
    found = sorted(base.glob("*/scripts/addons_core/bl_pkg/cli/blender_ext.py"))
    if not found:
        raise BuildError(f"blender_ext.py not found under {base}")
    return found[-1].parents[3]


def blender_ext_command(scripts: Path | None = None) -> list:
    scripts = scripts or blender_scripts_dir()
    return [sys.executable, str(scripts / "addons_core" / "bl_pkg" / "cli" / "blender_ext.py")]


def valid_tags_file(scripts: Path | None = None) -> Path:
    scripts = scripts or blender_scripts_dir()
    return scripts / "modules" / "_bpy_internal" / "extensions" / "tags.py"


def read_manifest(root: Path = ROOT) -> dict:
    with open(root / MANIFEST, "rb") as fh:
        return tomllib.load(fh)


def wheels_by_platform(manifest: dict) -> dict:
    out: dict = {p: [] for p in manifest.get("platforms", [])}
    for w in manifest.get("wheels", []):
        platform = blender_platform_of_wheel(w)
        if platform == "any":
            for lst in out.values():
                lst.append(w)
        elif platform in out:
            out[platform].append(w)
        else:
            raise BuildError(f"wheel {w} is for {platform}, which the manifest's platforms do not list")
    return out


def download_wheels(wheels: list, root: Path = ROOT) -> None:
    """pip-download the listed wheels that are missing; fail if pip picks a different file."""
    missing = [w for w in wheels if not (root / w).is_file()]
    groups: dict = {}
    for w in missing:
        f = wheel_fields(w)
        key = (python_version_of_tag(f["python"]), tuple(f["platforms"]))
        groups.setdefault(key, []).append(f"{f['name']}=={f['version']}")
    dest = root / "wheels"
    dest.mkdir(exist_ok=True)
    for (py, platforms), reqs in sorted(groups.items()):
        cmd = [sys.executable, "-m", "pip", "download", "--no-deps", "--only-binary=:all:",
               "--python-version", py, "-d", str(dest), *reqs]
        for p in platforms:
            cmd += ["--platform", p]
        print("build: " + " ".join(cmd[3:]), flush=True)
        proc = subprocess.run(cmd, capture_output=True, text=True)
        if proc.returncode != 0:
            raise BuildError(f"pip download failed for {' '.join(reqs)} (python {py}, "
                             f"{'/'.join(platforms)}):\n{proc.stdout[-2000:]}{proc.stderr[-2000:]}")
    still = [w for w in wheels if not (root / w).is_file()]
    if still:
        raise BuildError("pip did not produce the wheel files the manifest lists (update "
                         f"{MANIFEST} to the names in wheels/):\n  " + "\n  ".join(still))


def _replace_array(text: str, key: str, values: list) -> str:
    pattern = re.compile(rf"^{key} = \[[^\]]*\]", re.M)
    if len(pattern.findall(text)) != 1:
        raise BuildError(f"{MANIFEST}: expected exactly one top-level '{key} = [...]' array")
    body = "".join(f'  "{v}",\n' for v in values)
    return pattern.sub(lambda _m: f"{key} = [\n{body}]", text)


def stage(root: Path, staging: Path, platforms: list, wheels: list) -> None:
    shutil.copytree(root, staging, ignore=_STAGING_IGNORE, symlinks=False)
    for w in wheels:
        dst = staging / w
        dst.parent.mkdir(parents=True, exist_ok=True)
        shutil.copy2(root / w, dst)
    text = (root / MANIFEST).read_text(encoding="utf-8")
    text = _replace_array(text, "platforms", platforms)
    text = _replace_array(text, "wheels", wheels)
    (staging / MANIFEST).write_text(text, encoding="utf-8")


def check_zip(path: Path, platform: str, expected_wheels: list, scripts: Path) -> list:
    """Problems found in a built zip ([] when it is fine)."""
    problems = []
    proc = subprocess.run([*blender_ext_command(scripts), "validate", "--valid-tags",
                           str(valid_tags_file(scripts)), str(path)], capture_output=True, text=True)
    if proc.returncode != 0:
        problems.append(f"blender_ext.py validate failed: {proc.stdout}{proc.stderr}".strip())
    with zipfile.ZipFile(path) as zf:
        names = zf.namelist()
    for required in (MANIFEST, "__init__.py", "LICENSE"):
        if required not in names:
            problems.append(f"{required} missing")
    got = sorted(n for n in names if n.endswith(".whl"))
    want = sorted(w.removeprefix("./") for w in expected_wheels)
    if got != want:
        problems.append(f"wheels for {platform} should be {want}, found {got}")
    for n in names:
        base = os.path.basename(n).lower()
        if base.startswith("numpy"):
            problems.append(f"numpy must not be bundled (Blender ships its own): {n}")
        top = n.split("/", 1)[0]
        if top in ("tests", "scripts", "docs", "dist", "wheels", "out", ".venv", ".git") and not n.endswith(".whl"):
            problems.append(f"development file in the zip: {n}")
        if "__pycache__" in n or n.endswith(".pyc"):
            problems.append(f"bytecode in the zip: {n}")
    return problems


def zip_name(manifest: dict, platform: str, version: str | None = None) -> str:
    """The file name Blender's builder gives a platform's zip: it writes the platform with an
    underscore (linux-x64 -> nonogram3d-<version>-linux_x64.zip)."""
    return f"{manifest['id']}-{version or manifest['version']}-{platform.replace('-', '_')}.zip"


def build(platforms: list | None = None, *, download: bool = True, out_dir: Path | None = None,
          root: Path = ROOT) -> list:
    """Build and check one zip per platform; returns their paths."""
    scripts = blender_scripts_dir()
    manifest = read_manifest(root)
    by_platform = wheels_by_platform(manifest)
    platforms = list(platforms or manifest.get("platforms", []))
    if not platforms:
        raise BuildError(f"{MANIFEST} declares no platforms")
    unknown = [p for p in platforms if p not in by_platform]
    if unknown:
        raise BuildError(f"platform(s) {', '.join(unknown)} not in the manifest's platforms "
                         f"({', '.join(by_platform)})")
    wheels = [w for w in manifest.get("wheels", []) if any(w in by_platform[p] for p in platforms)]
    if download:
        download_wheels(wheels, root)
    else:
        missing = [w for w in wheels if not (root / w).is_file()]
        if missing:
            raise BuildError("--no-download, but these wheels are missing:\n  " + "\n  ".join(missing))
    out_dir = Path(out_dir or root / "dist").resolve()
    out_dir.mkdir(parents=True, exist_ok=True)
    results = []
    with tempfile.TemporaryDirectory(prefix="nonogram3d-build-") as tmp:
        staging = Path(tmp) / manifest["id"]
        stage(root, staging, platforms, wheels)
        cmd = [*blender_ext_command(scripts), "build", "--split-platforms", "--source-dir", str(staging),
               "--output-dir", str(out_dir), "--valid-tags", str(valid_tags_file(scripts))]
        proc = subprocess.run(cmd, capture_output=True, text=True)
        sys.stdout.write(proc.stdout)
        if proc.returncode != 0:
            raise BuildError(f"blender_ext.py build failed:\n{proc.stdout}{proc.stderr}")
    for platform in platforms:
        path = out_dir / zip_name(manifest, platform)
        if not path.is_file():
            raise BuildError(f"the builder did not write {path}")
        problems = check_zip(path, platform, by_platform[platform], scripts)
        if problems:
            raise BuildError(f"{path.name}:\n  " + "\n  ".join(problems))
        results.append(path)
    return results


def main(argv=None) -> int:
    ap = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    ap.add_argument("--platform", action="append", dest="platforms", metavar="PLATFORM",
                    help="build only this platform (repeatable), e.g. linux-x64, windows-x64, macos-arm64")
    ap.add_argument("--no-download", action="store_true", help="do not run pip; the wheels must be in wheels/")
    ap.add_argument("--out-dir", type=Path, default=None, help="where the zips go (default: dist/)")
    args = ap.parse_args(argv)
    try:
        paths = build(args.platforms, download=not args.no_download, out_dir=args.out_dir)
    except BuildError as exc:
        print(f"build_extension: error: {exc}", file=sys.stderr)
        return 1
    for p in paths:
        print(f"built {p} ({p.stat().st_size / 1e6:.1f} MB)")
    return 0


if __name__ == "__main__":
    sys.exit(main())
