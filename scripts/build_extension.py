"""Build the Blender extension zips: one per platform and Blender Python, each with its wheels.

    python scripts/build_extension.py                          # every platform in the manifest
    python scripts/build_extension.py --platform linux-x64     # just one
    python scripts/build_extension.py --no-download            # use the wheels already in wheels/
    python scripts/build_extension.py --kernel-python /path/to/python3.13  # this Python for cp313's kernels
    python scripts/build_extension.py --no-prebuilt-kernels    # zips without compiled kernels

The wheels named in ``blender_manifest.toml`` are fetched into ``wheels/`` with ``pip download``
(skipped when already there). The zips are made by Blender's own builder, ``blender_ext.py build
--split-platforms``, run on a staging copy whose manifest lists only the requested platforms (the
builder needs every listed wheel on disk). Each zip is then checked with ``blender_ext.py validate``
and for stray content (numpy, tests, other platforms' wheels). ``blender_ext.py`` ships inside the
``bpy`` wheel, so no Blender binary is needed.

One zip per Blender Python (``PYTHON_BLENDER``): the cp311 wheels in a zip for Blender 4.2-5.0
(its manifest gets ``blender_version_max = "5.1.0"``), the cp313 ones in a zip for 5.1 and newer.
Blender 4.2.0 installs an extension's wheels without looking at their Python tag (later 4.2
releases pick the matching one), so a zip with both a cp311 and a cp313 numba gave Blender 4.2.0
the cp313 numba in its Python 3.11 ("cannot import name '_typeconv'"). With one Python per zip
every 4.2 release gets the right wheels.

Prebuilt kernels: both zips of the platform the build runs on also carry the engine's numba
kernels, compiled ahead so a fresh install compiles nothing (``engine/jit.py``, "Prebuilt
kernels"). Each zip's are compiled by a Python of its own version with the numba and llvmlite it
ships: this Python for its own zip, and for the other one a Python given with ``--kernel-python``
or else the venv of the newest Blender line of that Python in ``scripts/blender_lines.txt``
(``scripts/line_venv.sh`` makes it, as the tests do: Python 3.13 found on the PATH or under pyenv,
with the pinned packages). A kernel Python that is missing, or whose numba or llvmlite are not the
zip's, stops the build with a message saying what to install (``--no-prebuilt-kernels`` builds
without). A fresh process with an empty cache runs the warm-up parts (``PREBUILT_PARTS``) for the
engine imported under the installed add-on's package name, compiling for a baseline CPU
(``BASELINE``), not this machine's; its cache files go into the zip under
``engine/prebuilt/<python>-<cpu>/`` with a ``TAG.json`` saying what they need. Other platforms'
zips have none: their kernels compile on first use, as without this (build on that platform to
ship them).
"""
from __future__ import annotations

import argparse
import ast
import importlib.util
import json
import os
import platform as _platform
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
sys.path.insert(0, str(Path(__file__).resolve().parent))
import blender_lines  # noqa: E402

# Wheel platform tag prefix/suffix -> Blender platform; enough for the platforms we ship.
_PLATFORM_RULES = (
    ("linux-x64", "manylinux", "_x86_64"),
    ("linux-arm64", "manylinux", "_aarch64"),
    ("windows-x64", "win", "_amd64"),
    ("windows-arm64", "win", "_arm64"),
    ("macos-arm64", "macosx", "_arm64"),
    ("macos-x64", "macosx", "_x86_64"),
)

# The package Blender imports an extension installed from a zip as (repository "user_default");
# compiled kernels name their modules, so they are built under this name.
ADDON_REPO = "bl_ext.user_default"
PREBUILT_FOLDER = "engine/prebuilt"
# engine/warmup.py's parts compiled into the zip: all of them (the seed's too)
PREBUILT_PARTS = ("make", "masks", "solve", "design", "grade", "schedulers", "seed", "colour", "colourdesign")
# platform -> the baseline CPU its prebuilt kernels are compiled for (engine/jit.py's BASELINES)
BASELINE = {"linux-x64": "x86-64-v2", "windows-x64": "x86-64-v2", "macos-x64": "x86-64-v2"}

# Copying these into the staging tree would only cost time: the builder excludes them anyway.
# ".venv*": the test venvs of the other Blender versions too (.venv-bpy42, .venv-bpy45, ~1.2 GB
# each), which the manifest's ".*" keeps out of the zip but which were copied into every staging
# tree (twice per build, one per Python; a full disk failed a CI run's build tests).
_STAGING_IGNORE = shutil.ignore_patterns(
    ".git", ".venv*", "venv", "wheels", "dist", "out", "build", "__pycache__", ".mypy_cache",
    ".pytest_cache", ".hypothesis", "*.zip", "*.blend1", "node_modules")


# wheel python tag -> (blender_version_min, blender_version_max or None, the zip's name suffix):
# the Blender versions that bundle that Python (4.2-5.0: 3.11; 5.1 on: 3.13)
PYTHON_BLENDER = {
    "cp311": ("4.2.0", "5.1.0", "blender4.2-5.0"),
    "cp313": ("5.1.0", None, "blender5.1+"),
}


class BuildError(RuntimeError):
    pass


# The web player's built page (web/build.mjs writes it; engine/play/webpage.py fills it): the zip
# carries it so Export Puzzle's "Playable page" and Play in Browser need no network.
PLAYER_TEMPLATE = "engine/play/player/nonogram-player.html"


def ensure_player(root: Path) -> None:
    """Build the web player when its page is missing (npm ci + web/build.mjs), else say how."""
    if (root / PLAYER_TEMPLATE).is_file():
        return
    npm = shutil.which("npm")
    if npm is None:
        raise BuildError(f"{PLAYER_TEMPLATE} is missing and npm is not installed: install Node.js/npm, then "
                         f"run `npm ci && npm run build` in web/ (or bash scripts/bootstrap.sh)")
    for cmd in ([npm, "ci", "--no-audit", "--no-fund", "--loglevel=error"], [npm, "run", "build"]):
        proc = subprocess.run(cmd, cwd=root / "web", capture_output=True, text=True)
        if proc.returncode != 0:
            raise BuildError(f"building the web player failed ({' '.join(cmd[1:])}):\n{proc.stdout}{proc.stderr}")
    if not (root / PLAYER_TEMPLATE).is_file():
        raise BuildError(f"web/build.mjs did not write {PLAYER_TEMPLATE}")


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


def _set_versions(text: str, version_min: str, version_max: str | None) -> str:
    pattern = re.compile(r'^blender_version_min = "[^"]*"\n', re.M)
    if len(pattern.findall(text)) != 1 or re.search(r"^blender_version_max", text, re.M):
        raise BuildError(f"{MANIFEST}: expected one blender_version_min and no blender_version_max")
    line = f'blender_version_min = "{version_min}"\n'
    if version_max:
        line += f'blender_version_max = "{version_max}"\n'
    return pattern.sub(lambda _m: line, text)


def python_tags(wheels: list) -> list:
    """The Blender Pythons the wheels are for, each a zip of its own ([None]: no wheels)."""
    tags = sorted({wheel_fields(w)["python"] for w in wheels})
    unknown = [t for t in tags if t not in PYTHON_BLENDER]
    if unknown:
        raise BuildError(f"wheels for {', '.join(unknown)}: no Blender versions known for that Python "
                         "(add it to PYTHON_BLENDER)")
    return tags or [None]


def wheels_for_python(wheels: list, tag: str | None) -> list:
    return [w for w in wheels if tag is None or wheel_fields(w)["python"] == tag]


def stage(root: Path, staging: Path, platforms: list, wheels: list, python: str | None = None) -> None:
    """A copy of the source whose manifest lists only ``platforms`` and ``wheels``, and, for a
    zip of one Blender ``python`` tag, the Blender versions that bundle that Python."""
    shutil.copytree(root, staging, ignore=_STAGING_IGNORE, symlinks=False)
    for w in wheels:
        dst = staging / w
        dst.parent.mkdir(parents=True, exist_ok=True)
        shutil.copy2(root / w, dst)
    text = (root / MANIFEST).read_text(encoding="utf-8")
    text = _replace_array(text, "platforms", platforms)
    text = _replace_array(text, "wheels", wheels)
    if python is not None:
        version_min, version_max, _ = PYTHON_BLENDER[python]
        text = _set_versions(text, version_min, version_max)
    (staging / MANIFEST).write_text(text, encoding="utf-8")


def host_platform() -> str:
    """The Blender platform this build runs on ('' when none we ship)."""
    machine = _platform.machine().lower()
    arch = {"x86_64": "x64", "amd64": "x64", "aarch64": "arm64", "arm64": "arm64"}.get(machine, "")
    system = {"linux": "linux", "win32": "windows", "darwin": "macos"}.get(sys.platform, "")
    return f"{system}-{arch}" if system and arch else ""


def _addon_string(root: Path, path: str, name: str) -> str:
    """The string constant ``name`` of the add-on's file ``path`` (read, not imported: the
    add-on's package needs bpy)."""
    tree = ast.parse((root / path).read_text(encoding="utf-8"))
    for node in tree.body:
        if isinstance(node, ast.Assign) and any(getattr(t, "id", "") == name for t in node.targets):
            return ast.literal_eval(node.value)
    raise BuildError(f"{path} has no constant {name}")


# Run by each kernel Python after jobs/warmup.py's IMPORT_ENGINE (the engine of the unpacked
# zip imported as the installed add-on's): its warm-up parts compiled into an empty cache.
_PREBUILD_CHILD = r"""
import json
base, parts, cpu = sys.argv[3:6]
if not jit.HAVE_NUMBA:
    sys.exit("numba unavailable: " + jit.NUMBA_ERROR)
if parts:
    jit.set_cache_base(base)
    importlib.import_module(package + ".engine.warmup").run_parts(parts.split(","))
    print("FOLDER " + jit.cache_folder())
print("TAG " + json.dumps(jit.prebuilt_tag()))
print("PREBUILT " + jit.prebuilt_status())
print("CPUENV " + json.dumps(jit.baseline_env(cpu)))
"""


def _prebuild_run(python: str, source: Path, package: str, base: str, parts: tuple, cpu: str,
                  cpu_env: dict | None = None) -> dict:
    """Run ``_PREBUILD_CHILD``: without ``parts`` it only reports its versions (and the
    environment for compiling for ``cpu``), with them it compiles them with ``cpu_env``."""
    env = {k: v for k, v in os.environ.items() if not k.startswith(("NUMBA_", "PYTHON", "NONOGRAM_"))}
    env.update(PYTHONDONTWRITEBYTECODE="1", **(cpu_env or {}))
    script = _addon_string(source, "jobs/warmup.py", "IMPORT_ENGINE") + _PREBUILD_CHILD
    proc = subprocess.run([python, "-c", script, str(source), package, base, ",".join(parts), cpu],
                          capture_output=True, text=True, env=env, timeout=3600)
    missing = re.search(r"numba unavailable: .*|No module named '[^']+'", proc.stderr)
    if proc.returncode != 0 and missing:
        raise BuildError(f"{python} cannot compile the prebuilt kernels ({missing.group(0)}): they need "
                         "the numba and llvmlite the zip ships, and numpy, in that Python (install them "
                         "into it, or leave --kernel-python out to let the build make its venv)")
    if proc.returncode != 0:
        raise BuildError(f"compiling the prebuilt kernels with {python} failed:\n{proc.stderr[-3000:]}")
    out = dict(line.split(" ", 1) for line in proc.stdout.splitlines()
               if line.startswith(("TAG ", "FOLDER ", "CPUENV ", "PREBUILT ")))
    return {"tag": json.loads(out["TAG"]), "folder": out.get("FOLDER", ""), "cpu_env": json.loads(out["CPUENV"]),
            "prebuilt": out["PREBUILT"]}


def prebuild_kernels(source: Path, manifest: dict, platform: str, wheels: list, pythons: list,
                     workdir: str, parts: tuple = PREBUILT_PARTS) -> dict:
    """Compile the kernels for ``platform``'s zip with each of ``pythons`` into
    ``source``/engine/prebuilt (``source``: the zip's files, unpacked), and check that a fresh
    process with an empty cache then loads them all, compiling nothing. Caches go below
    ``workdir``. Returns zip entry name -> file path."""
    cpu = BASELINE.get(platform)
    if cpu is None:
        print(f"build: no baseline CPU known for {platform}: its zip ships no prebuilt kernels", flush=True)
        return {}
    shipped = {}
    for w in wheels:
        f = wheel_fields(w)
        shipped[(f["python"], f["name"])] = f["version"]
    package = f"{ADDON_REPO}.{manifest['id']}"
    done = set()
    for python in pythons:
        first = _prebuild_run(python, source, package, "", (), cpu)
        probe = first["tag"]
        want = {m: shipped.get((probe["python"], m)) for m in ("numba", "llvmlite")}
        if not any(want.values()):
            continue  # a Python of the other zip
        if want != {m: probe[m] for m in want}:
            raise BuildError(f"{python} has numba {probe['numba']} / llvmlite {probe['llvmlite']} for "
                             f"{probe['python']}, the zip ships {want}: install those into it, or "
                             "leave --kernel-python out to let the build make its venv")
        if probe["python"] in done:
            continue
        done.add(probe["python"])
        print(f"build: compiling the prebuilt kernels for {platform} {probe['python']} ({cpu}; "
              f"{', '.join(parts)}) with {python}", flush=True)
        got = _prebuild_run(python, source, package, tempfile.mkdtemp(dir=workdir), parts, cpu, first["cpu_env"])
        tag = dict(got["tag"], parts=list(parts))
        if (tag["cpu"], tag["features"]) != (cpu, first["cpu_env"]["NUMBA_CPU_FEATURES"]):
            raise BuildError(f"{python}'s numba compiled for {tag['cpu']} ({tag['features']}), not {cpu}")
        folder = source / PREBUILT_FOLDER / f"{tag['python']}-{cpu}"
        folder.mkdir(parents=True)
        for f in os.listdir(got["folder"]):
            if f.endswith((".nbi", ".nbc")):
                shutil.copy2(os.path.join(got["folder"], f), folder / f)
        (folder / "TAG.json").write_text(json.dumps(tag, indent=1, sort_keys=True), encoding="utf-8")
        # what an installed add-on does on this machine: its empty cache must stay empty
        check = _prebuild_run(python, source, package, tempfile.mkdtemp(dir=workdir), parts, cpu)
        left = os.listdir(check["folder"]) if os.path.isdir(check["folder"]) else []
        compiled = sorted(f for f in left if f.endswith(".nbi"))
        if compiled or f"({folder.name})" not in check["prebuilt"]:
            raise BuildError(f"a fresh process did not load the prebuilt kernels of {folder.name} "
                             f"({check['prebuilt']}); it compiled {compiled[:10]}")
        print(f"build: {folder.name}: {len(os.listdir(folder)) - 1} cache files; a fresh process "
              f"loads them all", flush=True)
    root = source / PREBUILT_FOLDER
    return {p.relative_to(source).as_posix(): str(p) for p in sorted(root.rglob("*")) if p.is_file()} \
        if root.is_dir() else {}


def python_of(python: str) -> str:
    """The wheel tag of a Python interpreter (cp313)."""
    proc = subprocess.run([python, "-c", "import sys; print('cp%d%d' % sys.version_info[:2])"],
                          capture_output=True, text=True)
    if proc.returncode != 0:
        raise BuildError(f"{python} does not run: {proc.stderr.strip()[-500:]}")
    return proc.stdout.strip()


def kernel_python(tag: str, root: Path = ROOT) -> str:
    """A Python of ``tag`` (cp313) with the numba and llvmlite the zips ship, found the way the
    tests find theirs: the venv of the newest Blender line of that Python in
    scripts/blender_lines.txt, made or brought up to date by scripts/line_venv.sh (which looks for
    the interpreter on the PATH and under pyenv, and says what to install when there is none)."""
    version = python_version_of_tag(tag)
    lines = [r["line"] for r in blender_lines.read_lines(root / "scripts" / "blender_lines.txt")
             if r["python"] == version]
    if not lines:
        raise BuildError(f"scripts/blender_lines.txt has no Blender line of Python {version} to "
                         f"compile the {tag} kernels with")
    line = max(lines, key=blender_lines.version_key)
    print(f"build: the {tag} kernels compile in the venv of Blender {line} (scripts/line_venv.sh {line})",
          flush=True)
    proc = subprocess.run(["bash", str(root / "scripts" / "line_venv.sh"), line], cwd=root,
                          stdout=subprocess.PIPE, text=True)  # its messages go to our stderr
    if proc.returncode != 0 or not proc.stdout.strip():
        raise BuildError(f"no Python {version} with numba to compile the {tag} zip's kernels (the "
                         "message above says what to install); or pass --kernel-python, or build "
                         "with --no-prebuilt-kernels")
    return str(root / proc.stdout.strip().splitlines()[-1])


def kernel_pythons_for(platforms: list, given: list, root: Path = ROOT) -> list:
    """``given`` and, for each Python of the host platform's zips that none of them is,
    ``kernel_python``'s: every zip the build can give kernels gets them."""
    if host_platform() not in platforms:
        return list(given)
    by_platform = wheels_by_platform(read_manifest(root))
    tags = python_tags(by_platform.get(host_platform(), []))
    have = {python_of(p) for p in given}
    return list(given) + [kernel_python(t, root) for t in tags if t is not None and t not in have]


def add_to_zip(path: Path, entries: dict) -> None:
    with zipfile.ZipFile(path, "a", compression=zipfile.ZIP_DEFLATED) as zf:
        for name, src in sorted(entries.items()):
            zf.write(src, name)


def check_zip(path: Path, platform: str, expected_wheels: list, scripts: Path,
              prebuilt: bool = False) -> list:
    """Problems found in a built zip ([] when it is fine); ``prebuilt``: it must carry kernels."""
    problems = []
    proc = subprocess.run([*blender_ext_command(scripts), "validate", "--valid-tags",
                           str(valid_tags_file(scripts)), str(path)], capture_output=True, text=True)
    if proc.returncode != 0:
        problems.append(f"blender_ext.py validate failed: {proc.stdout}{proc.stderr}".strip())
    with zipfile.ZipFile(path) as zf:
        names = zf.namelist()
    for required in (MANIFEST, "__init__.py", "LICENSE", PLAYER_TEMPLATE):
        if required not in names:
            problems.append(f"{required} missing")
    got = sorted(n for n in names if n.endswith(".whl"))
    want = sorted(w.removeprefix("./") for w in expected_wheels)
    if got != want:
        problems.append(f"wheels for {platform} should be {want}, found {got}")
    packages = [wheel_fields(n)["name"] for n in got]
    if len(set(packages)) != len(packages):
        # Blender 4.2.0 would install any one of them, whatever its Python (see the docstring)
        problems.append(f"more than one wheel of a package: {got}")
    for n in names:
        base = os.path.basename(n).lower()
        if base.startswith("numpy"):
            problems.append(f"numpy must not be bundled (Blender ships its own): {n}")
        top = n.split("/", 1)[0]
        if top in ("tests", "scripts", "docs", "dist", "wheels", "out", ".venv", ".git", "web") and not n.endswith(".whl"):
            problems.append(f"development file in the zip: {n}")
        if "__pycache__" in n or n.endswith(".pyc"):
            problems.append(f"bytecode in the zip: {n}")
    kernels = [n for n in names if n.startswith(PREBUILT_FOLDER + "/")]
    if prebuilt and not any(n.endswith("/TAG.json") for n in kernels):
        problems.append("no prebuilt kernels")
    if not prebuilt and kernels:
        problems.append(f"prebuilt kernels in a zip that should have none: {kernels[0]}")
    if any(not n.endswith((".nbi", ".nbc", "/TAG.json")) for n in kernels):
        problems.append("files other than numba cache files in " + PREBUILT_FOLDER)
    return problems


def zip_name(manifest: dict, platform: str, version: str | None = None) -> str:
    """The file name Blender's builder gives a platform's zip: it writes the platform with an
    underscore (linux-x64 -> nonogram3d-<version>-linux_x64.zip)."""
    return f"{manifest['id']}-{version or manifest['version']}-{platform.replace('-', '_')}.zip"


def release_zip_name(manifest: dict, platform: str, python: str | None) -> str:
    """The name a zip gets in the output folder: the builder's, plus the Blender versions it is
    for (nonogram3d-<version>-linux_x64-blender4.2-5.0.zip)."""
    name = zip_name(manifest, platform)
    return name if python is None else name[:-len(".zip")] + f"-{PYTHON_BLENDER[python][2]}.zip"


def build(platforms: list | None = None, *, download: bool = True, out_dir: Path | None = None,
          root: Path = ROOT, kernel_pythons: list | None = None, prebuilt_parts: tuple = PREBUILT_PARTS,
          require_kernels: bool = False) -> list:
    """Build and check one zip per platform and Blender Python; returns their paths. The host
    platform's zips carry kernels compiled by each of ``kernel_pythons`` whose Python they are for
    (default: this Python; [] for none; ``kernel_pythons_for`` finds one for each zip); with
    ``require_kernels`` a host zip that none of them is for stops the build."""
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
    ensure_player(root)
    if download:
        download_wheels(wheels, root)
    else:
        missing = [w for w in wheels if not (root / w).is_file()]
        if missing:
            raise BuildError("--no-download, but these wheels are missing:\n  " + "\n  ".join(missing))
    out_dir = Path(out_dir or root / "dist").resolve()
    out_dir.mkdir(parents=True, exist_ok=True)
    pythons = [sys.executable] if kernel_pythons is None else list(kernel_pythons)
    results = []
    with tempfile.TemporaryDirectory(prefix="nonogram3d-build-") as tmp:
        for python in python_tags(wheels):
            results += _build_python(root, Path(tmp), manifest, platforms, by_platform, python, scripts,
                                     out_dir, pythons, prebuilt_parts, require_kernels)
    return results


def _build_python(root: Path, tmp: Path, manifest: dict, platforms: list, by_platform: dict,
                  python: str | None, scripts: Path, out_dir: Path, pythons: list,
                  prebuilt_parts: tuple, require_kernels: bool = False) -> list:
    """The zips of one Blender Python, one per platform, moved into ``out_dir`` under
    ``release_zip_name``."""
    wheels = {p: wheels_for_python(by_platform[p], python) for p in platforms}
    staging = tmp / f"staging-{python}" / manifest["id"]
    built = tmp / f"built-{python}"
    built.mkdir()
    stage(root, staging, platforms, [w for p in platforms for w in wheels[p]], python)
    cmd = [*blender_ext_command(scripts), "build", "--split-platforms", "--source-dir", str(staging),
           "--output-dir", str(built), "--valid-tags", str(valid_tags_file(scripts))]
    proc = subprocess.run(cmd, capture_output=True, text=True)
    sys.stdout.write(proc.stdout)
    if proc.returncode != 0:
        raise BuildError(f"blender_ext.py build failed:\n{proc.stdout}{proc.stderr}")
    host = host_platform()
    with_kernels = set()
    for platform in platforms:
        path = built / zip_name(manifest, platform)
        if not path.is_file():
            raise BuildError(f"the builder did not write {path.name}")
        if platform != host or not pythons:
            if pythons:
                print(f"build: {platform}: no prebuilt kernels (only the platform the build runs on, "
                      f"{host or 'unknown'}, can have them)", flush=True)
            continue
        # the engine as the zip has it (the builder may leave out files that the source digest
        # would count)
        unpacked = tmp / f"unpacked-{python}-{platform}"
        with zipfile.ZipFile(path) as zf:
            zf.extractall(unpacked, [n for n in zf.namelist() if not n.endswith(".whl")])
        entries = prebuild_kernels(unpacked, manifest, platform, wheels[platform], pythons, str(tmp),
                                   prebuilt_parts)
        if entries:
            add_to_zip(path, entries)
            with_kernels.add(platform)
        elif require_kernels:
            raise BuildError(f"{release_zip_name(manifest, platform, python)} would carry no prebuilt "
                             f"kernels: none of {', '.join(pythons)} is a {python} Python with numba")
    results = []
    for platform in platforms:
        path = out_dir / release_zip_name(manifest, platform, python)
        shutil.move(str(built / zip_name(manifest, platform)), path)
        problems = check_zip(path, platform, wheels[platform], scripts, platform in with_kernels)
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
    ap.add_argument("--kernel-python", action="append", dest="pythons", metavar="PYTHON",
                    help="another Python (e.g. 3.13) with the numba/llvmlite the zip ships for its "
                         "version, to compile that zip's prebuilt kernels with (repeatable; default: "
                         "the venv of the newest Blender line of that Python, scripts/line_venv.sh)")
    ap.add_argument("--no-prebuilt-kernels", action="store_true",
                    help="ship no compiled kernels (every platform compiles on first use)")
    args = ap.parse_args(argv)
    try:
        pythons = [] if args.no_prebuilt_kernels else kernel_pythons_for(
            args.platforms or read_manifest().get("platforms", []), [sys.executable] + (args.pythons or []))
        paths = build(args.platforms, download=not args.no_download, out_dir=args.out_dir,
                      kernel_pythons=pythons, require_kernels=bool(pythons))
    except BuildError as exc:
        print(f"build_extension: error: {exc}", file=sys.stderr)
        return 1
    for p in paths:
        print(f"built {p} ({p.stat().st_size / 1e6:.1f} MB)")
    return 0


if __name__ == "__main__":
    sys.exit(main())
