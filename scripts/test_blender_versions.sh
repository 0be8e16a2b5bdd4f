#!/usr/bin/env bash
# The Blender tests (pytest -m blender) on the other Blender versions we declare: bpy 4.2 LTS and
# 4.5 LTS, each in a virtual environment of its own, .venv-bpy42 and .venv-bpy45 (created, or
# reused while requirements-bpy<NN>.txt is unchanged; ~1.2 GB each). .venv's bpy 5.0 runs them
# in scripts/test.sh's main pytest. Exit status: non-zero when any version fails.
#
#   bash scripts/test_blender_versions.sh                 # 4.2 and 4.5
#   NONOGRAM_BPY_VERSIONS="42" bash scripts/test_blender_versions.sh   # only 4.2
#   bash scripts/test_blender_versions.sh -- -x -k batch  # extra pytest arguments after --
#
# Blender 5.1+ (Python 3.13): no bpy 5.1 module is on PyPI yet; docs/ADDON.md says what runs where.
set -euo pipefail
cd "$(dirname "$0")/.."

VERSIONS="${NONOGRAM_BPY_VERSIONS-42 45}"
EXTRA=()
while [ $# -gt 0 ]; do
  case "$1" in
    --) shift; EXTRA=("$@"); break ;;
    *) echo "test_blender_versions: unknown argument $1 (use -- before pytest arguments)" >&2; exit 2 ;;
  esac
  shift
done

. scripts/python311.sh
if [ -z "$PY" ]; then
  echo "test_blender_versions: Python 3.11 is required (the bpy 4.2/4.5 modules are built for it); set PYTHON=/path/to/python3.11" >&2
  exit 2
fi

# Every Blender test file (the "blender" marker), passed by name: the engine tests need packages
# these venvs leave out (ortools, mypy, ...), and they do not depend on the Blender version.
test_files() {
  grep -l "pytest.mark.blender" tests/test_*.py
}

status=0
summary=""
for v in $VERSIONS; do
  req="requirements-bpy$v.txt"
  venv=".venv-bpy$v"
  if [ ! -f "$req" ]; then
    echo "test_blender_versions: no $req" >&2
    exit 2
  fi
  if [ ! -x "$venv/bin/python" ]; then
    echo "test_blender_versions: creating $venv with $PY"
    "$PY" -m venv "$venv"
  fi
  stamp="$venv/.requirements.sha256"
  want=$(cat "$req" requirements.txt | sha256sum | cut -d' ' -f1)
  if [ "$(cat "$stamp" 2>/dev/null)" != "$want" ]; then
    echo "test_blender_versions: installing $req into $venv (first run downloads the bpy module, ~350 MB)"
    "$venv/bin/python" -m pip install --quiet --upgrade pip
    "$venv/bin/python" -m pip install --quiet -r "$req"
    echo "$want" > "$stamp"
  fi
  bpy_version=$("$venv/bin/python" -c 'import importlib.metadata as m; print(m.version("bpy"))')
  echo "== Blender tests on bpy $bpy_version ($venv)"
  t0=$(date +%s)
  set +e
  # shellcheck disable=SC2046
  "$venv/bin/python" -m pytest -q -m blender $(test_files) ${EXTRA[@]+"${EXTRA[@]}"}
  rc=$?
  set -e
  summary="$summary
bpy $bpy_version: pytest exit $rc in $(( $(date +%s) - t0 )) s"
  [ "$rc" = 0 ] || status=1
done
echo "== Blender versions:$summary"
exit $status
