#!/usr/bin/env bash
# The venv of one Blender line of scripts/blender_lines.txt, made or brought up to date, checked,
# and its Python's path printed on stdout (everything else goes to stderr):
#
#   py=$(bash scripts/line_venv.sh 5.3)     # .venv-bpy53 with Python 3.13 and bpy 5.3.0
#
# The venv is made with the line's Python (scripts/find_python.sh: PATH, pyenv, or $PYTHON313 /
# $PYTHON311) and gets its requirements file installed; it is reused while that file (and the
# files it includes with -r) are unchanged. It is made again, saying why, when it was made by
# another Python or its Python no longer runs; an install that was interrupted is finished on
# the next run; and every run checks that the pinned bpy, numba and llvmlite import, so a venv
# left broken is never used as if it were the line. Exit status 2, with a message saying what
# to install, when the line's Python is not on this machine.
set -euo pipefail
cd "$(dirname "$0")/.."
. scripts/find_python.sh

line="${1:?usage: line_venv.sh LINE (a line of scripts/blender_lines.txt, e.g. 5.3)}"
say() { echo "line_venv $line: $*" >&2; }

lines_file="${NONOGRAM_BLENDER_LINES:-scripts/blender_lines.txt}"  # another table: the tests'
read -r _ want venv req _ < <(grep -E "^${line//./\\.}[[:space:]]" "$lines_file" || true) || true
if [ -z "${venv:-}" ]; then
  say "not a line of $lines_file"
  exit 2
fi
if ! find_python "$want"; then
  say "Blender $line needs Python $want: $PY_WHY"
  exit 2
fi

# The requirements this venv must hold: the file and the files it includes (-r), those first.
req_files=()
while read -r inc; do req_files+=("$inc"); done < <(sed -n 's/^-r[[:space:]]*//p' "$req")
req_files+=("$req")

venv_python="$venv/bin/python"
if [ -e "$venv" ] && ! "$venv_python" -c "import sys; sys.exit(sys.version_info[:2] != tuple(map(int, '$want'.split('.'))))" 2>/dev/null; then
  if [ -L "$venv" ]; then
    say "$venv is a link to a venv that is not a working Python $want; remove the link, or repair what it points to"
    exit 2
  fi
  say "$venv was made by another Python, or its Python no longer runs: making it again with $PY"
  rm -rf "$venv"
fi
if [ ! -x "$venv_python" ]; then
  say "creating $venv with $PY (Python $want)"
  "$PY" -m venv "$venv"
fi

stamp="$venv/.requirements.sha256"
marker="$venv/.installing"
want_stamp=$(cat "${req_files[@]}" | sha256sum | cut -d' ' -f1)
if [ -L "$venv" ] && [ "$(cat "$stamp" 2>/dev/null)" != "$want_stamp" ]; then
  # a linked venv is shared with another checkout: never installed into from here
  say "$venv is a link to a venv made for other requirements; install them there, or replace the link with a venv of this checkout (rm $venv, then run again)"
  exit 2
fi
if [ "$(cat "$stamp" 2>/dev/null)" != "$want_stamp" ]; then
  if [ -e "$marker" ]; then
    say "the last install into $venv did not finish (interrupted?): installing again"
  else
    say "installing $req into $venv (the first run downloads the bpy module, ~400 MB)"
  fi
  # A full disk fails pip deep in a traceback (and the tests after it): say so first, plainly.
  free_mb=$(df -Pm "$venv" | awk 'NR == 2 {print $4}')
  if [ -n "$free_mb" ] && [ "$free_mb" -lt 2500 ]; then
    say "only ${free_mb} MB free where $venv lives; a line's venv needs about 1.3 GB plus the download (~0.4 GB): free some space (old checkouts' .venv-bpy* venvs?) and run again"
    exit 1
  fi
  touch "$marker"
  rm -f "$stamp"
  "$venv_python" -m pip install --quiet -r "$req" >&2
fi

# Every pin installed at its version, and Blender, numba and llvmlite imported: a venv left
# half-installed (an interrupted download, files deleted) fails here, not in the tests.
check='
import importlib.metadata as m, re, sys
pins = {}
for path in sys.argv[1:]:
    for line in open(path, encoding="utf-8"):
        hit = re.match(r"([A-Za-z0-9_.-]+)(\[[^]]*\])?==([^\s;#]+)", line.strip())
        if hit:
            pins[hit.group(1)] = hit.group(3)
for name in ("bpy", "numba", "llvmlite"):
    if name in pins:
        __import__(name)
bad = []
for name, want in pins.items():
    try:
        got = m.version(name)
    except m.PackageNotFoundError:
        got = "missing"
    if got != want:
        bad.append(f"{name} {got} (wants {want})")
sys.exit("; ".join(bad) or None)
'
if ! err=$("$venv_python" -c "$check" "${req_files[@]}" 2>&1); then
  say "$venv is incomplete or broken: ${err##*$'\n'}"
  if [ -L "$venv" ]; then
    say "$venv is a link to a venv shared with another checkout: repair it there"
    exit 2
  fi
  say "installing $req again (--force-reinstall)"
  touch "$marker"
  rm -f "$stamp"
  "$venv_python" -m pip install --quiet --force-reinstall -r "$req" >&2
  if ! err=$("$venv_python" -c "$check" "${req_files[@]}" 2>&1); then
    say "$venv still fails after installing again: ${err##*$'\n'}; remove it (rm -rf $venv) and run again"
    exit 1
  fi
fi
if [ "$(cat "$stamp" 2>/dev/null)" != "$want_stamp" ]; then
  echo "$want_stamp" > "$stamp"
fi
rm -f "$marker"
echo "$venv_python"
