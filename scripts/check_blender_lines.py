"""Is a newer Blender out than the lines the tests run on? Asks the package index which bpy
modules it has (every version, whatever Python its wheels are for) and compares them with
scripts/blender_lines.txt and each line's pinned bpy:

    python scripts/check_blender_lines.py            # scripts/test.sh runs it first
    python scripts/check_blender_lines.py --strict   # exit 1 when something newer is out

It says when a Blender line newer than the newest tested one is on the index (the day it appears,
so the team adds it before artists find what breaks), and when a tested line has a newer patch
than its requirements file pins. It never fails for the index being unreachable or odd: it says
so and exits 0 (``--strict`` only turns "something newer is out" into exit status 1).

The index is PIP_INDEX_URL's (the simple API, as pip reads it), else https://pypi.org/simple.
"""
from __future__ import annotations

import argparse
import json
import os
import re
import sys
import urllib.error
import urllib.request
from pathlib import Path

sys.path.insert(0, str(Path(__file__).resolve().parent))
import blender_lines  # noqa: E402

ROOT = Path(__file__).resolve().parent.parent
DEFAULT_INDEX = "https://pypi.org/simple"
# bpy-5.3.0-cp313-cp313-manylinux_2_28_x86_64.whl
WHEEL = re.compile(r"^bpy-(\d+)\.(\d+)\.(\d+)-(cp\d+)-")


def index_url() -> str:
    return (os.environ.get("PIP_INDEX_URL") or DEFAULT_INDEX).rstrip("/")


def fetch_files(index: str, timeout: float) -> list:
    """The bpy wheels' file names on ``index`` (PEP 691 JSON, or the PEP 503 HTML page), yanked
    ones left out."""
    req = urllib.request.Request(f"{index}/bpy/", headers={
        "Accept": "application/vnd.pypi.simple.v1+json, text/html;q=0.1"})
    with urllib.request.urlopen(req, timeout=timeout) as r:
        body = r.read().decode("utf-8", "replace")
        kind = r.headers.get("Content-Type", "")
    if "json" in kind:
        return [f["filename"] for f in json.loads(body).get("files", []) if not f.get("yanked")]
    return [m for m in re.findall(r">\s*([^<>\s]+\.whl)\s*<", body)]


def lines_on_index(files: list) -> dict:
    """'5.3' -> {"version": (5, 3, 0) newest, "pythons": the cpXY tags of that version's wheels}."""
    out: dict = {}
    for name in files:
        m = WHEEL.match(name)
        if not m:
            continue
        version = tuple(int(v) for v in m.group(1, 2, 3))
        line = f"{version[0]}.{version[1]}"
        got = out.setdefault(line, {"version": version, "pythons": set()})
        if version > got["version"]:
            got.update(version=version, pythons=set())
        if version == got["version"]:
            got["pythons"].add(m.group(4))
    return out


def pinned_bpy(requirements: Path) -> tuple:
    """The bpy version ``requirements`` pins, as a tuple ((), when none)."""
    m = re.search(r"^bpy==(\d+)\.(\d+)\.(\d+)", requirements.read_text(encoding="utf-8"), re.M)
    return tuple(int(v) for v in m.groups()) if m else ()


def _python(tag: str) -> str:
    return f"{tag[2]}.{tag[3:]}"


def report(on_index: dict, tested: list, root: Path = ROOT) -> tuple:
    """(lines of text, whether anything newer than the tested lines is out)."""
    newest = max((r["line"] for r in tested), key=blender_lines.version_key)
    text, newer = [], False
    for line in sorted(on_index, key=blender_lines.version_key):
        if blender_lines.version_key(line) <= blender_lines.version_key(newest):
            continue
        info = on_index[line]
        pys = ", ".join(sorted(_python(t) for t in info["pythons"]))
        text.append(f"NEW BLENDER LINE: bpy {'.'.join(map(str, info['version']))} (Blender {line}, "
                    f"wheels for Python {pys}) is on the package index; the tests stop at {newest}. "
                    f"Add it: a requirements-bpy{line.replace('.', '')}.txt and its row in "
                    f"scripts/blender_lines.txt (docs/ADDON.md, 'Blender versions').")
        newer = True
    for row in tested:
        info = on_index.get(row["line"])
        pin = pinned_bpy(root / row["requirements"])
        if info and pin and info["version"] > pin:
            text.append(f"newer patch: bpy {'.'.join(map(str, info['version']))} is out; "
                        f"{row['requirements']} pins {'.'.join(map(str, pin))} for Blender {row['line']}.")
            newer = True
    if not newer:
        pins = [pinned_bpy(root / r["requirements"]) for r in tested]
        text.append(f"Blender lines: the package index has nothing newer than the lines tested "
                    f"({', '.join(r['line'] for r in tested)}; newest bpy {'.'.join(map(str, max(pins)))}).")
    return text, newer


def main(argv=None) -> int:
    ap = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    ap.add_argument("--index", default=None, help=f"simple index URL (default: PIP_INDEX_URL or {DEFAULT_INDEX})")
    ap.add_argument("--timeout", type=float, default=10.0, help="seconds to wait for the index (default 10)")
    ap.add_argument("--strict", action="store_true", help="exit 1 when a newer line or patch is out")
    args = ap.parse_args(argv)
    index = (args.index or index_url()).rstrip("/")
    tested = blender_lines.read_lines(ROOT / "scripts" / "blender_lines.txt")
    try:
        on_index = lines_on_index(fetch_files(index, args.timeout))
    except (OSError, urllib.error.URLError, ValueError) as e:  # offline, refused, timed out, bad JSON
        print(f"check_blender_lines: could not ask the package index ({index}) for the bpy versions: "
              f"{getattr(e, 'reason', e)}; not checked this time (the tests go on)")
        return 0
    if not on_index:
        print(f"check_blender_lines: the package index ({index}) lists no bpy wheels; not checked this time")
        return 0
    text, newer = report(on_index, tested)
    for line in text:
        print(f"check_blender_lines: {line}")
    return 1 if newer and args.strict else 0


if __name__ == "__main__":
    sys.exit(main())
